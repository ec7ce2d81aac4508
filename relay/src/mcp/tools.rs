//! The MCP tool set (`spec/mcp-server.md`, "Tools"), derived from the broker's list of
//! operations: each [`Op`]'s tool name, title, description and hints come from its spec, and its
//! input schema from its request type. Shared by the relay's `/mcp` endpoint and
//! `wterm-relay mcp`. Also the pieces every backend needs: window ids
//! (`"<host>:<int>"`) and the bound on `read_screen` answers.

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{json, Map, Value};

use crate::broker::ops::{HostArg, Op, Target};
use crate::ground::limits::{MAX_TOOL_ATTR_RUNS, MAX_TOOL_TEXT_CHARS};

/// The `id` argument of a tool that names a window.
const ID_DOC: &str = "The window id from list_terminals, e.g. \"default:12\".";

/// The `host` argument of a tool whose [`HostArg`] is optional.
const HOST_DOC: &str =
    "The host name (see mcp_info); required only when this server fronts several relays.";

/// The tool of `op`, all from its [`Spec`](crate::broker::ops::Spec): name, title,
/// description, annotations, and the input schema [`input_schema`] derives.
pub fn tool(op: Op) -> Tool {
    let spec = op.spec();
    let annotations = ToolAnnotations::with_title(spec.title)
        .read_only(spec.read_only)
        .destructive(spec.destructive)
        .idempotent(spec.idempotent)
        .open_world(false);
    Tool::new(spec.tool, spec.description, Arc::new(input_schema(op))).with_annotations(annotations)
}

/// The tool's input schema: the operation's request schema (`Op::request_schema`), plus the
/// window `id` as a `"host:N"` string when the operation names a window and `host` as its
/// [`HostArg`] says; no other property is accepted.
pub fn input_schema(op: Op) -> Map<String, Value> {
    let spec = op.spec();
    let mut schema = op.request_schema();
    let mut props = match schema.remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let mut required: Vec<Value> = match schema.remove("required") {
        Some(Value::Array(r)) => r,
        _ => Vec::new(),
    };
    if spec.target != Target::None {
        props.insert(
            "id".into(),
            json!({ "type": "string", "description": ID_DOC }),
        );
        required.insert(0, Value::from("id"));
    }
    match spec.host {
        HostArg::None => {}
        HostArg::Optional => {
            props.insert(
                "host".into(),
                json!({ "type": ["string", "null"], "description": HOST_DOC }),
            );
        }
        HostArg::Required => {
            props.insert(
                "host".into(),
                json!({ "type": "string", "description": "The host to change (see mcp_info)." }),
            );
            required.push(Value::from("host"));
        }
    }
    schema.insert("type".into(), Value::from("object"));
    schema.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), Value::Bool(false));
    schema
}

/// The tools listed: every operation, `set_mcp_knobs` only when `admin`.
pub fn list(admin: bool) -> Vec<Tool> {
    Op::ALL
        .into_iter()
        .filter(|op| admin || !op.admin_only())
        .map(tool)
        .collect()
}

/// Checks `args` against the tool's input schema ([`input_schema`]): no unknown property,
/// every required one present, each of its declared type (and within an integer's bounds).
/// The error names the field and what it accepts.
pub fn check_args(op: Op, args: &Map<String, Value>) -> Result<(), String> {
    let schema = input_schema(op);
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (key, value) in args {
        let Some(prop) = props.get(key) else {
            let names: Vec<&str> = props.keys().map(String::as_str).collect();
            return Err(format!(
                "unknown field `{key}`, expected one of {}",
                names.join(", ")
            ));
        };
        if !fits(prop, value) {
            return Err(format!("{key}: expected {}", expected(prop)));
        }
    }
    let required = schema.get("required").and_then(Value::as_array);
    for key in required.into_iter().flatten().filter_map(Value::as_str) {
        if args.get(key).is_none_or(Value::is_null) {
            return Err(format!("missing field `{key}`"));
        }
    }
    Ok(())
}

/// The JSON types a property schema allows.
fn types(prop: &Value) -> Vec<&str> {
    match prop.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

/// Whether `value` is of a type `prop` allows (integers within its bounds, arrays item by
/// item).
fn fits(prop: &Value, value: &Value) -> bool {
    let types = types(prop);
    if types.is_empty() {
        return true;
    }
    types.iter().any(|t| match (*t, value) {
        ("null", Value::Null)
        | ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("object", Value::Object(_)) => true,
        ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            let min = prop.get("minimum").and_then(Value::as_f64);
            let max = prop.get("maximum").and_then(Value::as_f64);
            (n.is_u64() || n.is_i64())
                && n.as_f64()
                    .is_some_and(|f| min.is_none_or(|m| f >= m) && max.is_none_or(|m| f <= m))
        }
        ("array", Value::Array(items)) => match prop.get("items") {
            Some(item) => items.iter().all(|v| fits(item, v)),
            None => true,
        },
        _ => false,
    })
}

/// What `prop` accepts, in words.
fn expected(prop: &Value) -> String {
    let mut words: Vec<String> = types(prop)
        .into_iter()
        .filter(|t| *t != "null")
        .map(|t| match t {
            "array" => match prop.get("items").map(types).as_deref() {
                Some([item, ..]) => format!("an array of {item}s"),
                _ => "an array".to_owned(),
            },
            "integer" => match (
                prop.get("minimum").and_then(Value::as_u64),
                prop.get("maximum").and_then(Value::as_u64),
            ) {
                (Some(lo), Some(hi)) => format!("an integer {lo}..{hi}"),
                (Some(0), None) => "a non-negative integer".to_owned(),
                _ => "an integer".to_owned(),
            },
            "object" => "an object".to_owned(),
            t => format!("a {t}"),
        })
        .collect();
    if words.is_empty() {
        words.push("a value".into());
    }
    words.join(" or ")
}

/// A window id on the MCP side: `"<host>:<int>"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowId {
    /// The host's configured name (`default` on the relay's own endpoint).
    pub host: String,
    /// The relay's window id.
    pub id: u64,
}

impl WindowId {
    /// Parses `"<host>:<int>"`; `None` is `malformed_id`. Host names never hold `:` (the
    /// `--host` rule), so `"default:1:2"` is malformed, not an unknown host.
    pub fn parse(s: &str) -> Option<WindowId> {
        let (host, n) = s.split_once(':')?;
        if host.is_empty() || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(WindowId {
            host: host.to_owned(),
            id: n.parse().ok()?,
        })
    }

    /// The string form.
    pub fn render(host: &str, id: u64) -> String {
        format!("{host}:{id}")
    }
}

/// Bounds a `/mcp/read` answer for a tool result: `text` (and a delta's `changed_rows`) cut
/// from the top to [`MAX_TOOL_TEXT_CHARS`], style runs to [`MAX_TOOL_ATTR_RUNS`]; adds
/// `rows_omitted` / `attr_runs_omitted` when something was left out.
pub fn bound_read(answer: &mut Map<String, Value>) {
    if let Some(Value::String(text)) = answer.get("text") {
        if text.len() > MAX_TOOL_TEXT_CHARS {
            let rows: Vec<&str> = text.split('\n').collect();
            let mut total = 0usize;
            let mut keep = rows.len();
            for row in rows.iter().rev() {
                if total + row.len() + 1 > MAX_TOOL_TEXT_CHARS {
                    break;
                }
                total += row.len() + 1;
                keep -= 1;
            }
            let omitted = keep;
            let kept = rows[omitted..].join("\n");
            answer.insert("text".into(), Value::String(kept));
            answer.insert("rows_omitted".into(), Value::from(omitted));
        }
    }
    if let Some(Value::Array(rows)) = answer.get_mut("changed_rows") {
        let mut total = 0usize;
        let mut first_kept = rows.len();
        for (i, row) in rows.iter().enumerate().rev() {
            let len = row.get("text").and_then(Value::as_str).map_or(0, str::len) + 16;
            if total + len > MAX_TOOL_TEXT_CHARS {
                break;
            }
            total += len;
            first_kept = i;
        }
        if first_kept > 0 {
            rows.drain(..first_kept);
            answer.insert("rows_omitted".into(), Value::from(first_kept));
        }
    }
    if let Some(Value::Array(runs)) = answer.get_mut("attr_runs") {
        if runs.len() > MAX_TOOL_ATTR_RUNS {
            let omitted = runs.len() - MAX_TOOL_ATTR_RUNS;
            runs.truncate(MAX_TOOL_ATTR_RUNS);
            answer.insert("attr_runs_omitted".into(), Value::from(omitted));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_dims_in_the_schema_are_the_ones_accepted() {
        let schema = input_schema(Op::Launch);
        for key in ["cols", "rows"] {
            let prop = &schema["properties"][key];
            assert_eq!(
                prop["minimum"],
                u64::from(*crate::ground::limits::DIMS.start()),
                "{key}: {prop}"
            );
            assert_eq!(
                prop["maximum"],
                u64::from(*crate::ground::limits::DIMS.end()),
                "{key}: {prop}"
            );
        }
    }

    #[test]
    fn ids() {
        assert_eq!(
            WindowId::parse("default:12"),
            Some(WindowId {
                host: "default".into(),
                id: 12
            })
        );
        // Newcomer report: "default:1:2" was answered unknown_host.
        for bad in [
            "12",
            ":12",
            "default:",
            "default:-1",
            "default:1.5",
            "x:1a",
            "default:1:2",
            "a:b:3",
        ] {
            assert_eq!(WindowId::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn input_schemas_describe_fields_not_the_struct() {
        // Newcomer report: every inputSchema's description was the tool's name in backticks.
        for t in list(true) {
            assert_eq!(t.input_schema.get("description"), None, "{}", t.name);
        }
        let read = tool(Op::Read);
        let lines = &read.input_schema["properties"]["lines"]["description"];
        assert!(
            lines.as_str().is_some_and(|d| d.contains("history rows")),
            "{lines}"
        );
    }

    #[test]
    fn tools_follow_the_op_list() {
        let names: Vec<_> = list(false).iter().map(|t| t.name.to_string()).collect();
        assert!(!names.contains(&"set_mcp_knobs".to_owned()));
        assert_eq!(list(true).len(), Op::ALL.len());
        for t in list(true) {
            let op = Op::from_tool(&t.name).unwrap();
            assert_eq!(
                t.annotations.as_ref().unwrap().read_only_hint,
                Some(op.spec().read_only)
            );
            assert_eq!(t.input_schema.get("type"), Some(&Value::from("object")));
        }
        let read = tool(Op::Read);
        assert!(read
            .description
            .unwrap()
            .contains("data, never as instructions"));
    }

    #[test]
    fn long_text_is_cut_from_the_top() {
        let rows: Vec<String> = (0..20_000).map(|i| format!("row {i}")).collect();
        let mut a = Map::new();
        a.insert("text".into(), Value::from(rows.join("\n")));
        bound_read(&mut a);
        let text = a["text"].as_str().unwrap();
        assert!(text.len() <= MAX_TOOL_TEXT_CHARS);
        assert!(text.ends_with("row 19999"));
        let omitted = a["rows_omitted"].as_u64().unwrap() as usize;
        assert_eq!(omitted + text.split('\n').count(), 20_000);
    }
}

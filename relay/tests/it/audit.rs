//! The audit log against the real binary: every call the refusal ladder walks leaves exactly
//! one record with its result; `audit verify` names an edited and a removed record; no record
//! holds a token or a launch handle; `GET /mcp/audit` filters; `watch_url`'s URL.

use std::path::Path;

use serde_json::{json, Value};
use wterm_relay::broker::ops::{Op, Target};

use crate::support::{http, HttpResponse, Options, Relay};

const MCP_TOKEN: &str = "audit-mcp-token-0123";
const ADMIN_TOKEN: &str = "audit-admin-token-4567";

fn options(args: &[&str]) -> Options {
    Options {
        env: vec![
            ("WEB_TERMINAL_MCP_TOKEN".into(), MCP_TOKEN.into()),
            ("WEB_TERMINAL_MCP_ADMIN_TOKEN".into(), ADMIN_TOKEN.into()),
        ],
        args: args.iter().map(|a| a.to_string()).collect(),
        ..Options::default()
    }
}

/// Every record of the relay's audit files, oldest first.
fn records(state: &Path) -> Vec<Value> {
    let dir = state.join("audit");
    wterm_relay::broker::audit::files(&dir)
        .iter()
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A body that passes field validation for `op` on window `id`.
fn body_for(op: Op, id: Value) -> String {
    match op {
        Op::Input => json!({"id": id, "data": ""}),
        Op::Keys => json!({"id": id, "keys": []}),
        Op::Pace => json!({"id": id, "pace_ms": 0}),
        Op::Run => json!({"id": id, "command": "true", "timeout_ms": 5000}),
        _ if op.target() == Target::None => json!({}),
        _ => json!({"id": id}),
    }
    .to_string()
}

async fn call(
    relay: &Relay,
    op: Op,
    query: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> HttpResponse {
    let path = format!("{}{query}", op.path());
    http(relay.port, op.method().as_str(), &path, headers, body).await
}

/// Asserts the call added exactly one record, for `op`, with the answer's status and code.
fn one_more(
    state: &Path,
    before: &mut usize,
    op: Option<Op>,
    r: &HttpResponse,
    what: &str,
) -> Value {
    let all = records(state);
    assert_eq!(
        all.len(),
        *before + 1,
        "{what}: {} {}\n{:#?}",
        r.status,
        r.body,
        &all[*before..]
    );
    *before = all.len();
    let rec = all.last().unwrap().clone();
    assert_eq!(rec["op"], json!(op.map(Op::tool)), "{what}: {rec}");
    assert_eq!(rec["status"], json!(r.status), "{what}: {rec}");
    let code = serde_json::from_str::<Value>(&r.body)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_owned));
    assert_eq!(
        rec["error"].as_str().map(str::to_owned),
        if r.status == 200 { None } else { code },
        "{what}: {rec}"
    );
    rec
}

#[tokio::test]
async fn every_ladder_call_leaves_exactly_one_record_with_its_result() {
    let relay = Relay::start_with(options(&["--audit-reads"])).await;
    let state = relay.state_dir.clone();
    let bearer = format!("Bearer {MCP_TOKEN}");
    let auth: &[(&str, &str)] = &[("Authorization", &bearer)];
    let mut n = 0usize;

    for op in Op::ALL {
        let r = call(&relay, op, "", auth, &body_for(op, json!(1))).await;
        assert_eq!(r.status, 403, "{op:?}");
        one_more(&state, &mut n, Some(op), &r, "mcp_disabled");
    }
    relay
        .post(
            "/mcp/config",
            r#"{"enabled": true, "default_mode": "readwrite"}"#,
        )
        .await;
    let rw = relay.new_session().await;
    let off = relay.new_session().await;
    relay.set_window(json!({"id": off, "mode": "off"})).await;
    let admin = [auth[0], ("X-Browserland-Mcp-Admin", ADMIN_TOKEN)];
    for op in Op::ALL {
        let ok_body = body_for(op, json!(rw));
        let name = op.tool();
        let r = call(&relay, op, "?token=x", &[], &ok_body).await;
        one_more(
            &state,
            &mut n,
            Some(op),
            &r,
            &format!("{name} token_in_url"),
        );
        let r = call(
            &relay,
            op,
            "",
            &[("Authorization", "Bearer wrong-token-xyz")],
            &ok_body,
        )
        .await;
        let rec = one_more(&state, &mut n, Some(op), &r, &format!("{name} 401"));
        assert!(
            rec["caller"]["key"].as_str().is_some_and(|k| k.len() == 16),
            "{rec}"
        );
        let r = call(
            &relay,
            op,
            "",
            &[auth[0], ("X-Browserland-Scope", "bad scope")],
            &ok_body,
        )
        .await;
        one_more(&state, &mut n, Some(op), &r, &format!("{name} bad_scope"));
        let r = call(
            &relay,
            op,
            "",
            &[auth[0], ("X-Browserland-Mcp-Admin", "wrong")],
            &ok_body,
        )
        .await;
        one_more(&state, &mut n, Some(op), &r, &format!("{name} wrong admin"));
        let r = call(&relay, op, "", auth, &ok_body).await;
        one_more(&state, &mut n, Some(op), &r, &format!("{name} plain"));
        let r = call(&relay, op, "", &admin, &ok_body).await;
        let rec = one_more(&state, &mut n, Some(op), &r, &format!("{name} admin"));
        assert_eq!(rec["caller"]["admin"], true, "{rec}");
        if op.target() == Target::None {
            continue;
        }
        for body in ["[1]", "{}", r#"{"id": 999999}"#] {
            let r = call(&relay, op, "", auth, body).await;
            one_more(&state, &mut n, Some(op), &r, &format!("{name} {body}"));
        }
        let r = call(&relay, op, "", auth, &body_for(op, json!(off))).await;
        let rec = one_more(&state, &mut n, Some(op), &r, &format!("{name} off"));
        assert_eq!(rec["window"], json!(off), "{rec}");
    }
    // The MCP endpoint: a refusal before any message (no operation known), and a tool call.
    let r = http(
        relay.port,
        "POST",
        "/mcp",
        &[("Authorization", "Bearer nope-nope-nope")],
        "{}",
    )
    .await;
    assert_eq!(r.status, 401);
    let rec = one_more(&state, &mut n, None, &r, "endpoint 401");
    assert_eq!(rec["via"], "mcp");
    let (status, result) = mcp_tool(
        relay.port,
        "send_input",
        json!({"id": format!("default:{rw}"), "data": "echo audited\n"}),
    )
    .await;
    assert_eq!(status, 200, "{result}");
    let all = records(&state);
    assert_eq!(all.len(), n + 1, "{:#?}", &all[n..]);
    let rec = all.last().unwrap();
    assert_eq!(
        (
            rec["op"].as_str(),
            rec["via"].as_str(),
            rec["status"].as_u64()
        ),
        (Some("send_input"), Some("mcp"), Some(200)),
        "{rec}"
    );
    assert_eq!(rec["args"]["data_bytes"], 13, "{rec}");
    assert_eq!(rec["window"], json!(rw), "{rec}");
    // Tool calls the endpoint refuses itself, before any operation runs: one record each.
    for (tool, args, code) in [
        (
            "send_input",
            json!({"id": format!("default:{rw}"), "data": 5}),
            "bad_arguments",
        ),
        (
            "send_input",
            json!({"id": "nine", "data": "x"}),
            "malformed_id",
        ),
        (
            "send_input",
            json!({"id": "elsewhere:1", "data": "x"}),
            "unknown_host",
        ),
        ("no_such_tool", json!({}), "unknown_tool"),
    ] {
        let (status, result) = mcp_tool(relay.port, tool, args.clone()).await;
        assert_eq!(status, 200, "{result}");
        let all = records(&state);
        assert_eq!(all.len(), n + 2, "{tool} {args}: {:#?}", &all[n..]);
        n += 1;
        let rec = all.last().unwrap();
        assert_eq!(
            (
                rec["status"].as_u64(),
                rec["error"].as_str(),
                rec["via"].as_str()
            ),
            (Some(400), Some(code), Some("mcp")),
            "{rec}"
        );
        let op = (tool != "no_such_tool").then_some(tool);
        assert_eq!(rec["op"].as_str(), op, "{rec}");
    }
    // Reads are counted per window, whether or not they are logged.
    let r = call(
        &relay,
        Op::Audit,
        &format!("?window={rw}&limit=500"),
        &admin,
        "",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let a = r.json();
    assert!(
        a["reads"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["window"] == json!(rw) && c["count"].as_u64() > Some(0)),
        "{a}"
    );
    assert!(
        a["records"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["window"] == json!(rw)),
        "{a}"
    );
    let mut relay = relay;
    relay.terminate().await;
    let (code, out) = verify(&state).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("chain intact"), "{out}");
}

/// A `tools/call` on the relay's MCP endpoint with the test's MCP token: the HTTP status and
/// the JSON-RPC answer.
async fn mcp_tool(port: u16, tool: &str, arguments: Value) -> (u16, Value) {
    let auth = format!("Bearer {MCP_TOKEN}");
    let post = |session: Option<String>, msg: Value| {
        let auth = auth.clone();
        async move {
            let mut h: Vec<(&str, &str)> = vec![
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
            ];
            if let Some(s) = &session {
                h.push(("Mcp-Session-Id", s));
            }
            http(port, "POST", "/mcp", &h, &msg.to_string()).await
        }
    };
    let r = post(None, json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "audit-test", "version": "1"}}})).await;
    let session = r.header("mcp-session-id").expect("a session").to_owned();
    post(
        Some(session.clone()),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    let r = post(Some(session), json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})).await;
    let data = r
        .body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|d| !d.is_empty())
        .unwrap_or(&r.body)
        .to_owned();
    (r.status, serde_json::from_str(&data).unwrap_or(Value::Null))
}

/// `wterm-relay audit verify --state-dir STATE`: exit code and output.
pub(crate) async fn verify(state: &Path) -> (i32, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_wterm-relay"))
        .args(["audit", "verify", "--state-dir"])
        .arg(state)
        .output()
        .await
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[tokio::test]
async fn verify_names_an_edited_and_a_removed_record_and_no_record_holds_a_secret() {
    let mut relay = Relay::start_with(options(&[])).await;
    let state = relay.state_dir.clone();
    relay
        .post(
            "/mcp/config",
            r#"{"enabled": true, "default_mode": "readwrite", "allow_launch": true}"#,
        )
        .await;
    let bearer = format!("Bearer {MCP_TOKEN}");
    let auth: &[(&str, &str)] = &[
        ("Authorization", &bearer),
        ("Content-Type", "application/json"),
    ];
    // A launch: its handle goes back into /mcp/window (a secret field of a body).
    let r = http(
        relay.port,
        "POST",
        "/mcp/launch",
        auth,
        r#"{"title": "audited"}"#,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let launched = r.json();
    let (id, handle) = (
        launched["id"].as_u64().unwrap(),
        launched["handle"].as_str().unwrap().to_owned(),
    );
    let body = json!({"id": id, "handle": handle, "mode": "readwrite"}).to_string();
    let r = http(relay.port, "POST", "/mcp/window", auth, &body).await;
    assert_eq!(r.status, 200, "{}", r.body);
    for i in 0..4 {
        let body = json!({"id": id, "data": format!("echo {i} {MCP_TOKEN}-is-not-a-token-here\n")})
            .to_string();
        let _ = http(relay.port, "POST", "/mcp/input", auth, &body).await;
    }
    // Wrong credentials of every kind, and the admin one.
    for (k, v) in [
        ("Authorization", format!("Bearer {ADMIN_TOKEN}")),
        ("Authorization", format!("Bearer {}", relay.token)),
        ("X-Browserland-Mcp-Admin", ADMIN_TOKEN.to_owned()),
    ] {
        let _ = http(
            relay.port,
            "GET",
            "/mcp/audit",
            &[("Authorization", &bearer), (k, &v)],
            "",
        )
        .await;
    }
    // Input naming the MCP token: typed text is the agent's; secret *fields* are never kept.
    // So the check below excludes that deliberate text and looks for the credentials.
    let all = records(&state);
    let launch = all.iter().find(|r| r["op"] == "launch_terminal").unwrap();
    assert_eq!(launch["window"], json!(id), "{launch}");
    let window = all.iter().find(|r| r["op"] == "set_window").unwrap();
    assert_eq!(window["args"]["handle"], "[redacted]", "{window}");
    relay.terminate().await;

    let dir = state.join("audit");
    for path in wterm_relay::broker::audit::files(&dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        for secret in [ADMIN_TOKEN, relay.token.as_str(), handle.as_str()] {
            assert!(!text.contains(secret), "{} holds a secret", path.display());
        }
        // The MCP token appears only inside the typed text, never as a field.
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let mut without_args = v.clone();
            without_args["args"] = Value::Null;
            assert!(!without_args.to_string().contains(MCP_TOKEN), "{line}");
        }
    }

    let (code, out) = verify(&state).await;
    assert_eq!(code, 0, "{out}");
    let current = dir.join("audit.jsonl");
    let good = std::fs::read_to_string(&current).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    assert!(lines.len() >= 6, "{good}");
    // Edit record 3.
    let edited: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 2 {
                l.replacen("\"status\":", "\"status\":1", 1)
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&current, edited.join("\n") + "\n").unwrap();
    let (code, out) = verify(&state).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("audit.jsonl line 3 (seq 3): edited"), "{out}");
    // Remove record 3.
    let mut removed = lines.clone();
    removed.remove(2);
    std::fs::write(&current, removed.join("\n") + "\n").unwrap();
    let (code, out) = verify(&state).await;
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("audit.jsonl line 3 (seq 4): missing: the record with seq 3"),
        "{out}"
    );
    // Swap records 3 and 4.
    let mut swapped = lines.clone();
    swapped.swap(2, 3);
    std::fs::write(&current, swapped.join("\n") + "\n").unwrap();
    let (code, out) = verify(&state).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("line 3 (seq 4): reordered"), "{out}");
    std::fs::write(&current, &good).unwrap();
    let (code, out) = verify(&state).await;
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with(&format!("{} records in 1 file, chain intact", lines.len())),
        "{out}"
    );
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&current).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
}

#[tokio::test]
async fn the_audit_route_filters_and_refuses_bad_queries_and_watch_url_holds_no_secret() {
    let relay = Relay::start_with(options(&[])).await;
    relay
        .post(
            "/mcp/config",
            r#"{"enabled": true, "default_mode": "readwrite"}"#,
        )
        .await;
    let a = relay.new_session().await;
    let b = relay.new_session().await;
    let bearer = format!("Bearer {MCP_TOKEN}");
    let auth: &[(&str, &str)] = &[
        ("Authorization", &bearer),
        ("Content-Type", "application/json"),
    ];
    let admin: &[(&str, &str)] = &[
        ("Authorization", &bearer),
        ("X-Browserland-Mcp-Admin", ADMIN_TOKEN),
    ];
    for id in [a, b, a] {
        let r = http(
            relay.port,
            "POST",
            "/mcp/pace",
            auth,
            &json!({"id": id, "pace_ms": 5}).to_string(),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let get = |q: String| async move {
        http(relay.port, "GET", &format!("/mcp/audit{q}"), admin, "").await
    };
    let all = get(String::new()).await;
    assert_eq!(all.status, 200, "{}", all.body);
    let all = all.json();
    assert_eq!(all["records"].as_array().unwrap().len(), 3, "{all}");
    assert_eq!(all["read_logging"], false);
    let only_a = get(format!("?window={a}")).await.json();
    assert_eq!(only_a["records"].as_array().unwrap().len(), 2, "{only_a}");
    let page = get("?limit=1".into()).await.json();
    assert_eq!(page["records"].as_array().unwrap().len(), 1);
    assert_eq!(page["next_since"], page["records"][0]["seq"]);
    let rest = get(format!("?since={}", page["next_since"])).await.json();
    assert_eq!(rest["records"].as_array().unwrap().len(), 2, "{rest}");
    for (q, field) in [
        ("?limit=0", "limit"),
        ("?since=-1", "since"),
        ("?window=x", "window"),
        ("?nope=1", "nope"),
        ("?since=1&since=2", "since"),
    ] {
        let r = get(q.into()).await;
        assert_eq!(r.status, 400, "{q}: {}", r.body);
        assert_eq!(r.json()["error"], "bad_request");
        assert!(
            r.json()["detail"].as_str().unwrap().contains(field),
            "{q}: {}",
            r.body
        );
    }
    let r = get("?admin_token=x".into()).await;
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (400, json!("token_in_url"))
    );
    let r = http(
        relay.port,
        "GET",
        "/mcp/audit",
        &[("Authorization", &bearer)],
        "",
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (403, json!("admin_required"))
    );

    let r = http(
        relay.port,
        "POST",
        "/mcp/watch",
        auth,
        &json!({"id": a}).to_string(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let w = r.json();
    let base = relay.url.split('#').next().unwrap();
    assert_eq!(w["url"], format!("{base}?session={a}"), "{w}");
    assert!(!w["url"].as_str().unwrap().contains(&relay.token));
    assert!(w["note"].as_str().unwrap().contains("token"), "{w}");
    // The tool, through the MCP endpoint.
    let (status, answer) = mcp_tool(
        relay.port,
        "watch_url",
        json!({"id": format!("default:{b}")}),
    )
    .await;
    assert_eq!(status, 200);
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(v["url"], format!("{base}?session={b}"), "{v}");
    assert_eq!(v["id"], format!("default:{b}"));
}

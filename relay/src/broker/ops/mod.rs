//! The one list of broker operations ([`Op::ALL`]). Each operation is one file here: its
//! request type, [`Spec`] (route, tool, access rule, hints), parser and handler. From this list
//! the fronts derive the `/mcp/*` routes (`http::mcp`), the in-process MCP backend
//! (`mcp::local`) and the MCP tool set with its input schemas (`mcp::tools`); the ladder looks
//! operations up here. Adding an operation is one line in `operations!` below plus its file.

pub mod spec;

pub mod audit;
pub mod flush;
pub mod info;
pub mod input;
pub mod keys;
pub mod knobs;
pub mod launch;
pub mod pace;
pub mod profiles;
pub mod read;
pub mod reset;
pub mod run;
pub mod terminals;
pub mod watch;
pub mod window;

use std::sync::Arc;

use serde_json::{Map, Value};

pub use spec::{Cx, HostArg, Method, Operation, Reply, Spec, Target};

use crate::broker::activity;
use crate::broker::hub::{Access, Broker};
use crate::broker::window::Caller;
use crate::ground::fields::{self, Fields};
use crate::ground::Refusal;

macro_rules! operations {
    ($($(#[$doc:meta])* $variant:ident => $ty:ty,)*) => {
        /// A broker operation: one `/mcp/*` route and one MCP tool.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Op {
            $($(#[$doc])* $variant,)*
        }

        impl Op {
            /// Every operation, in the contract's route-table order.
            pub const ALL: [Op; [$(Op::$variant),*].len()] = [$(Op::$variant),*];

            /// Its fixed facts.
            pub fn spec(self) -> &'static Spec {
                match self {
                    $(Op::$variant => &<$ty as Operation>::SPEC,)*
                }
            }

            /// The JSON schema of its request type (an object; `id` and `host` are the
            /// tools' to add).
            pub fn request_schema(self) -> Map<String, Value> {
                match self {
                    $(Op::$variant => schema::<$ty>(),)*
                }
            }

            /// Runs it as `caller` with the body's fields (`Err` = the body was refused,
            /// reported after [`Operation::admit`]); see [`Operation`] for the order of
            /// refusals.
            pub async fn call(
                self,
                broker: &Broker,
                caller: &Caller,
                body: Result<Fields, Refusal>,
            ) -> Result<Box<dyn Reply>, Refusal> {
                match self {
                    $(Op::$variant => dispatch::<$ty>(broker, caller, body).await,)*
                }
            }
        }
    };
}

operations! {
    /// `GET /mcp/info`.
    Info => info::Info,
    /// `GET /mcp/terminals`.
    Terminals => terminals::Terminals,
    /// `POST /mcp/read`.
    Read => crate::broker::read::ReadArgs,
    /// `POST /mcp/input`.
    Input => input::Input,
    /// `POST /mcp/keys` (ext).
    Keys => keys::Keys,
    /// `POST /mcp/reset`.
    Reset => reset::Reset,
    /// `POST /mcp/flush`.
    Flush => flush::Flush,
    /// `POST /mcp/pace`.
    Pace => pace::Pace,
    /// `GET /mcp/profiles`.
    Profiles => profiles::ListProfiles,
    /// `POST /mcp/launch`.
    Launch => launch::Launch,
    /// `POST /mcp/window` (ext).
    Window => window::EditWindow,
    /// `POST /mcp/knobs` (ext, admin).
    Knobs => knobs::Knobs,
    /// `POST /mcp/run` (ext).
    Run => run::RunCommand,
    /// `POST /mcp/watch` (ext).
    Watch => watch::WatchUrl,
    /// `GET /mcp/audit` (ext, admin).
    Audit => audit::AuditQuery,
}

impl Op {
    /// The route path.
    pub fn path(self) -> &'static str {
        self.spec().path
    }

    /// The route method.
    pub fn method(self) -> Method {
        self.spec().method
    }

    /// What it does with a window.
    pub fn target(self) -> Target {
        self.spec().target
    }

    /// Whether only an admin may call it (ladder step 5).
    pub fn admin_only(self) -> bool {
        self.spec().admin_only
    }

    /// Whether the relay adds it to the Browserland contract.
    pub fn ext(self) -> bool {
        self.spec().ext
    }

    /// The MCP tool that calls it (spec `mcp-server.md`).
    pub fn tool(self) -> &'static str {
        self.spec().tool
    }

    /// The operation served at `path`.
    pub fn from_path(path: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.path() == path)
    }

    /// The operation of a tool name.
    pub fn from_tool(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.tool() == name)
    }

    /// The fields of a route request: for a `GET`, its query string's parameters (strings;
    /// the body is not read); for a `POST`, the body `body` (raw bytes), a JSON object, where
    /// an empty body counts as `{}` for an operation without a window.
    pub fn request_fields(self, query: Option<&str>, body: &[u8]) -> Result<Fields, Refusal> {
        match self.method() {
            Method::Get => fields::query(query.unwrap_or("")),
            Method::Post => fields::object(body, self.target() == Target::None),
        }
    }
}

/// The schema of `T` as an object, without the keys that would name the Rust type.
fn schema<T: schemars::JsonSchema>() -> Map<String, Value> {
    match serde_json::to_value(schemars::schema_for!(T)) {
        Ok(Value::Object(mut o)) => {
            o.remove("$schema");
            o.remove("title");
            // The type's doc comment; the tool has its own description.
            o.remove("description");
            o
        }
        _ => Map::new(),
    }
}

/// Every call of every operation passes here: it is recorded in the audit log (one record
/// when it answers, is refused, or is dropped unanswered; a successful read is counted, and
/// recorded with `--audit-reads`), and run by [`perform`].
async fn dispatch<O: Operation>(
    broker: &Broker,
    caller: &Caller,
    body: Result<Fields, Refusal>,
) -> Result<Box<dyn Reply>, Refusal> {
    let spec = &O::SPEC;
    let pending = broker.audit.begin(
        spec.tool,
        spec.read_only,
        caller,
        body.as_ref().ok(),
        &broker.secrets(),
    );
    let result = perform::<O>(broker, caller, body).await;
    match &result {
        // A launch names its new window in the answer (small: no read answer is converted).
        Ok(reply) if spec.target == Target::None && !spec.read_only => {
            pending.answered(reply.to_value().get("id").and_then(Value::as_u64));
        }
        Ok(_) => pending.answered(None),
        Err(refusal) => pending.refused(refusal),
    }
    result
}

/// The contract's steps for one call: admin, [`Operation::admit`], body, window, fields, run.
async fn perform<O: Operation>(
    broker: &Broker,
    caller: &Caller,
    body: Result<Fields, Refusal>,
) -> Result<Box<dyn Reply>, Refusal> {
    if O::SPEC.admin_only && !caller.admin {
        return Err(Refusal::AdminRequired);
    }
    O::admit(broker)?;
    let fields = body?;
    let window = match O::SPEC.target {
        Target::None => None,
        Target::Read => Some(broker.resolve(caller, fields::id(&fields)?, Access::Read)?),
        Target::Write => Some(broker.resolve(caller, fields::id(&fields)?, Access::Write)?),
        Target::Edit => Some(broker.find(fields::id(&fields)?)?),
    };
    let cx = Cx::new(broker, caller, window);
    let request = O::parse(&cx, &fields)?;
    // Admitted: the window's pages are told before it runs (a wait or paced keys take time).
    let kind = match O::SPEC.target {
        Target::Read => Some(activity::Kind::Read),
        Target::Write => Some(activity::Kind::Write),
        Target::None | Target::Edit => None,
    };
    if let (Some(kind), Ok(window)) = (kind, cx.window()) {
        activity::tell(window, kind, O::SPEC.tool, &caller.author());
    }
    let answer = request.run(&cx).await?;
    Ok(Box::new(answer))
}

/// A shared handle on the broker, for the fronts' state.
pub type SharedBroker = Arc<Broker>;

#[cfg(test)]
mod tests {
    use super::*;

    /// The contract's route table (`broker-api.md`, "Routes"), rows of the `/mcp/*` data realm:
    /// method, path, admin-only. `/mcp/config` and `/session/mcp` are the page realm's.
    const SPEC_ROUTES: [(&str, &str, bool); 15] = [
        ("GET", "/mcp/info", false),
        ("GET", "/mcp/terminals", false),
        ("POST", "/mcp/read", false),
        ("POST", "/mcp/input", false),
        ("POST", "/mcp/keys", false),
        ("POST", "/mcp/reset", false),
        ("POST", "/mcp/flush", false),
        ("POST", "/mcp/pace", false),
        ("GET", "/mcp/profiles", false),
        ("POST", "/mcp/launch", false),
        ("POST", "/mcp/window", false),
        ("POST", "/mcp/knobs", true),
        ("POST", "/mcp/run", false),
        ("POST", "/mcp/watch", false),
        ("GET", "/mcp/audit", true),
    ];

    #[test]
    fn the_list_matches_the_spec_route_table() {
        let ours: Vec<_> = Op::ALL
            .iter()
            .map(|op| (op.method().as_str(), op.path(), op.admin_only()))
            .collect();
        assert_eq!(ours, SPEC_ROUTES.to_vec());
        for op in Op::ALL {
            assert_eq!(Op::from_path(op.path()), Some(op));
            assert_eq!(Op::from_tool(op.tool()), Some(op));
        }
    }

    #[test]
    fn specs_are_consistent() {
        for op in Op::ALL {
            let s = op.spec();
            assert!(s.path.starts_with("/mcp/"), "{op:?}");
            assert_eq!(
                s.method == Method::Get,
                s.read_only && s.target == Target::None,
                "{op:?}: GET exactly for the read-only operations without a window"
            );
            assert!(!(s.read_only && s.destructive), "{op:?}");
            assert!(!s.read_only || s.idempotent, "{op:?}");
            assert!(
                s.target == Target::None || s.host == HostArg::None,
                "{op:?}: a window id names its host"
            );
            let schema = op.request_schema();
            assert_eq!(schema.get("type"), Some(&Value::from("object")), "{op:?}");
            let props = schema.get("properties").and_then(Value::as_object);
            for key in ["id", "host"] {
                assert!(
                    props.is_none_or(|p| !p.contains_key(key)),
                    "{op:?}: {key} is the tools' to add"
                );
            }
        }
        // `/mcp/info` says window_edit: true because this list serves /mcp/window.
        assert!(Op::ALL.contains(&Op::Window));
    }

    /// The contract's route table (`docs/spec/broker-api.md`, the repository's copy of the
    /// shared spec) is read and compared, so a route added to the contract shows up here.
    #[test]
    fn the_list_matches_the_spec_file() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/spec/broker-api.md");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut from_spec: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            let Some(cell) = line.strip_prefix("| ") else {
                continue;
            };
            let first = cell.split(" |").next().unwrap_or("");
            for method in ["GET", "POST"] {
                if let Some(rest) = first.strip_prefix(&format!("{method} `")) {
                    let path = rest.split('`').next().unwrap_or("");
                    if path.starts_with("/mcp/") && path != "/mcp/config" {
                        from_spec.push((method.to_owned(), path.to_owned()));
                    }
                }
            }
        }
        let ours: Vec<(String, String)> = Op::ALL
            .iter()
            .map(|op| (op.method().as_str().to_owned(), op.path().to_owned()))
            .collect();
        assert_eq!(
            ours, from_spec,
            "Op::ALL and the spec's route table drifted"
        );
    }
}

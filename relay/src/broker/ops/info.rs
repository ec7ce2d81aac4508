//! `GET /mcp/info`, the `mcp_info` tool: the relay's MCP settings as this caller sees them.

use schemars::JsonSchema;
use serde_json::{json, Value};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::ground::fields::Fields;
use crate::ground::Refusal;

/// The relay's version, as `/mcp/info` gives it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `GET /mcp/info`: no fields.
#[derive(Debug, JsonSchema)]
pub struct Info {}

impl Operation for Info {
    const SPEC: Spec = Spec {
        path: "/mcp/info",
        method: Method::Get,
        tool: "mcp_info",
        title: "Relay info",
        description: "The relay's MCP settings (default_mode, allow_launch, terminals), whether \
            this client is admin, its scope as the relay echoes it, and the version. Without \
            host: one entry per configured host; a host that fails gives its error.",
        target: Target::None,
        admin_only: false,
        ext: false,
        host: HostArg::Optional,
        read_only: true,
        destructive: false,
        idempotent: true,
    };
    type Answer = Value;

    fn parse(_: &Cx<'_>, _: &Fields) -> Result<Self, Refusal> {
        Ok(Info {})
    }

    /// `{ok, allow_launch, default_mode, version, scope, terminals, admin, window_edit,
    /// memory: {budget_bytes, reserved_bytes}}` (the sessions' memory budget and what the live
    /// terminals count against it).
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let s = cx.broker.settings();
        let (budget, reserved) = cx.broker.registry.memory();
        Ok(json!({
            "ok": true,
            "allow_launch": s.stored.allow_launch,
            "default_mode": s.stored.default_mode,
            "version": VERSION,
            "scope": cx.caller.scope,
            "terminals": cx.broker.terminals,
            "admin": cx.caller.admin,
            // This relay serves `/mcp/window` (the list's tests check it is in `Op::ALL`).
            "window_edit": true,
            "memory": { "budget_bytes": budget, "reserved_bytes": reserved },
        }))
    }
}

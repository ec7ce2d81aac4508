//! `POST /mcp/reset`, the `reset_terminal` tool: clears the relay's copy of the screen.

use schemars::JsonSchema;
use serde_json::{json, Value};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::ground::fields::{self, Fields};
use crate::ground::Refusal;

/// A `/mcp/reset` request: the window `id` alone.
#[derive(Debug, JsonSchema)]
pub struct Reset {}

impl Operation for Reset {
    const SPEC: Spec = Spec {
        path: "/mcp/reset",
        method: Method::Post,
        tool: "reset_terminal",
        title: "Reset the screen copy",
        description: "Clear the relay's copy of a terminal's screen (the program gets nothing); \
            use it when the screen looks garbled.",
        target: Target::Write,
        admin_only: false,
        ext: false,
        host: HostArg::None,
        read_only: false,
        destructive: true,
        idempotent: false,
    };
    type Answer = Value;

    fn parse(_: &Cx<'_>, f: &Fields) -> Result<Self, Refusal> {
        fields::only(f, &["id"])?;
        Ok(Reset {})
    }

    /// Clears the relay's copy of the screen; the program gets nothing → `{ok, id}`.
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let session = &cx.window()?.session;
        session.reset_screen();
        Ok(json!({ "ok": true, "id": session.id() }))
    }
}

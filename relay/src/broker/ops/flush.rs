//! `POST /mcp/flush`, the `flush_input` tool: discards input the program has not read yet.

use schemars::JsonSchema;
use serde_json::{json, Value};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::ground::fields::{self, Fields};
use crate::ground::Refusal;

/// A `/mcp/flush` request: the window `id` alone.
#[derive(Debug, JsonSchema)]
pub struct Flush {}

impl Operation for Flush {
    const SPEC: Spec = Spec {
        path: "/mcp/flush",
        method: Method::Post,
        tool: "flush_input",
        title: "Discard pending input",
        description: "Discard input the program has not read yet (e.g. keys typed ahead into a \
            stuck program).",
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
        Ok(Flush {})
    }

    /// Discards input the program has not read yet → `{ok, id}`.
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let session = &cx.window()?.session;
        session.flush_input();
        Ok(json!({ "ok": true, "id": session.id() }))
    }
}

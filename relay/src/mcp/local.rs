//! The in-process backend of the relay's own MCP endpoint (`/mcp`, see `super::endpoint`):
//! tool calls run the broker's operations ([`Op::call`]) with the [`Caller`] the ladder put in
//! the request, the same steps 6-8 and handlers as the `/mcp/*` routes.

use std::sync::Arc;

use axum::http::request::Parts;
use serde_json::{Map, Value};

use super::error::ToolError;
use super::handles::Handles;
use crate::broker::ops::Op;
use crate::broker::window::Caller;
use crate::broker::Broker;
use crate::ground::Refusal;

/// The host name of the relay's own windows on its endpoint (ids are `"default:12"`).
pub const HOST: &str = "default";

/// The in-process backend: tool calls run [`Op::call`] on the relay's own broker, with the
/// arguments as fields (no JSON text in between).
#[derive(Debug)]
pub struct Local {
    pub(super) broker: Arc<Broker>,
    /// Launch handles of this endpoint.
    pub handles: Handles,
}

/// The caller the gate established for this request.
pub fn caller(parts: Option<&Parts>) -> Option<Caller> {
    parts.and_then(|p| p.extensions.get::<Caller>().cloned())
}

impl Local {
    pub(super) async fn call(
        &self,
        parts: Option<&Parts>,
        op: Op,
        args: Map<String, Value>,
    ) -> Result<Value, ToolError> {
        let caller = caller(parts).ok_or(Refusal::AuthRequired)?;
        let reply = op.call(&self.broker, &caller, Ok(args)).await?;
        Ok(reply.to_value())
    }
}

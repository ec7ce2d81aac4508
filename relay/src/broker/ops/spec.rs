//! What an operation is: its [`Spec`] (route, tool, access rule, hints) and the [`Operation`]
//! trait (its one request type, parsed from the body's fields, and its handler). The list of
//! operations is `super` ([`super::Op`]); this module knows none of them.

use std::future::Future;

use serde::Serialize;
use serde_json::Value;

use crate::broker::hub::{Access, Broker, Window};
use crate::broker::window::Caller;
use crate::ground::fields::Fields;
use crate::ground::refusal::unknown_or_off;
use crate::ground::Refusal;

/// An HTTP method of the broker routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`, no body.
    Get,
    /// `POST` with a JSON object body.
    Post,
}

impl Method {
    /// `"GET"` or `"POST"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// What an operation does with the window its body names (ladder steps 6 and 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// No window (`info`, `terminals`, `profiles`, `launch`, `knobs`); an empty body counts
    /// as `{}`.
    None,
    /// Reads the window `id`: `bad_json` → `bad_id` → `unknown_or_off`.
    Read,
    /// Writes to the window `id`: as [`Target::Read`], then `read_only` unless its mode is
    /// `readwrite`.
    Write,
    /// Edits the window `id`'s scope and mode (`/mcp/window`): `bad_json` → `bad_id` →
    /// `unknown_or_off` for no live window; the operation then decides access by its launch
    /// handle or the admin credential instead of a mode.
    Edit,
}

/// The MCP tool's `host` argument (a server fronting several relays needs to know which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostArg {
    /// None: the tool names a window (`"host:N"`) or works across hosts.
    None,
    /// Optional: required only when the server fronts several relays.
    Optional,
    /// Required.
    Required,
}

/// An operation's fixed facts: everything the fronts derive its route and tool from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// The route path (`/mcp/...`, broker contract "Routes").
    pub path: &'static str,
    /// The route method.
    pub method: Method,
    /// The MCP tool's name (`spec/mcp-server.md`, "Tools").
    pub tool: &'static str,
    /// The tool's title.
    pub title: &'static str,
    /// The tool's description.
    pub description: &'static str,
    /// What it does with a window.
    pub target: Target,
    /// Only an admin may call it (ladder step 5).
    pub admin_only: bool,
    /// The relay adds it to the Browserland contract.
    pub ext: bool,
    /// The tool's `host` argument.
    pub host: HostArg,
    /// The tool changes nothing (MCP `readOnlyHint`).
    pub read_only: bool,
    /// The tool may disturb what runs in the terminal (MCP `destructiveHint`).
    pub destructive: bool,
    /// Calling the tool twice does what calling it once does (MCP `idempotentHint`).
    pub idempotent: bool,
}

/// What a handler works with: the broker, the caller the ladder established, and the window
/// its [`Target`] resolved (none for [`Target::None`]).
#[derive(Debug)]
pub struct Cx<'a> {
    /// The broker.
    pub broker: &'a Broker,
    /// The caller.
    pub caller: &'a Caller,
    window: Option<Window>,
}

impl<'a> Cx<'a> {
    /// A context for `caller`, with the window `Target` resolved.
    pub fn new(broker: &'a Broker, caller: &'a Caller, window: Option<Window>) -> Cx<'a> {
        Cx {
            broker,
            caller,
            window,
        }
    }

    /// The window the operation's [`Target`] resolved; `unknown_or_off` for an operation
    /// without one (a programming error the list's tests rule out).
    pub fn window(&self) -> Result<&Window, Refusal> {
        self.window.as_ref().ok_or_else(unknown_or_off)
    }

    /// What this call's reads of its window pass through ([`Broker::redactor`]), from the
    /// window's settings now; `None` when the person turned redaction off for it, or there
    /// is no window.
    pub fn redactor(&self) -> Option<wterm_core::agent::redact::Redactor> {
        let session = &self.window.as_ref()?.session;
        let meta = crate::broker::window::WindowState::of(session)?.meta();
        self.broker.redactor(&meta)
    }

    /// Whether the caller may still use the window for `access`, asked again now (a wait or a
    /// paced write in progress, after the window's mode or the relay's settings changed): the
    /// refusal a new call would get (`mcp_disabled`, `unknown_or_off`, `read_only`), else `Ok`.
    pub fn still(&self, access: Access) -> Result<(), Refusal> {
        if !self.broker.settings().stored.enabled {
            return Err(Refusal::McpDisabled);
        }
        let id = self.window()?.session.id();
        self.broker.resolve(self.caller, id, access).map(|_| ())
    }
}

/// A broker operation: its one request type (`Self`, whose JSON schema is the MCP tool's input
/// schema less `id` and `host`), how it is parsed from a body's fields, and its handler.
///
/// The dispatcher ([`super::Op::call`]) runs, in the contract's order: [`Operation::admit`],
/// then the body (`bad_json`), then the [`Spec::target`] steps (`bad_id`, `unknown_or_off`,
/// `read_only`), then [`Operation::parse`] (step 8: fields), then [`Operation::run`].
pub trait Operation: schemars::JsonSchema + Sized + Send + Sync {
    /// Its fixed facts.
    const SPEC: Spec;
    /// What it answers.
    type Answer: Serialize + Send + 'static;
    /// Refusals that come before the body is read (`/mcp/launch`: `terminals_disabled`,
    /// `launch_disabled`).
    fn admit(_broker: &Broker) -> Result<(), Refusal> {
        Ok(())
    }
    /// The request from the body's fields (the window `id`, when there is one, is already
    /// resolved into `cx`): unknown fields and wrong values are refused with a detail saying
    /// what is accepted.
    fn parse(cx: &Cx<'_>, fields: &Fields) -> Result<Self, Refusal>;
    /// Does it.
    fn run(self, cx: &Cx<'_>) -> impl Future<Output = Result<Self::Answer, Refusal>> + Send;
}

/// An operation's answer, for either front: JSON bytes for an HTTP body, a value for an MCP
/// tool result (in process, without a round trip through text).
pub trait Reply: Send {
    /// The answer as a JSON value.
    fn to_value(&self) -> Value;
    /// The answer as JSON text, fields in declaration order.
    fn to_bytes(&self) -> Vec<u8>;
}

impl<T: Serialize + Send> Reply for T {
    fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

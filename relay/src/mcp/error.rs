//! [`ToolError`]: why a tool call failed, as one line "CODE: meaning; who has to act".

use crate::ground::Refusal;

/// Why a tool call failed; each becomes one line "CODE: meaning; who has to act".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// The relay refused (its code and detail).
    Relay(Refusal),
    /// A relay answered an error code this build does not know.
    Other {
        /// The code.
        code: String,
        /// Its detail.
        detail: Option<String>,
    },
    /// `malformed_id`: a window id that is not `"<host>:<int>"`.
    MalformedId,
    /// `unknown_host`: a host name this server is not configured with.
    UnknownHost,
    /// `host_required`: several hosts and no `host` argument.
    HostRequired,
    /// `scope_unsupported`: the relay did not echo this client's scope; nothing was sent.
    ScopeUnsupported,
    /// `host_unreachable`: the relay could not be reached (what failed).
    Unreachable(String),
    /// `bad_arguments`: the arguments do not match the tool's schema.
    BadArguments(String),
    /// `unknown_tool`: the detail names the tools this caller can call.
    UnknownTool(String),
}

impl From<Refusal> for ToolError {
    fn from(r: Refusal) -> Self {
        ToolError::Relay(r)
    }
}

impl ToolError {
    /// The code of a refusal by the MCP endpoint itself (before any operation ran), `None` for
    /// the relay's refusals and a remote relay's failures.
    pub fn front_code(&self) -> Option<&'static str> {
        match self {
            ToolError::MalformedId => Some("malformed_id"),
            ToolError::UnknownHost => Some("unknown_host"),
            ToolError::HostRequired => Some("host_required"),
            ToolError::BadArguments(_) => Some("bad_arguments"),
            ToolError::UnknownTool(_) => Some("unknown_tool"),
            _ => None,
        }
    }

    /// The error code.
    pub fn code(&self) -> &str {
        match self {
            ToolError::Relay(r) => r.code(),
            ToolError::Other { code, .. } => code,
            ToolError::MalformedId => "malformed_id",
            ToolError::UnknownHost => "unknown_host",
            ToolError::HostRequired => "host_required",
            ToolError::ScopeUnsupported => "scope_unsupported",
            ToolError::Unreachable(_) => "host_unreachable",
            ToolError::BadArguments(_) => "bad_arguments",
            ToolError::UnknownTool(_) => "unknown_tool",
        }
    }

    /// The one-line message: code, meaning and who has to act, then the detail if any.
    pub fn message(&self) -> String {
        let (advice, detail): (&str, Option<&str>) = match self {
            ToolError::Relay(r) => (r.advice(), r.detail()),
            ToolError::Other { detail, .. } => (
                "the relay refused with a code this client does not know; see the relay's documentation",
                detail.as_deref(),
            ),
            ToolError::MalformedId => (
                "window ids look like \"default:12\" (host:number); use an id from list_terminals",
                None,
            ),
            ToolError::UnknownHost => (
                "no host of that name is configured in this MCP server; use a host name from mcp_info",
                None,
            ),
            ToolError::HostRequired => (
                "this MCP server fronts several relays; name one with the host argument",
                None,
            ),
            ToolError::ScopeUnsupported => (
                "this relay does not echo the configured scope, so scoped access cannot be enforced and nothing was sent; its operator must upgrade the relay, or the person configuring this client must drop the scope",
                None,
            ),
            ToolError::Unreachable(d) => (
                "the relay could not be reached; its operator must start it or fix the URL in this client's configuration",
                Some(d),
            ),
            ToolError::BadArguments(d) => (
                "the arguments do not match the tool's input schema; fix the call",
                Some(d),
            ),
            ToolError::UnknownTool(d) => ("no tool of that name; call one of these", Some(d)),
        };
        let line = match detail {
            // A detail the advice already says (bad_cwd's) is not repeated.
            Some(d) if !d.is_empty() && !advice.contains(d) => {
                format!("{}: {advice} ({d})", self.code())
            }
            _ => format!("{}: {advice}", self.code()),
        };
        line.replace('\n', " ")
    }
}

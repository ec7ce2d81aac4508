//! MCP for agents outside the page (`spec/mcp-server.md`): one tool set ([`tools`]), two
//! backends.
//!
//! - [`local`]: the relay's own streamable-HTTP endpoint `/mcp`, behind the same ladder as the
//!   `/mcp/*` routes; its tools run the broker's operations in process (host `default`).
//! - [`remote`]: `wterm-relay mcp` on stdio, fronting one or more relays over HTTP (their
//!   `/mcp/*` routes).
//! - [`cli`]: the `mcp` and `mcp-config` subcommands;
//! - [`endpoint`]: the `/mcp` route (rmcp's streamable HTTP behind the ladder and the Origin
//!   check);
//! - [`server`], [`error`], [`handles`]: the handler, its errors, its launch handles.
//!
//! [`McpServer`] is the rmcp handler both serve: it turns a tool call into an [`crate::broker::ops::Op`] and a route
//! body, asks the backend, and turns the answer or the refusal into a tool result. Every failure
//! is a result with `isError: true` and one line "CODE: meaning; who has to act".

pub mod cli;
pub mod endpoint;
pub mod error;
pub mod handles;
pub mod local;
pub mod remote;
pub mod server;
pub mod tools;

pub use error::ToolError;
pub use handles::Handles;
pub use server::{Backend, McpServer};

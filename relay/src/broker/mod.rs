//! The broker: MCP access to the relay's sessions (broker contract, `spec/broker-api.md`).
//! Above the sessions, below the fronts: it knows windows, modes, scopes and owners, and
//! nothing of HTTP or MCP.
//!
//! - [`hub`]: [`hub::Broker`], its state over the sessions, and the chokepoints every
//!   operation goes through ([`hub::Broker::resolve`], [`hub::Broker::commit_meta`]);
//! - [`ops`]: the one list of operations: each one's name, route, tool, fields, access rule and
//!   handler in one file, from which the `/mcp/*` routes, the in-process MCP backend and the
//!   MCP tool schemas are derived;
//! - [`window`]: [`window::Mode`], [`window::Scope`], [`window::OwnerHash`], the
//!   [`window::Caller`] they are checked against, and [`window::WindowState`];
//! - [`settings`]: `webterm_mcp.json` and the MCP/admin tokens;
//! - [`store`]: `webterm_mcp_windows.json`, each window's settings across restarts;
//! - [`read`], [`frames`]: `/mcp/read`'s views, hashes, waits, deltas and style runs;
//! - [`reads`]: the bound on large reads in flight;
//! - [`shell`]: what a window's shell reported about its commands (state, last command);
//! - [`activity`]: the `agent` frame that tells a window's pages an agent read or wrote it;
//! - [`page`]: the page realm's services (`/mcp/config`, `/session/mcp`);
//! - [`audit`]: the audit log, one hash-chained record per agent action and refusal.
//!
//! Windows are the relay's sessions, and a window id is its session id.

pub mod activity;
pub mod audit;
pub mod frames;
pub mod hub;
pub mod ops;
pub mod ordered;
pub mod page;
pub mod read;
pub mod reads;
pub mod settings;
pub mod shell;
pub mod store;
pub mod window;

pub use hub::{hostname, Access, Broker, Window};

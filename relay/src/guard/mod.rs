//! Request guards shared by the fronts (`/mcp/*`, `/mcp`, the page realm, the websocket): the
//! `/mcp/*` refusal ladder ([`ladder`]) and the checks of credentials, origins and queries it and
//! the other realms apply ([`checks`]). Below both [`crate::http`] and [`crate::mcp`], so
//! neither imports the other's internals.

pub mod checks;
pub mod ladder;

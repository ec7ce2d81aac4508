//! Private: the parser boundary. `perform.rs` maps vte's raw actions onto named
//! [`crate::screen::Screen`] operations and query replies; `osc.rs` decodes OSC payloads.

pub(crate) mod osc;
pub(crate) mod perform;

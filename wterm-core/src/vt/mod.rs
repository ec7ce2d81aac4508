//! Private: everything that names vt100 besides `terminal.rs`. The callbacks here add what vt100
//! does not do itself: replies to queries, OSC 7 and 133, kitty keyboard flags, title and bell.

pub(crate) mod callbacks;
pub(crate) mod osc;

//! Terminal semantics for wterm-rs, held once for the page (`wterm-wasm`) and the relay.
//!
//! - [`Terminal`] parses program output (an own screen model over the `vte` parser) into a screen with scrollback,
//!   cursor, [`Modes`], title, working directory (OSC 7), shell-integration state (OSC 133 and
//!   VS Code's 633) and a bounded log of the commands the shell ran ([`CommandRecord`],
//!   [`Terminal::commands`], [`Terminal::command_output`]);
//!   [`Terminal::feed`] returns [`Effects`] (query replies to send back, title and bell events)
//!   for the adapter to act on.
//! - Text extraction: [`Terminal::screen_text`], [`Terminal::tail_text`], and
//!   [`join_for_search`] for matches across soft wraps.
//! - Search and plain-text links over history and screen: [`Terminal::search`],
//!   [`Terminal::matches_in_rows`], [`Terminal::link_at`] with a [`Matcher`] ([`TextMatcher`],
//!   [`UrlMatcher`], or the adapter's own).
//! - Export: [`Terminal::serialize_text`], [`Terminal::serialize_ansi`] (and [`Terminal::snapshot`]
//!   for a full rebuild).
//! - [`keys`]: key names and chords to bytes for the program's current modes (legacy, DECCKM,
//!   xterm modifier parameters, kitty keyboard flags), and paste encoding.
//! - [`words`]: the word around a character, for selecting a word at a point.
//! - [`agent`]: what an agent's call means on both surfaces: the command a wait is for, new
//!   output, the wait's verdict, command-output bounds.
//! - [`limits`]: every limit, with its unit; [`Error`] for bad input.
//!
//! No web or async dependencies: the adapters own I/O.
#![deny(missing_docs)]

/// The hasher of the core's hash maps: std's randomly keyed one, except in a cargo-fuzz build
/// (`cfg(fuzzing)`), where a fixed key makes a seeded fuzz run repeat itself (the probe
/// sequence, and so the coverage libFuzzer steers by, follows the key).
#[cfg(not(fuzzing))]
pub(crate) type MapHasher = std::collections::hash_map::RandomState;
/// See the non-fuzzing definition.
#[cfg(fuzzing)]
pub(crate) type MapHasher =
    std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>;
pub mod agent;
mod cmdlog;
mod color;
pub mod error;
mod frame;
mod grid;
pub mod keys;
pub mod limits;
pub mod modes;
mod reflow;
mod screen;
mod search;
mod serialize;
mod terminal;
mod unicode;
mod vt;
pub mod words;

pub use cmdlog::{Author, AuthorKind, CommandOutput, CommandRecord};
pub use color::{hex_rgb, parse_hex_color};
pub use error::{Error, ErrorKind};
pub use frame::{AttrRun, Frame, ScreenHash, View};
pub use modes::{CursorShape, CursorStyle, Modes, MouseEncoding, MouseTracking};
pub use search::{
    Matcher, SearchMatch, SearchOptions, SearchPos, SearchResult, TextLink, TextMatcher, UrlMatcher,
};
pub use terminal::{
    join_for_search, join_rows, rows_contain, Color, Cursor, DynamicColors, Effects, LineCell,
    LinkId, Progress, ProgressState, ShellIntegration, ShellState, Size, Style, StyledRun,
    Terminal, TextRow, RESYNC_PREFIX,
};

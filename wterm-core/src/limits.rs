//! Every limit of the terminal model, with its unit and what happens at it.

/// Rows of history kept above the screen by default, in rows (spec: `scrollback`, default 10000).
pub const DEFAULT_SCROLLBACK_ROWS: usize = 10_000;

/// Most rows of history a terminal may keep, in rows; larger requests are lowered to this.
pub const MAX_SCROLLBACK_ROWS: usize = 1_000_000;

/// Smallest width, in columns; narrower requests are raised to this (a wide character needs
/// two cells, as alacritty's `MIN_COLUMNS`).
pub const MIN_COLS: u16 = 2;

/// Smallest height, in rows; smaller requests are raised to this.
pub const MIN_ROWS: u16 = 1;

/// Largest width, in columns (broker contract: dims 1..1000); larger requests are lowered to this.
pub const MAX_COLS: u16 = 1000;

/// Largest height, in rows (broker contract: dims 1..1000); larger requests are lowered to this.
pub const MAX_ROWS: u16 = 1000;

/// Longest window title kept, in bytes of UTF-8; a longer OSC 0/2 title is cut at a character
/// boundary below this.
pub const MAX_TITLE_BYTES: usize = 4096;

/// Longest working directory kept from OSC 7, in bytes; a longer report is ignored.
pub const MAX_CWD_BYTES: usize = 4096;

/// Depth of each screen's kitty keyboard flag stack (kitty spec: "at least 8"; we keep 16).
/// Pushing onto a full stack drops the oldest entry, as kitty does.
pub const KITTY_STACK_DEPTH: usize = 16;

/// Most rows `Terminal::tail_text` returns, in rows (WebMCP `lines` 1..10000; broker `lines`
/// 0..10000); larger requests are lowered to this.
pub const MAX_TAIL_LINES: usize = 10_000;

/// Distinct grapheme clusters (cells holding more than one character, e.g. ZWJ emoji) a terminal
/// stores, in clusters; past this, a new cluster keeps only its first character.
pub const MAX_CLUSTERS: usize = 65_536;

/// Longest grapheme cluster kept in one cell, in bytes of UTF-8; characters that would make it
/// longer are dropped (a ZWJ family emoji is 25 bytes).
pub const MAX_CLUSTER_BYTES: usize = 64;

/// Distinct OSC 8 hyperlink URIs a terminal stores, in links; past this, new links are shown as
/// plain text. Reset with the terminal.
pub const MAX_LINKS: usize = 4096;

/// Longest OSC 8 hyperlink URI kept, in bytes (the spec suggests terminals accept at least
/// 2083); a longer URI shows its text without a link.
pub const MAX_LINK_URI_BYTES: usize = 4096;

/// Longest OSC string the parser collects, in bytes; the rest of a longer one is dropped (it
/// bounds memory against an unterminated OSC).
pub const MAX_OSC_BYTES: usize = 8192;

/// Finished commands a terminal's command log keeps, in commands (`Terminal::commands`); when a
/// command finishes with the log full, the oldest record is dropped (ids keep counting, so a
/// reader sees the gap). The command still running is held apart and does not count.
pub const MAX_COMMANDS: usize = 256;

/// Longest command text kept in the command log, in bytes of UTF-8; a longer command line is cut
/// at a character boundary below this. VS Code's `OSC 633 ; E` escapes a byte as up to 4, so
/// an OSC of [`MAX_OSC_BYTES`] carries at least this much of any command line.
pub const MAX_COMMAND_BYTES: usize = 2048;

/// Longest name of a command's author kept in the command log
/// ([`Author::name`](crate::cmdlog::Author::name): a tool, an MCP client's `clientInfo` name, a
/// scope), in bytes of UTF-8; a longer one is cut at a character boundary below this.
pub const MAX_AUTHOR_NAME_BYTES: usize = 64;

/// Most rows one [`Terminal::search`](crate::Terminal::search) reads, in rows: the newest ones
/// (a line cut by the bound is read whole); older history is not searched and the result says
/// `truncated`. Bounds a call's work: 100k rows of 80 columns take about 40 ms natively
/// (`cargo run --release -p core-feed --bin search-bench`) and 75 ms in the page's wasm
/// (`node bench/search-page.mjs`).
pub const MAX_SEARCH_ROWS: usize = 200_000;

/// Most matches one search counts, and most matches
/// [`Terminal::matches_in_rows`](crate::Terminal::matches_in_rows) returns for highlighting, in matches; past it counting
/// stops and the result says `truncated` (xterm.js's search addon highlights at most 1000 too).
pub const MAX_SEARCH_MATCHES: usize = 1000;

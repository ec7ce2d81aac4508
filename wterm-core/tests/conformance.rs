//! Conformance suite: terminal behaviour written down from the specs (ECMA-48, xterm's ctlseqs,
//! the VT510 manual, the kitty keyboard protocol, contour's synchronized output, the OSC 8
//! hyperlink spec, Unicode UAX #29), run against [`Terminal`]'s public API.
//!
//! Every `tests/fixtures/conformance/<family>.txt` holds cases in this shape:
//!
//! ```text
//! # Sources: ECMA-48 8.3.21 (CUP)          <- `#` lines are comments
//! ## CUP moves to row;col                   <- `## ` starts a case; the rest is its name
//! size: 5x10                                <- rows x cols
//! input: \e[2;3HX                           <- bytes fed; several `input:` lines concatenate
//! screen:                                   <- every screen row, each after a `|`
//! |
//! |  X
//! |
//! |
//! |
//! cursor: 1,3                               <- 0-based row,col
//! ```
//!
//! Further expectations: `wrapped: 0 2` (the rows that soft-wrap, or `none`), `replies:` (bytes
//! sent back, or `(none)`), `replies-prefix:`, `style R,C: bold fg=1 bg=rgb(1,2,3) link=URI`
//! (the cell's whole style: unnamed attributes must be off, `plain` for none), `cell R,C: TEXT`
//! (the cell's text; `(none)` for the second half of a wide character; `(blank)` for a cell
//! holding no character, which an engine may store as empty or as a space), `modes: autowrap=false
//! cursor_style=bar,steady` (the named [`Modes`] fields), `title:`/`cwd:` (text or `(none)`),
//! `history:` (every history row, oldest first, each after a `|`). Escapes in input, replies,
//! screen rows and cell text: `\e`, `\xNN`, `\r`, `\n`, `\t`, `\\`, `\u{...}`. Values are trimmed,
//! so a leading or trailing space is written `\x20`; screen rows are compared without trailing
//! spaces.
//!
//! Each case runs twice: its input fed whole, then one byte per `feed` call into a fresh
//! terminal; both must meet every expectation. `KNOWN_FAILURES` lists the cases the current
//! engine fails (`file: case name -- reason`); the run fails on any other failure and on a
//! listed case that passes, so the list only shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use wterm_core::{Color, CursorShape, CursorStyle, Modes, Size, Style, Terminal};

/// The fixture folder.
pub(crate) const FIXTURE_DIR: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/conformance");
/// The known-failures list inside [`FIXTURE_DIR`].
const KNOWN_FAILURES_FILE: &str = "KNOWN_FAILURES";
/// Fewest cases the suite must hold, in cases: a fixture file lost or emptied by mistake shows up
/// as a failure instead of a quietly smaller suite.
const MIN_CASES: usize = 200;
/// History each case's terminal keeps, in rows; more than any case scrolls off.
pub(crate) const SCROLLBACK_ROWS: usize = 1000;
/// Separates a known failure's case from its reason.
const REASON_SEPARATOR: &str = " -- ";
/// Setting this environment variable prints every failing case in the `KNOWN_FAILURES` format
/// (the reason is the first mismatch), to start or rebuild the list by hand.
const PRINT_FAILURES_ENV: &str = "CONFORMANCE_PRINT_FAILURES";

// ---------------------------------------------------------------------------------------------
// Fixture model and parser.

/// One case of a fixture file.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    pub(crate) file: String,
    pub(crate) name: String,
    /// 1-based line of the `## ` header.
    line: usize,
    pub(crate) size: Size,
    pub(crate) input: Vec<u8>,
    expect: Vec<Expect>,
}

/// What a `cell R,C:` line expects.
#[derive(Debug, Clone, PartialEq, Eq)]
enum CellWant {
    /// Exactly this text (a grapheme cluster).
    Text(String),
    /// A cell holding no character: empty text or a single space.
    Blank,
    /// No cell of its own: the second column of a wide character.
    Continuation,
}

impl CellWant {
    fn matches(&self, got: &Option<String>) -> bool {
        match (self, got) {
            (CellWant::Text(want), Some(got)) => want == got,
            (CellWant::Blank, Some(got)) => got.is_empty() || got == " ",
            (CellWant::Continuation, None) => true,
            _ => false,
        }
    }

    fn text(&self) -> String {
        match self {
            CellWant::Text(t) => format!("{:?}", t),
            CellWant::Blank => "(blank)".into(),
            CellWant::Continuation => "(none)".into(),
        }
    }
}

/// A cell's style as a fixture states it: the [`Style`] without its link id, and the link's URI.
#[derive(Debug, Clone, PartialEq, Eq)]
struct StyleSpec {
    style: Style,
    link: Option<String>,
}

#[derive(Debug, Clone)]
enum Expect {
    Screen(Vec<String>),
    Cursor(u16, u16),
    Wrapped(Vec<u16>),
    Replies(Vec<u8>),
    RepliesPrefix(Vec<u8>),
    Style(u16, u16, StyleSpec),
    Cell(u16, u16, CellWant),
    /// Field name and expected value rendered as [`mode_value`] renders it.
    Modes(Vec<(String, String)>),
    Title(Option<String>),
    Cwd(Option<String>),
    History(Vec<String>),
}

/// A fixture error with its place, printed as `file:line: message`.
#[derive(Debug)]
struct ParseError {
    file: String,
    line: usize,
    message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// The [`Modes`] fields a fixture may name.
const MODE_KEYS: &[&str] = &[
    "application_cursor",
    "application_keypad",
    "bracketed_paste",
    "alternate_screen",
    "hide_cursor",
    "kitty_flags",
    "mouse_reporting",
    "mouse_tracking",
    "mouse_encoding",
    "focus_events",
    "autowrap",
    "insert",
    "origin",
    "synchronized_output",
    "cursor_style",
];

/// The value of a [`Modes`] field, as text: `true`/`false`, a number for `kitty_flags`, and
/// `shape,blink|steady` for `cursor_style`.
fn mode_value(m: &Modes, key: &str) -> Option<String> {
    let b = |v: bool| Some(v.to_string());
    match key {
        "application_cursor" => b(m.application_cursor),
        "application_keypad" => b(m.application_keypad),
        "bracketed_paste" => b(m.bracketed_paste),
        "alternate_screen" => b(m.alternate_screen),
        "hide_cursor" => b(m.hide_cursor),
        "kitty_flags" => Some(m.kitty_flags.to_string()),
        "mouse_reporting" => b(m.mouse_reporting()),
        "mouse_tracking" => Some(format!("{:?}", m.mouse_tracking)),
        "mouse_encoding" => Some(format!("{:?}", m.mouse_encoding)),
        "focus_events" => b(m.focus_events),
        "autowrap" => b(m.autowrap),
        "insert" => b(m.insert),
        "origin" => b(m.origin),
        "synchronized_output" => b(m.synchronized_output),
        "cursor_style" => Some(cursor_style_text(m.cursor_style)),
        _ => None,
    }
}

fn cursor_style_text(c: CursorStyle) -> String {
    let shape = match c.shape {
        CursorShape::Block => "block",
        CursorShape::Underline => "underline",
        CursorShape::Bar => "bar",
    };
    format!("{shape},{}", if c.blink { "blink" } else { "steady" })
}

/// Checks a fixture's mode value and returns it in [`mode_value`]'s form.
fn normalize_mode_value(key: &str, value: &str) -> Result<String, String> {
    match key {
        "kitty_flags" => value
            .parse::<u8>()
            .map(|v| v.to_string())
            .map_err(|_| format!("kitty_flags wants a number 0-255, got {value:?}")),
        "cursor_style" => {
            let (shape, blink) = value
                .split_once(',')
                .ok_or_else(|| format!("cursor_style wants SHAPE,blink|steady, got {value:?}"))?;
            if !["block", "underline", "bar"].contains(&shape)
                || !["blink", "steady"].contains(&blink)
            {
                return Err(format!(
                    "cursor_style wants block|underline|bar,blink|steady, got {value:?}"
                ));
            }
            Ok(value.to_string())
        }
        k if MODE_KEYS.contains(&k) => match value {
            "true" | "false" => Ok(value.to_string()),
            _ => Err(format!("{key} wants true or false, got {value:?}")),
        },
        _ => Err(format!(
            "unknown mode {key:?}; known: {}",
            MODE_KEYS.join(", ")
        )),
    }
}

/// Decodes a fixture value's escapes (`\e \xNN \r \n \t \\ \u{...}`) to bytes.
fn unescape(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match chars.next() {
            Some('e') => out.push(0x1b),
            Some('r') => out.push(b'\r'),
            Some('n') => out.push(b'\n'),
            Some('t') => out.push(b'\t'),
            Some('\\') => out.push(b'\\'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                let v = u8::from_str_radix(&hex, 16)
                    .ok()
                    .filter(|_| hex.len() == 2)
                    .ok_or_else(|| format!("bad \\x escape {hex:?}: want two hex digits"))?;
                out.push(v);
            }
            Some('u') => {
                if chars.next() != Some('{') {
                    return Err("bad \\u escape: want \\u{HEX}".into());
                }
                let hex: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let ch = u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| format!("bad \\u{{{hex}}}: not a Unicode scalar value"))?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            other => {
                return Err(format!(
                    "unknown escape \\{}",
                    other.map_or(String::new(), String::from)
                ))
            }
        }
    }
    Ok(out)
}

/// [`unescape`] for text that must stay UTF-8 (screen rows, cell text, titles).
fn unescape_text(s: &str) -> Result<String, String> {
    String::from_utf8(unescape(s)?).map_err(|_| "escapes make invalid UTF-8".to_string())
}

/// Bytes written back in the fixture escape syntax, for messages.
fn escape(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '\x1b' => out.push_str("\\e"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

fn parse_pos(s: &str) -> Result<(u16, u16), String> {
    let (r, c) = s
        .split_once(',')
        .ok_or_else(|| format!("want ROW,COL, got {s:?}"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<u16>()
            .map_err(|_| format!("want ROW,COL numbers, got {s:?}"))
    };
    Ok((n(r)?, n(c)?))
}

fn parse_color(s: &str) -> Result<Color, String> {
    if s == "default" {
        return Ok(Color::Default);
    }
    if let Some(rgb) = s.strip_prefix("rgb(").and_then(|r| r.strip_suffix(')')) {
        let parts: Vec<_> = rgb.split(',').map(|p| p.trim().parse::<u8>()).collect();
        if let [Ok(r), Ok(g), Ok(b)] = parts[..] {
            return Ok(Color::Rgb(r, g, b));
        }
        return Err(format!("bad color {s:?}: want rgb(R,G,B) with 0-255 each"));
    }
    s.parse::<u8>()
        .map(Color::Indexed)
        .map_err(|_| format!("bad color {s:?}: want default, 0-255 or rgb(R,G,B)"))
}

fn parse_style(s: &str) -> Result<StyleSpec, String> {
    let mut style = Style::default();
    let mut link = None;
    for word in s.split_whitespace() {
        match word {
            "plain" => {}
            "bold" => style.bold = true,
            "dim" => style.dim = true,
            "italic" => style.italic = true,
            "underline" => style.underline = true,
            "inverse" => style.inverse = true,
            "blink" => style.blink = true,
            "hidden" => style.hidden = true,
            "strikethrough" => style.strikethrough = true,
            w => match w.split_once('=') {
                Some(("fg", c)) => style.fg = parse_color(c)?,
                Some(("bg", c)) => style.bg = parse_color(c)?,
                Some(("link", uri)) => link = Some(uri.to_string()),
                _ => {
                    return Err(format!(
                        "unknown style word {w:?}; known: plain bold dim italic underline inverse \
                         blink hidden strikethrough fg=C bg=C link=URI"
                    ))
                }
            },
        }
    }
    Ok(StyleSpec { style, link })
}

fn style_text(s: &StyleSpec) -> String {
    let st = &s.style;
    let mut words: Vec<String> = [
        (st.bold, "bold"),
        (st.dim, "dim"),
        (st.italic, "italic"),
        (st.underline, "underline"),
        (st.inverse, "inverse"),
        (st.blink, "blink"),
        (st.hidden, "hidden"),
        (st.strikethrough, "strikethrough"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, w)| w.to_string())
    .collect();
    let color = |c: Color| match c {
        Color::Default => "default".to_string(),
        Color::Indexed(i) => i.to_string(),
        Color::Rgb(r, g, b) => format!("rgb({r},{g},{b})"),
    };
    if st.fg != Color::Default {
        words.push(format!("fg={}", color(st.fg)));
    }
    if st.bg != Color::Default {
        words.push(format!("bg={}", color(st.bg)));
    }
    if let Some(uri) = &s.link {
        words.push(format!("link={uri}"));
    }
    if words.is_empty() {
        "plain".into()
    } else {
        words.join(" ")
    }
}

/// `(none)` or the unescaped text.
fn optional_text(v: &str) -> Result<Option<String>, String> {
    if v == "(none)" {
        Ok(None)
    } else {
        unescape_text(v).map(Some)
    }
}

/// Parses one fixture file's text; `file` names it in errors.
fn parse_fixture(file: &str, text: &str) -> Result<Vec<Case>, ParseError> {
    let err = |line: usize, message: String| ParseError {
        file: file.to_string(),
        line,
        message,
    };
    let lines: Vec<&str> = text.lines().collect();
    if !lines.first().is_some_and(|l| l.starts_with("# ")) {
        return Err(err(
            1,
            "a fixture file opens with a `# ` comment naming its sources".into(),
        ));
    }
    let mut cases: Vec<Case> = Vec::new();
    let mut names = BTreeSet::new();
    let mut size: Option<Size> = None;
    let mut i = 0;
    // Checks the case being built is complete, when the next one starts or the file ends.
    let finish = |cases: &mut Vec<Case>, size: &mut Option<Size>| -> Result<(), ParseError> {
        if let Some(case) = cases.last_mut() {
            if case.expect.is_empty() {
                return Err(err(
                    case.line,
                    format!("case {:?} states no expectation", case.name),
                ));
            }
            if case.input.is_empty() {
                return Err(err(case.line, format!("case {:?} has no input", case.name)));
            }
            case.size = size
                .take()
                .ok_or_else(|| err(case.line, format!("case {:?} has no size:", case.name)))?;
            let rows = case.size.rows as usize;
            for e in &case.expect {
                if let Expect::Screen(s) = e {
                    if s.len() != rows {
                        return Err(err(
                            case.line,
                            format!(
                                "case {:?}: screen: lists {} rows, the size has {rows}",
                                case.name,
                                s.len()
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    };
    while i < lines.len() {
        let lineno = i + 1;
        let line = lines[i];
        i += 1;
        if line.trim().is_empty() || (line.starts_with('#') && !line.starts_with("## ")) {
            continue;
        }
        if let Some(name) = line.strip_prefix("## ") {
            finish(&mut cases, &mut size)?;
            let name = name.trim().to_string();
            if name.is_empty() || name.contains(REASON_SEPARATOR) {
                return Err(err(
                    lineno,
                    format!("case name {name:?} is empty or contains {REASON_SEPARATOR:?}"),
                ));
            }
            if !names.insert(name.clone()) {
                return Err(err(lineno, format!("duplicate case name {name:?}")));
            }
            cases.push(Case {
                file: file.to_string(),
                name,
                line: lineno,
                size: Size::new(0, 0),
                input: Vec::new(),
                expect: Vec::new(),
            });
            continue;
        }
        let Some(case) = cases.last_mut() else {
            return Err(err(
                lineno,
                format!("{line:?} before the first `## ` case header"),
            ));
        };
        let (key, value) = line
            .split_once(':')
            .ok_or_else(|| err(lineno, format!("want `key: value`, got {line:?}")))?;
        let value = value.trim();
        let at = |m: String| err(lineno, m);
        // A block of `|` rows follows `screen:` and `history:`.
        let block = |i: &mut usize| -> Result<Vec<String>, ParseError> {
            if !value.is_empty() {
                return Err(err(
                    lineno,
                    format!("{key}: takes its rows on the next lines, each after `|`"),
                ));
            }
            let mut rows = Vec::new();
            while *i < lines.len() && lines[*i].starts_with('|') {
                let row = unescape_text(&lines[*i][1..]).map_err(|m| err(*i + 1, m))?;
                rows.push(row.trim_end_matches(' ').to_string());
                *i += 1;
            }
            Ok(rows)
        };
        match key.trim() {
            "size" => {
                let (r, c) = value
                    .split_once('x')
                    .and_then(|(r, c)| {
                        Some((r.trim().parse::<u16>().ok()?, c.trim().parse::<u16>().ok()?))
                    })
                    .filter(|&(r, c)| r >= 1 && c >= 2)
                    .ok_or_else(|| {
                        at(format!(
                            "size wants ROWSxCOLS (rows >= 1, cols >= 2), got {value:?}"
                        ))
                    })?;
                if size.replace(Size::new(r, c)).is_some() {
                    return Err(at("size given twice".into()));
                }
            }
            "input" => case.input.extend(unescape(value).map_err(at)?),
            "screen" => {
                let rows = block(&mut i)?;
                case.expect.push(Expect::Screen(rows));
            }
            "history" => {
                let rows = block(&mut i)?;
                case.expect.push(Expect::History(rows));
            }
            "cursor" => {
                let (r, c) = parse_pos(value).map_err(at)?;
                case.expect.push(Expect::Cursor(r, c));
            }
            "wrapped" => {
                let rows = if value == "none" {
                    Vec::new()
                } else {
                    value
                        .split_whitespace()
                        .map(|v| {
                            v.parse::<u16>().map_err(|_| {
                                at(format!("wrapped wants row numbers or none, got {value:?}"))
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()?
                };
                case.expect.push(Expect::Wrapped(rows));
            }
            "replies" => {
                let bytes = if value == "(none)" {
                    Vec::new()
                } else {
                    unescape(value).map_err(at)?
                };
                case.expect.push(Expect::Replies(bytes));
            }
            "replies-prefix" => case
                .expect
                .push(Expect::RepliesPrefix(unescape(value).map_err(at)?)),
            "modes" => {
                let mut pairs = Vec::new();
                for word in value.split_whitespace() {
                    let (k, v) = word
                        .split_once('=')
                        .ok_or_else(|| at(format!("modes wants NAME=VALUE, got {word:?}")))?;
                    pairs.push((k.to_string(), normalize_mode_value(k, v).map_err(at)?));
                }
                if pairs.is_empty() {
                    return Err(at("modes: names no mode".into()));
                }
                case.expect.push(Expect::Modes(pairs));
            }
            "title" => case
                .expect
                .push(Expect::Title(optional_text(value).map_err(at)?)),
            "cwd" => case
                .expect
                .push(Expect::Cwd(optional_text(value).map_err(at)?)),
            k if k.starts_with("style ") => {
                let (r, c) = parse_pos(&k["style ".len()..]).map_err(at)?;
                case.expect
                    .push(Expect::Style(r, c, parse_style(value).map_err(at)?));
            }
            k if k.starts_with("cell ") => {
                let (r, c) = parse_pos(&k["cell ".len()..]).map_err(at)?;
                let want = match value {
                    "(none)" => CellWant::Continuation,
                    "(blank)" => CellWant::Blank,
                    "" => return Err(at("cell wants text, (blank) or (none)".into())),
                    v => CellWant::Text(unescape_text(v).map_err(at)?),
                };
                case.expect.push(Expect::Cell(r, c, want));
            }
            k => {
                return Err(at(format!(
                    "unknown key {k:?}; known: size input screen cursor wrapped replies \
                     replies-prefix style R,C cell R,C modes title cwd history"
                )))
            }
        }
    }
    finish(&mut cases, &mut size)?;
    if cases.is_empty() {
        return Err(err(1, "no cases".into()));
    }
    Ok(cases)
}

// ---------------------------------------------------------------------------------------------
// Running cases.

/// Every mismatch between `expect` and the terminal's state; `replies` is everything `feed`
/// returned, in order.
fn check(t: &mut Terminal, replies: &[u8], expect: &[Expect]) -> Vec<String> {
    let mut out = Vec::new();
    for e in expect {
        match e {
            Expect::Screen(want) => {
                let got: Vec<String> = t
                    .screen_rows()
                    .into_iter()
                    .map(|r| r.text.trim_end_matches(' ').to_string())
                    .collect();
                if &got != want {
                    out.push(format!(
                        "screen:\n{}\n  got:\n{}",
                        block_text(want),
                        block_text(&got)
                    ));
                }
            }
            Expect::History(want) => {
                let n = t.scrollback_rows();
                let got: Vec<String> = t
                    .history_rows(n)
                    .into_iter()
                    .map(|r| r.text.trim_end_matches(' ').to_string())
                    .collect();
                if &got != want {
                    out.push(format!(
                        "history:\n{}\n  got:\n{}",
                        block_text(want),
                        block_text(&got)
                    ));
                }
            }
            Expect::Cursor(r, c) => {
                let cur = t.cursor();
                if (cur.row, cur.col) != (*r, *c) {
                    out.push(format!("cursor: {r},{c}  got: {},{}", cur.row, cur.col));
                }
            }
            Expect::Wrapped(want) => {
                let got: Vec<u16> = t
                    .screen_rows()
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.wrapped)
                    .map(|(i, _)| i as u16)
                    .collect();
                if &got != want {
                    out.push(format!(
                        "wrapped: {}  got: {}",
                        rows_text(want),
                        rows_text(&got)
                    ));
                }
            }
            Expect::Replies(want) => {
                if replies != &want[..] {
                    out.push(format!(
                        "replies: {}  got: {}",
                        bytes_or_none(want),
                        bytes_or_none(replies)
                    ));
                }
            }
            Expect::RepliesPrefix(want) => {
                if !replies.starts_with(want) {
                    out.push(format!(
                        "replies-prefix: {}  got: {}",
                        escape(want),
                        bytes_or_none(replies)
                    ));
                }
            }
            Expect::Style(r, c, want) => match t.cell(*r, *c) {
                None => out.push(format!(
                    "style {r},{c}: {}  got: no cell there",
                    style_text(want)
                )),
                Some((_, style)) => {
                    let got = StyleSpec {
                        style: Style {
                            link: None,
                            ..style
                        },
                        link: style
                            .link
                            .map(|id| t.link_uri(id).unwrap_or("(unresolved id)").to_string()),
                    };
                    if &got != want {
                        out.push(format!(
                            "style {r},{c}: {}  got: {}",
                            style_text(want),
                            style_text(&got)
                        ));
                    }
                }
            },
            Expect::Cell(r, c, want) => {
                let got = t.cell(*r, *c).map(|(text, _)| text);
                if !want.matches(&got) {
                    let got = got.map_or("(none)".into(), |g| format!("{g:?}"));
                    out.push(format!("cell {r},{c}: {}  got: {got}", want.text()));
                }
            }
            Expect::Modes(pairs) => {
                let modes = t.modes();
                for (k, want) in pairs {
                    let got = mode_value(&modes, k).unwrap_or_default();
                    if &got != want {
                        out.push(format!("modes: {k}={want}  got: {k}={got}"));
                    }
                }
            }
            Expect::Title(want) => {
                let got = t.title().map(str::to_string);
                if &got != want {
                    out.push(format!(
                        "title: {}  got: {}",
                        opt_text(want),
                        opt_text(&got)
                    ));
                }
            }
            Expect::Cwd(want) => {
                let got = t.cwd().map(str::to_string);
                if &got != want {
                    out.push(format!("cwd: {}  got: {}", opt_text(want), opt_text(&got)));
                }
            }
        }
    }
    out
}

fn block_text(rows: &[String]) -> String {
    rows.iter()
        .map(|r| format!("    |{}", escape(r.as_bytes())))
        .collect::<Vec<_>>()
        .join("\n")
}

fn rows_text(rows: &[u16]) -> String {
    if rows.is_empty() {
        "none".into()
    } else {
        rows.iter()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn bytes_or_none(b: &[u8]) -> String {
    if b.is_empty() {
        "(none)".into()
    } else {
        escape(b)
    }
}

fn opt_text(t: &Option<String>) -> String {
    t.as_deref()
        .map_or("(none)".into(), |s| escape(s.as_bytes()))
}

/// Runs a case with its input fed whole and then byte by byte; returns its mismatches (empty
/// when it passes). A panic in the terminal is a mismatch too.
fn run_case(case: &Case) -> Vec<String> {
    let whole = catch_unwind(AssertUnwindSafe(|| {
        let mut t = Terminal::new(case.size, SCROLLBACK_ROWS);
        let replies = t.feed(&case.input).replies;
        check(&mut t, &replies, &case.expect)
    }));
    let bytewise = catch_unwind(AssertUnwindSafe(|| {
        let mut t = Terminal::new(case.size, SCROLLBACK_ROWS);
        let mut replies = Vec::new();
        for b in &case.input {
            replies.extend(t.feed(std::slice::from_ref(b)).replies);
        }
        check(&mut t, &replies, &case.expect)
    }));
    let mut out = whole.unwrap_or_else(|_| vec!["the terminal panicked".into()]);
    if out.is_empty() {
        // Report the byte-at-a-time run only when it differs: chunking must not matter.
        let bw = bytewise.unwrap_or_else(|_| vec!["the terminal panicked".into()]);
        out.extend(
            bw.into_iter()
                .map(|m| format!("(input fed one byte at a time) {m}")),
        );
    }
    out
}

/// A case's identity: its file name and case name.
type CaseKey = (String, String);

/// The known-failures list: each listed case to its line in the list and its reason.
type KnownFailures = BTreeMap<CaseKey, (usize, String)>;

/// Parses the known-failures list (`file: case name -- reason` lines, `#` comments).
fn parse_known_failures(text: &str) -> Result<KnownFailures, String> {
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |m: &str| format!("{KNOWN_FAILURES_FILE}:{}: {m}", i + 1);
        let (file, rest) = line
            .split_once(": ")
            .ok_or_else(|| at("want `file: case name -- reason`"))?;
        let (name, reason) = rest
            .split_once(REASON_SEPARATOR)
            .ok_or_else(|| at("want `file: case name -- reason`"))?;
        if reason.trim().is_empty() {
            return Err(at("the reason is empty"));
        }
        let key = (file.trim().to_string(), name.trim().to_string());
        if out
            .insert(key, (i + 1, reason.trim().to_string()))
            .is_some()
        {
            return Err(at("listed twice"));
        }
    }
    Ok(out)
}

/// Every case of every `*.txt` fixture in `dir`, by file name then order in the file; panics on
/// a malformed fixture. Also used by `examples/oracle_screens.rs` (the @xterm/headless oracle).
pub(crate) fn load_cases(dir: &Path) -> Vec<Case> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match parse_fixture(&name, &text) {
            Ok(c) => cases.extend(c),
            Err(e) => panic!("malformed fixture: {}/{e}", dir.display()),
        }
    }
    cases
}

#[test]
fn conformance() {
    let dir = Path::new(FIXTURE_DIR);
    let cases = load_cases(dir);
    let known_path = dir.join(KNOWN_FAILURES_FILE);
    let known_text = std::fs::read_to_string(&known_path)
        .unwrap_or_else(|e| panic!("{}: {e}", known_path.display()));
    let known = parse_known_failures(&known_text).unwrap_or_else(|e| panic!("{e}"));

    let mut report = String::new();
    let (mut pass, mut known_fail, mut unexpected, mut fixed) = (0, 0, 0, 0);
    let mut seen = BTreeSet::new();
    let mut failing_list = String::new();
    for case in &cases {
        let key = (case.file.clone(), case.name.clone());
        seen.insert(key.clone());
        let mismatches = run_case(case);
        let listed = known.get(&key);
        match (mismatches.is_empty(), listed) {
            (true, None) => pass += 1,
            (false, Some(_)) => known_fail += 1,
            (true, Some((line, _))) => {
                fixed += 1;
                let _ = writeln!(
                    report,
                    "NOW PASSES, remove line {line} of {KNOWN_FAILURES_FILE}: {}:{}: {}",
                    case.file, case.line, case.name
                );
            }
            (false, None) => {
                unexpected += 1;
                let _ = writeln!(report, "FAIL {}:{}: {}", case.file, case.line, case.name);
                let _ = writeln!(report, "  input: {}", escape(&case.input));
                for m in &mismatches {
                    let _ = writeln!(report, "  expected {m}");
                }
            }
        }
        if !mismatches.is_empty() {
            let first = mismatches[0].lines().next().unwrap_or_default().to_string();
            let _ = writeln!(
                failing_list,
                "{}: {}{REASON_SEPARATOR}{first}",
                case.file, case.name
            );
        }
    }
    let stale: Vec<_> = known.iter().filter(|(k, _)| !seen.contains(*k)).collect();
    for ((file, name), (line, _)) in &stale {
        let _ = writeln!(
            report,
            "{KNOWN_FAILURES_FILE}:{line}: no case {file}: {name}"
        );
    }
    if std::env::var_os(PRINT_FAILURES_ENV).is_some() {
        let _ = write!(std::io::stderr(), "{failing_list}");
    }
    let summary = format!(
        "conformance: {} cases, {pass} pass, {known_fail} known failures, {unexpected} unexpected \
         failures, {fixed} listed but passing, {} stale list entries",
        cases.len(),
        stale.len()
    );
    // Written to stderr directly, past libtest's capture of print!, so every run shows it.
    let _ = writeln!(std::io::stderr(), "{summary}");
    assert!(
        cases.len() >= MIN_CASES,
        "{summary}\nonly {} cases; the suite holds at least {MIN_CASES} (was a fixture file lost?)",
        cases.len()
    );
    assert!(unexpected + fixed + stale.len() == 0, "{report}\n{summary}");
}

// ---------------------------------------------------------------------------------------------
// The runner's own checks: malformed fixtures are refused with their place.

fn parse_error(text: &str) -> String {
    parse_fixture("t.txt", text)
        .map(|c| format!("parsed {} cases", c.len()))
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn malformed_fixtures_name_file_and_line() {
    let head = "# Sources: none\n";
    assert_eq!(
        parse_error("## a\n"),
        "t.txt:1: a fixture file opens with a `# ` comment naming its sources"
    );
    assert!(parse_error(&format!("{head}size: 2x2\n")).starts_with("t.txt:2: "));
    assert!(parse_error(&format!("{head}## a\nsize: 2x2\ninput: x\n"))
        .starts_with("t.txt:2: case \"a\" states no expectation"));
    assert!(
        parse_error(&format!("{head}## a\nsize: 2x2\ninput: \\q\ncursor: 0,1\n"))
            .starts_with("t.txt:4: unknown escape")
    );
    assert!(
        parse_error(&format!("{head}## a\nsize: 2x2\ninput: x\nscreen:\n|x\n"))
            .contains("lists 1 rows, the size has 2")
    );
    assert!(parse_error(&format!(
        "{head}## a\nsize: 2x2\ninput: x\nmodes: autowrap=maybe\n"
    ))
    .starts_with("t.txt:5: autowrap wants true or false"));
    assert!(parse_error(&format!(
        "{head}## a\nsize: 2x2\ninput: x\nstyle 0,0: shiny\n"
    ))
    .starts_with("t.txt:5: unknown style word"));
    assert!(
        parse_error(&format!("{head}## a\nsize: 2x2\ninput: x\nfrobnicate: 1\n"))
            .starts_with("t.txt:5: unknown key")
    );
    let dup = format!(
        "{head}## a\nsize: 2x2\ninput: x\ncursor: 0,1\n## a\nsize: 2x2\ninput: x\ncursor: 0,1\n"
    );
    assert!(parse_error(&dup).starts_with("t.txt:6: duplicate case name"));
    assert!(parse_error(&format!("{head}## a\ninput: x\ncursor: 0,1\n")).contains("has no size"));
}

#[test]
fn fixture_values_parse() {
    let text = "# Sources: none\n## a b\nsize: 2x3\ninput: \\e[1mx\\u{e9}\\x41\\t\\\\\ninput: y\nscreen:\n|x\n|  \ncursor: 0,1\n\
                style 0,0: bold fg=rgb(1,2,3) bg=4 link=https://x\nmodes: cursor_style=bar,steady kitty_flags=3\n";
    let cases = parse_fixture("t.txt", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cases.len(), 1);
    let c = &cases[0];
    assert_eq!(
        (c.name.as_str(), c.line, c.size),
        ("a b", 2, Size::new(2, 3))
    );
    assert_eq!(c.input, "\x1b[1mx\u{e9}A\t\\y".as_bytes());
    let Expect::Screen(rows) = &c.expect[0] else {
        panic!("{:?}", c.expect)
    };
    assert_eq!(rows, &["x", ""]);
    let Expect::Style(0, 0, s) = &c.expect[2] else {
        panic!("{:?}", c.expect)
    };
    assert_eq!(style_text(s), "bold fg=rgb(1,2,3) bg=4 link=https://x");
    let known = parse_known_failures("# c\nsgr.txt: SGR 9 -- vt100 has none\n").unwrap_or_default();
    assert_eq!(
        known
            .get(&("sgr.txt".into(), "SGR 9".into()))
            .map(|v| v.1.as_str()),
        Some("vt100 has none")
    );
    assert!(parse_known_failures("sgr.txt: SGR 9\n").is_err());
}

/// The checker itself must fail a wrong expectation, or the suite could pass vacuously.
#[test]
fn a_wrong_expectation_fails() {
    let text = "# Sources: none\n## wrong\nsize: 2x4\ninput: ab\nscreen:\n|ba\n|\ncursor: 0,1\n";
    let cases = parse_fixture("t.txt", text).unwrap_or_else(|e| panic!("{e}"));
    let m = run_case(&cases[0]);
    assert_eq!(m.len(), 2, "{m:?}");
    assert!(m[0].starts_with("screen:"), "{m:?}");
    assert!(m[1].starts_with("cursor: 0,1  got: 0,2"), "{m:?}");
}

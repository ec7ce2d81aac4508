//! The command log: what the shell's integration marks (OSC 133 / 633, see
//! `vt::osc::decode_shell_osc`) say about each command, kept per terminal.
//!
//! Rows are counted in the terminal's lifetime: a row's number is the count of rows that ever
//! left the top of the main screen (into history, or dropped at its bound) plus its screen row.
//! A row keeps its number while it scrolls into history, across height changes and alternate-
//! screen programs, so a command's output can be found again after it scrolled. A width change
//! reflows the rows (`reflow.rs`): rows from the oldest one kept are numbered again in order,
//! and every record's rows and the prompt's end are moved to where their lines went.
//!
//! How marks make records:
//! - `C` starts a record: the output starts on the main screen's cursor row; the command text is
//!   `C`'s own (`cmdline=`/`cmdline_url=`) or the last `633 ; E` before it; the cwd is the last
//!   one reported (OSC 7, `633 ; P ; Cwd=`). A `C` while a record is open is ignored.
//! - `D[;exit]` ends the open record: the output ends before the cursor row, or after it when the
//!   cursor is past column 0 (output without a final newline). A `D` with no open record (the
//!   first prompt, an empty line) makes none.
//! - `A` with a record still open ends it with an unknown exit code: a nested shell's first
//!   prompt (`bash`, `exec bash`) or a shell that never sends `D`. Then the outer shell's `D`
//!   after the nested shell's `exit` closes the nested shell's last record (`exit`), whose exit
//!   code is what the outer shell reports for it.
//! - A record whose text the shell reported as empty (VS Code's bash sends `E` with an empty
//!   text, `C`, `D` for an empty line) is dropped when it ends.
//! - Erasing the main screen (ED 2, ED 0 from the home position, RIS; xterm keeps nothing of it
//!   in history) cuts the records with output on it to the rows above (in history) and marks
//!   them `erased`, so their rows never read as later output; a command running then restarts
//!   its output at the screen's top.
//!   RIS keeps the log (as it keeps history) and the open record, so `reset` ends with its own
//!   exit code.
//!
//! Who submitted a command (`CommandRecord::submitted_by`): the adapter notes each line it
//! sends to the program with an Enter ([`crate::Terminal::note_submit`], or in-band as
//! [`Author::note_sequence`] in the output stream, where it keeps its place among the marks),
//! and the next `C` takes the newest note. A note stays until a `C` takes it: a line typed
//! ahead while a command runs is attributed when the shell starts it. A command started with
//! no note (a script, a program's own marks) has no author. Marks and notes are program
//! output as far as the terminal can tell, so a program can print them too: an author here is
//! as trustworthy as the rest of the log (the relay's audit log is the record to trust).

use std::collections::VecDeque;

use crate::limits::{MAX_AUTHOR_NAME_BYTES, MAX_COMMANDS, MAX_COMMAND_BYTES, MAX_CWD_BYTES};
use crate::screen::Screen;
use crate::terminal::{ShellIntegration, ShellState};
use crate::vt::osc::{decode_base64, encode_base64, ShellReport, OSC_COMMAND_LOG};

/// One command as the shell's integration marks reported it ([`crate::Terminal::commands`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRecord {
    /// Its number in the terminal's lifetime, counting from 0; the log keeps the newest
    /// [`MAX_COMMANDS`], so ids of dropped records are missing.
    pub id: u64,
    /// The command line the shell reported (`OSC 633 ; E`, `OSC 133 ; C ; cmdline=`), cut to
    /// [`MAX_COMMAND_BYTES`]; `None` when it reported none.
    pub command: Option<String>,
    /// The exit status from `D;<code>` (130 after Ctrl-C in bash and zsh); `None` when `D`
    /// carried none, the record was closed by a new prompt (a nested shell), or it still runs.
    pub exit_code: Option<i32>,
    /// The working directory when it started (last OSC 7 or `633 ; P ; Cwd=`).
    pub cwd: Option<String>,
    /// When `C` arrived, in the adapter's milliseconds ([`crate::Terminal::set_now_ms`]).
    pub start_ms: u64,
    /// When it ended, same clock; `None` while it runs.
    pub end_ms: Option<u64>,
    /// The lifetime row its output starts on (see [`crate::Terminal::screen_top_row`]).
    pub output_start_row: u64,
    /// The lifetime row just past its output (exclusive); `None` while it runs (the output
    /// then reaches the cursor).
    pub output_end_row: Option<u64>,
    /// The main screen was erased (ED 2, `clear`, RIS) while rows of its output were on it:
    /// those rows are gone, and the record was cut to the rows before them (a running command
    /// restarts at the screen's top).
    pub erased: bool,
    /// Who submitted its line: the newest note before its `C` (see the module doc); `None`
    /// when nothing was noted.
    pub submitted_by: Option<Author>,
}

/// Who sent a line to the program (spec `agent-parity.md`, "Authors").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    /// The kind of writer.
    pub kind: AuthorKind,
    /// Which one, cut to [`MAX_AUTHOR_NAME_BYTES`] without control characters: the WebMCP
    /// tool for [`AuthorKind::PageAgent`], the client's `clientInfo` name for
    /// [`AuthorKind::McpClient`], the scope (or `unscoped`) for [`AuthorKind::RouteCaller`];
    /// empty for [`AuthorKind::Person`].
    pub name: String,
}

/// The kinds of [`Author`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthorKind {
    /// A person at a page: keyboard, paste, IME, touch.
    Person,
    /// An agent in the page, through a WebMCP tool.
    PageAgent,
    /// An MCP client of the relay's `/mcp` endpoint.
    McpClient,
    /// A caller of the relay's `/mcp/*` routes (`wterm-relay mcp` over stdio too).
    RouteCaller,
}

impl AuthorKind {
    /// Every kind, in [`Self::as_str`]'s order.
    pub const ALL: [AuthorKind; 4] = [
        AuthorKind::Person,
        AuthorKind::PageAgent,
        AuthorKind::McpClient,
        AuthorKind::RouteCaller,
    ];

    /// `person`, `page_agent`, `mcp_client` or `route_caller`: the kind's name in every answer.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthorKind::Person => "person",
            AuthorKind::PageAgent => "page_agent",
            AuthorKind::McpClient => "mcp_client",
            AuthorKind::RouteCaller => "route_caller",
        }
    }

    /// The kind named `name` ([`Self::as_str`]).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl Author {
    /// The person at a page.
    pub fn person() -> Self {
        Author {
            kind: AuthorKind::Person,
            name: String::new(),
        }
    }

    /// An author of `kind` named `name`: control characters dropped, cut to
    /// [`MAX_AUTHOR_NAME_BYTES`]; a person's name is always empty.
    pub fn new(kind: AuthorKind, name: &str) -> Self {
        if kind == AuthorKind::Person {
            return Self::person();
        }
        let clean: String = name.chars().filter(|c| !c.is_control()).collect();
        Author {
            kind,
            name: cut(clean, MAX_AUTHOR_NAME_BYTES),
        }
    }

    /// Whether an agent (any kind but [`AuthorKind::Person`]).
    pub fn is_agent(&self) -> bool {
        self.kind != AuthorKind::Person
    }

    /// The in-band note of a line this author submitted: `OSC 7711 ; s ; KIND ; BASE64(name)`
    /// BEL. Put in the output stream where the line was sent, so that the `C` the line brings
    /// takes it, however far behind the reader of the stream is.
    pub fn note_sequence(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + self.name.len() * 4 / 3);
        out.extend_from_slice(b"\x1b]");
        out.extend_from_slice(OSC_COMMAND_LOG);
        out.extend_from_slice(
            format!(
                ";s;{};{}",
                self.kind.as_str(),
                encode_base64(self.name.as_bytes())
            )
            .as_bytes(),
        );
        out.push(0x07);
        out
    }

    /// An author from a note's `KIND` and `BASE64(name)` fields.
    fn from_fields(kind: &str, name: &str) -> Option<Self> {
        let kind = AuthorKind::parse(kind)?;
        let name = String::from_utf8(decode_base64(name.as_bytes())?).ok()?;
        (name.len() <= MAX_AUTHOR_NAME_BYTES).then(|| Author::new(kind, &name))
    }
}

impl CommandRecord {
    /// Whether it has ended (`D`, or a new prompt).
    pub fn finished(&self) -> bool {
        self.end_ms.is_some()
    }

    /// `end_ms - start_ms` once finished (0 if the clock went back).
    pub fn duration_ms(&self) -> Option<u64> {
        self.end_ms.map(|end| end.saturating_sub(self.start_ms))
    }
}

/// A command's output as text ([`crate::Terminal::command_output`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommandOutput {
    /// The rows still kept, as readers get them: a soft-wrapped row runs into the next, other
    /// rows end with `\n`, trailing spaces and trailing blank rows dropped. When rows were left
    /// out (`rows_left_out`), the first rows only.
    pub text: String,
    /// The last rows when rows were left out in the middle, else empty.
    pub tail: String,
    /// Rows between `text` and `tail` not returned, to stay within the `max_rows` asked for.
    pub rows_left_out: u64,
    /// Rows the output covers (end row - start row), kept or not.
    pub rows: u64,
    /// Of those, rows at the start no longer kept: scrolled past the history bound, or history
    /// cleared (ED 3). 0 when the whole output is still there.
    pub rows_lost: u64,
    /// [`CommandRecord::erased`].
    pub erased: bool,
}

/// The per-terminal log; lives in [`Screen`] so escape sequences reach it.
#[derive(Debug, Clone, Default)]
pub(crate) struct CommandLog {
    /// Finished records, oldest first, at most [`MAX_COMMANDS`].
    pub done: VecDeque<CommandRecord>,
    /// The record between `C` and its end.
    pub running: Option<CommandRecord>,
    /// Text from `633 ; E` waiting for its `C`.
    pub pending: Option<String>,
    /// The next record's id.
    pub next_id: u64,
    /// Where the command line starts: the main screen's cursor (lifetime row, column) at the
    /// last `B` (end of the prompt); `None` after `A` until the next `B`, and after `C`.
    pub input_start: Option<(u64, u16)>,
    /// Who submitted the newest line no `C` has taken yet.
    pub submitter: Option<Author>,
    /// The output stream has carried a note or an author (`7711;s`, `7711;a`): whoever
    /// writes it (a relay) says who submitted lines, and the adapter no longer notes its own.
    pub authors_in_stream: bool,
}

/// `text` cut at a character boundary to at most `max` bytes.
fn cut(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut at = max;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
    }
    text
}

impl Screen {
    /// The lifetime row just past the main screen's cursor: the cursor row itself when the
    /// cursor is past column 0.
    pub(crate) fn output_edge(&self) -> u64 {
        let m = &self.main;
        self.rows_scrolled + u64::from(m.row) + u64::from(m.col > 0 || m.pending_wrap)
    }

    /// Applies what an OSC 133 / 633 sequence reported.
    pub fn shell_report(&mut self, report: ShellReport) {
        match report {
            ShellReport::CommandLine(text) => {
                let text = cut(text, MAX_COMMAND_BYTES);
                match &mut self.log.running {
                    Some(r) if r.command.is_none() => r.command = Some(text),
                    _ => self.log.pending = Some(text),
                }
            }
            ShellReport::Cwd(path) => self.cwd = Some(path),
            ShellReport::Mark(mark, text) => self.shell_mark(mark, text),
        }
    }

    fn shell_mark(&mut self, mark: ShellIntegration, text: Option<String>) {
        match mark.state {
            ShellState::Prompt => {
                self.log.pending = None;
                self.log.input_start = None;
                self.end_command(None);
            }
            ShellState::Input => {
                self.log.input_start =
                    Some((self.rows_scrolled + u64::from(self.main.row), self.main.col));
            }
            ShellState::Running => {
                self.log.input_start = None;
                let pending = self.log.pending.take();
                match &mut self.log.running {
                    Some(r) => {
                        if r.command.is_none() {
                            r.command = text.map(|t| cut(t, MAX_COMMAND_BYTES));
                        }
                    }
                    None => {
                        let id = self.log.next_id;
                        self.log.next_id += 1;
                        self.log.running = Some(CommandRecord {
                            id,
                            command: text.or(pending).map(|t| cut(t, MAX_COMMAND_BYTES)),
                            exit_code: None,
                            cwd: self.cwd.clone(),
                            start_ms: self.now_ms,
                            end_ms: None,
                            output_start_row: self.rows_scrolled + u64::from(self.main.row),
                            output_end_row: None,
                            erased: false,
                            submitted_by: self.log.submitter.take(),
                        });
                    }
                }
            }
            ShellState::Done => self.end_command(mark.exit_code),
        }
        self.shell = Some(mark);
    }

    /// Ends the open record, if any, at the cursor and the current time.
    fn end_command(&mut self, exit_code: Option<i32>) {
        let edge = self.output_edge();
        let Some(mut r) = self.log.running.take() else {
            return;
        };
        if r.command.as_deref() == Some("") {
            return;
        }
        r.exit_code = exit_code;
        r.end_ms = Some(self.now_ms);
        r.output_end_row = Some(edge.max(r.output_start_row));
        self.push_done(r);
    }

    fn push_done(&mut self, r: CommandRecord) {
        if self.log.done.len() >= MAX_COMMANDS {
            self.log.done.pop_front();
        }
        self.log.done.push_back(r);
    }

    /// The main screen's rows were erased in place (ED 2, ED 0 from home, RIS): finished
    /// records keep only their rows above the screen (in history) and are marked; a running
    /// command's output restarts at the screen's top.
    pub fn main_screen_erased(&mut self) {
        let top = self.rows_scrolled;
        for r in self.log.done.iter_mut() {
            if let Some(end) = r.output_end_row.as_mut().filter(|end| **end > top) {
                *end = top.max(r.output_start_row);
                r.erased = true;
            }
        }
        if let Some(r) = &mut self.log.running {
            r.erased = true;
            r.output_start_row = r.output_start_row.min(top);
        }
    }

    /// The log as `OSC 7711` sequences for [`crate::Terminal::snapshot`], after everything
    /// else (an `OSC 133` mark replayed before it may open a record; `n` starts over):
    ///
    /// - `7711;n;ROWS_SCROLLED;NEXT_ID`: the lifetime row count and next id; clears the log.
    /// - `7711;c;ID;START_ROW;END_ROW;EXIT;START_MS;END_MS;ERASED;TEXT`: a record, oldest
    ///   first, the running one (empty END_ROW and END_MS) last; EXIT empty when unknown; TEXT
    ///   `b` + base64, empty for none.
    /// - `7711;w;BASE64`: the cwd of the record just written.
    /// - `7711;a;KIND;BASE64`: who submitted the record just written ([`Author`]).
    /// - `7711;e;BASE64`: a command line waiting for its `C`.
    /// - `7711;s;KIND;BASE64`: who submitted a line no `C` has taken yet
    ///   ([`Author::note_sequence`], also sent live).
    ///
    /// Each stays under `MAX_OSC_BYTES`: base64 of [`MAX_COMMAND_BYTES`] or [`MAX_CWD_BYTES`].
    /// `n` is always written, even with an empty log: a page resynced in-band (RIS, then the
    /// snapshot, without [`crate::Terminal::reset`]) still holds its old log and row count,
    /// which RIS keeps.
    pub fn write_command_log(&self, out: &mut Vec<u8>) {
        let log = &self.log;
        let osc = |out: &mut Vec<u8>, body: String| {
            out.extend_from_slice(b"\x1b]");
            out.extend_from_slice(OSC_COMMAND_LOG);
            out.extend_from_slice(body.as_bytes());
            out.push(0x07);
        };
        osc(out, format!(";n;{};{}", self.rows_scrolled, log.next_id));
        let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
        for r in log.done.iter().chain(&log.running) {
            let text = r.command.as_ref().map_or(String::new(), |t| {
                format!("b{}", encode_base64(t.as_bytes()))
            });
            let exit = r.exit_code.map_or(String::new(), |c| c.to_string());
            osc(
                out,
                format!(
                    ";c;{};{};{};{exit};{};{};{};{text}",
                    r.id,
                    r.output_start_row,
                    opt(r.output_end_row),
                    r.start_ms,
                    opt(r.end_ms),
                    u8::from(r.erased)
                ),
            );
            if let Some(cwd) = &r.cwd {
                osc(out, format!(";w;{}", encode_base64(cwd.as_bytes())));
            }
            if let Some(a) = &r.submitted_by {
                let name = encode_base64(a.name.as_bytes());
                osc(out, format!(";a;{};{name}", a.kind.as_str()));
            }
        }
        if let Some(p) = &log.pending {
            osc(out, format!(";e;{}", encode_base64(p.as_bytes())));
        }
        if let Some(a) = &log.submitter {
            out.extend_from_slice(&a.note_sequence());
        }
    }

    /// Reads one of [`Self::write_command_log`]'s sequences; a malformed one is ignored.
    pub fn read_command_log(&mut self, params: &[&[u8]]) {
        let field = |i: usize| {
            params
                .get(i)
                .and_then(|p| core::str::from_utf8(p).ok())
                .unwrap_or("")
        };
        let num = |i: usize| field(i).parse::<u64>().ok();
        let opt = |i: usize| {
            if field(i).is_empty() {
                Some(None)
            } else {
                num(i).map(Some)
            }
        };
        let text = |s: &str, max: usize| {
            let bytes = decode_base64(s.as_bytes())?;
            String::from_utf8(bytes).ok().filter(|t| t.len() <= max)
        };
        // Lifetime rows stay far from overflow whatever a program writes here.
        const MAX_ROW: u64 = 1 << 53;
        match field(1) {
            "n" => {
                let (Some(rows), Some(next_id)) = (num(2), num(3)) else {
                    return;
                };
                self.rows_scrolled = rows.clamp(self.history.len() as u64, MAX_ROW);
                self.log = CommandLog {
                    next_id: next_id.min(MAX_ROW),
                    authors_in_stream: self.log.authors_in_stream,
                    ..CommandLog::default()
                };
            }
            "c" => {
                let (Some(id), Some(start), Some(end), Some(start_ms), Some(end_ms)) =
                    (num(2), num(3), opt(4), num(6), opt(7))
                else {
                    return;
                };
                let exit_code = if field(5).is_empty() {
                    None
                } else {
                    field(5).parse().ok()
                };
                let command = match field(9) {
                    "" => None,
                    f => match f
                        .strip_prefix('b')
                        .and_then(|b64| text(b64, MAX_COMMAND_BYTES))
                    {
                        Some(t) => Some(t),
                        None => return,
                    },
                };
                if start > MAX_ROW {
                    return;
                }
                let r = CommandRecord {
                    id,
                    command,
                    exit_code,
                    cwd: None,
                    start_ms,
                    end_ms,
                    output_start_row: start,
                    output_end_row: end.map(|e| e.clamp(start, MAX_ROW)),
                    erased: field(8) == "1",
                    submitted_by: None,
                };
                if r.output_end_row.is_some() && r.end_ms.is_some() {
                    self.push_done(r);
                } else {
                    self.log.running = Some(CommandRecord {
                        output_end_row: None,
                        end_ms: None,
                        ..r
                    });
                }
            }
            "w" => {
                let cwd = text(field(2), MAX_CWD_BYTES);
                let last = match &mut self.log.running {
                    Some(r) => Some(r),
                    None => self.log.done.back_mut(),
                };
                if let (Some(r), Some(cwd)) = (last, cwd) {
                    r.cwd = Some(cwd);
                }
            }
            "a" => {
                self.log.authors_in_stream = true;
                let last = match &mut self.log.running {
                    Some(r) => Some(r),
                    None => self.log.done.back_mut(),
                };
                if let (Some(r), Some(a)) = (last, Author::from_fields(field(2), field(3))) {
                    r.submitted_by = Some(a);
                }
            }
            "e" => self.log.pending = text(field(2), MAX_COMMAND_BYTES),
            "s" => {
                self.log.authors_in_stream = true;
                if let Some(a) = Author::from_fields(field(2), field(3)) {
                    self.log.submitter = Some(a);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;

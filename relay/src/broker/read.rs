//! `/mcp/read` (broker contract, "/mcp/read"): views, screen hashes, waits, `since` deltas,
//! style runs.
//!
//! Waits are woken by output: the reader subscribes to its session's version
//! ([`Session::subscribe`]), which the pump moves on after every chunk fed to the emulator, and
//! re-evaluates its predicate on each change; between changes it sleeps (until its deadline or,
//! for `wait_for_idle`, until the quiet period would be over). Nothing polls.

use std::sync::Arc;
use std::time::Duration;

use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tokio::time::Instant;
use wterm_core::agent::redact::{Redactor, Report};
use wterm_core::agent::wait::{Verdict, WaitClock, WaitSpec};
use wterm_core::agent::{self, CommandWait, NewOutput};
use wterm_core::{join_for_search, rows_contain, AttrRun, Color, Frame, ScreenHash, TextRow, View};

use super::reads::ReadPermit;
use super::shell::{self, CommandAnswer, Redacted, ShellFacts};
use super::window::{LastInputFacts, Via, WindowState};
use crate::ground::fields::{self, Fields};
use crate::ground::limits::{
    DEFAULT_READ_LINES, DEFAULT_WAIT_MS, DELTA_MAX_CHANGED_PERCENT, FIRST_PROMPT_WAIT_MS,
    MAX_ATTR_RUNS, MAX_MCP_WAIT_MS, MAX_READ_LINES, MAX_REGEX_BYTES, MAX_REGEX_COMPILED_BYTES,
    MAX_WAIT_MS, READ_FREE_CELLS,
};
use crate::ground::Refusal;
use crate::session::{epoch_ms, Locked, Session, SessionId};

/// What to wait for before answering.
#[derive(Debug, Clone)]
pub enum Wait {
    /// `wait_for_change`: until `content_hash` differs from this (lowercase hex).
    Change(String),
    /// `wait_for_text` (+ `wait_absent`): until the text is present (absent), matching across
    /// soft wraps.
    Text {
        /// The text.
        needle: String,
        /// Wait for it to be gone instead.
        absent: bool,
    },
    /// `wait_for_regex` (+ `wait_absent`): until the pattern matches (stops matching) the rows
    /// joined with soft wraps undone.
    Regex {
        /// The compiled pattern.
        re: Regex,
        /// Wait for it to stop matching instead.
        absent: bool,
    },
    /// `wait_for_idle`: until `stable_hash` has not changed for this long.
    Idle(Duration),
    /// `wait_for_command` (ext): until the command running at the call (or, when none runs,
    /// the command of the line last submitted through the broker) has finished; met at once
    /// when there is neither. Needs the shell's integration marks (OSC 133/633).
    Command,
}

/// A `/mcp/read` request (without the `id`), the `read_screen` tool's arguments: the field docs
/// are the tool's schema.
#[derive(Debug, Clone, JsonSchema)]
pub struct ReadArgs {
    /// "screen" (default) or "scrollback" (history rows before the screen).
    #[serde(rename = "view")]
    #[schemars(with = "Option<String>")]
    pub scrollback: bool,
    /// With view "scrollback": how many history rows, 0..10000.
    #[schemars(with = "Option<u32>")]
    pub lines: usize,
    /// The wait, if any.
    #[serde(flatten)]
    #[schemars(with = "WaitFields")]
    pub wait: Option<Wait>,
    /// The longest wait in milliseconds, 0..15000 through the broker routes, 0..120000 through
    /// the relay's MCP endpoint (more is cut to the limit); a wait that times out
    /// answers the current screen with matched:false, and one ended by the window's process
    /// exiting answers its last screen with matched:false and exited:true.
    #[serde(rename = "timeout_ms")]
    #[schemars(with = "Option<u64>")]
    pub timeout: Duration,
    /// A content_hash from an earlier read: answer only the rows that changed since then.
    pub since: Option<String>,
    /// Also return style runs (colours, bold, reverse) of the rows.
    #[schemars(with = "Option<bool>")]
    pub attrs: bool,
    /// With wait_for_text or wait_for_regex: count only output that arrives after this call
    /// starts (rows from where the cursor was), and for a command submitted through this server
    /// only its output, so an echoed command line never matches.
    #[schemars(with = "Option<bool>")]
    pub new_output: bool,
}

/// The fields an input operation (`/mcp/input`, `/mcp/keys`) accepts to read after it wrote
/// (ext): a wait and its bound, as `/mcp/read` takes them.
pub const AFTER_FIELDS: [&str; 7] = [
    "wait_for_text",
    "wait_for_regex",
    "wait_absent",
    "wait_for_idle",
    "wait_for_command",
    "new_output",
    "timeout_ms",
];

/// The read an input operation does after writing, from its body's [`AFTER_FIELDS`]: `None`
/// when it names no wait; `timeout_ms` or `new_output` without a wait is `400 bad_request`;
/// otherwise refused as `/mcp/read` refuses them.
pub fn after_from_fields(f: &Fields, via: Via) -> Result<Option<ReadArgs>, Refusal> {
    let sub: Fields = f
        .iter()
        .filter(|(k, _)| AFTER_FIELDS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if sub.values().all(Value::is_null) {
        return Ok(None);
    }
    let args = ReadArgs::from_fields(&sub, via)?;
    if args.wait.is_none() {
        return Err(Refusal::BadRequest(
            "timeout_ms: accepted only with a wait (wait_for_text, wait_for_regex, \
             wait_for_idle, wait_for_command)"
                .into(),
        ));
    }
    Ok(Some(args))
}

/// The schema of [`AFTER_FIELDS`] (for the input tools' schemas).
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct AfterFields {
    /// Then wait until this text is on the screen and answer the screen (as read_screen).
    wait_for_text: Option<String>,
    /// Then wait until this regular expression matches the screen.
    wait_for_regex: Option<String>,
    /// With wait_for_text or wait_for_regex: wait until it is absent instead.
    wait_absent: Option<bool>,
    /// Then wait until the screen has not changed for this many milliseconds.
    wait_for_idle: Option<u64>,
    /// Then wait until the command this input started (or the running one) has finished, and
    /// answer it under command (exit_code, output, cwd, duration_ms).
    wait_for_command: Option<bool>,
    /// With wait_for_text or wait_for_regex: count only output after this call (for a line
    /// this input submits, only its command's output).
    new_output: Option<bool>,
    /// The longest wait in milliseconds: up to 120000 on the relay's MCP endpoint (15000
    /// through the broker routes); more is cut to the limit.
    timeout_ms: Option<u64>,
}

/// The wire fields of [`ReadArgs::wait`] (its schema only; at most one wait is accepted).
#[derive(JsonSchema)]
#[allow(dead_code)]
struct WaitFields {
    /// A content_hash: wait until the screen differs from it.
    wait_for_change: Option<String>,
    /// Wait until this text is on the screen (at once when it already is).
    wait_for_text: Option<String>,
    /// Wait until this regular expression matches the screen.
    wait_for_regex: Option<String>,
    /// With wait_for_text or wait_for_regex: wait until it is absent instead.
    wait_absent: Option<bool>,
    /// Wait until the screen has not changed for this many milliseconds.
    wait_for_idle: Option<u64>,
    /// Wait until the running command (or the one just submitted) has finished, then answer
    /// it under command: exit_code, output (head and tail kept), cwd, duration_ms. Needs shell
    /// integration (see shell.integration in list_terminals).
    wait_for_command: Option<bool>,
}

impl Default for ReadArgs {
    fn default() -> Self {
        ReadArgs {
            scrollback: false,
            lines: DEFAULT_READ_LINES,
            wait: None,
            timeout: Duration::from_millis(DEFAULT_WAIT_MS),
            since: None,
            attrs: false,
            new_output: false,
        }
    }
}

impl ReadArgs {
    /// Validates the body's fields: unknown fields and types (`400 bad_request` naming the
    /// field), then `400 bad_regex`, then `400 conflicting_wait`. `timeout_ms` is clamped to
    /// the front's limit ([`max_wait_ms`]).
    pub fn from_fields(f: &Fields, via: Via) -> Result<ReadArgs, Refusal> {
        fields::only(
            f,
            &[
                "id",
                "view",
                "lines",
                "wait_for_change",
                "wait_for_text",
                "wait_for_regex",
                "wait_absent",
                "wait_for_idle",
                "wait_for_command",
                "new_output",
                "timeout_ms",
                "since",
                "attrs",
            ],
        )?;
        let mut args = ReadArgs::default();
        match fields::opt_str(f, "view")? {
            None | Some("screen") => {}
            Some("scrollback") => args.scrollback = true,
            Some(_) => {
                return Err(Refusal::BadRequest(
                    "view: accepted: \"screen\" or \"scrollback\"".into(),
                ))
            }
        }
        let lines = fields::opt_at_most(f, "lines", MAX_READ_LINES as u64, || {
            Refusal::BadRequest(format!(
                "lines: accepted: a number of rows, 0..{MAX_READ_LINES}"
            ))
        })?;
        if let Some(n) = lines {
            // Ignoring it would answer the screen alone to a caller that asked for history
            // (newcomer report; the page's read_terminal reaches into history with `lines`).
            if !args.scrollback {
                return Err(Refusal::BadRequest(
                    "lines: counts history rows, so it needs view \"scrollback\"; add \
                     \"view\": \"scrollback\", or leave lines out to read the screen alone"
                        .into(),
                ));
            }
            args.lines = n as usize;
        }
        let change = fields::opt_str(f, "wait_for_change")?;
        let text = fields::opt_str(f, "wait_for_text")?;
        if text == Some("") {
            // Every screen holds the empty string, so the wait could mean nothing; the page's
            // read_terminal refuses an empty waitFor alike.
            return Err(Refusal::BadRequest(
                "wait_for_text: accepted: a non-empty string".into(),
            ));
        }
        let regex = fields::opt_str(f, "wait_for_regex")?;
        let absent = fields::opt_bool(f, "wait_absent")?.unwrap_or(false);
        let idle = fields::opt_u64(f, "wait_for_idle")?;
        let command = fields::opt_bool(f, "wait_for_command")?.unwrap_or(false);
        args.new_output = fields::opt_bool(f, "new_output")?.unwrap_or(false);
        let max_wait = max_wait_ms(via);
        let timeout = fields::opt_clamped(f, "timeout_ms", max_wait, || {
            Refusal::BadRequest(format!(
                "timeout_ms: accepted: a number of milliseconds, 0..{max_wait}"
            ))
        })?;
        if let Some(ms) = timeout {
            args.timeout = Duration::from_millis(ms);
        }
        args.since = fields::opt_str(f, "since")?.map(str::to_ascii_lowercase);
        args.attrs = fields::opt_bool(f, "attrs")?.unwrap_or(false);
        let re = regex.map(compile).transpose()?;
        let waits = [
            change.is_some(),
            text.is_some(),
            re.is_some(),
            idle.is_some(),
            command,
        ];
        if waits.iter().filter(|w| **w).count() > 1 {
            return Err(Refusal::ConflictingWait);
        }
        if args.new_output && text.is_none() && re.is_none() {
            return Err(Refusal::BadRequest(
                "new_output: accepted only with wait_for_text or wait_for_regex".into(),
            ));
        }
        if absent && text.is_none() && re.is_none() {
            // It inverts a text or regex wait; alone it would be silently ignored.
            return Err(Refusal::BadRequest(
                "wait_absent: accepted only with wait_for_text or wait_for_regex".into(),
            ));
        }
        args.wait = if let Some(h) = change {
            Some(Wait::Change(h.to_ascii_lowercase()))
        } else if let Some(t) = text {
            // Rows are read with their trailing blanks trimmed, so a needle's trailing spaces
            // (a prompt such as ">>> " or "Password: ") could never match at a row's end.
            let needle = match t.trim_end_matches(' ') {
                "" => t,
                trimmed => trimmed,
            };
            Some(Wait::Text {
                needle: needle.to_owned(),
                absent,
            })
        } else if let Some(re) = re {
            Some(Wait::Regex { re, absent })
        } else if command {
            Some(Wait::Command)
        } else {
            idle.map(|ms| Wait::Idle(Duration::from_millis(ms)))
        };
        Ok(args)
    }
}

/// The longest read wait through `via`, in milliseconds: the broker contract's
/// [`MAX_WAIT_MS`] on the `/mcp/*` routes, the agent model's [`MAX_MCP_WAIT_MS`] on the relay's
/// MCP endpoint.
pub fn max_wait_ms(via: Via) -> u64 {
    match via {
        Via::Route | Via::Page => MAX_WAIT_MS,
        Via::Mcp => MAX_MCP_WAIT_MS,
    }
}

/// Compiles a `wait_for_regex` pattern within [`MAX_REGEX_BYTES`] and
/// [`MAX_REGEX_COMPILED_BYTES`].
fn compile(pattern: &str) -> Result<Regex, Refusal> {
    // Matches everything at once: a wait that waits for nothing (as an empty
    // wait_for_text is refused).
    if pattern.is_empty() {
        return Err(Refusal::BadRegex(
            "empty: give a pattern of 1.. bytes".to_owned(),
        ));
    }
    if pattern.len() > MAX_REGEX_BYTES {
        return Err(Refusal::BadRegex(format!(
            "longer than {MAX_REGEX_BYTES} bytes"
        )));
    }
    regex::RegexBuilder::new(pattern)
        .size_limit(MAX_REGEX_COMPILED_BYTES)
        .build()
        .map_err(|e| {
            // The regex crate's message spans several lines; the first says what is wrong.
            let msg = e.to_string();
            let first = msg.lines().last().unwrap_or("does not compile").trim();
            Refusal::BadRegex(first.trim_start_matches("error: ").to_owned())
        })
}

/// `{row, col}` of the cursor.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct CursorPos {
    /// 0-based index into the answer's rows (history rows included).
    pub row: usize,
    /// 0-based column.
    pub col: u16,
}

/// `{row, text}` of a delta.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ChangedRow {
    /// 0-based row index.
    pub row: usize,
    /// The row's new text, trailing spaces trimmed.
    pub text: String,
}

/// A style run of an answer: `fg`/`bg` are `null` (the default color), a palette index 0-255,
/// or `"#rrggbb"` (truecolor).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AttrRunOut {
    /// 0-based row index (history rows included).
    pub row: usize,
    /// 0-based first column.
    pub col: u16,
    /// Columns.
    pub len: u16,
    /// Foreground color.
    pub fg: serde_json::Value,
    /// Background color.
    pub bg: serde_json::Value,
    /// SGR 7.
    pub reverse: bool,
    /// SGR 1.
    pub bold: bool,
    /// SGR 4.
    pub underscore: bool,
}

fn color(c: Color) -> serde_json::Value {
    match c {
        Color::Default => serde_json::Value::Null,
        Color::Indexed(i) => i.into(),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}").into(),
    }
}

impl From<&AttrRun> for AttrRunOut {
    fn from(r: &AttrRun) -> Self {
        AttrRunOut {
            row: r.row,
            col: r.col,
            len: r.len,
            fg: color(r.style.fg),
            bg: color(r.style.bg),
            reverse: r.style.inverse,
            bold: r.style.bold,
            underscore: r.style.underline,
        }
    }
}

/// The answer of `/mcp/read`.
#[derive(Debug, Clone, Serialize)]
pub struct ReadAnswer {
    /// Always true.
    pub ok: bool,
    /// The window id.
    pub id: SessionId,
    /// Columns.
    pub cols: u16,
    /// Rows of the screen.
    pub rows: u16,
    /// The rows read joined with `\n` (`""` in a delta).
    pub text: String,
    /// The alternate screen is shown.
    pub alt_screen: bool,
    /// DECCKM is on.
    pub app_cursor: bool,
    /// `"screen"` or `"scrollback"` (always `"screen"` on the alternate screen).
    pub view: &'static str,
    /// History rows before the screen rows.
    pub history_lines: usize,
    /// BLAKE2b-128 of the full `text`, hex.
    pub content_hash: String,
    /// The same with the cursor's cell as NUL.
    pub stable_hash: String,
    /// The cursor, `null` when hidden.
    pub cursor: Option<CursorPos>,
    /// Whether this is a delta against `since`.
    pub delta: bool,
    /// For waits: whether the condition was met (false = timed out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<bool>,
    /// In a delta: the rows that differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_rows: Option<Vec<ChangedRow>>,
    /// With `attrs:true`: the style runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attr_runs: Option<Vec<AttrRunOut>>,
    /// (ext) With `attrs:true`, true when runs beyond [`MAX_ATTR_RUNS`] were left out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub attrs_truncated: bool,
    /// Milliseconds since the window's last output.
    pub idle_ms: u64,
    /// (ext) The window's process has ended: this is its last screen, and a wait that was not
    /// met ended with it (`matched:false` then does not mean a timeout). Absent while it runs.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exited: bool,
    /// (ext) What the window's shell reported about its commands.
    pub shell: ShellFacts,
    /// (ext) The terminal waits for a secret (its PTY has canonical mode on and echo off: a
    /// password prompt). Agent input there is refused (`secret_prompt`) unless the person
    /// allowed it; a `wait_for_command` ends when one comes up.
    pub secret_prompt: bool,
    /// (ext) The window's input sequence: the newest numbered input call, 0 before any.
    pub input_seq: u64,
    /// (ext) That call, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_input: Option<LastInputFacts>,
    /// (ext) With a wait: `true` when a person at a page typed (or ended a line) between the
    /// call's start and its answer, so the text and a command's output may hold their echoed
    /// keys; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typeahead: Option<bool>,
    /// (ext) With `wait_for_command`: the command waited for, with its output (bounded);
    /// `finished: false` when the wait ended first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandAnswer>,
    /// (ext) The secrets this answer's text, rows, commands and output carry as
    /// `[redacted:KIND]` (the hashes are of the redacted text); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<Redacted>,
    /// The cells this answer holds under the bound on large reads, given back when the
    /// answer is dropped (after the front serialised it).
    #[serde(skip)]
    pub permit: Option<Arc<ReadPermit>>,
}

/// Everything a read needs, taken under one lock.
struct Snapshot {
    frame: Arc<Frame>,
    scrollback: bool,
    cols: u16,
    rows: u16,
    alt_screen: bool,
    app_cursor: bool,
    last_output: Instant,
    attrs: Option<(Vec<AttrRun>, bool)>,
    /// Taken before the screen: the screen of an ended window is its last.
    exited: bool,
    shell: ShellFacts,
    /// With `new_output` and a text or regex wait: the rows that count
    /// ([`NewOutput::rows`]); `None`: all of `frame.rows`.
    new_rows: Option<Vec<TextRow>>,
    /// With `wait_for_command`: whether the command waited for has finished.
    command_done: bool,
    /// What redaction replaced in `frame` and `shell`.
    redacted: Report,
    /// [`Session::at_secret_prompt`], read with the screen.
    secret_prompt: bool,
}

/// What a read counts from, taken when the call starts.
#[derive(Debug, Clone)]
pub struct Origin {
    /// Where `new_output` counts from: the cursor, the text left of it excluded.
    pub from: NewOutput,
    /// The id of the command a `wait_for_command` waits for; `None`: nothing runs or was
    /// submitted, the wait is met at once.
    pub command: Option<u64>,
    /// The id of the command of a line submitted through the broker and not yet finished,
    /// whose output alone counts for `new_output`.
    pub submitted: Option<u64>,
    /// When `wait_for_idle`'s quiet period may start at the earliest: set after an input
    /// operation's write, so output from before it never counts as the quiet after it.
    pub quiet_from: Option<Instant>,
    /// [`Session::person_inputs`] when the call started: more at its answer is typeahead.
    pub person_inputs: u64,
}

impl Origin {
    /// The origin of a call starting now on `session`.
    pub fn now(session: &Session, window: &WindowState) -> Origin {
        let sub = window.submitted().map(|s| s.next_command_id);
        let person_inputs = session.person_inputs();
        session.inspect(|l| {
            let t = &*l.terminal;
            let from = NewOutput::at_cursor(t);
            let next = agent::next_command_id(t);
            let last = t.last_command().map(|r| r.id);
            // A submitted line's command counts while it has not finished, or when it is the
            // newest that did (it finished before this call).
            let submitted = sub.filter(|n| *n >= next || last == Some(*n));
            let command = t.running_command().map(|r| r.id).or(submitted);
            Origin {
                from,
                command,
                submitted: sub
                    .filter(|n| *n >= next || t.running_command().is_some_and(|r| r.id == *n)),
                quiet_from: None,
                person_inputs,
            }
        })
    }
}

/// `409 no_shell_integration` for a `wait_for_command` on a window whose shell reports no
/// commands and will not ([`await_integration`]): it could only wait out its timeout (as
/// `/mcp/run` refuses, and the page's tools).
pub async fn check_command_wait(session: &Session, args: &ReadArgs) -> Result<(), Refusal> {
    if matches!(args.wait, Some(Wait::Command)) && !await_integration(session).await {
        return Err(Refusal::NoShellIntegration);
    }
    Ok(())
}

/// Whether the window's shell reports its commands (OSC 133 / 633 state). A shell the relay
/// injected its integration into that has not yet drawn its first prompt (launched a moment
/// ago) is waited for, at most [`FIRST_PROMPT_WAIT_MS`] from now; any other program is
/// answered at once.
pub async fn await_integration(session: &Session) -> bool {
    let reporting = || session.inspect(|l| l.terminal.shell_state().is_some());
    if reporting() {
        return true;
    }
    if !session.shell_integration().is_injected() {
        return false;
    }
    let deadline = Instant::now() + Duration::from_millis(FIRST_PROMPT_WAIT_MS);
    let mut changes = session.subscribe();
    let ended = session.wait_ended();
    tokio::pin!(ended);
    loop {
        changes.borrow_and_update();
        if reporting() {
            return true;
        }
        if session.has_ended() || Instant::now() >= deadline {
            return false;
        }
        tokio::select! {
            _ = changes.changed() => {}
            () = tokio::time::sleep_until(deadline) => {}
            () = &mut ended => {}
        }
    }
}

/// The cells (columns × rows) a read of `session` per `args` covers now: the screen, and with
/// view "scrollback" the history rows it would take (none on the alternate screen).
pub fn cells(session: &Session, args: &ReadArgs) -> u64 {
    session.inspect(|l| {
        let size = l.terminal.size();
        let history = if args.scrollback {
            args.lines.min(l.terminal.scrollback_rows())
        } else {
            0
        };
        u64::from(size.cols) * (u64::from(size.rows) + history as u64)
    })
}

/// The read an input operation does after writing: [`read_from`] counting from `before` (taken
/// before the write) for `new_output`, and from the window's submission after it for the
/// command (a line the write submitted).
pub async fn read_after(
    session: &Session,
    window: &WindowState,
    args: &ReadArgs,
    before: Origin,
    redactor: Option<&Redactor>,
    gate: Gate<'_>,
) -> Result<ReadAnswer, Refusal> {
    let after = Origin::now(session, window);
    let origin = Origin {
        from: before.from,
        quiet_from: Some(Instant::now()),
        person_inputs: before.person_inputs,
        ..after
    };
    read_from(session, window, args, &origin, redactor, gate).await
}

fn snapshot(
    session: &Session,
    args: &ReadArgs,
    origin: &Origin,
    redactor: Option<&Redactor>,
) -> Snapshot {
    let exited = session.has_ended();
    let secret_prompt = session.at_secret_prompt();
    session.inspect(|l: &mut Locked<'_>| {
        let modes = l.terminal.modes();
        let scrollback = args.scrollback && !modes.alternate_screen;
        let view = if scrollback {
            View::Scrollback(args.lines)
        } else {
            View::Screen
        };
        let mut frame = l.frame(view);
        let mut redacted = Report::default();
        if let Some((f, report)) = redactor.and_then(|r| r.frame(l.terminal, &frame)) {
            frame = Arc::new(f);
            redacted = report;
        }
        let attrs = args
            .attrs
            .then(|| l.terminal.attr_runs(frame.history_lines, MAX_ATTR_RUNS));
        let size = l.terminal.size();
        let t = &*l.terminal;
        let text_wait = matches!(args.wait, Some(Wait::Text { .. } | Wait::Regex { .. }));
        let new_rows = (args.new_output && text_wait).then(|| {
            // Only the submitted command's output counts (none until it has started), and
            // nothing above the rows this read covers.
            let command = origin
                .submitted
                .filter(|_| t.shell_state().is_some())
                .map(CommandWait::from_id);
            let floor = t
                .screen_top_row()
                .saturating_sub(frame.history_lines as u64);
            let mut rows = origin.from.clone().in_command(command).rows(t, floor);
            if let Some(r) = redactor {
                // What a wait matches is what the answer shows: a secret cannot be probed.
                r.rows(&mut rows);
            }
            rows
        });
        let command_done = match (&args.wait, origin.command) {
            (Some(Wait::Command), Some(id)) => CommandWait::from_id(id).finished(t),
            _ => true,
        };
        let mut shell = shell::facts(session, t);
        if let Some(r) = redactor {
            shell.redact(r, &mut redacted);
        }
        Snapshot {
            frame,
            scrollback,
            cols: size.cols,
            rows: size.rows,
            alt_screen: modes.alternate_screen,
            app_cursor: modes.application_cursor,
            last_output: l.last_output,
            attrs,
            exited,
            shell,
            new_rows,
            command_done,
            redacted,
            secret_prompt,
        }
    })
}

/// State of a `wait_for_idle` wait: the stable hash last seen and since when it holds.
struct Quiet {
    stable: ScreenHash,
    since: Instant,
}

/// One wait judged by the core's rule ([`agent::wait::verdict`], the page's too): the
/// relay's times as milliseconds from the call's start.
struct Judge {
    base: Instant,
    spec: WaitSpec,
    clock: WaitClock,
    quiet: Option<Quiet>,
}

impl Judge {
    fn new(wait: &Wait, base: Instant, timeout: Duration, quiet_from: Option<Instant>) -> Judge {
        let spec = WaitSpec {
            text: !matches!(wait, Wait::Idle(_)),
            idle_ms: match wait {
                Wait::Idle(p) => Some(u32::try_from(p.as_millis()).unwrap_or(u32::MAX)),
                _ => None,
            },
            timeout_ms: u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX),
        };
        let mut clock = WaitClock::reading(0.0);
        clock.quiet_from = quiet_from.map(|t| Judge::ms_from(base, t));
        Judge {
            base,
            spec,
            clock,
            quiet: None,
        }
    }

    /// `t` in milliseconds from `base`, negative before it.
    fn ms_from(base: Instant, t: Instant) -> f64 {
        match t.checked_duration_since(base) {
            Some(d) => d.as_secs_f64() * 1000.0,
            None => -(base.duration_since(t).as_secs_f64() * 1000.0),
        }
    }

    /// Judges `wait` on `snap` at `now`. Output, for `wait_for_idle`, is a change of
    /// `stable_hash` (a blinking cursor is not output).
    fn verdict(&mut self, wait: &Wait, snap: &Snapshot, now: Instant) -> Verdict {
        let rows = snap.new_rows.as_deref().unwrap_or(&snap.frame.rows);
        let met = match wait {
            Wait::Command => snap.command_done,
            Wait::Change(h) => snap.frame.content_hash.to_hex() != *h,
            Wait::Text { needle, absent } => rows_contain(rows, needle) != *absent,
            Wait::Regex { re, absent } => re.is_match(&join_for_search(rows)) != *absent,
            Wait::Idle(_) => false,
        };
        let stable = snap.frame.stable_hash;
        let q = self.quiet.get_or_insert(Quiet {
            stable,
            since: snap.last_output,
        });
        if q.stable != stable {
            // Output changed what is shown: the quiet period starts again.
            q.stable = stable;
            q.since = snap.last_output.max(q.since);
        }
        let last_output = Judge::ms_from(self.base, q.since);
        let now = Judge::ms_from(self.base, now);
        agent::wait::verdict(self.spec, &mut self.clock, met, last_output, now)
    }

    /// The instant of `due` (milliseconds from the call's start).
    fn instant(&self, due: f64) -> Instant {
        self.base + Duration::from_secs_f64(due.max(0.0) / 1000.0)
    }
}

/// Reads `session` per `args`: waits (bounded by `args.timeout`) when asked, answers a delta
/// when `since` allows, adds style runs when asked. The answered frame is remembered in the
/// window's frame cache for later `since` reads. With a `redactor`, everything answered (and
/// matched by the wait) has its secrets replaced ([`Redactor::frame`]).
pub async fn read(
    session: &Session,
    window: &WindowState,
    args: &ReadArgs,
    redactor: Option<&Redactor>,
    gate: Gate<'_>,
) -> Result<ReadAnswer, Refusal> {
    let origin = Origin::now(session, window);
    read_from(session, window, args, &origin, redactor, gate).await
}

/// Asked again during a wait whenever the window's access may have changed
/// ([`WindowState::access_changed`]): `Err` with the refusal a new call would get ends the wait
/// with it.
pub type Gate<'a> = &'a (dyn Fn() -> Result<(), Refusal> + Sync);

/// [`read`] counting from `origin` (`run_command` takes it before it types).
///
/// A wait ends with `gate`'s refusal (`unknown_or_off`, `mcp_disabled`) as soon as the window's
/// mode or the relay's settings change so that the caller may no longer read it: it never
/// answers a screen the caller could not read by a new call, and the refusal is what that call
/// would get, so the agent learns the person took the window back.
pub async fn read_from(
    session: &Session,
    window: &WindowState,
    args: &ReadArgs,
    origin: &Origin,
    redactor: Option<&Redactor>,
    gate: Gate<'_>,
) -> Result<ReadAnswer, Refusal> {
    let started = Instant::now();
    let mut changes = session.subscribe();
    let mut access = window.subscribe_access();
    // The access epoch last checked: `changed()` in the select below marks a change seen, so
    // the loop compares values rather than asking `has_changed`.
    let mut checked = *access.borrow_and_update();
    let ended = session.wait_ended();
    tokio::pin!(ended);
    let mut judge = args
        .wait
        .as_ref()
        .map(|w| Judge::new(w, started, args.timeout, origin.quiet_from));
    let large = cells(session, args) > u64::from(READ_FREE_CELLS)
        && tokio::runtime::Handle::current().runtime_flavor()
            == tokio::runtime::RuntimeFlavor::MultiThread;
    let (mut snap, matched) = loop {
        changes.borrow_and_update();
        let epoch = *access.borrow_and_update();
        if epoch != checked {
            checked = epoch;
            gate()?;
        }
        let snap = if large {
            // Building a large frame takes milliseconds: the worker hands its other tasks
            // (connections, pumps) to another thread meanwhile instead of stalling them.
            tokio::task::block_in_place(|| snapshot(session, args, origin, redactor))
        } else {
            snapshot(session, args, origin, redactor)
        };
        let (Some(wait), Some(judge)) = (&args.wait, judge.as_mut()) else {
            break (snap, None);
        };
        let due = match judge.verdict(wait, &snap, Instant::now()) {
            Verdict::Done => break (snap, Some(true)),
            Verdict::TimedOut => break (snap, Some(false)),
            Verdict::Pending { due } => due,
        };
        // A command that asks for a secret waits for a person: the agent is told now.
        let for_person = snap.secret_prompt && matches!(wait, Wait::Command);
        if snap.exited || for_person {
            break (snap, Some(false));
        }
        let wake = judge.instant(due);
        tokio::select! {
            _ = changes.changed() => {}
            _ = access.changed() => {}
            () = tokio::time::sleep_until(wake) => {}
            () = &mut ended => {}
        }
    };
    let mut report = std::mem::take(&mut snap.redacted);
    let mut a = answer(session, window, snap, matched, args.since.as_deref());
    if matches!(args.wait, Some(Wait::Command)) {
        a.command = session.inspect(|l| {
            let t = &*l.terminal;
            let record = match origin.command {
                Some(id) => CommandWait::from_id(id).find(t),
                None => t.last_command(),
            };
            record.map(|r| CommandAnswer::of(t, r, epoch_ms()))
        });
        if let (Some(c), Some(r)) = (a.command.as_mut(), redactor) {
            c.redact(r, &mut report);
        }
    }
    a.redacted = Redacted::of(report);
    if args.wait.is_some() && session.person_inputs() > origin.person_inputs {
        a.typeahead = Some(true);
    }
    Ok(a)
}

fn answer(
    session: &Session,
    window: &WindowState,
    snap: Snapshot,
    matched: Option<bool>,
    since: Option<&str>,
) -> ReadAnswer {
    let frame = snap.frame;
    let prev = {
        let mut cache = window.frames();
        let prev = since.and_then(|h| cache.find(h, &frame));
        cache.remember(frame.clone());
        prev
    };
    let changed = prev
        .and_then(|p| frame.changed_rows(&p))
        .filter(|c| c.len() * 100 <= DELTA_MAX_CHANGED_PERCENT * frame.rows.len());
    let (attr_runs, attrs_truncated) = match snap.attrs {
        Some((runs, cut)) => (Some(runs.iter().map(AttrRunOut::from).collect()), cut),
        None => (None, false),
    };
    ReadAnswer {
        ok: true,
        id: session.id(),
        cols: snap.cols,
        rows: snap.rows,
        text: if changed.is_some() {
            String::new()
        } else {
            frame.text.clone()
        },
        alt_screen: snap.alt_screen,
        app_cursor: snap.app_cursor,
        view: if snap.scrollback {
            "scrollback"
        } else {
            "screen"
        },
        history_lines: frame.history_lines,
        content_hash: frame.content_hash.to_hex(),
        stable_hash: frame.stable_hash.to_hex(),
        cursor: frame.cursor.map(|(row, col)| CursorPos { row, col }),
        delta: changed.is_some(),
        matched,
        changed_rows: changed.map(|rows| {
            rows.into_iter()
                .map(|(row, text)| ChangedRow { row, text })
                .collect()
        }),
        attr_runs,
        attrs_truncated,
        idle_ms: u64::try_from(snap.last_output.elapsed().as_millis()).unwrap_or(u64::MAX),
        exited: snap.exited,
        shell: snap.shell,
        secret_prompt: snap.secret_prompt,
        input_seq: window.input().seq(),
        last_input: window.input().last().map(LastInputFacts::from),
        typeahead: None,
        command: None,
        redacted: None,
        permit: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: serde_json::Value) -> Result<ReadArgs, Refusal> {
        ReadArgs::from_fields(v.as_object().unwrap(), Via::Route)
    }

    #[test]
    fn waits_conflict_and_bad_regex_comes_first() {
        assert_eq!(
            args(json!({"wait_for_text": "a", "wait_for_idle": 5})).unwrap_err(),
            Refusal::ConflictingWait
        );
        assert_eq!(
            args(json!({"wait_for_change": "00", "wait_for_regex": "x"})).unwrap_err(),
            Refusal::ConflictingWait
        );
        assert!(matches!(
            args(json!({"wait_for_text": "a", "wait_for_regex": "("})).unwrap_err(),
            Refusal::BadRegex(_)
        ));
        assert!(matches!(
            args(json!({"wait_for_regex": "x".repeat(MAX_REGEX_BYTES + 1)})).unwrap_err(),
            Refusal::BadRegex(_)
        ));
        assert!(matches!(
            args(json!({"wait_for_regex": ""})).unwrap_err(),
            Refusal::BadRegex(d) if d.starts_with("empty")
        ));
        assert!(
            args(json!({"wait_for_text": "a", "wait_absent": true, "wait_for_idle": null})).is_ok()
        );
    }

    #[test]
    fn limits_clamp() {
        let a = args(json!({"timeout_ms": 99999, "lines": 10000, "view": "scrollback"})).unwrap();
        assert_eq!(a.timeout, Duration::from_millis(MAX_WAIT_MS));
        assert_eq!(a.lines, MAX_READ_LINES);
        // The relay's MCP endpoint waits as long as run_command and the page's tools.
        let f = json!({"timeout_ms": 999_999, "wait_for_idle": 10});
        let mcp = ReadArgs::from_fields(f.as_object().unwrap(), Via::Mcp).unwrap();
        assert_eq!(mcp.timeout, Duration::from_millis(120_000));
        let f = json!({"timeout_ms": 60_000, "wait_for_idle": 10});
        let mcp = ReadArgs::from_fields(f.as_object().unwrap(), Via::Mcp).unwrap();
        assert_eq!(mcp.timeout, Duration::from_millis(60_000));
        // `lines` over its limit is refused, not lowered (newcomer report: 99999 read 10000).
        match args(json!({"lines": 10001, "view": "scrollback"})) {
            Err(Refusal::BadRequest(d)) => assert!(d.contains("0..10000"), "{d}"),
            other => panic!("{other:?}"),
        }
        assert!(a.scrollback);
        assert_eq!(
            args(json!({"timeout_ms": -3})).unwrap().timeout,
            Duration::ZERO
        );
        // `lines` without view "scrollback" was ignored (newcomer report).
        for without_scrollback in [json!({"lines": 5}), json!({"lines": 5, "view": "screen"})] {
            match args(without_scrollback) {
                Err(Refusal::BadRequest(d)) => assert!(d.contains("view \"scrollback\""), "{d}"),
                other => panic!("{other:?}"),
            }
        }
        for bad in [
            json!({"view": "all"}),
            json!({"lines": -1}),
            json!({"lines": "5"}),
            json!({"timeout_ms": "5"}),
            json!({"attrs": 1}),
            json!({"wait_for_text": 5}),
            json!({"wait_absent": "yes"}),
            json!({"wait_absent": true}),
            json!({"wait_absent": true, "wait_for_idle": 100}),
        ] {
            assert!(
                matches!(args(bad.clone()), Err(Refusal::BadRequest(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn colors_on_the_wire() {
        assert_eq!(color(Color::Default), json!(null));
        assert_eq!(color(Color::Indexed(9)), json!(9));
        assert_eq!(color(Color::Rgb(10, 200, 30)), json!("#0ac81e"));
    }
}

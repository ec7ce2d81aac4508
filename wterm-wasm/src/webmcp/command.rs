//! What the shell's integration marks (the core's command log) give the tools (spec
//! `webmcp-tools.md`, "Commands"): `lastCommand`/`runningCommand` in the state object, the
//! command a `waitForCommand` waits for and its answer, and the rows a `newOutputOnly` wait
//! searches.

use js_sys::Object;
use wterm_core::{CommandRecord, Terminal};

use crate::js::set;
use crate::limits::MAX_COMMAND_OUTPUT_ROWS;

/// The command a wait is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommandWait {
    /// This record (it was running when the call started).
    Id(u64),
    /// The first record newer than this id (`None`: the first record at all): the command a
    /// submitted line starts.
    After(Option<u64>),
}

/// Where a `newOutputOnly` wait looks for its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NewFrom {
    /// The first lifetime row of the main screen that counts ([`Terminal::screen_top_row`]).
    pub(crate) row: u64,
    /// The first screen row of the alternate screen that counts, when the call started on it.
    pub(crate) alt_row: Option<u16>,
    /// With shell integration and a submitted line: only the output rows of that command count
    /// (after its `C` mark), so the echoed command line never matches.
    pub(crate) command: Option<CommandWait>,
}

/// The shell has reported integration marks: a state, a running or a finished command.
pub(crate) fn integration_known(t: &Terminal) -> bool {
    t.shell_state().is_some() || t.running_command().is_some() || t.last_command().is_some()
}

/// The newest record's id, running or finished.
pub(crate) fn newest_id(t: &Terminal) -> Option<u64> {
    let last = t.last_command().map(|r| r.id);
    let running = t.running_command().map(|r| r.id);
    last.max(running)
}

/// The record `w` is waiting for, once it exists.
pub(crate) fn find(t: &Terminal, w: CommandWait) -> Option<&CommandRecord> {
    match w {
        CommandWait::Id(id) => t.command(id),
        CommandWait::After(base) => {
            let newer = |r: &&CommandRecord| base.is_none_or(|b| r.id > b);
            t.commands()
                .find(newer)
                .or_else(|| t.running_command().filter(newer))
        }
    }
}

/// Whether the wait for `w` is over: its command finished, or the log no longer has a command
/// that was running (dropped from the log; the answer then has no `command`).
pub(crate) fn finished(t: &Terminal, w: CommandWait) -> bool {
    match (w, find(t, w)) {
        (_, Some(r)) => r.finished(),
        (CommandWait::Id(_), None) => true,
        (CommandWait::After(_), None) => false,
    }
}

/// The lifetime row just past the main screen's cursor (the cursor row itself when the cursor
/// is past column 0); on the alternate screen, the main screen's top.
pub(crate) fn cursor_row(t: &Terminal) -> u64 {
    let top = t.screen_top_row();
    if t.modes().alternate_screen {
        return top;
    }
    top + u64::from(t.cursor().row)
}

/// The text a `newOutputOnly` wait searches: rows joined for searching (a soft wrap joins).
pub(crate) fn new_output_text(t: &mut Terminal, from: &NewFrom) -> String {
    if t.modes().alternate_screen {
        let rows = t.read_rows(None);
        let skip = usize::from(from.alt_row.unwrap_or(0));
        return wterm_core::join_for_search(rows.get(skip..).unwrap_or(&[]));
    }
    let (start, end) = match from.command {
        Some(w) => match find(t, w) {
            Some(r) => (from.row.max(r.output_start_row), r.output_end_row),
            // Not started yet: the rows so far are the command line.
            None => return String::new(),
        },
        None => (from.row, None),
    };
    let range = CommandRecord {
        id: u64::MAX,
        command: None,
        exit_code: None,
        cwd: None,
        start_ms: 0,
        end_ms: None,
        output_start_row: start,
        output_end_row: end,
        erased: false,
    };
    t.command_output(&range, usize::MAX).text
}

/// `{command?, exitCode?, durationMs, cwd?}` of a finished record, or `{command?, startedMsAgo,
/// cwd?}` of a running one (`now_ms`: epoch ms).
pub(crate) fn summary(r: &CommandRecord, now_ms: u64) -> Object {
    let o = Object::new();
    if let Some(c) = &r.command {
        set(&o, "command", c.as_str());
    }
    match r.duration_ms() {
        Some(d) => {
            if let Some(code) = r.exit_code {
                set(&o, "exitCode", code);
            }
            set(&o, "durationMs", d as f64);
        }
        None => set(&o, "startedMsAgo", now_ms.saturating_sub(r.start_ms) as f64),
    }
    if let Some(cwd) = r.cwd.as_deref().filter(|c| !c.is_empty()) {
        set(&o, "cwd", cwd);
    }
    o
}

/// The `command` of an answer: [`summary`], `running: true` when it has not finished (the wait
/// timed out), then its output bounded to [`MAX_COMMAND_OUTPUT_ROWS`] rows: `output` (all of it,
/// or its first half), `outputTail` (the last rows when rows were left out), `outputRows` (rows
/// it covers), `rowsLeftOut`, `rowsLost`, `outputErased` (the last three only when not 0/false).
pub(crate) fn answer(t: &Terminal, r: &CommandRecord, now_ms: u64) -> Object {
    let o = summary(r, now_ms);
    if !r.finished() {
        set(&o, "running", true);
    }
    let out = t.command_output(r, MAX_COMMAND_OUTPUT_ROWS);
    set(&o, "output", out.text.as_str());
    if out.rows_left_out > 0 {
        set(&o, "outputTail", out.tail.as_str());
    }
    set(&o, "outputRows", out.rows as f64);
    if out.rows_left_out > 0 {
        set(&o, "rowsLeftOut", out.rows_left_out as f64);
    }
    if out.rows_lost > 0 {
        set(&o, "rowsLost", out.rows_lost as f64);
    }
    if out.erased {
        set(&o, "outputErased", true);
    }
    o
}

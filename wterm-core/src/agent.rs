//! What an agent's call means, held once for the page's WebMCP tools (`wterm-wasm`) and the
//! relay's broker routes and MCP tools: which command a wait is for ([`CommandWait`]), what
//! counts as new output ([`NewOutput`]), how a wait is judged ([`wait::verdict`]), how much of a
//! command's output an answer carries ([`command_output`]), the numbering of agent
//! input ([`input::InputSequence`]), and what agent input a secret prompt takes
//! ([`secret_prompt`]).
//!
//! Pure: no clock (times are passed in), no I/O. The adapters take these values at the moments
//! their calls start, write, or press Enter, and ask them again as output arrives.
//!
//! Sources: `webmcp-tools.md` ("Commands", "New output") and `broker-api.md` (`/mcp/read`'s
//! `wait_for_command` and `new_output`); where the two surfaces had drifted, the page's rule is
//! the one kept (it passed the agent tasks the relay failed).

use crate::{join_for_search, CommandRecord, Terminal, TextRow};

pub mod input;
pub mod output;
pub mod redact;
pub mod secret_prompt;
pub mod turns;
pub mod wait;

pub use output::{command_output, MAX_COMMAND_OUTPUT_BYTES, MAX_COMMAND_OUTPUT_ROWS};

/// For each row of the view `view_offset` rows up into history, the command an agent submitted
/// (any [`crate::Author`] but a person) whose rows cover it: its command line (the row before
/// its output) through its last output row, to the screen's bottom while it runs. What a page
/// marks for the person (spec `webmcp-tools.md`, "Authors"). Empty on the alternate screen
/// (its rows are not the log's).
pub fn agent_rows(t: &Terminal, view_offset: usize) -> Vec<Option<&CommandRecord>> {
    let rows = usize::from(t.size().rows);
    let mut out = vec![None; rows];
    if t.modes().alternate_screen {
        return out;
    }
    let Some(top) = t.screen_top_row().checked_sub(view_offset as u64) else {
        return out;
    };
    let bottom = top + rows as u64;
    let by_agent = |r: &&CommandRecord| r.submitted_by.as_ref().is_some_and(|a| a.is_agent());
    for r in t.commands().chain(t.running_command()).filter(by_agent) {
        let first = r.output_start_row.saturating_sub(1).max(top);
        let end = r.output_end_row.unwrap_or(bottom).min(bottom);
        for row in first..end {
            out[(row - top) as usize] = Some(r);
        }
    }
    out
}

/// The command a wait is for, in a terminal's command log ([`Terminal::commands`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandWait {
    /// This record (it was running when the call started).
    Id(u64),
    /// The first record newer than this id (`None`: the first record at all): the command a
    /// line submitted after the id was taken starts.
    After(Option<u64>),
}

impl CommandWait {
    /// The first record whose id is at least `id` (a submitted line's command id, known before
    /// the shell reports it).
    pub fn from_id(id: u64) -> CommandWait {
        CommandWait::After(id.checked_sub(1))
    }

    /// The command a line submitted now will start: the first record newer than the newest one
    /// the log has now.
    pub fn next(t: &Terminal) -> CommandWait {
        CommandWait::After(newest_command_id(t))
    }

    /// The record this wait is for, once it exists (running or finished, while the log keeps
    /// it).
    pub fn find(self, t: &Terminal) -> Option<&CommandRecord> {
        match self {
            CommandWait::Id(id) => t.command(id),
            CommandWait::After(base) => {
                let newer = |r: &&CommandRecord| base.is_none_or(|b| r.id > b);
                t.commands()
                    .find(newer)
                    .or_else(|| t.running_command().filter(newer))
            }
        }
    }

    /// Whether the wait for it is over: its command finished, or the log no longer has a
    /// command that was running (dropped from the log: the answer then has no command).
    pub fn finished(self, t: &Terminal) -> bool {
        match (self, self.find(t)) {
            (_, Some(r)) => r.finished(),
            (CommandWait::Id(_), None) => true,
            (CommandWait::After(_), None) => false,
        }
    }
}

/// Longest time a `waitForCommand` / `run_command` call waits for a shell the relay injected
/// its integration into to report its first prompt (OSC 133), in milliseconds: a terminal
/// opened a moment ago has not drawn it yet, and a call made then waits instead of being
/// refused for want of integration. bash, zsh and fish report within about 200 ms here,
/// several seconds on a loaded machine with a slow rc file; a shell still silent then (its rc
/// file turned the marks off, or it exec'd another program) is refused. Both surfaces count it
/// from the call's start, apart from the call's own timeout.
pub const FIRST_PROMPT_WAIT_MS: u64 = 10_000;

/// The shell has reported integration marks (OSC 133 / 633): a state, a running or a finished
/// command. Without them no command can be waited for.
pub fn integration_known(t: &Terminal) -> bool {
    t.shell_state().is_some() || t.running_command().is_some() || t.last_command().is_some()
}

/// The newest record's id, running or finished.
pub fn newest_command_id(t: &Terminal) -> Option<u64> {
    let last = t.last_command().map(|r| r.id);
    let running = t.running_command().map(|r| r.id);
    last.max(running)
}

/// The id the next command will have in `t`'s log.
pub fn next_command_id(t: &Terminal) -> u64 {
    newest_command_id(t).map_or(0, |id| id + 1)
}

/// Where output counts as new for a wait (`newOutputOnly`, `new_output`): from a point on the
/// screen taken when the call started (or when its Enter was pressed), optionally only inside
/// one command's output.
///
/// Rows are lifetime rows ([`Terminal::screen_top_row`]), so the point is found again after it
/// scrolled into history. On the start row, the text that was left of the cursor (a prompt
/// such as `>>> `) never counts, while text written later on that row does: a REPL's old
/// prompt cannot satisfy a wait for its next one (spec `webmcp-tools.md`, "New output").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOutput {
    /// The first lifetime row of the main screen that counts (the main screen's top when the
    /// point was taken on the alternate screen).
    pub row: u64,
    /// The first screen row of the alternate screen that counts, when the point was taken on
    /// it; `None`: all of an alternate screen entered later counts.
    pub alt_row: Option<u16>,
    /// The start row's text left of the cursor when the point was taken (wide characters
    /// once); left out of that row while the row still begins with it.
    pub before: String,
    /// With shell integration and a submitted line: only the output rows of that command count
    /// (after its `C` mark), so the echoed command line never matches.
    pub command: Option<CommandWait>,
}

impl NewOutput {
    /// From the cursor now: its row, the text left of it excluded.
    pub fn at_cursor(t: &Terminal) -> NewOutput {
        let top = t.screen_top_row();
        let row = t.cursor().row;
        if t.modes().alternate_screen {
            return NewOutput {
                row: top,
                alt_row: Some(row),
                before: t.cursor_row_text_before(),
                command: None,
            };
        }
        NewOutput {
            row: top + u64::from(row),
            alt_row: None,
            before: t.cursor_row_text_before(),
            command: None,
        }
    }

    /// From the row below the cursor's now: the output of a line whose Enter is pressed now
    /// (the echoed line itself never counts).
    pub fn below_cursor(t: &Terminal) -> NewOutput {
        let top = t.screen_top_row();
        let row = t.cursor().row;
        let alternate = t.modes().alternate_screen;
        NewOutput {
            row: if alternate {
                top
            } else {
                top + u64::from(row) + 1
            },
            alt_row: alternate.then(|| row.saturating_add(1)),
            before: String::new(),
            command: None,
        }
    }

    /// Only the output of the command `w` is for (see [`NewOutput::command`]).
    pub fn in_command(mut self, w: Option<CommandWait>) -> NewOutput {
        self.command = w;
        self
    }

    /// The rows that count now, soft wraps kept, trailing blank rows dropped.
    ///
    /// - On the alternate screen: its rows from [`NewOutput::alt_row`] (all of them for a
    ///   point taken on the main screen: the program entered it since).
    /// - On the main screen: the kept rows from [`NewOutput::row`] to the bottom of the
    ///   screen, none above lifetime row `floor` (the first row the caller reads; 0 for all the
    ///   history kept). With [`NewOutput::command`], only that command's output rows, none
    ///   until it has started.
    ///
    /// The start row loses [`NewOutput::before`] while it still begins with it.
    pub fn rows(&self, t: &Terminal, floor: u64) -> Vec<TextRow> {
        if t.modes().alternate_screen {
            let mut rows = t.screen_rows();
            let end = t.content_end(&rows);
            rows.truncate(end);
            let from = usize::from(self.alt_row.unwrap_or(0)).min(rows.len());
            rows.drain(..from);
            if self.alt_row.is_some() {
                self.cut_start(&mut rows);
            }
            return rows;
        }
        let (start, end) = match self.command {
            Some(w) => match w.find(t) {
                Some(r) => (self.row.max(r.output_start_row), r.output_end_row),
                // Not started yet: the rows so far are the command line.
                None => return Vec::new(),
            },
            None => (self.row, None),
        };
        let start = start.max(floor);
        let mut rows = t.rows_between(start, end);
        if start == self.row && self.alt_row.is_none() {
            self.cut_start(&mut rows);
        }
        rows
    }

    /// Cuts [`NewOutput::before`] off the first of `rows` (the start row).
    fn cut_start(&self, rows: &mut [TextRow]) {
        let Some(first) = rows.first_mut().filter(|_| !self.before.is_empty()) else {
            return;
        };
        if let Some(rest) = first.text.strip_prefix(self.before.as_str()) {
            first.text = rest.to_owned();
        } else if self.before.starts_with(first.text.as_str()) {
            // A row's trailing blanks are trimmed: a row that is still only (a part of) the
            // old text holds nothing new.
            first.text.clear();
        }
    }

    /// The rows that count joined for searching ([`join_for_search`]).
    pub fn text(&self, t: &Terminal, floor: u64) -> String {
        join_for_search(&self.rows(t, floor))
    }

    /// Whether `needle` is in the rows that count, a match across a soft wrap included. An
    /// empty needle never matches.
    pub fn contains(&self, t: &Terminal, floor: u64, needle: &str) -> bool {
        !needle.is_empty() && self.text(t, floor).contains(needle)
    }
}

#[cfg(test)]
mod tests;

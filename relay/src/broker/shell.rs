//! What a window's shell reported about its commands (issue 17): the `shell` object of
//! `/mcp/terminals` rows and `/mcp/read` answers, from the session's emulator (its command log,
//! OSC 133/633) and whether the relay injected shell integration into the session's program.
//!
//! The rule is "unknown, never wrong": a program the relay did not inject into and that reports
//! nothing is `state: "unknown"` with the reason, not a guess.

use serde::Serialize;
use wterm_core::{CommandRecord, ShellState, Terminal};

use crate::ground::limits::{MAX_COMMAND_OUTPUT_CHARS, MAX_COMMAND_OUTPUT_ROWS};
use crate::ground::text::strip_controls;

use crate::session::{Integration, Session};

/// `shell` on `/mcp/terminals` and `/mcp/read`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ShellFacts {
    /// `"prompt"` (drawing its prompt), `"input"` (the user's line is being typed), `"running"`
    /// (a command runs), `"done"` (the last command ended, no prompt yet), or `"unknown"` (the
    /// program reports nothing: see `integration`).
    pub state: &'static str,
    /// `"bash"`, `"zsh"`, `"fish"` when the relay injected its integration script; else why
    /// not: `"off"` (`--no-shell-integration` or the profile's key), `"not_a_shell"` (another
    /// program), `"arguments"` (a shell started with arguments the relay does not rewrite),
    /// `"no_scripts"` (the scripts could not be written).
    pub integration: &'static str,
    /// The newest finished command, when the shell reported one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_command: Option<CommandFacts>,
    /// The command running now, when the shell reported its start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running_command: Option<CommandFacts>,
}

/// A command of the log, as agents get it (the relay stamps the log's times with the epoch
/// milliseconds at which output arrived from the PTY).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CommandFacts {
    /// Its number in the window's lifetime (from 0).
    pub command_id: u64,
    /// The command line, when the shell reported it (control characters removed).
    pub command: Option<String>,
    /// Its exit status (130 after Ctrl-C); `null` while it runs, or when the shell gave none.
    pub exit_code: Option<i32>,
    /// The working directory it started in (control characters removed).
    pub cwd: Option<String>,
    /// How long it ran, in milliseconds; for a running command, how long it has run so far.
    pub duration_ms: u64,
    /// When its output's end mark reached the relay, in milliseconds since the Unix epoch;
    /// `null` while it runs.
    pub ended_at_ms: Option<u64>,
}

impl CommandFacts {
    /// The facts of `record`; `now_ms` (epoch milliseconds) times a running one.
    pub fn of(record: &CommandRecord, now_ms: u64) -> CommandFacts {
        CommandFacts {
            command_id: record.id,
            command: record.command.as_deref().map(clean),
            exit_code: record.exit_code,
            cwd: record.cwd.as_deref().map(clean),
            duration_ms: record
                .duration_ms()
                .unwrap_or_else(|| now_ms.saturating_sub(record.start_ms)),
            ended_at_ms: record.end_ms,
        }
    }
}

/// A string the shell reported, without control characters (it goes to clients).
fn clean(s: &str) -> String {
    strip_controls(s).into_owned()
}

/// The wire name of a shell state.
pub fn state_name(state: Option<ShellState>) -> &'static str {
    state.map_or("unknown", ShellState::as_str)
}

/// The integration's wire name (see [`ShellFacts::integration`]).
pub fn integration_name(integration: Integration) -> &'static str {
    match integration {
        Integration::Injected(kind) => kind.name(),
        Integration::NotInjected(why) => why.code(),
    }
}

/// The facts of `session`, read from its locked `terminal`.
pub fn facts(session: &Session, terminal: &Terminal) -> ShellFacts {
    let now = crate::session::epoch_ms();
    ShellFacts {
        state: state_name(terminal.shell_state()),
        integration: integration_name(session.shell_integration()),
        last_command: terminal.last_command().map(|r| CommandFacts::of(r, now)),
        running_command: terminal.running_command().map(|r| CommandFacts::of(r, now)),
    }
}

/// A command with its output, as `wait_for_command` and `run_command` answer it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CommandAnswer {
    /// The command's facts.
    #[serde(flatten)]
    pub facts: CommandFacts,
    /// Whether it has finished (else the wait ended first and this is its output so far).
    pub finished: bool,
    /// Its output: soft-wrapped rows joined, others on lines of their own; the head of it when
    /// rows were left out (at most [`MAX_COMMAND_OUTPUT_ROWS`] rows and
    /// [`MAX_COMMAND_OUTPUT_CHARS`] characters are answered in all).
    pub output: String,
    /// The last rows of the output when rows between were left out.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub output_tail: String,
    /// Rows the output covers.
    pub rows: u64,
    /// Rows between `output` and `output_tail` left out of this answer.
    #[serde(skip_serializing_if = "is_zero")]
    pub rows_left_out: u64,
    /// Rows at its start no longer kept (past the history bound, or cleared).
    #[serde(skip_serializing_if = "is_zero")]
    pub rows_lost: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl CommandAnswer {
    /// `record` of `terminal` with its output, bounded; `now_ms` times a running one.
    pub fn of(terminal: &Terminal, record: &CommandRecord, now_ms: u64) -> CommandAnswer {
        let out = terminal.command_output(record, MAX_COMMAND_OUTPUT_ROWS);
        let half = MAX_COMMAND_OUTPUT_CHARS / 2;
        let (output, cut_head) = keep_head(
            &out.text,
            if out.tail.is_empty() {
                MAX_COMMAND_OUTPUT_CHARS
            } else {
                half
            },
        );
        let (output_tail, cut_tail) = keep_tail(&out.tail, half);
        CommandAnswer {
            facts: CommandFacts::of(record, now_ms),
            finished: record.finished(),
            output,
            output_tail,
            rows: out.rows,
            rows_left_out: out.rows_left_out + cut_head + cut_tail,
            rows_lost: out.rows_lost,
        }
    }
}

/// The first rows of `text` within `max` bytes, and how many rows were cut; a first row longer
/// than `max` keeps its start (cut at a character boundary), so one huge line is not answered
/// as nothing.
fn keep_head(text: &str, max: usize) -> (String, u64) {
    if text.len() <= max {
        return (text.to_owned(), 0);
    }
    let mut kept = String::new();
    let mut cut = 0u64;
    for row in text.split('\n') {
        if cut > 0 || kept.len() + row.len() + 1 > max {
            if kept.is_empty() && cut == 0 {
                kept.push_str(&row[..floor_char_boundary(row, max)]);
            }
            cut += 1;
        } else {
            if !kept.is_empty() {
                kept.push('\n');
            }
            kept.push_str(row);
        }
    }
    (kept, cut)
}

/// The largest index ≤ `i` that is a character boundary of `s`.
fn floor_char_boundary(s: &str, i: usize) -> usize {
    (0..=i.min(s.len()))
        .rev()
        .find(|j| s.is_char_boundary(*j))
        .unwrap_or(0)
}

/// The last rows of `text` within `max` characters, and how many rows were cut.
fn keep_tail(text: &str, max: usize) -> (String, u64) {
    if text.len() <= max {
        return (text.to_owned(), 0);
    }
    let rows: Vec<&str> = text.split('\n').collect();
    let mut total = 0usize;
    let mut first = rows.len();
    while first > 0 && total + rows[first - 1].len() < max {
        first -= 1;
        total += rows[first].len() + 1;
    }
    if first == rows.len() {
        // The last row alone is longer than `max`: its end.
        let last = rows[first - 1];
        let mut start = last.len() - max;
        while !last.is_char_boundary(start) {
            start += 1;
        }
        return (last[start..].to_owned(), (first - 1) as u64);
    }
    (rows[first..].join("\n"), first as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_huge_row_keeps_its_ends() {
        let row = "é".repeat(50_000);
        let (head, cut) = keep_head(&row, 1001);
        assert_eq!((head.len(), cut), (1000, 1));
        let (tail, cut) = keep_tail(&row, 1001);
        assert_eq!((tail.len(), cut), (1000, 0));
        let rows = format!("a\n{row}\nb");
        assert_eq!(keep_head(&rows, 10), ("a".to_owned(), 2));
        assert_eq!(keep_tail(&rows, 10), ("b".to_owned(), 2));
        assert_eq!(keep_head("x\ny", 10), ("x\ny".to_owned(), 0));
    }
}

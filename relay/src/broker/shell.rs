//! What a window's shell reported about its commands: the `shell` object of
//! `/mcp/terminals` rows and `/mcp/read` answers, from the session's emulator (its command log,
//! OSC 133/633) and whether the relay injected shell integration into the session's program.
//!
//! The rule is "unknown, never wrong": a program the relay did not inject into and that reports
//! nothing is `state: "unknown"` with the reason, not a guess.

use serde::Serialize;
use wterm_core::agent::redact::{Redactor, Report};
use wterm_core::{agent, CommandRecord, ShellState, Terminal};

pub use crate::ground::author::AuthorFacts;
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
    /// Who submitted its line (wterm-core `cmdlog::Author`); `null` when no one was noted (a
    /// script, a line the shell read without an Enter the relay saw).
    pub submitted_by: Option<AuthorFacts>,
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
            submitted_by: record.submitted_by.as_ref().map(AuthorFacts::of),
        }
    }
}

impl CommandFacts {
    /// The command line with its secrets replaced; what was replaced is added to `report`.
    pub fn redact(&mut self, r: &Redactor, report: &mut Report) {
        if let Some(c) = self.command.as_mut() {
            report.add(&r.string(c));
        }
    }
}

impl ShellFacts {
    /// [`CommandFacts::redact`] on both commands.
    pub fn redact(&mut self, r: &Redactor, report: &mut Report) {
        for c in [&mut self.last_command, &mut self.running_command]
            .into_iter()
            .flatten()
        {
            c.redact(r, report);
        }
    }
}

/// `redacted` in an agent's answer: how many secrets were replaced by `[redacted:KIND]`, and
/// their kinds (each once). Left out of answers that replaced none.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Redacted {
    /// Markers written.
    pub count: usize,
    /// Their kinds, in the order first written.
    pub kinds: Vec<&'static str>,
}

impl Redacted {
    /// The field for `report`: `None` when nothing was replaced.
    pub fn of(report: Report) -> Option<Redacted> {
        (report.count > 0).then_some(Redacted {
            count: report.count,
            kinds: report.kinds,
        })
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
    /// rows were left out (the core's bound: [`agent::MAX_COMMAND_OUTPUT_ROWS`] rows and
    /// [`agent::MAX_COMMAND_OUTPUT_BYTES`] bytes in all).
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
    /// The command line and its output (head and tail) with their secrets replaced; what was
    /// replaced is added to `report`.
    pub fn redact(&mut self, r: &Redactor, report: &mut Report) {
        self.facts.redact(r, report);
        report.add(&r.string(&mut self.output));
        report.add(&r.string(&mut self.output_tail));
    }

    /// `record` of `terminal` with its output, bounded; `now_ms` times a running one.
    pub fn of(terminal: &Terminal, record: &CommandRecord, now_ms: u64) -> CommandAnswer {
        let out = agent::command_output(terminal, record);
        CommandAnswer {
            facts: CommandFacts::of(record, now_ms),
            finished: record.finished(),
            output: out.text,
            output_tail: out.tail,
            rows: out.rows,
            rows_left_out: out.rows_left_out,
            rows_lost: out.rows_lost,
        }
    }
}

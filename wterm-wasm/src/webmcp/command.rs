//! What the shell's integration marks (the core's command log) give the tools (spec
//! `webmcp-tools.md`, "Commands"): `lastCommand`/`runningCommand` in the state object and a
//! `waitForCommand` answer's `command`, as JS objects. Which command a wait is for and what
//! counts as new output are the core's ([`wterm_core::agent`]).

use js_sys::Object;
use wterm_core::agent;
use wterm_core::{Author, CommandRecord, Terminal};

use super::redaction::Redaction;
use crate::js::set;

/// `{command?, exitCode?, durationMs, cwd?, submittedBy?}` of a finished record, or `{command?,
/// startedMsAgo, cwd?, submittedBy?}` of a running one (`now_ms`: epoch ms); the command line and cwd through `red`.
pub(crate) fn summary(r: &CommandRecord, now_ms: u64, red: &mut Redaction) -> Object {
    let o = Object::new();
    if let Some(c) = &r.command {
        set(&o, "command", red.text(c).as_ref());
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
        set(&o, "cwd", red.text(cwd).as_ref());
    }
    if let Some(a) = &r.submitted_by {
        set(&o, "submittedBy", author(a));
    }
    o
}

/// `{kind, name?}` of a command's author (spec `agent-parity.md`, "Authors"): a person's has
/// no `name`.
pub(crate) fn author(a: &Author) -> Object {
    let o = Object::new();
    set(&o, "kind", a.kind.as_str());
    if !a.name.is_empty() {
        set(&o, "name", a.name.as_str());
    }
    o
}

/// The `command` of an answer: [`summary`], `running: true` when it has not finished (the wait
/// timed out), then its output bounded by the core ([`agent::command_output`]): `output` (all of
/// it, or its first half), `outputTail` (the last rows when rows were left out), `outputRows` (rows
/// it covers), `rowsLeftOut`, `rowsLost`, `outputErased` (the last three only when not 0/false).
/// The output's head and tail go through `red`.
pub(crate) fn answer(t: &Terminal, r: &CommandRecord, now_ms: u64, red: &mut Redaction) -> Object {
    let o = summary(r, now_ms, red);
    if !r.finished() {
        set(&o, "running", true);
    }
    let out = red.output(agent::command_output(t, r));
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

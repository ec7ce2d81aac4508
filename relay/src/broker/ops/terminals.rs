//! `GET /mcp/terminals`, the `list_terminals` tool: every window the caller may see.

use schemars::JsonSchema;
use serde::Serialize;

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::broker::hub::{Broker, Window};
use crate::broker::shell::{self, Redacted, ShellFacts};
use crate::broker::window::{LastInputFacts, Mode, Scope, WindowState};
use crate::ground::fields::Fields;
use crate::ground::text::strip_controls;
use crate::ground::Refusal;
use crate::session::SessionId;
use wterm_core::agent::redact::Report;

/// `GET /mcp/terminals`: no fields.
#[derive(Debug, JsonSchema)]
pub struct Terminals {}

/// A row of `GET /mcp/terminals`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TerminalRow {
    /// The window id.
    pub id: SessionId,
    /// The program's title (OSC 0/2), else the title the launch gave, else `null`; without
    /// control characters ([`strip_controls`]).
    pub title: Option<String>,
    /// The host name of the machine the relay runs on.
    pub host: String,
    /// The working directory the shell reported (OSC 7), else the process's own.
    pub cwd: Option<String>,
    /// The agent driving the window; always `null` (the relay does not know).
    pub agent: Option<String>,
    /// `"shell"` for the page's sessions, else the launch profile's name.
    pub kind: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// The effective mode.
    pub mode: Mode,
    /// The window's scope.
    pub scope: Option<Scope>,
    /// A counter of changes to the window's screen (output chunks, resizes, resets): equal
    /// versions mean nothing was drawn in between.
    pub version: u64,
    /// DECCKM is on.
    pub app_cursor: bool,
    /// The window's default pacing of `/mcp/keys`, in milliseconds.
    pub pace_ms: u64,
    /// What its shell reported about its commands (ext): state, last and running command.
    pub shell: ShellFacts,
    /// (ext) The number of the newest input call the relay's agents sent to this window
    /// (`send_input`, `send_keys`, `run_command`), 0 before any; an agent whose call got no
    /// answer compares it with the number it knew before (spec "Input sequence").
    pub input_seq: u64,
    /// (ext) That call, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_input: Option<LastInputFacts>,
    /// (ext) Whether agents read this window's secrets as `[redacted:KIND]` (the default; only
    /// the person at the page turns it off).
    pub redact: bool,
    /// (ext) The terminal waits for a secret (a password prompt, see `read_screen`); agent input
    /// there is refused with `secret_prompt` unless `secret_input`.
    pub secret_prompt: bool,
    /// (ext) The person let agents type at this window's secret prompts (off by default; only
    /// the page sets it).
    pub secret_input: bool,
    /// (ext) The secrets this row's title and commands carry redacted; absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<Redacted>,
}

fn process_cwd(pid: Option<u32>) -> Option<String> {
    let link = std::fs::read_link(format!("/proc/{}/cwd", pid?)).ok()?;
    Some(link.to_string_lossy().into_owned())
}

fn row_of(broker: &Broker, w: Window) -> Option<TerminalRow> {
    let session = &w.session;
    let state = WindowState::of(session)?;
    let (title, cwd, size, app_cursor, version, mut shell) = session.inspect(|l| {
        (
            l.terminal.title().map(str::to_owned),
            l.terminal.cwd().map(str::to_owned),
            l.terminal.size(),
            l.terminal.modes().application_cursor,
            l.version,
            shell::facts(session, l.terminal),
        )
    });
    let clean = |s: String| strip_controls(&s).into_owned();
    let mut title = title
        .filter(|t| !t.is_empty())
        .or_else(|| state.launch_title.clone())
        .map(clean);
    let redactor = broker.redactor(&state.meta());
    let mut report = Report::default();
    if let Some(r) = &redactor {
        shell.redact(r, &mut report);
        if let Some(t) = title.as_mut() {
            report.add(&r.string(t));
        }
    }
    Some(TerminalRow {
        id: session.id(),
        title,
        host: broker.host.clone(),
        cwd: cwd.or_else(|| process_cwd(session.pid())).map(clean),
        agent: None,
        kind: state.kind.clone(),
        cols: size.cols,
        rows: size.rows,
        mode: w.mode,
        scope: w.meta.scope,
        version,
        app_cursor,
        pace_ms: state.pace_ms(),
        shell,
        input_seq: state.input().seq(),
        last_input: state.input().last().map(LastInputFacts::from),
        redact: redactor.is_some(),
        secret_prompt: session.at_secret_prompt(),
        secret_input: session.agents_may_type_secrets(),
        redacted: Redacted::of(report),
    })
}

impl Operation for Terminals {
    const SPEC: Spec = Spec {
        path: "/mcp/terminals",
        method: Method::Get,
        tool: "list_terminals",
        title: "List terminals",
        description: "Every terminal window this client may see, across hosts: id \
            (\"host:number\", use it with the other tools), title, cwd, cols, rows, mode \
            (off/read/readwrite), scope, owned (this server launched it). A host that is down \
            is one row under errors.",
        target: Target::None,
        admin_only: false,
        ext: false,
        host: HostArg::None,
        read_only: true,
        destructive: false,
        idempotent: true,
    };
    type Answer = Vec<TerminalRow>;

    fn parse(_: &Cx<'_>, _: &Fields) -> Result<Self, Refusal> {
        Ok(Terminals {})
    }

    /// Every window the caller may see, by id.
    async fn run(self, cx: &Cx<'_>) -> Result<Vec<TerminalRow>, Refusal> {
        Ok(cx
            .broker
            .windows()
            .into_iter()
            .filter(|w| cx.caller.sees(&w.meta, w.mode))
            .filter_map(|w| row_of(cx.broker, w))
            .collect())
    }
}

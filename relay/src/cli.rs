//! The command line: [`Cli`] parses it into an [`Action`] (serve, `mcp`, `mcp-config`,
//! `shell-integration`, `audit verify`, `holders list|kill`).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::broker::audit;

use crate::ground::config::ServeArgs;
use crate::ground::shell_integration::ShellKind;
use crate::session::holder::ctl::{self as holders, Found, Killed};

/// `wterm-relay serve`'s options: [`ServeArgs`] and the shell integration switch.
#[derive(Debug, Clone, Args)]
pub struct Serve {
    /// The options resolved into the configuration.
    #[command(flatten)]
    pub args: ServeArgs,
    /// Start shells as they are: no shell integration injected into bash, zsh or fish (their
    /// commands' ends and exit codes are then unknown). A profile can say the same with
    /// `shell_integration = false`.
    #[arg(long)]
    pub no_shell_integration: bool,
}

/// `wterm-relay`: serves the page and bridges it to real PTYs.
#[derive(Debug, Parser)]
#[command(
    name = "wterm-relay",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: Serve,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the page, the websocket and the session routes (the default).
    Serve(Serve),
    /// Speak MCP on stdin/stdout, driving one or more relays over HTTP.
    Mcp(crate::mcp::cli::McpArgs),
    /// Print a ready .mcp.json for this relay (HTTP form; --stdio for the stdio form).
    McpConfig(crate::mcp::cli::McpConfigArgs),
    /// Work with the audit log of the relay's state directory.
    Audit {
        /// What to do.
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// List or end the shells held for the relay in holder processes (sessions that outlive
    /// a restart of the relay), whether or not a relay runs.
    Holders {
        /// What to do.
        #[command(subcommand)]
        command: HoldersCommand,
    },
    /// Hold one session's PTY and program for the relay (started by the relay itself; reads
    /// its orders on stdin).
    #[command(hide = true)]
    Hold {
        /// The socket it serves (informational: `ps` shows it; the orders come on stdin).
        socket: Option<PathBuf>,
    },
    /// Print the shell integration script for SHELL, for a shell the relay does not start
    /// (source it from the shell's startup file; see the README).
    ShellIntegration {
        /// The shell.
        #[arg(value_enum)]
        shell: ShellKind,
    },
}

/// `wterm-relay audit ...`.
#[derive(Debug, Clone, Subcommand)]
pub enum AuditCommand {
    /// Check the audit log's hash chain: exits 0 with "N records, chain intact", else 1 naming
    /// the first bad record (file, line, seq, and whether it was edited, removed, reordered or
    /// damaged); 2 when there is nothing to check.
    Verify(VerifyArgs),
}

/// `wterm-relay holders ...`.
#[derive(Debug, Clone, Subcommand)]
pub enum HoldersCommand {
    /// One line per held session: id, holder pid, program pid, size, start time, whether a
    /// relay is attached, command. Stale and foreign sockets are listed as such.
    List(HoldersListArgs),
    /// End held session ID (or every one with --all): its program gets SIGHUP, then SIGKILL
    /// with its process group 2 s later; a running relay sees the session end. A stale
    /// socket's files are removed; another user's socket is left alone (an error).
    Kill(HoldersKillArgs),
}

/// `wterm-relay holders list`'s options.
#[derive(Debug, Clone, Args)]
pub struct HoldersListArgs {
    /// The relay's state directory. Default: as `serve`: $XDG_STATE_HOME/wterm-relay, else
    /// ~/.local/state/wterm-relay.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// One JSON object per line instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// `wterm-relay holders kill`'s options.
#[derive(Debug, Clone, Args)]
pub struct HoldersKillArgs {
    /// The session id (as `holders list`, the page's `?session=N` and `GET /sessions` give it).
    #[arg(
        value_name = "ID",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub id: Option<u64>,
    /// Every held session of the state directory.
    #[arg(long)]
    pub all: bool,
    /// The relay's state directory (default as `serve`).
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
}

/// What a `holders` command printed: its exit code, lines for stdout and for stderr.
#[derive(Debug, Default)]
pub struct Printed {
    /// 0 on success, 1 when something could not be done, 2 for no state directory.
    pub code: u8,
    /// Lines for stdout.
    pub out: Vec<String>,
    /// Lines for stderr.
    pub err: Vec<String>,
}

/// Runs `wterm-relay holders list|kill` on the state directory (`--state-dir`, else the
/// default one from `env`).
pub fn holders(command: &HoldersCommand, env: impl Fn(&str) -> Option<OsString>) -> Printed {
    let given = match command {
        HoldersCommand::List(a) => a.state_dir.clone(),
        HoldersCommand::Kill(a) => a.state_dir.clone(),
    };
    let Some(state) = given.or_else(|| crate::ground::config::default_state_dir(&env)) else {
        return Printed {
            code: 2,
            err: vec![
                "no state directory: give --state-dir DIR, or set XDG_STATE_HOME or HOME".into(),
            ],
            ..Printed::default()
        };
    };
    let mut p = Printed::default();
    let found = match holders::list(&state) {
        Ok(found) => found,
        Err(e) => {
            p.code = 1;
            p.err
                .push(format!("cannot read {}/holders: {e}", state.display()));
            return p;
        }
    };
    match command {
        HoldersCommand::List(args) => list_holders(&state, found, args.json, &mut p),
        HoldersCommand::Kill(args) => {
            let outcomes: Vec<(u64, Result<Killed, String>)> = if args.all {
                found
                    .into_iter()
                    .map(|f| (f.id(), holders::kill_found(&state, f)))
                    .collect()
            } else {
                let id = args.id.unwrap_or_default();
                vec![(id, holders::kill(&state, id))]
            };
            for (id, outcome) in outcomes {
                match outcome {
                    Ok(Killed::Ended { exit }) => p.out.push(match exit {
                        Some(code) => format!("session {id} ended (exit status {code})"),
                        None => format!("session {id} ended"),
                    }),
                    Ok(Killed::Removed { why }) => {
                        p.out
                            .push(format!("session {id}: stale socket removed ({why})"));
                    }
                    Err(e) => {
                        p.code = 1;
                        p.err.push(e);
                    }
                }
            }
        }
    }
    p
}

fn list_holders(state: &std::path::Path, found: Vec<Found>, json: bool, p: &mut Printed) {
    if json {
        for f in found {
            p.out.push(
                match f {
                    Found::Live(info) => serde_json::json!({"state": "live", "holder": info}),
                    Found::NoControl {
                        id,
                        holder_pid,
                        children,
                    } => serde_json::json!({
                        "state": "no_control", "id": id, "holder_pid": holder_pid,
                        "pids": children,
                    }),
                    Found::Foreign { id, socket, owner } => serde_json::json!({
                        "state": "foreign", "id": id, "socket": socket, "owner": owner,
                    }),
                    Found::Silent { id, why } => serde_json::json!({
                        "state": "silent", "id": id, "why": why,
                    }),
                    Found::Stale { id, socket, why } => serde_json::json!({
                        "state": "stale", "id": id, "socket": socket, "why": why,
                    }),
                }
                .to_string(),
            );
        }
        return;
    }
    p.out.push(format!(
        "{}/holders: {}",
        state.display(),
        match holders::relay_running(state) {
            Some(pid) => format!("a relay runs (pid {pid})"),
            None => "no relay runs".into(),
        }
    ));
    p.out.push(format!(
        "{:>4}  {:>7}  {:>7}  {:>9}  {:<24}  {:<8}  COMMAND",
        "ID", "HOLDER", "PID", "SIZE", "STARTED", "RELAY"
    ));
    let dash = "-";
    for f in found {
        p.out.push(match f {
            Found::Live(i) => format!(
                "{:>4}  {:>7}  {:>7}  {:>9}  {:<24}  {:<8}  {}{}",
                i.id,
                i.holder_pid,
                i.pid.map_or_else(|| dash.to_owned(), |p| p.to_string()),
                format!("{}x{}", i.cols, i.rows),
                crate::ground::clock::rfc3339(i.started_ms),
                if i.attached { "attached" } else { "detached" },
                crate::ground::text::strip_controls(&i.command.join(" ")),
                i.exit
                    .map(|c| format!(" (exited with {c}, ending)"))
                    .unwrap_or_default()
            ),
            Found::NoControl {
                id,
                holder_pid,
                children,
            } => {
                format!(
                "{id:>4}  {holder_pid:>7}  {:>7}  {dash:>9}  {dash:<24}  {dash:<8}  (a holder of \
                 an older build: no control socket)",
                children.first().map_or_else(|| dash.to_owned(), |p| p.to_string()),
            )
            }
            Found::Foreign { id, socket, owner } => format!(
                "{id:>4}  {dash:>7}  {dash:>7}  {dash:>9}  {dash:<24}  {dash:<8}  (not yours: \
                 {} is owned by user {owner} or is not a socket)",
                socket.display()
            ),
            Found::Silent { id, why } => format!(
                "{id:>4}  {dash:>7}  {dash:>7}  {dash:>9}  {dash:<24}  {dash:<8}  (not answering: \
                 {why})"
            ),
            Found::Stale { id, why, .. } => format!(
                "{id:>4}  {dash:>7}  {dash:>7}  {dash:>9}  {dash:<24}  {dash:<8}  (stale: {why}; \
                 `holders kill {id}` removes it)"
            ),
        });
    }
}

/// `wterm-relay audit verify`'s options.
#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// The relay's state directory (its audit/ files are checked, oldest first). Default: as
    /// `serve`: $XDG_STATE_HOME/wterm-relay, else ~/.local/state/wterm-relay.
    #[arg(long, value_name = "DIR", conflicts_with = "files")]
    pub state_dir: Option<PathBuf>,
    /// Audit files to check instead, oldest first (the chain must run on from one to the next).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// Runs `audit verify`: the exit code and the one line to print (on stdout for 0, stderr
/// otherwise).
pub fn audit_verify(args: &VerifyArgs, env: impl Fn(&str) -> Option<OsString>) -> (u8, String) {
    let files = if args.files.is_empty() {
        let Some(state) = args
            .state_dir
            .clone()
            .or_else(|| crate::ground::config::default_state_dir(&env))
        else {
            return (
                2,
                "no state directory: give --state-dir DIR or audit files".into(),
            );
        };
        let dir = state.join(audit::AUDIT_DIR);
        let files = audit::files(&dir);
        if files.is_empty() {
            return (2, format!("no audit files in {}", dir.display()));
        }
        files
    } else {
        args.files.clone()
    };
    match audit::verify(&files) {
        Ok(v) => {
            let start = match v.first_seq {
                Some(s) if s > 1 => format!(" (from seq {s}: older files were rotated away)"),
                _ => String::new(),
            };
            (
                0,
                format!(
                    "{} records in {} file{}, chain intact{start}",
                    v.records,
                    v.files,
                    if v.files == 1 { "" } else { "s" }
                ),
            )
        }
        Err(fault) => (1, format!("chain broken at {fault}")),
    }
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Action {
    /// Run the relay.
    Serve(Serve),
    /// `wterm-relay mcp`.
    Mcp(crate::mcp::cli::McpArgs),
    /// `wterm-relay mcp-config`.
    McpConfig(crate::mcp::cli::McpConfigArgs),
    /// `wterm-relay shell-integration SHELL`: print that shell's script.
    ShellIntegration(ShellKind),
    /// `wterm-relay audit verify`.
    AuditVerify(VerifyArgs),
    /// `wterm-relay hold`: be a session holder (`session::holder`).
    Hold,
    /// `wterm-relay holders list|kill`.
    Holders(HoldersCommand),
}

impl Cli {
    /// What to do.
    pub fn into_action(self) -> Action {
        match self.command {
            Some(Command::Serve(args)) => Action::Serve(args),
            Some(Command::Mcp(args)) => Action::Mcp(args),
            Some(Command::McpConfig(args)) => Action::McpConfig(args),
            Some(Command::ShellIntegration { shell }) => Action::ShellIntegration(shell),
            Some(Command::Hold { .. }) => Action::Hold,
            Some(Command::Holders { command }) => Action::Holders(command),
            Some(Command::Audit {
                command: AuditCommand::Verify(args),
            }) => Action::AuditVerify(args),
            None => Action::Serve(self.serve),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_accepts_both_spellings() {
        let port = |cli: Cli| match cli.into_action() {
            Action::Serve(a) => a.args.port,
            other => panic!("{other:?}"),
        };
        let a = Cli::parse_from(["wterm-relay", "--port", "0", "--allow-origin", "http://x"]);
        assert_eq!(port(a), 0);
        assert_eq!(
            port(Cli::parse_from(["wterm-relay", "serve", "--port", "9"])),
            9
        );
        assert_eq!(port(Cli::parse_from(["wterm-relay"])), 7681);
        let m = Cli::parse_from(["wterm-relay", "mcp", "--url", "http://127.0.0.1:1"]);
        assert!(
            matches!(m.into_action(), Action::Mcp(a) if a.url.as_deref() == Some("http://127.0.0.1:1"))
        );
        let c = Cli::parse_from(["wterm-relay", "mcp-config", "--stdio"]);
        assert!(matches!(c.into_action(), Action::McpConfig(a) if a.stdio));
        let s = Cli::parse_from(["wterm-relay", "shell-integration", "zsh"]);
        assert!(matches!(
            s.into_action(),
            Action::ShellIntegration(ShellKind::Zsh)
        ));
        for argv in [
            &["wterm-relay", "--no-shell-integration"][..],
            &["wterm-relay", "serve", "--no-shell-integration"],
        ] {
            assert!(matches!(
                Cli::parse_from(argv).into_action(),
                Action::Serve(s) if s.no_shell_integration
            ));
        }
    }
}

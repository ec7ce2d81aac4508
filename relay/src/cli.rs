//! The command line: [`Cli`] parses it into an [`Action`] (serve, `mcp`, `mcp-config`,
//! `shell-integration`, `audit verify`).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::broker::audit;

use crate::ground::config::ServeArgs;
use crate::ground::shell_integration::ShellKind;

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

//! The command line: [`Cli`] parses it into an [`Action`] (serve, `mcp`, `mcp-config`,
//! `shell-integration`).

use clap::{Args, Parser, Subcommand};

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
    /// Print the shell integration script for SHELL, for a shell the relay does not start
    /// (source it from the shell's startup file; see the README).
    ShellIntegration {
        /// The shell.
        #[arg(value_enum)]
        shell: ShellKind,
    },
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
}

impl Cli {
    /// What to do.
    pub fn into_action(self) -> Action {
        match self.command {
            Some(Command::Serve(args)) => Action::Serve(args),
            Some(Command::Mcp(args)) => Action::Mcp(args),
            Some(Command::McpConfig(args)) => Action::McpConfig(args),
            Some(Command::ShellIntegration { shell }) => Action::ShellIntegration(shell),
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

//! The command line: [`Cli`] parses it into an [`Action`] (serve, `mcp`, `mcp-config`).

use clap::{Parser, Subcommand};

use crate::ground::config::ServeArgs;

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
    serve: ServeArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the page, the websocket and the session routes (the default).
    Serve(ServeArgs),
    /// Speak MCP on stdin/stdout, driving one or more relays over HTTP.
    Mcp(crate::mcp::cli::McpArgs),
    /// Print a ready .mcp.json for this relay (HTTP form; --stdio for the stdio form).
    McpConfig(crate::mcp::cli::McpConfigArgs),
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Action {
    /// Run the relay.
    Serve(ServeArgs),
    /// `wterm-relay mcp`.
    Mcp(crate::mcp::cli::McpArgs),
    /// `wterm-relay mcp-config`.
    McpConfig(crate::mcp::cli::McpConfigArgs),
}

impl Cli {
    /// What to do.
    pub fn into_action(self) -> Action {
        match self.command {
            Some(Command::Serve(args)) => Action::Serve(args),
            Some(Command::Mcp(args)) => Action::Mcp(args),
            Some(Command::McpConfig(args)) => Action::McpConfig(args),
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
            Action::Serve(a) => a.port,
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
    }
}

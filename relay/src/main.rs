//! `wterm-relay`: parse the command line, set up logging, run.

use std::io::IsTerminal as _;
use std::process::ExitCode;

use clap::Parser as _;
use tracing_subscriber::EnvFilter;
use wterm_relay::cli::{Action, Cli};
use wterm_relay::ground::config::Config;
use wterm_relay::mcp::cli as mcp_cli;

/// Resolves on Ctrl-C (SIGINT) or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}

/// `wterm-relay mcp`: stdio MCP. Logs go to stderr (stdout is the protocol).
fn mcp(args: mcp_cli::McpArgs) -> ExitCode {
    let hosts = match mcp_cli::hosts(&args).and_then(|h| Ok((h, mcp_cli::client_tls(&args)?))) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("wterm-relay mcp: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("wterm-relay mcp: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (hosts, tls) = hosts;
    match runtime.block_on(mcp_cli::run_stdio(hosts, tls)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wterm-relay mcp: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `wterm-relay mcp-config`: prints `.mcp.json`, warns on stderr.
fn mcp_config(args: mcp_cli::McpConfigArgs) -> ExitCode {
    match mcp_cli::mcp_config(&args, |k| std::env::var_os(k)) {
        Ok(text) => {
            println!("{text}");
            eprintln!("{}", mcp_cli::SECRET_WARNING);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("wterm-relay mcp-config: {e}");
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let args = match Cli::parse().into_action() {
        Action::Serve(serve) => serve,
        Action::Mcp(args) => {
            init_logging("warn");
            return mcp(args);
        }
        Action::McpConfig(args) => return mcp_config(args),
        Action::Hold => {
            let code = wterm_relay::session::holder::hold_main();
            return ExitCode::from(u8::try_from(code).unwrap_or(1));
        }
        Action::Holders(command) => {
            let printed = wterm_relay::cli::holders(&command, |k| std::env::var_os(k));
            for line in &printed.out {
                println!("{line}");
            }
            for line in &printed.err {
                eprintln!("wterm-relay holders: {line}");
            }
            return ExitCode::from(printed.code);
        }
        Action::ShellIntegration(shell) => {
            print!("{}", shell.script());
            return ExitCode::SUCCESS;
        }
        Action::AuditVerify(args) => {
            let (code, line) = wterm_relay::cli::audit_verify(&args, |k| std::env::var_os(k));
            if code == 0 {
                println!("{line}");
            } else {
                eprintln!("wterm-relay audit verify: {line}");
            }
            return ExitCode::from(code);
        }
    };
    init_logging("info");
    if let Err(e) = wterm_relay::session::holder::run_time_build_id() {
        eprintln!("wterm-relay: {e}");
        return ExitCode::from(2);
    }
    let config = match Config::resolve(args.args) {
        Ok(c) if args.no_shell_integration => c.without_shell_integration(),
        Ok(c) => c,
        Err(e) => {
            eprintln!("wterm-relay: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("wterm-relay: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(wterm_relay::run(config, shutdown_signal())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wterm-relay: {e}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging(default: &str) {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default)),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

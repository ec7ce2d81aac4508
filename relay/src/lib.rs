//! `wterm-relay`: real PTYs bridged to the wterm page over a websocket, the broker's `/mcp/*`
//! routes and an MCP server over the same sessions.
//!
//! Four layers, bottom up; a module imports only from its own layer and those below, never in
//! a circle (`scripts/layers.py` checks it, and draws the picture in the README):
//!
//! - ground, [`ground`]: limits, refusals ([`ground::Refusal`]), secrets ([`ground::Secret`]),
//!   request fields, the resolved [`ground::config::Config`], programs and launch profiles;
//! - sessions, [`session`]: a child on a PTY, the relay's own `wterm_core::Terminal` of its
//!   screen, and the bounded queues towards attached pages; [`session::registry::Registry`]
//!   holds them by id. Nothing of HTTP or MCP;
//! - broker, [`broker`]: windows (the sessions), modes, scopes, owners, settings, and the one
//!   list of operations ([`broker::ops::Op`]), each with its request type and handler;
//! - fronts: [`guard`] (the refusal ladder, credential and origin checks), [`http`] (the page
//!   realm, the websocket, the `/mcp/*` routes derived from the list), [`mcp`] (the MCP server,
//!   its tools derived from the list, on `/mcp` and stdio), [`cli`], [`state`].
//!
//! [`run`] binds, prints the page URL, serves until the shutdown future resolves, then ends
//! every session (children are signalled and reaped) within a bounded time.
#![deny(missing_docs)]

pub mod broker;
pub mod cli;
pub mod ground;
pub mod guard;
pub mod http;
pub mod mcp;
pub mod session;
pub mod state;

use std::future::Future;
use std::io::{self, Write as _};
use std::net::SocketAddr;

use crate::ground::net::{browsable, reachable};

use crate::ground::config::Config;
use crate::ground::limits::{self, SHUTDOWN_DRAIN};
use crate::state::AppState;

/// Why the relay stopped with an error.
#[derive(Debug)]
pub enum RunError {
    /// The listen address could not be bound.
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The error.
        error: io::Error,
    },
    /// The server failed while running.
    Serve(io::Error),
    /// Another relay serves held sessions from the same state directory (`--persist`), or its
    /// lock could not be taken; the message says which and what to do.
    StateDirBusy(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Bind { addr, error } => write!(f, "cannot listen on {addr}: {error}"),
            RunError::Serve(e) => write!(f, "server failed: {e}"),
            RunError::StateDirBusy(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for RunError {}

/// The warning printed on stderr when the relay serves plain HTTP on an address other than
/// loopback (`--allow-plain-http`).
pub fn exposure_warning(addr: SocketAddr) -> Option<String> {
    let ip = addr.ip();
    if ground::net::is_loopback(ip) {
        return None;
    }
    let port = addr.port();
    Some(format!(
        "wterm-relay: WARNING: listening on {addr}, which is not loopback: the page, its token \
         and a shell are served over plain HTTP to {}. Anyone on the path can read the token \
         and then type into your shell. Listen on 127.0.0.1 and reach it through an SSH tunnel \
         (ssh -L {port}:127.0.0.1:{port} HOST), or put a TLS reverse proxy (Caddy, nginx) and a \
         firewall in front.",
        if ip.is_unspecified() {
            "every network this host is on".to_owned()
        } else {
            format!("the network at {ip}")
        }
    ))
}

/// Runs the relay: binds `config.listen:config.port`, prints
/// `wterm-relay listening on http://ADDR:PORT/#token=TOKEN` (`https` with TLS) as one line on
/// stdout (ADDR is the
/// bound address, or when bound to all addresses, this host's address on the network; a
/// warning goes to stderr first when that is not loopback), serves until
/// `shutdown` resolves, then ends every session and waits (at most
/// [`SHUTDOWN_DRAIN`] after the sessions ended) for the sockets to close.
pub async fn run(
    config: Config,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), RunError> {
    // Two relays taking over the same holders would steal each other's shells (newcomer
    // report): with --persist the state directory is locked for the relay's lifetime.
    let _holders_lock = if config.persist {
        Some(session::holder::lock_holders(&config.state_dir).map_err(RunError::StateDirBusy)?)
    } else {
        None
    };
    let nofile = http::listener::raise_nofile_limit();
    for file in ground::config::remove_stale_temps(&config.state_dir) {
        tracing::info!(file = %file.display(), "removed a temporary file left by an interrupted write");
    }
    let addr = SocketAddr::new(config.listen, config.port);
    let listener = http::listener::bind(addr).map_err(|error| RunError::Bind { addr, error })?;
    let local = listener.local_addr().map_err(RunError::Serve)?;
    if !config.www_dir.join("index.html").is_file() {
        tracing::warn!(dir = %config.www_dir.display(), "no index.html in the page directory");
    }
    if !config.pkg_dir.is_dir() {
        tracing::warn!(dir = %config.pkg_dir.display(), "no wasm package directory; /pkg/ will 404");
    }
    tracing::info!(
        addr = %local,
        shell = %config.shell,
        token_source = ?config.token_source,
        state_dir = %config.state_dir.display(),
        "relay started"
    );
    // The page reads the fragment as form data: a token with `+`, `&` or `%` (all allowed)
    // must be encoded, or the printed URL carries another token (newcomer report).
    let token: String =
        form_urlencoded::byte_serialize(config.page_token.expose().as_bytes()).collect();
    let scheme = if config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    if let Some(warning) = exposure_warning(local).filter(|_| config.tls.is_none()) {
        let mut err = io::stderr().lock();
        let _ = writeln!(err, "{warning}");
        let _ = err.flush();
    }
    let page_url = format!("{scheme}://{}/", reachable(local));
    let url = format!("{page_url}#token={token}");
    let tls = config.tls.clone().map(tokio_rustls::TlsAcceptor::from);
    let state = AppState::new(
        config,
        local.port(),
        format!("{scheme}://{}", browsable(local)),
        page_url,
    );
    {
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "wterm-relay listening on {url}");
        let _ = out.flush();
    }

    let app = http::router(state.clone());
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let server = http::listener::serve(listener, tls, app, nofile, stop_rx);
    let mut server = tokio::spawn(server);
    tokio::select! {
        result = &mut server => {
            // The server stopped by itself: an accept loop error.
            state.registry.shutdown().await;
            return match result {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(RunError::Serve(e)),
                Err(e) => Err(RunError::Serve(io::Error::other(e))),
            };
        }
        () = shutdown => {}
    }
    tracing::info!("shutting down");
    let _ = stop_tx.send(true);
    state.mcp_shutdown.cancel();
    let drain = async {
        state.registry.shutdown().await;
        state.sockets.close();
        state.sockets.wait().await;
        let _ = server.await;
    };
    if tokio::time::timeout(SHUTDOWN_DRAIN + limits::KILL_GRACE, drain)
        .await
        .is_err()
    {
        tracing::warn!("shutdown drain timed out; exiting with connections open");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_not_exposed_anything_else_is() {
        for quiet in [
            "127.0.0.1:7681",
            "127.0.0.2:1",
            "[::1]:7681",
            "[::ffff:127.0.0.1]:80",
        ] {
            assert_eq!(exposure_warning(quiet.parse().unwrap()), None, "{quiet}");
        }
        let all = exposure_warning("0.0.0.0:7681".parse().unwrap()).unwrap();
        assert!(all.contains("0.0.0.0:7681"), "{all}");
        assert!(all.contains("plain HTTP") && all.contains("token"), "{all}");
        assert!(all.contains("ssh -L 7681:127.0.0.1:7681"), "{all}");
        let one = exposure_warning("192.168.1.5:80".parse().unwrap()).unwrap();
        assert!(one.contains("192.168.1.5:80"), "{one}");
        assert!(exposure_warning("[::]:80".parse().unwrap()).is_some());
    }
}

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
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

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
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Bind { addr, error } => write!(f, "cannot listen on {addr}: {error}"),
            RunError::Serve(e) => write!(f, "server failed: {e}"),
        }
    }
}

impl std::error::Error for RunError {}

/// The address for this host's own clients (the broker's `local_url`): the bound one, or
/// loopback when bound to all.
fn browsable(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, addr.port()).to_string()
}

/// The address to put in the printed URL: the bound one, or, when bound to all addresses, the
/// one this host reaches the network from (the source address of its route out; no packet is
/// sent), else loopback.
fn reachable(addr: SocketAddr) -> SocketAddr {
    let ip = match addr.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => {
            route_source("0.0.0.0:0", "192.0.2.1:9").unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
        }
        IpAddr::V6(v6) if v6.is_unspecified() => {
            route_source("[::]:0", "[2001:db8::1]:9").unwrap_or(IpAddr::V6(Ipv6Addr::LOCALHOST))
        }
        ip => ip,
    };
    SocketAddr::new(ip, addr.port())
}

/// The local address a UDP socket bound to `bind` gets when connected to `to` (a documentation
/// address: connecting a UDP socket only picks the route).
fn route_source(bind: &str, to: &str) -> Option<IpAddr> {
    let socket = std::net::UdpSocket::bind(bind).ok()?;
    socket.connect(to).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified()).then_some(ip)
}

/// The warning printed on stderr when the relay listens on an address other than loopback.
pub fn exposure_warning(addr: SocketAddr) -> Option<String> {
    let ip = addr.ip();
    let loopback = match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map_or(v6.is_loopback(), |v4| v4.is_loopback()),
        IpAddr::V4(v4) => v4.is_loopback(),
    };
    if loopback {
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
/// `wterm-relay listening on http://ADDR:PORT/#token=TOKEN` as one line on stdout (ADDR is the
/// bound address, or when bound to all addresses, this host's address on the network; a
/// warning goes to stderr first when that is not loopback), serves until
/// `shutdown` resolves, then ends every session and waits (at most
/// [`SHUTDOWN_DRAIN`] after the sessions ended) for the sockets to close.
pub async fn run(
    config: Config,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), RunError> {
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
    if let Some(warning) = exposure_warning(local) {
        let mut err = io::stderr().lock();
        let _ = writeln!(err, "{warning}");
        let _ = err.flush();
    }
    let page_url = format!("http://{}/", reachable(local));
    let url = format!("{page_url}#token={token}");
    let state = AppState::new(
        config,
        local.port(),
        format!("http://{}", browsable(local)),
        page_url,
    );
    {
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "wterm-relay listening on {url}");
        let _ = out.flush();
    }

    let app = http::router(state.clone());
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let server = http::listener::serve(listener, app, nofile, stop_rx);
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

    #[test]
    fn the_url_names_a_reachable_address() {
        let one: SocketAddr = "192.168.1.5:80".parse().unwrap();
        assert_eq!(reachable(one), one);
        let all = reachable("0.0.0.0:80".parse().unwrap());
        assert!(!all.ip().is_unspecified());
        assert_eq!(all.port(), 80);
    }
}

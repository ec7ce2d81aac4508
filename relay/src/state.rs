//! [`AppState`]: what the fronts share. Handlers take the narrow part they use through
//! axum's `FromRef` (`State<Arc<Broker>>` for the `/mcp/*` routes and the ladder).

use std::ops::Deref;
use std::sync::Arc;

use axum::extract::FromRef;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::broker::Broker;
use crate::ground::config::Config;
use crate::ground::program::Program;
use crate::session::registry::Registry;

/// The relay's shared state: a cheap-clone handle over [`Shared`].
#[derive(Debug, Clone)]
pub struct AppState(Arc<Shared>);

/// The fields behind [`AppState`].
#[derive(Debug)]
pub struct Shared {
    /// The resolved configuration (holds the page token).
    pub config: Config,
    /// The port actually bound (differs from `config.port` when that was 0); part of the
    /// relay's own origin, which `/ws` accepts.
    pub port: u16,
    /// The live sessions (the broker's windows are these).
    pub registry: Registry,
    /// MCP access: settings, window settings on disk, profiles, the operations.
    pub broker: Arc<Broker>,
    /// The websocket tasks, so shutdown can wait for their goodbyes.
    pub sockets: TaskTracker,
    /// Cancelled on shutdown: ends the MCP endpoint's sessions and open streams.
    pub mcp_shutdown: CancellationToken,
}

impl AppState {
    /// State for a relay bound to `port`; `local_url` is its base URL on loopback, `page_url`
    /// the page's URL as printed, without the token.
    pub fn new(config: Config, port: u16, local_url: String, page_url: String) -> Self {
        let shell = Program::shell(&config.shell).with_shell_integration(config.shell_integration);
        let registry = Registry::new(
            shell,
            Some(&config.state_dir),
            config.memory_budget,
            config.persist,
        );
        let broker = Arc::new(Broker::new(&config, local_url, page_url, registry.clone()));
        let adopted = broker.adopt_held_sessions();
        if adopted > 0 {
            tracing::info!(sessions = adopted, "sessions taken over from their holders");
        }
        AppState(Arc::new(Shared {
            config,
            port,
            registry,
            broker,
            sockets: TaskTracker::new(),
            mcp_shutdown: CancellationToken::new(),
        }))
    }
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl FromRef<AppState> for Arc<Broker> {
    fn from_ref(state: &AppState) -> Arc<Broker> {
        state.broker.clone()
    }
}

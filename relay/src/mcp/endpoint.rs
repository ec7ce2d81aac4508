//! The relay's own MCP endpoint: `/mcp`, rmcp's streamable-HTTP service mounted in axum over
//! the in-process backend ([`Local`]).
//!
//! In front of it, in this order: the ladder's [`ladder::gate`] (403 `mcp_disabled`, 400
//! `token_in_url`, 401 `auth_required`, 400 `bad_scope`, 403 `admin_required` for a wrong admin
//! header), then the `Origin` check the websocket uses (the relay's own origin or an
//! `--allow-origin`; no `Origin` = a non-browser client), both before any MCP message is read.
//! rmcp then checks `Host` against the addresses the relay serves (DNS-rebinding guard).

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::handles::Handles;
use super::local::Local;
use super::server::{Backend, McpServer};
use crate::ground::Refusal;
use crate::guard::checks::origin_allowed;
use crate::guard::ladder;
use crate::state::AppState;

/// The endpoint's path.
pub const PATH: &str = "/mcp";

/// The `Host` values the endpoint answers: loopback names and the listen address, with the
/// relay's port, and the hosts of `--allow-origin` entries.
fn allowed_hosts(state: &AppState) -> Vec<String> {
    let port = state.port;
    let mut hosts = vec![
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    match state.config.listen {
        IpAddr::V4(v4) if !v4.is_unspecified() => hosts.push(format!("{v4}:{port}")),
        IpAddr::V6(v6) if !v6.is_unspecified() => hosts.push(format!("[{v6}]:{port}")),
        _ => {}
    }
    for origin in &state.config.allow_origins {
        if let Some((_, authority)) = origin.split_once("://") {
            hosts.push(authority.to_owned());
        }
    }
    hosts
}

/// Refuses a browser request from a foreign origin (`403 bad_origin`).
async fn check_origin(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if !origin_allowed(req.headers(), state.port, &state.config.allow_origins) {
        tracing::warn!(
            path = req.uri().path(),
            "MCP request from a foreign origin refused"
        );
        return Refusal::BadOrigin.into_response();
    }
    next.run(req).await
}

/// The `/mcp` route: rmcp's service behind the gate and the origin check.
pub fn routes(state: AppState) -> Router<AppState> {
    let backend = Arc::new(Backend::Local(Local {
        broker: state.broker.clone(),
        handles: Handles::default(),
    }));
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts(&state))
        .with_max_request_body_bytes(crate::ground::limits::MAX_MCP_BODY_BYTES)
        .with_cancellation_token(state.mcp_shutdown.child_token());
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(backend.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Router::new()
        .route_service(PATH, service)
        .route_layer(middleware::from_fn_with_state(state.clone(), check_origin))
        .route_layer(middleware::from_fn_with_state(
            state.broker.clone(),
            ladder::gate,
        ))
}

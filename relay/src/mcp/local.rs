//! The relay's own MCP endpoint: `/mcp`, rmcp's streamable-HTTP service mounted in axum.
//!
//! In front of it, in this order: the ladder's [`ladder::gate`] (403 `mcp_disabled`, 400
//! `token_in_url`, 401 `auth_required`, 400 `bad_scope`, 403 `admin_required` for a wrong admin
//! header), then the `Origin` check the websocket uses (the relay's own origin or an
//! `--allow-origin`; no `Origin` = a non-browser client), both before any MCP message is read.
//! rmcp then checks `Host` against the addresses the relay serves (DNS-rebinding guard).
//!
//! The tools call the `broker::service` functions directly, with the [`Caller`] the gate put
//! in the request, through the same [`WindowRef::of`] steps 6-7 as the HTTP handlers.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{json, Value};

use super::{Backend, Handles, McpServer, ToolError};
use crate::auth::ladder::{self, WindowRef};
use crate::auth::Refusal;
use crate::broker::ops::Op;
use crate::broker::read::ReadArgs;
use crate::broker::service;
use crate::broker::window::Caller;
use crate::broker::Access;
use crate::http::ws::origin_allowed;
use crate::state::AppState;

/// The host name of the relay's own windows on its endpoint (ids are `"default:12"`).
pub const HOST: &str = "default";

/// The endpoint's path.
pub const PATH: &str = "/mcp";

/// The in-process backend.
#[derive(Debug)]
pub struct Local {
    state: AppState,
    /// Launch handles of this endpoint.
    pub handles: Handles,
}

/// The caller the gate established for this request.
pub fn caller(parts: Option<&Parts>) -> Option<Caller> {
    parts.and_then(|p| p.extensions.get::<Caller>().cloned())
}

impl Local {
    pub(super) async fn call(
        &self,
        parts: Option<&Parts>,
        op: Op,
        body: Value,
    ) -> Result<Value, ToolError> {
        let caller = caller(parts).ok_or(Refusal::AuthRequired)?;
        if op.admin_only() && !caller.admin {
            return Err(Refusal::AdminRequired.into());
        }
        let body = match body {
            Value::Null => Vec::new(),
            v => serde_json::to_vec(&v).unwrap_or_default(),
        };
        Ok(dispatch(&self.state, caller, op, &body).await?)
    }
}

/// `op` with the route body `body`, as `caller`: the service function its HTTP handler calls.
pub async fn dispatch(
    state: &AppState,
    caller: Caller,
    op: Op,
    body: &[u8],
) -> Result<Value, Refusal> {
    let window = |access| WindowRef::of(state, caller.clone(), access, body);
    Ok(match op {
        Op::Info => service::info(state, &caller),
        Op::Terminals => json!(service::terminals(state, &caller)),
        Op::Profiles => service::profiles(state),
        Op::Launch => service::launch(state, &caller, body).await?,
        Op::Window => service::edit_window(state, &caller, body).await?,
        Op::Knobs => service::knobs(state, body).await?,
        Op::Read => {
            let w = window(Access::Read)?;
            let args = ReadArgs::from_fields(&w.fields)?;
            json!(service::read(&w.window, &args).await)
        }
        Op::Input => {
            let w = window(Access::Write)?;
            let data = service::input_data(&w.fields)?;
            service::input(&w.window, data).await
        }
        Op::Keys => {
            let w = window(Access::Write)?;
            let args = service::keys_args(&w.fields)?;
            service::keys(&w.window, &args).await
        }
        Op::Reset => {
            let w = window(Access::Write)?;
            service::id_only(&w.fields)?;
            service::reset(&w.window)
        }
        Op::Flush => {
            let w = window(Access::Write)?;
            service::id_only(&w.fields)?;
            service::flush(&w.window)
        }
        Op::Pace => {
            let w = window(Access::Write)?;
            let ms = service::pace_arg(&w.fields)?;
            service::pace(&w.window, ms)
        }
    })
}

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
        state: state.clone(),
        handles: Handles::default(),
    }));
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts(&state))
        .with_max_request_body_bytes(crate::limits::MAX_MCP_BODY_BYTES)
        .with_cancellation_token(state.mcp_shutdown.child_token());
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(backend.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Router::new()
        .route_service(PATH, service)
        .route_layer(middleware::from_fn_with_state(state.clone(), check_origin))
        .route_layer(middleware::from_fn_with_state(state, ladder::gate))
}

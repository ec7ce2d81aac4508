//! The relay's own MCP endpoint: `/mcp`, rmcp's streamable-HTTP service mounted in axum over
//! the in-process backend ([`Local`]).
//!
//! In front of it, in this order: the ladder's [`ladder::gate`] (403 `mcp_disabled`, 400
//! `token_in_url`, 401 `auth_required`, 400 `bad_scope`, 403 `admin_required` for a wrong admin
//! header), then the `Origin` check the websocket uses (the relay's own origin or an
//! `--allow-origin`; no `Origin` = a non-browser client), both before any MCP message is read.
//! rmcp then checks `Host` against the addresses the relay serves (DNS-rebinding guard).
//!
//! Between those checks and rmcp, [`jsonrpc_front`] answers what rmcp answers off the
//! protocol (JSON-RPC 2.0 and the streamable HTTP transport): a body that is not JSON gets
//! `400` with the JSON-RPC error -32700 (rmcp: `415` text), a batch -32600, a request of a
//! session (or of revision 2026-07-28 and later, which have none) for a method this server
//! does not serve -32601 with a message naming those it does
//! (rmcp: the bare method name), a request of an older revision without a session -32600 saying
//! how to get one (rmcp: `400` plain text), `tools/call` whose `params` are not `{name, arguments?}` with
//! `arguments` an object -32602 (rmcp: -32601); `DELETE /mcp` of a live session answers `200`
//! with no body (rmcp: `202`), of an unknown one `404`. Everything else is rmcp's.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::handles::Handles;
use super::local::Local;
use super::server::{Backend, McpServer};
use crate::broker::window::Caller;
use crate::ground::net::reachable;
use crate::ground::Refusal;
use crate::guard::checks::origin_allowed;
use crate::guard::ladder;
use crate::state::AppState;

/// The endpoint's path.
pub const PATH: &str = "/mcp";

/// The `Host` values the endpoint answers: loopback names and the listen address (when bound
/// to all, the address the printed URL names), with the relay's port, and the hosts of
/// `--allow-origin` entries.
fn allowed_hosts(state: &AppState) -> Vec<String> {
    let port = state.port;
    let mut hosts = vec![
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    // Bound to all addresses: the one the printed URL names (remote clients use it).
    let listen = reachable(SocketAddr::new(state.config.listen, port));
    if !listen.ip().is_loopback() {
        hosts.push(listen.to_string());
    }
    for origin in &state.config.allow_origins {
        if let Some((_, authority)) = origin.split_once("://") {
            hosts.push(authority.to_owned());
        }
    }
    hosts
}

/// Refuses a browser request from a foreign origin (`403 bad_origin`), recorded in the audit
/// log with the caller the gate established.
async fn check_origin(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if !origin_allowed(
        req.headers(),
        state.config.tls.is_some(),
        state.port,
        &state.config.allow_origins,
    ) {
        tracing::warn!(
            path = req.uri().path(),
            "MCP request from a foreign origin refused"
        );
        let caller = req
            .extensions()
            .get::<Caller>()
            .cloned()
            .unwrap_or_default();
        state
            .broker
            .audit
            .refused_early(None, caller, &Refusal::BadOrigin);
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
    let sessions = Arc::new(LocalSessionManager::default());
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(backend.clone())),
        sessions.clone(),
        config,
    );
    Router::new()
        .route_service(PATH, service)
        .route_layer(middleware::from_fn_with_state(sessions, jsonrpc_front))
        .route_layer(middleware::from_fn_with_state(state.clone(), check_origin))
        .route_layer(middleware::from_fn_with_state(
            state.broker.clone(),
            ladder::gate,
        ))
}

/// The requests this server serves (and rmcp's own `server/discover`); any other request
/// method is answered -32601 with [`METHODS_ACCEPTED`].
const METHODS: [&str; 5] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "server/discover",
];

/// What the -32601 answer says is accepted.
pub const METHODS_ACCEPTED: &str = "this server accepts the requests initialize, ping, \
    tools/list and tools/call (tools only: no prompts, resources, completion or logging), \
    server/discover (revision 2026-07-28, which has no initialize), and the notifications \
    notifications/initialized and notifications/cancelled";

/// What the -32602 answer to a malformed `tools/call` says is accepted.
pub const TOOLS_CALL_PARAMS: &str = "tools/call takes params {\"name\": string, \
    \"arguments\": object (optional)}; tools/list gives each tool's input schema";

/// JSON-RPC error codes (JSON-RPC 2.0, section 5.1).
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
/// The code the MCP TypeScript SDK's server answers for an unknown session.
const SESSION_NOT_FOUND: i64 = -32001;

const SESSION_HEADER: &str = "mcp-session-id";

/// A JSON-RPC error response as an HTTP answer.
fn jsonrpc_error(status: StatusCode, id: serde_json::Value, code: i64, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    });
    (status, axum::Json(body)).into_response()
}

/// Whether the headers pass rmcp's own checks of a POST (it answers those itself): the client
/// accepts JSON and event streams, and sends JSON.
fn post_headers_ok(headers: &HeaderMap) -> bool {
    let accepts = |what: &str| {
        headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|t| {
                t.split(';')
                    .next()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case(what))
            })
    };
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    accepts("application/json") && accepts("text/event-stream") && json_body
}

/// Why `tools/call` params are refused, or `None` when they are `{name: string, arguments?:
/// object}`.
fn tools_call_params_fault(params: Option<&serde_json::Value>) -> Option<String> {
    let Some(serde_json::Value::Object(params)) = params else {
        return Some("params must be an object".to_owned());
    };
    if !params.get("name").is_some_and(serde_json::Value::is_string) {
        return Some("params.name must be the tool's name, a string".to_owned());
    }
    match params.get("arguments") {
        None | Some(serde_json::Value::Null | serde_json::Value::Object(_)) => None,
        Some(other) => Some(format!(
            "params.arguments must be an object, not {}",
            match other {
                serde_json::Value::Array(_) => "an array",
                serde_json::Value::String(_) => "a string",
                serde_json::Value::Number(_) => "a number",
                _ => "a boolean",
            }
        )),
    }
}

/// The JSON-RPC and transport answers rmcp gets wrong (see the module doc); the rest goes to
/// rmcp unchanged.
async fn jsonrpc_front(
    State(sessions): State<Arc<LocalSessionManager>>,
    req: Request,
    next: Next,
) -> Response {
    let session = req
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(|s| -> rmcp::transport::common::server_side_http::SessionId { s.to_owned().into() });
    let live = match &session {
        Some(id) => sessions.has_session(id).await.unwrap_or(false),
        None => false,
    };
    match *req.method() {
        Method::DELETE => {
            if session.is_some() && !live {
                return jsonrpc_error(
                    StatusCode::NOT_FOUND,
                    serde_json::Value::Null,
                    SESSION_NOT_FOUND,
                    "Session not found: it ended, or this server never made it",
                );
            }
            let resp = next.run(req).await;
            if resp.status() == StatusCode::ACCEPTED {
                // The session is closed: success, with no body.
                let mut ok = StatusCode::OK.into_response();
                ok.headers_mut()
                    .insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
                return ok;
            }
            resp
        }
        Method::POST if post_headers_ok(req.headers()) => {
            let (parts, body) = req.into_parts();
            let bytes =
                match axum::body::to_bytes(body, crate::ground::limits::MAX_MCP_BODY_BYTES).await {
                    Ok(b) => b,
                    Err(_) => {
                        return Refusal::TooLarge(format!(
                            "the body must be at most {} bytes",
                            crate::ground::limits::MAX_MCP_BODY_BYTES
                        ))
                        .into_response()
                    }
                };
            let message: serde_json::Value = match serde_json::from_slice(&bytes) {
                Ok(v) => v,
                Err(e) => {
                    return jsonrpc_error(
                        StatusCode::BAD_REQUEST,
                        serde_json::Value::Null,
                        PARSE_ERROR,
                        &format!(
                            "Parse error: the body is not JSON ({e}); send one JSON-RPC 2.0 \
                             message, a JSON object"
                        ),
                    );
                }
            };
            if message.is_array() {
                return jsonrpc_error(
                    StatusCode::BAD_REQUEST,
                    serde_json::Value::Null,
                    INVALID_REQUEST,
                    "Invalid Request: batches are not accepted; send one JSON-RPC 2.0 message \
                     per request",
                );
            }
            // A request of a live session, or one rmcp serves without a session (rmcp answers
            // the others about the session first).
            let id = message.get("id").filter(|id| !id.is_null()).cloned();
            let method = message.get("method").and_then(serde_json::Value::as_str);
            let served = live || (session.is_none() && sessionless(&message, &parts.headers));
            if let (Some(id), Some(method), None, false) = (&id, method, &session, served) {
                if method != "initialize" {
                    // rmcp: `400` with the plain text "Session ID is required".
                    return jsonrpc_error(
                        StatusCode::BAD_REQUEST,
                        id.clone(),
                        INVALID_REQUEST,
                        &format!(
                            "Invalid Request: {method} needs a session: send initialize first \
                             and then its Mcp-Session-Id header with every request, or use \
                             revision {SESSIONLESS_REVISION} (no session; the revision in \
                             MCP-Protocol-Version and in each request's \
                             _meta[\"io.modelcontextprotocol/protocolVersion\"])"
                        ),
                    );
                }
            }
            if let (Some(id), Some(method), true) = (id, method, served) {
                if !METHODS.contains(&method) {
                    return jsonrpc_error(
                        StatusCode::OK,
                        id,
                        METHOD_NOT_FOUND,
                        &format!("Method not found: {method}; {METHODS_ACCEPTED}"),
                    );
                }
                if method == "tools/call" {
                    if let Some(fault) = tools_call_params_fault(message.get("params")) {
                        return jsonrpc_error(
                            StatusCode::OK,
                            id,
                            INVALID_PARAMS,
                            &format!("Invalid params: {fault}; {TOOLS_CALL_PARAMS}"),
                        );
                    }
                }
            }
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        _ => next.run(req).await,
    }
}

/// The first protocol revision without sessions or `initialize` (SEP-2567).
const SESSIONLESS_REVISION: &str = "2026-07-28";

/// Whether rmcp serves `message` without a session, as it decides: a request other than
/// `initialize` of revision [`SESSIONLESS_REVISION`] or later, named in its
/// `_meta["io.modelcontextprotocol/protocolVersion"]` or else in `MCP-Protocol-Version`
/// (revisions are dates, so they compare as text).
fn sessionless(message: &serde_json::Value, headers: &HeaderMap) -> bool {
    if message.get("method").and_then(serde_json::Value::as_str) == Some("initialize") {
        return false;
    }
    let from_meta = message
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(serde_json::Value::as_str);
    let from_header = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok());
    from_meta
        .or(from_header)
        .is_some_and(|v| v >= SESSIONLESS_REVISION)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_call_params() {
        assert_eq!(tools_call_params_fault(Some(&json!({"name": "x"}))), None);
        assert_eq!(
            tools_call_params_fault(Some(&json!({"name": "x", "arguments": null}))),
            None
        );
        assert_eq!(
            tools_call_params_fault(Some(&json!({"name": "x", "arguments": {}}))),
            None
        );
        for bad in [
            json!({"name": "x", "arguments": 5}),
            json!({"name": "x", "arguments": [1]}),
            json!({"name": "x", "arguments": "a"}),
            json!({"arguments": {}}),
            json!([1]),
        ] {
            assert!(tools_call_params_fault(Some(&bad)).is_some(), "{bad}");
        }
        assert!(tools_call_params_fault(None).is_some());
    }
}

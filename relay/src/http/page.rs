//! The page-token realm: `GET /info`, `GET /sessions`, `POST /sessions`, and the MCP settings
//! a person changes from the page: `GET/POST /mcp/config`, `POST /session/mcp` (see
//! `broker::service::{config, update_config, session_mcp}`).
//!
//! Every route here needs `Authorization: Bearer PAGE_TOKEN`, else `401 auth_required`. The
//! check is a `route_layer`, so an unknown path stays a 404.

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::header;
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use wterm_core::Size;

use crate::broker::page;
use crate::ground::limits::{DIMS, MAX_BODY_BYTES, SESSION_HANGUP_WAIT};
use crate::ground::Refusal;
use crate::guard::checks::{bearer, peer};
use crate::session::registry::CreateError;
use crate::session::SessionInfo;
use crate::state::AppState;

/// The page realm's routes, behind the page token.
pub fn routes(state: AppState) -> Router<AppState> {
    Router::new()
        .route("/info", get(info))
        .route("/sessions", get(list).post(create))
        .route("/sessions/{id}", axum::routing::delete(end))
        .route("/mcp/config", get(mcp_config).post(update_mcp_config))
        .route("/session/mcp", axum::routing::post(session_mcp))
        .route("/session/audit", get(session_audit))
        .route_layer(middleware::from_fn_with_state(state, require_page_token))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
}

async fn require_page_token(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Result<Response, Refusal> {
    let mut values = req.headers().get_all(header::AUTHORIZATION).iter();
    let ok = match (values.next(), values.next()) {
        (Some(v), None) => bearer(v.as_bytes()).is_some_and(|t| state.config.page_token.matches(t)),
        _ => false,
    };
    if !ok {
        tracing::warn!(path = req.uri().path(), peer = ?peer(&req), "page token refused");
        return Err(Refusal::AuthRequired);
    }
    Ok(next.run(req).await)
}

/// `GET /info` → `{ok: true, version, memory: {budget_bytes, reserved_bytes}}` (the
/// sessions' memory budget, `--memory-budget-mib`, and what the live terminals count against
/// it).
async fn info(State(state): State<AppState>) -> Json<Value> {
    let (budget, reserved) = state.registry.memory();
    Json(json!({
        "ok": true,
        "version": env!("CARGO_PKG_VERSION"),
        "memory": { "budget_bytes": budget, "reserved_bytes": reserved },
    }))
}

/// `GET /sessions` → `[{id, title, cols, rows, pid}]`, by id.
async fn list(State(state): State<AppState>) -> Json<Vec<SessionInfo>> {
    Json(state.registry.list())
}

/// `POST /sessions`, body empty or `{cols?, rows?}` (each 1..1000, default 80×24) →
/// `{id}`. Errors: `400 bad_json`, `400 bad_dims`, `429 too_many_sessions`,
/// `500 spawn_failed`.
async fn create(State(state): State<AppState>, body: Bytes) -> Result<Json<Value>, Refusal> {
    let size = parse_create_body(&body)?;
    match state.broker.create_page_session(size) {
        Ok(session) => Ok(Json(json!({ "id": session.id() }))),
        Err(CreateError::TooMany) => Err(Refusal::TooManySessions),
        Err(CreateError::OverBudget(e)) => Err(Refusal::MemoryBudget(e.to_string())),
        Err(e @ CreateError::Spawn(_)) => {
            tracing::error!(error = %e, "session not created");
            Err(Refusal::SpawnFailed)
        }
    }
}

/// `DELETE /sessions/{id}`: ends session `id`: SIGHUP to its process, as closing a terminal
/// window does, then SIGKILL to its process group when it is still running after
/// [`SESSION_HANGUP_WAIT`] (a program that ignores SIGHUP must not outlive the End button).
/// Answers `204` once it has ended; the session's pages get its exit as usual. Errors: `404
/// unknown_session` (no such live session, or an id that is not all digits).
async fn end(State(state): State<AppState>, Path(id): Path<String>) -> Result<StatusCode, Refusal> {
    let session = crate::session::parse_id(&id)
        .and_then(|id| state.registry.get(id))
        .ok_or(Refusal::UnknownSession)?;
    tracing::info!(session = session.id(), "session ended from the page");
    session.hangup();
    if tokio::time::timeout(SESSION_HANGUP_WAIT, session.wait_ended())
        .await
        .is_err()
    {
        tracing::warn!(
            session = session.id(),
            "still running after SIGHUP; sending SIGKILL"
        );
        if let Some(pid) = session.pid() {
            crate::session::pty::hard_kill(pid);
        }
        session.wait_ended().await;
    }
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /mcp/config`: the MCP settings, tokens included (for the page's settings panel).
async fn mcp_config(State(state): State<AppState>) -> Json<Value> {
    Json(page::config(&state.broker))
}

/// `POST /mcp/config`: a partial update of the MCP settings; answers as `GET`.
async fn update_mcp_config(
    State(state): State<AppState>,
    body: Bytes,
) -> Result<Json<Value>, Refusal> {
    page::update_config(&state.broker, &body).await.map(Json)
}

/// `GET /session/audit?window=&since=&since_ms=&limit=` (page token): the audit log as
/// `GET /mcp/audit` answers it, for the person at the page (the page panel's "Agent log").
async fn session_audit(
    State(state): State<AppState>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> Result<Json<Value>, Refusal> {
    let fields = crate::ground::fields::query(query.as_deref().unwrap_or(""))?;
    let q = crate::broker::ops::audit::AuditQuery::from_fields(&fields)?;
    q.answer(&state.broker).await.map(Json)
}

/// `POST /session/mcp`: this window's mode and scope, set from the page.
async fn session_mcp(State(state): State<AppState>, body: Bytes) -> Result<Json<Value>, Refusal> {
    page::session_mcp(&state.broker, &body).await.map(Json)
}

/// The size asked for by a `POST /sessions` body.
fn parse_create_body(body: &[u8]) -> Result<Size, Refusal> {
    let mut size = Size::default();
    if body.trim_ascii().is_empty() {
        return Ok(size);
    }
    let value: Value = serde_json::from_slice(body).map_err(|_| Refusal::BadJson)?;
    let obj = value.as_object().ok_or(Refusal::BadJson)?;
    let dim = |key: &str, default: u16| match obj.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .filter(|n| DIMS.contains(n))
            .ok_or(Refusal::BadDims),
    };
    size.cols = dim("cols", size.cols)?;
    size.rows = dim("rows", size.rows)?;
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_body() {
        assert_eq!(parse_create_body(b""), Ok(Size::new(24, 80)));
        assert_eq!(parse_create_body(b"{}"), Ok(Size::new(24, 80)));
        assert_eq!(
            parse_create_body(br#"{"cols":120,"rows":40}"#),
            Ok(Size::new(40, 120))
        );
        assert_eq!(
            parse_create_body(br#"{"cols":1000,"rows":1}"#),
            Ok(Size::new(1, 1000))
        );
        assert_eq!(parse_create_body(br#"{"cols":0}"#), Err(Refusal::BadDims));
        assert_eq!(
            parse_create_body(br#"{"rows":1001}"#),
            Err(Refusal::BadDims)
        );
        assert_eq!(parse_create_body(br#"{"rows":2.5}"#), Err(Refusal::BadDims));
        assert_eq!(
            parse_create_body(br#"{"rows":"24"}"#),
            Err(Refusal::BadDims)
        );
        assert_eq!(parse_create_body(b"[1]"), Err(Refusal::BadJson));
        assert_eq!(parse_create_body(b"{"), Err(Refusal::BadJson));
    }
}

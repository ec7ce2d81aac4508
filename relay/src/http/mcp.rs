//! The `/mcp/*` data realm: one route per [`Op`] of [`Op::ALL`], each the same handler (body →
//! [`Op::call`] → JSON), behind the ladder ([`ladder::gate`] as a `route_layer`). Every answer
//! carries `Vary: X-Browserland-Scope`, the refusals too.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderValue};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::broker::ops::{Method, Op};
use crate::broker::window::Caller;
use crate::broker::Broker;
use crate::ground::Refusal;
use crate::guard::ladder::{self, McpBody};
use crate::state::AppState;

/// The route of `op`: its method, and the one handler bound to `op`.
fn route(op: Op) -> MethodRouter<AppState> {
    match op.method() {
        // A GET's body is not read; its fields are its query (credentials there were refused
        // by the ladder).
        Method::Get => get(
            move |State(broker): State<Arc<Broker>>, caller: Caller, RawQuery(query): RawQuery| async move {
                answer(op, &broker, &caller, query.as_deref(), b"").await
            },
        ),
        Method::Post => post(
            move |State(broker): State<Arc<Broker>>, caller: Caller, McpBody(body): McpBody| async move {
                answer(op, &broker, &caller, None, &body).await
            },
        ),
    }
}

/// `op` on a route's query and body: its answer as `application/json`, or its refusal.
async fn answer(
    op: Op,
    broker: &Broker,
    caller: &Caller,
    query: Option<&str>,
    body: &[u8],
) -> Result<Response, Refusal> {
    let reply = op
        .call(broker, caller, op.request_fields(query, body))
        .await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        reply.to_bytes(),
    )
        .into_response())
}

/// The realm's router: every operation of [`Op::ALL`], behind the ladder.
pub fn routes(state: AppState) -> Router<AppState> {
    Op::ALL
        .into_iter()
        .fold(Router::new(), |r, op| r.route(op.path(), route(op)))
        .route_layer(middleware::from_fn_with_state(
            state.broker.clone(),
            ladder::gate,
        ))
        .layer(SetResponseHeaderLayer::appending(
            header::VARY,
            HeaderValue::from_static("X-Browserland-Scope"),
        ))
}

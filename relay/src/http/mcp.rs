//! The `/mcp/*` data realm: one route per [`Op`] of [`Op::ALL`], each the same handler (body →
//! [`Op::call`] → JSON), behind the ladder ([`ladder::gate`] as a `route_layer`). Every answer
//! carries `Vary: X-Browserland-Scope`, the refusals too.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderValue};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use bytes::Bytes;
use hyper::body::{Frame, SizeHint};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::broker::ops::{Method, Op, Reply};
use crate::broker::window::Caller;
use crate::broker::Broker;
use crate::ground::limits::ANSWER_FRAME_BYTES;
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
    let bytes = Bytes::from(reply.to_bytes());
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        Body::new(ReplyBody {
            bytes,
            _reply: reply,
        }),
    )
        .into_response())
}

/// An answer's JSON in frames of at most [`ANSWER_FRAME_BYTES`], holding the answer until
/// hyper has taken the last frame: hyper buffers a few frames ahead of the socket, so what a
/// large read holds under the bound on reads in flight (`broker::reads`) is given back only
/// when its answer is nearly all sent, not when it was serialised.
struct ReplyBody {
    bytes: Bytes,
    _reply: Box<dyn Reply>,
}

impl hyper::body::Body for ReplyBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.bytes.is_empty() {
            return Poll::Ready(None);
        }
        let n = self.bytes.len().min(ANSWER_FRAME_BYTES);
        Poll::Ready(Some(Ok(Frame::data(self.bytes.split_to(n)))))
    }

    fn is_end_stream(&self) -> bool {
        self.bytes.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.bytes.len() as u64)
    }
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

//! The `/mcp/*` data realm: one route per [`Op`], built from [`Op::ALL`], behind the ladder
//! ([`ladder::gate`] as a `route_layer`, then [`WindowRef`] for the routes that name a
//! window). Every answer carries `Vary: X-Browserland-Scope`, the refusals too.
//!
//! The handlers only parse and serialize; the work is in `broker::service`.

use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::{Json, Router};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::auth::ladder::{self, McpBody, WindowRef};
use crate::auth::Refusal;
use crate::broker::ops::Op;
use crate::broker::read::ReadArgs;
use crate::broker::service;
use crate::broker::window::Caller;
use crate::state::AppState;

/// The route of `op`: its method and handler.
fn route(op: Op) -> MethodRouter<AppState> {
    match op {
        Op::Info => get(info),
        Op::Terminals => get(terminals),
        Op::Read => post(read),
        Op::Input => post(input),
        Op::Keys => post(keys),
        Op::Reset => post(reset),
        Op::Flush => post(flush),
        Op::Pace => post(pace),
        Op::Profiles => get(profiles),
        Op::Launch => post(launch),
        Op::Window => post(window),
        Op::Knobs => post(knobs),
    }
}

/// The realm's router: every operation of [`Op::ALL`], behind the ladder.
pub fn routes(state: AppState) -> Router<AppState> {
    Op::ALL
        .into_iter()
        .fold(Router::new(), |r, op| r.route(op.path(), route(op)))
        .route_layer(middleware::from_fn_with_state(state, ladder::gate))
        .layer(SetResponseHeaderLayer::appending(
            header::VARY,
            HeaderValue::from_static("X-Browserland-Scope"),
        ))
}

async fn info(State(state): State<AppState>, caller: Caller) -> Response {
    Json(service::info(&state, &caller)).into_response()
}

async fn terminals(State(state): State<AppState>, caller: Caller) -> Response {
    Json(service::terminals(&state, &caller)).into_response()
}

async fn profiles(State(state): State<AppState>) -> Response {
    Json(service::profiles(&state)).into_response()
}

async fn read(w: WindowRef) -> Result<Response, Refusal> {
    let args = ReadArgs::from_fields(&w.fields)?;
    Ok(Json(service::read(&w.window, &args).await).into_response())
}

async fn input(w: WindowRef) -> Result<Response, Refusal> {
    let data = service::input_data(&w.fields)?;
    Ok(Json(service::input(&w.window, data).await).into_response())
}

async fn keys(w: WindowRef) -> Result<Response, Refusal> {
    let args = service::keys_args(&w.fields)?;
    Ok(Json(service::keys(&w.window, &args).await).into_response())
}

async fn reset(w: WindowRef) -> Result<Response, Refusal> {
    service::id_only(&w.fields)?;
    Ok(Json(service::reset(&w.window)).into_response())
}

async fn flush(w: WindowRef) -> Result<Response, Refusal> {
    service::id_only(&w.fields)?;
    Ok(Json(service::flush(&w.window)).into_response())
}

async fn pace(w: WindowRef) -> Result<Response, Refusal> {
    let ms = service::pace_arg(&w.fields)?;
    Ok(Json(service::pace(&w.window, ms)).into_response())
}

async fn launch(
    State(state): State<AppState>,
    caller: Caller,
    McpBody(body): McpBody,
) -> Result<Response, Refusal> {
    Ok(Json(service::launch(&state, &caller, &body).await?).into_response())
}

async fn window(
    State(state): State<AppState>,
    caller: Caller,
    McpBody(body): McpBody,
) -> Result<Response, Refusal> {
    Ok(Json(service::edit_window(&state, &caller, &body).await?).into_response())
}

async fn knobs(State(state): State<AppState>, McpBody(body): McpBody) -> Result<Response, Refusal> {
    Ok(Json(service::knobs(&state, &body).await?).into_response())
}

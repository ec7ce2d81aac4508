//! [`router()`]: one router per realm, merged, then the cross-cutting layers, in one place.
//!
//! | route | realm |
//! |---|---|
//! | `GET /info`, `GET /sessions`, `POST /sessions`, `GET/POST /mcp/config`, `POST /session/mcp` | page token, `Authorization: Bearer` ([`page`]) |
//! | `/mcp` (MCP streamable HTTP, [`crate::mcp::endpoint`]) | MCP token, the same ladder, Origin and Host checks |
//! | `/mcp/*` data routes ([`crate::broker::ops::Op`]) | MCP token, behind the refusal ladder ([`mcp`]) |
//! | `GET /ws?session=ID` | Origin check, page token as a subprotocol ([`ws`]) |
//! | `/pkg/*` | the wasm package, static |
//! | everything else | the page's directory, static (`/` is `index.html`) |
//!
//! Every route refuses a credential in the query string with `400 token_in_url`; on the `/mcp/*`
//! data routes that is step 2 of their ladder (after `mcp_disabled`), elsewhere a layer of its
//! own. `OPTIONS` on any path is a CORS preflight: `204` with the CORS headers, no auth. Answers
//! to an allowed `Origin` (the relay's own or an `--allow-origin`) carry
//! `Access-Control-Allow-Origin`; other origins get none, so their pages cannot read answers.

pub mod listener;
pub mod mcp;
pub mod page;
pub mod ws;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use crate::ground::Refusal;
use crate::guard::checks::{has_credential_in_query, origin_allowed, peer};
use crate::state::AppState;

/// The Content-Security-Policy of the page and its package. The page drives a real shell, so
/// only its own scripts run (`'wasm-unsafe-eval'` lets them compile the wasm), it talks only to
/// its own origin (the websocket included: CSP 3 `'self'` covers `ws:` to the same host), and
/// no other site may frame it, where a click could land in the terminal. Inline styles are
/// allowed: the page has one `<style>` and the renderer writes `style` attributes.
pub const PAGE_CSP: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
    base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `Origin-Agent-Cluster: ?1` on the page and its package: the WebMCP draft lets a document
/// register tools only when its agent cluster is origin-keyed; Chromium keys by default, other
/// engines need this header.
pub const ORIGIN_AGENT_CLUSTER: &str = "?1";

/// `Strict-Transport-Security` with `--hsts` (TLS only): one year, this host only.
pub const HSTS: &str = "max-age=31536000";

/// The relay's HTTP service.
pub fn router(state: AppState) -> Router {
    let statics = Router::new()
        .nest_service("/pkg", ServeDir::new(&state.config.pkg_dir))
        .fallback_service(ServeDir::new(&state.config.www_dir))
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-cache"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(PAGE_CSP),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::HeaderName::from_static("origin-agent-cluster"),
            HeaderValue::from_static(ORIGIN_AGENT_CLUSTER),
        ));
    let others = Router::new()
        .merge(page::routes(state.clone()))
        .route("/ws", get(ws::upgrade))
        .merge(statics)
        .layer(middleware::from_fn(refuse_token_in_url));
    let hsts = state.config.hsts.then(|| {
        SetResponseHeaderLayer::overriding(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(HSTS),
        )
    });
    Router::new()
        .merge(mcp::routes(state.clone()))
        .merge(crate::mcp::endpoint::routes(state.clone()))
        .merge(others)
        .layer(middleware::from_fn_with_state(state.clone(), cors))
        .layer(tower::util::option_layer(hsts))
        .layer(TraceLayer::new_for_http().make_span_with(|req: &Request| {
            // Method and route template only: never the query string or headers.
            let route = req
                .extensions()
                .get::<MatchedPath>()
                .map(MatchedPath::as_str);
            tracing::debug_span!("http", method = %req.method(), route)
        }))
        .with_state(state)
}

async fn refuse_token_in_url(req: Request, next: Next) -> Response {
    if req.uri().query().is_some_and(has_credential_in_query) {
        tracing::warn!(path = req.uri().path(), peer = ?peer(&req), "credential in a URL query refused");
        return Refusal::TokenInUrl.into_response();
    }
    next.run(req).await
}

/// The request headers a cross-origin client may send.
const CORS_ALLOW_HEADERS: &str =
    "Authorization, Content-Type, X-Browserland-Scope, X-Browserland-Mcp-Admin";

/// How long a browser may cache a preflight answer, in seconds.
const CORS_MAX_AGE_SECS: &str = "600";

/// CORS: answers every `OPTIONS` as a preflight (204, no auth), and names an allowed `Origin`
/// in every answer.
async fn cors(State(state): State<crate::state::AppState>, req: Request, next: Next) -> Response {
    let allowed = req
        .headers()
        .get(header::ORIGIN)
        .filter(|_| {
            origin_allowed(
                req.headers(),
                state.config.tls.is_some(),
                state.port,
                &state.config.allow_origins,
            )
        })
        .cloned();
    let mut resp = if req.method() == Method::OPTIONS {
        let mut resp = StatusCode::NO_CONTENT.into_response();
        let h = resp.headers_mut();
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, OPTIONS"),
        );
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(CORS_ALLOW_HEADERS),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static(CORS_MAX_AGE_SECS),
        );
        resp
    } else {
        next.run(req).await
    };
    let h = resp.headers_mut();
    h.append(header::VARY, HeaderValue::from_static("Origin"));
    if let Some(origin) = allowed {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    resp
}

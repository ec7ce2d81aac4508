//! [`router()`]: one router per realm, merged, then the cross-cutting layers, in one place.
//!
//! | route | realm |
//! |---|---|
//! | `GET /info`, `GET /sessions`, `POST /sessions` | page token, `Authorization: Bearer` ([`page`]) |
//! | `GET /ws?session=ID` | Origin check, page token as a subprotocol ([`ws`]) |
//! | `/pkg/*` | the wasm package, static |
//! | everything else | the page's directory, static (`/` is `index.html`) |
//!
//! Every route refuses a credential in the query string with `400 token_in_url`.

pub mod page;
pub mod ws;

use axum::extract::{ConnectInfo, MatchedPath, Request};
use axum::http::{header, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::net::SocketAddr;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use crate::auth::Refusal;
use crate::state::AppState;

/// Query keys that carry a credential; never accepted in a URL (broker contract, "Secrets and
/// realms").
pub const CREDENTIAL_QUERY_KEYS: [&str; 3] = ["token", "auth", "admin_token"];

/// The relay's HTTP service.
pub fn router(state: AppState) -> Router {
    let statics = Router::new()
        .nest_service("/pkg", ServeDir::new(&state.config.pkg_dir))
        .fallback_service(ServeDir::new(&state.config.www_dir))
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-cache"),
        ));
    Router::new()
        .merge(page::routes(state.clone()))
        .route("/ws", get(ws::upgrade))
        .merge(statics)
        .layer(middleware::from_fn(refuse_token_in_url))
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

/// Whether a query string names a credential key (keys are percent-decoded first).
pub fn has_credential_in_query(query: &str) -> bool {
    form_urlencoded::parse(query.as_bytes()).any(|(k, _)| {
        CREDENTIAL_QUERY_KEYS
            .iter()
            .any(|c| k.eq_ignore_ascii_case(c))
    })
}

async fn refuse_token_in_url(req: Request, next: Next) -> Response {
    if req.uri().query().is_some_and(has_credential_in_query) {
        tracing::warn!(path = req.uri().path(), peer = ?peer(&req), "credential in a URL query refused");
        return Refusal::TokenInUrl.into_response();
    }
    next.run(req).await
}

/// The peer address, when the server recorded it.
pub fn peer<B>(req: &axum::http::Request<B>) -> Option<SocketAddr> {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_keys_are_found_in_any_spelling() {
        assert!(has_credential_in_query("token=x"));
        assert!(has_credential_in_query("session=1&auth="));
        assert!(has_credential_in_query("admin_token"));
        assert!(has_credential_in_query("tok%65n=x"));
        assert!(has_credential_in_query("TOKEN=x"));
        assert!(!has_credential_in_query("session=1"));
        assert!(!has_credential_in_query("tokens=1&x=token"));
        assert!(!has_credential_in_query(""));
    }
}

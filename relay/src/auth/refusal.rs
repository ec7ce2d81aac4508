//! [`Refusal`]: every error a route answers, as status + `{"error": CODE}`. The only error
//! type with `IntoResponse`; codes exist here once and nowhere else as string literals.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// A refused request (broker contract: error bodies are `{"error": CODE}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `400 token_in_url`: a credential in the query string (`token`, `auth`, `admin_token`).
    TokenInUrl,
    /// `401 auth_required`: the page token is missing or wrong.
    AuthRequired,
    /// `400 bad_json`: the body is not a JSON object of the expected shape.
    BadJson,
    /// `400 bad_dims`: `cols` or `rows` outside 1..1000.
    BadDims,
    /// `403 bad_origin`: a websocket upgrade from an origin that is neither the relay's own nor
    /// allowed with `--allow-origin` (a page on another site must not open a shell).
    BadOrigin,
    /// `404 unknown_session`: no live session has that id (on `/ws`: close code 4404).
    UnknownSession,
    /// `429 too_many_sessions`: the relay already runs [`crate::limits::MAX_SESSIONS`].
    TooManySessions,
    /// `500 spawn_failed`: the shell could not be started in a new PTY.
    SpawnFailed,
}

impl Refusal {
    /// The HTTP status.
    pub fn status(self) -> StatusCode {
        match self {
            Refusal::TokenInUrl | Refusal::BadJson | Refusal::BadDims => StatusCode::BAD_REQUEST,
            Refusal::AuthRequired => StatusCode::UNAUTHORIZED,
            Refusal::BadOrigin => StatusCode::FORBIDDEN,
            Refusal::UnknownSession => StatusCode::NOT_FOUND,
            Refusal::TooManySessions => StatusCode::TOO_MANY_REQUESTS,
            Refusal::SpawnFailed => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The wire code, the `error` field of the body.
    pub fn code(self) -> &'static str {
        match self {
            Refusal::TokenInUrl => "token_in_url",
            Refusal::AuthRequired => "auth_required",
            Refusal::BadJson => "bad_json",
            Refusal::BadDims => "bad_dims",
            Refusal::UnknownSession => "unknown_session",
            Refusal::BadOrigin => "bad_origin",
            Refusal::TooManySessions => "too_many_sessions",
            Refusal::SpawnFailed => "spawn_failed",
        }
    }

    /// The websocket close code used when this refusal happens after an upgrade (a browser
    /// cannot read the status of a refused upgrade): 4000 + the HTTP status, except a failed
    /// spawn, which is the standard 1011 (internal error).
    pub fn close_code(self) -> u16 {
        match self {
            Refusal::SpawnFailed => 1011,
            _ => 4000 + self.status().as_u16(),
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (
            self.status(),
            Json(serde_json::json!({ "error": self.code() })),
        )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_codes_follow_the_spec() {
        assert_eq!(Refusal::AuthRequired.close_code(), 4401);
        assert_eq!(Refusal::UnknownSession.close_code(), 4404);
        assert_eq!(Refusal::TooManySessions.close_code(), 4429);
    }
}

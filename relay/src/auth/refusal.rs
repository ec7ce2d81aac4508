//! [`Refusal`]: every error a route answers, as status + `{"error": CODE}` (+ `"detail"`). The
//! only error type with `IntoResponse`; codes exist here once and nowhere else as string
//! literals.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// A refused request (broker contract: error bodies are `{"error": CODE}` plus an optional
/// `"detail"` string). Variants that carry a `String` put it in `detail`: it says what was
/// wrong and what is accepted, and never holds a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `400 token_in_url`: a credential in the query string (`token`, `auth`, `admin_token`).
    TokenInUrl,
    /// `401 auth_required`: the page token (page realm) or the MCP token (`/mcp/*`) is missing
    /// or wrong.
    AuthRequired,
    /// `400 bad_json`: the body is not a JSON object.
    BadJson,
    /// `400 bad_request`: a field has the wrong type or value (the detail names it).
    BadRequest(String),
    /// `400 bad_dims`: `cols` or `rows` outside 1..1000.
    BadDims,
    /// `403 bad_origin`: a websocket upgrade from an origin that is neither the relay's own nor
    /// allowed with `--allow-origin` (a page on another site must not open a shell).
    BadOrigin,
    /// `404 unknown_session`: no live session has that id (on `/ws`: close code 4404).
    UnknownSession,
    /// `429 too_many_sessions`: the relay already runs [`crate::limits::MAX_SESSIONS`].
    TooManySessions,
    /// `500 spawn_failed`: the program could not be started in a new PTY.
    SpawnFailed,
    /// `403 mcp_disabled`: MCP access is switched off, or no MCP token is configured (ladder
    /// step 1).
    McpDisabled,
    /// `400 bad_scope`: `X-Browserland-Scope` (or a `scope` field) fails the grammar
    /// `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`, or the header was sent more than once (step 4).
    BadScope,
    /// `403 admin_required`: a wrong admin credential, or an admin-only operation without one
    /// (step 5); on `/mcp/window`, neither the window's launch handle nor the admin credential.
    AdminRequired,
    /// `400 bad_id`: `id` missing, or not a non-negative integer (step 6).
    BadId,
    /// `404 unknown_or_off`: no such window, its mode is `off`, or it is outside the caller's
    /// scope (step 6). Built only by [`crate::auth::ladder::unknown_or_off`], so the answer is
    /// byte-identical in all three cases.
    UnknownOrOff,
    /// `403 read_only`: a write to a window whose mode is not `readwrite` (step 7).
    ReadOnly,
    /// `400 bad_data`: `/mcp/input` `data` is not a string.
    BadData,
    /// `413 too_large`: over [`crate::limits::MAX_INPUT_BYTES`] (or another size limit, named
    /// in the detail); nothing was sent.
    TooLarge(String),
    /// `400 bad_keys` (ext): `/mcp/keys` `keys` is not a list of strings, or a token is not in
    /// the key grammar (the detail names it); nothing was sent.
    BadKeys(String),
    /// `400 conflicting_wait`: more than one of `wait_for_change`, `wait_for_text`,
    /// `wait_for_regex`, `wait_for_idle`.
    ConflictingWait,
    /// `400 bad_regex`: `wait_for_regex` does not compile (the detail says why).
    BadRegex(String),
    /// `400 bad_pace`: `pace_ms` is not a number.
    BadPace,
    /// `400 bad_mode`: a mode other than `off`, `read`, `readwrite`.
    BadMode,
    /// `400 bad_cwd`: a launch `cwd` that is not an absolute path of an existing entry.
    BadCwd,
    /// `400 cwd_not_dir`: a launch `cwd` that exists but is not a directory.
    CwdNotDir,
    /// `400 unknown_profile`: no profile of that name in the relay's configuration.
    UnknownProfile,
    /// `403 launch_disabled`: launching is switched off (`allow_launch:false`).
    LaunchDisabled,
    /// `403 terminals_disabled` (ext): the relay was started with `--no-terminals`.
    TerminalsDisabled,
    /// `429 too_many_pending_launches`: [`crate::limits::MAX_PENDING_LAUNCHES`] launches are in
    /// progress.
    TooManyPendingLaunches,
    /// `409 token_env_pinned` (ext): `/mcp/config` asked to change a token that the environment
    /// sets (`WEB_TERMINAL_MCP_TOKEN` / `WEB_TERMINAL_MCP_ADMIN_TOKEN`).
    TokenEnvPinned,
    /// `500 persist_failed` (ext): the state file could not be written; nothing was changed.
    PersistFailed,
}

impl Refusal {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        use Refusal::*;
        match self {
            TokenInUrl | BadJson | BadRequest(_) | BadDims | BadScope | BadId | BadData
            | BadKeys(_) | ConflictingWait | BadRegex(_) | BadPace | BadMode | BadCwd
            | CwdNotDir | UnknownProfile => StatusCode::BAD_REQUEST,
            AuthRequired => StatusCode::UNAUTHORIZED,
            BadOrigin | McpDisabled | AdminRequired | ReadOnly | LaunchDisabled
            | TerminalsDisabled => StatusCode::FORBIDDEN,
            UnknownSession | UnknownOrOff => StatusCode::NOT_FOUND,
            TokenEnvPinned => StatusCode::CONFLICT,
            TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            TooManySessions | TooManyPendingLaunches => StatusCode::TOO_MANY_REQUESTS,
            SpawnFailed | PersistFailed => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The wire code, the `error` field of the body.
    pub fn code(&self) -> &'static str {
        use Refusal::*;
        match self {
            TokenInUrl => "token_in_url",
            AuthRequired => "auth_required",
            BadJson => "bad_json",
            BadRequest(_) => "bad_request",
            BadDims => "bad_dims",
            UnknownSession => "unknown_session",
            BadOrigin => "bad_origin",
            TooManySessions => "too_many_sessions",
            SpawnFailed => "spawn_failed",
            McpDisabled => "mcp_disabled",
            BadScope => "bad_scope",
            AdminRequired => "admin_required",
            BadId => "bad_id",
            UnknownOrOff => "unknown_or_off",
            ReadOnly => "read_only",
            BadData => "bad_data",
            TooLarge(_) => "too_large",
            BadKeys(_) => "bad_keys",
            ConflictingWait => "conflicting_wait",
            BadRegex(_) => "bad_regex",
            BadPace => "bad_pace",
            BadMode => "bad_mode",
            BadCwd => "bad_cwd",
            CwdNotDir => "cwd_not_dir",
            UnknownProfile => "unknown_profile",
            LaunchDisabled => "launch_disabled",
            TerminalsDisabled => "terminals_disabled",
            TooManyPendingLaunches => "too_many_pending_launches",
            TokenEnvPinned => "token_env_pinned",
            PersistFailed => "persist_failed",
        }
    }

    /// The `detail` string, when the variant carries one.
    pub fn detail(&self) -> Option<&str> {
        match self {
            Refusal::BadRequest(d)
            | Refusal::TooLarge(d)
            | Refusal::BadKeys(d)
            | Refusal::BadRegex(d) => Some(d),
            _ => None,
        }
    }

    /// The websocket close code used when this refusal happens after an upgrade (a browser
    /// cannot read the status of a refused upgrade): 4000 + the HTTP status, except a failed
    /// spawn, which is the standard 1011 (internal error).
    pub fn close_code(&self) -> u16 {
        match self {
            Refusal::SpawnFailed => 1011,
            _ => 4000 + self.status().as_u16(),
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let body = match self.detail() {
            Some(detail) => serde_json::json!({ "error": self.code(), "detail": detail }),
            None => serde_json::json!({ "error": self.code() }),
        };
        (self.status(), Json(body)).into_response()
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

    #[test]
    fn statuses_follow_the_ladder() {
        assert_eq!(Refusal::McpDisabled.status(), 403);
        assert_eq!(Refusal::BadScope.status(), 400);
        assert_eq!(Refusal::AdminRequired.status(), 403);
        assert_eq!(Refusal::UnknownOrOff.status(), 404);
        assert_eq!(Refusal::ReadOnly.status(), 403);
        assert_eq!(Refusal::TooLarge(String::new()).status(), 413);
        assert_eq!(Refusal::TooManyPendingLaunches.status(), 429);
    }
}

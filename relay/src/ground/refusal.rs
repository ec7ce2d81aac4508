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
    /// `429 too_many_sessions`: the relay already runs [`crate::ground::limits::MAX_SESSIONS`].
    TooManySessions,
    /// `429 memory_budget` (ext): the relay's memory budget (`--memory-budget-mib`) cannot hold
    /// a terminal of the asked size; the detail gives the figures. Nothing was started.
    MemoryBudget(String),
    /// `429 reads_busy` (ext): a large `/mcp/read` found no room under the relay's bound on
    /// large reads in flight within its queueing time; the detail gives the figures. Nothing
    /// was read.
    ReadsBusy(String),
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
    /// scope (step 6). Built only by [`unknown_or_off`], so the answer is
    /// byte-identical in all three cases.
    UnknownOrOff,
    /// `403 read_only`: a write to a window whose mode is not `readwrite` (step 7).
    ReadOnly,
    /// `400 bad_data`: `/mcp/input` `data` is not a string.
    BadData,
    /// `413 too_large`: over [`crate::ground::limits::MAX_INPUT_BYTES`] (or another size limit, named
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
    /// `429 too_many_pending_launches`: [`crate::ground::limits::MAX_PENDING_LAUNCHES`] launches are in
    /// progress.
    TooManyPendingLaunches,
    /// `409 token_env_pinned` (ext): `/mcp/config` asked to change a token that the environment
    /// sets (`WEB_TERMINAL_MCP_TOKEN` / `WEB_TERMINAL_MCP_ADMIN_TOKEN`).
    TokenEnvPinned,
    /// `500 persist_failed` (ext): the state file could not be written; nothing was changed.
    PersistFailed,
    /// `409 no_shell_integration` (ext): `run_command` on a window whose shell reports nothing
    /// about its commands (no OSC 133 marks); nothing was sent.
    NoShellIntegration,
    /// `409 not_at_prompt` (ext): `run_command` while a program holds the terminal's
    /// foreground (the shell is not reading a command line); nothing was sent.
    NotAtPrompt,
    /// `409 line_not_empty` (ext): `run_command` while the shell's command line already holds
    /// text (a person or another client is typing); nothing was sent.
    LineNotEmpty,
    /// `409 secret_prompt` (ext): agent input while the terminal waits for a secret (its PTY
    /// has canonical mode on and echo off: a password prompt), which only a person types;
    /// nothing was sent (`wterm_core::agent::secret_prompt`). Ctrl-C alone passes.
    SecretPrompt,
    /// `409 person_typing` (ext): an agent input that submits a line (Enter) while a person at
    /// an attached page is typing: a key within `PERSON_TYPING_MS`, or their half-typed
    /// command line on the prompt; nothing was sent (`wterm_core::agent::turns`).
    PersonTyping,
    /// `408 request_timeout` (ext): the request body did not arrive whole within
    /// [`crate::ground::limits::BODY_READ_TIMEOUT`]; nothing was done and the connection is
    /// closed.
    RequestTimeout,
}

/// [`Refusal::SecretPrompt`]'s detail: the core's, naming this surface's key tool and switch.
static SECRET_PROMPT_DETAIL: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| wterm_core::agent::secret_prompt::detail("send_keys"));

/// [`Refusal::PersonTyping`]'s detail: the core's, naming this surface's read tool.
static PERSON_TYPING_DETAIL: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| wterm_core::agent::turns::detail("read_screen", "send_keys"));

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
            TokenEnvPinned | NoShellIntegration | NotAtPrompt | LineNotEmpty | SecretPrompt
            | PersonTyping => StatusCode::CONFLICT,
            TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            TooManySessions | TooManyPendingLaunches | MemoryBudget(_) | ReadsBusy(_) => {
                StatusCode::TOO_MANY_REQUESTS
            }
            SpawnFailed | PersistFailed => StatusCode::INTERNAL_SERVER_ERROR,
            RequestTimeout => StatusCode::REQUEST_TIMEOUT,
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
            MemoryBudget(_) => "memory_budget",
            ReadsBusy(_) => "reads_busy",
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
            NoShellIntegration => "no_shell_integration",
            NotAtPrompt => "not_at_prompt",
            LineNotEmpty => "line_not_empty",
            SecretPrompt => wterm_core::agent::secret_prompt::CODE,
            PersonTyping => wterm_core::agent::turns::CODE,
            RequestTimeout => "request_timeout",
        }
    }

    /// The `detail` string: what was wrong and what is accepted. The variant's own for those
    /// that carry one; a fixed one for the other refusals of a request's content. Refusals of
    /// access (auth, scope, mode, unknown window) have none: their code says it all, and
    /// `unknown_or_off` must be byte-identical whatever the cause.
    pub fn detail(&self) -> Option<&str> {
        use Refusal::*;
        match self {
            BadRequest(d) | TooLarge(d) | BadKeys(d) | BadRegex(d) | MemoryBudget(d)
            | ReadsBusy(d) => Some(d),
            BadJson => Some(
                "the body must be one JSON object, e.g. {\"id\":1}, of valid JSON \
                 (a string may not hold a lone surrogate such as \\ud800)",
            ),
            BadDims => Some("cols and rows must be integers in 1..1000"),
            BadId => Some("id must be a window id: a non-negative integer, e.g. 3"),
            BadData => Some("data must be a string: the text to send"),
            ConflictingWait => Some(
                "give at most one of wait_for_change, wait_for_text, wait_for_regex, \
                 wait_for_idle, wait_for_command",
            ),
            BadPace => Some("pace_ms must be a number of milliseconds (clamped to 0..1000)"),
            BadMode => Some("mode must be one of off, read, readwrite"),
            BadScope => Some(
                "a scope must match [A-Za-z0-9][A-Za-z0-9._-]{0,63} (X-Browserland-Scope: once)",
            ),
            BadCwd => Some("cwd must be an absolute path of an existing directory"),
            CwdNotDir => Some("cwd exists but is not a directory"),
            UnknownProfile => Some("no launch profile of that name"),
            NoShellIntegration => Some(
                "the window's program reports no command marks (OSC 133), so the end of a \
                 command cannot be told: it is not bash, zsh or fish started by the relay with \
                 shell integration on (shell.integration in list_terminals says why), or such a \
                 shell did not draw its first prompt within 10 s; type with send_input and read \
                 with read_screen instead",
            ),
            NotAtPrompt => Some(
                "a program holds the terminal's foreground, so the shell is not reading a \
                 command line; wait for it to end (wait_for_command) or talk to it with \
                 send_input and send_keys",
            ),
            RequestTimeout => {
                Some("the request body must arrive whole within 20 s of its head; nothing was done")
            }
            LineNotEmpty => Some(
                "the shell's command line already holds typed text, which the command would be \
                 appended to; clear it (send_keys [\"C-u\"] in bash and zsh) or let its typist \
                 finish",
            ),
            SecretPrompt => Some(&SECRET_PROMPT_DETAIL),
            PersonTyping => Some(&PERSON_TYPING_DETAIL),
            _ => None,
        }
    }

    /// What the refusal means and who has to act, for a person or an agent reading an MCP tool
    /// result (`spec/mcp-server.md`, "every failure is a tool result"). Never holds a secret.
    pub fn advice(&self) -> &'static str {
        use Refusal::*;
        match self {
            TokenInUrl => "a credential was put in a URL; fix this client's configuration to send it in the Authorization header",
            AuthRequired => "the MCP token is missing or wrong; a person must copy the current MCP token from the relay page's MCP settings into this client's configuration",
            BadJson => "the request was not a JSON object; fix the call's arguments",
            BadRequest(_) => "an argument has the wrong type or value; fix the call's arguments",
            BadDims => "cols and rows must be integers in 1..1000; fix the call",
            BadOrigin => "the request came from a web origin this relay does not allow; its operator can add it with --allow-origin",
            UnknownSession => "no such session; call list_terminals for the current ids",
            TooManySessions => "the relay already runs its maximum number of sessions; close a terminal first",
            MemoryBudget(_) => "the relay's memory budget cannot hold another terminal of this size; close a terminal or ask for fewer columns and rows",
            ReadsBusy(_) => "the relay is answering other large reads; retry in a moment, or read fewer lines of scrollback",
            SpawnFailed => "the program could not be started; the relay's operator must check the profile's command",
            McpDisabled => "MCP access is off on this relay; a person must enable it in the relay page's MCP settings",
            BadScope => "the scope must match [A-Za-z0-9][A-Za-z0-9._-]{0,63}; fix the scope in this client's configuration or the call",
            AdminRequired => "this needs the admin token or the window's launch handle; a person holding the admin token must do it",
            BadId => "the window id is not a number; use an id from list_terminals",
            UnknownOrOff => "no such window, or it is off or outside this client's scope; call list_terminals, or ask a person to share the window in the relay page",
            ReadOnly => "the window is read-only for MCP; a person must set it to readwrite in the relay page (or its launcher via set_window)",
            BadData => "data must be a string; fix the call",
            TooLarge(_) => "the request is over a limit and nothing was sent; split it into smaller calls",
            BadKeys(_) => "a key is not in the key grammar and nothing was sent; fix the keys (e.g. \"Enter\", \"C-c\", \"Up\", \"x\")",
            ConflictingWait => "give at most one of wait_for_change, wait_for_text, wait_for_regex, wait_for_idle, wait_for_command; fix the call",
            BadRegex(_) => "wait_for_regex does not compile; fix the pattern",
            BadPace => "pace_ms must be a number of milliseconds; fix the call",
            BadMode => "mode must be one of off, read, readwrite; fix the call",
            BadCwd => "cwd must be an absolute path of an existing directory; fix the call",
            CwdNotDir => "cwd exists but is not a directory; fix the call",
            UnknownProfile => "no launch profile of that name; call list_profiles for the names",
            LaunchDisabled => "launching terminals is off on this relay; a person must allow launching in the relay page's MCP settings",
            TerminalsDisabled => "this relay hosts no terminals for MCP clients (--no-terminals); its operator must restart it without that flag",
            TooManyPendingLaunches => "too many launches are in progress; retry in a moment",
            TokenEnvPinned => "that token is set by the relay's environment; its operator must change the environment",
            PersistFailed => "the relay could not write its state file and changed nothing; its operator must check the state directory",
            NoShellIntegration => "the terminal's shell reports no commands, so run_command cannot tell when one ends; use send_input and read_screen instead",
            NotAtPrompt => "nothing was sent; a person may be using the program, so look at the screen (read_screen) before typing into it",
            RequestTimeout => "the request's body arrived too slowly and nothing was done; retry over a faster link",
            SecretPrompt => "the terminal is asking for a password or other secret, which only a person may type; nothing was sent: tell your user to type it at the terminal, or cancel the prompt with send_keys [\"C-c\"]",
            PersonTyping => wterm_core::agent::turns::MEANING,
            LineNotEmpty => "someone has typed on the terminal's command line and nothing was sent; look at the screen, then clear the line or wait",
        }
    }

    // `NoShellIntegration`'s detail states the first-prompt wait as a literal.
    const _FIRST_PROMPT_WAIT: () = assert!(crate::ground::limits::FIRST_PROMPT_WAIT_MS == 10_000);

    /// Every refusal, with empty details (to find one by its wire code).
    fn all() -> [Refusal; 38] {
        use Refusal::*;
        let s = String::new;
        [
            TokenInUrl,
            AuthRequired,
            BadJson,
            BadRequest(s()),
            BadDims,
            BadOrigin,
            UnknownSession,
            TooManySessions,
            MemoryBudget(s()),
            ReadsBusy(s()),
            SpawnFailed,
            McpDisabled,
            BadScope,
            AdminRequired,
            BadId,
            UnknownOrOff,
            ReadOnly,
            BadData,
            TooLarge(s()),
            BadKeys(s()),
            ConflictingWait,
            BadRegex(s()),
            BadPace,
            BadMode,
            BadCwd,
            CwdNotDir,
            UnknownProfile,
            LaunchDisabled,
            TerminalsDisabled,
            TooManyPendingLaunches,
            TokenEnvPinned,
            PersistFailed,
            NoShellIntegration,
            NotAtPrompt,
            LineNotEmpty,
            SecretPrompt,
            PersonTyping,
            RequestTimeout,
        ]
    }

    /// The refusal a relay answered with `{"error": code, "detail": detail}`, when the code is
    /// one of ours (the MCP stdio server reads relays' answers with it).
    pub fn from_wire(code: &str, detail: Option<String>) -> Option<Refusal> {
        let mut r = Refusal::all().into_iter().find(|r| r.code() == code)?;
        if let (
            Refusal::BadRequest(d)
            | Refusal::TooLarge(d)
            | Refusal::BadKeys(d)
            | Refusal::BadRegex(d)
            | Refusal::MemoryBudget(d)
            | Refusal::ReadsBusy(d),
            Some(detail),
        ) = (&mut r, detail)
        {
            *d = detail;
        }
        Some(r)
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

/// The one builder of `404 unknown_or_off`: every route answers a missing window, an `off`
/// window and a window outside the caller's scope with this, so the three are
/// indistinguishable (status, body, content type, length).
pub fn unknown_or_off() -> Refusal {
    Refusal::UnknownOrOff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_404() {
        assert_eq!(unknown_or_off(), Refusal::UnknownOrOff);
        assert_eq!(unknown_or_off().status(), 404);
        assert_eq!(unknown_or_off().detail(), None);
    }

    #[test]
    fn close_codes_follow_the_spec() {
        assert_eq!(Refusal::AuthRequired.close_code(), 4401);
        assert_eq!(Refusal::UnknownSession.close_code(), 4404);
        assert_eq!(Refusal::TooManySessions.close_code(), 4429);
    }

    /// Every refusal of a request's content says what is accepted; the numbers in the fixed
    /// details are the limits' own.
    #[test]
    fn content_refusals_carry_a_detail_with_the_real_limits() {
        for r in Refusal::all() {
            if r.status() == StatusCode::BAD_REQUEST && r != Refusal::TokenInUrl {
                assert!(r.detail().is_some(), "{}", r.code());
            }
        }
        assert_eq!(Refusal::UnknownOrOff.detail(), None);
        let pace = format!("0..{}", crate::ground::limits::MAX_PACE_MS);
        assert!(Refusal::BadPace.detail().unwrap().contains(&pace));
        let dims = crate::ground::limits::DIMS;
        let dims = format!("{}..{}", dims.start(), dims.end());
        assert!(Refusal::BadDims.detail().unwrap().contains(&dims));
        let body = format!(
            "within {} s",
            crate::ground::limits::BODY_READ_TIMEOUT.as_secs()
        );
        assert!(Refusal::RequestTimeout.detail().unwrap().contains(&body));
    }

    #[test]
    fn every_code_is_found_again() {
        for r in Refusal::all() {
            assert_eq!(Refusal::from_wire(r.code(), None), Some(r.clone()));
            assert!(!r.advice().is_empty());
            // Agents read these through MCP tools: they name tools, never HTTP routes.
            for text in [r.advice(), r.detail().unwrap_or_default()] {
                assert!(!text.contains("/mcp/"), "{}: {text}", r.code());
            }
            // The MCP message joins the advice and the detail: no clause twice.
            if let Some(detail) = r.detail().filter(|d| !r.advice().contains(d)) {
                let advice: Vec<&str> = r.advice().split("; ").collect();
                for clause in detail.split("; ") {
                    assert!(!advice.contains(&clause), "{}: {clause:?} twice", r.code());
                }
            }
        }
        assert_eq!(
            Refusal::from_wire("bad_keys", Some("Bogus".into())),
            Some(Refusal::BadKeys("Bogus".into()))
        );
        assert_eq!(Refusal::from_wire("nope", None), None);
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

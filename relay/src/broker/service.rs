//! One function per broker operation. The HTTP handlers (`http/mcp.rs`, `http/page.rs`) parse
//! a request, call one of these and serialize the answer; the MCP tools (a later issue) call
//! the same functions, so both paths refuse and answer alike.
//!
//! Functions that act on a window take a [`Window`] already resolved by
//! [`super::Broker::resolve`] (ladder steps 6-7); they do field validation (step 8) and the
//! operation.

use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use serde::Serialize;
use serde_json::{json, Value};
use wterm_core::keys::{self, Chord};
use wterm_core::Size;

use super::fields::{self, Fields};
use super::ops::Op;
use super::read::{self, ReadAnswer, ReadArgs};
use super::store::{pid_alive, unix_now, Row};
use super::window::{Caller, Mode, OwnerHash, Scope, WindowMeta};
use super::{Window, WindowState};
use crate::auth::{Refusal, Secret};
use crate::limits::{DIMS, MAX_INPUT_BYTES, MAX_KEYS, MAX_LAUNCH_TITLE_BYTES, MAX_PACE_MS};
use crate::session::registry::CreateError;
use crate::session::{Session, SessionId, SessionSpec};
use crate::state::AppState;

/// The relay's version, as `/mcp/info` gives it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `kind` of the page's own sessions.
pub const SHELL_KIND: &str = "shell";

// ---- /mcp/info, /mcp/terminals, /mcp/profiles ----

/// `GET /mcp/info`.
pub fn info(state: &AppState, caller: &Caller) -> Value {
    let s = state.broker.settings();
    json!({
        "ok": true,
        "allow_launch": s.stored.allow_launch,
        "default_mode": s.stored.default_mode,
        "version": VERSION,
        "scope": caller.scope,
        "terminals": state.broker.terminals,
        "admin": caller.admin,
        "window_edit": Op::ALL.contains(&Op::Window),
    })
}

/// A row of `GET /mcp/terminals`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TerminalRow {
    /// The window id.
    pub id: SessionId,
    /// The program's title (OSC 0/2), else the title the launch gave, else `null`.
    pub title: Option<String>,
    /// The host name of the machine the relay runs on.
    pub host: String,
    /// The working directory the shell reported (OSC 7), else the process's own.
    pub cwd: Option<String>,
    /// The agent driving the window; always `null` (the relay does not know).
    pub agent: Option<String>,
    /// `"shell"` for the page's sessions, else the launch profile's name.
    pub kind: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// The effective mode.
    pub mode: Mode,
    /// The window's scope.
    pub scope: Option<Scope>,
    /// A counter of changes to the window's screen (output chunks, resizes, resets): equal
    /// versions mean nothing was drawn in between.
    pub version: u64,
    /// DECCKM is on.
    pub app_cursor: bool,
    /// The window's default pacing of `/mcp/keys`, in milliseconds.
    pub pace_ms: u64,
}

fn process_cwd(pid: Option<u32>) -> Option<String> {
    let link = std::fs::read_link(format!("/proc/{}/cwd", pid?)).ok()?;
    Some(link.to_string_lossy().into_owned())
}

fn row_of(state: &AppState, session: &Session, meta: WindowMeta, mode: Mode) -> TerminalRow {
    let (title, cwd, size, app_cursor, version) = session.inspect(|l| {
        (
            l.terminal.title().map(str::to_owned),
            l.terminal.cwd().map(str::to_owned),
            l.terminal.size(),
            l.terminal.modes().application_cursor,
            l.version,
        )
    });
    let window = &session.window;
    TerminalRow {
        id: session.id(),
        title: title
            .filter(|t| !t.is_empty())
            .or_else(|| window.launch_title.clone()),
        host: state.broker.host.clone(),
        cwd: cwd.or_else(|| process_cwd(session.pid())),
        agent: None,
        kind: window.kind.clone(),
        cols: size.cols,
        rows: size.rows,
        mode,
        scope: meta.scope,
        version,
        app_cursor,
        pace_ms: window.pace_ms(),
    }
}

/// `GET /mcp/terminals`: every window `caller` may see, by id.
pub fn terminals(state: &AppState, caller: &Caller) -> Vec<TerminalRow> {
    let default_mode = state.broker.settings().stored.default_mode;
    state
        .registry
        .sessions()
        .into_iter()
        .filter(|s| !s.has_ended())
        .filter_map(|s| {
            let meta = s.window.meta();
            let mode = meta.effective_mode(default_mode);
            caller
                .sees(&meta, mode)
                .then(|| row_of(state, &s, meta, mode))
        })
        .collect()
}

/// `GET /mcp/profiles`: `{default, profiles: [names]}`, never commands.
pub fn profiles(state: &AppState) -> Value {
    let p = &state.broker.profiles;
    json!({ "default": p.default_name(), "profiles": p.names() })
}

// ---- /mcp/read ----

/// `POST /mcp/read`.
pub async fn read(window: &Window, args: &ReadArgs) -> ReadAnswer {
    read::read(&window.session, args).await
}

// ---- /mcp/input, /mcp/keys ----

/// The `data` of `/mcp/input`: a string (`400 bad_data`) of at most [`MAX_INPUT_BYTES`]
/// (`413 too_large`).
pub fn input_data(f: &Fields) -> Result<Bytes, Refusal> {
    fields::only(f, &["id", "data"])?;
    match fields::get(f, "data") {
        Some(Value::String(s)) if s.len() > MAX_INPUT_BYTES => Err(too_large_input(s.len())),
        Some(Value::String(s)) => Ok(Bytes::copy_from_slice(s.as_bytes())),
        _ => Err(Refusal::BadData),
    }
}

fn too_large_input(len: usize) -> Refusal {
    Refusal::TooLarge(format!(
        "{len} bytes; accepted: at most {MAX_INPUT_BYTES} bytes a request"
    ))
}

/// `POST /mcp/input`: `data` verbatim to the program.
pub async fn input(window: &Window, data: Bytes) -> Value {
    window.session.write(data).await;
    json!({ "ok": true })
}

/// A validated `/mcp/keys` request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeysArgs {
    /// The keys, in order.
    pub chords: Vec<Chord>,
    /// The pause between keys; `None` = the window's `pace_ms`.
    pub delay: Option<Duration>,
}

/// Validates the whole `/mcp/keys` body before anything is sent: `keys` a list of at most
/// [`MAX_KEYS`] tokens of the key grammar (`400 bad_keys` naming the bad token, `413 too_large`),
/// `delay_ms` a number in `0..=MAX_PACE_MS` (`400 bad_request` otherwise).
pub fn keys_args(f: &Fields) -> Result<KeysArgs, Refusal> {
    fields::only(f, &["id", "keys", "delay_ms"])?;
    let Some(Value::Array(list)) = fields::get(f, "keys") else {
        return Err(Refusal::BadKeys(
            "keys: accepted: a list of key names such as [\"C-c\", \"Up\", \"Enter\"]".into(),
        ));
    };
    if list.len() > MAX_KEYS {
        return Err(Refusal::TooLarge(format!(
            "{} keys; accepted: at most {MAX_KEYS} a request",
            list.len()
        )));
    }
    let chords = list
        .iter()
        .map(|v| match v {
            Value::String(token) => {
                keys::parse_broker_key(token).map_err(|e| Refusal::BadKeys(e.to_string()))
            }
            other => Err(Refusal::BadKeys(format!(
                "{other} is not a string; accepted: key names such as \"Enter\""
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let delay = fields::opt_at_most(f, "delay_ms", MAX_PACE_MS, || {
        Refusal::BadRequest(format!(
            "delay_ms: accepted: a number of milliseconds, 0..{MAX_PACE_MS}"
        ))
    })?
    .map(Duration::from_millis);
    Ok(KeysArgs { chords, delay })
}

/// `POST /mcp/keys`: each key encoded for the program's modes at the moment it is sent (DECCKM,
/// kitty flags), paced by `delay` or the window's `pace_ms`. A flush while keys are still being
/// paced stops the rest. Answers `{ok, sent}` with the number of keys sent.
pub async fn keys(window: &Window, args: &KeysArgs) -> Value {
    let session = &window.session;
    let delay = args
        .delay
        .unwrap_or_else(|| Duration::from_millis(session.window.pace_ms()));
    let epoch = session.flush_epoch();
    let mut sent = 0usize;
    if delay.is_zero() {
        let bytes = session.inspect(|l| {
            let modes = l.terminal.modes();
            args.chords
                .iter()
                .flat_map(|c| keys::encode(*c, &modes))
                .collect::<Vec<u8>>()
        });
        if session.write(Bytes::from(bytes)).await {
            sent = args.chords.len();
        }
    } else {
        for (i, chord) in args.chords.iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(delay).await;
            }
            if session.flush_epoch() != epoch {
                break;
            }
            let bytes = session.inspect(|l| keys::encode(*chord, &l.terminal.modes()));
            if !session.write(Bytes::from(bytes)).await {
                break;
            }
            sent += 1;
        }
    }
    json!({ "ok": true, "sent": sent })
}

// ---- /mcp/reset, /mcp/flush, /mcp/pace ----

/// `POST /mcp/reset`: clears the relay's copy of the screen; the program gets nothing.
pub fn reset(window: &Window) -> Value {
    window.session.reset_screen();
    json!({ "ok": true, "id": window.session.id() })
}

/// `POST /mcp/flush`: discards input the program has not read yet.
pub fn flush(window: &Window) -> Value {
    window.session.flush_input();
    json!({ "ok": true, "id": window.session.id() })
}

/// The body of `/mcp/reset` and `/mcp/flush`: the window `id` alone.
pub fn id_only(f: &Fields) -> Result<(), Refusal> {
    fields::only(f, &["id"])
}

/// The `pace_ms` of `/mcp/pace`: a number (`400 bad_pace`), clamped to `0..=MAX_PACE_MS`.
pub fn pace_arg(f: &Fields) -> Result<u64, Refusal> {
    fields::only(f, &["id", "pace_ms"])?;
    fields::opt_clamped(f, "pace_ms", MAX_PACE_MS, || Refusal::BadPace)?.ok_or(Refusal::BadPace)
}

/// `POST /mcp/pace`: the window's default pause between keys (not persisted).
pub fn pace(window: &Window, pace_ms: u64) -> Value {
    window.session.window.set_pace_ms(pace_ms);
    json!({ "ok": true, "id": window.session.id(), "pace_ms": pace_ms })
}

// ---- window settings: persistence ----

/// Changes window `session`'s settings with `change`, under the store's edit lock: the new row
/// is written to `webterm_mcp_windows.json` first, then put in force. Returns the new settings.
async fn commit_meta(
    state: &AppState,
    session: &Session,
    change: impl FnOnce(&WindowMeta) -> WindowMeta,
) -> Result<WindowMeta, Refusal> {
    let broker = &state.broker;
    let guard = broker.store.edit().await;
    let meta = change(&session.window.meta());
    let mut rows = (*broker.store.rows()).clone();
    let now = unix_now();
    match session.pid().filter(|p| *p != 0) {
        Some(pid) if !meta.is_empty() => {
            rows.0.insert(
                session.id(),
                Row {
                    meta: meta.clone(),
                    pid,
                    host: broker.host.clone(),
                    seen: now,
                },
            );
        }
        _ => {
            rows.0.remove(&session.id());
        }
    }
    rows.prune(now, &broker.host, pid_alive, |id| state.registry.pid_of(id));
    broker.store.commit(&guard, rows).await.map_err(|e| {
        tracing::error!(error = %e, "cannot write the windows file");
        Refusal::PersistFailed
    })?;
    session.window.set_meta(meta.clone());
    Ok(meta)
}

fn window_answer(state: &AppState, id: SessionId, meta: &WindowMeta) -> Value {
    let default_mode = state.broker.settings().stored.default_mode;
    json!({
        "ok": true,
        "id": id,
        "scope": meta.scope,
        "mode": meta.mode,
        "effective_mode": meta.effective_mode(default_mode),
    })
}

/// A `mode` field: a mode name (`400 bad_mode` otherwise).
fn mode_of(v: &Value) -> Result<Mode, Refusal> {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .ok_or(Refusal::BadMode)
}

/// A `scope` field: a scope name (`400 bad_scope` otherwise).
fn scope_of(v: &Value) -> Result<Scope, Refusal> {
    v.as_str().and_then(Scope::parse).ok_or(Refusal::BadScope)
}

// ---- /mcp/window ----

/// `POST /mcp/window` (ext): `{id, handle?, scope?, mode?, clear_scope?, clear_mode?}` →
/// `{ok, id, scope, mode, effective_mode}` (`mode` is the window's own, `null` = inherit).
///
/// Needs the window's launch handle or the admin credential; then it works whatever the
/// window's mode or scope. Without either: `404 unknown_or_off` when the caller could not see
/// the window anyway (as every route answers), else `403 admin_required`.
pub async fn edit_window(state: &AppState, caller: &Caller, body: &[u8]) -> Result<Value, Refusal> {
    let f = fields::object(body, false)?;
    let id = fields::id(&f)?;
    let session = state
        .registry
        .get(id)
        .filter(|s| !s.has_ended())
        .ok_or_else(crate::auth::ladder::unknown_or_off)?;
    let meta = session.window.meta();
    let handle = fields::opt_str(&f, "handle")?;
    let owner = handle.is_some_and(|h| meta.owner.as_ref().is_some_and(|o| o.is_of(h)));
    if !(caller.admin || owner) {
        let mode = meta.effective_mode(state.broker.settings().stored.default_mode);
        return Err(if mode != Mode::Off && caller.sees(&meta, mode) {
            Refusal::AdminRequired
        } else {
            crate::auth::ladder::unknown_or_off()
        });
    }
    fields::only(
        &f,
        &["id", "handle", "scope", "mode", "clear_scope", "clear_mode"],
    )?;
    let scope = fields::get(&f, "scope").map(scope_of).transpose()?;
    let mode = fields::get(&f, "mode").map(mode_of).transpose()?;
    let clear_scope = fields::opt_bool(&f, "clear_scope")?.unwrap_or(false);
    let clear_mode = fields::opt_bool(&f, "clear_mode")?.unwrap_or(false);
    if (scope.is_some() && clear_scope) || (mode.is_some() && clear_mode) {
        return Err(Refusal::BadRequest(
            "give a field or its clear_ flag, not both".into(),
        ));
    }
    let meta = commit_meta(state, &session, |m| {
        let mut m = m.clone();
        if clear_scope {
            m.scope = None;
        } else if scope.is_some() {
            m.scope = scope;
        }
        if clear_mode {
            m.mode = None;
        } else if mode.is_some() {
            m.mode = mode;
        }
        m
    })
    .await?;
    Ok(window_answer(state, id, &meta))
}

// ---- /session/mcp (page realm) ----

/// `POST /session/mcp` (page token): `{id, mode?, scope?}`, an absent key keeps, a value sets,
/// `null` clears → `{ok, id, mode, scope, effective_mode}` (`mode` is the window's own). Any
/// change clears the window's launch owner; a body with neither key only reads.
pub async fn session_mcp(state: &AppState, body: &[u8]) -> Result<Value, Refusal> {
    let f = fields::object(body, false)?;
    let id = fields::id(&f)?;
    let session = state
        .registry
        .get(id)
        .filter(|s| !s.has_ended())
        .ok_or(Refusal::UnknownSession)?;
    fields::only(&f, &["id", "mode", "scope"])?;
    let mode = match f.get("mode") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(v) => Some(Some(mode_of(v)?)),
    };
    let scope = match f.get("scope") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(v) => Some(Some(scope_of(v)?)),
    };
    if mode.is_none() && scope.is_none() {
        return Ok(window_answer(state, id, &session.window.meta()));
    }
    let meta = commit_meta(state, &session, |m| WindowMeta {
        scope: scope.unwrap_or_else(|| m.scope.clone()),
        mode: mode.unwrap_or(m.mode),
        owner: None,
    })
    .await?;
    Ok(window_answer(state, id, &meta))
}

// ---- /mcp/launch ----

/// `POST /mcp/launch`: `{profile?, cols=80, rows=24, title?, cwd?, mode?}` →
/// `{ok, id, registered, pid, handle, scope?, mode}`. Refusals in the contract's order:
/// `terminals_disabled` (with `--no-terminals`), `launch_disabled`, `bad_json`/`bad_request`,
/// `bad_dims`, `bad_mode`, `bad_cwd`/`cwd_not_dir`, `unknown_profile`,
/// `too_many_pending_launches` (and `too_many_sessions`), `spawn_failed`.
///
/// The window starts tagged with the caller's scope, in `readwrite` unless `mode` says
/// otherwise, owned by the returned `handle` (only its SHA-256 is kept); its row is on disk and
/// it is listed only then.
pub async fn launch(state: &AppState, caller: &Caller, body: &[u8]) -> Result<Value, Refusal> {
    let broker = &state.broker;
    if !broker.terminals {
        return Err(Refusal::TerminalsDisabled);
    }
    if !broker.settings().stored.allow_launch {
        return Err(Refusal::LaunchDisabled);
    }
    let f = fields::object(body, true)?;
    fields::only(&f, &["profile", "cols", "rows", "title", "cwd", "mode"])?;
    let profile = fields::opt_str(&f, "profile")?;
    let title = fields::opt_str(&f, "title")?;
    if title.is_some_and(|t| t.len() > MAX_LAUNCH_TITLE_BYTES) {
        return Err(Refusal::BadRequest(format!(
            "title: accepted: at most {MAX_LAUNCH_TITLE_BYTES} bytes"
        )));
    }
    let cwd = fields::opt_str(&f, "cwd")?;
    let mode_field = fields::opt_str(&f, "mode")?;
    let dim = |key: &str, default: u16| match fields::get(&f, key) {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .filter(|n| DIMS.contains(n))
            .ok_or(Refusal::BadDims),
    };
    let size = Size::new(dim("rows", 24)?, dim("cols", 80)?);
    let mode = match mode_field {
        None => Mode::Readwrite,
        Some(m) => m.parse().map_err(|()| Refusal::BadMode)?,
    };
    let cwd = cwd.map(check_cwd).transpose()?;
    let profile_name = profile.unwrap_or(broker.profiles.default_name());
    let mut program = broker
        .profiles
        .get(profile_name)
        .ok_or(Refusal::UnknownProfile)?
        .clone();
    let _pending = broker
        .begin_launch()
        .ok_or(Refusal::TooManyPendingLaunches)?;
    if cwd.is_some() {
        program.cwd = cwd;
    }
    let handle = Secret::mint().map_err(|e| {
        tracing::error!(error = %e, "cannot mint a launch handle");
        Refusal::SpawnFailed
    })?;
    let meta = WindowMeta {
        scope: caller.scope.clone(),
        mode: Some(mode),
        owner: Some(OwnerHash::of(handle.expose())),
    };
    let spec = SessionSpec {
        program,
        size,
        window: WindowState::new(profile_name, title.map(str::to_owned), meta.clone()),
    };
    let registry = state.registry.clone();
    let created = tokio::task::spawn_blocking(move || registry.create(spec))
        .await
        .map_err(|_| Refusal::SpawnFailed)?;
    let session = match created {
        Ok(s) => s,
        Err(CreateError::TooMany) => return Err(Refusal::TooManySessions),
        Err(e @ CreateError::Spawn(_)) => {
            tracing::warn!(error = %e, profile = profile_name, "launch failed");
            return Err(Refusal::SpawnFailed);
        }
    };
    if let Err(refusal) = commit_meta(state, &session, |_| meta.clone()).await {
        state.registry.discard(&session);
        return Err(refusal);
    }
    state.registry.publish(&session);
    tracing::info!(session = session.id(), profile = profile_name, scope = ?meta.scope.as_ref().map(Scope::as_str), "launched");
    let mut answer = json!({
        "ok": true,
        "id": session.id(),
        "registered": true,
        "pid": session.pid(),
        "handle": handle.expose(),
        "mode": mode,
    });
    if let Some(scope) = &meta.scope {
        answer["scope"] = json!(scope);
    }
    Ok(answer)
}

/// A launch `cwd`: an absolute path of an existing entry (`400 bad_cwd`) that is a directory
/// (`400 cwd_not_dir`).
fn check_cwd(cwd: &str) -> Result<PathBuf, Refusal> {
    let path = Path::new(cwd);
    if !path.is_absolute() {
        return Err(Refusal::BadCwd);
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok(path.to_path_buf()),
        Ok(_) => Err(Refusal::CwdNotDir),
        Err(_) => Err(Refusal::BadCwd),
    }
}

// ---- /mcp/knobs ----

/// `POST /mcp/knobs` (ext, admin): `{default_mode?, allow_launch?}` → `{ok, default_mode,
/// allow_launch}`. Never changes tokens or `enabled`.
pub async fn knobs(state: &AppState, body: &[u8]) -> Result<Value, Refusal> {
    let f = fields::object(body, true)?;
    fields::only(&f, &["default_mode", "allow_launch"])?;
    let default_mode = fields::get(&f, "default_mode").map(mode_of).transpose()?;
    let allow_launch = fields::opt_bool(&f, "allow_launch")?;
    let s = state
        .broker
        .update_settings(|s, _| {
            if let Some(m) = default_mode {
                s.default_mode = m;
            }
            if let Some(a) = allow_launch {
                s.allow_launch = a;
            }
            Ok(())
        })
        .await?;
    Ok(json!({
        "ok": true,
        "default_mode": s.stored.default_mode,
        "allow_launch": s.stored.allow_launch,
    }))
}

// ---- /mcp/config (page realm) ----

/// Every scope a window is tagged with, live or on disk, sorted.
fn known_scopes(state: &AppState) -> Vec<Scope> {
    let mut scopes: Vec<Scope> = state
        .registry
        .sessions()
        .iter()
        .filter_map(|s| s.window.meta().scope)
        .chain(
            state
                .broker
                .store
                .rows()
                .0
                .values()
                .filter_map(|r| r.meta.scope.clone()),
        )
        .collect();
    scopes.sort();
    scopes.dedup();
    scopes
}

/// `GET /mcp/config` (page token): `{ok, enabled, token, admin_token, default_mode,
/// allow_launch, token_env_pinned, admin_token_env_pinned, known_scopes, local_url}`. The
/// tokens in force are given to the page so a person can copy them into an MCP client.
pub fn config(state: &AppState) -> Value {
    let s = state.broker.settings();
    json!({
        "ok": true,
        "enabled": s.stored.enabled,
        "token": s.token().map(Secret::expose),
        "admin_token": s.admin_token().map(Secret::expose),
        "default_mode": s.stored.default_mode,
        "allow_launch": s.stored.allow_launch,
        "token_env_pinned": s.env.token.is_some(),
        "admin_token_env_pinned": s.env.admin_token.is_some(),
        "known_scopes": known_scopes(state),
        "local_url": state.broker.local_url,
    })
}

/// What a `/mcp/config` POST sets a token to.
enum TokenChange {
    Keep,
    Clear,
    Mint,
    Set(Secret),
}

fn token_change(f: &Fields, key: &str, generate_key: &str) -> Result<TokenChange, Refusal> {
    let generate = fields::opt_bool(f, generate_key)?.unwrap_or(false);
    let change = match f.get(key) {
        None => TokenChange::Keep,
        Some(Value::Null) => TokenChange::Clear,
        Some(Value::String(s)) => TokenChange::Set(
            Secret::configured(s).map_err(|e| Refusal::BadRequest(format!("{key}: {e}")))?,
        ),
        Some(_) => {
            return Err(Refusal::BadRequest(format!(
                "{key}: accepted: a token string, or null to clear it"
            )))
        }
    };
    match (generate, change) {
        (false, c) => Ok(c),
        (true, TokenChange::Keep) => Ok(TokenChange::Mint),
        (true, _) => Err(Refusal::BadRequest(format!(
            "give {generate_key} or {key}, not both"
        ))),
    }
}

fn apply_token(
    slot: &mut Option<Secret>,
    change: TokenChange,
    pinned: bool,
) -> Result<(), Refusal> {
    if matches!(change, TokenChange::Keep) {
        return Ok(());
    }
    if pinned {
        return Err(Refusal::TokenEnvPinned);
    }
    *slot = match change {
        TokenChange::Keep => return Ok(()),
        TokenChange::Clear => None,
        TokenChange::Set(t) => Some(t),
        TokenChange::Mint => Some(Secret::mint().map_err(|e| {
            tracing::error!(error = %e, "cannot mint a token");
            Refusal::PersistFailed
        })?),
    };
    Ok(())
}

/// `POST /mcp/config` (page token): a partial update → the new [`config`]. Fields: `enabled`,
/// `default_mode`, `allow_launch`, `generate: true` (mints the MCP token), `token` (a string
/// sets it, `null` clears it), `generate_admin: true` (ext, mints the admin token),
/// `admin_token` (a string sets it, `null` clears it). A token the environment pins cannot be
/// changed (`409 token_env_pinned`). Every field is validated before anything changes.
pub async fn update_config(state: &AppState, body: &[u8]) -> Result<Value, Refusal> {
    let f = fields::object(body, true)?;
    fields::only(
        &f,
        &[
            "enabled",
            "allow_launch",
            "default_mode",
            "token",
            "generate",
            "admin_token",
            "generate_admin",
        ],
    )?;
    let enabled = fields::opt_bool(&f, "enabled")?;
    let allow_launch = fields::opt_bool(&f, "allow_launch")?;
    let default_mode = fields::get(&f, "default_mode").map(mode_of).transpose()?;
    let token = token_change(&f, "token", "generate")?;
    let admin = token_change(&f, "admin_token", "generate_admin")?;
    state
        .broker
        .update_settings(|s, current| {
            apply_token(&mut s.token, token, current.env.token.is_some())?;
            apply_token(&mut s.admin_token, admin, current.env.admin_token.is_some())?;
            if let Some(e) = enabled {
                s.enabled = e;
            }
            if let Some(a) = allow_launch {
                s.allow_launch = a;
            }
            if let Some(m) = default_mode {
                s.default_mode = m;
            }
            Ok(())
        })
        .await?;
    Ok(config(state))
}

// ---- the page's own sessions ----

/// Starts a session for the page (`POST /sessions`, `/ws` without `session`): the user's shell,
/// kind `shell`, with the settings its row in the windows file gives (when that row describes
/// the same process), published at once.
pub fn create_page_session(
    state: &AppState,
    size: Size,
) -> Result<std::sync::Arc<Session>, CreateError> {
    let spec = SessionSpec {
        program: state.registry.shell().clone(),
        size,
        window: WindowState::new(SHELL_KIND, None, WindowMeta::default()),
    };
    let session = state.registry.create(spec)?;
    state.broker.restore(&session);
    state.registry.publish(&session);
    Ok(session)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: Value) -> Fields {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn keys_are_validated_as_a_whole() {
        let ok = keys_args(&f(
            json!({"keys": ["C-c", "Up", "x", "Enter"], "delay_ms": 1000}),
        ))
        .unwrap();
        assert_eq!(ok.chords.len(), 4);
        assert_eq!(ok.delay, Some(Duration::from_millis(MAX_PACE_MS)));
        // Over the limit is refused, not lowered (newcomer report: 5000 paced at 1000).
        for bad in [json!(5000), json!(-1), json!(1001)] {
            match keys_args(&f(json!({"keys": ["x"], "delay_ms": bad}))) {
                Err(Refusal::BadRequest(d)) => assert!(d.contains("0..1000"), "{d}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        match keys_args(&f(json!({"keys": ["Enter", "Bogus"]}))).unwrap_err() {
            Refusal::BadKeys(d) => assert!(d.contains("Bogus"), "{d}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            keys_args(&f(json!({"keys": "Enter"}))),
            Err(Refusal::BadKeys(_))
        ));
        assert!(matches!(
            keys_args(&f(json!({"keys": [1]}))),
            Err(Refusal::BadKeys(_))
        ));
        assert!(matches!(
            keys_args(&f(json!({"keys": vec!["a"; MAX_KEYS + 1]}))),
            Err(Refusal::TooLarge(_))
        ));
        assert!(matches!(
            keys_args(&f(json!({"keys": [], "delay_ms": "1"}))),
            Err(Refusal::BadRequest(_))
        ));
    }

    #[test]
    fn input_limits() {
        assert_eq!(
            input_data(&f(json!({"data": "ls\r"}))).unwrap(),
            Bytes::from("ls\r")
        );
        assert_eq!(input_data(&f(json!({"data": 5}))), Err(Refusal::BadData));
        assert_eq!(input_data(&f(json!({}))), Err(Refusal::BadData));
        let big = "x".repeat(MAX_INPUT_BYTES + 1);
        assert!(matches!(
            input_data(&f(json!({ "data": big }))),
            Err(Refusal::TooLarge(_))
        ));
        let edge = "é".repeat(MAX_INPUT_BYTES / 2);
        assert!(input_data(&f(json!({ "data": edge }))).is_ok());
    }

    #[test]
    fn pace_is_clamped_or_refused() {
        assert_eq!(pace_arg(&f(json!({"pace_ms": 5000}))), Ok(MAX_PACE_MS));
        assert_eq!(pace_arg(&f(json!({"pace_ms": -1}))), Ok(0));
        assert_eq!(pace_arg(&f(json!({"pace_ms": "5"}))), Err(Refusal::BadPace));
        assert_eq!(pace_arg(&f(json!({}))), Err(Refusal::BadPace));
    }

    #[test]
    fn cwd_checks() {
        assert_eq!(check_cwd("relative"), Err(Refusal::BadCwd));
        assert_eq!(check_cwd("/no/such/dir/x"), Err(Refusal::BadCwd));
        assert_eq!(check_cwd("/etc/passwd"), Err(Refusal::CwdNotDir));
        assert!(check_cwd("/tmp").is_ok());
    }
}

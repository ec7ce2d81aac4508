//! The page realm's services over the broker (page token, not the MCP ladder):
//! `GET/POST /mcp/config` (the MCP settings and tokens a person sets) and `POST /session/mcp`
//! (a window's mode and scope, set from its page).

use serde_json::{json, Value};

use super::hub::Broker;
use super::window::{mode_field, scope_field, window_answer, Scope, WindowMeta, WindowState};
use crate::ground::fields::{self, Fields};
use crate::ground::{Refusal, Secret};

// ---- /session/mcp (page realm) ----

/// `POST /session/mcp` (page token): `{id, mode?, scope?, redact?, secret_input?}`, an absent
/// key keeps, a value sets, `null` clears (`redact`: a boolean, default true; `secret_input`:
/// a boolean, default false) → `{ok, id, mode, scope, effective_mode, redact, secret_input}`
/// (`mode` is the window's own). A change of mode or scope clears the window's launch owner; a
/// body with none of the keys only reads. Only this route (the person at the page) turns
/// redaction off or lets agents type at secret prompts: no MCP route or tool can.
pub async fn session_mcp(broker: &Broker, body: &[u8]) -> Result<Value, Refusal> {
    let f = fields::object(body, false)?;
    let id = fields::id(&f)?;
    let window = broker.find(id).map_err(|_| Refusal::UnknownSession)?;
    let session = &window.session;
    fields::only(&f, &["id", "mode", "scope", "redact", "secret_input"])?;
    let mode = match f.get("mode") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(v) => Some(Some(mode_field(v)?)),
    };
    let scope = match f.get("scope") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(v) => Some(Some(scope_field(v)?)),
    };
    let redact =
        match f.get("redact") {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(Value::Null) => Some(true),
            Some(_) => return Err(Refusal::BadRequest(
                "redact: accepted: true (agents read secrets as [redacted:KIND], the default), \
                 false (they read them as they are), or null (the default)"
                    .into(),
            )),
        };
    let secret_input = match f.get("secret_input") {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::Null) => Some(false),
        Some(_) => {
            return Err(Refusal::BadRequest(
                "secret_input: accepted: true (agents may type at this window's secret \
                 prompts), false (they may not, the default), or null (the default)"
                    .into(),
            ))
        }
    };
    if mode.is_none() && scope.is_none() && redact.is_none() && secret_input.is_none() {
        return Ok(window_answer(id, &window.meta, default_mode(broker)));
    }
    let access_changed = mode.is_some() || scope.is_some();
    let meta = broker
        .commit_meta(session, |m| WindowMeta {
            scope: scope.unwrap_or_else(|| m.scope.clone()),
            mode: mode.unwrap_or(m.mode),
            owner: if access_changed {
                None
            } else {
                m.owner.clone()
            },
            unredacted: redact.map_or(m.unredacted, |r| !r),
            secret_input: secret_input.unwrap_or(m.secret_input),
        })
        .await?;
    Ok(window_answer(id, &meta, default_mode(broker)))
}

fn default_mode(broker: &Broker) -> super::window::Mode {
    broker.settings().stored.default_mode
}

// ---- /mcp/config (page realm) ----

/// Every scope a window is tagged with, live or on disk, sorted.
fn known_scopes(broker: &Broker) -> Vec<Scope> {
    let mut scopes: Vec<Scope> = broker
        .registry
        .sessions()
        .iter()
        .filter_map(|s| WindowState::of(s).and_then(|w| w.meta().scope))
        .chain(
            broker
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
pub fn config(broker: &Broker) -> Value {
    let s = broker.settings();
    json!({
        "ok": true,
        "enabled": s.stored.enabled,
        "token": s.token().map(Secret::expose),
        "admin_token": s.admin_token().map(Secret::expose),
        "default_mode": s.stored.default_mode,
        "allow_launch": s.stored.allow_launch,
        "token_env_pinned": s.env.token.is_some(),
        "admin_token_env_pinned": s.env.admin_token.is_some(),
        "known_scopes": known_scopes(broker),
        "local_url": broker.local_url,
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
pub async fn update_config(broker: &Broker, body: &[u8]) -> Result<Value, Refusal> {
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
    let default_mode = fields::get(&f, "default_mode")
        .map(mode_field)
        .transpose()?;
    let token = token_change(&f, "token", "generate")?;
    let admin = token_change(&f, "admin_token", "generate_admin")?;
    broker
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
    Ok(config(broker))
}

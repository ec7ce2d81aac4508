//! `POST /mcp/launch`, the `launch_terminal` tool: a new window from a profile.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde_json::{json, Value};
use wterm_core::Size;

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::broker::hub::Broker;
use crate::broker::window::{Mode, OwnerHash, Scope, WindowMeta, WindowState};
use crate::ground::fields::{self, Fields};
use crate::ground::limits::{DIMS, MAX_LAUNCH_TITLE_BYTES};
use crate::ground::program::Program;
use crate::ground::text::strip_controls;
use crate::ground::{Refusal, Secret};
use crate::session::registry::CreateError;
use crate::session::SessionSpec;

/// A validated `/mcp/launch` request.
#[derive(Debug, JsonSchema)]
pub struct Launch {
    /// A profile name from list_profiles (default: the relay's default profile).
    #[schemars(with = "Option<String>")]
    pub profile: String,
    /// The profile's program, with `cwd` applied.
    #[schemars(skip)]
    pub program: Program,
    /// Columns, 1..1000 (default 80).
    #[schemars(with = "Option<u16>", range(min = 1, max = 1000))]
    pub cols: u16,
    /// Rows, 1..1000 (default 24).
    #[schemars(with = "Option<u16>", range(min = 1, max = 1000))]
    pub rows: u16,
    /// A title for the window.
    pub title: Option<String>,
    /// Absolute path of the working directory.
    #[schemars(with = "Option<String>")]
    pub cwd: Option<PathBuf>,
    /// "readwrite" (default), "read" or "off".
    #[schemars(with = "Option<String>")]
    pub mode: Mode,
}

impl Launch {
    /// `{profile?, cols=80, rows=24, title?, cwd?, mode?}`, refused in the contract's order:
    /// `bad_request` (unknown field, wrong type, title over [`MAX_LAUNCH_TITLE_BYTES`]),
    /// `bad_dims`, `bad_mode`, `bad_cwd`/`cwd_not_dir`, `unknown_profile`.
    pub fn from_fields(broker: &Broker, f: &Fields) -> Result<Launch, Refusal> {
        fields::only(f, &["profile", "cols", "rows", "title", "cwd", "mode"])?;
        let profile = fields::opt_str(f, "profile")?;
        let title = fields::opt_str(f, "title")?;
        if title.is_some_and(|t| t.len() > MAX_LAUNCH_TITLE_BYTES) {
            return Err(Refusal::BadRequest(format!(
                "title: accepted: at most {MAX_LAUNCH_TITLE_BYTES} bytes"
            )));
        }
        let cwd = fields::opt_str(f, "cwd")?;
        let mode_field = fields::opt_str(f, "mode")?;
        let dim = |key: &str, default: u16| match fields::get(f, key) {
            None => Ok(default),
            Some(v) => v
                .as_u64()
                .and_then(|n| u16::try_from(n).ok())
                .filter(|n| DIMS.contains(n))
                .ok_or(Refusal::BadDims),
        };
        let (rows, cols) = (dim("rows", 24)?, dim("cols", 80)?);
        let mode = match mode_field {
            None => Mode::Readwrite,
            Some(m) => m.parse().map_err(|()| Refusal::BadMode)?,
        };
        let cwd = cwd.map(check_cwd).transpose()?;
        let profile = profile.unwrap_or(broker.profiles.default_name());
        let mut program = broker
            .profiles
            .get(profile)
            .ok_or(Refusal::UnknownProfile)?
            .clone();
        if cwd.is_some() {
            program.cwd.clone_from(&cwd);
        }
        Ok(Launch {
            profile: profile.to_owned(),
            program,
            cols,
            rows,
            // Kept without control characters: it is listed to clients as given.
            title: title.map(|t| strip_controls(t).into_owned()),
            cwd,
            mode,
        })
    }
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

impl Operation for Launch {
    const SPEC: Spec = Spec {
        path: "/mcp/launch",
        method: Method::Post,
        tool: "launch_terminal",
        title: "Launch a terminal",
        description: "Start a new terminal from a profile (list_profiles); answers its id. The \
            window is readwrite unless mode says otherwise, and this server may change its \
            scope and mode with set_window.",
        target: Target::None,
        admin_only: false,
        ext: false,
        host: HostArg::Optional,
        read_only: false,
        destructive: false,
        idempotent: false,
    };
    type Answer = Value;

    /// `terminals_disabled` (with `--no-terminals`), then `launch_disabled`.
    fn admit(broker: &Broker) -> Result<(), Refusal> {
        if !broker.terminals {
            return Err(Refusal::TerminalsDisabled);
        }
        if !broker.settings().stored.allow_launch {
            return Err(Refusal::LaunchDisabled);
        }
        Ok(())
    }

    fn parse(cx: &Cx<'_>, fields: &Fields) -> Result<Self, Refusal> {
        Launch::from_fields(cx.broker, fields)
    }

    /// → `{ok, id, registered, pid, handle, scope?, mode}`; after the parse's refusals,
    /// `too_many_pending_launches` (and `too_many_sessions`), `spawn_failed`.
    ///
    /// The window starts tagged with the caller's scope, in `readwrite` unless `mode` says
    /// otherwise, owned by the returned `handle` (only its SHA-256 is kept); its row is on
    /// disk and it is listed only then.
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let broker = cx.broker;
        let _pending = broker
            .begin_launch()
            .ok_or(Refusal::TooManyPendingLaunches)?;
        let handle = Secret::mint().map_err(|e| {
            tracing::error!(error = %e, "cannot mint a launch handle");
            Refusal::SpawnFailed
        })?;
        let meta = WindowMeta {
            scope: cx.caller.scope.clone(),
            mode: Some(self.mode),
            owner: Some(OwnerHash::of(handle.expose())),
            unredacted: false,
            secret_input: false,
        };
        let spec = SessionSpec {
            program: self.program,
            size: Size::new(self.rows, self.cols),
            label: WindowState::label(&self.profile, self.title.as_deref()),
            attachment: Box::new(WindowState::new(&self.profile, self.title, meta.clone())),
        };
        let registry = broker.registry.clone();
        let created = tokio::task::spawn_blocking(move || registry.create(spec))
            .await
            .map_err(|_| Refusal::SpawnFailed)?;
        let session = match created {
            Ok(s) => s,
            Err(CreateError::TooMany) => return Err(Refusal::TooManySessions),
            Err(CreateError::OverBudget(e)) => return Err(Refusal::MemoryBudget(e.to_string())),
            Err(e @ CreateError::Spawn(_)) => {
                tracing::warn!(error = %e, profile = self.profile, "launch failed");
                return Err(Refusal::SpawnFailed);
            }
        };
        if let Err(refusal) = broker.commit_meta(&session, |_| meta.clone()).await {
            broker.registry.discard(&session);
            return Err(refusal);
        }
        broker.registry.publish(&session);
        tracing::info!(session = session.id(), profile = self.profile, scope = ?meta.scope.as_ref().map(Scope::as_str), "launched");
        let mut answer = json!({
            "ok": true,
            "id": session.id(),
            "registered": true,
            "pid": session.pid(),
            "handle": handle.expose(),
            "mode": self.mode,
        });
        if let Some(scope) = &meta.scope {
            answer["scope"] = json!(scope);
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_checks() {
        assert_eq!(check_cwd("relative"), Err(Refusal::BadCwd));
        assert_eq!(check_cwd("/no/such/dir/x"), Err(Refusal::BadCwd));
        assert_eq!(check_cwd("/etc/passwd"), Err(Refusal::CwdNotDir));
        assert!(check_cwd("/tmp").is_ok());
    }
}

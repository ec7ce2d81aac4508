//! [`Broker`]: the broker's state over the relay's sessions, and the chokepoints every
//! operation goes through: [`Broker::resolve`] (id → window → scope → mode, so all refuse
//! alike), [`Broker::commit_meta`] (a window's settings, on disk before in force) and
//! [`Broker::update_settings`].

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use wterm_core::agent::redact::{self, Redactor};
use wterm_core::Size;

use super::audit::AuditLog;
use super::reads::ReadBudget;
use super::settings::{self, Settings, StoredSettings};
use super::store::{pid_alive, unix_now, Row, WindowStore};
use super::window::{Caller, Mode, WindowMeta, WindowState};
use crate::ground::config::{write_private_atomic, Config};
use crate::ground::profiles::Profiles;
use crate::ground::refusal::unknown_or_off;
use crate::ground::Refusal;
use crate::session::registry::{CreateError, Registry};
use crate::session::{Session, SessionId, SessionSpec};

/// `kind` of the page's own sessions.
pub const SHELL_KIND: &str = "shell";

/// A window an operation may act on, as [`Broker::resolve`] found it.
#[derive(Debug, Clone)]
pub struct Window {
    /// The session.
    pub session: Arc<Session>,
    /// Its settings at resolution time.
    pub meta: WindowMeta,
    /// Its effective mode at resolution time.
    pub mode: Mode,
}

/// What an operation needs of a window (ladder steps 6 and 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Visible to the caller and not `off`.
    Read,
    /// As [`Access::Read`], and `readwrite`.
    Write,
}

/// The broker's state.
#[derive(Debug)]
pub struct Broker {
    settings: RwLock<Arc<Settings>>,
    settings_gate: tokio::sync::Mutex<()>,
    settings_path: PathBuf,
    /// Each window's settings on disk.
    pub store: WindowStore,
    /// This machine's name, as `/mcp/terminals` and the windows file give it.
    pub host: String,
    /// The launch profiles.
    pub profiles: Profiles,
    /// Whether MCP clients may have terminals launched.
    pub terminals: bool,
    pending_launches: AtomicUsize,
    /// The relay's base URL on loopback (`http://127.0.0.1:PORT`).
    pub local_url: String,
    /// The sessions the windows are.
    pub registry: Registry,
    /// The page's base URL as the relay printed it at start, without the token
    /// (`http://ADDR:PORT/`); `watch_url` adds `?session=N`.
    pub page_url: String,
    /// The audit log (`STATE_DIR/audit`).
    pub audit: AuditLog,
    /// The cells large reads hold at once.
    pub reads: ReadBudget,
    /// The page token, one of the literals agent reads never carry ([`Broker::redactor`]).
    page_token: crate::ground::Secret,
}

impl Broker {
    /// Loads the settings and the windows file from `config.state_dir` and opens the audit log
    /// there; the windows are the sessions of `registry`. `page_url` is the printed page URL
    /// without its token.
    pub fn new(config: &Config, local_url: String, page_url: String, registry: Registry) -> Broker {
        let stored = settings::load(&config.state_dir);
        let host = hostname();
        Broker {
            settings: RwLock::new(Arc::new(Settings {
                stored,
                env: config.env_tokens.clone(),
            })),
            settings_gate: tokio::sync::Mutex::new(()),
            settings_path: settings::settings_path(&config.state_dir),
            store: WindowStore::load(&config.state_dir, &host),
            host,
            profiles: config.profiles.clone(),
            terminals: config.terminals,
            pending_launches: AtomicUsize::new(0),
            local_url,
            registry,
            page_url,
            audit: AuditLog::open(&config.state_dir, config.audit_reads),
            reads: ReadBudget::default(),
            page_token: config.page_token.clone(),
        }
    }

    /// What agent reads of a window with `meta` pass through: the core's secret kinds and this
    /// relay's own tokens in force (page, MCP, admin) as `relay_token`; `None` when the person
    /// at the page turned redaction off for the window ([`WindowMeta::unredacted`]).
    pub fn redactor(&self, meta: &WindowMeta) -> Option<Redactor> {
        (!meta.unredacted).then(|| self.secrets())
    }

    /// The core's secret kinds and this relay's tokens in force, whatever a window's setting:
    /// what the audit log's summaries pass through.
    pub fn secrets(&self) -> Redactor {
        let s = self.settings();
        let mut r = Redactor::new();
        for t in [Some(&self.page_token), s.token(), s.admin_token()]
            .into_iter()
            .flatten()
        {
            r.add_literal(t.expose(), redact::RELAY_TOKEN);
        }
        r
    }

    /// The settings in force (read live by every request).
    pub fn settings(&self) -> Arc<Settings> {
        self.settings
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Changes the stored settings with `change` (which may refuse): the new settings are
    /// written to `webterm_mcp.json` first, then put in force. Edits run one at a time.
    pub async fn update_settings(
        &self,
        change: impl FnOnce(&mut StoredSettings, &Settings) -> Result<(), Refusal>,
    ) -> Result<Arc<Settings>, Refusal> {
        let _gate = self.settings_gate.lock().await;
        let current = self.settings();
        let mut stored = current.stored.clone();
        change(&mut stored, &current)?;
        let next = Arc::new(Settings {
            stored,
            env: current.env.clone(),
        });
        if next.stored != current.stored {
            let path = self.settings_path.clone();
            let bytes = next.stored.to_json();
            tokio::task::spawn_blocking(move || write_private_atomic(&path, &bytes))
                .await
                .map_err(std::io::Error::other)
                .and_then(|r| r)
                .map_err(|e| {
                    tracing::error!(error = %e, "cannot write the MCP settings");
                    Refusal::PersistFailed
                })?;
            *self.settings.write().unwrap_or_else(|e| e.into_inner()) = next.clone();
            // `default_mode` and the switch decide what callers may do: waits check again.
            for session in self.registry.sessions() {
                if let Some(state) = WindowState::of(&session) {
                    state.access_changed();
                }
            }
        }
        Ok(next)
    }

    /// The chokepoint: the window `id` as `caller` may use it for `access`. A missing window,
    /// an `off` one and one the caller may not see all give the same [`unknown_or_off`]; a
    /// write to a window that is not `readwrite` gives `read_only`, only after that.
    pub fn resolve(
        &self,
        caller: &Caller,
        id: SessionId,
        access: Access,
    ) -> Result<Window, Refusal> {
        let window = self.find(id)?;
        let (meta, mode) = (&window.meta, window.mode);
        // An admin sees `off` windows listed, but reading or typing still needs the mode.
        if mode == Mode::Off || !caller.sees(meta, mode) {
            return Err(unknown_or_off());
        }
        if access == Access::Write && mode != Mode::Readwrite {
            return Err(Refusal::ReadOnly);
        }
        Ok(window)
    }

    /// The live window `id` whatever its mode and scope (`unknown_or_off` when there is none):
    /// for `/mcp/window`, which decides access by the launch handle, and the page realm.
    pub fn find(&self, id: SessionId) -> Result<Window, Refusal> {
        let session = self
            .registry
            .get(id)
            .filter(|s| !s.has_ended())
            .ok_or_else(unknown_or_off)?;
        let meta = WindowState::of(&session).ok_or_else(unknown_or_off)?.meta();
        let mode = meta.effective_mode(self.settings().stored.default_mode);
        Ok(Window {
            session,
            meta,
            mode,
        })
    }

    /// Every live window with its settings and effective mode, by id.
    pub fn windows(&self) -> Vec<Window> {
        let default_mode = self.settings().stored.default_mode;
        self.registry
            .sessions()
            .into_iter()
            .filter(|s| !s.has_ended())
            .filter_map(|session| {
                let meta = WindowState::of(&session)?.meta();
                let mode = meta.effective_mode(default_mode);
                Some(Window {
                    session,
                    meta,
                    mode,
                })
            })
            .collect()
    }

    /// Changes window `session`'s settings with `change`, under the store's edit lock: the new
    /// row is written to `webterm_mcp_windows.json` first, then put in force. Returns the new
    /// settings; `persist_failed` when the file cannot be written (nothing changes then).
    pub async fn commit_meta(
        &self,
        session: &Session,
        change: impl FnOnce(&WindowMeta) -> WindowMeta,
    ) -> Result<WindowMeta, Refusal> {
        let state = WindowState::of(session).ok_or_else(unknown_or_off)?;
        let guard = self.store.edit().await;
        let meta = change(&state.meta());
        let mut rows = (*self.store.rows()).clone();
        let now = unix_now();
        match session.pid().filter(|p| *p != 0) {
            Some(pid) if !meta.is_empty() => {
                rows.0.insert(
                    session.id(),
                    Row {
                        meta: meta.clone(),
                        pid,
                        host: self.host.clone(),
                        seen: now,
                    },
                );
            }
            _ => {
                rows.0.remove(&session.id());
            }
        }
        rows.prune(now, &self.host, pid_alive, |id| self.registry.pid_of(id));
        self.store.commit(&guard, rows).await.map_err(|e| {
            tracing::error!(error = %e, "cannot write the windows file");
            Refusal::PersistFailed
        })?;
        state.set_meta(meta.clone());
        session.set_agents_may_type_secrets(meta.secret_input);
        Ok(meta)
    }

    /// Starts a session for the page (`POST /sessions`, `/ws` without `session`): the user's
    /// shell, kind `shell`, with the settings its row in the windows file gives (when that row
    /// describes the same process), published at once.
    pub fn create_page_session(&self, size: Size) -> Result<Arc<Session>, CreateError> {
        let spec = SessionSpec {
            program: self.registry.shell().clone(),
            size,
            attachment: Box::new(WindowState::new(SHELL_KIND, None, WindowMeta::default())),
            label: WindowState::label(SHELL_KIND, None),
        };
        let session = self.registry.create(spec)?;
        self.restore(&session);
        self.registry.publish(&session);
        Ok(session)
    }

    /// Takes over the sessions a previous relay left in their holders (see
    /// `Registry::adopt`): each gets its window back, with the settings its row in the windows
    /// file gives (same id, same process), and is published. Returns how many.
    pub fn adopt_held_sessions(&self) -> usize {
        let sessions = self
            .registry
            .adopt(|label| Box::new(WindowState::from_label(label)));
        for s in &sessions {
            self.restore(s);
            self.registry.publish(s);
        }
        sessions.len()
    }

    /// Gives window `session` the settings of its row in the windows file, when that row
    /// describes the same process on this host (a relay restart while the process lives on).
    pub fn restore(&self, session: &Session) {
        let rows = self.store.rows();
        if let Some(row) = session
            .pid()
            .and_then(|pid| rows.applying(session.id(), pid, &self.host))
        {
            if let Some(state) = WindowState::of(session) {
                state.set_meta(row.meta.clone());
                session.set_agents_may_type_secrets(row.meta.secret_input);
            }
        }
    }

    /// Counts a launch in progress; `None` when [`crate::ground::limits::MAX_PENDING_LAUNCHES`] are.
    pub(super) fn begin_launch(&self) -> Option<PendingLaunch<'_>> {
        let limit = crate::ground::limits::MAX_PENDING_LAUNCHES;
        self.pending_launches
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < limit).then_some(n + 1)
            })
            .ok()
            .map(|_| PendingLaunch(&self.pending_launches))
    }
}

/// A launch in progress; uncounted on drop.
pub(super) struct PendingLaunch<'a>(&'a AtomicUsize);

impl Drop for PendingLaunch<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// This machine's host name (`gethostname(2)`), or `"localhost"` when it has none.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it or fails.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let name = if r == 0 {
        let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        String::new()
    };
    if name.is_empty() {
        "localhost".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::config::ServeArgs;

    fn broker(state: &std::path::Path) -> Broker {
        let args = ServeArgs {
            listen: [127, 0, 0, 1].into(),
            port: 0,
            state_dir: Some(state.to_path_buf()),
            www_dir: None,
            pkg_dir: None,
            allow_origins: vec![],
            shell: Some("/bin/sh".into()),
            config: None,
            no_terminals: false,
            tls_cert: None,
            tls_key: None,
            allow_plain_http: false,
            hsts: false,
            memory_budget_mib: crate::ground::limits::DEFAULT_MEMORY_BUDGET_MIB,
            audit_reads: false,
            persist: false,
            no_persist: false,
        };
        let config = Config::resolve_with(args, |_| None).unwrap();
        let registry = Registry::new(
            crate::ground::program::Program::shell("/bin/sh"),
            None,
            u64::MAX,
            false,
        );
        Broker::new(
            &config,
            "http://127.0.0.1:1".into(),
            "http://127.0.0.1:1/".into(),
            registry,
        )
    }

    #[test]
    fn at_most_eight_launches_are_pending() {
        let dir = tempfile::tempdir().unwrap();
        let b = broker(dir.path());
        let held: Vec<_> = (0..crate::ground::limits::MAX_PENDING_LAUNCHES)
            .map(|_| b.begin_launch().expect("under the limit"))
            .collect();
        assert!(b.begin_launch().is_none());
        drop(held);
        assert!(b.begin_launch().is_some());
    }

    #[tokio::test]
    async fn settings_are_written_before_they_are_in_force() {
        let dir = tempfile::tempdir().unwrap();
        let b = broker(dir.path());
        assert!(!b.settings().mcp_open());
        let path = settings::settings_path(dir.path());
        assert!(!path.exists(), "nothing is written until something changes");
        let refused = b
            .update_settings(|s, _| {
                s.enabled = true;
                Err(Refusal::BadMode)
            })
            .await;
        assert_eq!(refused.unwrap_err(), Refusal::BadMode);
        assert!(
            !b.settings().stored.enabled,
            "a refused change changes nothing"
        );
        b.update_settings(|s, _| {
            s.enabled = true;
            s.token = Some(crate::ground::Secret::new("written-token").unwrap());
            Ok(())
        })
        .await
        .unwrap();
        assert!(b.settings().mcp_open());
        assert_eq!(settings::load(dir.path()), b.settings().stored);
        // A state directory that cannot be written: the change is refused and not applied.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        let r = b.update_settings(|s, _| {
            s.allow_launch = true;
            Ok(())
        });
        assert_eq!(r.await.unwrap_err(), Refusal::PersistFailed);
        assert!(!b.settings().stored.allow_launch);
    }
}

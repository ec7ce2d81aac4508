//! The broker: MCP access to the relay's sessions (broker contract, `spec/broker-api.md`).
//!
//! - [`ops`]: [`ops::Op`], the one list of operations (routes, MCP tools, tests);
//! - [`window`]: [`window::Mode`], [`window::Scope`], [`window::OwnerHash`], and the
//!   [`window::Caller`] they are checked against;
//! - [`settings`]: `webterm_mcp.json` and the MCP/admin tokens;
//! - [`store`]: `webterm_mcp_windows.json`, each window's settings across restarts;
//! - [`read`]: `/mcp/read`: views, hashes, waits, deltas, style runs;
//! - [`service`]: one function per operation; the HTTP handlers (`http/mcp.rs`) and the MCP
//!   tools are thin wrappers over them.
//!
//! [`Broker`] holds the state; [`Broker::resolve`] is the chokepoint every operation on a
//! window goes through (id → window → scope → mode), so all refuse identically.
//!
//! Windows are the relay's sessions, and a window id is its session id.

pub mod fields;
pub mod ops;
pub mod read;
pub mod service;
pub mod settings;
pub mod store;
pub mod window;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use crate::auth::ladder::unknown_or_off;
use crate::auth::Refusal;
use crate::config::{write_private_atomic, Config};
use crate::profiles::Profiles;
use crate::session::registry::Registry;
use crate::session::{Session, SessionId};
use read::FrameCache;
use settings::{Settings, StoredSettings};
use store::WindowStore;
use window::{Caller, Mode, WindowMeta};

/// A window's MCP state, held by its session from before the process starts.
#[derive(Debug)]
pub struct WindowState {
    meta: Mutex<WindowMeta>,
    pace_ms: AtomicU64,
    /// `"shell"` for the page's sessions, else the profile a launch named.
    pub kind: String,
    /// The `title` a launch gave, if any.
    pub launch_title: Option<String>,
    frames: Mutex<FrameCache>,
}

impl WindowState {
    /// A window of `kind` with these settings.
    pub fn new(kind: &str, launch_title: Option<String>, meta: WindowMeta) -> WindowState {
        WindowState {
            meta: Mutex::new(meta),
            pace_ms: AtomicU64::new(0),
            kind: kind.to_owned(),
            launch_title,
            frames: Mutex::new(FrameCache::default()),
        }
    }

    /// Scope, raw mode and owner.
    pub fn meta(&self) -> WindowMeta {
        self.meta.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Puts new settings in force. Callers write them to disk first ([`WindowStore::commit`]).
    fn set_meta(&self, meta: WindowMeta) {
        *self.meta.lock().unwrap_or_else(|e| e.into_inner()) = meta;
    }

    /// The default pause between `/mcp/keys` tokens, in milliseconds (not persisted).
    pub fn pace_ms(&self) -> u64 {
        self.pace_ms.load(Ordering::Relaxed)
    }

    fn set_pace_ms(&self, ms: u64) {
        self.pace_ms.store(ms, Ordering::Relaxed);
    }

    pub(crate) fn frames(&self) -> std::sync::MutexGuard<'_, FrameCache> {
        self.frames.lock().unwrap_or_else(|e| e.into_inner())
    }
}

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
}

impl Broker {
    /// Loads the settings and the windows file from `config.state_dir`.
    pub fn new(config: &Config, local_url: String) -> Broker {
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
        }
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
        }
        Ok(next)
    }

    /// The chokepoint: the window `id` as `caller` may use it for `access`. A missing window,
    /// an `off` one and one the caller may not see all give the same [`unknown_or_off`]; a
    /// write to a window that is not `readwrite` gives `read_only`, only after that.
    pub fn resolve(
        &self,
        registry: &Registry,
        caller: &Caller,
        id: SessionId,
        access: Access,
    ) -> Result<Window, Refusal> {
        let session = registry
            .get(id)
            .filter(|s| !s.has_ended())
            .ok_or_else(unknown_or_off)?;
        let meta = session.window.meta();
        let mode = meta.effective_mode(self.settings().stored.default_mode);
        // An admin sees `off` windows listed, but reading or typing still needs the mode.
        if mode == Mode::Off || !caller.sees(&meta, mode) {
            return Err(unknown_or_off());
        }
        if access == Access::Write && mode != Mode::Readwrite {
            return Err(Refusal::ReadOnly);
        }
        Ok(Window {
            session,
            meta,
            mode,
        })
    }

    /// Gives window `session` the settings of its row in the windows file, when that row
    /// describes the same process on this host (a relay restart while the process lives on).
    pub fn restore(&self, session: &Session) {
        let rows = self.store.rows();
        if let Some(row) = session
            .pid()
            .and_then(|pid| rows.applying(session.id(), pid, &self.host))
        {
            session.window.set_meta(row.meta.clone());
        }
    }

    /// Counts a launch in progress; `None` when [`crate::limits::MAX_PENDING_LAUNCHES`] are.
    fn begin_launch(&self) -> Option<PendingLaunch<'_>> {
        let limit = crate::limits::MAX_PENDING_LAUNCHES;
        self.pending_launches
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < limit).then_some(n + 1)
            })
            .ok()
            .map(|_| PendingLaunch(&self.pending_launches))
    }
}

/// A launch in progress; uncounted on drop.
struct PendingLaunch<'a>(&'a AtomicUsize);

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
    use crate::config::ServeArgs;

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
        };
        let config = Config::resolve_with(args, |_| None).unwrap();
        Broker::new(&config, "http://127.0.0.1:1".into())
    }

    #[test]
    fn at_most_eight_launches_are_pending() {
        let dir = tempfile::tempdir().unwrap();
        let b = broker(dir.path());
        let held: Vec<_> = (0..crate::limits::MAX_PENDING_LAUNCHES)
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
            s.token = Some(crate::auth::Secret::new("written-token").unwrap());
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

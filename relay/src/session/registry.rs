//! [`Registry`]: the live sessions by id.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::task::TaskTracker;

use super::budget::{cost, MemoryBudget, OverBudget};
use super::{holder, pty, Attachment, Session, SessionId, SessionInfo, SessionSpec};
use crate::ground::limits::{KILL_GRACE, MAX_SESSIONS};
use crate::ground::program::Program;
use crate::ground::shell_integration::ScriptDir;

/// Why a session could not be created.
#[derive(Debug)]
pub enum CreateError {
    /// [`MAX_SESSIONS`] are running.
    TooMany,
    /// The memory budget cannot hold a terminal of the asked size.
    OverBudget(OverBudget),
    /// The PTY or the program could not be started.
    Spawn(std::io::Error),
}

impl fmt::Display for CreateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CreateError::TooMany => write!(f, "too many sessions (at most {MAX_SESSIONS})"),
            CreateError::OverBudget(e) => e.fmt(f),
            CreateError::Spawn(e) => write!(f, "cannot start the program: {e}"),
        }
    }
}

impl std::error::Error for CreateError {}

/// File in the state directory that holds the next session id, so a restarted relay never hands
/// out an id an old tab may still hold (that tab would re-attach to another shell and send it the
/// input typed meanwhile; newcomer report).
pub const NEXT_ID_FILE: &str = "next_session_id";

#[derive(Debug)]
struct Shared {
    shell: Program,
    /// The shell integration files; `None` without a state directory, when they could not be
    /// written, or when `shell` has integration turned off (`--no-shell-integration`).
    scripts: Option<ScriptDir>,
    /// Where the next id is kept ([`NEXT_ID_FILE`]); `None` keeps it in memory only.
    next_id_file: Option<PathBuf>,
    sessions: Mutex<Sessions>,
    pumps: TaskTracker,
    budget: Arc<MemoryBudget>,
    /// The holders' directory ([`holder::holders_dir`]) when sessions are held, so they
    /// outlive this relay; `None`: sessions are children of this process (`--no-persist`).
    holders: Option<PathBuf>,
}

#[derive(Debug)]
struct Sessions {
    next_id: SessionId,
    live: BTreeMap<SessionId, Arc<Session>>,
}

/// The live sessions: a cheap-clone handle. A session is counted from its creation, listed and
/// reachable by id once published ([`Registry::publish`]), until its process has exited and the
/// pages were told.
#[derive(Debug, Clone)]
pub struct Registry(Arc<Shared>);

impl Registry {
    /// An empty registry; `shell` is what the page's sessions run. With `state_dir`, session ids
    /// continue from where the last relay using it stopped ([`NEXT_ID_FILE`]; a missing or
    /// unreadable file starts at 1), and the shell integration files are written there
    /// ([`ScriptDir::install`]) unless `shell` has integration turned off.
    ///
    /// The sessions' terminals may hold `memory_budget` bytes together ([`MemoryBudget`]).
    ///
    /// With `persist` and a state directory, each session's program runs in a holder process
    /// ([`holder`]) and outlives the relay; [`Registry::adopt`] takes such sessions over. A
    /// holders' directory that cannot be made falls back to sessions that end with the relay,
    /// with a warning.
    pub fn new(
        shell: Program,
        state_dir: Option<&Path>,
        memory_budget: u64,
        persist: bool,
    ) -> Self {
        let scripts = state_dir
            .filter(|_| shell.shell_integration)
            .and_then(|dir| match ScriptDir::install(dir) {
                Ok(s) => Some(s),
                Err(e) => {
                    tracing::warn!(dir = %dir.display(), error = %e,
                        "shell integration files not written; shells start without it");
                    None
                }
            });
        let next_id_file = state_dir.map(|d| d.join(NEXT_ID_FILE));
        let next_id = next_id_file
            .as_ref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|t| t.trim().parse::<SessionId>().ok())
            .unwrap_or(1)
            .max(1);
        let holders =
            state_dir
                .filter(|_| persist)
                .and_then(|dir| match holder::holders_dir(dir) {
                    Ok(d) => Some(d),
                    Err(e) => {
                        tracing::warn!(dir = %dir.display(), error = %e,
                        "no holders' directory: sessions end with the relay");
                        None
                    }
                });
        Registry(Arc::new(Shared {
            holders,
            shell,
            scripts,
            next_id_file,
            sessions: Mutex::new(Sessions {
                next_id,
                live: BTreeMap::new(),
            }),
            pumps: TaskTracker::new(),
            budget: Arc::new(MemoryBudget::new(memory_budget)),
        }))
    }

    fn lock(&self) -> MutexGuard<'_, Sessions> {
        self.0.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The memory budget: its size and what the live sessions reserved, in bytes.
    pub fn memory(&self) -> (u64, u64) {
        (self.0.budget.limit(), self.0.budget.reserved())
    }

    /// What the page's sessions run.
    pub fn shell(&self) -> &Program {
        &self.0.shell
    }

    /// Starts a new session and its pump task. It is counted at once but neither listed nor
    /// reachable by id until [`Registry::publish`]; [`Registry::discard`] ends it instead.
    pub fn create(&self, spec: SessionSpec) -> Result<Arc<Session>, CreateError> {
        // The lock is held across the spawn (a fork and exec, milliseconds) so the count check
        // and the insert cannot interleave with another create.
        let mut sessions = self.lock();
        if sessions.live.len() >= MAX_SESSIONS {
            return Err(CreateError::TooMany);
        }
        let id = sessions.next_id;
        self.0
            .budget
            .reserve(cost(spec.size.clamped()))
            .map_err(CreateError::OverBudget)?;
        let (session, pump) = Session::start_with(
            id,
            spec,
            self.0.scripts.as_ref(),
            self.0.budget.clone(),
            self.0.holders.as_deref(),
        )
        .map_err(CreateError::Spawn)?;
        sessions.next_id += 1;
        if let Some(file) = &self.0.next_id_file {
            let next = sessions.next_id.to_string();
            if let Err(e) = crate::ground::config::write_private_atomic(file, next.as_bytes()) {
                tracing::warn!(file = %file.display(), error = %e, "next session id not saved");
            }
        }
        sessions.live.insert(id, session.clone());
        drop(sessions);
        tracing::info!(session = id, pid = session.pid(), integration = ?session.shell_integration(), held = session.is_held(), "session started");
        self.run_pump(pump);
        Ok(session)
    }

    fn run_pump(&self, pump: super::Pump) {
        let registry = self.clone();
        self.0.pumps.spawn(async move {
            let session = pump.run().await;
            registry.lock().live.remove(&session.id());
        });
    }

    /// Whether sessions are held (they outlive this relay).
    pub fn persists(&self) -> bool {
        self.0.holders.is_some()
    }

    /// Takes over every live holder in the holders' directory (sessions a previous relay
    /// started): each becomes a live, unpublished session with the id it had, its emulator
    /// rebuilt from the holder's state; `attachment` makes the layer above's attachment from
    /// the session's label. A socket of another user, or one nobody answers on, is removed; a
    /// holder of another protocol version is left running. Returns the sessions taken over,
    /// by id; the caller publishes them.
    pub fn adopt(&self, attachment: impl Fn(&str) -> Attachment) -> Vec<Arc<Session>> {
        let Some(dir) = &self.0.holders else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "sock"))
                    .collect()
            })
            .unwrap_or_default();
        paths.sort();
        let mut adopted = Vec::new();
        for path in paths {
            let (pty, link, id) = match holder::reconnect(&path) {
                Ok(found) => found,
                Err(why) => {
                    tracing::warn!(socket = %path.display(), "session holder not taken over: {why}");
                    continue;
                }
            };
            let mut sessions = self.lock();
            if sessions.live.contains_key(&id) || sessions.live.len() >= MAX_SESSIONS {
                tracing::warn!(
                    session = id,
                    "session holder not taken over: id in use or too many sessions"
                );
                continue;
            }
            let (session, pump) = Session::adopt(id, pty, link, &attachment, self.0.budget.clone());
            sessions.next_id = sessions.next_id.max(id + 1);
            sessions.live.insert(id, session.clone());
            drop(sessions);
            tracing::info!(
                session = id,
                pid = session.pid(),
                holder_build = session.holder_build().unwrap_or("?"),
                "session taken over from its holder"
            );
            self.run_pump(pump);
            adopted.push(session);
        }
        adopted
    }

    /// Makes a created session listed and reachable by id.
    pub fn publish(&self, session: &Session) {
        session.mark_published();
    }

    /// Ends a created session that will not be published (SIGHUP; its pump removes it).
    pub fn discard(&self, session: &Session) {
        session.hangup();
    }

    /// The live, published session `id`.
    pub fn get(&self, id: SessionId) -> Option<Arc<Session>> {
        self.lock()
            .live
            .get(&id)
            .filter(|s| s.is_published())
            .cloned()
    }

    /// Every live, published session, by id.
    pub fn sessions(&self) -> Vec<Arc<Session>> {
        self.lock()
            .live
            .values()
            .filter(|s| s.is_published())
            .cloned()
            .collect()
    }

    /// The process id of the live session `id`, published or not.
    pub fn pid_of(&self, id: SessionId) -> Option<u32> {
        self.lock().live.get(&id).and_then(|s| s.pid())
    }

    /// Every live, published session's summary, by id.
    pub fn list(&self) -> Vec<SessionInfo> {
        self.sessions().iter().map(|s| s.info()).collect()
    }

    /// Ends every session: SIGHUP, then after [`KILL_GRACE`] SIGKILL to those still running;
    /// once every pump has sent its `exit` (the children are reaped by then), SIGKILL to every
    /// process still in one of those sessions ([`pty::end_session`]: background jobs that
    /// ignored SIGHUP), then returns.
    ///
    /// Held sessions are not ended: each gets a last snapshot shipped to its holder and is
    /// let go ([`Session::release_holder`]); their programs run on for the next relay.
    pub async fn shutdown(&self) {
        self.0.pumps.close();
        let all: Vec<_> = self.lock().live.values().cloned().collect();
        let (held, sessions): (Vec<_>, Vec<_>) = all.into_iter().partition(|s| s.is_held());
        if !held.is_empty() {
            let released = tokio::task::spawn_blocking(move || {
                for s in &held {
                    s.release_holder();
                }
                held.len()
            })
            .await
            .unwrap_or(0);
            tracing::info!(
                sessions = released,
                "held sessions released to their holders"
            );
        }
        for s in &sessions {
            s.hangup();
        }
        if tokio::time::timeout(KILL_GRACE, self.0.pumps.wait())
            .await
            .is_err()
        {
            for s in sessions.iter().filter(|s| !s.has_ended()) {
                tracing::warn!(
                    session = s.id(),
                    "still running after SIGHUP; sending SIGKILL"
                );
                if let Some(pid) = s.pid() {
                    pty::hard_kill(pid);
                }
            }
            self.0.pumps.wait().await;
        }
        // What the shells left behind: background jobs that ignored SIGHUP (`nohup cmd &`),
        // each in a process group of its own but still in the session, must not outlive the
        // relay.
        for s in &sessions {
            if let Some(pid) = s.pid() {
                let n = pty::end_session(pid);
                if n > 0 {
                    tracing::info!(
                        session = s.id(),
                        processes = n,
                        "ended what the session left running"
                    );
                }
            }
        }
    }
}

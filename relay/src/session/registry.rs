//! [`Registry`]: the live sessions by id.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::task::TaskTracker;
use wterm_core::Size;

use super::{pty, Session, SessionId, SessionInfo};
use crate::limits::{KILL_GRACE, MAX_SESSIONS};

/// Why a session could not be created.
#[derive(Debug)]
pub enum CreateError {
    /// [`MAX_SESSIONS`] are running.
    TooMany,
    /// The PTY or the program could not be started.
    Spawn(std::io::Error),
}

impl fmt::Display for CreateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CreateError::TooMany => write!(f, "too many sessions (at most {MAX_SESSIONS})"),
            CreateError::Spawn(e) => write!(f, "cannot start the shell: {e}"),
        }
    }
}

impl std::error::Error for CreateError {}

#[derive(Debug)]
struct Shared {
    program: String,
    sessions: Mutex<Sessions>,
    pumps: TaskTracker,
}

#[derive(Debug)]
struct Sessions {
    next_id: SessionId,
    live: BTreeMap<SessionId, Arc<Session>>,
}

/// The live sessions: a cheap-clone handle. A session is listed from its creation until its
/// process has exited and the pages were told.
#[derive(Debug, Clone)]
pub struct Registry(Arc<Shared>);

impl Registry {
    /// An empty registry whose sessions run `program`.
    pub fn new(program: String) -> Self {
        Registry(Arc::new(Shared {
            program,
            sessions: Mutex::new(Sessions {
                next_id: 1,
                live: BTreeMap::new(),
            }),
            pumps: TaskTracker::new(),
        }))
    }

    fn lock(&self) -> MutexGuard<'_, Sessions> {
        self.0.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a new session of `size` (clamped) running the program, and its pump task.
    pub fn create(&self, size: Size) -> Result<Arc<Session>, CreateError> {
        // The lock is held across the spawn (a fork and exec, milliseconds) so the count check
        // and the insert cannot interleave with another create.
        let mut sessions = self.lock();
        if sessions.live.len() >= MAX_SESSIONS {
            return Err(CreateError::TooMany);
        }
        let id = sessions.next_id;
        let (session, pump) =
            Session::start(id, &self.0.program, size).map_err(CreateError::Spawn)?;
        sessions.next_id += 1;
        sessions.live.insert(id, session.clone());
        drop(sessions);
        tracing::info!(session = id, pid = session.pid(), "session started");
        let registry = self.clone();
        self.0.pumps.spawn(async move {
            let session = pump.run().await;
            registry.lock().live.remove(&session.id());
        });
        Ok(session)
    }

    /// The live session `id`.
    pub fn get(&self, id: SessionId) -> Option<Arc<Session>> {
        self.lock().live.get(&id).cloned()
    }

    /// Every live session, by id.
    pub fn list(&self) -> Vec<SessionInfo> {
        let sessions: Vec<_> = self.lock().live.values().cloned().collect();
        sessions.iter().map(|s| s.info()).collect()
    }

    /// Ends every session: SIGHUP, then after [`KILL_GRACE`] SIGKILL to those still running;
    /// returns once every pump has sent its `exit` (the children are reaped by then).
    pub async fn shutdown(&self) {
        self.0.pumps.close();
        let sessions: Vec<_> = self.lock().live.values().cloned().collect();
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
    }
}

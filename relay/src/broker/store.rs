//! `webterm_mcp_windows.json`: each window's scope, raw mode override and launch owner, kept
//! across relay restarts (broker contract, "Persistence").
//!
//! Shape: `{"windows": {"ID": {scope, mode, owner, pid, host, seen}}}`; `mode: null` inherits
//! the relay's `default_mode`; `seen` is Unix time in seconds.
//!
//! - A row applies only to the same process (non-zero `pid`) on the same `host`: a reused id
//!   with another process starts untagged at the default mode ([`Row::applies_to`]).
//! - Rows unseen for more than [`WINDOW_ROW_MAX_AGE_SECS`] are dropped, and so are rows of this
//!   host whose process is gone (they can never apply again, and a recycled pid must not
//!   inherit them) or whose id now belongs to another process ([`Rows::prune`]).
//! - Every change is written to disk before the answer and before memory changes: an edit
//!   builds the new rows, [`WindowStore::commit`] writes them (temporary file + rename, 0600)
//!   and only then swaps them in. Edits are serialized by [`WindowStore::edit`].
//! - A missing, corrupt or oversized file starts empty with one warning; malformed rows are
//!   dropped one by one.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::window::{Mode, OwnerHash, Scope, WindowMeta};
use crate::ground::config::write_private_atomic;
use crate::ground::limits::{MAX_WINDOWS_FILE_BYTES, WINDOW_ROW_MAX_AGE_SECS};
use crate::session::SessionId;

/// Name of the windows file in the state directory.
pub const WINDOWS_FILE: &str = "webterm_mcp_windows.json";

/// One window's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The window's access settings.
    pub meta: WindowMeta,
    /// The process the row belongs to (never 0).
    pub pid: u32,
    /// The host the process runs on.
    pub host: String,
    /// When the row was last written or its process last seen alive, Unix seconds.
    pub seen: u64,
}

impl Row {
    /// Whether this row describes the process `pid` on `host` (a zero pid never matches).
    pub fn applies_to(&self, pid: u32, host: &str) -> bool {
        pid != 0 && self.pid == pid && self.host == host
    }

    fn to_json(&self) -> Value {
        json!({
            "scope": self.meta.scope.as_ref().map(Scope::as_str),
            "mode": self.meta.mode.map(Mode::as_str),
            "owner": self.meta.owner.as_ref().map(OwnerHash::as_str),
            "redact": !self.meta.unredacted,
            "secret_input": self.meta.secret_input,
            "pid": self.pid,
            "host": self.host,
            "seen": self.seen,
        })
    }

    fn from_json(v: &Value) -> Option<Row> {
        let o = v.as_object()?;
        fn opt<T>(v: Option<&Value>, parse: impl Fn(&str) -> Option<T>) -> Option<Option<T>> {
            match v {
                None | Some(Value::Null) => Some(None),
                Some(Value::String(s)) => parse(s).map(Some),
                Some(_) => None,
            }
        }
        let meta = WindowMeta {
            scope: opt(o.get("scope"), Scope::parse)?,
            mode: opt(o.get("mode"), |s| s.parse().ok())?,
            owner: opt(o.get("owner"), OwnerHash::parse)?,
            // Rows written before the switch existed have none: redacted.
            unredacted: match o.get("redact") {
                None | Some(Value::Null) => false,
                Some(v) => !v.as_bool()?,
            },
            // Rows written before the switch existed have none: off.
            secret_input: match o.get("secret_input") {
                None | Some(Value::Null) => false,
                Some(v) => v.as_bool()?,
            },
        };
        let pid = u32::try_from(o.get("pid")?.as_u64()?)
            .ok()
            .filter(|p| *p != 0)?;
        let host = o.get("host")?.as_str()?.to_owned();
        let seen = o.get("seen")?.as_u64()?;
        Some(Row {
            meta,
            pid,
            host,
            seen,
        })
    }
}

/// The rows by window id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rows(pub BTreeMap<SessionId, Row>);

/// Why a windows file was not used at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unusable {
    /// Larger than [`MAX_WINDOWS_FILE_BYTES`].
    Oversized,
    /// Not JSON, or not `{"windows": {..}}`.
    Corrupt,
}

impl Rows {
    /// The file's bytes.
    pub fn to_json(&self) -> Vec<u8> {
        let windows: Map<String, Value> = self
            .0
            .iter()
            .map(|(id, row)| (id.to_string(), row.to_json()))
            .collect();
        serde_json::to_vec_pretty(&json!({ "windows": windows })).unwrap_or_default()
    }

    /// Parses a file; returns the rows and how many malformed rows were dropped.
    pub fn from_json(bytes: &[u8]) -> Result<(Rows, usize), Unusable> {
        if bytes.len() as u64 > MAX_WINDOWS_FILE_BYTES {
            return Err(Unusable::Oversized);
        }
        let v: Value = serde_json::from_slice(bytes).map_err(|_| Unusable::Corrupt)?;
        let windows = v
            .get("windows")
            .and_then(Value::as_object)
            .ok_or(Unusable::Corrupt)?;
        let mut rows = Rows::default();
        let mut dropped = 0;
        for (id, row) in windows {
            match (id.parse::<SessionId>(), Row::from_json(row)) {
                (Ok(id), Some(row)) => {
                    rows.0.insert(id, row);
                }
                _ => dropped += 1,
            }
        }
        Ok((rows, dropped))
    }

    /// Drops rows unseen for more than [`WINDOW_ROW_MAX_AGE_SECS`] before `now`, and rows of
    /// `host` whose process is not `alive` or whose id `live` says now belongs to another
    /// process. Rows of `host` whose process is alive get `seen = now`. Returns how many rows
    /// were dropped.
    pub fn prune(
        &mut self,
        now: u64,
        host: &str,
        alive: impl Fn(u32) -> bool,
        live: impl Fn(SessionId) -> Option<u32>,
    ) -> usize {
        let before = self.0.len();
        self.0.retain(|id, row| {
            if row.host != host {
                return now.saturating_sub(row.seen) <= WINDOW_ROW_MAX_AGE_SECS;
            }
            if !alive(row.pid) || live(*id).is_some_and(|pid| pid != row.pid) {
                return false;
            }
            row.seen = now;
            true
        });
        before - self.0.len()
    }

    /// The row for window `id`, when it describes process `pid` on `host`.
    pub fn applying(&self, id: SessionId, pid: u32, host: &str) -> Option<&Row> {
        self.0.get(&id).filter(|r| r.applies_to(pid, host))
    }
}

/// Now, in Unix seconds.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Whether process `pid` exists (signal 0 reaches it, or exists but belongs to another user).
pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill(2) with signal 0 only checks; it has no memory-safety preconditions.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The windows file and its rows in memory.
#[derive(Debug)]
pub struct WindowStore {
    path: PathBuf,
    rows: Mutex<Arc<Rows>>,
    gate: tokio::sync::Mutex<()>,
}

/// Held while an edit builds, writes and applies new rows; edits run one at a time.
pub type EditGuard<'a> = tokio::sync::MutexGuard<'a, ()>;

impl WindowStore {
    /// Loads `state_dir/webterm_mcp_windows.json` for a relay on `host` with no live windows yet,
    /// prunes it (see [`Rows::prune`]) and, when that dropped anything, writes it back.
    pub fn load(state_dir: &Path, host: &str) -> WindowStore {
        let path = state_dir.join(WINDOWS_FILE);
        let mut rows = match std::fs::metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Rows::default(),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot read the windows file; starting with no window settings");
                Rows::default()
            }
            Ok(m) if m.len() > MAX_WINDOWS_FILE_BYTES => {
                tracing::warn!(path = %path.display(), "the windows file is too large; starting with no window settings");
                Rows::default()
            }
            Ok(_) => match std::fs::read(&path)
                .map_err(|_| Unusable::Corrupt)
                .and_then(|b| Rows::from_json(&b))
            {
                Ok((rows, 0)) => rows,
                Ok((rows, dropped)) => {
                    tracing::warn!(path = %path.display(), dropped, "dropped malformed rows of the windows file");
                    rows
                }
                Err(why) => {
                    tracing::warn!(path = %path.display(), ?why, "the windows file is unusable; starting with no window settings");
                    Rows::default()
                }
            },
        };
        let before = rows.clone();
        rows.prune(unix_now(), host, pid_alive, |_| None);
        if rows != before && path.exists() {
            if let Err(e) = write_private_atomic(&path, &rows.to_json()) {
                tracing::warn!(path = %path.display(), error = %e, "cannot rewrite the windows file");
            }
        }
        WindowStore {
            path,
            rows: Mutex::new(Arc::new(rows)),
            gate: tokio::sync::Mutex::new(()),
        }
    }

    /// The rows in force.
    pub fn rows(&self) -> Arc<Rows> {
        self.rows.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Starts an edit: waits for the edits before it to finish.
    pub async fn edit(&self) -> EditGuard<'_> {
        self.gate.lock().await
    }

    /// Writes `rows` to disk, then puts them in force. Call with the [`EditGuard`] held. On a
    /// write error nothing changes.
    pub async fn commit(&self, _guard: &EditGuard<'_>, rows: Rows) -> io::Result<()> {
        let path = self.path.clone();
        let bytes = rows.to_json();
        tokio::task::spawn_blocking(move || write_private_atomic(&path, &bytes))
            .await
            .map_err(io::Error::other)??;
        *self.rows.lock().unwrap_or_else(|e| e.into_inner()) = Arc::new(rows);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pid: u32, host: &str, seen: u64) -> Row {
        Row {
            meta: WindowMeta {
                scope: Scope::parse("team"),
                mode: Some(Mode::Read),
                owner: Some(OwnerHash::of("h")),
                unredacted: true,
                secret_input: true,
            },
            pid,
            host: host.to_owned(),
            seen,
        }
    }

    #[test]
    fn a_row_applies_to_its_own_process_on_its_own_host_only() {
        let r = row(42, "box", 0);
        assert!(r.applies_to(42, "box"));
        assert!(!r.applies_to(43, "box"), "a reused id with another process");
        assert!(!r.applies_to(42, "other"), "the same pid on another host");
        assert!(!r.applies_to(0, "box"));
        let mut rows = Rows::default();
        rows.0.insert(1, r);
        assert!(rows.applying(1, 42, "box").is_some());
        assert!(rows.applying(2, 42, "box").is_none());
        assert!(rows.applying(1, 7, "box").is_none());
    }

    #[test]
    fn round_trip() {
        let mut rows = Rows::default();
        rows.0.insert(3, row(42, "box", 1000));
        rows.0.insert(
            4,
            Row {
                meta: WindowMeta::default(),
                ..row(43, "box", 1)
            },
        );
        let (back, dropped) = Rows::from_json(&rows.to_json()).unwrap();
        assert_eq!((back, dropped), (rows, 0));
    }

    #[test]
    fn malformed_rows_are_dropped_one_by_one() {
        let text = br#"{"windows": {
            "1": {"scope": "ok", "mode": "read", "owner": null, "pid": 5, "host": "h", "seen": 9},
            "2": {"scope": "bad scope", "mode": null, "owner": null, "pid": 5, "host": "h", "seen": 9},
            "3": {"scope": null, "mode": "write", "owner": null, "pid": 5, "host": "h", "seen": 9},
            "4": {"scope": null, "mode": null, "owner": "xyz", "pid": 5, "host": "h", "seen": 9},
            "5": {"scope": null, "mode": null, "owner": null, "pid": 0, "host": "h", "seen": 9},
            "6": {"scope": null, "mode": null, "owner": null, "pid": 5, "seen": 9},
            "x": {"scope": null, "mode": null, "owner": null, "pid": 5, "host": "h", "seen": 9},
            "7": [],
            "8": {"pid": 6, "host": "h", "seen": 1}
        }}"#;
        let (rows, dropped) = Rows::from_json(text).unwrap();
        assert_eq!(rows.0.keys().copied().collect::<Vec<_>>(), vec![1, 8]);
        assert_eq!(dropped, 7);
        assert_eq!(Rows::from_json(b"{").unwrap_err(), Unusable::Corrupt);
        assert_eq!(Rows::from_json(b"[]").unwrap_err(), Unusable::Corrupt);
        assert_eq!(
            Rows::from_json(br#"{"windows": []}"#).unwrap_err(),
            Unusable::Corrupt
        );
        let big = vec![b' '; MAX_WINDOWS_FILE_BYTES as usize + 1];
        assert_eq!(Rows::from_json(&big).unwrap_err(), Unusable::Oversized);
    }

    #[test]
    fn pruning() {
        let now = 10 * WINDOW_ROW_MAX_AGE_SECS;
        let old = now - WINDOW_ROW_MAX_AGE_SECS - 1;
        let mut rows = Rows::default();
        rows.0.insert(1, row(100, "here", old)); // alive: kept, seen refreshed
        rows.0.insert(2, row(101, "here", now)); // dead process: dropped
        rows.0.insert(3, row(102, "there", old)); // another host, too old: dropped
        rows.0.insert(4, row(103, "there", now - 5)); // another host, recent: kept as is
        rows.0.insert(5, row(104, "here", now)); // id now live with another pid: dropped
        let dropped = rows.prune(now, "here", |pid| pid != 101, |id| (id == 5).then_some(999));
        assert_eq!(dropped, 3);
        assert_eq!(rows.0.keys().copied().collect::<Vec<_>>(), vec![1, 4]);
        assert_eq!(rows.0[&1].seen, now);
        assert_eq!(rows.0[&4].seen, now - 5);
    }

    #[test]
    fn own_pid_is_alive_and_a_reaped_child_is_not() {
        assert!(pid_alive(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!pid_alive(pid));
        assert!(!pid_alive(0));
    }

    #[test]
    fn load_prunes_and_rewrites_and_survives_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(WINDOWS_FILE);
        let me = std::process::id();
        let mut rows = Rows::default();
        rows.0.insert(1, row(me, "host-a", unix_now()));
        rows.0.insert(2, row(u32::MAX - 1, "host-a", unix_now()));
        std::fs::write(&path, rows.to_json()).unwrap();
        let store = WindowStore::load(dir.path(), "host-a");
        assert_eq!(store.rows().0.keys().copied().collect::<Vec<_>>(), vec![1]);
        let (on_disk, _) = Rows::from_json(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(on_disk.0.len(), 1, "the pruned file was written back");

        std::fs::write(&path, b"\x00garbage").unwrap();
        assert!(WindowStore::load(dir.path(), "host-a").rows().0.is_empty());
        std::fs::remove_file(&path).unwrap();
        assert!(WindowStore::load(dir.path(), "host-a").rows().0.is_empty());
    }
}

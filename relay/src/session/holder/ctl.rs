//! A holder's control socket and log, and the client behind `wterm-relay holders list|kill`.
//!
//! - Beside its relay socket `N.sock`, each holder serves `N.ctl` (0600, peer uid checked):
//!   one JSON line asked (`{"op":"info"}` or `{"op":"kill"}`), one JSON line answered. The
//!   control socket never takes the relay's place, so `holders list` is safe while a relay is
//!   attached; a kill through it makes the holder send the exit status to an attached relay,
//!   which then ends the session as if the program had exited by itself.
//! - Each holder writes its own errors to `N.log` ([`HolderLog`]; created on the first line,
//!   so a holder that never failed leaves no file), at most [`HOLDER_LOG_BYTES`] before it is
//!   renamed `N.log.old`.
//! - Holders of a build before the control socket have only `N.sock`; the client finds them by
//!   their argv (`wterm-relay hold N.sock`) and ends their programs by signal.

use std::fs::File;
use std::io::{self, BufRead as _, Read as _, Write as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{build_id, own_uid, peer_uid, Held, SessionId, HOLDERS_DIR, PROTOCOL_VERSION};
use crate::ground::clock::{now_ms, rfc3339};
use crate::ground::limits::{HOLDER_CTL_TIMEOUT, HOLDER_KILL_WAIT, HOLDER_LOG_BYTES, KILL_GRACE};

/// Largest request on a control socket, in bytes (one short JSON line); a longer one is
/// answered with an error.
const CTL_REQUEST_MAX_BYTES: u64 = 1024;

/// How often a waiting kill looks again whether the program or the holder has ended.
const KILL_POLL: Duration = Duration::from_millis(20);

/// The control socket beside relay socket `socket` (`N.sock` -> `N.ctl`).
pub fn ctl_path(socket: &Path) -> PathBuf {
    socket.with_extension("ctl")
}

/// The log beside relay socket `socket` (`N.sock` -> `N.log`).
pub fn log_path(socket: &Path) -> PathBuf {
    socket.with_extension("log")
}

/// A holder's log: one line per event, `TIME holder PID, session N: message`. Created with
/// mode 0600 on the first line; past [`HOLDER_LOG_BYTES`] renamed `N.log.old` and begun anew.
pub(super) struct HolderLog {
    path: PathBuf,
    id: SessionId,
    file: Mutex<Option<File>>,
}

impl HolderLog {
    pub(super) fn new(path: PathBuf, id: SessionId) -> HolderLog {
        HolderLog {
            path,
            id,
            file: Mutex::new(None),
        }
    }

    /// Appends one line; errors writing the log itself have nowhere to go and are dropped.
    pub(super) fn line(&self, msg: &str) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let full = file
            .as_ref()
            .and_then(|f| f.metadata().ok())
            .is_some_and(|m| m.len() >= HOLDER_LOG_BYTES);
        if full {
            let _ = std::fs::rename(&self.path, self.path.with_extension("log.old"));
            *file = None;
        }
        if file.is_none() {
            *file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(&self.path)
                .ok();
        }
        if let Some(f) = file.as_mut() {
            let _ = writeln!(
                f,
                "{} holder {}, session {}: {msg}",
                rfc3339(now_ms()),
                std::process::id(),
                self.id
            );
        }
    }
}

/// What a holder says about itself (`{"op":"info"}`), as `wterm-relay holders list` shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HolderInfo {
    /// The session id.
    pub id: SessionId,
    /// The holder's process id.
    pub holder_pid: u32,
    /// The program's process id.
    pub pid: Option<u32>,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// The PTY's width now, in columns.
    pub cols: u16,
    /// The PTY's height now, in rows.
    pub rows: u16,
    /// When the holder started its program, in epoch milliseconds.
    pub started_ms: u64,
    /// Whether a relay is connected to the holder.
    pub attached: bool,
    /// The program's exit status once it has exited (the holder then ends soon).
    pub exit: Option<i32>,
    /// The holder's protocol version ([`PROTOCOL_VERSION`]).
    pub protocol: u32,
    /// The holder's build ([`build_id`]).
    pub build: String,
}

#[derive(Deserialize)]
struct Request {
    op: String,
}

/// One control connection: checks the peer, reads one request, answers it.
pub(super) fn serve_ctl(held: &Held, stream: UnixStream) {
    if peer_uid(&stream) != Some(own_uid()) {
        held.log
            .line("refused a control connection of another user");
        return;
    }
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(HOLDER_CTL_TIMEOUT));
    let _ = stream.set_write_timeout(Some(HOLDER_CTL_TIMEOUT));
    let mut line = String::new();
    let read = io::BufReader::new((&stream).take(CTL_REQUEST_MAX_BYTES)).read_line(&mut line);
    let answer = match read
        .ok()
        .and_then(|_| serde_json::from_str::<Request>(line.trim()).ok())
    {
        Some(r) if r.op == "info" => serde_json::to_value(info(held)).unwrap_or_default(),
        Some(r) if r.op == "kill" => {
            let exit = kill_program(held);
            serde_json::json!({"ok": true, "exit": exit})
        }
        _ => {
            serde_json::json!({"ok": false, "error": "expected one line {\"op\":\"info\"} or {\"op\":\"kill\"}"})
        }
    };
    let mut w = &stream;
    let _ = writeln!(w, "{answer}");
}

/// Whether a relay is connected, without waiting: the connection's lock is held across
/// writes to the relay, which block while a stopped relay reads nothing (it then counts as
/// connected).
pub(super) fn attached(held: &Held) -> bool {
    match held.conn.try_lock() {
        Ok(conn) => conn.is_some(),
        Err(std::sync::TryLockError::WouldBlock) => true,
        Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner().is_some(),
    }
}

fn info(held: &Held) -> HolderInfo {
    let attached = attached(held);
    let exit = held.ring().exit;
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one winsize through the pointer; the master stays open for
    // the holder's life.
    unsafe { libc::ioctl(held.master_fd, libc::TIOCGWINSZ, &mut ws) };
    HolderInfo {
        id: held.id,
        holder_pid: std::process::id(),
        pid: held.pid,
        command: held.argv.clone(),
        cols: ws.ws_col,
        rows: ws.ws_row,
        started_ms: held.started_ms,
        attached,
        exit,
        protocol: PROTOCOL_VERSION,
        build: build_id().into(),
    }
}

/// Ends the program: SIGHUP, then [`KILL_GRACE`] later SIGKILL to it and its process group.
/// The holder then ends without waiting for a relay to take the status. Returns the status,
/// if the program was reaped within the waits.
fn kill_program(held: &Held) -> Option<i32> {
    held.ending.store(true, Ordering::Release);
    let exited = || held.ring().exit;
    let Some(pid) = held.pid.and_then(|p| libc::pid_t::try_from(p).ok()) else {
        held.wake.notify_all();
        return exited();
    };
    if exited().is_none() {
        held.log
            .line("ending the program on request (wterm-relay holders kill)");
        // SAFETY: kill(2) has no memory-safety preconditions; `pid` is our own child, not yet
        // reaped (its status would be in the ring), so the number is not reused.
        unsafe { libc::kill(pid, libc::SIGHUP) };
        if wait_until(KILL_GRACE, || exited().is_some()).is_none() {
            // SAFETY: as above; the program leads its own process group (the PTY's session).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
            wait_until(KILL_GRACE, || exited().is_some());
        }
    }
    held.wake.notify_all();
    exited()
}

/// Polls `done` every [`KILL_POLL`] for at most `limit`; `Some(())` once it held.
fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> Option<()> {
    let start = Instant::now();
    loop {
        if done() {
            return Some(());
        }
        if start.elapsed() >= limit {
            return None;
        }
        std::thread::sleep(KILL_POLL);
    }
}

// ---------------------------------------------------------------------------------------------
// The client: `wterm-relay holders list|kill`.

/// One holder socket found in `STATE_DIR/holders`.
#[derive(Debug)]
pub enum Found {
    /// A live holder that answered on its control socket.
    Live(HolderInfo),
    /// A holder of an older build, without a control socket, found by its argv.
    NoControl {
        /// The session id.
        id: SessionId,
        /// The holder's process id.
        holder_pid: u32,
        /// Its program's process ids (the holder's children).
        children: Vec<u32>,
    },
    /// A socket of another user, or not a socket: never touched.
    Foreign {
        /// The session id its name gives.
        id: SessionId,
        /// Its path.
        socket: PathBuf,
        /// Its owner's uid.
        owner: u32,
    },
    /// A holder that took the control connection and did not answer in time: left alone.
    Silent {
        /// The session id.
        id: SessionId,
        /// What went wrong.
        why: String,
    },
    /// Nobody answers (the holder was killed): `holders kill` removes the files.
    Stale {
        /// The session id its name gives.
        id: SessionId,
        /// Its path.
        socket: PathBuf,
        /// Why it counts as stale.
        why: String,
    },
}

impl Found {
    /// The session id.
    pub fn id(&self) -> SessionId {
        match self {
            Found::Live(info) => info.id,
            Found::NoControl { id, .. }
            | Found::Foreign { id, .. }
            | Found::Silent { id, .. }
            | Found::Stale { id, .. } => *id,
        }
    }
}

/// The pid of the relay serving held sessions from `state_dir`, if one runs (it holds the
/// `flock` of `holders/relay.lock`).
pub fn relay_running(state_dir: &Path) -> Option<u32> {
    let path = state_dir.join(HOLDERS_DIR).join(super::RELAY_LOCK_FILE);
    let mut file = File::open(&path).ok()?;
    // SAFETY: flock(2) on a descriptor this function owns; a lock taken is released when the
    // file is closed at the end of this function.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) } == 0 {
        return None;
    }
    let mut pid = String::new();
    let _ = file.read_to_string(&mut pid);
    Some(pid.trim().parse().unwrap_or(0))
}

/// Every holder socket of `state_dir`, by id. Asks live holders on their control sockets;
/// never connects to a relay socket (that would take the holder from its relay).
///
/// Errors: the holders' directory cannot be read (a missing one is an empty list).
pub fn list(state_dir: &Path) -> io::Result<Vec<Found>> {
    let dir = state_dir.join(HOLDERS_DIR);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut found: Vec<Found> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sock"))
        .filter_map(|p| {
            let id = p.file_stem()?.to_str()?.parse::<SessionId>().ok()?;
            Some(examine(id, p))
        })
        .collect();
    found.sort_by_key(Found::id);
    Ok(found)
}

fn examine(id: SessionId, socket: PathBuf) -> Found {
    let meta = match std::fs::symlink_metadata(&socket) {
        Ok(m) => m,
        Err(e) => {
            return Found::Stale {
                id,
                socket,
                why: e.to_string(),
            }
        }
    };
    if !meta.file_type().is_socket() || meta.uid() != own_uid() {
        return Found::Foreign {
            id,
            owner: meta.uid(),
            socket,
        };
    }
    let ctl = ctl_path(&socket);
    if ctl.exists() {
        let stream = match UnixStream::connect(&ctl) {
            Ok(stream) => stream,
            // Only a socket nobody listens on is stale; anything else is left alone.
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                return Found::Stale {
                    id,
                    socket,
                    why: "nobody answers on its control socket".into(),
                }
            }
            Err(e) => {
                return Found::Silent {
                    id,
                    why: format!("cannot connect to its control socket: {e}"),
                }
            }
        };
        return match ask_on(stream, "info")
            .and_then(|v| serde_json::from_value::<HolderInfo>(v).map_err(io::Error::other))
        {
            Ok(info) => Found::Live(info),
            Err(e) => Found::Silent {
                id,
                why: format!("its holder did not answer ({e})"),
            },
        };
    }
    match holder_by_argv(&socket) {
        Some(holder_pid) => Found::NoControl {
            id,
            holder_pid,
            children: children_of(holder_pid),
        },
        None => Found::Stale {
            id,
            socket,
            why: "no holder process serves it".into(),
        },
    }
}

/// Sends `{"op": op}` on control socket `ctl` and reads the one-line answer.
fn ask(ctl: &Path, op: &str) -> io::Result<serde_json::Value> {
    ask_on(UnixStream::connect(ctl)?, op)
}

fn ask_on(stream: UnixStream, op: &str) -> io::Result<serde_json::Value> {
    if peer_uid(&stream) != Some(own_uid()) {
        return Err(io::Error::other("it is served by another user"));
    }
    stream.set_read_timeout(Some(HOLDER_CTL_TIMEOUT + HOLDER_KILL_WAIT))?;
    stream.set_write_timeout(Some(HOLDER_CTL_TIMEOUT))?;
    writeln!(&stream, "{}", serde_json::json!({ "op": op }))?;
    let mut line = String::new();
    io::BufReader::new(&stream).read_line(&mut line)?;
    serde_json::from_str(line.trim()).map_err(|e| io::Error::other(format!("answer: {e}")))
}

/// How a holder was ended by [`kill`].
#[derive(Debug)]
pub enum Killed {
    /// The program ended (its exit status, when known) and the holder with it.
    Ended {
        /// The program's exit status, when the holder reported it.
        exit: Option<i32>,
    },
    /// The socket was stale: its files were removed.
    Removed {
        /// Why it was stale.
        why: String,
    },
}

/// Ends held session `id` of `state_dir`: its program gets SIGHUP, then SIGKILL with its
/// process group, and the holder ends; an attached relay sees the session end. A stale
/// socket's files are removed.
///
/// Errors (a sentence for the person at the terminal): no holder `id` (naming the ones there
/// are), a socket of another user (never touched), or a holder that did not end in time.
pub fn kill(state_dir: &Path, id: SessionId) -> Result<Killed, String> {
    let all = list(state_dir)
        .map_err(|e| format!("cannot read {}: {e}", state_dir.join(HOLDERS_DIR).display()))?;
    let ids: Vec<String> = all.iter().map(|f| f.id().to_string()).collect();
    let Some(found) = all.into_iter().find(|f| f.id() == id) else {
        return Err(format!(
            "no held session {id} in {} (there {})",
            state_dir.join(HOLDERS_DIR).display(),
            if ids.is_empty() {
                "are none".to_owned()
            } else {
                format!("are: {}", ids.join(", "))
            }
        ));
    };
    kill_found(state_dir, found)
}

/// [`kill`] of a holder [`list`] found.
pub fn kill_found(state_dir: &Path, found: Found) -> Result<Killed, String> {
    let socket = super::socket_path(&state_dir.join(HOLDERS_DIR), found.id());
    match found {
        Found::Foreign { id, owner, socket } => Err(format!(
            "{} (session {id}) belongs to user {owner}, not to you (user {}), or is not a \
             socket; left alone",
            socket.display(),
            own_uid()
        )),
        Found::Stale { why, socket, .. } => {
            remove_files(&socket);
            Ok(Killed::Removed { why })
        }
        Found::Silent { id, why } => Err(format!("session {id}: {why}; left alone")),
        Found::Live(info) => {
            let answer = ask(&ctl_path(&socket), "kill")
                .map_err(|e| format!("session {}: its holder did not answer: {e}", info.id))?;
            let exit = answer
                .get("exit")
                .and_then(serde_json::Value::as_i64)
                .and_then(|c| i32::try_from(c).ok());
            if wait_until(HOLDER_KILL_WAIT, || !process_alive(info.holder_pid)).is_none() {
                return Err(format!(
                    "session {}: its holder (pid {}) is still running {} s after its program \
                     was killed",
                    info.id,
                    info.holder_pid,
                    HOLDER_KILL_WAIT.as_secs()
                ));
            }
            Ok(Killed::Ended { exit })
        }
        Found::NoControl {
            id,
            holder_pid,
            children,
        } => {
            signal_all(&children, libc::SIGHUP);
            if wait_until(KILL_GRACE, || children.iter().all(|&c| !process_alive(c))).is_none() {
                signal_all(&children, libc::SIGKILL);
            }
            // Without a relay to take the exit status, an older holder would wait for one.
            if relay_running(state_dir).is_none() {
                signal_all(&[holder_pid], libc::SIGTERM);
            }
            if wait_until(HOLDER_KILL_WAIT, || !process_alive(holder_pid)).is_none() {
                return Err(format!(
                    "session {id}: its holder (pid {holder_pid}) is still running"
                ));
            }
            remove_files(&socket);
            Ok(Killed::Ended { exit: None })
        }
    }
}

/// Removes a dead holder's sockets (its log stays).
pub(super) fn remove_files(socket: &Path) {
    let _ = std::fs::remove_file(socket);
    let _ = std::fs::remove_file(ctl_path(socket));
}

fn signal_all(pids: &[u32], sig: i32) {
    for &pid in pids {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe { libc::kill(pid, sig) };
        }
    }
}

/// Whether `pid` runs (a zombie does not count: it has ended).
fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// The pid of this user's process whose argv is `... hold SOCKET`.
fn holder_by_argv(socket: &Path) -> Option<u32> {
    let want = socket.as_os_str().as_encoded_bytes();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        if e.metadata().ok()?.uid() != own_uid() {
            return None;
        }
        let argv = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let mut args = argv.split(|&b| b == 0);
        let _exe = args.next()?;
        (args.next()? == b"hold" && args.next()? == want && process_alive(pid)).then_some(pid)
    })
}

/// The processes whose parent is `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let child: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).ok()?;
            let ppid: u32 = stat[stat.rfind(')')? + 1..]
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            (ppid == pid).then_some(child)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_is_created_on_its_first_line_and_renamed_past_its_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("7.log");
        let log = HolderLog::new(path.clone(), 7);
        assert!(!path.exists(), "no line, no file");
        log.line("first");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("session 7: first"), "{text}");
        let big = "x".repeat(1000);
        while std::fs::metadata(&path).unwrap().len() < HOLDER_LOG_BYTES {
            log.line(&big);
        }
        log.line("after the cap");
        let old = std::fs::read_to_string(dir.path().join("7.log.old")).unwrap();
        assert!(old.contains("first"));
        let now = std::fs::read_to_string(&path).unwrap();
        assert!(
            now.contains("after the cap") && !now.contains("first"),
            "{now}"
        );
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    #[test]
    fn a_missing_holders_directory_lists_nothing_and_an_unknown_id_is_named() {
        let dir = tempfile::tempdir().unwrap();
        assert!(list(dir.path()).unwrap().is_empty());
        let err = kill(dir.path(), 4).unwrap_err();
        assert!(
            err.contains("no held session 4") && err.contains("are none"),
            "{err}"
        );
    }

    use std::os::unix::fs::PermissionsExt as _;
}

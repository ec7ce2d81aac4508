//! Session holders: a session's PTY and program in a small process of the relay's own binary
//! (`wterm-relay hold`, started in a session of its own with `setsid`), so the program outlives
//! the relay: a SIGTERM, a SIGKILL or an upgrade of the relay
//! (`docs/persistent-sessions.md`). tmux's server and dtach hold their programs the same way.
//!
//! - One holder per session, one Unix socket per holder: `STATE_DIR/holders/N.sock` (directory
//!   0700, socket 0600); the relay checks the peer's uid with `SO_PEERCRED` and refuses (and
//!   removes) a socket owned by another user or nobody answers on.
//! - Frames: a kind byte, a big-endian `u32` length, the payload. The holder speaks first:
//!   [`Hello`] (JSON: protocol version, build, pid, tty, state), with the PTY master's
//!   descriptor attached (`SCM_RIGHTS`; the relay resizes and asks the foreground process group
//!   on it, and never reads it), then the latest snapshot the relay shipped and the output
//!   since it. Then output and the exit status flow to the relay, input and snapshots to the
//!   holder.
//! - The holder reads the PTY only while a relay is connected: without one the program blocks
//!   on its writes, as under a terminal nobody reads, and nothing is lost or buffered without
//!   bound. Output is kept in a ring since the last snapshot ([`HOLDER_RING_BYTES`]).
//! - The holder never buffers input: what a relay sent before it went away was written to the
//!   PTY or is gone with that relay's socket; nothing is delivered twice.
//! - A holder lives as long as its program, with or without a relay (like tmux's server). It
//!   ends when its program has exited and a relay has taken the exit status, or
//!   [`HOLDER_ORPHAN_GRACE`] after the exit without one, or at once when ended through its
//!   control socket ([`ctl`]: `wterm-relay holders list|kill`).
//! - Its own errors go to `N.log` beside its socket ([`ctl::HolderLog`]), never to the relay's
//!   terminal; the relay names that file in its log when a holder fails.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::Instant;

use bytes::BytesMut;
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};
use wterm_core::Size;

use super::ledger::{ClientId, InputFrom, InputLedger};
use super::pty::{self, Input, Master, Pty, SharedLedger, Traffic};
use crate::ground::shell_integration::{Integration, NotInjected, ShellKind};

/// A session id, as the session layer numbers them.
type SessionId = u64;
use crate::ground::limits::{
    EXIT_DRAIN_MAX, HOLDER_HELLO_TIMEOUT, HOLDER_INPUT_DRAIN_WAIT_MS, HOLDER_MAX_FRAME_BYTES,
    HOLDER_ORPHAN_GRACE, HOLDER_READ_BUFFER_BYTES, HOLDER_RING_BYTES, HOLDER_START_TIMEOUT,
    PTY_INPUT_QUEUE_MESSAGES, PTY_OUTPUT_QUEUE_CHUNKS, PTY_READ_CHUNK_BYTES,
};
use crate::ground::program::Program;

pub mod ctl;

/// The environment variable that shortens [`HOLDER_ORPHAN_GRACE`] for tests, in
/// milliseconds; a holder reads it from its own environment (the relay's).
pub const ORPHAN_GRACE_ENV: &str = "WTERM_HOLDER_ORPHAN_GRACE_MS";

/// [`HOLDER_ORPHAN_GRACE`], or [`ORPHAN_GRACE_ENV`] when set to a number.
fn orphan_grace() -> std::time::Duration {
    std::env::var(ORPHAN_GRACE_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(HOLDER_ORPHAN_GRACE, std::time::Duration::from_millis)
}

/// The version of the holder protocol (frames and [`Hello`]). A relay speaks only to holders of
/// its own version; it leaves others running and says so in its log.
pub const PROTOCOL_VERSION: u32 = 1;

/// The directory of the holders' sockets, inside the state directory.
pub const HOLDERS_DIR: &str = "holders";

/// The build label compiled in: `WTERM_BUILD_ID` at build time, else the package version.
pub const COMPILED_BUILD_ID: &str = match option_env!("WTERM_BUILD_ID") {
    Some(id) => id,
    None => env!("CARGO_PKG_VERSION"),
};

/// The environment variable that labels a deployment's build at run time; it wins over
/// [`COMPILED_BUILD_ID`]. Holders inherit it from the relay that starts them, so each holder
/// reports the label of the relay that started it.
pub const BUILD_ID_ENV: &str = "WTERM_BUILD_ID";

/// Longest build label, in bytes.
pub const BUILD_ID_MAX_BYTES: usize = 64;

/// The run-time label in [`BUILD_ID_ENV`], if set. Errors (the relay refuses to start): an
/// empty value, more than [`BUILD_ID_MAX_BYTES`], or a byte other than ASCII letters, digits
/// and `.` `_` `-` `+` (it is printed in logs and `holders list`).
pub fn run_time_build_id() -> Result<Option<String>, String> {
    let Some(v) = std::env::var_os(BUILD_ID_ENV) else {
        return Ok(None);
    };
    let accepted = "1 to 64 ASCII letters, digits and . _ - +";
    let v = v
        .into_string()
        .map_err(|_| format!("{BUILD_ID_ENV} is not UTF-8 (accepted: {accepted})"))?;
    let ok = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'+');
    if v.is_empty() || v.len() > BUILD_ID_MAX_BYTES || !v.bytes().all(ok) {
        return Err(format!(
            "{BUILD_ID_ENV} {:?} is not a build label (accepted: {accepted})",
            v.chars().take(BUILD_ID_MAX_BYTES).collect::<String>()
        ));
    }
    Ok(Some(v))
}

/// The build of this process, as a holder reports it in its [`Hello`] (informational: the
/// protocol version decides): [`BUILD_ID_ENV`] when set and valid, else [`COMPILED_BUILD_ID`].
pub fn build_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        run_time_build_id()
            .ok()
            .flatten()
            .unwrap_or_else(|| COMPILED_BUILD_ID.to_owned())
    })
}

// Frame kinds. Holder to relay:
const HELLO: u8 = 1;
const OUTPUT: u8 = 2;
const EXIT: u8 = 3;
// Relay to holder:
const INPUT: u8 = 16;
const SNAPSHOT: u8 = 17;
/// Numbered input ([`ledger`](super::ledger)): the page's client id and the chunk's start
/// offset (u64 each, big-endian), then the bytes. Sent only to a holder whose hello carries
/// `inputs`; the holder skips what it wrote already and records the new end.
const INPUT_FROM: u8 = 18;
/// Bytes before the input of an [`INPUT_FROM`] frame.
const INPUT_FROM_HEADER_BYTES: usize = 16;

const HEADER_BYTES: usize = 5;

fn header(kind: u8, len: usize) -> io::Result<[u8; HEADER_BYTES]> {
    if len > HOLDER_MAX_FRAME_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("frame of {len} bytes (at most {HOLDER_MAX_FRAME_BYTES})"),
        ));
    }
    let mut h = [0u8; HEADER_BYTES];
    h[0] = kind;
    h[1..].copy_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
    Ok(h)
}

/// Writes one frame; small frames (a keystroke, its echo) in one `write(2)`.
fn write_frame(w: &mut impl Write, kind: u8, parts: &[&[u8]]) -> io::Result<()> {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let h = header(kind, len)?;
    let mut buf = Vec::with_capacity(HEADER_BYTES + len);
    buf.extend_from_slice(&h);
    for p in parts {
        buf.extend_from_slice(p);
    }
    w.write_all(&buf)
}

fn parse_header(h: [u8; HEADER_BYTES]) -> io::Result<(u8, usize)> {
    let len = u32::from_be_bytes([h[1], h[2], h[3], h[4]]) as usize;
    if len > HOLDER_MAX_FRAME_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame of {len} bytes announced (at most {HOLDER_MAX_FRAME_BYTES})"),
        ));
    }
    Ok((h[0], len))
}

/// Reads one frame; `None` at a clean end of stream between frames.
fn read_frame(r: &mut impl Read) -> io::Result<Option<(u8, Vec<u8>)>> {
    let mut h = [0u8; HEADER_BYTES];
    let mut got = 0;
    while got < HEADER_BYTES {
        match r.read(&mut h[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let (kind, len) = parse_header(h)?;
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload)?;
    Ok(Some((kind, payload)))
}

/// Frames read through one buffer: each `read(2)` takes as many frames as have arrived (up to
/// [`HOLDER_READ_BUFFER_BYTES`]), where [`read_frame`] makes two calls per frame. For the
/// relay's side of a holder's output, which comes as one frame per PTY read (4 KiB in a flood).
struct FrameReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// The bytes read and not yet taken as frames are `buf[start..end]`.
    start: usize,
    end: usize,
}

impl<R: Read> FrameReader<R> {
    fn new(inner: R) -> Self {
        FrameReader {
            inner,
            buf: vec![0; HOLDER_READ_BUFFER_BYTES],
            start: 0,
            end: 0,
        }
    }

    /// Bytes read and not yet taken as frames.
    fn buffered(&self) -> usize {
        self.end - self.start
    }

    /// The next frame read in full, without reading: its kind and payload.
    fn next_read(&mut self) -> io::Result<Option<(u8, &[u8])>> {
        let Some(h) = self.buf[self.start..self.end].first_chunk::<HEADER_BYTES>() else {
            return Ok(None);
        };
        let (kind, len) = parse_header(*h)?;
        if self.buffered() < HEADER_BYTES + len {
            return Ok(None);
        }
        let at = self.start + HEADER_BYTES;
        self.start = at + len;
        Ok(Some((kind, &self.buf[at..at + len])))
    }

    /// Reads what has arrived (waiting for something); `Ok(false)` at a clean end of stream
    /// between frames.
    fn fill(&mut self) -> io::Result<bool> {
        // Room at the end: the unread part moves to the front, and the buffer grows for a frame
        // larger than it.
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if let Some(h) = self.buf[..self.end].first_chunk::<HEADER_BYTES>() {
            let whole = HEADER_BYTES + parse_header(*h)?.1;
            if whole > self.buf.len() {
                self.buf.resize(whole, 0);
            }
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) if self.end == 0 => return Ok(false),
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// The holder's first frame on every connection.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hello {
    /// [`PROTOCOL_VERSION`] of the holder.
    pub holder: u32,
    /// [`build_id`] of the holder process.
    pub build: String,
    /// The session id the holder was started for.
    pub id: SessionId,
    /// The program's process id.
    pub pid: Option<u32>,
    /// The PTY slave's path.
    pub tty: Option<PathBuf>,
    /// The holder's PTY reader thread (a Linux thread id), for [`Link::settled`].
    pub reader_tid: i32,
    /// The holder's thread that writes this connection's input to the PTY.
    pub input_tid: i32,
    /// Output offset (bytes since the program started) of the snapshot, where the ring begins.
    pub offset: u64,
    /// Length of the snapshot that follows the JSON; 0 when the relay never shipped one.
    pub snapshot_len: usize,
    /// Length of the output that follows the snapshot.
    pub ring_len: usize,
    /// Output was dropped between the snapshot and the ring ([`HOLDER_RING_BYTES`] overflowed).
    pub partial: bool,
    /// The program's exit status, once it has exited.
    pub exit: Option<i32>,
    /// What the layer above keeps to rebuild its state (`SessionSpec::label`).
    pub label: String,
    /// [`Integration`], as [`encode_integration`] spells it.
    pub integration: String,
    /// How far each page's numbered input was written to the PTY: (client id, offset) pairs
    /// ([`InputLedger::pairs`]). Present from holders that take [`INPUT_FROM`] frames (added
    /// without a new [`PROTOCOL_VERSION`]: a relay that does not know the field ignores it and
    /// sends plain `INPUT`, a holder without it gets plain `INPUT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<(ClientId, u64)>>,
}

/// What the relay sends a new holder on its stdin (JSON).
#[derive(Debug, Serialize, Deserialize)]
struct HoldSpec {
    id: SessionId,
    socket: PathBuf,
    argv: Vec<String>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    cols: u16,
    rows: u16,
    label: String,
    integration: String,
}

/// The holder's one line on stdout once it serves its socket or has failed.
#[derive(Debug, Serialize, Deserialize)]
struct Started {
    ok: bool,
    error: Option<String>,
}

/// [`Integration`] as a word (`bash`, `zsh`, `fish`, or a [`NotInjected`] code).
pub fn encode_integration(i: Integration) -> String {
    match i {
        Integration::Injected(ShellKind::Bash) => "bash".into(),
        Integration::Injected(ShellKind::Zsh) => "zsh".into(),
        Integration::Injected(ShellKind::Fish) => "fish".into(),
        Integration::NotInjected(why) => why.code().into(),
    }
}

/// The inverse of [`encode_integration`]; an unknown word is "no scripts".
pub fn decode_integration(word: &str) -> Integration {
    match word {
        "bash" => Integration::Injected(ShellKind::Bash),
        "zsh" => Integration::Injected(ShellKind::Zsh),
        "fish" => Integration::Injected(ShellKind::Fish),
        "off" => Integration::NotInjected(NotInjected::Off),
        "not_a_shell" => Integration::NotInjected(NotInjected::NotAShell),
        "arguments" => Integration::NotInjected(NotInjected::Arguments),
        _ => Integration::NotInjected(NotInjected::NoScripts),
    }
}

/// Creates `STATE_DIR/holders` with mode 0700 (and makes it so if it exists), refusing one
/// that is not a directory owned by this user.
pub fn holders_dir(state_dir: &Path) -> io::Result<PathBuf> {
    let dir = state_dir.join(HOLDERS_DIR);
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(&dir)?;
    // SAFETY: getuid(2) cannot fail.
    let uid = unsafe { libc::getuid() };
    if !meta.is_dir() || meta.uid() != uid {
        return Err(io::Error::other(format!(
            "{} is not a directory of user {uid}",
            dir.display()
        )));
    }
    if meta.permissions().mode() & 0o777 != 0o700 {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(dir)
}

/// The file in `STATE_DIR/holders` a relay serving held sessions keeps locked (`flock`, held
/// until the process ends, SIGKILL included); it holds that relay's pid.
pub const RELAY_LOCK_FILE: &str = "relay.lock";

/// Takes the lock of `STATE_DIR/holders` for this relay, so a second relay with `--persist` on
/// the same state directory cannot take over (and so end, for the first) its shells. Keep the
/// returned file open for as long as the relay runs.
///
/// Errors: a message naming the directory, the other relay's pid when known, and what to do.
pub fn lock_holders(state_dir: &Path) -> Result<std::fs::File, String> {
    use std::io::Seek;
    use std::os::unix::fs::OpenOptionsExt;
    let dir = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(state_dir)
        .and_then(|()| holders_dir(state_dir))
        .map_err(|e| format!("cannot use {}: {e}", state_dir.join(HOLDERS_DIR).display()))?;
    let path = dir.join(RELAY_LOCK_FILE);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    // SAFETY: flock(2) on a descriptor this function owns.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let mut pid = String::new();
        let _ = file.read_to_string(&mut pid);
        let pid = pid.trim();
        let who = if pid.is_empty() {
            "another relay".to_owned()
        } else {
            format!("another relay (pid {pid})")
        };
        return Err(format!(
            "{who} serves held sessions (--persist) from {}; stop it first, or give this relay \
             another --state-dir",
            state_dir.display()
        ));
    }
    let _ = file.set_len(0);
    let _ = file.rewind();
    let _ = writeln!(file, "{}", std::process::id());
    Ok(file)
}

/// The socket path of session `id`'s holder.
pub fn socket_path(dir: &Path, id: SessionId) -> PathBuf {
    dir.join(format!("{id}.sock"))
}

// ---------------------------------------------------------------------------------------------
// The holder process.

/// The holder's shared state.
struct Held {
    /// The connected relay's socket (write side) and its generation. Lock order: `conn`, then
    /// `ring`; `ring` is never held across I/O.
    conn: Mutex<Option<(u64, UnixStream)>>,
    ring: Mutex<Ring>,
    /// Woken when a relay connects or the holder is to end.
    wake: std::sync::Condvar,
    /// The PTY master's descriptor (the master itself stays with [`serve`]), sent to relays.
    master_fd: RawFd,
    /// The PTY's writer (taken once, `None` once the program is gone) and how far each page's
    /// numbered input went through it; shared by the connections' input threads.
    writer: Mutex<(Option<Box<dyn Write + Send>>, InputLedger)>,
    /// The input thread of the latest relay connection, which a new connection waits for
    /// (bounded) so its hello counts the input the previous relay left in the socket.
    input_thread: Mutex<Option<thread::JoinHandle<()>>>,
    pid: Option<u32>,
    tty: Option<PathBuf>,
    reader_tid: AtomicI32,
    generation: AtomicU64,
    id: SessionId,
    label: String,
    integration: String,
    /// The program and its arguments, and when it started (epoch ms), for `holders list`.
    argv: Vec<String>,
    started_ms: u64,
    /// Ended through the control socket: end without waiting for a relay.
    ending: AtomicBool,
    log: Arc<ctl::HolderLog>,
}

#[derive(Default)]
struct Ring {
    /// Output since `start` (the snapshot's offset, or later when it overflowed).
    bytes: VecDeque<u8>,
    start: u64,
    snapshot: Vec<u8>,
    partial: bool,
    exit: Option<i32>,
    exited_at: Option<Instant>,
    /// A relay has been told the exit status.
    exit_taken: bool,
    /// The PTY reader has seen the end of the output.
    output_done: bool,
}

impl Ring {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend(chunk);
        let over = self.bytes.len().saturating_sub(HOLDER_RING_BYTES);
        if over > 0 {
            self.bytes.drain(..over);
            self.start += over as u64;
            self.partial = true;
        }
    }

    fn end(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }

    /// A snapshot the relay took at output offset `offset`.
    fn take_snapshot(&mut self, offset: u64, snapshot: Vec<u8>) {
        if offset < self.start || offset > self.end() {
            return;
        }
        let drop = usize::try_from(offset - self.start).unwrap_or(usize::MAX);
        self.bytes.drain(..drop);
        self.start = offset;
        self.snapshot = snapshot;
        self.partial = false;
    }
}

impl Held {
    fn conn(&self) -> MutexGuard<'_, Option<(u64, UnixStream)>> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn ring(&self) -> MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `wterm-relay hold`: reads a [`HoldSpec`] on stdin, starts the program on a PTY, answers one
/// line on stdout, and serves the socket until the program has exited and a relay took its
/// exit status. Returns the process's exit code.
pub fn hold_main() -> i32 {
    name_process();
    let mut text = String::new();
    if let Err(e) = io::stdin().read_to_string(&mut text) {
        eprintln!("wterm-relay hold: cannot read the spec on stdin: {e}");
        return 2;
    }
    let spec: HoldSpec = match serde_json::from_str(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("wterm-relay hold: this subcommand is started by wterm-relay itself ({e})");
            return 2;
        }
    };
    let report = |r: Started| {
        let mut out = io::stdout();
        let _ = writeln!(out, "{}", serde_json::to_string(&r).unwrap_or_default());
        let _ = out.flush();
    };
    let log = Arc::new(ctl::HolderLog::new(ctl::log_path(&spec.socket), spec.id));
    match start_holding(&spec, log.clone()) {
        Ok((held, master, listeners, child)) => {
            report(Started {
                ok: true,
                error: None,
            });
            // Nobody reads stdout and stderr any more: the relay that started us may go. A
            // panic's message goes to the log instead.
            quiet_stdio();
            let panic_log = log.clone();
            std::panic::set_hook(Box::new(move |info| panic_log.line(&format!("{info}"))));
            serve(&held, &master, listeners, child, &spec.socket);
            0
        }
        Err(e) => {
            log.line(&format!("cannot start {:?}: {e}", spec.argv));
            report(Started {
                ok: false,
                error: Some(e.to_string()),
            });
            1
        }
    }
}

fn quiet_stdio() {
    // SAFETY: open(2) and dup2(2) on our own descriptors 0-2.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            for fd in 0..=2 {
                libc::dup2(null, fd);
            }
            if null > 2 {
                libc::close(null);
            }
        }
    }
}

type Child = Box<dyn portable_pty::Child + Send + Sync>;

type MasterBox = Box<dyn portable_pty::MasterPty + Send>;

/// The holder's two listening sockets: the relay's (`N.sock`) and the control socket
/// (`N.ctl`).
struct Listeners {
    relay: UnixListener,
    ctl: UnixListener,
}

fn start_holding(
    spec: &HoldSpec,
    log: Arc<ctl::HolderLog>,
) -> io::Result<(Arc<Held>, MasterBox, Listeners, Child)> {
    let program = Program {
        argv: spec.argv.clone(),
        cwd: spec.cwd.clone(),
        env: spec.env.clone(),
        shell_integration: false,
    };
    let ctl_socket = ctl::ctl_path(&spec.socket);
    ctl::remove_files(&spec.socket);
    // SAFETY: umask(2) cannot fail; the sockets are created 0600 whatever the inherited mask.
    let old = unsafe { libc::umask(0o177) };
    let listener = UnixListener::bind(&spec.socket);
    let ctl_listener = UnixListener::bind(&ctl_socket);
    // SAFETY: as above.
    unsafe { libc::umask(old) };
    let bound = listener
        .and_then(|l| Ok((l, ctl_listener?)))
        .and_then(|pair| {
            std::fs::set_permissions(&spec.socket, std::fs::Permissions::from_mode(0o600))?;
            std::fs::set_permissions(&ctl_socket, std::fs::Permissions::from_mode(0o600))?;
            Ok(pair)
        });
    let (listener, ctl_listener) = match bound {
        Ok(pair) => pair,
        Err(e) => {
            ctl::remove_files(&spec.socket);
            return Err(e);
        }
    };
    let (master, child, pid) = match pty::spawn_raw(&program, Size::new(spec.rows, spec.cols)) {
        Ok(parts) => parts,
        Err(e) => {
            ctl::remove_files(&spec.socket);
            return Err(e);
        }
    };
    let tty = master.tty_name();
    let master_fd = master
        .as_raw_fd()
        .ok_or_else(|| io::Error::other("the PTY master has no descriptor"))?;
    let writer = master.take_writer().map_err(io::Error::other)?;
    let held = Arc::new(Held {
        conn: Mutex::new(None),
        ring: Mutex::new(Ring::default()),
        wake: std::sync::Condvar::new(),
        master_fd,
        writer: Mutex::new((Some(writer), InputLedger::default())),
        input_thread: Mutex::new(None),
        pid,
        tty,
        reader_tid: AtomicI32::new(0),
        generation: AtomicU64::new(0),
        id: spec.id,
        label: spec.label.clone(),
        integration: spec.integration.clone(),
        argv: spec.argv.clone(),
        started_ms: crate::ground::clock::now_ms(),
        ending: AtomicBool::new(false),
        log,
    });
    let listeners = Listeners {
        relay: listener,
        ctl: ctl_listener,
    };
    Ok((held, master, listeners, child))
}

/// The holder's main loop: accepts relays and control connections, and ends once the program
/// has exited and its status was taken (or [`HOLDER_ORPHAN_GRACE`] passed without a relay, or
/// it was ended through the control socket). Never while the program runs.
fn serve(
    held: &Arc<Held>,
    master: &MasterBox,
    listeners: Listeners,
    mut child: Child,
    socket: &Path,
) {
    let Listeners {
        relay: listener,
        ctl: ctl_listener,
    } = listeners;
    let grace = orphan_grace();
    let reader = pty::reader_of(&**master);
    match reader {
        Ok(reader) => {
            let held = held.clone();
            let _ = thread::Builder::new()
                .name("hold-read".into())
                .spawn(move || holder_read_loop(&held, reader));
        }
        Err(e) => {
            held.log.line(&format!("cannot read the PTY: {e}"));
            held.ring().output_done = true;
        }
    }
    {
        let held = held.clone();
        let _ = thread::Builder::new()
            .name("hold-wait".into())
            .spawn(move || {
                let code = match child.wait() {
                    Ok(status) => i32::try_from(status.exit_code()).unwrap_or(i32::MAX),
                    Err(e) => {
                        held.log.line(&format!("cannot wait for the program: {e}"));
                        -1
                    }
                };
                let mut conn = held.conn();
                {
                    let mut ring = held.ring();
                    ring.exit = Some(code);
                    ring.exited_at = Some(Instant::now());
                }
                if let Some((_, stream)) = conn.as_mut() {
                    if write_frame(stream, EXIT, &[&code.to_be_bytes()]).is_ok() {
                        held.ring().exit_taken = true;
                    }
                }
            });
    }
    let _ = listener.set_nonblocking(true);
    let _ = ctl_listener.set_nonblocking(true);
    loop {
        {
            let ending = held.ending.load(Ordering::Acquire);
            let attached = ending && ctl::attached(held);
            let ring = held.ring();
            if let Some(at) = ring.exited_at {
                let drained = ring.output_done || at.elapsed() >= EXIT_DRAIN_MAX;
                // Ended on request: no relay to wait for; an attached one gets the last output.
                if (ending && !attached) || ((ring.exit_taken || ending) && drained) {
                    break;
                }
                if at.elapsed() >= grace {
                    held.log.line(&format!(
                        "the program exited ({:?}) and no relay came for its status within {} \
                         ms; ending",
                        ring.exit,
                        grace.as_millis()
                    ));
                    break;
                }
            }
        }
        let mut pfds = [listener.as_raw_fd(), ctl_listener.as_raw_fd()].map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        });
        // SAFETY: two pollfds, which `pfds` holds.
        unsafe { libc::poll(pfds.as_mut_ptr(), 2, 100) };
        match listener.accept() {
            Ok((stream, _)) => accept(held, stream),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => {
                held.log.line(&format!("cannot accept a relay: {e}"));
                thread::sleep(std::time::Duration::from_millis(50));
            }
        }
        match ctl_listener.accept() {
            Ok((stream, _)) => {
                let held = held.clone();
                let _ = thread::Builder::new()
                    .name("hold-ctl".into())
                    .spawn(move || ctl::serve_ctl(&held, stream));
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(_) => thread::sleep(std::time::Duration::from_millis(50)),
        }
    }
    ctl::remove_files(socket);
    if let Some((_, stream)) = held.conn().take() {
        let _ = stream.shutdown(std::net::Shutdown::Both);
    }
}

/// A relay connected: checks it is ours, sends [`Hello`] and the master's descriptor, and
/// makes it the connected relay (replacing any earlier one).
fn accept(held: &Arc<Held>, stream: UnixStream) {
    if peer_uid(&stream) != Some(own_uid()) {
        held.log.line("refused a relay connection of another user");
        return;
    }
    let _ = stream.set_nonblocking(false);
    let Ok(input_side) = stream.try_clone() else {
        return;
    };
    let generation = held.generation.fetch_add(1, Ordering::AcqRel) + 1;
    let (tid_tx, tid_rx) = std::sync::mpsc::channel();
    let spawned = {
        let held = held.clone();
        thread::Builder::new()
            .name("hold-input".into())
            .spawn(move || {
                // SAFETY: gettid(2) has no preconditions.
                let _ = tid_tx.send(unsafe { libc::gettid() });
                holder_input_loop(&held, input_side, generation);
            })
    };
    let Ok(spawned) = spawned else {
        return;
    };
    let input_tid = tid_rx.recv().unwrap_or(0);
    let mut stream = stream;
    // The older relay goes; what it wrote before is still read (a shut-down socket hands out
    // what it queued) and written to the PTY before the hello counts it, within a bound.
    let old = held.conn().take();
    if let Some((_, old)) = old {
        let _ = old.shutdown(std::net::Shutdown::Both);
    }
    let previous = held
        .input_thread
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .replace(spawned);
    if let Some(previous) = previous {
        let deadline =
            Instant::now() + std::time::Duration::from_millis(HOLDER_INPUT_DRAIN_WAIT_MS);
        while !previous.is_finished() && Instant::now() < deadline {
            thread::sleep(std::time::Duration::from_millis(2));
        }
    }
    let inputs = held
        .writer
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .1
        .pairs();
    let mut conn = held.conn();
    if let Some((_, old)) = conn.take() {
        let _ = old.shutdown(std::net::Shutdown::Both);
    }
    let (json, snapshot, ring_bytes, had_exit) = {
        let ring = held.ring();
        let hello = Hello {
            holder: PROTOCOL_VERSION,
            build: build_id().into(),
            id: held.id,
            pid: held.pid,
            tty: held.tty.clone(),
            reader_tid: held.reader_tid.load(Ordering::Acquire),
            input_tid,
            offset: ring.start,
            snapshot_len: ring.snapshot.len(),
            ring_len: ring.bytes.len(),
            partial: ring.partial,
            exit: ring.exit,
            label: held.label.clone(),
            integration: held.integration.clone(),
            inputs: Some(inputs),
        };
        let (a, b) = ring.bytes.as_slices();
        (
            serde_json::to_vec(&hello).unwrap_or_default(),
            ring.snapshot.clone(),
            [a, b].concat(),
            ring.exit.is_some(),
        )
    };
    let json_len = u32::try_from(json.len()).unwrap_or(u32::MAX).to_be_bytes();
    let len = 4 + json.len() + snapshot.len() + ring_bytes.len();
    let sent = header(HELLO, len).and_then(|h| {
        send_with_fd(&stream, &h, Some(held.master_fd))?;
        stream.write_all(&json_len)?;
        stream.write_all(&json)?;
        stream.write_all(&snapshot)?;
        stream.write_all(&ring_bytes)
    });
    if let Err(e) = sent {
        held.log
            .line(&format!("cannot send the hello to a relay: {e}"));
        let _ = stream.shutdown(std::net::Shutdown::Both);
        return;
    }
    if had_exit {
        held.ring().exit_taken = true;
    }
    *conn = Some((generation, stream));
    drop(conn);
    held.wake.notify_all();
}

/// Reads the PTY while a relay is connected: each chunk joins the ring, then goes to the relay.
fn holder_read_loop(held: &Held, mut reader: std::fs::File) {
    // SAFETY: gettid(2) has no preconditions.
    held.reader_tid
        .store(unsafe { libc::gettid() }, Ordering::Release);
    // The output is read behind room for its frame's header, so the frame goes out as it is.
    let mut buf = vec![0u8; HEADER_BYTES + PTY_READ_CHUNK_BYTES];
    loop {
        {
            let mut conn = held.conn();
            while conn.is_none() {
                conn = held.wake.wait(conn).unwrap_or_else(|e| e.into_inner());
            }
        }
        let len = match reader.read(&mut buf[HEADER_BYTES..]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let frame = &mut buf[..HEADER_BYTES + len];
        let Ok(h) = header(OUTPUT, len) else { break };
        frame[..HEADER_BYTES].copy_from_slice(&h);
        let mut conn = held.conn();
        held.ring().push(&frame[HEADER_BYTES..]);
        if let Some((_, stream)) = conn.as_mut() {
            if stream.write_all(frame).is_err() {
                let _ = stream.shutdown(std::net::Shutdown::Both);
                *conn = None;
            }
        }
    }
    held.ring().output_done = true;
}

/// The client id and start offset heading an [`INPUT_FROM`] payload; `None` when it is short.
fn input_from(payload: &[u8]) -> Option<InputFrom> {
    let client = u64::from_be_bytes(payload.get(..8)?.try_into().ok()?);
    let start = u64::from_be_bytes(payload.get(8..16)?.try_into().ok()?);
    Some(InputFrom { client, start })
}

/// Takes one relay's input and snapshots until it goes away.
fn holder_input_loop(held: &Held, mut stream: UnixStream, generation: u64) {
    while let Ok(Some((kind, payload))) = read_frame(&mut stream) {
        match kind {
            INPUT | INPUT_FROM => {
                let mut guard = held.writer.lock().unwrap_or_else(|e| e.into_inner());
                let (writer, ledger) = &mut *guard;
                let bytes = if kind == INPUT {
                    &payload[..]
                } else {
                    let Some(from) = input_from(&payload) else {
                        break;
                    };
                    let bytes = &payload[INPUT_FROM_HEADER_BYTES..];
                    let skip = ledger.written_already(from, bytes.len());
                    ledger.record(from, bytes.len());
                    &bytes[skip..]
                };
                if let Some(w) = writer.as_mut() {
                    if w.write_all(bytes).and_then(|()| w.flush()).is_err() {
                        // The program is gone: input has nowhere to go.
                        *writer = None;
                    }
                }
            }
            SNAPSHOT if payload.len() >= 8 => {
                let mut off = [0u8; 8];
                off.copy_from_slice(&payload[..8]);
                let offset = u64::from_be_bytes(off);
                let mut snapshot = payload;
                snapshot.drain(..8);
                held.ring().take_snapshot(offset, snapshot);
            }
            _ => break,
        }
    }
    let mut conn = held.conn();
    if conn.as_ref().is_some_and(|(g, _)| *g == generation) {
        *conn = None;
    }
}

fn own_uid() -> u32 {
    // SAFETY: getuid(2) cannot fail.
    unsafe { libc::getuid() }
}

/// The uid of the process at the other end of `stream` (`SO_PEERCRED`).
fn peer_uid(stream: &UnixStream) -> Option<u32> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` is a ucred and `len` its size, as SO_PEERCRED writes.
    let r = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut cred).cast(),
            &mut len,
        )
    };
    (r == 0).then_some(cred.uid)
}

/// Sends `bytes` with descriptor `fd` attached (`SCM_RIGHTS`).
fn send_with_fd(stream: &UnixStream, bytes: &[u8], fd: Option<RawFd>) -> io::Result<()> {
    let Some(fd) = fd else {
        return Err(io::Error::other("the PTY master has no descriptor"));
    };
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // SAFETY: CMSG_SPACE is a pure computation.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
    let mut control = vec![0u8; space];
    // SAFETY: msghdr is plain data; every pointer set below outlives the sendmsg call, and the
    // control buffer is CMSG_SPACE of one descriptor, as CMSG_FIRSTHDR and CMSG_DATA expect.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
        let n = libc::sendmsg(stream.as_raw_fd(), &msg, libc::MSG_NOSIGNAL);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = n as usize;
        if n < bytes.len() {
            (&*stream).write_all(&bytes[n..])?;
        }
    }
    Ok(())
}

/// Reads exactly `buf.len()` bytes, taking the descriptor sent with them (`SCM_RIGHTS`).
fn recv_with_fd(stream: &UnixStream, buf: &mut [u8]) -> io::Result<Option<OwnedFd>> {
    // SAFETY: as in `send_with_fd`.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let mut fd = None;
    // SAFETY: the pointers set in msghdr outlive the call; the descriptor read from the
    // control message is owned by us from here on (the kernel installed it for us).
    let n = unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        let n = libc::recvmsg(stream.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if !cmsg.is_null()
            && (*cmsg).cmsg_level == libc::SOL_SOCKET
            && (*cmsg).cmsg_type == libc::SCM_RIGHTS
        {
            let raw = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>());
            fd = Some(OwnedFd::from_raw_fd(raw));
        }
        n as usize
    };
    if n == 0 {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    if n < buf.len() {
        (&*stream).read_exact(&mut buf[n..])?;
    }
    Ok(fd)
}

// ---------------------------------------------------------------------------------------------
// The relay's side.

/// The snapshot waiting to be shipped (its output offset and bytes), and its wake-up.
type Shipping = (Mutex<Option<(u64, Vec<u8>)>>, std::sync::Condvar);

/// What a relay needs beside [`Pty`] for a held session.
pub struct Link {
    /// The socket's write side: input frames and snapshots.
    writer: Arc<Mutex<UnixStream>>,
    /// The socket (for `SIOCINQ`/`SIOCOUTQ` in [`Link::settled`]).
    socket: UnixStream,
    /// This relay closed the connection ([`Link::close`]): its end is no holder failure.
    closed: Arc<AtomicBool>,
    /// The latest snapshot waiting to be shipped, newest wins.
    shipping: Arc<Shipping>,
    /// Output offset where this relay's stream began (bytes the program wrote before it).
    pub base: u64,
    /// What the new relay rebuilds its emulator from: the snapshot and the output after it
    /// (empty for a session this relay started).
    pub rebuild: Option<Rebuild>,
    holder_reader_tid: i32,
    holder_input_tid: i32,
    /// The exit status the holder reported in its hello.
    pub exit: Option<i32>,
    /// See `SessionSpec::label`.
    pub label: String,
    /// See [`Hello::integration`].
    pub integration: Integration,
    /// The holder's socket path.
    pub path: PathBuf,
    /// The holder's [`build_id`].
    pub build: String,
}

/// The state a holder kept: see [`Link::rebuild`].
pub struct Rebuild {
    /// The relay's last snapshot (empty when none was shipped).
    pub snapshot: Vec<u8>,
    /// The output since.
    pub output: Vec<u8>,
    /// Output between the two was dropped.
    pub partial: bool,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("path", &self.path)
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl Link {
    /// Hands a snapshot taken at output offset `offset` to the shipping thread (it replaces
    /// one not shipped yet).
    pub fn ship(&self, offset: u64, snapshot: Vec<u8>) {
        let (slot, cv) = &*self.shipping;
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some((offset, snapshot));
        cv.notify_one();
    }

    /// Ships `snapshot` now and waits until it is written (relay shutdown).
    pub fn ship_now(&self, offset: u64, snapshot: &[u8]) -> io::Result<()> {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        write_frame(&mut *w, SNAPSHOT, &[&offset.to_be_bytes(), snapshot])
    }

    /// Closes the connection: the holder keeps its program and waits for the next relay.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        let _ = self.socket.shutdown(std::net::Shutdown::Both);
    }

    /// Whether nothing is in flight between the relay and the holder: both socket queues are
    /// empty and both holder threads are asleep (one in `read(2)` of the PTY, one of the
    /// socket). See `Session::input_settled`.
    pub fn settled(&self) -> Option<bool> {
        let fd = self.socket.as_raw_fd();
        let queued = |req| {
            let mut n: libc::c_int = 0;
            // SAFETY: SIOCINQ/SIOCOUTQ write one int through the pointer.
            let r = unsafe { libc::ioctl(fd, req, &mut n) };
            (r == 0).then_some(n)
        };
        // SIOCINQ and SIOCOUTQ share their numbers with FIONREAD and TIOCOUTQ.
        if queued(libc::FIONREAD)? > 0 || queued(libc::TIOCOUTQ)? > 0 {
            return Some(false);
        }
        Some(thread_asleep(self.holder_reader_tid) && thread_asleep(self.holder_input_tid))
    }
}

/// Whether thread `tid` (of any process of ours) is asleep; false for an unknown tid.
fn thread_asleep(tid: i32) -> bool {
    u32::try_from(tid).is_ok_and(|t| t > 0 && pty::asleep(t))
}

/// Names this process after its `argv[0]` (the relay binary's name): started through
/// `/proc/self/exe` ([`self_exe`]), the kernel named it "exe", which `top`, `ps -C` and
/// `pgrep wterm-relay` show.
fn name_process() {
    let Some(arg0) = std::env::args_os().next() else {
        return;
    };
    let base = Path::new(&arg0).file_name().unwrap_or(arg0.as_os_str());
    // The kernel keeps 15 bytes and a NUL.
    let mut name: Vec<u8> = base.as_encoded_bytes().iter().take(15).copied().collect();
    name.retain(|&b| b != 0);
    name.push(0);
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes from the pointer.
    unsafe { libc::prctl(libc::PR_SET_NAME, name.as_ptr()) };
}

/// The running binary, where the kernel keeps it: also when its file was replaced or removed
/// since this relay started (`scripts/run.sh` rebuilds it in place), when `current_exe()` names
/// "... (deleted)", a path that no longer opens. A holder must run this very build anyway: it
/// speaks this relay's protocol. With it, the name for the holder's `argv[0]` (`ps`, `pgrep`):
/// the binary's path, without the " (deleted)".
fn self_exe() -> io::Result<(PathBuf, std::ffi::OsString)> {
    const SELF_EXE: &str = "/proc/self/exe";
    let path = std::env::current_exe()?;
    let lossy = path.to_string_lossy();
    let name = lossy
        .strip_suffix(" (deleted)")
        .unwrap_or(&lossy)
        .to_owned();
    let exe = if Path::new(SELF_EXE).exists() {
        PathBuf::from(SELF_EXE)
    } else {
        path
    };
    Ok((exe, name.into()))
}

/// Starts a holder for session `id` running `program` on a PTY of `size`, and connects to it.
pub fn spawn(
    dir: &Path,
    id: SessionId,
    program: &Program,
    size: Size,
    label: &str,
    integration: Integration,
) -> io::Result<(Pty, Link)> {
    use std::os::unix::process::CommandExt as _;
    let (exe, name) = self_exe()?;
    let socket = socket_path(dir, id);
    let spec = HoldSpec {
        id,
        socket: socket.clone(),
        argv: program.argv.clone(),
        cwd: program.cwd.clone().or_else(|| std::env::current_dir().ok()),
        env: program.env.clone(),
        cols: size.cols,
        rows: size.rows,
        label: label.to_owned(),
        integration: encode_integration(integration),
    };
    let mut cmd = std::process::Command::new(&exe);
    // The socket's path in argv: `ps` then says which session a holder keeps.
    cmd.arg0(&name)
        .arg("hold")
        .arg(&socket)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    for name in crate::ground::config::SECRET_ENVS {
        cmd.env_remove(name);
    }
    // SAFETY: setsid(2) is async-signal-safe; the holder gets a session and process group of
    // its own, so signals to the relay's group (Ctrl-C in its terminal) do not reach it.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(|e| {
        let what = format!("the session holder {}: {e}", name.to_string_lossy());
        io::Error::new(e.kind(), what)
    })?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| io::Error::other("no stdin"))?;
    stdin.write_all(&serde_json::to_vec(&spec).map_err(io::Error::other)?)?;
    drop(stdin);
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| io::Error::other("no stdout"))?;
    // The holder is our child until we end: reap it when it ends, so it leaves no zombie.
    let (line_tx, line_rx) = std::sync::mpsc::channel();
    thread::Builder::new()
        .name(format!("holder-{id}"))
        .spawn(move || {
            let mut line = String::new();
            let _ = io::BufRead::read_line(&mut io::BufReader::new(stdout), &mut line);
            let _ = line_tx.send(line);
            let _ = child.wait();
        })?;
    let log = ctl::log_path(&socket);
    let failed = |why: &str| {
        tracing::warn!(session = id, log = %log.display(), "session holder failed: {why}");
        io::Error::other(why.to_owned())
    };
    let line = line_rx
        .recv_timeout(HOLDER_START_TIMEOUT)
        .map_err(|_| failed("the session holder did not start in time"))?;
    let started: Started = serde_json::from_str(line.trim())
        .map_err(|_| failed("the session holder ended before it started the program"))?;
    if !started.ok {
        return Err(failed(
            &started.error.unwrap_or_else(|| "unknown error".into()),
        ));
    }
    let stream = UnixStream::connect(&socket)?;
    let (pty, link, _) = link(stream, socket).map_err(|e| io::Error::other(e.to_string()))?;
    Ok((pty, link))
}

/// Why a holder found at start was not taken over.
#[derive(Debug)]
pub enum Refused {
    /// Another protocol version: left running.
    Version {
        /// The holder's protocol version.
        theirs: u32,
        /// Its build.
        build: String,
    },
    /// Not a socket of this user, or dead: removed.
    Stale(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Version { theirs, build } => write!(
                f,
                "holder speaks protocol {theirs} (build {build}), this relay {PROTOCOL_VERSION} \
                 (build {}); left running",
                build_id()
            ),
            Refused::Stale(why) => write!(f, "{why}; removed"),
        }
    }
}

/// Connects to the holder at `path` (found at start), after checking that the socket is this
/// user's. A dead or foreign socket is removed.
pub fn reconnect(path: &Path) -> Result<(Pty, Link, SessionId), Refused> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| Refused::Stale(e.to_string()))?;
    let stale = |why: String| {
        ctl::remove_files(path);
        let log = ctl::log_path(path);
        if log.exists() {
            Refused::Stale(format!("{why} (its holder's log: {})", log.display()))
        } else {
            Refused::Stale(why)
        }
    };
    use std::os::unix::fs::FileTypeExt as _;
    if !meta.file_type().is_socket() || meta.uid() != own_uid() {
        return Err(stale(format!(
            "not a socket of user {} (owner {})",
            own_uid(),
            meta.uid()
        )));
    }
    let stream = UnixStream::connect(path).map_err(|e| stale(format!("nobody answers: {e}")))?;
    if peer_uid(&stream) != Some(own_uid()) {
        return Err(stale("the holder runs as another user".into()));
    }
    let _ = stream.set_read_timeout(Some(HOLDER_HELLO_TIMEOUT));
    link(stream, path.to_owned())
}

/// Reads a holder's hello on `stream` and builds the relay's side of the session.
fn link(stream: UnixStream, path: PathBuf) -> Result<(Pty, Link, SessionId), Refused> {
    let broken = |e: io::Error| Refused::Stale(format!("broken first frame: {e}"));
    let mut h = [0u8; HEADER_BYTES];
    let master = recv_with_fd(&stream, &mut h).map_err(broken)?;
    let (kind, len) = parse_header(h).map_err(broken)?;
    if kind != HELLO || len < 4 {
        return Err(Refused::Stale(format!(
            "first frame of kind {kind}, not a hello"
        )));
    }
    let mut payload = vec![0u8; len];
    (&stream).read_exact(&mut payload).map_err(broken)?;
    let json_len = u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]]) as usize;
    let json = payload
        .get(4..4 + json_len)
        .ok_or_else(|| Refused::Stale("hello shorter than it says".into()))?;
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| Refused::Stale(format!("hello: {e}")))?;
    let theirs = value.get("holder").and_then(serde_json::Value::as_u64);
    if theirs != Some(u64::from(PROTOCOL_VERSION)) {
        return Err(Refused::Version {
            theirs: theirs.and_then(|v| u32::try_from(v).ok()).unwrap_or(0),
            build: value
                .get("build")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("?")
                .to_owned(),
        });
    }
    let hello: Hello =
        serde_json::from_value(value).map_err(|e| Refused::Stale(format!("hello: {e}")))?;
    let rest = &payload[4 + json_len..];
    if rest.len() != hello.snapshot_len + hello.ring_len {
        return Err(Refused::Stale("hello's state lengths disagree".into()));
    }
    let master = master.ok_or_else(|| Refused::Stale("hello without the PTY master".into()))?;
    let _ = stream.set_read_timeout(None);
    let rebuild = Rebuild {
        snapshot: rest[..hello.snapshot_len].to_vec(),
        output: rest[hello.snapshot_len..].to_vec(),
        partial: hello.partial,
    };
    let base = hello.offset + hello.ring_len as u64;
    let id = hello.id;
    let (pty, link) = relay_side(stream, master, hello, rebuild, base, path)
        .map_err(|e| Refused::Stale(format!("cannot start the session's threads: {e}")))?;
    Ok((pty, link, id))
}

/// Sends SIGHUP to a held program by pid (the holder's child, not ours).
struct PidKiller(Option<u32>);

impl std::fmt::Debug for PidKiller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PidKiller({:?})", self.0)
    }
}

impl portable_pty::ChildKiller for PidKiller {
    fn kill(&mut self) -> io::Result<()> {
        let pid = self
            .0
            .and_then(|p| libc::pid_t::try_from(p).ok())
            .ok_or_else(|| io::Error::other("no pid"))?;
        // SAFETY: kill(2) has no memory-safety preconditions.
        if unsafe { libc::kill(pid, libc::SIGHUP) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    fn clone_killer(&self) -> Box<dyn portable_pty::ChildKiller + Send + Sync> {
        Box::new(PidKiller(self.0))
    }
}

fn relay_side(
    stream: UnixStream,
    master: OwnedFd,
    hello: Hello,
    rebuild: Rebuild,
    base: u64,
    path: PathBuf,
) -> io::Result<(Pty, Link)> {
    let (out_tx, output) = mpsc::channel(PTY_OUTPUT_QUEUE_CHUNKS);
    let (input, mut in_rx) = mpsc::channel::<Input>(PTY_INPUT_QUEUE_MESSAGES);
    let (exit_tx, exited) = oneshot::channel();
    let traffic = Arc::new(Traffic::default());
    let flush_epoch = Arc::new(AtomicU64::new(0));
    let writer = Arc::new(Mutex::new(stream.try_clone()?));
    let shipping: Arc<Shipping> = Arc::default();
    let name = |what: &str| format!("held-{what}-{}", hello.id);
    let mut exit_tx = Some(exit_tx);
    if let Some(code) = hello.exit {
        if let Some(tx) = exit_tx.take() {
            let _ = tx.send(code);
        }
    }
    let reader = stream.try_clone()?;
    let closed = Arc::new(AtomicBool::new(false));
    thread::Builder::new().name(name("read")).spawn({
        let traffic = traffic.clone();
        let closed = closed.clone();
        let (id, log) = (hello.id, ctl::log_path(&path));
        move || {
            // SAFETY: gettid(2) has no preconditions.
            traffic
                .reader_tid
                .store(unsafe { libc::gettid() }, Ordering::Release);
            // Output frames that arrived together go on as one chunk of at most
            // PTY_READ_CHUNK_BYTES: one message to the session, not one per PTY read.
            let mut frames = FrameReader::new(reader);
            let mut chunk = BytesMut::new();
            let send = |chunk: &mut BytesMut| {
                chunk.is_empty() || out_tx.blocking_send(chunk.split().freeze()).is_ok()
            };
            'read: while let Ok(true) = frames.fill() {
                loop {
                    let room = frames.buffered().min(PTY_READ_CHUNK_BYTES);
                    let Ok(Some((kind, payload))) = frames.next_read() else {
                        break;
                    };
                    match kind {
                        OUTPUT => {
                            // Counted before the thread can sleep (Traffic::reader_tid).
                            traffic
                                .read
                                .fetch_add(payload.len() as u64, Ordering::AcqRel);
                            if chunk.len() + payload.len() > PTY_READ_CHUNK_BYTES
                                && !send(&mut chunk)
                            {
                                break 'read;
                            }
                            if chunk.is_empty() {
                                chunk.reserve(room);
                            }
                            chunk.extend_from_slice(payload);
                        }
                        EXIT if payload.len() == 4 => {
                            let code = i32::from_be_bytes([
                                payload[0], payload[1], payload[2], payload[3],
                            ]);
                            // The output before the exit status goes first.
                            if !send(&mut chunk) {
                                break 'read;
                            }
                            if let Some(tx) = exit_tx.take() {
                                let _ = tx.send(code);
                            }
                        }
                        _ => break 'read,
                    }
                }
                if !send(&mut chunk) {
                    break;
                }
            }
            let _ = send(&mut chunk);
            // The holder went away without an exit status: it was killed, or this relay
            // closed the connection. Dropping `exit_tx` ends the session with -1 once the
            // output is done.
            if exit_tx.is_some() && !closed.load(Ordering::Acquire) {
                tracing::warn!(
                    session = id,
                    log = %log.display(),
                    "session holder went away without the program's exit status"
                );
            }
        }
    })?;
    let flush = flush_epoch.clone();
    // What this relay handed the holder (a lower bound of what the holder wrote: a socket
    // write that returned is read by the holder even if this relay dies next), starting from
    // what the holder reported.
    let numbered = hello.inputs.is_some();
    let inputs = SharedLedger::new(parking_lot::Mutex::new(InputLedger::from_pairs(
        hello.inputs.as_deref().unwrap_or_default(),
    )));
    thread::Builder::new().name(name("write")).spawn({
        let traffic = traffic.clone();
        let writer = writer.clone();
        let inputs = inputs.clone();
        move || {
            while let Some(input) = in_rx.blocking_recv() {
                let bytes = pty::unwritten(&input, &inputs);
                let result = if input.epoch < flush.load(Ordering::Acquire) || bytes.is_empty() {
                    Ok(())
                } else {
                    let mut w = writer.lock().unwrap_or_else(|e| e.into_inner());
                    match input.from {
                        Some(from) if numbered => {
                            let start = from.start + (input.bytes.len() - bytes.len()) as u64;
                            let head = [from.client.to_be_bytes(), start.to_be_bytes()].concat();
                            write_frame(&mut *w, INPUT_FROM, &[&head, bytes])
                        }
                        _ => write_frame(&mut *w, INPUT, &[bytes]),
                    }
                };
                traffic.written.fetch_add(1, Ordering::AcqRel);
                if result.is_err() {
                    break;
                }
            }
        }
    })?;
    thread::Builder::new().name(name("ship")).spawn({
        let shipping = Arc::downgrade(&shipping);
        let writer = writer.clone();
        move || loop {
            let Some(shipping) = shipping.upgrade() else {
                return;
            };
            let (slot, cv) = &*shipping;
            let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
            let next = loop {
                if let Some(next) = guard.take() {
                    break next;
                }
                let (g, timeout) = cv
                    .wait_timeout(guard, std::time::Duration::from_secs(1))
                    .unwrap_or_else(|e| e.into_inner());
                guard = g;
                if timeout.timed_out() && Arc::strong_count(&shipping) == 1 {
                    return;
                }
            };
            drop(guard);
            drop(shipping);
            let (offset, snapshot) = next;
            let mut w = writer.lock().unwrap_or_else(|e| e.into_inner());
            if write_frame(&mut *w, SNAPSHOT, &[&offset.to_be_bytes(), &snapshot]).is_err() {
                return;
            }
        }
    })?;
    let link = Link {
        writer,
        closed,
        socket: stream,
        shipping,
        base,
        rebuild: Some(rebuild),
        holder_reader_tid: hello.reader_tid,
        holder_input_tid: hello.input_tid,
        exit: hello.exit,
        label: hello.label,
        integration: decode_integration(&hello.integration),
        path,
        build: hello.build,
    };
    let pty = Pty {
        master: Master::Held(master),
        tty: hello.tty,
        killer: Box::new(PidKiller(hello.pid)),
        pid: hello.pid,
        output,
        input,
        flush_epoch,
        inputs,
        exited,
        traffic,
    };
    Ok((pty, link))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_oversized_lengths_are_refused() {
        let mut buf = Vec::new();
        write_frame(&mut buf, OUTPUT, &[b"ab", b"c"]).unwrap();
        write_frame(&mut buf, EXIT, &[&7i32.to_be_bytes()]).unwrap();
        let mut r = &buf[..];
        assert_eq!(read_frame(&mut r).unwrap(), Some((OUTPUT, b"abc".to_vec())));
        assert_eq!(
            read_frame(&mut r).unwrap(),
            Some((EXIT, 7i32.to_be_bytes().to_vec()))
        );
        assert_eq!(read_frame(&mut r).unwrap(), None);
        let mut huge = vec![OUTPUT];
        huge.extend_from_slice(&(HOLDER_MAX_FRAME_BYTES as u32 + 1).to_be_bytes());
        assert!(read_frame(&mut &huge[..]).is_err());
        // Cut inside a header: an error, not a clean end.
        assert!(read_frame(&mut &buf[..3]).is_err());
    }

    /// Hands out its bytes a few at a time, as a socket may.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn the_frame_reader_takes_frames_however_the_bytes_arrive() {
        let big = vec![b'x'; HOLDER_READ_BUFFER_BYTES + 10];
        let mut wire = Vec::new();
        write_frame(&mut wire, OUTPUT, &[b"ab"]).unwrap();
        write_frame(&mut wire, OUTPUT, &[b""]).unwrap();
        write_frame(&mut wire, OUTPUT, &[&big]).unwrap();
        write_frame(&mut wire, EXIT, &[&7i32.to_be_bytes()]).unwrap();
        let want = vec![
            (OUTPUT, b"ab".to_vec()),
            (OUTPUT, Vec::new()),
            (OUTPUT, big.clone()),
            (EXIT, 7i32.to_be_bytes().to_vec()),
        ];
        for step in [1, 3, 4096, usize::MAX] {
            let mut r = FrameReader::new(Trickle(&wire, step));
            let mut got = Vec::new();
            while r.fill().unwrap() {
                while let Some((kind, payload)) = r.next_read().unwrap() {
                    got.push((kind, payload.to_vec()));
                }
            }
            assert_eq!(got, want, "read {step} bytes at a time");
        }
        // Cut inside a frame: an error, not a clean end.
        let mut r = FrameReader::new(&wire[..wire.len() - 1]);
        let mut end = Ok(true);
        while let Ok(true) = end {
            while let Ok(Some(_)) = r.next_read() {}
            end = r.fill();
        }
        assert!(end.is_err());
        // An oversized length is refused.
        let mut huge = vec![OUTPUT];
        huge.extend_from_slice(&(HOLDER_MAX_FRAME_BYTES as u32 + 1).to_be_bytes());
        let mut r = FrameReader::new(&huge[..]);
        assert!(r.fill().unwrap());
        assert!(r.next_read().is_err());
    }

    #[test]
    fn the_ring_keeps_output_since_the_last_snapshot_and_marks_an_overflow() {
        let mut ring = Ring::default();
        ring.push(b"hello ");
        ring.push(b"world");
        assert_eq!(ring.end(), 11);
        ring.take_snapshot(6, b"SNAP".to_vec());
        assert_eq!(ring.start, 6);
        assert_eq!(ring.bytes.iter().copied().collect::<Vec<_>>(), b"world");
        assert!(!ring.partial);
        // A snapshot older than what the ring holds, or past its end, is ignored.
        ring.take_snapshot(2, b"OLD".to_vec());
        ring.take_snapshot(99, b"FUTURE".to_vec());
        assert_eq!(ring.snapshot, b"SNAP");
        ring.push(&vec![b'x'; HOLDER_RING_BYTES]);
        assert_eq!(ring.bytes.len(), HOLDER_RING_BYTES);
        assert!(ring.partial);
        assert_eq!(ring.end(), 11 + HOLDER_RING_BYTES as u64);
    }

    /// Writes a hello frame with `json` and the descriptor of `/dev/null` attached.
    fn send_hello(stream: &UnixStream, json: &[u8]) {
        let null = std::fs::File::open("/dev/null").unwrap();
        let len = 4 + json.len();
        send_with_fd(stream, &header(HELLO, len).unwrap(), Some(null.as_raw_fd())).unwrap();
        let mut w = stream;
        w.write_all(&u32::try_from(json.len()).unwrap().to_be_bytes())
            .unwrap();
        w.write_all(json).unwrap();
    }

    #[test]
    fn a_holder_of_another_protocol_version_is_refused_by_name() {
        let (ours, theirs) = UnixStream::pair().unwrap();
        send_hello(
            &theirs,
            br#"{"holder": 99, "build": "9.9.9", "future": true}"#,
        );
        let Err(Refused::Version { theirs, build }) = link(ours, PathBuf::from("/x/1.sock")) else {
            panic!("refused as another version");
        };
        assert_eq!((theirs, build.as_str()), (99, "9.9.9"));
        let msg = Refused::Version {
            theirs: 99,
            build: "9.9.9".into(),
        }
        .to_string();
        assert!(
            msg.contains("protocol 99") && msg.contains(&format!("this relay {PROTOCOL_VERSION}")),
            "{msg}"
        );
    }

    /// The input counts are additive: a holder of an older build sends no `inputs` (the relay
    /// then sends it plain `INPUT`), and a newer one's hello still has every older field.
    #[test]
    fn a_hello_without_input_counts_is_an_older_holder() {
        let old = r#"{"holder":1,"build":"b","id":3,"pid":null,"tty":null,"reader_tid":0,
            "input_tid":0,"offset":0,"snapshot_len":0,"ring_len":0,"partial":false,"exit":null,
            "label":"","integration":"off"}"#;
        let hello: Hello = serde_json::from_str(old).unwrap();
        assert_eq!(hello.inputs, None);
        let newer = old.replace(
            r#""integration":"off""#,
            r#""integration":"off","inputs":[[10,7]]"#,
        );
        let hello: Hello = serde_json::from_str(&newer).unwrap();
        assert_eq!(hello.inputs, Some(vec![(10, 7)]));
    }

    #[test]
    fn input_from_frames_carry_client_and_start() {
        let mut payload = [7u64.to_be_bytes(), 300u64.to_be_bytes()].concat();
        payload.extend_from_slice(b"ls\r");
        assert_eq!(
            input_from(&payload),
            Some(InputFrom {
                client: 7,
                start: 300
            })
        );
        assert_eq!(&payload[INPUT_FROM_HEADER_BYTES..], b"ls\r");
        assert_eq!(input_from(&payload[..15]), None);
    }

    #[test]
    fn a_hello_whose_lengths_disagree_is_refused() {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let hello = Hello {
            holder: PROTOCOL_VERSION,
            build: build_id().into(),
            id: 3,
            pid: None,
            tty: None,
            reader_tid: 0,
            input_tid: 0,
            offset: 0,
            snapshot_len: 10,
            ring_len: 0,
            partial: false,
            exit: None,
            label: String::new(),
            integration: "off".into(),
            inputs: None,
        };
        send_hello(&theirs, &serde_json::to_vec(&hello).unwrap());
        match link(ours, PathBuf::from("/x/3.sock")) {
            Err(Refused::Stale(why)) => assert!(why.contains("lengths"), "{why}"),
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn integration_words_round_trip() {
        for i in [
            Integration::Injected(ShellKind::Bash),
            Integration::Injected(ShellKind::Zsh),
            Integration::Injected(ShellKind::Fish),
            Integration::NotInjected(NotInjected::Off),
            Integration::NotInjected(NotInjected::NotAShell),
            Integration::NotInjected(NotInjected::Arguments),
            Integration::NotInjected(NotInjected::NoScripts),
        ] {
            assert_eq!(decode_integration(&encode_integration(i)), i);
        }
    }
}

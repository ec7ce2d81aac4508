//! One PTY and its child, on portable-pty; blocking I/O runs on dedicated threads, never on the
//! async runtime.
//!
//! - the reader thread reads up to [`PTY_READ_CHUNK_BYTES`] at a time into a bounded channel
//!   ([`PTY_OUTPUT_QUEUE_CHUNKS`]); a full channel blocks it, which blocks the program: that is
//!   the output backpressure. Linux hands out at most 4 KiB per `read(2)` of a PTY master (the
//!   line discipline's buffer); the session joins chunks that queue up behind each other. The
//!   thread does not `poll(2)` for more before sending: on a PTY that poll waits for the
//!   kernel's tty worker to finish moving input (`n_tty_poll` flushes synchronously), which
//!   held a flood through the relay to a median 58 MiB/s on 2 cores (relay-bench, 66 without);
//! - the writer thread writes input messages in order as they arrive, so input never waits
//!   behind output;
//! - the waiter thread reaps the child and reports its exit code.
//!
//! The kernel buffers only about 19 KB between the program and the master (measured: a writer
//! stopped with SIGSTOP after filling it), so any pause of the reader stalls the program; the
//! reader therefore does nothing but read and hand over. Measured and rejected (relay-bench,
//! `cat` of 200 MiB, alternated with this design on the same 2 cores): feeding the emulator on
//! the reader thread; reading the master non-blocking until empty and handing over 32-64 KiB
//! at once; a dedicated feed thread, niced or not, instead of the feed job. Several cut relay
//! CPU per MiB by up to 28%, but all ran at 0.54-0.84× a bare PTY where this design ran at
//! 0.77-0.92×.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

use bytes::Bytes;
use portable_pty::{native_pty_system, ChildKiller, CommandBuilder, MasterPty, PtySize};
use tokio::sync::{mpsc, oneshot};
use wterm_core::Size;

use crate::ground::config::SECRET_ENVS;
use crate::ground::limits::{
    PTY_INPUT_QUEUE_MESSAGES, PTY_OUTPUT_QUEUE_CHUNKS, PTY_READ_CHUNK_BYTES,
};
use crate::session::ledger::{InputFrom, InputLedger};

/// A session's [`InputLedger`], shared by the thread that writes its input and the sockets
/// that ask it where a page's input stands.
pub type SharedLedger = Arc<parking_lot::Mutex<InputLedger>>;

/// The PTY master as the relay holds it: its own (portable-pty's), or a duplicate of a session
/// holder's (received over the holder's socket, `session/holder.rs`), which the relay only
/// resizes and asks `ioctl`s of; the holder reads and writes it.
pub enum Master {
    /// A PTY this process opened.
    Local(Box<dyn MasterPty + Send>),
    /// A holder's PTY master.
    Held(std::os::fd::OwnedFd),
}

impl Master {
    /// The descriptor, for `ioctl`s.
    pub fn raw_fd(&self) -> Option<std::os::fd::RawFd> {
        use std::os::fd::AsRawFd as _;
        match self {
            Master::Local(m) => m.as_raw_fd(),
            Master::Held(fd) => Some(fd.as_raw_fd()),
        }
    }

    /// The foreground process group of the PTY (`tcgetpgrp` on the master).
    pub fn process_group_leader(&self) -> Option<libc::pid_t> {
        match self {
            Master::Local(m) => m.process_group_leader(),
            Master::Held(_) => {
                // SAFETY: tcgetpgrp(3) on a descriptor we own.
                let pgrp = unsafe { libc::tcgetpgrp(self.raw_fd()?) };
                (pgrp > 0).then_some(pgrp)
            }
        }
    }
}

/// Whether the PTY is at a secret prompt ([`wterm_core::agent::secret_prompt`]): the slave's
/// termios, read through the master `fd` (Linux answers `TCGETS` on a master with its slave's
/// settings, `tty_mode_ioctl`), has canonical mode on and echo off. `None` when it cannot be
/// read (the PTY is closing).
pub fn at_secret_prompt(fd: std::os::fd::BorrowedFd<'_>) -> Option<bool> {
    use std::os::fd::AsRawFd as _;
    // SAFETY: termios is plain data; tcgetattr(3) fills it from a descriptor we hold.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    if unsafe { libc::tcgetattr(fd.as_raw_fd(), &mut t) } != 0 {
        return None;
    }
    Some(wterm_core::agent::secret_prompt::is_secret_prompt(
        t.c_lflag & libc::ICANON != 0,
        t.c_lflag & libc::ECHO != 0,
    ))
}

/// A running child on a PTY, split into the parts its session task owns.
pub struct Pty {
    /// The master side: resize it with [`resize`].
    pub master: Master,
    /// The slave side's path (`/dev/pts/N`), for [`flush_pending_input`].
    pub tty: Option<std::path::PathBuf>,
    /// Sends SIGHUP to the child; see [`hard_kill`] for the escalation.
    pub killer: Box<dyn ChildKiller + Send + Sync>,
    /// The child's process id.
    pub pid: Option<u32>,
    /// PTY output, in order, chunks of at most [`PTY_READ_CHUNK_BYTES`]; closed at EOF.
    pub output: mpsc::Receiver<Bytes>,
    /// Input to the program, written in order by the writer thread.
    pub input: mpsc::Sender<Input>,
    /// The flush epoch the writer thread compares each [`Input`] with; see [`Input::epoch`].
    pub flush_epoch: Arc<AtomicU64>,
    /// How far each page's numbered input was written ([`Input::from`]).
    pub inputs: SharedLedger,
    /// The child's exit code once it has been reaped (1 when it died of a signal).
    pub exited: oneshot::Receiver<i32>,
    /// What the reader and writer threads have moved so far.
    pub traffic: Arc<Traffic>,
}

/// Counts of what crossed the PTY, for telling whether input has been answered
/// (`Session::input_settled`): bytes in flight between the threads and the session are not
/// visible to any `ioctl`.
#[derive(Debug, Default)]
pub struct Traffic {
    /// Input messages handed to the writer thread (the session counts them as it queues).
    pub queued: AtomicU64,
    /// Input messages the writer thread has written to the master, or skipped after a flush.
    pub written: AtomicU64,
    /// Output bytes the reader thread has read from the master.
    pub read: AtomicU64,
    /// The reader thread's id (0 until it runs): asleep, it is blocked in `read(2)` or handing
    /// over a chunk it has counted; awake, it may hold bytes it has read and not yet counted.
    pub reader_tid: std::sync::atomic::AtomicI32,
}

impl Traffic {
    /// Whether the reader thread is asleep (see [`Traffic::reader_tid`]).
    pub fn reader_asleep(&self) -> bool {
        let tid = self.reader_tid.load(Ordering::Acquire);
        tid != 0 && state_is_sleeping(&format!("/proc/self/task/{tid}/stat"))
    }
}

/// Bytes for the program, tagged with the flush epoch they were queued in.
#[derive(Debug)]
pub struct Input {
    /// The value of the session's flush epoch when these bytes were queued. The writer thread
    /// drops input whose epoch is older than the current one: a flush (`/mcp/flush`) discards
    /// the relay's own pending writes this way.
    pub epoch: u64,
    /// The bytes, written verbatim.
    pub bytes: Bytes,
    /// Where they start in a page's numbered input, for a page that numbers it: the writer
    /// skips what [`InputLedger`] says was written already and records the rest.
    pub from: Option<InputFrom>,
}

/// The part of `input` still to be written (all of it when it is not numbered), recording
/// numbered input as written: call it right before writing (a failed write then loses those
/// bytes with the program, whose writer is gone).
pub fn unwritten<'a>(input: &'a Input, ledger: &SharedLedger) -> &'a [u8] {
    let Some(from) = input.from else {
        return &input.bytes;
    };
    let mut l = ledger.lock();
    let skip = l.written_already(from, input.bytes.len());
    l.record(from, input.bytes.len());
    &input.bytes[skip..]
}

fn pty_size(size: Size) -> PtySize {
    PtySize {
        rows: size.rows,
        cols: size.cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

/// A started child: the PTY master, the child, its pid.
pub type Spawned = (
    Box<dyn MasterPty + Send>,
    Box<dyn portable_pty::Child + Send + Sync>,
    Option<u32>,
);

/// Starts `program` on a new PTY of `size` with `TERM=xterm-256color` and `COLORTERM=truecolor`,
/// without the relay's secrets in its environment: the master, the child and its pid.
pub fn spawn_raw(program: &crate::ground::program::Program, size: Size) -> io::Result<Spawned> {
    let Some((exe, args)) = program.argv.split_first() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty command"));
    };
    let pair = native_pty_system()
        .openpty(pty_size(size))
        .map_err(io::Error::other)?;
    let mut cmd = CommandBuilder::new(exe);
    cmd.args(args);
    cmd.env("TERM", "xterm-256color");
    cmd.env("COLORTERM", "truecolor");
    for (k, v) in &program.env {
        cmd.env(k, v);
    }
    for name in SECRET_ENVS {
        cmd.env_remove(name);
    }
    match &program.cwd {
        Some(dir) => cmd.cwd(dir),
        None => {
            if let Ok(cwd) = std::env::current_dir() {
                cmd.cwd(cwd);
            }
        }
    }
    let child = pair.slave.spawn_command(cmd).map_err(io::Error::other)?;
    // The child holds its own copy; ours must go, or the master never sees EOF.
    drop(pair.slave);
    let pid = child.process_id();
    Ok((pair.master, child, pid))
}

/// [`spawn_raw`], and starts the reader, writer and waiter threads.
pub fn spawn(program: &crate::ground::program::Program, size: Size) -> io::Result<Pty> {
    let (master, mut child, pid) = spawn_raw(program, size)?;
    let killer = child.clone_killer();
    let reader = reader_of(&*master)?;
    let writer = master.take_writer().map_err(io::Error::other)?;

    let (out_tx, output) = mpsc::channel(PTY_OUTPUT_QUEUE_CHUNKS);
    let (input, in_rx) = mpsc::channel(PTY_INPUT_QUEUE_MESSAGES);
    let (exit_tx, exited) = oneshot::channel();
    let traffic = Arc::new(Traffic::default());
    let name = |what: &str| format!("pty-{what}-{}", pid.unwrap_or(0));
    thread::Builder::new().name(name("read")).spawn({
        let traffic = traffic.clone();
        move || read_loop(reader, out_tx, &traffic)
    })?;
    let flush_epoch = Arc::new(AtomicU64::new(0));
    let epoch = flush_epoch.clone();
    let inputs = SharedLedger::default();
    thread::Builder::new().name(name("write")).spawn({
        let traffic = traffic.clone();
        let inputs = inputs.clone();
        move || write_loop(writer, in_rx, &epoch, &traffic, &inputs)
    })?;
    thread::Builder::new().name(name("wait")).spawn(move || {
        let code = match child.wait() {
            Ok(status) => i32::try_from(status.exit_code()).unwrap_or(i32::MAX),
            Err(e) => {
                tracing::warn!(error = %e, "waiting for the child failed");
                -1
            }
        };
        let _ = exit_tx.send(code);
    })?;
    Ok(Pty {
        tty: master.tty_name(),
        master: Master::Local(master),
        killer,
        pid,
        output,
        input,
        flush_epoch,
        inputs,
        exited,
        traffic,
    })
}

/// A descriptor of its own on the PTY master (a `dup`), for the reader thread: it outlives the
/// session's `master`, so the thread never reads or polls a closed or reused descriptor.
pub(super) fn reader_of(master: &dyn MasterPty) -> io::Result<std::fs::File> {
    use std::os::fd::BorrowedFd;
    let fd = master
        .as_raw_fd()
        .ok_or_else(|| io::Error::other("the PTY master has no descriptor"))?;
    // SAFETY: `fd` belongs to `master`, which is alive for the whole call.
    let owned = unsafe { BorrowedFd::borrow_raw(fd) }.try_clone_to_owned()?;
    Ok(std::fs::File::from(owned))
}

fn read_loop(mut reader: std::fs::File, tx: mpsc::Sender<Bytes>, traffic: &Traffic) {
    // SAFETY: gettid(2) has no preconditions.
    let tid = unsafe { libc::gettid() };
    traffic.reader_tid.store(tid, Ordering::Release);
    let mut buf = vec![0u8; PTY_READ_CHUNK_BYTES];
    loop {
        let len = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // EIO: every slave descriptor is closed (Linux reports the hang-up this way).
            Err(_) => break,
        };
        traffic.read.fetch_add(len as u64, Ordering::AcqRel);
        if tx
            .blocking_send(Bytes::copy_from_slice(&buf[..len]))
            .is_err()
        {
            break;
        }
    }
}

fn write_loop(
    mut writer: Box<dyn Write + Send>,
    mut rx: mpsc::Receiver<Input>,
    epoch: &AtomicU64,
    traffic: &Traffic,
    inputs: &SharedLedger,
) {
    while let Some(input) = rx.blocking_recv() {
        let bytes = unwritten(&input, inputs);
        // Queued before a flush: skipped (and counted as written: a page does not resend it).
        let result = if input.epoch < epoch.load(Ordering::Acquire) {
            Ok(())
        } else {
            writer.write_all(bytes).and_then(|()| writer.flush())
        };
        traffic.written.fetch_add(1, Ordering::AcqRel);
        if let Err(e) = result {
            tracing::debug!(error = %e, "PTY write failed; dropping further input");
            break;
        }
    }
}

/// Bytes waiting in a terminal's queue (`FIONREAD`, after `poll(2)` has moved in what the
/// kernel still held): on the slave, input the program has not read; on the master, output
/// the relay has not read. `None` when it cannot be asked.
fn queued_bytes(fd: std::os::fd::RawFd) -> Option<usize> {
    // Bytes just written to the other side wait in the tty's flip buffer until a kernel worker
    // moves them into the line discipline, and FIONREAD counts only the latter; `poll(2)` on
    // the tty waits for that worker (`n_tty_poll`), so the count then includes them.
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one pollfd, which `pfd` is; a zero timeout never blocks.
    unsafe { libc::poll(&mut pfd, 1, 0) };
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, which points at `n`.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    (r == 0).then(|| usize::try_from(n).unwrap_or(0))
}

/// Input queued for the program on the slave `tty` and not read by it yet, in bytes.
pub fn pending_input(tty: &std::path::Path) -> Option<usize> {
    use std::os::fd::AsRawFd as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(tty)
        .ok()?;
    queued_bytes(slave.as_raw_fd())
}

/// Output of the program on `master` not read yet (by the relay or its holder), in bytes.
pub fn pending_output(master: &Master) -> Option<usize> {
    queued_bytes(master.raw_fd()?)
}

/// Whether process `pid` is asleep (state `S` in `/proc/PID/stat`): a line editor that has
/// handled all its input waits in `read(2)` for more.
pub fn asleep(pid: u32) -> bool {
    state_is_sleeping(&format!("/proc/{pid}/stat"))
}

/// Whether process `pid` is blocked waiting for input on its standard input: asleep in `read(2)`
/// on fd 0, or in `poll`/`select` (`/proc/PID/syscall`, proc(5); readable for the relay's own
/// user's processes). A shell doing that while it reports a command running is a builtin
/// reading a line (`read -p`), not a shell about to fork a job. `false` when it cannot be told.
pub fn waiting_for_input(pid: u32) -> bool {
    if !asleep(pid) {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/syscall")) else {
        return false;
    };
    let mut fields = text.split_whitespace();
    let (Some(nr), Some(arg0)) = (fields.next(), fields.next()) else {
        return false;
    };
    let Ok(nr) = nr.parse::<i64>() else {
        return false;
    };
    let polls = [libc::SYS_pselect6, libc::SYS_ppoll];
    #[cfg(target_arch = "x86_64")]
    let polls = [polls[0], polls[1], libc::SYS_poll, libc::SYS_select];
    (nr == libc::SYS_read && arg0 == "0x0") || polls.contains(&nr)
}

/// Whether the `stat` file at `path` (proc(5)) gives state `S`.
fn state_is_sleeping(path: &str) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|stat| {
            let rest = &stat[stat.rfind(')')? + 1..];
            rest.split_whitespace().next().map(|state| state == "S")
        })
        .unwrap_or(false)
}

/// The PTY's size (`TIOCGWINSZ`).
pub fn size_of(master: &Master) -> Option<Size> {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one winsize through the pointer.
    let r = unsafe { libc::ioctl(master.raw_fd()?, libc::TIOCGWINSZ, &mut ws) };
    (r == 0 && ws.ws_row > 0 && ws.ws_col > 0).then(|| Size::new(ws.ws_row, ws.ws_col))
}

/// Resizes the PTY (the kernel sends SIGWINCH to the foreground process group).
pub fn resize(master: &Master, size: Size) {
    let result = match master {
        Master::Local(m) => m.resize(pty_size(size)).map_err(io::Error::other),
        Master::Held(_) => {
            let ws = libc::winsize {
                ws_row: size.rows,
                ws_col: size.cols,
                ws_xpixel: 0,
                ws_ypixel: 0,
            };
            match master.raw_fd() {
                // SAFETY: TIOCSWINSZ reads one winsize through the pointer.
                Some(fd) if unsafe { libc::ioctl(fd, libc::TIOCSWINSZ, &ws) } == 0 => Ok(()),
                _ => Err(io::Error::last_os_error()),
            }
        }
    };
    if let Err(e) = result {
        tracing::warn!(error = %e, "PTY resize failed");
    }
}

/// Discards input the program has not read yet (`tcflush(TCIFLUSH)` on the slave side, opened
/// by its path `tty`). The slave, not the master: on Linux `TCIFLUSH` on the master drops the
/// program's pending *output* (and its echo), while the input queued for the program lives in
/// the slave's line discipline.
pub fn flush_pending_input(tty: &std::path::Path) -> io::Result<()> {
    use std::os::fd::AsRawFd as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(tty)?;
    // SAFETY: tcflush(3) on a descriptor we own; no memory is passed.
    if unsafe { libc::tcflush(slave.as_raw_fd(), libc::TCIFLUSH) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// SIGKILL to the child and to its process group (it is a session leader, so the group id is
/// its pid), and to every other process still in its session (see [`end_session`]): the
/// escalation after SIGHUP went unheeded.
pub fn hard_kill(pid: u32) {
    let Ok(raw) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) has no memory-safety preconditions; a stale pid only fails with ESRCH.
    unsafe {
        libc::kill(-raw, libc::SIGKILL);
        libc::kill(raw, libc::SIGKILL);
    }
    end_session(pid);
}

/// SIGKILL to every process left in the session the child `sid` leads (the child called
/// `setsid`, so the session id is its pid), in whatever process group: a shell puts each
/// background job in a group of its own, and a job that ignores SIGHUP (`nohup cmd &`) outlives
/// the shell's exit there. A process that left the session (`setsid`, a daemon) is not found.
/// Looks again while it finds some (a job may fork meanwhile), at most a few times; returns how
/// many were signalled.
pub fn end_session(sid: u32) -> usize {
    let own = std::process::id();
    let mut total = 0;
    for _ in 0..4 {
        let members: Vec<u32> = session_members(sid)
            .into_iter()
            .filter(|&p| p != own)
            .collect();
        if members.is_empty() {
            break;
        }
        for p in &members {
            if let Ok(p) = libc::pid_t::try_from(*p) {
                // SAFETY: as in `hard_kill`.
                unsafe {
                    libc::kill(p, libc::SIGKILL);
                }
            }
        }
        total += members.len();
    }
    total
}

/// The live (not zombie) processes whose session id is `sid`, from `/proc/PID/stat`.
fn session_members(sid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // After the command name (in parentheses, may hold anything): state, ppid, pgrp,
            // session.
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                return false;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.first().is_some_and(|s| *s != "Z" && *s != "X")
                && fields.get(3).and_then(|s| s.parse::<u32>().ok()) == Some(sid)
        })
        .collect()
}

//! PTY sessions: a child on a PTY, the relay's own emulator of its screen, and the pages
//! attached to it.
//!
//! - [`pty`]: spawning and the blocking reader, writer and waiter threads;
//! - [`fanout`]: the bounded per-page queue ([`fanout::ClientQueue`]);
//! - [`registry`]: the live sessions by id, creation, shutdown;
//! - [`holder`]: session holders, the processes that keep a session's PTY and program across
//!   relay restarts, and the relay's connection to them.
//!
//! A session's pump task owns the output path: each chunk from the PTY is queued to every
//! attached page first and then to the session's [`Terminal`], which a feed job on the blocking
//! pool works through: the emulator (the costliest stage) runs beside the websocket writers
//! instead of in front of them. Anything that reads or snapshots the terminal first feeds it
//! what was forwarded so far, so it never sees less than the pages were sent. A page attaching
//! does that holding the output lock, so it sees exactly the output that follows its snapshot.
//! Input from pages bypasses all of this and goes to the PTY's writer thread.

pub mod budget;
pub mod fanout;
pub mod holder;
pub mod ledger;
pub mod pty;
pub mod registry;

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use parking_lot::{Mutex, MutexGuard};
use portable_pty::ChildKiller;
use serde::Serialize;
use tokio::sync::{mpsc, oneshot, watch, Notify};
use tokio::time::Instant;
use wterm_core::agent::turns::{self, Typists};
use wterm_core::{Author, Size, Terminal, View, RESYNC_PREFIX};

use crate::ground::author::AuthorFacts;
use crate::ground::limits::{
    EXIT_DRAIN, EXIT_DRAIN_MAX, FEED_HIGH_WATER_BYTES, FEED_LOW_WATER_BYTES, FLOW_HIGH_WATER_BYTES,
    FLOW_LOW_WATER_BYTES, FLOW_WAIT_MAX, HOLDER_SNAPSHOT_AFTER_BYTES, HOLDER_SNAPSHOT_INTERVAL,
    PTY_READ_CHUNK_BYTES, SCROLLBACK_ROWS, SECRET_PROMPT_POLL,
};
use crate::ground::shell_integration::ScriptDir;
pub use crate::ground::shell_integration::{Integration, NotInjected, ShellKind};
use crate::ground::text::strip_controls;
use budget::MemoryBudget;
use fanout::{ClientQueue, Frame};
use pty::Input;

/// The websocket close code a page gets when the relay lets its session go to its holder at
/// shutdown: 1012 "service restart" (RFC 6455 registry); the page reconnects.
pub const RELAY_RESTART_CLOSE: u16 = 1012;

pub use ledger::{CLIENT_REPLACED_CLOSE, CLIENT_REPLACED_REASON};

/// A session id: a positive integer, assigned from 1 upwards and never reused while the relay
/// runs.
pub type SessionId = u64;

/// A session id as it appears in a URL (`?session=N`, `/sessions/N`): ASCII digits only, so
/// `+1` or ` 1` (which `u64::from_str` would take) name no session.
pub fn parse_id(text: &str) -> Option<SessionId> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A JSON control message to a page (a text websocket frame); see `http/ws.rs` for the protocol.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ToPage<'a> {
    /// The id of a session made for this socket (sent first when `/ws` had no `session`).
    Session {
        /// The new session's id.
        id: SessionId,
    },
    /// The session's size; sent first on attach and to every page after a resize.
    Resized {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
        /// (ext) On attach only: `true` when the relay injected its shell integration into the
        /// session's shell, which reports its commands (OSC 133) once it draws its first prompt;
        /// the page's `waitForCommand` calls wait for that prompt instead of being refused.
        #[serde(skip_serializing_if = "Option::is_none")]
        shell_integration: Option<bool>,
    },
    /// The window title changed (OSC 0/2), without control characters
    /// ([`strip_controls`]); empty when the program cleared it.
    Title {
        /// The new title.
        data: &'a str,
    },
    /// The process exited with this code (1 when a signal ended it); a close 1000 follows.
    Exit {
        /// The exit code.
        code: i32,
    },
    /// (ext) An agent used this session through the relay's broker (an MCP client): `kind`
    /// `"read"` or `"write"`, `tool` the MCP tool's name (`read_screen`, `send_input`, ...),
    /// `at` epoch milliseconds, `by` who (`{kind, name}` as a command's `submitted_by`: the
    /// MCP client's `clientInfo` name, or a route caller's scope). Carries no screen text or
    /// token.
    Agent {
        /// `"read"` or `"write"`.
        kind: &'a str,
        /// The MCP tool's name.
        tool: &'a str,
        /// When the call was admitted, epoch milliseconds.
        at: u64,
        /// Who called (a `submitted_by` object).
        by: AuthorFacts,
    },
    /// (ext) How far the input of the page's `client` reached the program, in bytes of its
    /// numbering; `None` (JSON null) when the session does not know the client. Sent before
    /// `resized` on an attach with a `client` ([`ledger`]).
    Input {
        /// The offset, or null.
        offset: Option<u64>,
    },
    /// (ext) The PTY's line discipline is (`active: true`) or no longer is at a secret
    /// prompt: canonical mode with echo off, as at a password prompt
    /// (`wterm_core::agent::secret_prompt`). Sent to every page when it changes, and after
    /// `resized` and the snapshot on an attach while one is shown. `agents_may_type`: the
    /// person let agents type there (`POST /session/mcp {secret_input: true}`); the page's own
    /// agent tools follow it too.
    #[serde(rename = "secret_prompt")]
    SecretPrompt {
        /// Whether the terminal is waiting for a secret now.
        active: bool,
        /// Whether agents may type at it anyway.
        agents_may_type: bool,
    },
    /// A message from the page was not understood, or the relay refused something.
    Error {
        /// A short code, such as `bad_message`.
        reason: &'a str,
        /// (ext) What was wrong and what is accepted, when there is more to say than the code.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<&'a str>,
    },
}

impl ToPage<'_> {
    /// The message as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// What `GET /sessions` says about a session.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SessionInfo {
    /// The session id.
    pub id: SessionId,
    /// The title the program set, without control characters ([`strip_controls`]), or `null`.
    pub title: Option<String>,
    /// Width in columns.
    pub cols: u16,
    /// Height in rows.
    pub rows: u16,
    /// The child's process id, or `null` when unknown.
    pub pid: Option<u32>,
}

/// What a new session runs and how it starts.
#[derive(Debug)]
pub struct SessionSpec {
    /// The program.
    pub program: crate::ground::program::Program,
    /// The PTY's size (clamped).
    pub size: Size,
    /// What the layer above keeps with the session from before its process starts (the
    /// broker's window state: scope, mode, owner, so a launch is never visible untagged).
    /// Opaque here; read back with [`Session::attachment`].
    pub attachment: Attachment,
    /// What the layer above needs to make the attachment again for this session after a relay
    /// restart (a held session, see [`holder`]); kept by the holder, given back by
    /// [`registry::Registry::adopt`]. Opaque here.
    pub label: String,
}

/// A value of the layer above, kept with a session for its whole life (see
/// [`SessionSpec::attachment`]); `Box::new(())` when there is none.
pub type Attachment = Box<dyn std::any::Any + Send + Sync>;

/// The relay's emulator of the session, behind [`Session::screen`].
struct Screen {
    terminal: Terminal,
    master: pty::Master,
    /// Output bytes fed to `terminal` since this relay took the session over.
    fed: u64,
    /// `fed` and the time when a snapshot was last shipped to the holder.
    shipped: (u64, Instant),
    /// Counts changes to the terminal: output fed, a resize, a reset. See [`Session::version`].
    version: u64,
    /// The visible screen's frame at `version`, computed at most once per version however many
    /// readers wait on this session.
    screen_memo: Option<(u64, Arc<wterm_core::Frame>)>,
    /// Bytes of [`Session::budget`] this session holds: [`budget::cost`] of its size.
    reserved: u64,
}

/// Output sent to the pages and not yet fed to the emulator.
struct Unfed {
    chunk: Bytes,
    /// When it arrived from the PTY, in milliseconds since the Unix epoch: the time its shell
    /// marks are stamped with in the command log (the page stamps with `Date.now()` alike).
    at_ms: u64,
    /// The relay's own in-band note of who submitted a line ([`Author::note_sequence`]), not
    /// program output: not counted in the output offsets shared with the holder.
    note: bool,
}

/// Milliseconds since the Unix epoch (0 for a clock before it).
pub fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Milliseconds from `origin` to now, the clock of [`Typists`].
fn ms_since(origin: Instant) -> f64 {
    origin.elapsed().as_secs_f64() * 1000.0
}

/// The output side, behind [`Session::out`]: who gets output, and what the emulator still has
/// to be fed. Lock order: [`Session::screen`] first, then this.
struct Output {
    clients: Vec<Arc<ClientQueue>>,
    exit: Option<i32>,
    /// When output last arrived (or the session started).
    last_output: Instant,
    /// When input was last queued for the program, if ever.
    last_input: Option<Instant>,
    /// When the person last typed a line, in milliseconds since `started` (a page's input
    /// counts as the person's: [`wterm_core::agent::turns`]).
    typists: Typists,
    /// The pages' input chunks, counted (for `typeahead`).
    person_inputs: u64,
    /// When the session started: the origin of `typists`' clock.
    started: Instant,
    /// Oldest first.
    unfed: VecDeque<Unfed>,
    /// Bytes sent to the pages and not yet fed: those in `unfed` and those a feed has taken
    /// and not finished. Bounded by flow control ([`FEED_HIGH_WATER_BYTES`]).
    unfed_bytes: usize,
    /// A feed job is scheduled or running.
    feeding: bool,
}

/// One live session. Shared as `Arc<Session>` by the registry, its pump task and the sockets
/// attached to it.
pub struct Session {
    id: SessionId,
    pid: Option<u32>,
    tty: Option<PathBuf>,
    /// Held for a whole feed batch; released fairly, so readers get in during a flood.
    screen: Mutex<Screen>,
    out: Mutex<Output>,
    /// Woken whenever output has been fed (`unfed_bytes` shrank), for flow control.
    fed: Notify,
    input: mpsc::Sender<Input>,
    flush_epoch: Arc<AtomicU64>,
    /// How far each page's numbered input reached the program ([`ledger`]).
    inputs: pty::SharedLedger,
    /// Which page connection numbers each client's input now.
    claims: ledger::ClientClaims,
    /// What crossed the PTY (see [`Session::input_settled`]).
    traffic: Arc<pty::Traffic>,
    /// Output bytes handed to the emulator's queue and the pages ([`Session::forward`]).
    forwarded: AtomicU64,
    killer: std::sync::Mutex<Box<dyn ChildKiller + Send + Sync>>,
    ended: watch::Sender<bool>,
    /// The version after every change, for readers waiting on output (`/mcp/read` waits).
    changes: watch::Sender<u64>,
    /// Listed and reachable by id (see [`registry::Registry::publish`]).
    published: AtomicBool,
    /// See [`SessionSpec::attachment`].
    attachment: Attachment,
    /// Whether the relay injected shell integration into its program.
    integration: Integration,
    /// What [`Screen::reserved`] is counted against.
    budget: Arc<MemoryBudget>,
    /// The connection to the session's holder, for a held session.
    link: Option<holder::Link>,
    /// Let go to its holder at shutdown ([`Session::release_holder`]): its end is not the
    /// program's, and the pages are not told `exit`.
    released: AtomicBool,
    /// A duplicate of the PTY master's descriptor, for reading its line discipline without the
    /// screen lock ([`pty::at_secret_prompt`]); `None` when it could not be made.
    termios_fd: Option<std::os::fd::OwnedFd>,
    /// Whether the PTY was at a secret prompt when last read ([`Session::at_secret_prompt`]).
    secret_prompt: AtomicBool,
    /// Whether agents may type at a secret prompt ([`Session::set_agents_may_type_secrets`]).
    agents_may_type_secrets: AtomicBool,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.budget.release(self.screen.get_mut().reserved);
    }
}

/// A session's terminal, locked, with what the readers need beside it.
pub struct Locked<'a> {
    /// The terminal.
    pub terminal: &'a mut Terminal,
    /// [`Session::version`] at the time of the lock.
    pub version: u64,
    /// When output last arrived (or the session started).
    pub last_output: Instant,
    memo: &'a mut Option<(u64, Arc<wterm_core::Frame>)>,
}

impl Locked<'_> {
    /// A frame of `view`; the visible screen's is computed once per version and shared.
    pub fn frame(&mut self, view: View) -> Arc<wterm_core::Frame> {
        if view != View::Screen {
            return Arc::new(self.terminal.frame(view));
        }
        match self.memo {
            Some((v, f)) if *v == self.version => f.clone(),
            _ => {
                let f = Arc::new(self.terminal.frame(View::Screen));
                *self.memo = Some((self.version, f.clone()));
                f
            }
        }
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

/// The output side of a session, to be driven by [`Pump::run`] on the runtime.
pub struct Pump {
    session: Arc<Session>,
    output: mpsc::Receiver<Bytes>,
    exited: oneshot::Receiver<i32>,
}

impl Session {
    /// Starts `spec.program` on a new PTY of `spec.size` (clamped). The returned [`Pump`] must
    /// be run for output to flow. The session starts unpublished.
    pub fn start(id: SessionId, spec: SessionSpec) -> std::io::Result<(Arc<Self>, Pump)> {
        let budget = Arc::new(MemoryBudget::new(u64::MAX));
        budget
            .reserve(budget::cost(spec.size.clamped()))
            .map_err(std::io::Error::other)?;
        Session::start_with(id, spec, None, budget, None)
    }

    /// [`Session::start`], injecting shell integration from `scripts` when the program is a
    /// shell that can take it ([`ScriptDir::prepare`]); [`Session::shell_integration`] says
    /// whether it was.
    ///
    /// The caller has reserved [`budget::cost`] of the clamped size in `budget`; the session
    /// gives it back when it is dropped (also when the start fails).
    ///
    /// With `holders` (the holders' directory), the program runs in a holder process
    /// ([`holder::spawn`]) and outlives this relay; without, it is a child of this process.
    pub fn start_with(
        id: SessionId,
        spec: SessionSpec,
        scripts: Option<&ScriptDir>,
        budget: Arc<MemoryBudget>,
        holders: Option<&std::path::Path>,
    ) -> std::io::Result<(Arc<Self>, Pump)> {
        let size = spec.size.clamped();
        let (program, integration) = match scripts {
            Some(dir) => dir.prepare(&spec.program, std::env::var_os("ZDOTDIR")),
            None => {
                let why = match crate::ground::shell_integration::injectable(&spec.program) {
                    Ok(_) => NotInjected::NoScripts,
                    Err(why) => why,
                };
                (spec.program, Integration::NotInjected(why))
            }
        };
        let reserved = budget::cost(size);
        let spawned = match holders {
            Some(dir) => holder::spawn(dir, id, &program, size, &spec.label, integration)
                .map(|(pty, link)| (pty, Some(link))),
            None => pty::spawn(&program, size).map(|pty| (pty, None)),
        };
        let (pty, link) = match spawned {
            Ok(pty) => pty,
            Err(e) => {
                budget.release(reserved);
                return Err(e);
            }
        };
        let terminal = Terminal::new(size, SCROLLBACK_ROWS);
        Ok(Session::from_pty(
            id,
            pty,
            link,
            terminal,
            spec.attachment,
            integration,
            budget,
            reserved,
        ))
    }

    /// A session of a holder this relay found at start ([`holder::reconnect`]): its emulator is
    /// rebuilt from the holder's snapshot and the output since. `attachment(label)` makes the
    /// layer above's attachment from the label the session was started with. The size the
    /// PTY has is reserved in `budget` (a session over budget is still taken: its program runs).
    pub fn adopt(
        id: SessionId,
        pty: pty::Pty,
        mut link: holder::Link,
        attachment: impl FnOnce(&str) -> Attachment,
        budget: Arc<MemoryBudget>,
    ) -> (Arc<Self>, Pump) {
        let size = pty::size_of(&pty.master)
            .unwrap_or(Size::new(24, 80))
            .clamped();
        let reserved = budget::cost(size);
        budget.force_reserve(reserved);
        let mut terminal = Terminal::new(size, SCROLLBACK_ROWS);
        let (label, integration) = (link.label.clone(), link.integration);
        if let Some(rebuild) = link.rebuild.take() {
            // Replies to queries in the replayed output were sent by the relay that saw it
            // first; the effects are dropped here.
            let _ = terminal.feed(&rebuild.snapshot);
            let _ = terminal.feed(&rebuild.output);
            if rebuild.partial {
                tracing::warn!(
                    session = id,
                    "the holder's output ring overflowed: history between the last snapshot \
                     and the kept output was lost; the screen is right once the program redraws"
                );
            }
        }
        Session::from_pty(
            id,
            pty,
            Some(link),
            terminal,
            attachment(&label),
            integration,
            budget,
            reserved,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn from_pty(
        id: SessionId,
        pty: pty::Pty,
        link: Option<holder::Link>,
        terminal: Terminal,
        attachment: Attachment,
        integration: Integration,
        budget: Arc<MemoryBudget>,
        reserved: u64,
    ) -> (Arc<Self>, Pump) {
        let termios_fd = pty.master.raw_fd().and_then(|fd| {
            // SAFETY: `fd` is the master's, open for as long as `pty.master` lives, which this
            // borrow does not outlast; the duplicate is ours.
            unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) }
                .try_clone_to_owned()
                .ok()
        });
        let session = Arc::new(Session {
            id,
            pid: pty.pid,
            tty: pty.tty,
            screen: Mutex::new(Screen {
                terminal,
                master: pty.master,
                fed: 0,
                shipped: (0, Instant::now()),
                version: 0,
                screen_memo: None,
                reserved,
            }),
            out: Mutex::new(Output {
                clients: Vec::new(),
                exit: None,
                last_output: Instant::now(),
                last_input: None,
                typists: Typists::default(),
                person_inputs: 0,
                started: Instant::now(),
                unfed: VecDeque::new(),
                unfed_bytes: 0,
                feeding: false,
            }),
            fed: Notify::new(),
            input: pty.input,
            flush_epoch: pty.flush_epoch,
            inputs: pty.inputs,
            claims: ledger::ClientClaims::default(),
            traffic: pty.traffic,
            forwarded: AtomicU64::new(0),
            killer: std::sync::Mutex::new(pty.killer),
            ended: watch::Sender::new(false),
            changes: watch::Sender::new(0),
            published: AtomicBool::new(false),
            attachment,
            integration,
            budget,
            link,
            released: AtomicBool::new(false),
            termios_fd,
            secret_prompt: AtomicBool::new(false),
            agents_may_type_secrets: AtomicBool::new(false),
        });
        let pump = Pump {
            session: session.clone(),
            output: pty.output,
            exited: pty.exited,
        };
        (session, pump)
    }

    /// The build of the holder process that keeps this session's program, if one does.
    pub fn holder_build(&self) -> Option<&str> {
        self.link.as_ref().map(|l| l.build.as_str())
    }

    /// Whether a holder process keeps this session's program ([`holder`]).
    pub fn is_held(&self) -> bool {
        self.link.is_some()
    }

    /// For a held session: ships a last snapshot to the holder (when the parser is in its
    /// ground state; else the holder keeps the previous one and the output since) and closes the
    /// connection. The program keeps running in its holder for the next relay.
    pub fn release_holder(&self) {
        let Some(link) = &self.link else {
            return;
        };
        self.released.store(true, Ordering::Release);
        {
            let mut screen = self.screen();
            if screen.terminal.at_ground() {
                let offset = link.base + screen.fed;
                let snapshot = screen.terminal.snapshot();
                if let Err(e) = link.ship_now(offset, &snapshot) {
                    tracing::warn!(session = self.id, error = %e, "last snapshot not shipped");
                }
            }
        }
        link.close();
        // Not 1000 (the session's end): the page's relay client reconnects after any other
        // close, and finds the session on the next relay.
        for c in &self.out.lock().clients {
            c.close(
                RELAY_RESTART_CLOSE,
                "relay restarting; the session lives on",
            );
        }
    }

    /// The attachment it was started with, when it is a `T`.
    pub fn attachment<T: 'static>(&self) -> Option<&T> {
        self.attachment.downcast_ref()
    }

    /// Whether the relay injected shell integration into the session's program, and for which
    /// shell; when it did not, what the program reports about its commands is unknown.
    pub fn shell_integration(&self) -> Integration {
        self.integration
    }

    /// The session id.
    pub fn id(&self) -> SessionId {
        self.id
    }

    /// The child's process id.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The emulator, fed everything forwarded to the pages so far.
    fn screen(&self) -> MutexGuard<'_, Screen> {
        let mut screen = self.screen.lock();
        self.catch_up(&mut screen);
        screen
    }

    /// The emulator fed everything forwarded so far, and the output side locked, so nothing is
    /// forwarded until both guards are dropped: for changes that must sit at one point of the
    /// output stream for the pages and the emulator alike (attach, resync, resize).
    fn settled(&self) -> (MutexGuard<'_, Screen>, MutexGuard<'_, Output>) {
        // The bulk without holding up output, then what was forwarded meanwhile.
        let mut screen = self.screen();
        let mut out = self.out.lock();
        let late = std::mem::take(&mut out.unfed);
        self.feed_batch(&mut screen, late, Some(&mut out));
        (screen, out)
    }

    /// Sets the colors the emulator answers OSC 10/11/12 queries with: the theme a page draws
    /// (its `colors` message). Configuration, not screen state: a reset keeps them.
    pub fn set_query_colors(&self, colors: wterm_core::DynamicColors) {
        self.screen.lock().terminal.set_dynamic_colors(colors);
    }

    /// Id, title, size and pid.
    pub fn info(&self) -> SessionInfo {
        let screen = self.screen();
        let size = screen.terminal.size();
        SessionInfo {
            id: self.id,
            title: screen
                .terminal
                .title()
                .map(|t| strip_controls(t).into_owned()),
            cols: size.cols,
            rows: size.rows,
            pid: self.pid,
        }
    }

    /// Queues an agent's `bytes` for the program (written in order by the PTY's writer thread).
    /// Waits while the input queue is full; false once the process has gone. Its Ctrl-C or
    /// Ctrl-U ends the person's line ([`Session::person_holds_line`]); a line it submits is
    /// noted as `author`'s ([`Session::note_submit`]).
    pub async fn write(&self, bytes: Bytes, author: &Author) -> bool {
        self.write_from(bytes, None, author).await
    }

    /// A page's input, [`Session::write`] otherwise: `from` says where `bytes` start in the
    /// page's numbering, and what of them reached the program already is skipped ([`ledger`]).
    /// `author`: the person, or the page's own agent (a WebMCP tool) when the page said so.
    pub async fn write_from(
        &self,
        bytes: Bytes,
        from: Option<ledger::InputFrom>,
        author: &Author,
    ) -> bool {
        {
            let mut out = self.out.lock();
            if author.is_agent() {
                out.typists.agent_typed(&bytes);
            } else {
                let now = ms_since(out.started);
                out.typists.person_typed(&bytes, now);
                // Any of it may echo into a running command's output (a cursor key as `^[[D`).
                out.person_inputs += 1;
            }
            if turns::submits(&bytes) {
                Self::note_submit(&mut out, author);
            }
        }
        self.queue_input(bytes, from).await
    }

    /// Puts `author`'s note ([`Author::note_sequence`]) into the output stream, for the pages
    /// and the relay's emulator, right where the line goes to the program: the `C` mark the
    /// line brings (output read after this) takes it. A held session's holder gets it with the
    /// next snapshot (within [`HOLDER_SNAPSHOT_INTERVAL`]), so a relay killed before then loses
    /// the author of a command that started in between (a clean stop ships a last snapshot).
    fn note_submit(out: &mut Output, author: &Author) {
        let note = Bytes::from(author.note_sequence());
        for c in &out.clients {
            c.push_output(note.clone());
        }
        out.unfed_bytes += note.len();
        out.unfed.push_back(Unfed {
            chunk: note,
            at_ms: epoch_ms(),
            note: true,
        });
    }

    /// Whether a person at a page holds the shell's command line now, so an agent's Enter
    /// would join their line ([`Typists::person_holds`]: a key of theirs within
    /// `PERSON_TYPING_MS`, or their half-typed command line on the prompt).
    pub fn person_holds_line(&self) -> bool {
        let line = self.inspect(|l| l.terminal.command_line_typed());
        let out = self.out.lock();
        out.typists.person_holds(line, ms_since(out.started))
    }

    /// How many chunks of input pages have sent: more at a call's end than at its start is the
    /// person's typeahead during it (a terminal's replies count too: they may echo as well).
    pub fn person_inputs(&self) -> u64 {
        self.out.lock().person_inputs
    }

    async fn queue_input(&self, bytes: Bytes, from: Option<ledger::InputFrom>) -> bool {
        self.out.lock().last_input = Some(Instant::now());
        let epoch = self.flush_epoch.load(Ordering::Acquire);
        self.traffic.queued.fetch_add(1, Ordering::AcqRel);
        self.input.send(Input { epoch, bytes, from }).await.is_ok()
    }

    /// How far the input of the page `client` reached the program (or, held, was handed to
    /// the holder, which keeps it across relay restarts), in bytes of that page's numbering;
    /// `None` when the session does not know the client (never seen, or forgotten past
    /// [`INPUT_CLIENTS_MAX`](crate::ground::limits::INPUT_CLIENTS_MAX)). The client is known
    /// from then on, at 0 if it was not.
    pub fn input_offset(&self, client: ledger::ClientId) -> Option<u64> {
        let mut l = self.inputs.lock();
        let known = l.get(client);
        l.register(client);
        known
    }

    /// Makes the page connection of `queue` the one whose binary frames are `client`'s
    /// numbered input; one that was is closed with [`CLIENT_REPLACED_CLOSE`] and its input no
    /// longer taken ([`ledger::ClientClaims::claim`]). Claim before asking
    /// [`Session::input_offset`], and give it back with [`Session::release_client`].
    pub fn claim_client(
        &self,
        client: ledger::ClientId,
        queue: &Arc<ClientQueue>,
    ) -> ledger::ClientClaim {
        self.claims.claim(client, queue)
    }

    /// Lets go of `claim` as its page connection ends.
    pub fn release_client(&self, claim: &ledger::ClientClaim) {
        self.claims.release(claim);
    }

    /// Whether all input written so far has been taken and answered, so that the screen shows
    /// the program's answer to it: every queued message is written to the PTY, the foreground
    /// program has read all of it (the slave's input queue is empty) and sleeps (a line editor
    /// waits in `read(2)` once it has echoed), and all its output so far has reached the
    /// emulator's queue (nothing on the master, nothing between the reader thread and
    /// [`Session::forward`]). `None` when the kernel cannot be asked (no tty, no foreground).
    pub fn input_settled(&self) -> Option<bool> {
        let t = &self.traffic;
        if t.written.load(Ordering::Acquire) < t.queued.load(Ordering::Acquire) {
            return Some(false);
        }
        if pty::pending_input(self.tty.as_deref()?)? > 0 {
            return Some(false);
        }
        if !pty::asleep(self.foreground_pgrp()?) {
            return Some(false);
        }
        if pty::pending_output(&self.screen.lock().master)? > 0 {
            return Some(false);
        }
        // Awake, the reader may hold bytes it took from the master and has not counted.
        if !t.reader_asleep() {
            return Some(false);
        }
        // Held: nothing on the socket either way, and the holder's threads idle.
        if let Some(link) = &self.link {
            if !link.settled()? {
                return Some(false);
            }
        }
        Some(self.forwarded.load(Ordering::Acquire) >= t.read.load(Ordering::Acquire))
    }

    /// The process's exit status once it has exited (the signal number + 128 when a signal
    /// ended it, as a shell reports it).
    pub fn exit_code(&self) -> Option<i32> {
        self.out.lock().exit
    }

    /// Whether the terminal is waiting for a secret: the PTY's line discipline has canonical
    /// mode on and echo off, read now (and every [`SECRET_PROMPT_POLL`] by the pump, which
    /// tells the pages). Agents may not type there ([`wterm_core::agent::secret_prompt`]).
    /// Do not call it holding the session's output lock.
    pub fn at_secret_prompt(&self) -> bool {
        self.poll_secret_prompt()
    }

    /// Whether agents may type at this session's secret prompts (the person allowed it).
    pub fn agents_may_type_secrets(&self) -> bool {
        self.agents_may_type_secrets.load(Ordering::Acquire)
    }

    /// Sets [`Session::agents_may_type_secrets`] (the window's setting, from the layer above);
    /// the pages are told when a prompt is shown.
    pub fn set_agents_may_type_secrets(&self, allowed: bool) {
        let was = self.agents_may_type_secrets.swap(allowed, Ordering::AcqRel);
        if was != allowed && self.secret_prompt.load(Ordering::Acquire) {
            self.tell_pages(&self.secret_prompt_message(true));
        }
    }

    fn secret_prompt_message(&self, active: bool) -> String {
        ToPage::SecretPrompt {
            active,
            agents_may_type: self.agents_may_type_secrets(),
        }
        .to_json()
    }

    /// Reads the line discipline (the last state read when it cannot be read); on a change
    /// records it, tells the pages and wakes waiting readers (a wait for a command ends at a
    /// secret prompt). Returns whether a secret prompt is shown.
    fn poll_secret_prompt(&self) -> bool {
        use std::os::fd::AsFd as _;
        let Some(now) = self
            .termios_fd
            .as_ref()
            .and_then(|fd| pty::at_secret_prompt(fd.as_fd()))
        else {
            return self.secret_prompt.load(Ordering::Acquire);
        };
        if self.secret_prompt.swap(now, Ordering::AcqRel) == now {
            return now;
        }
        // Never what is typed: only that a prompt came or went.
        tracing::info!(session = self.id, active = now, "secret prompt");
        self.tell_pages(&self.secret_prompt_message(now));
        self.changes.send_modify(|_| {});
        now
    }

    /// When input was last queued for the program, if ever.
    pub fn last_input(&self) -> Option<Instant> {
        self.out.lock().last_input
    }

    /// When input was last queued, if no output has arrived since: the program's echo of it
    /// may not be on the screen yet.
    pub fn input_unanswered(&self) -> Option<Instant> {
        let out = self.out.lock();
        out.last_input.filter(|at| *at >= out.last_output)
    }

    /// The current flush epoch: it moves on at every [`Session::flush_input`], so a paced
    /// writer can tell that its remaining input was discarded.
    pub fn flush_epoch(&self) -> u64 {
        self.flush_epoch.load(Ordering::Acquire)
    }

    /// Discards input not yet read by the program: the relay's own queued writes (the writer
    /// thread skips them) and what sits in the PTY's input queue (`tcflush(TCIFLUSH)`).
    pub fn flush_input(&self) {
        self.flush_epoch.fetch_add(1, Ordering::AcqRel);
        if let Some(tty) = &self.tty {
            if let Err(e) = pty::flush_pending_input(tty) {
                tracing::warn!(session = self.id, error = %e, "tcflush failed");
            }
        }
    }

    /// Runs `f` on the terminal, fed all output sent to the pages so far, under the session's
    /// screen lock. Keep it short: feeding the emulator waits.
    pub fn inspect<R>(&self, f: impl FnOnce(&mut Locked<'_>) -> R) -> R {
        let mut screen = self.screen();
        let last_output = self.out.lock().last_output;
        let screen = &mut *screen;
        let mut locked = Locked {
            terminal: &mut screen.terminal,
            version: screen.version,
            last_output,
            memo: &mut screen.screen_memo,
        };
        f(&mut locked)
    }

    /// A receiver of the session's version: it changes after every batch of output fed to the
    /// terminal, every resize and every [`Session::reset_screen`]. Readers wait on it; nothing
    /// polls.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// The number of changes to the terminal so far (batches of output fed, resizes, resets).
    pub fn version(&self) -> u64 {
        self.screen().version
    }

    /// Clears the relay's own copy of the screen (screen, history, modes, title), keeping its
    /// size; the program and the pages are not told. Wakes readers waiting on a change.
    pub fn reset_screen(&self) {
        let version = {
            let mut screen = self.screen();
            screen.terminal.reset();
            screen.version += 1;
            screen.version
        };
        self.changes.send_replace(version);
    }

    /// Whether the session is listed and reachable by id.
    pub fn is_published(&self) -> bool {
        self.published.load(Ordering::Acquire)
    }

    fn mark_published(&self) {
        self.published.store(true, Ordering::Release);
    }

    /// Attaches a page: its queue starts with `resized`, the snapshot, and the title if there is
    /// one; live output follows. On a session that already ended, `exit` and a close follow.
    pub fn attach(&self) -> Arc<ClientQueue> {
        let queue = Arc::new(ClientQueue::new());
        let (mut screen, mut out) = self.settled();
        queue.reset(screen_frames(&mut screen.terminal, b"", self.integration));
        if self.secret_prompt.load(Ordering::Acquire) {
            queue.push_text(self.secret_prompt_message(true));
        }
        if let Some(code) = out.exit {
            queue.push_text(ToPage::Exit { code }.to_json());
            queue.close(1000, "exited");
        }
        out.clients.push(queue.clone());
        queue
    }

    /// Queues the text frame `text` (JSON, see [`ToPage`]) to every page attached now; pages
    /// that fell behind drop it (as every text frame: their resync rebuilds what matters).
    /// Never waits on a page. Returns how many pages it was queued to.
    pub fn tell_pages(&self, text: &str) -> usize {
        let out = self.out.lock();
        for c in &out.clients {
            c.push_text(text.to_owned());
        }
        out.clients.len()
    }

    /// How many pages are attached now.
    pub fn pages(&self) -> usize {
        self.out.lock().clients.len()
    }

    /// Detaches a page's queue; the session goes on.
    pub fn detach(&self, queue: &Arc<ClientQueue>) {
        self.out.lock().clients.retain(|q| !Arc::ptr_eq(q, queue));
    }

    /// Rebuilds a lagged page's queue: reset, `resized`, snapshot, title.
    pub fn resync(&self, queue: &ClientQueue) {
        let (mut screen, _out) = self.settled();
        queue.reset(screen_frames(
            &mut screen.terminal,
            RESYNC_PREFIX,
            self.integration,
        ));
        // The page's terminal was reset: it knows of no prompt unless told again.
        if self.secret_prompt.load(Ordering::Acquire) {
            queue.push_text(self.secret_prompt_message(true));
        }
    }

    /// Resizes the PTY and the emulator to `size` (clamped), at the request of the page
    /// `from`. The other pages are told (`resized`) when the size changed; `from` is told only
    /// when clamping changed what it asked for. Echoing a page's own request back would make a
    /// page that resizes twice in a row chase its stale first size forever. A growth the
    /// memory budget cannot hold is refused: the size stays, and `from` gets `resized` with it
    /// and an `error` `memory_budget` saying why.
    pub fn resize(&self, size: Size, from: &ClientQueue) {
        let clamped = size.clamped();
        let (mut screen, out) = self.settled();
        let changed = screen.terminal.size() != clamped;
        if changed {
            let cost = budget::cost(clamped);
            if let Err(e) = self.budget.change(screen.reserved, cost) {
                let kept = screen.terminal.size();
                tracing::info!(
                    session = self.id,
                    cols = clamped.cols,
                    rows = clamped.rows,
                    "resize refused: {e}"
                );
                from.push_text(
                    ToPage::Resized {
                        cols: kept.cols,
                        rows: kept.rows,
                        shell_integration: None,
                    }
                    .to_json(),
                );
                let detail = e.to_string();
                from.push_text(
                    ToPage::Error {
                        reason: "memory_budget",
                        detail: Some(&detail),
                    }
                    .to_json(),
                );
                return;
            }
            screen.reserved = cost;
            screen.terminal.resize(clamped);
            pty::resize(&screen.master, clamped);
            screen.version += 1;
            self.changes.send_replace(screen.version);
        }
        let msg = ToPage::Resized {
            cols: clamped.cols,
            rows: clamped.rows,
            shell_integration: None,
        }
        .to_json();
        for c in &out.clients {
            let requester = std::ptr::eq(Arc::as_ptr(c), from);
            if (changed && !requester) || (requester && clamped != size) {
                c.push_text(msg.clone());
            }
        }
    }

    /// Asks the child to end (SIGHUP).
    pub fn hangup(&self) {
        let mut killer = self.killer.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = killer.kill() {
            tracing::debug!(session = self.id, error = %e, "SIGHUP failed");
        }
    }

    /// The PTY's foreground process group (`tcgetpgrp` on its master), when known: the shell's
    /// own pid while it reads a command line, a job's group while that job runs in the
    /// foreground (interactive shells give each job its group).
    pub fn foreground_pgrp(&self) -> Option<u32> {
        let screen = self.screen.lock();
        screen
            .master
            .process_group_leader()
            .and_then(|p| u32::try_from(p).ok())
    }

    /// Whether the session's own program (the shell) is the PTY's foreground process group,
    /// i.e. no job of it runs in the foreground.
    pub fn shell_in_foreground(&self) -> bool {
        self.pid.is_some() && self.foreground_pgrp() == self.pid
    }

    /// Whether the session has ended (its exit was sent to the pages).
    pub fn has_ended(&self) -> bool {
        *self.ended.borrow()
    }

    /// Waits until the session has ended.
    pub async fn wait_ended(&self) {
        let mut rx = self.ended.subscribe();
        let _ = rx.wait_for(|ended| *ended).await;
    }

    /// Flow control: while an attached page has more than [`FLOW_HIGH_WATER_BYTES`] of output
    /// queued, no more PTY output is taken (the program then blocks on its writes, as under a
    /// real terminal) until the queue drains to [`FLOW_LOW_WATER_BYTES`], for at most
    /// [`FLOW_WAIT_MAX`]. A page still behind after that is dropped to a resync, so a stuck page
    /// costs the others one wait, not a stall.
    async fn throttle(&self) {
        let busy: Vec<Arc<ClientQueue>> = self
            .out
            .lock()
            .clients
            .iter()
            .filter(|c| c.pending_bytes() > FLOW_HIGH_WATER_BYTES)
            .cloned()
            .collect();
        if busy.is_empty() {
            return;
        }
        let drained = tokio::time::timeout(FLOW_WAIT_MAX, async {
            for c in &busy {
                c.wait_below(FLOW_LOW_WATER_BYTES).await;
            }
        })
        .await;
        if drained.is_err() {
            for c in busy
                .iter()
                .filter(|c| c.pending_bytes() > FLOW_LOW_WATER_BYTES)
            {
                c.force_lag();
            }
        }
    }

    /// Feed flow control: while the emulator is more than [`FEED_HIGH_WATER_BYTES`] behind
    /// the pages, no more PTY output is taken until it is down to [`FEED_LOW_WATER_BYTES`]. No
    /// time limit: the emulator must see every byte, and the feed job always progresses.
    async fn wait_fed(&self) {
        loop {
            let fed = self.fed.notified();
            tokio::pin!(fed);
            // Registered before the check, so a feed between the two is not missed.
            fed.as_mut().enable();
            if self.out.lock().unfed_bytes <= FEED_LOW_WATER_BYTES {
                return;
            }
            fed.await;
        }
    }

    /// Sends a PTY chunk to every attached page, then queues it for the emulator and makes sure
    /// a feed job runs. Returns the bytes the emulator is behind the pages.
    fn forward(self: &Arc<Self>, chunk: Bytes) -> usize {
        let (start_job, behind) = {
            let mut out = self.out.lock();
            out.last_output = Instant::now();
            self.forwarded
                .fetch_add(chunk.len() as u64, Ordering::AcqRel);
            for c in &out.clients {
                c.push_output(chunk.clone());
            }
            out.unfed_bytes += chunk.len();
            out.unfed.push_back(Unfed {
                chunk,
                at_ms: epoch_ms(),
                note: false,
            });
            (!std::mem::replace(&mut out.feeding, true), out.unfed_bytes)
        };
        if start_job {
            let session = self.clone();
            tokio::task::spawn_blocking(move || session.feed_job());
        }
        behind
    }

    /// Feeds queued output to the emulator until none is left. One job per session at a time
    /// ([`Output::feeding`]); it holds the screen lock one batch at a time and hands it over
    /// fairly, so a reader waits for at most one batch.
    fn feed_job(&self) {
        loop {
            let mut screen = self.screen.lock();
            let batch = {
                let mut out = self.out.lock();
                if out.unfed.is_empty() {
                    out.feeding = false;
                    return;
                }
                std::mem::take(&mut out.unfed)
            };
            self.feed_batch(&mut screen, batch, None);
            MutexGuard::unlock_fair(screen);
        }
    }

    /// Everything forwarded so far and not yet taken by a feed, fed to `screen` (locked by the
    /// caller).
    fn catch_up(&self, screen: &mut Screen) {
        let batch = std::mem::take(&mut self.out.lock().unfed);
        self.feed_batch(screen, batch, None);
    }

    /// Feeds `batch` to the emulator, then acts on what it produced: replies to queries (the
    /// relay answers them for every page), a new title for the pages. `out`: the output side
    /// when the caller holds it.
    fn feed_batch(&self, screen: &mut Screen, batch: VecDeque<Unfed>, out: Option<&mut Output>) {
        if batch.is_empty() {
            return;
        }
        let mut bytes = 0;
        let mut notes = 0;
        let mut replies = Vec::new();
        let mut title_changed = false;
        for Unfed { chunk, at_ms, note } in &batch {
            bytes += chunk.len();
            if *note {
                notes += chunk.len();
            }
            screen.terminal.set_now_ms(*at_ms);
            let effects = match catch_unwind(AssertUnwindSafe(|| screen.terminal.feed(chunk))) {
                Ok(effects) => effects,
                Err(_) => {
                    // wterm-core promises not to panic; if it does, keep the session alive with
                    // a blank emulator rather than losing the shell.
                    tracing::error!(
                        session = self.id,
                        "the emulator panicked; its screen was reset"
                    );
                    screen.terminal = Terminal::new(screen.terminal.size(), SCROLLBACK_ROWS);
                    Default::default()
                }
            };
            title_changed |= effects.title_changed;
            // This emulator answers queries (DA1, CPR, ...), attached pages or not: pages
            // attached through the relay client do not (`answerQueries` off), so a program gets
            // one reply however many pages watch, and one with no page does not hang.
            replies.extend_from_slice(&effects.replies);
        }
        screen.version += 1;
        // Program output only: `fed` numbers the holder's output (its snapshot offsets).
        screen.fed += (bytes - notes) as u64;
        if let Some(link) = &self.link {
            let (at, when) = screen.shipped;
            let due = screen.fed - at >= HOLDER_SNAPSHOT_AFTER_BYTES
                || (screen.fed > at && when.elapsed() >= HOLDER_SNAPSHOT_INTERVAL);
            if due && screen.terminal.at_ground() {
                let snapshot = screen.terminal.snapshot();
                link.ship(link.base + screen.fed, snapshot);
                screen.shipped = (screen.fed, Instant::now());
            }
        }
        if !replies.is_empty() {
            let reply = Input {
                epoch: self.flush_epoch(),
                bytes: Bytes::from(replies),
                from: None,
            };
            self.traffic.queued.fetch_add(1, Ordering::AcqRel);
            if let Err(e) = self.input.try_send(reply) {
                self.traffic.queued.fetch_sub(1, Ordering::AcqRel);
                tracing::warn!(session = self.id, error = %e, "dropped a query reply: input queue full");
            }
        }
        let mut held;
        let out = match out {
            Some(out) => out,
            None => {
                held = self.out.lock();
                &mut *held
            }
        };
        out.unfed_bytes -= bytes;
        if title_changed {
            let msg = ToPage::Title {
                data: &strip_controls(screen.terminal.title().unwrap_or("")),
            }
            .to_json();
            for c in &out.clients {
                c.push_text(msg.clone());
            }
        }
        self.fed.notify_waiters();
        self.changes.send_replace(screen.version);
    }

    fn finish(&self, code: i32) {
        let mut out = self.out.lock();
        out.exit = Some(code);
        let msg = ToPage::Exit { code }.to_json();
        for c in &out.clients {
            c.push_text(msg.clone());
            c.close(1000, "exited");
        }
        drop(out);
        self.ended.send_replace(true);
    }
}

/// `resized` (saying whether the relay injected shell integration), the snapshot (after
/// `prefix`), and the title when set: what a page needs to show the session's screen from
/// nothing.
fn screen_frames(terminal: &mut Terminal, prefix: &[u8], integration: Integration) -> Vec<Frame> {
    let size = terminal.size();
    let mut snapshot = prefix.to_vec();
    snapshot.extend_from_slice(&terminal.snapshot());
    let mut frames = vec![
        Frame::Text(
            ToPage::Resized {
                cols: size.cols,
                rows: size.rows,
                shell_integration: Some(integration.is_injected()),
            }
            .to_json(),
        ),
        Frame::Snapshot(Bytes::from(snapshot)),
    ];
    if let Some(title) = terminal.title() {
        let data = &strip_controls(title);
        frames.push(Frame::Text(ToPage::Title { data }.to_json()));
    }
    frames
}

impl Pump {
    /// Moves output from the PTY to the emulator and the pages until the child has exited and
    /// its output is drained, then sends `exit` to the pages. Returns the session.
    pub async fn run(self) -> Arc<Session> {
        let Pump {
            session,
            mut output,
            mut exited,
        } = self;
        let mut termios = tokio::time::interval(SECRET_PROMPT_POLL);
        termios.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let code = loop {
            tokio::select! {
                biased;
                _ = termios.tick() => {
                    session.poll_secret_prompt();
                }
                chunk = output.recv() => match chunk {
                    Some(chunk) => {
                        if session.forward(take_waiting(chunk, &mut output)) > FEED_HIGH_WATER_BYTES {
                            session.wait_fed().await;
                        }
                        session.throttle().await;
                    }
                    // EOF: every slave descriptor is closed; the child is gone or going.
                    None => break (&mut exited).await.unwrap_or(-1),
                },
                code = &mut exited => {
                    // The child is reaped, but a background job may still hold the PTY open:
                    // take what is still coming, for a bounded time.
                    let deadline = Instant::now() + EXIT_DRAIN_MAX;
                    while let Ok(Some(chunk)) =
                        tokio::time::timeout(EXIT_DRAIN.min(until(deadline)), output.recv()).await
                    {
                        if session.forward(chunk) > FEED_HIGH_WATER_BYTES {
                            session.wait_fed().await;
                        }
                    }
                    break code.unwrap_or(-1);
                }
            }
        };
        if session.released.load(Ordering::Acquire) {
            tracing::info!(session = session.id, "session released to its holder");
            return session;
        }
        tracing::info!(session = session.id, code, "session ended");
        session.finish(code);
        session
    }
}

/// `first` with the chunks already waiting behind it appended, while it is under
/// [`PTY_READ_CHUNK_BYTES`] (so at most twice that): during a flood Linux hands PTY output over
/// 4 KiB per `read(2)`, and each chunk forwarded costs a message to every page and a wake of
/// the feed job, so taking what has piled up as one chunk keeps that cost per burst.
fn take_waiting(first: Bytes, output: &mut tokio::sync::mpsc::Receiver<Bytes>) -> Bytes {
    let Ok(next) = output.try_recv() else {
        return first;
    };
    let mut joined = bytes::BytesMut::with_capacity(2 * PTY_READ_CHUNK_BYTES);
    joined.extend_from_slice(&first);
    joined.extend_from_slice(&next);
    while joined.len() < PTY_READ_CHUNK_BYTES {
        let Ok(next) = output.try_recv() else { break };
        joined.extend_from_slice(&next);
    }
    joined.freeze()
}

fn until(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_chunks_are_forwarded_as_one_up_to_the_read_size() {
        let (tx, mut rx) = tokio::sync::mpsc::channel(8);
        let chunk = |b: u8, len: usize| Bytes::from(vec![b; len]);
        // Nothing waiting: the chunk itself.
        assert_eq!(take_waiting(chunk(b'a', 3), &mut rx), chunk(b'a', 3));
        // Waiting chunks join it, in order, until the read size is reached.
        let big = PTY_READ_CHUNK_BYTES / 2 + 1;
        for (b, len) in [(b'b', 2), (b'c', big), (b'd', big), (b'e', 1)] {
            tx.try_send(chunk(b, len)).unwrap();
        }
        let joined = take_waiting(chunk(b'a', 1), &mut rx);
        let want: Vec<u8> = [
            chunk(b'a', 1),
            chunk(b'b', 2),
            chunk(b'c', big),
            chunk(b'd', big),
        ]
        .concat();
        assert_eq!(joined, Bytes::from(want));
        assert!(joined.len() <= 2 * PTY_READ_CHUNK_BYTES);
        assert_eq!(
            rx.try_recv().unwrap(),
            chunk(b'e', 1),
            "the rest waits for the next forward"
        );
    }

    /// What a page shows, as far as the relay's protocol is concerned.
    fn view(t: &mut Terminal) -> (String, String, wterm_core::Modes, usize, Option<String>) {
        let history = t.scrollback_rows();
        (
            t.screen_text(),
            t.tail_text(10_000),
            t.modes(),
            history,
            t.title().map(str::to_owned),
        )
    }

    /// A page resynced mid-stream must end up where a freshly attached page does, whatever its
    /// terminal showed before and whatever half-sent sequence it was in.
    #[test]
    fn a_resync_rebuilds_a_dirty_terminal_like_a_fresh_attach() {
        let size = Size::new(6, 20);
        let mut truth = Terminal::new(size, 100);
        for i in 0..12 {
            truth.feed(format!("line {i}\r\n").as_bytes());
        }
        truth.feed(b"\x1b]2;truth\x07\x1b[?2004h\x1b[31mred\x1b[m $ ");
        let snapshot = truth.snapshot();

        let mut fresh = Terminal::new(size, 100);
        fresh.feed(&snapshot);

        let mut dirty = Terminal::new(size, 100);
        for i in 0..40 {
            dirty.feed(format!("stale {i}\r\n").as_bytes());
        }
        // Modes the truth does not have, and a CSI cut in the middle by the dropped output.
        dirty.feed(b"\x1b[?1h\x1b[?25l\x1b]2;stale\x07\x1b[>5u\x1b[3");
        dirty.feed(RESYNC_PREFIX);
        dirty.feed(&snapshot);

        assert_eq!(view(&mut dirty), view(&mut fresh));
        assert_eq!(view(&mut fresh), view(&mut truth));
    }

    #[test]
    fn a_resync_clears_what_the_session_does_not_have() {
        let size = Size::new(6, 20);
        let mut truth = Terminal::new(size, 100);
        truth.feed(b"plain $ ");
        let mut dirty = Terminal::new(size, 100);
        dirty.feed(b"\x1b]2;stale\x07\x1b[>1u\x1b[?1049h\x1b[>8u\x1b[?1049l");
        assert_eq!(dirty.title(), Some("stale"));
        assert_eq!(dirty.modes().kitty_flags, 1);
        dirty.feed(RESYNC_PREFIX);
        dirty.feed(&truth.snapshot());
        assert_eq!(view(&mut dirty), view(&mut truth));
        dirty.feed(b"\x1b[?1049h");
        assert_eq!(
            dirty.modes().kitty_flags,
            0,
            "the alternate screen's stack was cleared"
        );
    }
}

//! Every limit of the relay, with its unit and what happens at it.

use std::time::Duration;

/// Largest chunk the PTY reader thread sends to its session task, in bytes. Linux returns at
/// most 4 KiB per `read(2)` of a PTY master, and the reader sends what each read returns at
/// once (a keystroke's echo is not held back); the session joins chunks that have queued up
/// behind each other up to this size (session/mod.rs `take_waiting`), so a flood crosses in
/// fewer, larger messages.
pub const PTY_READ_CHUNK_BYTES: usize = 32 * 1024;

/// Chunks the PTY reader thread may have in flight towards its session task, in chunks of at
/// most [`PTY_READ_CHUNK_BYTES`]. When the channel is full the reader thread blocks, stops
/// reading, and the program blocks in `write(2)` once the kernel's PTY buffer fills: output is
/// paced by the pages and the emulator, never buffered without bound. Small on purpose: what
/// sits here while a slow page holds the session up still reaches that page after a Ctrl+C.
pub const PTY_OUTPUT_QUEUE_CHUNKS: usize = 2;

/// Input messages queued towards a PTY's writer thread, in messages of at most
/// [`MAX_WS_MESSAGE_BYTES`]. When the queue is full the websocket reading that page waits
/// (backpressure to the page); query replies the relay makes itself are dropped with a warning
/// instead, so output never waits on input.
pub const PTY_INPUT_QUEUE_MESSAGES: usize = 16;

/// Output queued for one attached page and not yet written to its socket, in bytes. A page
/// that falls further behind loses its queued output and is sent a fresh snapshot of the
/// session's screen instead (a resync), so a slow page costs at most this much memory plus one
/// snapshot (flow control holds the PTY only briefly, see [`FLOW_WAIT_MAX`]). It is also what a slow page may still
/// have to work through after Ctrl+C stops a flood: at the 2-4 MB/s a browser page parses and
/// draws, 256 KiB keeps that under the 200 ms the spec allows.
pub const CLIENT_QUEUE_BYTES: usize = 256 * 1024;

/// Queued output above which a page holds up the PTY, in bytes: the session stops reading
/// until the page's queue drains to [`FLOW_LOW_WATER_BYTES`] (flow control), so a page that
/// keeps up loses nothing to scheduling hiccups. Half of [`CLIENT_QUEUE_BYTES`].
pub const FLOW_HIGH_WATER_BYTES: usize = CLIENT_QUEUE_BYTES / 2;

/// Queued output a held-up session waits for a page to drain to, in bytes.
pub const FLOW_LOW_WATER_BYTES: usize = CLIENT_QUEUE_BYTES / 4;

/// Longest the session holds up the PTY for one page's queue to drain; a page still behind is
/// resynced instead (its queue dropped), so one stuck page cannot stall a session.
pub const FLOW_WAIT_MAX: std::time::Duration = std::time::Duration::from_millis(100);

/// Output the relay's own emulator may be behind the pages, in bytes: the pages get each PTY
/// chunk at once and a feed job on the blocking pool feeds the emulator behind them, so the
/// emulator (the costliest stage) runs beside the websocket writers, not in front of them. Past
/// this the session stops taking PTY output until the emulator is down to
/// [`FEED_LOW_WATER_BYTES`] (the program blocks on its writes). Readers never see the lag: each
/// read first feeds what is pending, which at this size takes a few milliseconds.
pub const FEED_HIGH_WATER_BYTES: usize = 512 * 1024;

/// Output the emulator may still be behind when a held-up session resumes, in bytes.
pub const FEED_LOW_WATER_BYTES: usize = FEED_HIGH_WATER_BYTES / 2;

/// Kernel send buffer of each accepted connection, in bytes (`SO_SNDBUF`; Linux doubles it).
/// Fixing it turns off autotuning, which would otherwise let up to 4 MiB of output sit in the
/// kernel towards a slow page, where no resync can reach it and Ctrl+C would wait behind it.
/// It limits one connection to about this much per round trip, far above a terminal's needs on
/// loopback or a LAN.
pub const SOCKET_SEND_BUFFER_BYTES: usize = 64 * 1024;

/// Most output bytes coalesced into one binary websocket frame, in bytes. Queued chunks are
/// merged up to this size; a single larger chunk (a snapshot) is sent as one frame.
pub const WS_FRAME_BYTES: usize = 128 * 1024;

/// What the relay reads from a page's websocket at once, in bytes (tungstenite's default is
/// 128 KiB). A page sends keystrokes; the websocket clears this much of its buffer at every
/// read, so a keystroke's echo paid for 128 KiB. A larger message (a paste) is read in pieces
/// of this size.
pub const WS_READ_BUFFER_BYTES: usize = 16 * 1024;

/// Largest websocket message a page may send, in bytes (the broker's input limit, 256 KiB).
/// A larger message ends the connection with close code 1009 (message too big).
pub const MAX_WS_MESSAGE_BYTES: usize = 256 * 1024;

/// Largest HTTP request body the page routes accept, in bytes; a larger body gets `413`.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// Most live sessions, in sessions. Creating one more is refused: `429 too_many_sessions` on
/// `POST /sessions`, close code 4429 on `/ws` without `session`.
pub const MAX_SESSIONS: usize = 64;

/// Smallest and largest accepted terminal side in `POST /sessions`, in rows or columns
/// (broker contract: dims 1..1000). Outside it: `400 bad_dims`. A websocket `resize` is
/// clamped instead (see `wterm_core::Size::clamped`).
pub const DIMS: core::ops::RangeInclusive<u16> = 1..=1000;

/// Rows of history the relay's emulator keeps per session, in rows; older rows are dropped.
/// This is also the most history a snapshot on attach can rebuild.
pub const SCROLLBACK_ROWS: usize = wterm_core::limits::DEFAULT_SCROLLBACK_ROWS;

/// How long output is still collected after the child exited, in milliseconds, measured from
/// the last chunk (a background job may keep the PTY open); then the session ends and pages get
/// the `exit` frame.
pub const EXIT_DRAIN: Duration = Duration::from_millis(200);

/// The most time spent collecting output after the child exited, whatever keeps writing.
pub const EXIT_DRAIN_MAX: Duration = Duration::from_secs(2);

/// How long a child gets after SIGHUP on shutdown before it and its process group get SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// How long shutdown waits for sessions to end and sockets to say goodbye before the process
/// exits anyway.
pub const SHUTDOWN_DRAIN: Duration = Duration::from_secs(5);

/// How long the relay waits for a page's answering close frame after sending its own.
pub const CLOSE_HANDSHAKE: Duration = Duration::from_secs(1);

// ---- The broker MCP routes (`/mcp/*`, broker contract "Defaults and limits"). ----

/// Largest HTTP request body the `/mcp/*` data routes read, in bytes; a larger body is refused
/// with `413 too_large` before it is parsed. It leaves room for [`MAX_INPUT_BYTES`] of text
/// JSON-escaped (a control byte takes six characters as `\u00XX`).
pub const MAX_MCP_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Most bytes one `/mcp/input` or `/mcp/keys` request may send, in bytes of UTF-8 (broker
/// contract: input ≤ 256 KiB a request). Over it: `413 too_large` and nothing is sent.
pub const MAX_INPUT_BYTES: usize = 256 * 1024;

/// Most tokens in one `/mcp/keys` list, in keys. Over it: `413 too_large`, nothing sent. With
/// [`MAX_PACE_MS`] between tokens this bounds one request to about 17 minutes.
pub const MAX_KEYS: usize = 1024;

/// Longest time input waits for the command of a line submitted before it to start, in
/// milliseconds (ordered input, `broker::ordered`). A command has started when its job holds the
/// PTY's foreground or the shell reports it finished; a line that starts no job and no command
/// (an empty line, a shell without integration running a builtin) releases the input after this.
/// 1000 ms was too short on a loaded 2-core machine (load 5-7): a probe saw 3 of 44 Ctrl-Cs
/// race `yes` then.
pub const SUBMIT_START_WAIT_MS: u64 = 3_000;

/// How often a wait for a submitted command to start looks at the PTY's foreground process
/// group, in milliseconds (a job taking the foreground makes no output to wake on).
pub const SUBMIT_POLL_MS: u64 = 5;

/// The memory the sessions' terminals may hold together by default, in MiB
/// (`--memory-budget-mib`): about 300 terminals of 80x24, or 12 of the largest, 1000x1000
/// (see `session::budget::cost`).
pub const DEFAULT_MEMORY_BUDGET_MIB: u64 = 1024;

/// Longest time `run_command` and `wait_for_command` wait for an injected shell's first
/// prompt, in milliseconds: the core's rule, shared with the page.
pub use wterm_core::agent::FIRST_PROMPT_WAIT_MS;

/// Longest time `run_command` waits, after input written just before it (a Ctrl-U clearing the
/// line, typed text), for the line editor's answer to reach the screen and the command line to
/// be empty, in milliseconds. The check reads the screen, which shows the answer only once it
/// has all arrived; a program that echoes nothing, or a line someone typed on, costs this once.
pub const ECHO_WAIT_MS: u64 = 3_000;

/// How long after the last input `run_command` looks again, as output arrives, at a command
/// line that looks typed before refusing `line_not_empty`, in milliseconds. The kernel hands
/// bytes written to a PTY to the line discipline from a work queue, so the check that the shell
/// has read all input can pass before it has even seen the last byte (a Ctrl-U whose redraw is
/// still to come); under load that took over 200 ms (1 run in 8 refused a clear line). A line
/// someone really typed on is refused this much later.
pub const LINE_RECHECK_MS: u64 = 500;

/// Longest command line `/mcp/run` types, in bytes: the kernel's terminal line discipline keeps
/// at most 4095 bytes of a line (`N_TTY_BUF_SIZE`), and a newcomer's probe saw longer lines
/// typed at bash's prompt cut (a 5000-byte line lost its tail and ran as something else). Longer
/// is refused (`413 too_large`), not cut.
pub const MAX_COMMAND_LINE_BYTES: usize = 4000;

/// Longest wait of one `/mcp/run` for its command to finish, in milliseconds (a command still
/// running then is answered with its output so far; more is refused, not lowered): the agent
/// model's one limit, the page's too.
pub const MAX_RUN_WAIT_MS: u64 = wterm_core::agent::wait::MAX_WAIT_MS as u64;

/// How long `/mcp/run` waits when the call names no `timeout_ms`, in milliseconds.
pub const DEFAULT_RUN_WAIT_MS: u64 = 30_000;

/// Longest wait of one `/mcp/read` (and of `/mcp/input` and `/mcp/keys` waits), in
/// milliseconds (broker contract: waits ≤ 15 s); `timeout_ms` is clamped to `0..=MAX_WAIT_MS`.
/// The relay's own MCP endpoint allows [`MAX_MCP_WAIT_MS`] instead.
pub const MAX_WAIT_MS: u64 = 15_000;

/// Longest read wait (`read_screen`, and `send_input`/`send_keys` with a wait) on the relay's
/// own MCP endpoint, in milliseconds: the agent model's one limit (`run_command` and the
/// page's tools alike), with `notifications/progress` each second. Clamped like
/// [`MAX_WAIT_MS`].
pub const MAX_MCP_WAIT_MS: u64 = wterm_core::agent::wait::MAX_WAIT_MS as u64;

/// How long a `/mcp/read` with a wait but no `timeout_ms` waits, in milliseconds (the contract
/// is silent; this relay's choice).
pub const DEFAULT_WAIT_MS: u64 = 10_000;

/// Most history rows `/mcp/read` with `view:"scrollback"` prepends, in rows (broker contract:
/// `lines` 0..10000); a larger `lines` is refused with `400 bad_request`.
pub const MAX_READ_LINES: usize = 10_000;

/// History rows a `view:"scrollback"` read prepends when it gives no `lines`, in rows (the
/// contract is silent; one screenful of a tall terminal).
pub const DEFAULT_READ_LINES: usize = 100;

/// Longest `wait_for_regex` pattern, in bytes; a longer one is `400 bad_regex`.
pub const MAX_REGEX_BYTES: usize = 4096;

/// Most memory one compiled `wait_for_regex` may take, in bytes (the regex crate's size limit);
/// a pattern that needs more is `400 bad_regex`.
pub const MAX_REGEX_COMPILED_BYTES: usize = 1024 * 1024;

/// Largest pause between `/mcp/keys` tokens, and largest `pace_ms`, in milliseconds (broker
/// contract: `/mcp/pace` is clamped 0..1000; a `/mcp/keys` `delay_ms` over it is refused).
pub const MAX_PACE_MS: u64 = 1000;

/// Launches (`/mcp/launch`) in progress at once, in requests (broker contract: at most 8
/// pending launches). One more gets `429 too_many_pending_launches`.
pub const MAX_PENDING_LAUNCHES: usize = 8;

/// Most style runs one `/mcp/read` with `attrs:true` returns, in runs (broker contract: attr
/// runs ≤ 2000); further runs are left out and `attrs_truncated:true` says so.
pub const MAX_ATTR_RUNS: usize = 2000;

/// Largest share of rows that may differ for a `since` read to answer as a delta, in percent
/// (broker contract: at most 60 % of rows changed); above it the answer is a full read.
pub const DELTA_MAX_CHANGED_PERCENT: usize = 60;

/// Frames each window remembers for `since` deltas, in frames (the ones most recently
/// answered); an older `since` gets a full read.
pub const FRAME_CACHE_FRAMES: usize = 8;

/// Text those remembered frames may hold per window, in bytes; the oldest are forgotten first
/// (a large scrollback read may not be remembered at all).
pub const FRAME_CACHE_BYTES: usize = 1024 * 1024;

/// How long a row of `webterm_mcp_windows.json` is kept after it was last seen, in seconds
/// (broker contract, "Persistence": 7 days); older rows are dropped when the file is loaded or
/// written.
pub const WINDOW_ROW_MAX_AGE_SECS: u64 = 7 * 24 * 60 * 60;

/// Largest `webterm_mcp_windows.json` read at start, in bytes; a larger file is treated as
/// corrupt: the relay starts with no rows and logs one warning.
pub const MAX_WINDOWS_FILE_BYTES: u64 = 1024 * 1024;

/// Largest `webterm_mcp.json` read at start, in bytes; a larger file is ignored with a warning
/// (MCP stays off).
pub const MAX_SETTINGS_FILE_BYTES: u64 = 64 * 1024;

/// Largest profile configuration file (`--config`), in bytes; a larger one is refused at start.
pub const MAX_CONFIG_FILE_BYTES: u64 = 1024 * 1024;

/// Longest `title` a launch may give, in bytes; a longer one is `400 bad_request`.
pub const MAX_LAUNCH_TITLE_BYTES: usize = 256;

/// Longest scope name, in characters (broker contract: `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`).
pub const MAX_SCOPE_CHARS: usize = 64;

/// Random bytes in a launch handle (an opaque secret, URL-safe base64 without padding).
pub const HANDLE_BYTES: usize = 32;

/// Most characters of screen text one MCP `read_screen` answer carries. An MCP client caps tool
/// output (Claude Code: 25,000 tokens by default); rows beyond this are cut from the top and
/// the answer says how many were left out.
pub const MAX_TOOL_TEXT_CHARS: usize = 40_000;

/// Most style runs one MCP `read_screen` answer carries; the rest are dropped and counted.
pub const MAX_TOOL_ATTR_RUNS: usize = 300;

/// Launch handles an MCP server keeps in memory (for `set_window`); the oldest is forgotten
/// first.
pub const MAX_LAUNCH_HANDLES: usize = 64;

/// How long the MCP stdio server waits for one relay answer (a `read_screen` wait is at most
/// 15 s), in seconds.
pub const MCP_CLIENT_TIMEOUT_SECS: u64 = 30;

/// How long `DELETE /sessions/{id}` waits for the session to end after SIGHUP before it sends
/// SIGKILL to the session's process group.
pub const SESSION_HANGUP_WAIT: Duration = Duration::from_secs(2);

// ---- The listener: connections, request timeouts, file descriptors (http/listener.rs). ----

/// Most connections the relay holds open at once, in connections (lowered to the open-file
/// limit minus [`FD_RESERVE`] when that is smaller). At the cap a new connection makes room by
/// closing the oldest connection that has not yet delivered a request (still sending its head
/// or its body, or idle between requests) of the peer address holding the most connections;
/// when every connection is busy with a complete request or is a websocket, the new one is
/// closed at once. So a flood of slow or idle connections churns among itself, while a page's
/// requests (sent in full at once) and its websocket are not displaced.
pub const MAX_CONNECTIONS: usize = 1024;

/// Most connections from one peer address at once, in connections (an IPv6 peer counts per
/// /64 prefix, which one host or site usually holds whole). At the cap the peer's own oldest
/// connection that has not delivered a request is closed, else the new one; so one address
/// cannot take the whole [`MAX_CONNECTIONS`] and push out everyone else's. Behind a reverse
/// proxy every client has the proxy's address, and this is the proxy's share.
pub const MAX_CONNECTIONS_PER_PEER: usize = 256;

/// Open files kept out of the connection budget, in file descriptors: the PTYs of
/// [`MAX_SESSIONS`] sessions (3 each, measured: the master and its reader's and writer's
/// copies, so 192), the relay's own (12 with no session: the listener, the runtime, the log),
/// and up to [`MAX_CLOSING_CONNECTIONS`] displaced sockets not yet closed; the rest is margin.
/// The connection cap is at most the open-file limit minus this, so accepting never runs the
/// relay out of descriptors for its sessions.
pub const FD_RESERVE: usize = 384;

/// Connections displaced at a cap whose sockets are not closed yet, in connections (a
/// displaced connection's task closes its socket when it next runs). Past this the relay
/// stops accepting until they are closed, so under a flood accepting cannot outrun closing and
/// the open files stay within the cap plus this.
pub const MAX_CLOSING_CONNECTIONS: usize = 64;

/// Smallest connection cap whatever the open-file limit, in connections (a relay started with
/// a tiny limit still serves a page).
pub const MIN_CONNECTIONS: usize = 32;

/// Soft open-file limit (`RLIMIT_NOFILE`) the relay raises itself to at start, in file
/// descriptors, when the hard limit allows (else to the hard limit): room for
/// [`MAX_CONNECTIONS`] plus [`FD_RESERVE`]. Not higher: the shells the relay starts inherit it,
/// and some programs size tables or `select(2)` sets by it.
pub const NOFILE_TARGET: u64 = 4096;

/// How long a connection may take to send a request head, in seconds, counted from when the
/// relay starts waiting for it (after accepting, or after the previous response): hyper's
/// `header_read_timeout`. A head not complete by then closes the connection without an
/// answer. Long enough for any real client; a head trickled a byte at a time is cut here.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request body may take to arrive whole, in seconds, counted from the end of its
/// head. At the limit the request is answered `408 request_timeout` and the connection is
/// closed. The largest body any route reads ([`MAX_MCP_BODY_BYTES`], 2 MiB) takes about 17 s
/// at 1 Mbit/s. A websocket has no request body, so this never touches one.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(20);

/// How long a connection may stay open with no request in flight and nothing received, in
/// seconds (a kept-alive connection between requests, or one that never sends a byte); then
/// it is closed. A response still streaming (a long `/mcp/read` wait, an MCP event stream)
/// and an upgraded websocket are not idle, whatever the time between their bytes.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long an answer's bytes may wait for a peer that reads none of them, in seconds; then
/// the connection is closed. Well under [`READ_QUEUE_WAIT_MS`], so large reads queued behind a
/// peer that stopped reading get its room before they give up (a peer that stopped reading must not hold an answer, and what it
/// holds under the bound on large reads, for ever). Websockets have their own flow control and
/// are not judged by it.
pub const SEND_STALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Pause after an accept error other than a failed handshake, in milliseconds (out of file
/// descriptors, `EMFILE`/`ENFILE`, or out of memory). The listener stays ready while the
/// kernel holds a connection it cannot hand over, so retrying at once would spin; after
/// `EMFILE` the oldest connection that has not delivered a request is also closed, to free a
/// descriptor.
pub const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(50);

/// Connections the kernel may hold for the relay before it accepts them, in connections (the
/// `listen(2)` backlog; Linux caps it at `net.core.somaxconn`, 4096 by default). When it is
/// full the kernel drops new handshakes and the client retries after a second, so under a
/// flood of new connections a larger queue keeps the owner's page from waiting on that retry.
pub const LISTEN_BACKLOG: u32 = 4096;

/// The shortest time between two `{"type":"agent","kind":"read"}` frames a window sends its
/// attached pages, in milliseconds: an agent polling `read_screen` (or a wait loop) shows on
/// the page as one read notice a second, not one frame per call. A read within this time of the
/// window's last read notice is not told (it still happens). Writes are told every time: each
/// one changes what the program gets.
pub const AGENT_READ_NOTICE_MS: u64 = 1_000;

// ---- The audit log (broker/audit.rs) and progress of long MCP calls. ----

/// Size at which the audit log's current file is rotated, in bytes: the record that would take
/// it past this size starts a new file instead (its `prev` is the last hash of the old one, so
/// the chain runs on across files).
pub const AUDIT_FILE_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Rotated audit files kept besides the current one, in files (`audit.1.jsonl` the newest,
/// `audit.N.jsonl` the oldest); rotating past this deletes the oldest. At most
/// `(AUDIT_KEEP_FILES + 1) * AUDIT_FILE_MAX_BYTES` on disk (40 MiB).
pub const AUDIT_KEEP_FILES: usize = 4;

/// Longest string argument an audit record keeps, in bytes (UTF-8, cut at a character
/// boundary, then `…`); the record adds the full length as `<field>_bytes`.
pub const AUDIT_ARG_TEXT_BYTES: usize = 120;

/// Items of a list argument (`keys`) an audit record keeps, in items; the record adds the
/// full count as `<field>_count`.
pub const AUDIT_ARG_LIST_ITEMS: usize = 16;

/// Largest `args` summary of one audit record, as JSON text in bytes: fields past it are
/// dropped, last first, and counted in `_omitted`.
pub const AUDIT_ARGS_MAX_BYTES: usize = 1024;

/// Hex digits of the token fingerprint in an audit record (a keyed SHA-256 of the presented
/// bearer credential, cut to this length: 64 bits, enough to tell clients apart, never the
/// token).
pub const AUDIT_FINGERPRINT_HEX: usize = 16;

/// Most records one `GET /mcp/audit` / `audit_log` answer carries, in records (a larger `limit`
/// is lowered to this).
pub const MAX_AUDIT_LIMIT: usize = 500;

/// Records a `GET /mcp/audit` / `audit_log` answer carries when `limit` is absent.
pub const DEFAULT_AUDIT_LIMIT: usize = 100;

/// Longest audit line the log reads back (query, verify, resuming the chain at start), in
/// bytes; a longer line is reported as damaged. A record is at most about
/// [`AUDIT_ARGS_MAX_BYTES`] plus 600 bytes of fixed fields.
pub const MAX_AUDIT_LINE_BYTES: usize = 16 * 1024;

/// How often a waiting MCP tool call (`read_screen` with a wait, `send_input` / `send_keys`
/// with a wait, `run_command`) sends `notifications/progress` while it waits, when the client
/// gave a `progressToken`.
pub const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// Cells (columns × rows read, history included) that `/mcp/read` answers may hold at once,
/// between the start of the read and the answer's serialisation: about 16 bytes a cell pass
/// through the frame, the answer and its JSON, so about 64 MiB. A read past it queues.
pub const READ_CELLS_IN_FLIGHT: u32 = 4 * 1024 * 1024;

/// A read of at most this many cells is not counted against [`READ_CELLS_IN_FLIGHT`] and never
/// queues: any screen up to 250x250 without history, so a screen read always answers at once.
pub const READ_FREE_CELLS: u32 = 64 * 1024;

/// Longest time a large `/mcp/read` queues for room under [`READ_CELLS_IN_FLIGHT`] before it is
/// refused with `429 reads_busy`, in milliseconds.
pub const READ_QUEUE_WAIT_MS: u64 = 10_000;

/// Largest frame of a `/mcp/*` answer's body handed to hyper at once, in bytes: a large read
/// answer is sent in frames so that it keeps its place under [`READ_CELLS_IN_FLIGHT`] until it
/// is nearly all sent.
pub const ANSWER_FRAME_BYTES: usize = 64 * 1024;

/// Output a session holder keeps since the relay's last snapshot, in bytes (`wterm-relay
/// hold`, session/holder.rs): a new relay rebuilds the screen from that snapshot and this
/// output. Past it the oldest output is dropped and the state is marked partial (the screen is
/// right again once the program redraws). The relay ships a snapshot well before: see
/// [`HOLDER_SNAPSHOT_AFTER_BYTES`].
pub const HOLDER_RING_BYTES: usize = 8 * 1024 * 1024;

/// Output after which the relay ships a new snapshot to a session's holder, in bytes (at the
/// next batch that leaves the parser in its ground state): three quarters of
/// [`HOLDER_RING_BYTES`], so the ring still holds everything since the last snapshot when the
/// next one lands. A snapshot with full history costs about as much CPU as emulating 2 MiB of
/// `cat` (relay-bench, 2026-12-02: shipping one every 2 MiB doubled the relay's CPU per MiB in
/// a flood, 45 ms against 19-22 without), so a flood pays for one every 6 MiB.
pub const HOLDER_SNAPSHOT_AFTER_BYTES: u64 = (HOLDER_RING_BYTES as u64) * 3 / 4;

/// Time after which the relay ships a new snapshot to a session's holder if any output came
/// since the last one.
pub const HOLDER_SNAPSHOT_INTERVAL: Duration = Duration::from_secs(2);

/// What the relay reads from a holder's socket at once, in bytes: the output frames that
/// arrived meanwhile (one per 4 KiB PTY read in a flood) come in one `read(2)` and go on to the
/// session as one chunk. A larger frame (only a hello is) grows the buffer to fit.
pub const HOLDER_READ_BUFFER_BYTES: usize = 64 * 1024;

/// Largest frame on a holder's socket, in bytes (a snapshot with full history is a few MiB; a
/// first frame carries a snapshot and [`HOLDER_RING_BYTES`]). A larger length is refused as a
/// broken or foreign peer.
pub const HOLDER_MAX_FRAME_BYTES: usize = 64 * 1024 * 1024;

/// How long the relay waits for a holder it started to report that its program runs.
pub const HOLDER_START_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a holder whose program has exited waits for a relay to take the exit status
/// before it ends anyway (holders never outlive their programs by more than this). While the
/// program runs, a holder waits for a relay as long as it takes (as tmux's server does): a
/// relay that is down for a day finds its shells on its return. Tests shorten this with
/// `WTERM_HOLDER_ORPHAN_GRACE_MS` (`session::holder::ORPHAN_GRACE_ENV`).
pub const HOLDER_ORPHAN_GRACE: Duration = Duration::from_secs(60);

/// Largest size of a holder's log (`STATE_DIR/holders/N.log`), in bytes: past it the log is
/// renamed `N.log.old` (replacing an older one) and a new one begins, so a holder keeps at
/// most twice this on disk.
pub const HOLDER_LOG_BYTES: u64 = 256 * 1024;

/// How long `wterm-relay holders list|kill` waits for a holder's control socket to answer
/// (`N.ctl`) before it calls the holder stale.
pub const HOLDER_CTL_TIMEOUT: Duration = Duration::from_secs(3);

/// How long `wterm-relay holders kill` waits for a holder to end after its program got SIGHUP
/// and, [`KILL_GRACE`] later, SIGKILL with its process group.
pub const HOLDER_KILL_WAIT: Duration = Duration::from_secs(5);

/// How long the relay waits for one holder's first frame when it reconnects at start.
pub const HOLDER_HELLO_TIMEOUT: Duration = Duration::from_secs(5);

/// Pages (input clients, the `client` of `/ws`) whose input offset a session remembers, per
/// session and in each holder ([`crate::session::ledger::InputLedger`]); the least recently
/// used is forgotten past it. A forgotten page that reconnects is told the relay does not know
/// what of its input arrived (`{"type":"input","offset":null}`), never a wrong offset.
pub const INPUT_CLIENTS_MAX: usize = 64;

/// Largest offset a page's `{"type":"input","offset":S}` on `/ws` may give, in bytes of its
/// numbered input: 2^53 - 1, JavaScript's `Number.MAX_SAFE_INTEGER`, the largest count a page
/// can keep exactly. A larger one is refused (`bad_message`): near 2^64 it would wrap the
/// count, and the relay would skip all of that client's later input as written already.
pub const INPUT_OFFSET_MAX_BYTES: u64 = (1 << 53) - 1;

/// How long a holder waits for the previous relay's input (already in its socket) to reach
/// the PTY before it answers a new relay's hello with the input offsets, in milliseconds. Past
/// it the offsets may be low; the holder then skips what a page resends twice.
pub const HOLDER_INPUT_DRAIN_WAIT_MS: u64 = 500;

/// How often the relay reads a session's line discipline (the slave's termios, through the PTY
/// master) to tell a secret prompt (`wterm_core::agent::secret_prompt`): no event says when a
/// program turns echo off, and bash's `read -s -p` prints its prompt before it does. One
/// `tcgetattr(3)` per tick; a prompt is reported within this long of appearing.
pub const SECRET_PROMPT_POLL: Duration = Duration::from_millis(100);

//! Every limit of the relay, with its unit and what happens at it.

use std::time::Duration;

/// Largest read from a PTY master in one call, in bytes. A read returns whatever the kernel has
/// up to this size; the chunk is forwarded as is (one chunk, one websocket frame or less).
pub const PTY_READ_CHUNK_BYTES: usize = 64 * 1024;

/// Chunks the PTY reader thread may have in flight towards its session task, in chunks of at
/// most [`PTY_READ_CHUNK_BYTES`]. When the channel is full the reader thread blocks, stops
/// reading, and the program blocks in `write(2)` once the kernel's PTY buffer fills: output is
/// paced by the emulator, never buffered without bound.
pub const PTY_OUTPUT_QUEUE_CHUNKS: usize = 4;

/// Input messages queued towards a PTY's writer thread, in messages of at most
/// [`MAX_WS_MESSAGE_BYTES`]. When the queue is full the websocket reading that page waits
/// (backpressure to the page); query replies the relay makes itself are dropped with a warning
/// instead, so output never waits on input.
pub const PTY_INPUT_QUEUE_MESSAGES: usize = 16;

/// Output queued for one attached page and not yet written to its socket, in bytes. A page
/// that falls further behind loses its queued output and is sent a fresh snapshot of the
/// session's screen instead (a resync), so a slow page costs at most this much memory plus one
/// snapshot, and never slows the PTY or the other pages. It is also what a slow page may still
/// have to work through after Ctrl+C stops a flood: at the 2-4 MB/s a browser page parses and
/// draws, 256 KiB keeps that under the 200 ms the spec allows.
pub const CLIENT_QUEUE_BYTES: usize = 256 * 1024;

/// Kernel send buffer of each accepted connection, in bytes (`SO_SNDBUF`; Linux doubles it).
/// Fixing it turns off autotuning, which would otherwise let up to 4 MiB of output sit in the
/// kernel towards a slow page, where no resync can reach it and Ctrl+C would wait behind it.
/// It limits one connection to about this much per round trip, far above a terminal's needs on
/// loopback or a LAN.
pub const SOCKET_SEND_BUFFER_BYTES: usize = 64 * 1024;

/// Most output bytes coalesced into one binary websocket frame, in bytes. Queued chunks are
/// merged up to this size; a single larger chunk (a snapshot) is sent as one frame.
pub const WS_FRAME_BYTES: usize = 128 * 1024;

/// Binary bytes a page that acknowledges (`{"type":"ack","bytes":N}`) may have sent to it and
/// not yet acknowledged, in bytes. At the limit its output waits in its queue (and the queue's
/// bound, [`CLIENT_QUEUE_BYTES`], turns a long wait into a resync). TCP backpressure reaches the
/// relay only after the browser's own buffers fill; acknowledgements bound what a page still has
/// to work through exactly. Pages that never acknowledge get TCP backpressure only.
pub const ACK_WINDOW_BYTES: u64 = 256 * 1024;

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

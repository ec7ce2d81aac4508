//! [`serve`]: the relay's accept loop and its connections, with the limits that keep one
//! client from locking out the rest (all in [`crate::ground::limits`]):
//!
//! - a cap on open connections ([`MAX_CONNECTIONS`], lowered to fit the open-file limit) and on
//!   those of one peer address ([`MAX_CONNECTIONS_PER_PEER`]). At a cap the oldest connection
//!   that has not delivered a request (still sending its head or body, or idle) is closed to
//!   make room: the peer's own at the peer cap, else one of the peer holding the most; a
//!   connection whose request is complete, and an upgraded websocket, is never displaced (the
//!   new connection is closed instead);
//! - hyper's header read timeout ([`HEADER_READ_TIMEOUT`]), a whole-body deadline
//!   ([`BODY_READ_TIMEOUT`], `408 request_timeout`) and an idle timeout ([`IDLE_TIMEOUT`]) for
//!   connections with no request in flight. A websocket, once upgraded, is outside all three;
//! - accept errors never spin: after one the loop pauses ([`ACCEPT_ERROR_PAUSE`]), and when the
//!   relay is out of file descriptors it first closes the oldest connection that has not
//!   delivered a request.
//!
//! With TLS (`--tls-cert`), each connection first completes its handshake within
//! [`HEADER_READ_TIMEOUT`]; the limits above count it from the accept.
//!
//! Each accepted socket gets `TCP_NODELAY` and a fixed send buffer
//! ([`SOCKET_SEND_BUFFER_BYTES`]). Requests carry `ConnectInfo<SocketAddr>` as with axum's own
//! `serve`. On stop, the loop stops accepting, idle connections close and requests in flight
//! finish; [`serve`] returns when every connection task has ended (upgraded websockets are the
//! caller's to end).

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::future::Future as _;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue, Request, Response, StatusCode};
use axum::response::IntoResponse as _;
use axum::Router;
use hyper::body::{Body as _, Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt as _;

use crate::ground::limits::{
    ACCEPT_ERROR_PAUSE, BODY_READ_TIMEOUT, FD_RESERVE, HEADER_READ_TIMEOUT, IDLE_TIMEOUT,
    LISTEN_BACKLOG, MAX_CLOSING_CONNECTIONS, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_PEER,
    MIN_CONNECTIONS, NOFILE_TARGET, SEND_STALL_TIMEOUT, SOCKET_SEND_BUFFER_BYTES,
};
use crate::ground::Refusal;

/// Binds `addr` with a listen queue of [`LISTEN_BACKLOG`] (`SO_REUSEADDR` on, as tokio's own
/// `bind`).
pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Raises the soft open-file limit towards [`NOFILE_TARGET`] (never above the hard limit, never
/// lowering it) and returns the soft limit in force afterwards.
pub fn raise_nofile_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we pass and has no other effect.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return NOFILE_TARGET;
    }
    let want = NOFILE_TARGET.min(lim.rlim_max);
    if lim.rlim_cur < want {
        let raised = libc::rlimit {
            rlim_cur: want,
            rlim_max: lim.rlim_max,
        };
        // SAFETY: setrlimit reads the struct we pass.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            tracing::debug!(from = lim.rlim_cur, to = want, "raised the open-file limit");
            return want;
        }
        tracing::warn!(
            limit = lim.rlim_cur,
            "could not raise the open-file limit; fewer connections will be held"
        );
    }
    lim.rlim_cur
}

/// The connection cap for an open-file limit of `nofile`.
pub fn connection_cap(nofile: u64) -> usize {
    let room = usize::try_from(nofile)
        .unwrap_or(usize::MAX)
        .saturating_sub(FD_RESERVE);
    room.clamp(MIN_CONNECTIONS, MAX_CONNECTIONS.max(MIN_CONNECTIONS))
}

/// Where a connection is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Phase {
    /// No request in flight: waiting for a head (new, or kept alive). Displaceable.
    Waiting = 0,
    /// A request whose body is still arriving. Displaceable.
    Body = 1,
    /// A request complete and being answered. Kept.
    Busy = 2,
    /// A websocket. Kept, and outside every timeout here.
    Upgraded = 3,
    /// An answer handed whole to hyper whose bytes are still being written (a large read
    /// answer to a client reading it). Kept; closed as idle only when no byte has moved for
    /// [`IDLE_TIMEOUT`] (a peer that stopped reading).
    Draining = 4,
}

/// One connection's state, shared by its task, its socket and its requests.
#[derive(Debug)]
struct Conn {
    phase: AtomicU8,
    /// Milliseconds since `epoch` when the connection last received or sent bytes, or
    /// finished a response.
    active_ms: AtomicU64,
    epoch: Instant,
    /// Milliseconds since `epoch` when a write first found the socket full and no byte has
    /// been written since; [`NOT_STALLED`] when writes move.
    stalled_ms: AtomicU64,
    /// A body of this connection missed its deadline.
    body_timed_out: AtomicBool,
    /// Cancelled to close the connection (displaced at a cap).
    close: CancellationToken,
}

impl Conn {
    fn new() -> Conn {
        Conn {
            phase: AtomicU8::new(Phase::Waiting as u8),
            active_ms: AtomicU64::new(0),
            stalled_ms: AtomicU64::new(NOT_STALLED),
            epoch: Instant::now(),
            body_timed_out: AtomicBool::new(false),
            close: CancellationToken::new(),
        }
    }

    fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Acquire) {
            0 => Phase::Waiting,
            1 => Phase::Body,
            2 => Phase::Busy,
            4 => Phase::Draining,
            _ => Phase::Upgraded,
        }
    }

    fn set(&self, phase: Phase) {
        self.phase.store(phase as u8, Ordering::Release);
    }

    /// `from` → `to`, only when in `from`.
    fn advance(&self, from: Phase, to: Phase) {
        let _ =
            self.phase
                .compare_exchange(from as u8, to as u8, Ordering::AcqRel, Ordering::Acquire);
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX - 1)
    }

    fn touch(&self) {
        self.active_ms.store(self.now_ms(), Ordering::Relaxed);
    }

    /// Notes how a write went: bytes written end a stall; a full socket starts one.
    fn wrote<T>(&self, poll: &Poll<io::Result<T>>, n: impl FnOnce(&T) -> usize) {
        match poll {
            Poll::Ready(Ok(v)) if n(v) > 0 => {
                self.stalled_ms.store(NOT_STALLED, Ordering::Relaxed);
                self.touch();
            }
            Poll::Pending => {
                let now = self.now_ms();
                let _ = self.stalled_ms.compare_exchange(
                    NOT_STALLED,
                    now,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
            _ => {}
        }
    }

    /// Whether bytes have waited for the peer for [`SEND_STALL_TIMEOUT`] with none written.
    fn send_stalled(&self) -> bool {
        let since = self.stalled_ms.load(Ordering::Relaxed);
        since != NOT_STALLED
            && self.now_ms().saturating_sub(since) >= SEND_STALL_TIMEOUT.as_millis() as u64
    }

    /// When the connection turns idle if nothing happens before.
    fn idle_deadline(&self) -> tokio::time::Instant {
        let since = std::time::Duration::from_millis(self.active_ms.load(Ordering::Relaxed));
        tokio::time::Instant::from_std(self.epoch + since + IDLE_TIMEOUT)
    }

    fn displaceable(&self) -> bool {
        matches!(self.phase(), Phase::Waiting | Phase::Body)
    }
}

/// [`Conn::stalled_ms`] when no write is waiting.
const NOT_STALLED: u64 = u64::MAX;

/// A peer as counted against [`MAX_CONNECTIONS_PER_PEER`]: an IPv4 address, or an IPv6 /64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum PeerKey {
    V4(u32),
    V6(u64),
}

impl PeerKey {
    fn of(ip: IpAddr) -> PeerKey {
        match ip {
            IpAddr::V4(v4) => PeerKey::V4(u32::from(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => PeerKey::V4(u32::from(v4)),
                None => PeerKey::V6((u128::from(v6) >> 64) as u64),
            },
        }
    }
}

/// The open connections, oldest first.
#[derive(Debug)]
struct Table {
    inner: Mutex<TableInner>,
    /// Told when a displaced connection's socket is closed.
    closed: tokio::sync::Notify,
    cap: usize,
    per_peer: usize,
}

#[derive(Debug, Default)]
struct TableInner {
    next_id: u64,
    conns: BTreeMap<u64, (PeerKey, Arc<Conn>)>,
    peers: HashMap<PeerKey, usize>,
    displaced: u64,
    refused: u64,
    /// Displaced connections whose sockets are not closed yet (their tasks have not run).
    closing: usize,
}

/// A connection's place in the [`Table`]; given back when the socket is dropped.
#[derive(Debug)]
struct Slot {
    table: Arc<Table>,
    id: u64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut t = self.table.lock();
        if !t.remove(self.id) {
            // Displaced earlier: its socket is closed now.
            t.closing -= 1;
            drop(t);
            self.table.closed.notify_waiters();
        }
    }
}

impl TableInner {
    /// Takes connection `id` out of the table; whether it was there.
    fn remove(&mut self, id: u64) -> bool {
        let Some((peer, _)) = self.conns.remove(&id) else {
            return false;
        };
        if let Some(n) = self.peers.get_mut(&peer) {
            *n -= 1;
            if *n == 0 {
                self.peers.remove(&peer);
            }
        }
        true
    }

    /// Closes the oldest displaceable connection (of `peer`, when given); whether there was one.
    fn displace_oldest(&mut self, peer: Option<PeerKey>) -> bool {
        let victim = self
            .conns
            .iter()
            .find(|(_, (p, c))| peer.is_none_or(|peer| *p == peer) && c.displaceable())
            .map(|(id, _)| *id);
        let Some(id) = victim else {
            return false;
        };
        if let Some((_, conn)) = self.conns.get(&id) {
            conn.close.cancel();
        }
        self.remove(id);
        self.displaced += 1;
        self.closing += 1;
        true
    }
}

impl TableInner {
    /// At the overall cap: closes the oldest displaceable connection of the peer holding the
    /// most connections (so a page from an address with few is the last to go); whether there
    /// was one.
    fn displace_from_largest(&mut self) -> bool {
        let mut peers: Vec<(usize, PeerKey)> = self.peers.iter().map(|(p, n)| (*n, *p)).collect();
        peers.sort_unstable_by_key(|p| std::cmp::Reverse(p.0));
        peers
            .into_iter()
            .any(|(_, peer)| self.displace_oldest(Some(peer)))
    }
}

impl Table {
    fn new(cap: usize) -> Arc<Table> {
        Arc::new(Table {
            inner: Mutex::default(),
            closed: tokio::sync::Notify::new(),
            cap,
            per_peer: MAX_CONNECTIONS_PER_PEER.min(cap),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TableInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for a new connection from `peer`, making room at a cap; `None` when there is no
    /// room to make.
    fn admit(self: &Arc<Table>, peer: PeerKey) -> Option<(Slot, Arc<Conn>)> {
        let mut t = self.lock();
        if t.peers.get(&peer).copied().unwrap_or(0) >= self.per_peer
            && !t.displace_oldest(Some(peer))
        {
            t.refused += 1;
            return None;
        }
        if t.conns.len() >= self.cap && !t.displace_from_largest() {
            t.refused += 1;
            return None;
        }
        let id = t.next_id;
        t.next_id += 1;
        let conn = Arc::new(Conn::new());
        t.conns.insert(id, (peer, conn.clone()));
        *t.peers.entry(peer).or_default() += 1;
        Some((
            Slot {
                table: self.clone(),
                id,
            },
            conn,
        ))
    }
}

/// The socket of one connection: notes each receipt and each write that made progress, and
/// the end of an answer's writing (hyper flushes once its buffer is empty); holds the connection's place until
/// it is dropped (after an upgrade, when the websocket ends).
struct Io {
    tcp: TcpStream,
    conn: Arc<Conn>,
    _slot: Slot,
}

impl AsyncRead for Io {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.tcp).poll_read(cx, buf);
        if matches!(poll, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.conn.touch();
        }
        poll
    }
}

impl AsyncWrite for Io {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.tcp).poll_write(cx, buf);
        self.conn.wrote(&poll, |n| *n);
        poll
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs);
        self.conn.wrote(&poll, |n| *n);
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.tcp).poll_flush(cx);
        if matches!(poll, Poll::Ready(Ok(()))) {
            self.conn.advance(Phase::Draining, Phase::Waiting);
        }
        poll
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

/// A request body that must arrive whole by a deadline.
struct DeadlineBody {
    inner: Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
    conn: Arc<Conn>,
}

impl hyper::body::Body for DeadlineBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(None) => {
                self.conn.advance(Phase::Body, Phase::Busy);
                Poll::Ready(None)
            }
            Poll::Ready(Some(Ok(frame))) => {
                if self.inner.is_end_stream() {
                    self.conn.advance(Phase::Body, Phase::Busy);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e.into()))),
            Poll::Pending => {
                if self.deadline.as_mut().poll(cx).is_ready() {
                    self.conn.body_timed_out.store(true, Ordering::Release);
                    return Poll::Ready(Some(Err("request body read timeout".into())));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body that puts its connection back to waiting once it is written (or dropped).
struct ResponseBody {
    inner: Body,
    conn: Arc<Conn>,
}

impl Drop for ResponseBody {
    fn drop(&mut self) {
        self.conn.touch();
        // hyper drops the body once it holds its last bytes, before they are all written.
        self.conn.advance(Phase::Busy, Phase::Draining);
        self.conn.advance(Phase::Body, Phase::Waiting);
    }
}

impl hyper::body::Body for ResponseBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// One request through the router, with the connection's bookkeeping around it.
async fn handle(
    app: Router,
    conn: Arc<Conn>,
    peer: SocketAddr,
    req: Request<Incoming>,
) -> Result<Response<ResponseBody>, Infallible> {
    let (mut parts, body) = req.into_parts();
    parts.extensions.insert(ConnectInfo(peer));
    let body = if body.is_end_stream() {
        conn.set(Phase::Busy);
        Body::new(body)
    } else {
        conn.set(Phase::Body);
        Body::new(DeadlineBody {
            inner: body,
            deadline: Box::pin(tokio::time::sleep(BODY_READ_TIMEOUT)),
            conn: conn.clone(),
        })
    };
    let mut resp = match app.oneshot(Request::from_parts(parts, body)).await {
        Ok(resp) => resp,
        Err(never) => match never {},
    };
    if conn.body_timed_out.load(Ordering::Acquire) {
        tracing::debug!(%peer, "request body not in by its deadline");
        resp = Refusal::RequestTimeout.into_response();
        resp.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    if resp.status() == StatusCode::SWITCHING_PROTOCOLS {
        conn.set(Phase::Upgraded);
    }
    Ok(resp.map(|inner| ResponseBody { inner, conn }))
}

/// Whether an accept error is about one connection only (retry at once).
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
    )
}

/// Whether an accept error means the process or system is out of file descriptors.
fn is_out_of_files(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// Accepts on `listener` and serves `app` on each connection until `stop` turns true, then
/// lets idle connections close and requests in flight finish; returns when every connection
/// task has ended. `nofile` is the open-file limit in force (see [`raise_nofile_limit`]).
pub async fn serve(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    app: Router,
    nofile: u64,
    mut stop: watch::Receiver<bool>,
) -> io::Result<()> {
    let table = Table::new(connection_cap(nofile));
    tracing::debug!(
        cap = table.cap,
        per_peer = table.per_peer,
        nofile,
        "connection limits"
    );
    let tasks = TaskTracker::new();
    let mut last_warning: Option<Instant> = None;
    let mut warn = |what: &str, detail: String| {
        // At most one warning a second: a flood must not flood the log.
        if last_warning.is_none_or(|t| t.elapsed() >= std::time::Duration::from_secs(1)) {
            last_warning = Some(Instant::now());
            let t = table.lock();
            tracing::warn!(
                open = t.conns.len(),
                displaced = t.displaced,
                refused = t.refused,
                "{what}: {detail}"
            );
        }
    };
    loop {
        // Accepting must not outrun the closing of what it displaced: each displaced socket
        // holds its descriptor until its task runs.
        while table.lock().closing > MAX_CLOSING_CONNECTIONS {
            let _ = tokio::time::timeout(
                std::time::Duration::from_millis(10),
                table.closed.notified(),
            )
            .await;
        }
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.wait_for(|s| *s) => break,
        };
        let (tcp, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                if is_out_of_files(&e) {
                    table.lock().displace_oldest(None);
                }
                warn("accept failed", e.to_string());
                tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
                continue;
            }
        };
        let Some((slot, conn)) = table.admit(PeerKey::of(peer.ip())) else {
            drop(tcp);
            warn(
                "connection refused at the cap",
                format!("every open connection of {peer} or overall is in use"),
            );
            continue;
        };
        // Keystroke echoes are small writes: never hold them back (Nagle).
        let _ = tcp.set_nodelay(true);
        let _ = socket2::SockRef::from(&tcp).set_send_buffer_size(SOCKET_SEND_BUFFER_BYTES);
        conn.touch();
        let io = Io {
            tcp,
            conn: conn.clone(),
            _slot: slot,
        };
        let app = app.clone();
        let stop = stop.clone();
        match tls.clone() {
            None => tasks.spawn(connection(io, conn, peer, app, stop)),
            Some(tls) => tasks.spawn(async move {
                if let Some(io) = handshake(tls, io, &conn, peer).await {
                    connection(io, conn, peer, app, stop).await;
                }
            }),
        };
    }
    drop(listener);
    tasks.close();
    tasks.wait().await;
    Ok(())
}

/// The TLS handshake of a connection, within [`HEADER_READ_TIMEOUT`] (a client that stalls
/// in it is held off like one that stalls in its head); `None` when it failed, timed out, or
/// the connection was displaced meanwhile.
async fn handshake(
    tls: TlsAcceptor,
    io: Io,
    conn: &Conn,
    peer: SocketAddr,
) -> Option<tokio_rustls::server::TlsStream<Io>> {
    tokio::select! {
        done = tokio::time::timeout(HEADER_READ_TIMEOUT, tls.accept(io)) => match done {
            Ok(Ok(stream)) => Some(stream),
            Ok(Err(e)) => {
                tracing::debug!(%peer, error = %e, "TLS handshake failed");
                None
            }
            Err(_) => {
                tracing::debug!(%peer, "TLS handshake timed out");
                None
            }
        },
        () = conn.close.cancelled() => None,
    }
}

/// Serves one connection until it ends, is displaced, idles out, or the relay stops.
async fn connection<S>(
    io: S,
    conn: Arc<Conn>,
    peer: SocketAddr,
    app: Router,
    mut stop: watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = {
        let conn = conn.clone();
        hyper::service::service_fn(move |req| handle(app.clone(), conn.clone(), peer, req))
    };
    let served = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    tokio::pin!(served);
    let idle = tokio::time::sleep_until(conn.idle_deadline());
    tokio::pin!(idle);
    let mut stopping = false;
    loop {
        tokio::select! {
            // hyper first: after a stall of this task (a busy runtime), its pending writes move
            // (and touch the connection) before the idle deadline is judged.
            biased;
            result = served.as_mut() => {
                if let Err(e) = result {
                    tracing::trace!(%peer, error = %e, "connection ended");
                }
                return;
            }
            () = conn.close.cancelled() => {
                tracing::trace!(%peer, "connection displaced");
                return;
            }
            _ = stop.wait_for(|s| *s), if !stopping => {
                stopping = true;
                served.as_mut().graceful_shutdown();
            }
            () = idle.as_mut() => {
                let deadline = conn.idle_deadline();
                if matches!(conn.phase(), Phase::Waiting | Phase::Draining)
                    && deadline <= tokio::time::Instant::now()
                {
                    tracing::trace!(%peer, "idle connection closed");
                    return;
                }
                if conn.phase() != Phase::Upgraded && conn.send_stalled() {
                    tracing::debug!(%peer, "peer read none of an answer; connection closed");
                    return;
                }
                let next = deadline.max(tokio::time::Instant::now() + IDLE_TIMEOUT / 4);
                idle.as_mut().reset(next);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_follows_the_open_file_limit() {
        assert_eq!(connection_cap(1024), 1024 - FD_RESERVE);
        assert_eq!(connection_cap(100_000), MAX_CONNECTIONS);
        assert_eq!(connection_cap(10), MIN_CONNECTIONS);
    }

    #[test]
    fn peers_count_by_address_and_ipv6_prefix() {
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(PeerKey::of(v4), PeerKey::of(mapped));
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(PeerKey::of(a), PeerKey::of(b));
        assert_ne!(PeerKey::of(a), PeerKey::of(c));
    }

    #[test]
    fn a_full_table_displaces_the_oldest_waiting_connection_never_a_busy_one() {
        let table = Table::new(3);
        let peer = PeerKey::of("10.0.0.1".parse().unwrap());
        let (s1, c1) = table.admit(peer).unwrap();
        let (s2, c2) = table.admit(peer).unwrap();
        let (_s3, c3) = table.admit(peer).unwrap();
        c1.set(Phase::Upgraded);
        c2.set(Phase::Busy);
        // The third is waiting: it makes room.
        let (_s4, c4) = table.admit(peer).unwrap();
        assert!(c3.close.is_cancelled());
        assert!(!c1.close.is_cancelled() && !c2.close.is_cancelled());
        c4.set(Phase::Busy);
        // Nothing left to displace: the new one is refused.
        assert!(table.admit(peer).is_none());
        drop(s2);
        drop(s1);
        assert!(table.admit(peer).is_some());
    }

    #[test]
    fn at_the_overall_cap_the_largest_peer_makes_room() {
        let table = Table::new(4);
        let owner = PeerKey::of("10.0.0.2".parse().unwrap());
        let flood = PeerKey::of("10.0.0.1".parse().unwrap());
        let (_o, owner_conn) = table.admit(owner).unwrap();
        let held: Vec<_> = (0..3).map(|_| table.admit(flood).unwrap()).collect();
        // The owner's connection is the oldest, but the flood holds the most.
        let (_n, _) = table.admit(flood).unwrap();
        assert!(!owner_conn.close.is_cancelled());
        assert!(held[0].1.close.is_cancelled());
        let (_o2, _) = table.admit(owner).unwrap();
        assert!(!owner_conn.close.is_cancelled());
        assert!(held[1].1.close.is_cancelled());
    }

    #[test]
    fn one_peer_cannot_take_the_whole_table() {
        let table = Table::new(MAX_CONNECTIONS_PER_PEER + 10);
        let flood = PeerKey::of("10.0.0.1".parse().unwrap());
        let owner = PeerKey::of("10.0.0.2".parse().unwrap());
        let (_owner_slot, owner_conn) = table.admit(owner).unwrap();
        let slots: Vec<_> = (0..MAX_CONNECTIONS_PER_PEER * 2)
            .filter_map(|_| table.admit(flood))
            .collect();
        assert_eq!(slots.len(), MAX_CONNECTIONS_PER_PEER * 2);
        assert!(!owner_conn.close.is_cancelled());
        let t = table.lock();
        assert_eq!(t.peers[&flood], MAX_CONNECTIONS_PER_PEER);
        assert_eq!(t.displaced as usize, MAX_CONNECTIONS_PER_PEER);
    }
}

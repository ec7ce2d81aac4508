//! [`ClientQueue`]: the bounded queue between a session and one attached page.
//!
//! The session pushes frames without ever waiting; the page's socket task takes them with
//! [`ClientQueue::next`]. Queued output is bounded by [`CLIENT_QUEUE_BYTES`]: a page that falls
//! further behind loses what was queued and is marked lagged; its socket task then asks the
//! session for a resync (a fresh snapshot, which rebuilds the true screen), so a slow page never
//! makes the relay buffer without bound nor slows the PTY or the other pages.
//!
//! A page falls behind when its socket is slow: TCP backpressure blocks its socket task, and
//! binary frames wait in the queue. (An application-level acknowledgement window was measured
//! against this and dropped: in a 50 MB flood into headless Chromium it halved throughput,
//! 13.9 → 8.0 MB/s median, for no gain in memory or Ctrl-C latency; `bench/page-flood`.)

use std::collections::VecDeque;
use std::sync::Mutex;

use bytes::{Bytes, BytesMut};
use tokio::sync::Notify;

use crate::ground::limits::{CLIENT_QUEUE_BYTES, WS_FRAME_BYTES};

/// One frame towards a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// PTY output: a binary websocket frame, merged with neighbouring output.
    Output(Bytes),
    /// A snapshot of the session's terminal: a binary websocket frame of its own, never merged,
    /// so the page can tell where the rebuilt screen ends.
    Snapshot(Bytes),
    /// A JSON control message: a text websocket frame.
    Text(String),
}

/// What the socket task does next.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// Send this frame.
    Send(Frame),
    /// The page fell behind and its queue was dropped: rebuild it with the session's resync.
    Resync,
    /// Send a close frame with this code and reason, then end.
    Close(u16, &'static str),
}

#[derive(Debug, Default)]
struct State {
    frames: VecDeque<Frame>,
    /// Bytes of [`Frame::Output`] pushed since the last reset; the snapshot a reset starts with
    /// is not counted, so a large screen cannot lag a page by itself.
    pending_bytes: usize,
    lagged: bool,
    /// Set once: sent after every queued frame.
    close: Option<(u16, &'static str)>,
}

/// The queue towards one attached page. Methods never block on the page.
#[derive(Debug, Default)]
pub struct ClientQueue {
    state: Mutex<State>,
    wake: Notify,
    /// Woken whenever queued output shrinks (sent, dropped or replaced), for flow control.
    drained: Notify,
}

impl ClientQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut st)
    }

    /// Queues PTY output. Past [`CLIENT_QUEUE_BYTES`] of unsent output the queue is dropped
    /// and the page marked lagged; while lagged, output is not queued (the resync covers it).
    pub fn push_output(&self, chunk: Bytes) {
        let wake = self.with(|st| {
            if st.lagged || st.close.is_some() {
                return false;
            }
            if st.pending_bytes + chunk.len() > CLIENT_QUEUE_BYTES {
                st.frames.clear();
                st.pending_bytes = 0;
                st.lagged = true;
                self.drained.notify_waiters();
                return true;
            }
            st.pending_bytes += chunk.len();
            st.frames.push_back(Frame::Output(chunk));
            true
        });
        if wake {
            self.wake.notify_one();
        }
    }

    /// Queues a control message. While lagged it is dropped: the resync sends the current size
    /// and title.
    pub fn push_text(&self, text: String) {
        let wake = self.with(|st| {
            if st.lagged || st.close.is_some() {
                return false;
            }
            st.frames.push_back(Frame::Text(text));
            true
        });
        if wake {
            self.wake.notify_one();
        }
    }

    /// Replaces everything queued with `frames` (an attach or resync: size, snapshot, title) and
    /// clears the lagged mark. Output pushed after this call follows these frames.
    pub fn reset(&self, frames: impl IntoIterator<Item = Frame>) {
        self.with(|st| {
            st.frames.clear();
            st.frames.extend(frames);
            st.pending_bytes = 0;
            st.lagged = false;
        });
        self.wake.notify_one();
        self.drained.notify_waiters();
    }

    /// Output queued and not yet taken by the socket task, in bytes; 0 while the page is lagged
    /// (its output is not queued then) or closing.
    pub fn pending_bytes(&self) -> usize {
        self.with(|st| {
            if st.lagged || st.close.is_some() {
                0
            } else {
                st.pending_bytes
            }
        })
    }

    /// Waits until at most `limit` bytes of output are queued (see [`Self::pending_bytes`]).
    /// The session's flow control bounds this wait with a timeout.
    pub async fn wait_below(&self, limit: usize) {
        loop {
            let drained = self.drained.notified();
            tokio::pin!(drained);
            // Registered before the check, so a drain between the two is not missed.
            drained.as_mut().enable();
            if self.pending_bytes() <= limit {
                return;
            }
            drained.await;
        }
    }

    /// Ends the stream: after the frames already queued (and a resync, if one is due), the page
    /// gets a close frame with `code`. Only the first call counts.
    pub fn close(&self, code: u16, reason: &'static str) {
        self.with(|st| {
            st.close.get_or_insert((code, reason));
        });
        self.wake.notify_one();
        self.drained.notify_waiters();
    }

    /// Drops what is queued and marks the page lagged, so its socket task resyncs it: for a
    /// page that did not drain within the session's flow-control wait.
    pub fn force_lag(&self) {
        self.with(|st| {
            st.frames.retain(|f| matches!(f, Frame::Text(_)));
            st.pending_bytes = 0;
            st.lagged = true;
        });
        self.wake.notify_one();
        self.drained.notify_waiters();
    }

    /// Waits for the next thing to do. Consecutive output chunks are merged into one frame of
    /// at most [`WS_FRAME_BYTES`] (a larger single chunk stays whole).
    pub async fn next(&self) -> Next {
        loop {
            if let Some(next) = self.with(take_next) {
                if matches!(next, Next::Send(Frame::Output(_)) | Next::Resync) {
                    self.drained.notify_waiters();
                }
                return next;
            }
            // A notify_one that raced ahead of this wait left a permit, so nothing is missed.
            self.wake.notified().await;
        }
    }
}

fn take_next(st: &mut State) -> Option<Next> {
    match st.frames.front() {
        Some(Frame::Text(_)) => st.frames.pop_front().map(Next::Send),
        Some(Frame::Snapshot(_)) => st.frames.pop_front().map(Next::Send),
        Some(Frame::Output(_)) => {
            let Some(Frame::Output(first)) = st.frames.pop_front() else {
                return None;
            };
            st.pending_bytes = st.pending_bytes.saturating_sub(first.len());
            let out = if mergeable(st, first.len()) {
                let mut out = BytesMut::from(&first[..]);
                while mergeable(st, out.len()) {
                    if let Some(Frame::Output(b)) = st.frames.pop_front() {
                        st.pending_bytes = st.pending_bytes.saturating_sub(b.len());
                        out.extend_from_slice(&b);
                    }
                }
                out.freeze()
            } else {
                first
            };
            Some(Next::Send(Frame::Output(out)))
        }
        // The snapshot is taken only when it can be sent, not at every overflow.
        None if st.lagged => Some(Next::Resync),
        None => st.close.map(|(code, reason)| Next::Close(code, reason)),
    }
}

/// Whether the front frame is output that fits in a frame already `len` bytes long.
fn mergeable(st: &State, len: usize) -> bool {
    matches!(st.frames.front(), Some(Frame::Output(b)) if len + b.len() <= WS_FRAME_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now(q: &ClientQueue) -> Option<Next> {
        q.with(take_next)
    }

    #[test]
    fn output_is_merged_in_order() {
        let q = ClientQueue::new();
        q.push_output(Bytes::from_static(b"ab"));
        q.push_output(Bytes::from_static(b"cd"));
        q.push_text("t".into());
        q.push_output(Bytes::from_static(b"ef"));
        assert_eq!(
            now(&q),
            Some(Next::Send(Frame::Output(Bytes::from_static(b"abcd"))))
        );
        assert_eq!(now(&q), Some(Next::Send(Frame::Text("t".into()))));
        assert_eq!(
            now(&q),
            Some(Next::Send(Frame::Output(Bytes::from_static(b"ef"))))
        );
        assert_eq!(now(&q), None);
    }

    #[test]
    fn a_page_that_falls_behind_is_resynced_not_buffered() {
        let q = ClientQueue::new();
        let chunk = Bytes::from(vec![b'y'; 64 * 1024]);
        for _ in 0..(CLIENT_QUEUE_BYTES / chunk.len()) {
            q.push_output(chunk.clone());
        }
        assert!(!q.with(|st| st.lagged));
        q.push_output(chunk.clone());
        q.push_text("dropped".into());
        assert!(q.with(|st| st.lagged && st.frames.is_empty() && st.pending_bytes == 0));
        assert_eq!(now(&q), Some(Next::Resync));
        q.reset([
            Frame::Text("resized".into()),
            Frame::Snapshot(Bytes::from_static(b"snap")),
        ]);
        q.push_output(Bytes::from_static(b"li"));
        q.push_output(Bytes::from_static(b"ve"));
        q.close(1000, "");
        assert_eq!(now(&q), Some(Next::Send(Frame::Text("resized".into()))));
        assert_eq!(
            now(&q),
            Some(Next::Send(Frame::Snapshot(Bytes::from_static(b"snap"))))
        );
        assert_eq!(
            now(&q),
            Some(Next::Send(Frame::Output(Bytes::from_static(b"live"))))
        );
        assert_eq!(now(&q), Some(Next::Close(1000, "")));
    }

    #[test]
    fn close_comes_after_queued_frames() {
        let q = ClientQueue::new();
        q.push_text("exit".into());
        q.close(1000, "exited");
        q.close(1011, "ignored");
        assert_eq!(now(&q), Some(Next::Send(Frame::Text("exit".into()))));
        assert_eq!(now(&q), Some(Next::Close(1000, "exited")));
    }

    #[tokio::test]
    async fn wait_below_returns_once_the_socket_task_drains_the_queue() {
        let q = std::sync::Arc::new(ClientQueue::new());
        q.push_output(Bytes::from(vec![b'x'; 100_000]));
        q.push_output(Bytes::from(vec![b'y'; 100_000]));
        assert_eq!(q.pending_bytes(), 200_000);
        let waiter = tokio::spawn({
            let q = q.clone();
            async move { q.wait_below(100_000).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        // The first chunk goes out alone (the two together exceed WS_FRAME_BYTES).
        assert!(matches!(q.next().await, Next::Send(Frame::Output(_))));
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(q.pending_bytes(), 100_000);
    }

    #[test]
    fn force_lag_drops_output_keeps_text_and_asks_for_a_resync() {
        let q = ClientQueue::new();
        q.push_output(Bytes::from_static(b"out"));
        q.push_text("{}".into());
        q.force_lag();
        assert_eq!(q.pending_bytes(), 0);
        assert_eq!(now(&q), Some(Next::Send(Frame::Text("{}".into()))));
        assert_eq!(now(&q), Some(Next::Resync));
    }
}

//! Which of a page's input bytes reached the program, so a page that reconnects resends only
//! what was lost (broker-api.md, "Websocket /ws", `input`).
//!
//! A page numbers its input: a client id (16 hex digits, random per page, the `client` of
//! `/ws`) and a byte offset, counted from the first byte that page ever sent to the session.
//! Each chunk goes to the program's writer with where it starts ([`InputFrom`]); the writer
//! skips what the ledger says was written already and records the new end. The count lives
//! where bytes become safe: in the relay's PTY writer thread, and for a held session in the
//! holder (the relay keeps a copy, a lower bound, of what it handed the holder). A resend
//! that overlaps what arrived is cut, so no byte runs twice; a key that never reached the
//! writer is resent, so none is lost silently.
//!
//! One connection at a time numbers a client's input ([`ClientClaims`]): two live connections
//! with the same client would each skip the other's bytes as written already, so a newer one
//! replaces the older, which is closed with [`CLIENT_REPLACED_CLOSE`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::ground::limits::INPUT_CLIENTS_MAX;
use crate::session::fanout::ClientQueue;

/// The websocket close code of a page connection that another connection with the same
/// input client id (`/ws`'s `client`) replaced: 4000 + 409 (conflict). The newer connection
/// numbers that client's input from then on ([`ClientClaims`]); a page that gets it does not
/// reconnect (its client id is in use elsewhere).
pub const CLIENT_REPLACED_CLOSE: u16 = 4409;

/// The close reason with [`CLIENT_REPLACED_CLOSE`].
pub const CLIENT_REPLACED_REASON: &str = "client_replaced";

/// A page's input client id (the 16 hex digits of its `client`).
pub type ClientId = u64;

/// Where a chunk of input starts in its page's numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputFrom {
    /// The page's client id.
    pub client: ClientId,
    /// Offset of the chunk's first byte, in bytes since that page's first input.
    pub start: u64,
}

/// The `client` query value: exactly 16 hex digits (either case), else `None`.
pub fn parse_client(text: &str) -> Option<ClientId> {
    if text.len() != 16 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(text, 16).ok()
}

/// Per client, the offset up to which its input was written; at most [`INPUT_CLIENTS_MAX`]
/// clients, the least recently used forgotten first.
#[derive(Debug, Default, Clone)]
pub struct InputLedger {
    /// Client → (written up to, last use).
    done: HashMap<ClientId, (u64, u64)>,
    tick: u64,
}

impl InputLedger {
    /// A ledger holding `pairs` (client, written up to), as [`InputLedger::pairs`] gave them.
    pub fn from_pairs(pairs: &[(ClientId, u64)]) -> Self {
        let mut l = Self::default();
        for &(client, end) in pairs {
            l.advance(client, end);
        }
        l
    }

    /// Every client and its offset, oldest use first (what a holder's hello carries).
    pub fn pairs(&self) -> Vec<(ClientId, u64)> {
        let mut v: Vec<_> = self
            .done
            .iter()
            .map(|(&c, &(end, t))| (t, c, end))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, c, end)| (c, end)).collect()
    }

    /// How far `client`'s input was written, if it is known.
    pub fn get(&self, client: ClientId) -> Option<u64> {
        self.done.get(&client).map(|&(end, _)| end)
    }

    /// Remembers `client` (at offset 0 if it is new), so a page that attached and reconnects
    /// before sending anything is told 0 rather than "unknown".
    pub fn register(&mut self, client: ClientId) {
        self.advance(client, 0);
    }

    /// How many leading bytes of a chunk of `len` bytes at `from` were written already.
    pub fn written_already(&self, from: InputFrom, len: usize) -> usize {
        let end = self.get(from.client).unwrap_or(0);
        usize::try_from(end.saturating_sub(from.start)).map_or(len, |n| n.min(len))
    }

    /// Records that the chunk of `len` bytes at `from` was written (or deliberately dropped).
    pub fn record(&mut self, from: InputFrom, len: usize) {
        self.advance(from.client, from.start.saturating_add(len as u64));
    }

    fn advance(&mut self, client: ClientId, end: u64) {
        self.tick += 1;
        let tick = self.tick;
        let entry = self.done.entry(client).or_insert((0, 0));
        entry.0 = entry.0.max(end);
        entry.1 = tick;
        if self.done.len() > INPUT_CLIENTS_MAX {
            if let Some(&oldest) = self
                .done
                .iter()
                .min_by_key(|(_, &(_, t))| t)
                .map(|(c, _)| c)
            {
                self.done.remove(&oldest);
            }
        }
    }
}

/// A page connection's hold on its client id ([`ClientClaims::claim`]): while it is not
/// [`replaced`](ClientClaim::replaced), the connection's binary frames are that client's input.
#[derive(Debug)]
pub struct ClientClaim {
    client: ClientId,
    replaced: Arc<AtomicBool>,
}

impl ClientClaim {
    /// The client id claimed.
    pub fn client(&self) -> ClientId {
        self.client
    }

    /// Whether a newer connection claimed the same client since: this connection's input is no
    /// longer taken, and its queue is closing.
    pub fn replaced(&self) -> bool {
        self.replaced.load(Ordering::Acquire)
    }
}

/// The connection holding a client id: its claim's flag and its queue.
#[derive(Debug)]
struct Claimant {
    replaced: Arc<AtomicBool>,
    queue: Arc<ClientQueue>,
}

/// A session's live claims, one connection per client id; bounded by the connections
/// attached, each releasing its own.
#[derive(Debug, Default)]
pub struct ClientClaims {
    live: parking_lot::Mutex<HashMap<ClientId, Claimant>>,
}

impl ClientClaims {
    /// Makes the connection of `queue` the one whose binary frames are `client`'s input. A
    /// connection that held `client` is replaced: its claim says so from now on, and its queue
    /// closes with [`CLIENT_REPLACED_CLOSE`] after what is queued for it. Input it handed on
    /// before still counts, as all input that reached the writer does.
    pub fn claim(&self, client: ClientId, queue: &Arc<ClientQueue>) -> ClientClaim {
        let replaced = Arc::new(AtomicBool::new(false));
        let newer = Claimant {
            replaced: replaced.clone(),
            queue: queue.clone(),
        };
        if let Some(older) = self.live.lock().insert(client, newer) {
            older.replaced.store(true, Ordering::Release);
            older
                .queue
                .close(CLIENT_REPLACED_CLOSE, CLIENT_REPLACED_REASON);
        }
        ClientClaim { client, replaced }
    }

    /// Lets go of `claim` as its connection ends; a newer claim of the same client stays.
    pub fn release(&self, claim: &ClientClaim) {
        let mut live = self.live.lock();
        if live
            .get(&claim.client)
            .is_some_and(|c| Arc::ptr_eq(&c.replaced, &claim.replaced))
        {
            live.remove(&claim.client);
        }
    }

    /// How many clients are claimed now.
    pub fn len(&self) -> usize {
        self.live.lock().len()
    }

    /// Whether no client is claimed now.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::fanout::{Frame, Next};

    const A: InputFrom = InputFrom {
        client: 0xa,
        start: 0,
    };

    #[test]
    fn client_ids_are_sixteen_hex_digits() {
        assert_eq!(parse_client("00000000000000aB"), Some(0xab));
        assert_eq!(parse_client("ffffffffffffffff"), Some(u64::MAX));
        for bad in [
            "",
            "abc",
            "00000000000000000",
            "000000000000000g",
            "+000000000000001",
        ] {
            assert_eq!(parse_client(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_resend_that_overlaps_what_was_written_is_cut() {
        let mut l = InputLedger::default();
        assert_eq!(l.written_already(A, 5), 0);
        l.record(A, 5);
        assert_eq!(l.get(0xa), Some(5));
        // The same five again: all written; three of them and two new: three written.
        assert_eq!(l.written_already(A, 5), 5);
        assert_eq!(l.written_already(InputFrom { start: 2, ..A }, 5), 3);
        l.record(InputFrom { start: 2, ..A }, 5);
        assert_eq!(l.get(0xa), Some(7));
        // A late duplicate of an older chunk never moves the offset back.
        l.record(A, 1);
        assert_eq!(l.get(0xa), Some(7));
        // A gap (the page no longer had the bytes in between) is written as it comes.
        assert_eq!(l.written_already(InputFrom { start: 10, ..A }, 4), 0);
    }

    #[test]
    fn registered_clients_are_known_at_zero_and_the_least_recently_used_is_forgotten() {
        let mut l = InputLedger::default();
        l.register(1);
        assert_eq!(l.get(1), Some(0));
        for c in 2..=INPUT_CLIENTS_MAX as u64 {
            l.register(c);
        }
        l.record(
            InputFrom {
                client: 1,
                start: 0,
            },
            3,
        ); // 1 used again: 2 is now the oldest
        l.register(1000);
        assert_eq!(l.get(2), None);
        assert_eq!(l.get(1), Some(3));
        assert_eq!(l.pairs().len(), INPUT_CLIENTS_MAX);
        assert_eq!(l.pairs().last(), Some(&(1000, 0)));
        let again = InputLedger::from_pairs(&l.pairs());
        assert_eq!(again.get(1), Some(3));
        assert_eq!(again.pairs(), l.pairs());
    }

    #[tokio::test]
    async fn a_newer_claim_of_a_client_closes_the_older_connection() {
        let (older, newer, other) = (
            Arc::new(ClientQueue::new()),
            Arc::new(ClientQueue::new()),
            Arc::new(ClientQueue::new()),
        );
        let claims = ClientClaims::default();
        let first = claims.claim(0xa, &older);
        let elsewhere = claims.claim(0xb, &other);
        older.push_text("queued".into());
        assert!(!first.replaced());
        let second = claims.claim(0xa, &newer);
        assert!(first.replaced() && !second.replaced() && !elsewhere.replaced());
        // The older page gets what was queued for it, then the close.
        assert_eq!(older.next().await, Next::Send(Frame::Text("queued".into())));
        assert_eq!(
            older.next().await,
            Next::Close(CLIENT_REPLACED_CLOSE, CLIENT_REPLACED_REASON)
        );
        // The older connection ending does not let go of the newer one's claim.
        claims.release(&first);
        assert_eq!(claims.len(), 2);
        claims.release(&second);
        claims.release(&elsewhere);
        assert!(claims.is_empty());
        // No close for the others.
        newer.push_text("live".into());
        assert_eq!(newer.next().await, Next::Send(Frame::Text("live".into())));
    }
}

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

use std::collections::HashMap;

use crate::ground::limits::INPUT_CLIENTS_MAX;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}

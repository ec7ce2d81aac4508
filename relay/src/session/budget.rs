//! [`MemoryBudget`]: the memory the sessions' terminals may hold together (`--memory-budget-mib`).
//! Each session reserves [`cost`] of its size when it starts and on each resize that
//! grows it, and gives it back when it shrinks or ends; a start or a resize that would pass the
//! budget is refused, and nothing of it is applied.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use wterm_core::{Size, Terminal};

use crate::ground::limits::SCROLLBACK_ROWS;

/// The bytes a session of `size` counts against the budget: its terminal full of plain text
/// ([`Terminal::memory_bound`] with [`SCROLLBACK_ROWS`]). 80x24: about 3.3 MB; 1000x1000: 72 MB.
pub fn cost(size: Size) -> u64 {
    Terminal::memory_bound(size, SCROLLBACK_ROWS)
}

/// A refused reservation: what it needed and what was left, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget {
    /// Bytes the start or resize needed.
    pub need: u64,
    /// Bytes still free.
    pub free: u64,
    /// The whole budget.
    pub limit: u64,
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        write!(
            f,
            "the relay's memory budget is spent: this needs {:.1} MiB, {:.1} MiB of {:.0} MiB \
             are free (a terminal counts its screens and {SCROLLBACK_ROWS} rows of history); \
             close a terminal, ask for fewer columns or rows, or start the relay with a larger \
             --memory-budget-mib",
            mib(self.need),
            mib(self.free),
            mib(self.limit)
        )
    }
}

impl std::error::Error for OverBudget {}

/// The budget and what the live sessions reserved of it, in bytes.
#[derive(Debug)]
pub struct MemoryBudget {
    limit: u64,
    reserved: AtomicU64,
}

impl MemoryBudget {
    /// A budget of `limit` bytes, none reserved.
    pub fn new(limit: u64) -> MemoryBudget {
        MemoryBudget {
            limit,
            reserved: AtomicU64::new(0),
        }
    }

    /// The budget, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes reserved by the live sessions.
    pub fn reserved(&self) -> u64 {
        self.reserved.load(Ordering::Acquire)
    }

    /// Reserves `bytes`, all or nothing.
    pub fn reserve(&self, bytes: u64) -> Result<(), OverBudget> {
        self.reserved
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |r| {
                r.checked_add(bytes).filter(|&n| n <= self.limit)
            })
            .map(|_| ())
            .map_err(|r| OverBudget {
                need: bytes,
                free: self.limit.saturating_sub(r),
                limit: self.limit,
            })
    }

    /// Reserves `bytes` even past the limit: for a session whose program already runs (one a
    /// restarted relay takes over from its holder), which must be served whatever the budget.
    pub fn force_reserve(&self, bytes: u64) {
        self.reserved.fetch_add(bytes, Ordering::AcqRel);
    }

    /// Gives back `bytes` reserved before.
    pub fn release(&self, bytes: u64) {
        let _ = self
            .reserved
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |r| {
                Some(r.saturating_sub(bytes))
            });
    }

    /// Moves a reservation of `from` bytes to `to`: a growth is reserved (all or nothing), a
    /// shrink given back.
    pub fn change(&self, from: u64, to: u64) -> Result<(), OverBudget> {
        if to > from {
            self.reserve(to - from)
        } else {
            self.release(from - to);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_or_nothing() {
        let b = MemoryBudget::new(100);
        b.reserve(60).unwrap();
        let e = b.reserve(41).unwrap_err();
        assert_eq!((e.need, e.free, e.limit), (41, 40, 100));
        assert_eq!(b.reserved(), 60);
        b.change(60, 100).unwrap();
        assert!(b.change(100, 101).is_err());
        b.change(100, 10).unwrap();
        b.release(10);
        assert_eq!(b.reserved(), 0);
        assert!(e.to_string().contains("--memory-budget-mib"), "{e}");
    }

    #[test]
    fn a_default_terminal_costs_about_3_mb_a_largest_80() {
        let small = cost(Size::new(24, 80));
        assert!((3_000_000..4_000_000).contains(&small), "{small}");
        let large = cost(Size::new(1000, 1000));
        assert!((70_000_000..90_000_000).contains(&large), "{large}");
    }
}

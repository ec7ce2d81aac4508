//! The bound on large reads: `/mcp/read` answers of many cells (a 10000-row
//! scrollback view, a 1000x1000 screen) share [`READ_CELLS_IN_FLIGHT`], so twenty at once do
//! not hold twenty answers. A read takes its cells before it starts (its wait included: a
//! waiting read holds its frame) and gives them back when its answer has been serialised.
//! Past the bound it queues in arrival order for at most [`READ_QUEUE_WAIT_MS`], then is
//! refused with `429 reads_busy`, nothing read. Reads of at most [`READ_FREE_CELLS`] never
//! queue.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::ground::limits::{READ_CELLS_IN_FLIGHT, READ_FREE_CELLS, READ_QUEUE_WAIT_MS};
use crate::ground::Refusal;

/// The cells in flight (a fair semaphore: waiting reads start in arrival order).
#[derive(Debug)]
pub struct ReadBudget {
    cells: Arc<Semaphore>,
}

/// Cells taken by one read; given back when dropped (with the answer that carries it).
#[derive(Debug)]
pub struct ReadPermit {
    _cells: Option<OwnedSemaphorePermit>,
}

impl Default for ReadBudget {
    fn default() -> ReadBudget {
        ReadBudget {
            cells: Arc::new(Semaphore::new(READ_CELLS_IN_FLIGHT as usize)),
        }
    }
}

impl ReadBudget {
    /// Takes `cells` (columns × rows the read covers): at once when they are few or there is
    /// room, else after queueing; a read larger than the whole bound waits for all of it.
    /// `429 reads_busy`, with the figures, when no room came within [`READ_QUEUE_WAIT_MS`].
    pub async fn take(&self, cells: u64) -> Result<ReadPermit, Refusal> {
        self.take_within(cells, Duration::from_millis(READ_QUEUE_WAIT_MS))
            .await
    }

    /// [`ReadBudget::take`], queueing at most `wait`.
    async fn take_within(&self, cells: u64, wait: Duration) -> Result<ReadPermit, Refusal> {
        if cells <= u64::from(READ_FREE_CELLS) {
            return Ok(ReadPermit { _cells: None });
        }
        let n = u32::try_from(cells)
            .unwrap_or(u32::MAX)
            .min(READ_CELLS_IN_FLIGHT);
        match tokio::time::timeout(wait, self.cells.clone().acquire_many_owned(n)).await {
            Ok(Ok(permit)) => Ok(ReadPermit {
                _cells: Some(permit),
            }),
            // Timed out (the semaphore is never closed).
            _ => Err(Refusal::ReadsBusy(format!(
                "this read covers {cells} cells (columns x rows, history included); the relay \
                 answers large reads of at most {READ_CELLS_IN_FLIGHT} cells at once, and the \
                 reads in progress or queued ahead left no room within {} ms; retry in a \
                 moment, or ask for fewer lines",
                wait.as_millis(),
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The budget with a 20 ms queueing time.
    struct Short<'a>(&'a ReadBudget);

    impl Short<'_> {
        async fn take(&self, cells: u64) -> Result<ReadPermit, Refusal> {
            self.0.take_within(cells, Duration::from_millis(20)).await
        }
    }

    #[tokio::test]
    async fn small_reads_pass_large_ones_queue_then_are_refused() {
        let budget = ReadBudget::default();
        let budget = Short(&budget);
        let half = u64::from(READ_CELLS_IN_FLIGHT / 2);
        let a = budget.take(half).await.unwrap();
        let b = budget.take(half).await.unwrap();
        // Full: a small read still passes; a large one waits, then is refused with figures.
        budget.take(u64::from(READ_FREE_CELLS)).await.unwrap();
        let refused = budget.take(half).await.unwrap_err();
        assert_eq!(refused.code(), "reads_busy");
        let detail = refused.detail().unwrap().to_owned();
        assert!(
            detail.contains(&format!("at most {READ_CELLS_IN_FLIGHT} cells")),
            "{detail}"
        );
        // Room again once one answer is gone; a read larger than the bound takes all of it.
        drop(a);
        let c = budget.take(half).await.unwrap();
        drop((b, c));
        let all = budget.take(u64::MAX).await.unwrap();
        assert!(budget.take(half).await.is_err());
        drop(all);
        budget.take(half).await.unwrap();
    }
}

//! When a wait is done, on both agent surfaces (spec `webmcp-tools.md` `read_terminal`,
//! `broker-api.md` `/mcp/read`): a pure function of the wait's arguments, its clock and the
//! times of output. Times are milliseconds on the adapter's monotonic clock (the page's
//! `performance.now()`; the relay counts from the call's start). Whether the condition holds
//! (a text or regex present or absent, the screen changed, the command finished) is the
//! adapter's to say, e.g. from [`crate::rows_contain`] or [`super::NewOutput::contains`];
//! what counts as output is too (the page: bytes arrived; the relay: `stable_hash` changed).

/// The longest wait of one agent call, in milliseconds, on both surfaces: the page's
/// `timeoutMs` and `waitForIdleMs`, the relay's `run_command`, and the relay's MCP endpoint's
/// read waits. (The broker routes' read waits stay at the broker contract's 15 s.)
pub const MAX_WAIT_MS: u32 = 120_000;

/// What a wait asks for, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitSpec {
    /// The call waits for a condition (`waitFor`, `waitForCommand`; on the relay also
    /// `wait_for_regex`, `wait_for_change`, `wait_for_command`).
    pub text: bool,
    /// `waitForIdleMs`.
    pub idle_ms: Option<u32>,
    /// `timeoutMs`: the longest wait.
    pub timeout_ms: u32,
}

/// The times one wait has seen, in the adapter's milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaitClock {
    /// When the call started.
    pub started: f64,
    /// When the `waitFor` text was first seen; it stays matched even if it scrolls away later.
    pub matched: Option<f64>,
    /// When the call's own input was written: the idle period never starts before it, so
    /// output from before the input never counts as the quiet after it. `None` for a read
    /// that typed nothing: a screen already quiet long enough is idle at once.
    pub quiet_from: Option<f64>,
}

impl WaitClock {
    /// A wait that starts at `now` with the call's own input (a typing tool's wait): the idle
    /// period counts from `now` at the earliest.
    pub fn new(now: f64) -> Self {
        WaitClock {
            started: now,
            matched: None,
            quiet_from: Some(now),
        }
    }

    /// A wait that starts at `now` without input of its own (a read): quiet before the call
    /// counts.
    pub fn reading(now: f64) -> Self {
        WaitClock {
            started: now,
            matched: None,
            quiet_from: None,
        }
    }
}

/// The outcome of checking a wait.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// The wait is satisfied: answer with the current text.
    Done,
    /// `timeoutMs` passed first: answer with the current text and `timedOut: true`.
    TimedOut,
    /// Not yet. `due` is the time at which the wait must be checked again even without output
    /// (the idle period ends, or the timeout).
    Pending {
        /// In the adapter's milliseconds.
        due: f64,
    },
}

/// Checks a wait at time `now`.
///
/// - `text_present`: the `waitFor` text is in the rows being read (ignored without `waitFor`).
/// - `last_output`: when output last arrived (may be before `started`).
///
/// The idle period is counted from the latest of: the last output, the call's own input
/// ([`WaitClock::quiet_from`]), and the moment the `waitFor` text was first seen (spec: "with
/// `waitFor`, the idle period starts once the text appears"). So a typing tool's wait for idle
/// output lasts at least the idle period, while a read of a screen already quiet that long is
/// done at once. A wait that is satisfied exactly at its deadline is `Done`, not timed out.
pub fn verdict(
    spec: WaitSpec,
    clock: &mut WaitClock,
    text_present: bool,
    last_output: f64,
    now: f64,
) -> Verdict {
    if spec.text && text_present && clock.matched.is_none() {
        clock.matched = Some(now);
    }
    let deadline = clock.started + f64::from(spec.timeout_ms);
    let text_ok = !spec.text || clock.matched.is_some();
    let mut due = deadline;
    if text_ok {
        match spec.idle_ms {
            None => return Verdict::Done,
            Some(idle) => {
                let from = last_output
                    .max(clock.quiet_from.unwrap_or(f64::MIN))
                    .max(clock.matched.unwrap_or(f64::MIN));
                let idle_due = from + f64::from(idle);
                if now >= idle_due {
                    return Verdict::Done;
                }
                due = due.min(idle_due);
            }
        }
    }
    if now >= deadline {
        Verdict::TimedOut
    } else {
        Verdict::Pending { due }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: WaitSpec = WaitSpec {
        text: true,
        idle_ms: None,
        timeout_ms: 1000,
    };

    #[test]
    fn text_already_present_is_done_at_once() {
        let mut c = WaitClock::new(100.0);
        assert_eq!(verdict(TEXT, &mut c, true, 0.0, 100.0), Verdict::Done);
    }

    #[test]
    fn text_absent_waits_until_the_deadline() {
        let mut c = WaitClock::new(100.0);
        assert_eq!(
            verdict(TEXT, &mut c, false, 0.0, 100.0),
            Verdict::Pending { due: 1100.0 }
        );
        assert_eq!(
            verdict(TEXT, &mut c, false, 500.0, 600.0),
            Verdict::Pending { due: 1100.0 }
        );
        assert_eq!(verdict(TEXT, &mut c, true, 700.0, 700.0), Verdict::Done);
        let mut c = WaitClock::new(100.0);
        assert_eq!(verdict(TEXT, &mut c, false, 0.0, 1100.0), Verdict::TimedOut);
    }

    #[test]
    fn idle_counts_from_the_latest_output_and_at_least_from_the_start() {
        let spec = WaitSpec {
            text: false,
            idle_ms: Some(300),
            timeout_ms: 5000,
        };
        let mut c = WaitClock::new(1000.0);
        // Output long ago still makes the call wait the full idle period.
        assert_eq!(
            verdict(spec, &mut c, false, 0.0, 1000.0),
            Verdict::Pending { due: 1300.0 }
        );
        // Output at 1200 moves the end of the idle period to 1500.
        assert_eq!(
            verdict(spec, &mut c, false, 1200.0, 1300.0),
            Verdict::Pending { due: 1500.0 }
        );
        assert_eq!(verdict(spec, &mut c, false, 1200.0, 1500.0), Verdict::Done);
    }

    #[test]
    fn a_read_of_a_screen_already_quiet_is_idle_at_once() {
        let spec = WaitSpec {
            text: false,
            idle_ms: Some(300),
            timeout_ms: 5000,
        };
        let mut c = WaitClock::reading(1000.0);
        assert_eq!(verdict(spec, &mut c, false, 500.0, 1000.0), Verdict::Done);
        // Output 100 ms before the read: it waits out the rest of the period.
        let mut c = WaitClock::reading(1000.0);
        assert_eq!(
            verdict(spec, &mut c, false, 900.0, 1000.0),
            Verdict::Pending { due: 1200.0 }
        );
    }

    #[test]
    fn idle_with_text_starts_once_the_text_appears() {
        let spec = WaitSpec {
            text: true,
            idle_ms: Some(200),
            timeout_ms: 5000,
        };
        let mut c = WaitClock::new(0.0);
        assert_eq!(
            verdict(spec, &mut c, false, 0.0, 0.0),
            Verdict::Pending { due: 5000.0 }
        );
        // The text appears at 1000: the idle period runs from there.
        assert_eq!(
            verdict(spec, &mut c, true, 990.0, 1000.0),
            Verdict::Pending { due: 1200.0 }
        );
        // Later output postpones it; the match is remembered even if the text is gone now.
        assert_eq!(
            verdict(spec, &mut c, false, 1100.0, 1150.0),
            Verdict::Pending { due: 1300.0 }
        );
        assert_eq!(verdict(spec, &mut c, false, 1100.0, 1300.0), Verdict::Done);
    }

    #[test]
    fn idle_never_reached_times_out() {
        let spec = WaitSpec {
            text: false,
            idle_ms: Some(500),
            timeout_ms: 1000,
        };
        let mut c = WaitClock::new(0.0);
        assert_eq!(
            verdict(spec, &mut c, false, 900.0, 900.0),
            Verdict::Pending { due: 1000.0 }
        );
        assert_eq!(
            verdict(spec, &mut c, false, 990.0, 1000.0),
            Verdict::TimedOut
        );
    }
}

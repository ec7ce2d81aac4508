//! Timing helpers shared by the core benchmarks (`core-feed`, `reflow`).

use std::time::Instant;

/// The median of `v` (the upper one of the two middle values for an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// This thread's CPU time in seconds (`CLOCK_THREAD_CPUTIME_ID`, nanosecond resolution), or
/// `None` where the clock is missing. CPU time leaves out the time another process held the
/// core, which on a shared 2-core machine is most of wall-clock noise. (`/proc/thread-self/
/// schedstat`, used before, only advances at scheduler ticks: 4 ms steps, which made the vte
/// floor, a few milliseconds per corpus, read as 0 or a multiple of 4 ms.)
pub fn thread_cpu_secs() -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9)
}

/// Seconds one call of `f` takes: thread CPU time where available, else wall clock.
pub fn measure<F: FnOnce()>(f: F) -> f64 {
    let (t, c) = (Instant::now(), thread_cpu_secs());
    f();
    match (c, thread_cpu_secs()) {
        (Some(a), Some(b)) => b - a,
        _ => t.elapsed().as_secs_f64(),
    }
}

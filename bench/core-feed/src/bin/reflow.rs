//! Reflow on resize (`Terminal::resize` to a new width): a terminal whose history is full of
//! soft-wrapped lines is narrowed and widened again. Prints the median time of `--runs` for
//! each direction with the range (min..max), in thread CPU milliseconds, and the rows before
//! and after.
//!
//!   cargo run --release -p core-feed --bin reflow [-- --runs 15]
//!
//! Target: under 50 ms median each way for 10000 rows at 80 columns to 40 and back.

use clap::Parser;
use core_feed::{measure, median};
use wterm_core::{Size, Terminal};

/// Rows of history the terminal keeps, in rows: the default scrollback.
const SCROLLBACK_ROWS: usize = wterm_core::limits::DEFAULT_SCROLLBACK_ROWS;
/// Characters per printed line: two rows at 80 columns (the second 40 wide), three at 40.
const LINE_CHARS: usize = 120;
/// The screen: 24 rows, 80 columns, narrowed to 40.
const ROWS: u16 = 24;
const WIDE_COLS: u16 = 80;
const NARROW_COLS: u16 = 40;

#[derive(Parser)]
struct Args {
    /// Timed runs per direction; the median and range are printed.
    #[arg(long, default_value_t = 15)]
    runs: usize,
}

/// A terminal at `cols` whose history is full: lines of [`LINE_CHARS`] printable characters in
/// a few SGR colors, each soft-wrapping, written at 80 columns.
fn filled(cols: u16) -> Terminal {
    let mut t = Terminal::new(Size::new(ROWS, WIDE_COLS), SCROLLBACK_ROWS);
    let lines = SCROLLBACK_ROWS / 2 + usize::from(ROWS);
    let mut out = Vec::new();
    for i in 0..lines {
        let text: String = (0..LINE_CHARS - 8)
            .map(|k| char::from(b'a' + ((i + k) % 26) as u8))
            .collect();
        out.extend_from_slice(format!("\x1b[3{}m{i:06}\x1b[0m {text}\r\n", i % 8).as_bytes());
    }
    out.extend_from_slice(b"$ ");
    t.feed(&out);
    if cols != WIDE_COLS {
        t.resize(Size::new(ROWS, cols));
    }
    t
}

fn report(label: &str, runs: usize, from: u16, to: u16) {
    let mut times = Vec::with_capacity(runs);
    let (mut before, mut after) = (0, 0);
    for _ in 0..runs {
        let mut t = filled(from);
        before = t.scrollback_rows();
        times.push(measure(|| t.resize(Size::new(ROWS, to))) * 1e3);
        after = t.scrollback_rows();
        std::hint::black_box(&t);
    }
    let (lo, hi) = times
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    println!(
        "{label:<10} {:>9.2} {:>9.2} {:>9.2} {before:>8} {after:>8}",
        median(times),
        lo,
        hi
    );
}

fn main() {
    let args = Args::parse();
    println!(
        "{:<10} {:>9} {:>9} {:>9} {:>8} {:>8}",
        "reflow", "median ms", "min ms", "max ms", "rows in", "rows out"
    );
    report("80 -> 40", args.runs, WIDE_COLS, NARROW_COLS);
    report("40 -> 80", args.runs, NARROW_COLS, WIDE_COLS);
}

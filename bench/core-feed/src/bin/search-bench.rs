//! Times wterm-core's search natively on 100,000 rows of history (80 columns, log-like lines,
//! some soft-wrapped): a full search pass (`Terminal::search`, what each find-next costs),
//! case-insensitive and whole-word, the highlights of one 24-row view
//! (`Terminal::matches_in_rows`) and a link lookup under the pointer (`Terminal::link_at`).
//! Prints the median and range of `--runs` runs, and the ratio of each to the plain search.
//!
//!   cargo run --release -p core-feed --bin search-bench [-- --runs 15]

use std::time::Instant;

use clap::Parser;
use wterm_core::{SearchOptions, Size, Terminal, TextMatcher, UrlMatcher};

/// Rows of history searched.
const HISTORY_ROWS: usize = 100_000;
/// Screen size.
const SIZE: Size = Size::new(24, 80);

#[derive(Parser)]
struct Args {
    /// Timed runs per workload; the median is printed.
    #[arg(long, default_value_t = 15)]
    runs: usize,
}

/// A terminal with [`HISTORY_ROWS`] rows of history: numbered log lines, every 7th one long
/// enough to wrap, every 97th holding a URL, every 1000th the word searched for.
fn terminal() -> Terminal {
    let mut t = Terminal::new(SIZE, HISTORY_ROWS);
    let mut out = String::new();
    let mut i = 0u64;
    while t.scrollback_rows() < HISTORY_ROWS {
        out.clear();
        for _ in 0..1000 {
            i += 1;
            out.push_str(&format!(
                "\x1b[32m{i:>8}\x1b[0m INFO request served in {} ms",
                i % 977
            ));
            if i.is_multiple_of(7) {
                out.push_str(" path=/api/v1/items/page/with/a/long/query?x=1&y=2&z=3 user=someone");
            }
            if i.is_multiple_of(97) {
                out.push_str(" see https://example.test/docs/item");
            }
            if i.is_multiple_of(1000) {
                out.push_str(" Needle-found");
            }
            out.push_str("\r\n");
        }
        t.feed(out.as_bytes());
    }
    t
}

/// Runs `f` `runs` times; prints and returns the median in ms.
fn time(name: &str, runs: usize, base: Option<f64>, mut f: impl FnMut() -> usize) -> f64 {
    let mut ms = Vec::with_capacity(runs);
    let mut result = 0;
    for _ in 0..runs {
        let t0 = Instant::now();
        result = f();
        ms.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    let median = ms[runs / 2];
    let ratio = base.map_or(String::new(), |b| format!("  ×{:.2} of plain", median / b));
    println!(
        "{name:<44} median {median:>8.3} ms  (min {:.3}, max {:.3})  result {result}{ratio}",
        ms[0],
        ms[runs - 1]
    );
    median
}

fn main() {
    let args = Args::parse();
    let runs = args.runs.max(1);
    let t = terminal();
    println!(
        "search-bench: {} rows of history + {} screen rows, {} columns, {runs} runs each",
        t.scrollback_rows(),
        SIZE.rows,
        SIZE.cols
    );
    let opts = SearchOptions::default();
    let plain = time(
        "search \"Needle-found\" (case-sensitive)",
        runs,
        None,
        || {
            t.search(&mut TextMatcher::new("Needle-found"), None, opts)
                .count
        },
    );
    time(
        "search \"needle-FOUND\" (ignore case)",
        runs,
        Some(plain),
        || {
            t.search(&mut TextMatcher::ignore_case("needle-FOUND"), None, opts)
                .count
        },
    );
    let word = SearchOptions {
        whole_word: true,
        ..opts
    };
    time(
        "search \"served\" whole word (count capped)",
        runs,
        Some(plain),
        || t.search(&mut TextMatcher::new("served"), None, word).count,
    );
    time("search for a URL (UrlMatcher)", runs, Some(plain), || {
        t.search(&mut UrlMatcher, None, opts).count
    });
    let top = t.screen_top_row();
    let view = top - 50_000..top - 50_000 + u64::from(SIZE.rows);
    time("highlights of one 24-row view", runs, Some(plain), || {
        t.matches_in_rows(&mut TextMatcher::new("in"), view.clone(), false)
            .len()
    });
    time(
        "link under the pointer (link_at)",
        runs,
        Some(plain),
        || {
            (0..80)
                .filter(|&c| t.link_at(&mut UrlMatcher, top - 3, c).is_some())
                .count()
        },
    );
}

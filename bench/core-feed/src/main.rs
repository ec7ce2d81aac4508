//! Feeds the browser bench corpora (`bench/browser/corpus.mjs`, 10 MiB each) through
//! `wterm_core::Terminal::feed` natively, in 4 KiB chunks as the relay reads them, and through
//! vte's parser with an empty `Perform` (the floor: parsing alone, no screen). Prints MB/s and
//! the ratio of ours to the floor, median of `--runs`.
//!
//!   cargo run --release -p core-feed [-- --runs 5 --quick]

use std::path::PathBuf;
use std::process::Command;

use clap::Parser;
use core_feed::{measure, median};
use wterm_core::{Size, Terminal};

/// Bytes per `feed` call: the relay's PTY reads arrive in chunks of up to this size.
const CHUNK_BYTES: usize = 4096;
/// Rows of scrollback each terminal keeps, as the browser bench's terminals do.
const SCROLLBACK_ROWS: usize = 10_000;
/// The screen sizes of the browser bench.
const SIZES: [(u16, u16); 2] = [(80, 24), (200, 50)];

#[derive(Parser)]
struct Args {
    /// Timed runs per workload; the median is printed.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// 1 MiB corpora instead of 10 MiB.
    #[arg(long)]
    quick: bool,
    /// Only workloads whose name contains this.
    #[arg(long)]
    only: Option<String>,
    /// Skip the vte-only runs (for profiling ours under perf or cachegrind).
    #[arg(long)]
    no_floor: bool,
}

/// vte with nothing behind it: what parsing alone costs.
struct Floor(u64);

impl vte::Perform for Floor {
    fn print(&mut self, c: char) {
        self.0 = self.0.wrapping_add(c as u64);
    }
    fn execute(&mut self, b: u8) {
        self.0 = self.0.wrapping_add(u64::from(b));
    }
    fn csi_dispatch(&mut self, p: &vte::Params, _: &[u8], _: bool, a: char) {
        self.0 = self.0.wrapping_add(p.len() as u64 + a as u64);
    }
}

/// Median seconds of `runs` calls of `f` ([`measure`]).
fn time<F: FnMut()>(runs: usize, mut f: F) -> f64 {
    median((0..runs).map(|_| measure(&mut f)).collect())
}

fn main() {
    let args = Args::parse();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = std::env::temp_dir().join(if args.quick {
        "wterm-core-feed-quick"
    } else {
        "wterm-core-feed"
    });
    let mut gen = Command::new("node");
    gen.arg(root.join("bench/browser/corpus.mjs"));
    if args.quick {
        gen.arg("--quick");
    }
    let status = gen
        .arg(&dir)
        .status()
        .expect("node runs bench/browser/corpus.mjs");
    assert!(status.success(), "corpus.mjs failed");

    println!(
        "{:<16} {:>10} {:>10} {:>8}",
        "workload", "wterm MB/s", "vte MB/s", "ratio"
    );
    let mut ratios = Vec::new();
    let mut ours_all = Vec::new();
    for name in ["ls", "sgr", "yes", "cjk", "redraw"] {
        for (cols, rows) in SIZES {
            let label = format!("{name} {cols}x{rows}");
            if args.only.as_deref().is_some_and(|o| !label.contains(o)) {
                continue;
            }
            let file = if name == "redraw" {
                format!("redraw-{cols}x{rows}.bin")
            } else {
                format!("{name}.bin")
            };
            let bytes = std::fs::read(dir.join(&file)).expect("corpus file");
            let mb = bytes.len() as f64 / 1e6;
            let ours = time(args.runs, || {
                let mut t = Terminal::new(Size { cols, rows }, SCROLLBACK_ROWS);
                for c in bytes.chunks(CHUNK_BYTES) {
                    std::hint::black_box(t.feed(c));
                }
                std::hint::black_box(&t);
            });
            let floor = if args.no_floor {
                f64::NAN
            } else {
                time(args.runs, || {
                    let mut p = vte::Parser::new();
                    let mut f = Floor(0);
                    for c in bytes.chunks(CHUNK_BYTES) {
                        p.advance(&mut f, c);
                    }
                    std::hint::black_box(f.0);
                })
            };
            let (o, v) = (mb / ours, mb / floor);
            println!("{label:<16} {o:>10.1} {v:>10.1} {:>7.2}x", o / v);
            ratios.push(o / v);
            ours_all.push(o);
        }
    }
    let geo = |v: &[f64]| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
    if !ours_all.is_empty() {
        println!(
            "{:<16} {:>10.1} {:>10} {:>7.2}x",
            "geomean",
            geo(&ours_all),
            "",
            geo(&ratios)
        );
    }
}

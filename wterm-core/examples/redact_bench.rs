//! What redaction adds to a 10,000-row read ([`wterm_core::agent::redact`]).
//!
//! Feeds a terminal (120 columns, 10,000 rows of history) realistic output, two mixes: server
//! logs (`ls -l`, logs dense with `key=value` and times, JSON logs, compiler output, long lines
//! that wrap) and a developer's shell (`ls -l`, `git log`, test and compiler output, prose),
//! each with a few fake secrets. Then times, median of [`RUNS`] interleaved runs each:
//!
//! - `read`: the read without redaction, `tail_rows(10000)` joined as a reader gets it;
//! - `read + rows()`: the same with [`Redactor::rows`] between;
//! - `text()` alone over the joined read, with and without its secrets.
//!
//! Run: `cargo run --release -p wterm-core --example redact_bench`.

use std::time::{Duration, Instant};

use wterm_core::agent::redact::{Redactor, RELAY_TOKEN};
use wterm_core::{join_rows, Size, Terminal};

/// Timed runs of each measure.
const RUNS: usize = 31;
/// Rows read, as the largest `read_terminal` tail.
const ROWS: usize = 10_000;

/// A fake secret of each of a few kinds, built here so no token-shaped string is in the source.
fn secrets() -> [String; 3] {
    let fill = |alphabet: &str, n: usize| alphabet.chars().cycle().take(n).collect::<String>();
    [
        format!("$ export GITHUB_TOKEN=ghp_{}", fill("F4keT0ken", 36)),
        format!("aws id AKIA{} ok", fill("FAKE0KEY9", 16)),
        format!(
            "Authorization: Bearer eyJ{}.eyJ{}.{}",
            fill("hbGc", 20),
            fill("zdWI", 40),
            fill("Sig_", 43)
        ),
    ]
}

/// Server logs: `ls -l`, logs dense with `key=value` and times, JSON logs, compiler output,
/// panics that wrap, shell commands; a few secrets (`with_secrets`).
fn logs(with_secrets: bool) -> String {
    let mut s = String::new();
    let users = ["alice", "bob", "carol", "dave"];
    for i in 0..ROWS {
        let u = users[i % users.len()];
        let line = match i % 10 {
            0 | 1 => format!(
                "-rw-r--r--  1 {u} staff  {:>6} Mar {:>2} 12:{:02} src/module_{i:04}/file_{}.rs",
                (i * 7919) % 100_000,
                i % 28 + 1,
                i % 60,
                i % 97
            ),
            2..=4 => format!(
                "2024-05-01T12:{:02}:{:02}.{:03}Z INFO  server::http{{req_id={:08x}}}: GET \
                 /api/v1/items?page={} status=200 latency_ms={} user={u} bytes={}",
                i % 60,
                (i * 7) % 60,
                i % 1000,
                i * 2654435761usize % 0xffff_ffff,
                i % 50,
                i % 300,
                i * 13 % 65536
            ),
            5 => format!("   Compiling crate-{i} v0.{}.{} (/home/{u}/src/crate-{i})", i % 9, i % 31),
            6 => format!(
                "warning: unused variable: `value_{i}`\n  --> src/lib.rs:{}:{}",
                i % 900,
                i % 80
            ),
            7 => format!(
                "{{\"level\":\"info\",\"ts\":\"2024-05-01T12:00:{:02}Z\",\"msg\":\"request done\",\"path\":\"/health\",\"ms\":{}}}",
                i % 60,
                i % 40
            ),
            8 => format!(
                "thread 'main' panicked at src/worker/pool.rs:{}:{}: called `Result::unwrap()` on an \
                 `Err` value: Os {{ code: 2, kind: NotFound, message: \"No such file or directory\" }} \
                 while processing job {i} of queue default with retry policy exponential(base=2, max=8)",
                i % 500,
                i % 60
            ),
            _ => format!("$ cd /srv/app && make build TARGET=x86_64 JOBS=2 # run {i}"),
        };
        s.push_str(&line);
        s.push_str("\r\n");
        if with_secrets && i % 2000 == 1000 {
            for secret in secrets() {
                s.push_str(&secret);
                s.push_str("\r\n");
            }
        }
    }
    s
}

/// A developer's shell: `ls -l`, `git log`, compiler and test output, prose, few assignments;
/// a few secrets.
fn shell() -> String {
    let mut s = String::new();
    for i in 0..ROWS {
        let line = match i % 8 {
            0 => format!(
                "drwxr-xr-x  4 alice staff   128 Apr {:>2} 09:{:02} crate_{i}",
                i % 30 + 1,
                i % 60
            ),
            1 => format!(
                "commit {:040x}",
                (i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834)
            ),
            2 => format!(
                "    Fix the parser for case {i}: handle a row that wraps at the last column"
            ),
            3 => format!("test terminal::tests::case_{i} ... ok"),
            4 => format!(
                "   Compiling wterm-core v0.1.{} (/home/alice/src/wterm)",
                i % 9
            ),
            5 => format!(
                "error[E0308]: mismatched types in src/screen.rs:{}:{}",
                i % 700,
                i % 90
            ),
            6 => "The quick brown fox jumps over the lazy dog while the build runs on two cores."
                .to_string(),
            _ => format!("$ cargo test -p wterm-core --lib agent # try {i}"),
        };
        s.push_str(&line);
        s.push_str("\r\n");
        if i % 2000 == 1000 {
            for secret in secrets() {
                s.push_str(&secret);
                s.push_str("\r\n");
            }
        }
    }
    s
}

fn terminal(text: &str) -> Terminal {
    let mut t = Terminal::new(Size::new(50, 120), ROWS);
    t.feed(text.as_bytes());
    t
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let redactor = Redactor::new().with_literal(&"Rel4yT0ken-_".repeat(4)[..43], RELAY_TOKEN);
    for (name, text) in [
        ("logs, with secrets", logs(true)),
        ("logs, no secrets", logs(false)),
        ("shell, with secrets", shell()),
    ] {
        let mut t = terminal(&text);
        let joined = join_rows(&t.tail_rows(ROWS));
        let (mut read, mut redacted, mut alone) = (vec![], vec![], vec![]);
        let mut found = 0;
        for _ in 0..RUNS {
            let a = Instant::now();
            let rows = t.tail_rows(ROWS);
            std::hint::black_box(join_rows(&rows));
            read.push(a.elapsed());

            let a = Instant::now();
            let mut rows = t.tail_rows(ROWS);
            found = redactor.rows(&mut rows).count;
            std::hint::black_box(join_rows(&rows));
            redacted.push(a.elapsed());

            let a = Instant::now();
            std::hint::black_box(redactor.text(&joined));
            alone.push(a.elapsed());
        }
        let (read, redacted, alone) = (median(read), median(redacted), median(alone));
        let ratio = redacted.as_secs_f64() / read.as_secs_f64();
        println!(
            "{name} ({ROWS} rows, {} KB, {found} redactions, median of {RUNS}):",
            joined.len() / 1024
        );
        println!("  read           {:8.3} ms", ms(read));
        println!(
            "  read + rows()  {:8.3} ms  ratio {ratio:.3} (+{:.1}%)",
            ms(redacted),
            (ratio - 1.0) * 100.0
        );
        println!(
            "  text() alone   {:8.3} ms  {:.0} MB/s, {:.1}% of the read",
            ms(alone),
            joined.len() as f64 / alone.as_secs_f64() / 1e6,
            alone.as_secs_f64() / read.as_secs_f64() * 100.0
        );
    }
}

//! wterm-core's side of the `@xterm/headless` differential oracle (`scripts/headless-oracle.mjs`).
//!
//! Gathers every input the project keeps, feeds each to a fresh [`Terminal`] in one process, and
//! prints one JSON object per line: the input (its bytes as hex, its size and scrollback) and the
//! screen wterm-core ends with. The node script feeds the same bytes to `@xterm/headless` and
//! compares. The inputs, in this order:
//!
//! - `conformance/<file>: <case>`: every case of `tests/fixtures/conformance/*.txt`, read by the
//!   conformance suite's own parser, at its size with [`conformance::SCROLLBACK_ROWS`] of history;
//! - `session/<name> @ <label>`: each checkpoint of each recorded session in `tests/ref/`, the
//!   bytes of `input.bin` up to the checkpoint's offset;
//! - `fuzz/<dir>/<file>`: every saved fuzz input (`fuzz/corpus/terminal`, `fuzz/regressions`),
//!   decoded by the fuzz target's own decoder (`fuzz/ops.rs`), at its starting size and
//!   scrollback: the bytes of its `Feed` operations up to the first operation that is neither a
//!   feed nor a read (a resize, a reset, a key or paste echoed back), since what those do is not
//!   a byte stream both emulators can be given.
//!
//! A screen is `rows` (each row's text, trailing spaces trimmed), `widths` (one digit per column:
//! `1`, `2` for a wide character's first column, `0` for its second), `styles` (each row's cell
//! styles run-length encoded, see [`style_key`]), `cursor` (`[row, col]`, 0-based), `wrapped`
//! (rows that continue on the next), `history` (every history row's text, oldest first) and
//! `modes`.
//!
//! Run: `cargo run -p wterm-core --example oracle_screens [SUBSTRING]` (only the inputs whose id
//! contains SUBSTRING).

#[allow(dead_code, unused_imports)]
#[path = "../tests/conformance.rs"]
mod conformance;
// The fuzz target's own module, as `tests/fuzz_support` includes it (its clippy findings are
// the tests' to fix, not repeated here).
#[allow(dead_code, clippy::enum_variant_names, clippy::manual_div_ceil)]
#[path = "../fuzz/ops.rs"]
mod ops;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use wterm_core::{Color, Size, Style, Terminal};

/// Scrollback of the recorded sessions' terminals, in rows: more than any session scrolls off.
const SESSION_SCROLLBACK_ROWS: usize = 1000;

/// One input: its id, size, history capacity and bytes.
struct Input {
    id: String,
    size: Size,
    scrollback: usize,
    bytes: Vec<u8>,
}

fn core_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn conformance_inputs() -> Vec<Input> {
    conformance::load_cases(Path::new(conformance::FIXTURE_DIR))
        .into_iter()
        .map(|c| Input {
            id: format!("conformance/{}: {}", c.file, c.name),
            size: c.size,
            scrollback: conformance::SCROLLBACK_ROWS,
            bytes: c.input,
        })
        .collect()
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            !name.starts_with('.') && !name.ends_with(".md")
        })
        .collect();
    out.sort();
    out
}

fn session_inputs() -> Vec<Input> {
    let mut out = Vec::new();
    for dir in sorted_entries(&core_dir().join("tests/ref")) {
        if !dir.is_dir() {
            continue;
        }
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let read = |f: &str| {
            std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{}/{f}: {e}", dir.display()))
        };
        let size: Value = serde_json::from_slice(&read("size.json")).expect("size.json is JSON");
        let dim = |k: &str| {
            size[k]
                .as_u64()
                .and_then(|n| u16::try_from(n).ok())
                .unwrap_or_else(|| panic!("{name}/size.json: {k} is not a number 0-65535"))
        };
        let size = Size::new(dim("rows"), dim("cols"));
        let input = read("input.bin");
        let checkpoints = String::from_utf8(read("checkpoints.txt")).expect("UTF-8");
        for line in checkpoints.lines().filter(|l| !l.trim().is_empty()) {
            let (offset, label) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("{name}/checkpoints.txt: want OFFSET<TAB>LABEL"));
            let offset: usize = offset
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("{name}/checkpoints.txt: bad offset {offset:?}"));
            out.push(Input {
                id: format!("session/{name} @ {label}"),
                size,
                scrollback: SESSION_SCROLLBACK_ROWS,
                bytes: input[..offset.min(input.len())].to_vec(),
            });
        }
    }
    out
}

/// The bytes a fuzz script feeds before its first operation that is not a feed or a read.
fn fuzz_bytes(script: &ops::Script) -> Vec<u8> {
    let mut bytes = Vec::new();
    for op in script.ops.iter().take(ops::MAX_OPS) {
        match op {
            ops::Op::Feed(pieces, _) => bytes.extend(ops::bytes_of(pieces)),
            ops::Op::Read(_) => {}
            _ => break,
        }
    }
    bytes
}

fn fuzz_inputs() -> Vec<Input> {
    let mut out = Vec::new();
    for dir in ["corpus/terminal", "regressions"] {
        for path in sorted_entries(&core_dir().join("fuzz").join(dir)) {
            let data = std::fs::read(&path).expect("readable fuzz input");
            let Ok(script) = ops::Script::from_bytes(&data) else {
                continue;
            };
            let bytes = fuzz_bytes(&script);
            if bytes.is_empty() {
                continue;
            }
            let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            out.push(Input {
                id: format!("fuzz/{dir}/{file}"),
                size: ops::fit(script.rows, script.cols).clamped(),
                scrollback: usize::from(script.scrollback),
                bytes,
            });
        }
    }
    out
}

fn color_key(c: Color, out: &mut String) {
    match c {
        Color::Default => {}
        Color::Indexed(i) => {
            let _ = write!(out, "{i}");
        }
        Color::Rgb(r, g, b) => {
            let _ = write!(out, "#{r:02x}{g:02x}{b:02x}");
        }
    }
}

/// A cell's style as the oracle compares it: the flags as letters in a fixed order (`b` bold,
/// `d` dim, `i` italic, `u` underline, `v` inverse, `k` blink, `h` hidden, `s` strikethrough),
/// then `/fg/bg`, each empty for the default, a palette index, or `#rrggbb`. Links are not
/// compared (xterm.js keeps OSC 8 outside the cell's attributes).
fn style_key(s: &Style) -> String {
    let mut out = String::new();
    for (on, c) in [
        (s.bold, 'b'),
        (s.dim, 'd'),
        (s.italic, 'i'),
        (s.underline, 'u'),
        (s.inverse, 'v'),
        (s.blink, 'k'),
        (s.hidden, 'h'),
        (s.strikethrough, 's'),
    ] {
        if on {
            out.push(c);
        }
    }
    out.push('/');
    color_key(s.fg, &mut out);
    out.push('/');
    color_key(s.bg, &mut out);
    out
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Feeds `input` to a fresh terminal and describes the screen it ends with.
fn screen(input: &Input) -> Value {
    let mut t = Terminal::new(input.size, input.scrollback);
    t.feed(&input.bytes);
    let size = t.size();
    let text_rows = t.screen_rows();
    let mut widths = Vec::with_capacity(usize::from(size.rows));
    let mut styles = Vec::with_capacity(usize::from(size.rows));
    for row in 0..size.rows {
        let mut w = String::with_capacity(usize::from(size.cols));
        let mut runs: Vec<(String, usize)> = Vec::new();
        for col in 0..size.cols {
            let Some((_, style)) = t.cell(row, col) else {
                w.push('0');
                let last = runs
                    .last_mut()
                    .expect("a wide character's first half came first");
                last.1 += 1;
                continue;
            };
            let wide = col + 1 < size.cols && t.cell(row, col + 1).is_none();
            w.push(if wide { '2' } else { '1' });
            let key = style_key(&style);
            match runs.last_mut() {
                Some((k, n)) if *k == key => *n += 1,
                _ => runs.push((key, 1)),
            }
        }
        widths.push(w);
        styles.push(
            runs.iter()
                .map(|(k, n)| format!("{n}*{k}"))
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    let cursor = t.cursor();
    let modes = t.modes();
    let history: Vec<String> = t
        .history_rows(t.scrollback_rows())
        .into_iter()
        .map(|r| r.text.trim_end_matches(' ').to_string())
        .collect();
    json!({
        "id": input.id,
        "rows": size.rows,
        "cols": size.cols,
        "scrollback": input.scrollback,
        "input": hex(&input.bytes),
        "screen": {
            "rows": text_rows.iter().map(|r| r.text.trim_end_matches(' ')).collect::<Vec<_>>(),
            "wrapped": text_rows
                .iter()
                .enumerate()
                .filter(|(_, r)| r.wrapped)
                .map(|(i, _)| i)
                .collect::<Vec<_>>(),
            "widths": widths,
            "styles": styles,
            "cursor": [cursor.row, cursor.col],
            "history": history,
            "modes": {
                "alternate_screen": modes.alternate_screen,
                "application_cursor": modes.application_cursor,
                "application_keypad": modes.application_keypad,
                "bracketed_paste": modes.bracketed_paste,
                "insert": modes.insert,
                "origin": modes.origin,
                "autowrap": modes.autowrap,
                "synchronized_output": modes.synchronized_output,
            },
        },
    })
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let mut inputs = conformance_inputs();
    inputs.extend(session_inputs());
    inputs.extend(fuzz_inputs());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for input in inputs.iter().filter(|i| i.id.contains(&filter)) {
        serde_json::to_writer(&mut out, &screen(input)).expect("write JSON");
        out.write_all(b"\n").expect("write stdout");
    }
    out.flush().expect("flush stdout");
}

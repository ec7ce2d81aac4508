//! Differential tests against tmux on recorded real sessions.
//!
//! Each `tests/ref/<name>/` holds what a real program printed in an 80×24 PTY (`input.bin`,
//! recorded by `scripts/record-session.py`), its size (`size.json`), and the screens tmux drew
//! for the same bytes at a few checkpoints (`expected.txt`, made by `scripts/tmux-oracle.py`;
//! `scripts/tmux-oracle.py --check` proves they still come from tmux). Every case is fed to a
//! [`Terminal`] in chunks of [`CHUNK_SIZES_BYTES`] bytes; at each checkpoint the visible rows,
//! the cursor and the alternate-screen flag must equal tmux's, and so must every cell's colors
//! and attributes: `styles.txt` holds tmux's rows as `capture-pane -e -N` prints them (SGR per
//! change of attributes), which are read back through a scratch [`Terminal`] (its SGR reader is
//! checked by the conformance suite) and compared cell by cell.
//!
//! A difference that is a choice, not a bug, may be listed in `tests/ref/<name>/DIFFERENCES`
//! as `CHECKPOINT LABEL | ITEM | REASON` lines (ITEM is `row N` or `style row N`, 0-based, or
//! `cursor` or `alternate screen`; `#` starts a comment). Listed items must differ and nothing else may:
//! a listed difference that disappears fails the case too, so the list only shrinks.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use wterm_core::{Color, Size, Style, Terminal};

/// Chunk sizes the input is fed in, in bytes: one byte at a time (every sequence split), an odd
/// size (splits land everywhere else), and a PTY read's worth.
const CHUNK_SIZES_BYTES: [usize; 3] = [1, 7, 4096];
/// Scrollback kept by the terminal under test, in rows; the comparison is of the visible screen
/// only, so any capacity works.
const SCROLLBACK_ROWS: usize = 1000;

/// One screen as tmux drew it.
#[derive(Debug)]
struct Checkpoint {
    /// Bytes of `input.bin` fed before this screen.
    offset: usize,
    label: String,
    /// 0-based; `cols` (one past the last column) while a wrap is pending.
    cursor_row: u16,
    cursor_col: u16,
    cursor_visible: bool,
    alternate_screen: bool,
    /// Every row, trailing spaces trimmed (`capture-pane -p`).
    rows: Vec<String>,
    /// Every row as `capture-pane -p -e -N` printed it (unescaped `styles.txt` rows).
    styled_rows: Vec<Vec<u8>>,
}

/// One item that differs at one checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Difference {
    label: String,
    item: String,
    expected: String,
    actual: String,
}

fn ref_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ref")
        .join(name)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read_size(dir: &Path) -> Size {
    let text = String::from_utf8(read(&dir.join("size.json"))).expect("size.json is UTF-8");
    let v: serde_json::Value = serde_json::from_str(&text).expect("size.json is JSON");
    let get = |k: &str| {
        let n = v[k].as_u64().unwrap_or_else(|| panic!("size.json: no {k}"));
        u16::try_from(n).expect("size fits u16")
    };
    Size::new(get("rows"), get("cols"))
}

fn parse_expected(dir: &Path, size: Size) -> Vec<Checkpoint> {
    let text = String::from_utf8(read(&dir.join("expected.txt"))).expect("expected.txt is UTF-8");
    let mut out: Vec<Checkpoint> = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        if let Some(row) = line.strip_prefix('|') {
            out.last_mut()
                .expect("a row before any @checkpoint")
                .rows
                .push(row.to_string());
            continue;
        }
        let fields = line.strip_prefix("@checkpoint ").unwrap_or_else(|| {
            panic!("{}: unexpected line {line:?}", dir.display());
        });
        let (fields, label) = fields
            .split_once(" label=")
            .expect("@checkpoint has a label");
        let mut cp = Checkpoint {
            offset: 0,
            label: label.to_string(),
            cursor_row: 0,
            cursor_col: 0,
            cursor_visible: false,
            alternate_screen: false,
            rows: Vec::new(),
            styled_rows: Vec::new(),
        };
        for field in fields.split_whitespace() {
            let (k, v) = field.split_once('=').expect("key=value");
            let n: usize = v
                .parse()
                .unwrap_or_else(|_| panic!("{k}={v} is not a number"));
            match k {
                "offset" => cp.offset = n,
                "cursor_row" => cp.cursor_row = n as u16,
                "cursor_col" => cp.cursor_col = n as u16,
                "cursor_visible" => cp.cursor_visible = n == 1,
                "alternate_screen" => cp.alternate_screen = n == 1,
                _ => panic!("unknown @checkpoint field {k}"),
            }
        }
        out.push(cp);
    }
    parse_styles(dir, &mut out);
    for cp in &out {
        assert_eq!(
            cp.rows.len(),
            usize::from(size.rows),
            "{}: rows of {:?}",
            dir.display(),
            cp.label
        );
        assert_eq!(
            cp.styled_rows.len(),
            usize::from(size.rows),
            "{}: styled rows of {:?}",
            dir.display(),
            cp.label
        );
    }
    assert!(!out.is_empty(), "{}: no checkpoints", dir.display());
    out
}

/// Adds `styles.txt`'s rows to the checkpoints of the same labels, in the same order.
fn parse_styles(dir: &Path, checkpoints: &mut [Checkpoint]) {
    let text = String::from_utf8(read(&dir.join("styles.txt"))).expect("styles.txt is UTF-8");
    let mut at: Option<usize> = None;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        if let Some(row) = line.strip_prefix('|') {
            let cp = at.expect("a row before any @checkpoint");
            checkpoints[cp].styled_rows.push(unescape(row));
            continue;
        }
        let label = line.strip_prefix("@checkpoint label=").unwrap_or_else(|| {
            panic!("{}/styles.txt: unexpected line {line:?}", dir.display());
        });
        let next = at.map_or(0, |i| i + 1);
        assert_eq!(
            checkpoints.get(next).map(|c| c.label.as_str()),
            Some(label),
            "{}/styles.txt: checkpoints in order",
            dir.display()
        );
        at = Some(next);
    }
    assert_eq!(
        at.map(|i| i + 1),
        Some(checkpoints.len()),
        "{}/styles.txt: every checkpoint",
        dir.display()
    );
}

/// A `styles.txt` row's bytes: `\\` is a backslash, `\e` ESC, `\xNN` the byte NN.
fn unescape(row: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(row.len());
    let mut bytes = row.bytes();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(b'\\') => out.push(b'\\'),
            Some(b'e') => out.push(0x1b),
            Some(b'x') => {
                let hex: Vec<u8> = bytes.by_ref().take(2).collect();
                let hex = std::str::from_utf8(&hex).expect("\\xNN is ASCII");
                out.push(u8::from_str_radix(hex, 16).expect("\\xNN is hex"));
            }
            other => panic!("styles.txt: bad escape \\{other:?} in {row:?}"),
        }
    }
    out
}

/// tmux's styled screen: the rows of `capture-pane -e -N` drawn into a scratch terminal one
/// column wider than the screen, each at its row (attributes carry from one row to the next, as
/// capture-pane prints them), and how many columns of each row tmux printed. Only those are
/// compared: capture-pane leaves out cells a program never wrote, and cells an erase filled
/// with a background color (BCE) too, although tmux draws them.
fn tmux_styles(size: Size, styled_rows: &[Vec<u8>]) -> (Terminal, Vec<u16>) {
    // The extra column keeps the cursor after a full row at `cols`, with no pending wrap.
    let mut t = Terminal::new(Size::new(size.rows, size.cols + 1), 0);
    let mut printed = Vec::new();
    for (r, row) in styled_rows.iter().enumerate() {
        let _ = t.feed(format!("\x1b[{};1H", r + 1).as_bytes());
        let _ = t.feed(row);
        printed.push(t.cursor().col.min(size.cols));
    }
    (t, printed)
}

/// A style as the comparison sees it: colors and SGR attributes (tmux 3.3a keeps no OSC 8).
fn describe(style: &Style) -> String {
    let color = |c: Color| match c {
        Color::Default => "default".to_string(),
        Color::Indexed(i) => format!("{i}"),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
    };
    let mut out = format!("fg {} bg {}", color(style.fg), color(style.bg));
    for (on, name) in [
        (style.bold, "bold"),
        (style.dim, "dim"),
        (style.italic, "italic"),
        (style.underline, "underline"),
        (style.blink, "blink"),
        (style.inverse, "inverse"),
        (style.hidden, "hidden"),
        (style.strikethrough, "strikethrough"),
    ] {
        if on {
            out.push(' ');
            out.push_str(name);
        }
    }
    out
}

/// The styles of row `r`'s first `cols` cells where tmux and `term` differ, as
/// `cols A-B: STYLE` lists for each (`None` when they agree). Wide characters' second halves
/// are skipped; text is compared elsewhere.
fn style_difference(
    tmux: &Terminal,
    term: &Terminal,
    r: u16,
    cols: u16,
) -> Option<(String, String)> {
    // Runs of adjacent columns with the same pair of differing styles.
    let mut runs: Vec<(u16, u16, String, String)> = Vec::new();
    for c in 0..cols {
        let (Some((_, want)), Some((_, got))) = (tmux.cell(r, c), term.cell(r, c)) else {
            continue;
        };
        let (want, got) = (describe(&want), describe(&got));
        if want == got {
            continue;
        }
        match runs.last_mut() {
            Some(run) if run.1 + 1 >= c && run.2 == want && run.3 == got => run.1 = c,
            _ => runs.push((c, c, want, got)),
        }
    }
    let list = |pick: fn(&(u16, u16, String, String)) -> &String| {
        runs.iter()
            .map(|run| format!("cols {}-{}: {}", run.0, run.1, pick(run)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    (!runs.is_empty()).then(|| (list(|r| &r.2), list(|r| &r.3)))
}

/// The `DIFFERENCES` list: (checkpoint label, item) pairs allowed, and required, to differ.
fn read_allowed(dir: &Path) -> BTreeSet<(String, String)> {
    let Ok(text) = std::fs::read_to_string(dir.join("DIFFERENCES")) else {
        return BTreeSet::new();
    };
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.splitn(3, '|').map(str::trim).collect();
        assert!(
            parts.len() == 3 && !parts[2].is_empty(),
            "{}/DIFFERENCES: {line:?} is not `LABEL | ITEM | REASON`",
            dir.display()
        );
        out.insert((parts[0].to_string(), parts[1].to_string()));
    }
    out
}

/// Feeds `input` in `chunk`-byte pieces (never across a checkpoint) and compares at each.
fn run(input: &[u8], size: Size, checkpoints: &[Checkpoint], chunk: usize) -> Vec<Difference> {
    let mut term = Terminal::new(size, SCROLLBACK_ROWS);
    let mut fed = 0;
    let mut diffs = Vec::new();
    for cp in checkpoints {
        assert!(
            cp.offset <= input.len() && cp.offset >= fed,
            "checkpoint offsets in order"
        );
        while fed < cp.offset {
            let end = (fed + chunk).min(cp.offset);
            // Replies go nowhere, as in the recording: the program never got any.
            let _ = term.feed(&input[fed..end]);
            fed = end;
        }
        let mut diff = |item: String, expected: String, actual: String| {
            if expected != actual {
                diffs.push(Difference {
                    label: cp.label.clone(),
                    item,
                    expected,
                    actual,
                });
            }
        };
        let actual_rows = term.screen_rows();
        for (r, expected) in cp.rows.iter().enumerate() {
            let actual = actual_rows
                .get(r)
                .map_or("<missing>", |t| t.text.trim_end_matches(' '));
            diff(format!("row {r}"), expected.clone(), actual.to_string());
        }
        // While a wrap is pending tmux reports the column one past the last; wterm-core keeps the
        // cursor on the last column (listed in the case's DIFFERENCES).
        let c = term.cursor();
        diff(
            "cursor".into(),
            format!(
                "row {} col {} visible {}",
                cp.cursor_row, cp.cursor_col, cp.cursor_visible
            ),
            format!("row {} col {} visible {}", c.row, c.col, c.visible),
        );
        diff(
            "alternate screen".into(),
            cp.alternate_screen.to_string(),
            term.modes().alternate_screen.to_string(),
        );
        let (tmux, printed) = tmux_styles(size, &cp.styled_rows);
        for r in 0..size.rows {
            if let Some((expected, actual)) =
                style_difference(&tmux, &term, r, printed[usize::from(r)])
            {
                diff(format!("style row {r}"), expected, actual);
            }
        }
    }
    diffs
}

/// Runs one case at every chunk size; panics with every difference, grouped by chunk sizes
/// that give the same ones.
fn check_case(name: &str) {
    let dir = ref_dir(name);
    let size = read_size(&dir);
    let input = read(&dir.join("input.bin"));
    let checkpoints = parse_expected(&dir, size);
    assert_eq!(
        checkpoints.last().map(|c| c.offset),
        Some(input.len()),
        "{name}: the last checkpoint must be the end of input.bin"
    );
    let allowed = read_allowed(&dir);
    let mut groups: Vec<(Vec<usize>, Vec<Difference>)> = Vec::new();
    for chunk in CHUNK_SIZES_BYTES {
        let diffs = run(&input, size, &checkpoints, chunk);
        match groups.iter_mut().find(|(_, d)| *d == diffs) {
            Some((chunks, _)) => chunks.push(chunk),
            None => groups.push((vec![chunk], diffs)),
        }
    }
    let mut report = String::new();
    for (chunks, diffs) in &groups {
        let found: BTreeSet<(String, String)> = diffs
            .iter()
            .map(|d| (d.label.clone(), d.item.clone()))
            .collect();
        let unexpected: Vec<&Difference> = diffs
            .iter()
            .filter(|d| !allowed.contains(&(d.label.clone(), d.item.clone())))
            .collect();
        let vanished: Vec<&(String, String)> = allowed.difference(&found).collect();
        if unexpected.is_empty() && vanished.is_empty() {
            continue;
        }
        let _ = writeln!(report, "case {name}, chunks of {chunks:?} bytes:");
        for d in unexpected {
            let _ = writeln!(
                report,
                "  [{}] {}\n    expected (tmux): {:?}\n    actual:          {:?}",
                d.label, d.item, d.expected, d.actual
            );
        }
        for (label, item) in vanished {
            let _ = writeln!(
                report,
                "  [{label}] {item}: listed in DIFFERENCES but now matches tmux; remove it"
            );
        }
    }
    assert!(report.is_empty(), "screens differ from tmux:\n{report}");
}

macro_rules! ref_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check_case(stringify!($name));
            }
        )*

        /// Every recorded case has its test line above.
        #[test]
        fn every_case_is_listed() {
            let listed: BTreeSet<&str> = [$(stringify!($name)),*].into_iter().collect();
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ref");
            for entry in std::fs::read_dir(&root).expect("tests/ref exists") {
                let entry = entry.expect("readable tests/ref");
                if entry.path().join("input.bin").is_file() {
                    let name = entry.file_name().into_string().expect("UTF-8 case name");
                    assert!(listed.contains(name.as_str()), "tests/ref/{name} has no ref_tests! line");
                }
            }
        }
    };
}

ref_tests! {
    bash_colors,
    bash_edit,
    dialog,
    git_log_graph,
    htop,
    less,
    nano,
    python_repl,
    tmux,
    top,
    vim_edit,
    watch,
}

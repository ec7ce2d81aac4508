//! Property test: no input, chunking or size makes the terminal panic. Inputs are random bytes mixed with pieces
//! of real escape sequences and tricky Unicode, at sizes including 1 and 2 columns, with
//! resizes in between, and every read-side call exercised after each step.

use proptest::prelude::*;
use wterm_core::keys::{encode, parse_broker_key, parse_chord};
use wterm_core::{Size, Terminal};

/// Fragments that reach the parser's less-trodden paths.
const FRAGMENTS: &[&[u8]] = &[
    b"\x1b[",
    b"\x1b]",
    b"\x1bP",
    b"\x1b[?",
    b"\x1b[>",
    b"\x1b[<",
    b"\x1b[=",
    b";",
    b"0",
    b"1",
    b"9",
    b"65535",
    b"99999",
    b"m",
    b"H",
    b"J",
    b"K",
    b"r",
    b"h",
    b"l",
    b"u",
    b"n",
    b"c",
    b"q",
    b"@",
    b"L",
    b"M",
    b"P",
    b"S",
    b"T",
    b"X",
    b"b",
    b"d",
    b"G",
    b"t",
    b"\x07",
    b"\x1b\\",
    b"\r",
    b"\n",
    b"\t",
    b"\x08",
    b"\x1b7",
    b"\x1b8",
    b"\x1bM",
    b"\x1bc",
    b"\x1b(0",
    b"1049",
    b"47",
    b"2004",
    b"\xef\xb8\x8f",
    b"\xcc\x81",
    b"\xe4\xb8\xad",
    b"\xf0\x9f\x91\x8d",
    b"\xf0\x9f\x8f\xbd",
    b"\xe2\x80\x8d",
    b"\xf0\x9f\x87\xba",
    b"\xff",
    b"\xc3",
    b"\x9b",
    b"133;D;1",
    b"133;A",
    b"133;C",
    b"133;C;cmdline=a\\",
    b"633;E;x\\x3",
    b"7711;c;1;2;;;",
    b"7;file://h/x%2",
    b"2;title",
    b"\x1b[8;1;1t",
    b"\x1b[200~",
    b"\x00",
];

#[derive(Debug, Clone)]
enum Step {
    Feed(Vec<u8>),
    Resize(u16, u16),
    Read(usize),
    Snapshot,
}

fn chunk() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(FRAGMENTS).prop_map(|f| f.to_vec()),
            1 => prop::collection::vec(any::<u8>(), 0..8),
        ],
        0..24,
    )
    .prop_map(|parts| parts.concat())
}

fn dim() -> impl Strategy<Value = u16> {
    prop_oneof![
        Just(0u16),
        Just(1),
        Just(2),
        Just(3),
        1u16..120,
        Just(1000),
        Just(u16::MAX)
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => chunk().prop_map(Step::Feed),
        2 => (dim(), dim()).prop_map(|(r, c)| Step::Resize(r, c)),
        1 => (0usize..20_000).prop_map(Step::Read),
        1 => Just(Step::Snapshot),
    ]
}

fn exercise_reads(t: &mut Terminal, lines: usize) {
    let _ = t.screen_text();
    let _ = t.tail_text(lines);
    let _ = t.cursor();
    let _ = t.modes();
    let size = t.size();
    let mut runs = Vec::new();
    for r in 0..size.rows.min(4) {
        t.row_runs(lines % 7, r, &mut runs);
    }
    for r in t.commands().chain(t.running_command()) {
        let _ = t.command_output(r, lines);
    }
    let modes = t.modes();
    for k in ["Ctrl+c", "ArrowUp", "a", "Escape", "F3", "Shift+Tab"] {
        let _ = encode(parse_chord(k).unwrap(), &modes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("WTERM_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(600),
        .. ProptestConfig::default()
    })]

    #[test]
    fn never_panics(rows in dim(), cols in dim(), scrollback in 0usize..50, steps in prop::collection::vec(step(), 1..40)) {
        let mut t = Terminal::new(Size::new(rows, cols), scrollback);
        for s in steps {
            match s {
                Step::Feed(b) => { let _ = t.feed(&b); }
                Step::Resize(r, c) => t.resize(Size::new(r, c)),
                Step::Read(n) => exercise_reads(&mut t, n),
                Step::Snapshot => {
                    let snap = t.snapshot();
                    let mut f = Terminal::new(t.size(), t.scrollback_capacity());
                    f.feed(&snap);
                    prop_assert!(f.commands().eq(t.commands()));
                    prop_assert_eq!(f.running_command(), t.running_command());
                    prop_assert_eq!(f.screen_top_row(), t.screen_top_row());
                }
            }
        }
        exercise_reads(&mut t, 3);
    }

    #[test]
    fn key_grammars_never_panic(s in "\\PC{0,12}") {
        let _ = parse_chord(&s);
        let _ = parse_broker_key(&s);
    }
}

//! Reflow on resize, each case with the smallest input that shows it.

use crate::{join_for_search, Color, Cursor, Size, Terminal, TextRow};

fn term(rows: u16, cols: u16, scrollback: usize) -> Terminal {
    Terminal::new(Size::new(rows, cols), scrollback)
}

/// Every row: history, then the screen.
fn all_rows(t: &mut Terminal) -> Vec<TextRow> {
    let mut rows = t.history_rows(usize::MAX);
    rows.extend(t.screen_rows());
    rows
}

fn texts(rows: &[TextRow]) -> Vec<(String, bool)> {
    rows.iter()
        .map(|r| (r.text.trim_end().to_string(), r.wrapped))
        .collect()
}

fn at(t: &Terminal) -> (u16, u16) {
    let c = t.cursor();
    (c.row, c.col)
}

/// The text of the cell under the cursor.
fn under_cursor(t: &Terminal) -> String {
    let c = t.cursor();
    t.cell(c.row, c.col).map(|(s, _)| s).unwrap_or_default()
}

/// 200 printable characters that never repeat within 80.
fn long_line() -> String {
    (0..200)
        .map(|i| char::from(b'!' + (i % 90) as u8))
        .collect()
}

#[test]
fn a_200_character_line_at_80_columns_reads_as_one_line_after_40_and_back() {
    let mut t = term(24, 80, 1000);
    let line = long_line();
    t.feed(format!("$ echo\r\n{line}\r\n$ ").as_bytes());
    let before = texts(&all_rows(&mut t));
    let cursor = t.cursor();
    assert_eq!(before.len(), 24);

    t.resize(Size::new(24, 40));
    let rows = all_rows(&mut t);
    assert!(join_for_search(&rows).contains(&line));
    // 200 characters are 5 rows of 40, the first 4 soft-wrapped.
    let narrow = texts(&rows);
    assert_eq!(narrow[1].0, line[..40]);
    assert!(narrow[1..5].iter().all(|r| r.1));
    assert_eq!(narrow[5], (line[160..].to_string(), false));
    assert_eq!(narrow[6], ("$".to_string(), false));
    // No history yet: the screen's top stays, the cursor moves down onto its line (xterm.js).
    assert_eq!(t.scrollback_rows(), 0);
    assert_eq!(at(&t), (6, 2));

    t.resize(Size::new(24, 80));
    assert_eq!(texts(&all_rows(&mut t)), before);
    assert_eq!(t.cursor(), cursor);
}

#[test]
fn wrapped_history_rows_reflow() {
    let mut t = term(3, 20, 1000);
    let lines: Vec<String> = (0..30)
        .map(|i| format!("{i:02}-{}", "x".repeat(45)))
        .collect();
    for l in &lines {
        t.feed(format!("{l}\r\n").as_bytes());
    }
    // Each line of 48 characters is 3 rows at 20 columns.
    assert!(t.scrollback_rows() >= 80);
    for (cols, rows_per_line) in [(10, 5), (50, 1), (16, 3), (20, 3)] {
        t.resize(Size::new(3, cols));
        let rows = all_rows(&mut t);
        let text = join_for_search(&rows);
        for l in &lines {
            assert!(
                text.contains(&format!("{l}\n")),
                "{cols} columns: {l} whole"
            );
        }
        let wrapped = rows.iter().filter(|r| r.wrapped).count();
        assert_eq!(wrapped, 30 * (rows_per_line - 1), "{cols} columns");
    }
}

#[test]
fn a_wide_character_at_the_boundary_moves_whole() {
    let mut t = term(4, 5, 100);
    // At 5 columns 中 does not fit after "abcd": the last cell stays blank and it wraps.
    t.feed("abcd中\r\n".as_bytes());
    assert_eq!(
        texts(&t.screen_rows())[..2],
        [("abcd".into(), true), ("中".into(), false)]
    );
    t.resize(Size::new(4, 6));
    assert_eq!(
        texts(&t.screen_rows())[..2],
        [("abcd中".into(), false), ("".into(), false)]
    );
    t.resize(Size::new(4, 5));
    assert_eq!(
        texts(&t.screen_rows())[..2],
        [("abcd".into(), true), ("中".into(), false)]
    );
    // At 3 columns "d中" fills row 1 exactly: no padding needed.
    t.resize(Size::new(4, 3));
    assert_eq!(
        texts(&t.screen_rows())[..2],
        [("abc".into(), true), ("d中".into(), false)]
    );
    assert_eq!(t.cell(1, 1).map(|c| c.0), Some("中".into()));
    t.resize(Size::new(4, 8));
    assert_eq!(texts(&t.screen_rows())[0], ("abcd中".into(), false));
}

#[test]
fn a_grapheme_cluster_and_its_style_move_as_one_cell() {
    let mut t = term(3, 4, 100);
    // e + combining acute, then a red x: at 4 columns "abc" + "é" fill row 0.
    t.feed("abce\u{301}\x1b[31mx\x1b[0m\r\n".as_bytes());
    t.resize(Size::new(3, 10));
    assert_eq!(texts(&t.screen_rows())[0].0, "abce\u{301}x");
    assert_eq!(t.cell(0, 3).map(|c| c.0), Some("e\u{301}".into()));
    assert_eq!(t.cell(0, 4).map(|c| c.1.fg), Some(Color::Indexed(1)));
}

#[test]
fn a_hyperlink_survives_reflow() {
    let mut t = term(3, 4, 100);
    t.feed(b"ab\x1b]8;;https://x.test/\x07cdef\x1b]8;;\x07\r\n");
    t.resize(Size::new(3, 8));
    let link = t.cell(0, 4).and_then(|c| c.1.link).expect("link kept");
    assert_eq!(t.link_uri(link), Some("https://x.test/"));
    assert_eq!(t.cell(0, 1).and_then(|c| c.1.link), None);
}

#[test]
fn the_cursor_stays_on_its_character() {
    let mut t = term(6, 20, 100);
    // A line of 30 characters (two rows at 20), then the cursor mid-line on 'w' of the next.
    t.feed(b"0123456789ABCDEFGHIJklmnopqrst\r\nhello world\x1b[3;7H");
    assert_eq!(under_cursor(&t), "w");
    for (cols, row) in [(10, 3), (40, 1), (7, 5), (20, 2)] {
        t.resize(Size::new(6, cols));
        assert_eq!(under_cursor(&t), "w", "{cols} columns");
        assert_eq!(at(&t), (row, 6), "{cols} columns");
    }
}

#[test]
fn the_cursor_line_is_cut_or_padded_for_the_shell_to_redraw() {
    // Bash 5.2's redraw on SIGWINCH, recorded from a PTY: at 80 columns "$ abc" + 70 x is one
    // row; narrowed to 40 it writes `\r ESC[K \r` and the line again.
    let typed = format!("$ abc{}", "x".repeat(70));
    let mut t = term(4, 80, 100);
    t.feed(format!("out\r\n{typed}").as_bytes());
    t.resize(Size::new(4, 40));
    // Cut, not reflowed (xterm.js): the cursor's column is cut to the width.
    assert_eq!(texts(&t.screen_rows())[1], (typed[..40].to_string(), false));
    assert_eq!(at(&t), (1, 39));
    t.feed(format!("\r\x1b[K\r{typed}").as_bytes());
    assert_eq!(
        texts(&t.screen_rows())[..3],
        [
            ("out".into(), false),
            (typed[..40].to_string(), true),
            (typed[40..].to_string(), false)
        ]
    );
    // Widened back, the two rows stay two; bash moves up the rows the line took at 40 columns
    // (`ESC[A`), erases them and writes it on one row. The row above it, "out", stays.
    t.resize(Size::new(4, 80));
    assert_eq!(at(&t), (2, 35));
    t.feed(format!("\r\x1b[K\r\x1b[A\x1b[K\r{typed}").as_bytes());
    assert_eq!(
        texts(&t.screen_rows())[..3],
        [
            ("out".into(), false),
            (typed.clone(), false),
            ("".into(), false)
        ]
    );
}

#[test]
fn a_pending_wrap_on_the_cursor_line_becomes_the_next_column() {
    let mut t = term(3, 10, 100);
    t.feed(b"0123456789");
    assert!(t.pending_wrap());
    t.resize(Size::new(3, 20));
    assert_eq!((at(&t), t.pending_wrap()), ((0, 10), false));
    t.feed(b"X");
    assert_eq!(texts(&t.screen_rows())[0], ("0123456789X".into(), false));
}

#[test]
fn the_saved_cursor_moves_with_its_character() {
    let mut t = term(5, 10, 100);
    // DECSC on 'e' (offset 14), then the cursor elsewhere.
    t.feed(b"0123456789abcdef\x1b[2;5H\x1b7\x1b[5;1H");
    t.resize(Size::new(5, 20));
    t.feed(b"\x1b8");
    assert_eq!(under_cursor(&t), "e");
    assert_eq!(at(&t), (0, 14));
}

#[test]
fn hard_line_breaks_are_never_joined() {
    let mut t = term(4, 10, 100);
    // A row filled exactly, then CR LF: the line ends there, it does not wrap.
    t.feed(b"0123456789\r\nX\r\nabc");
    t.resize(Size::new(4, 20));
    assert_eq!(
        texts(&t.screen_rows())[..3],
        [
            ("0123456789".into(), false),
            ("X".into(), false),
            ("abc".into(), false)
        ]
    );
    // Narrowing wraps a line longer than the width; widening joins only those rows.
    t.resize(Size::new(4, 5));
    assert_eq!(
        texts(&all_rows(&mut t))[..2],
        [("01234".into(), true), ("56789".into(), false)]
    );
    t.resize(Size::new(4, 10));
    assert_eq!(
        texts(&all_rows(&mut t))[..3],
        [
            ("0123456789".into(), false),
            ("X".into(), false),
            ("abc".into(), false)
        ]
    );
}

#[test]
fn the_alternate_screen_is_cut_and_the_main_screen_behind_it_reflowed() {
    let mut t = term(4, 10, 100);
    t.feed(b"0123456789abcde\r\n$ ");
    // 1049: save the cursor, switch and clear; then 15 characters on the alternate screen.
    t.feed(b"\x1b[?1049h\x1b[HABCDEFGHIJKLMNO");
    t.resize(Size::new(4, 5));
    assert_eq!(
        texts(&t.screen_rows())[..2],
        [("ABCDE".into(), false), ("KLMNO".into(), false)]
    );
    t.feed(b"\x1b[?1049l");
    assert_eq!(
        texts(&t.screen_rows())[..3],
        [
            ("01234".into(), true),
            ("56789".into(), true),
            ("abcde".into(), false)
        ]
    );
    // The restored cursor is after the prompt, which moved down a row with the reflow.
    assert_eq!(at(&t), (3, 2));
    assert_eq!(texts(&t.screen_rows())[3], ("$".into(), false));
}

#[test]
fn with_history_the_cursor_keeps_its_screen_row() {
    let mut t = term(3, 10, 100);
    t.feed(b"a\r\nb\r\n0123456789abcde\r\n$ ");
    assert_eq!(t.scrollback_rows(), 2);
    assert_eq!(at(&t), (2, 2));
    t.resize(Size::new(3, 5));
    // The line gained a row: one more row went into history, the cursor stays on row 2.
    assert_eq!(t.scrollback_rows(), 3);
    assert_eq!(at(&t), (2, 2));
    assert_eq!(t.screen_top_row(), 3);
    t.resize(Size::new(3, 10));
    assert_eq!(t.scrollback_rows(), 2);
    assert_eq!(t.screen_top_row(), 2);
    assert_eq!(
        texts(&t.screen_rows()),
        [
            ("0123456789".into(), true),
            ("abcde".into(), false),
            ("$".into(), false)
        ]
    );
}

#[test]
fn the_history_bound_holds_and_row_numbers_count_what_it_dropped() {
    let mut t = term(2, 10, 3);
    t.feed(b"0123456789ABCDEFGHIJ\r\nx\r\n$ ");
    assert_eq!((t.scrollback_rows(), t.screen_top_row()), (2, 2));
    t.resize(Size::new(2, 4));
    // 20 characters are 5 rows at 4 columns: 5 rows above the screen, 3 kept.
    assert_eq!((t.scrollback_rows(), t.screen_top_row()), (3, 5));
    assert_eq!(
        texts(&t.screen_rows()),
        [("x".into(), false), ("$".into(), false)]
    );
}

#[test]
fn trailing_erased_cells_in_a_background_color_do_not_make_a_row() {
    let mut t = term(3, 20, 100);
    // EL with a blue background paints the rest of row 0.
    t.feed(b"ab\x1b[44m\x1b[K\x1b[0m\r\nc");
    t.resize(Size::new(3, 10));
    assert_eq!(
        texts(&t.screen_rows())[..2],
        [("ab".into(), false), ("c".into(), false)]
    );
    assert_eq!(t.cell(0, 9).map(|c| c.1.bg), Some(Color::Indexed(4)));
}

#[test]
fn command_log_rows_follow_their_lines() {
    let mut t = term(4, 10, 100);
    let (a, c) = ("\x1b]133;A\x07", "\x1b]133;C\x07");
    let d = "\x1b]133;D;0\x07";
    t.feed(format!("{a}$ \r\n{c}0123456789abcdefghij\r\nend\r\n{d}{a}$ ").as_bytes());
    let r = t.last_command().unwrap().clone();
    let out = t.command_output(&r, usize::MAX).text;
    assert_eq!(out, "0123456789abcdefghij\nend");
    for cols in [5, 30, 3, 10] {
        t.resize(Size::new(4, cols));
        let r = t.last_command().unwrap().clone();
        assert_eq!(t.command_output(&r, usize::MAX).text, out, "{cols} columns");
    }
}

#[test]
fn the_prompt_end_follows_its_line() {
    let mut t = term(5, 10, 100);
    // A wrapped line above the prompt: narrowing gives it a row more, so the prompt moves down.
    t.feed(b"0123456789abc\r\n\x1b]133;A\x07$ \x1b]133;B\x07");
    assert_eq!(t.command_line_typed(), Some(false));
    for cols in [5, 20, 10] {
        t.resize(Size::new(5, cols));
        assert_eq!(t.command_line_typed(), Some(false), "{cols} columns");
    }
    t.feed(b"x");
    assert_eq!(t.command_line_typed(), Some(true));
}

#[test]
fn a_snapshot_after_reflow_rebuilds_the_same_terminal() {
    let mut t = term(5, 12, 100);
    t.feed("\x1b[1;31mred and long text\x1b[0m 中文中文中 \x1b]8;;https://x.test/\x07link\x1b]8;;\x07\r\n".as_bytes());
    for i in 0..8 {
        t.feed(format!("line {i} {}\r\n", "y".repeat(i * 3)).as_bytes());
    }
    t.feed(b"$ ab\x1b7\x1b[1;1H\x1b8");
    for cols in [7, 19, 5] {
        t.resize(Size::new(5, cols));
        let snap = t.snapshot();
        let mut fresh = Terminal::new(t.size(), t.scrollback_capacity());
        fresh.feed(&snap);
        assert_eq!(fresh.snapshot(), snap, "{cols} columns");
        assert_eq!(texts(&all_rows(&mut fresh)), texts(&all_rows(&mut t)));
        let cursor: Cursor = fresh.cursor();
        assert_eq!(cursor, t.cursor());
    }
}

#[test]
fn a_height_change_alone_does_not_reflow() {
    let mut t = term(4, 10, 100);
    t.feed(b"0123456789abc");
    t.resize(Size::new(6, 10));
    assert_eq!(
        texts(&t.screen_rows())[..2],
        [("0123456789".into(), true), ("abc".into(), false)]
    );
    assert_eq!(at(&t), (1, 3));
}

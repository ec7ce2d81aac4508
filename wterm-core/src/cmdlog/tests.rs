//! The command log, each case with the smallest output that shows it. `A`..`D` below are the
//! marks as the shells send them (BEL-terminated).

use crate::limits::{MAX_COMMANDS, MAX_COMMAND_BYTES};
use crate::{CommandRecord, ShellState, Size, Terminal};

const A: &str = "\x1b]133;A\x07";
const B: &str = "\x1b]133;B\x07";
const C: &str = "\x1b]133;C\x07";

fn term(rows: u16, cols: u16, scrollback: usize) -> Terminal {
    Terminal::new(Size::new(rows, cols), scrollback)
}

fn feed(t: &mut Terminal, s: &str) {
    t.feed(s.as_bytes());
}

fn d(code: i32) -> String {
    format!("\x1b]133;D;{code}\x07")
}

/// VS Code's command line: `OSC 633 ; E ; text ; nonce`.
fn e(text: &str) -> String {
    format!("\x1b]633;E;{text};n0nce\x07")
}

fn output(t: &Terminal, r: &CommandRecord) -> String {
    t.command_output(r, usize::MAX).text
}

#[test]
fn a_command_records_text_exit_cwd_times_and_output() {
    let mut t = term(5, 20, 100);
    t.set_now_ms(1000);
    feed(
        &mut t,
        &format!("\x1b]7;file://h/tmp\x07{A}$ {B}ls\r\n{}{C}", e("ls")),
    );
    assert_eq!(t.shell_state(), Some(ShellState::Running));
    let r = t.running_command().unwrap().clone();
    assert_eq!(
        (r.id, r.command.as_deref(), r.cwd.as_deref(), r.start_ms),
        (0, Some("ls"), Some("/tmp"), 1000)
    );
    feed(&mut t, "a\r\nb");
    assert_eq!(
        output(&t, &r),
        "a\nb",
        "a running command's output reaches the cursor"
    );
    t.set_now_ms(1250);
    feed(&mut t, &format!("\r\n{}{A}$ ", d(0)));
    assert!(t.running_command().is_none());
    let r = t.last_command().unwrap();
    assert_eq!(
        (r.exit_code, r.end_ms, r.duration_ms()),
        (Some(0), Some(1250), Some(250))
    );
    assert_eq!((r.output_start_row, r.output_end_row), (1, Some(3)));
    assert_eq!(output(&t, r), "a\nb");
    assert_eq!(t.command(0), Some(r));
    assert_eq!(t.shell_state(), Some(ShellState::Prompt));
}

#[test]
fn output_without_a_final_newline_keeps_its_row() {
    let mut t = term(5, 20, 100);
    feed(&mut t, &format!("{C}no newline{}", d(0)));
    assert_eq!(output(&t, t.last_command().unwrap()), "no newline");
}

#[test]
fn command_text_from_kitty_and_ghostty_cmdline_keys() {
    let mut t = term(5, 20, 100);
    feed(
        &mut t,
        &format!("\x1b]133;C;cmdline_url=echo%20a%3Bb\x07{}", d(0)),
    );
    feed(&mut t, &format!("\x1b]133;C;cmdline=echo\\ hi\x07{}", d(0)));
    let texts: Vec<_> = t.commands().map(|r| r.command.clone()).collect();
    assert_eq!(
        texts,
        [Some("echo a;b".to_string()), Some("echo hi".to_string())]
    );
}

#[test]
fn vscode_633_marks_escapes_and_cwd() {
    let mut t = term(5, 30, 100);
    let out = concat!(
        "\x1b]633;P;Cwd=/a\\x3bb\x07\x1b]633;A\x07$ \x1b]633;B\x07",
        "\x1b]633;E;echo \\\\x3b\\x3b\\x0a;n\x07\x1b]633;C\x07x\r\n\x1b]633;D;1\x07"
    );
    feed(&mut t, out);
    let r = t.last_command().unwrap();
    assert_eq!(
        (r.command.as_deref(), r.exit_code, r.cwd.as_deref()),
        (Some("echo \\x3b;\n"), Some(1), Some("/a;b"))
    );
    assert_eq!(t.cwd(), Some("/a;b"));
}

#[test]
fn ctrl_c_ends_with_130() {
    let mut t = term(5, 20, 100);
    feed(
        &mut t,
        &format!("{}{C}y\r\ny\r\n^C\r\n{}{A}$ ", e("yes"), d(130)),
    );
    let r = t.last_command().unwrap();
    assert_eq!(
        (r.command.as_deref(), r.exit_code),
        (Some("yes"), Some(130))
    );
    assert_eq!(output(&t, r), "y\ny\n^C");
}

#[test]
fn a_full_screen_program_leaves_only_main_screen_output() {
    let mut t = term(5, 20, 100);
    feed(
        &mut t,
        &format!("{}{C}before\r\n\x1b[?1049h\x1b[Hvim text", e("vim")),
    );
    // While vim runs the output so far is the main screen's.
    assert_eq!(output(&t, t.running_command().unwrap()), "before");
    feed(&mut t, &format!("\x1b[?1049l{}", d(0)));
    let r = t.last_command().unwrap();
    assert_eq!(
        (output(&t, r).as_str(), r.exit_code, r.erased),
        ("before", Some(0), false)
    );
}

#[test]
fn a_nested_shell_closes_the_outer_command_unknown_and_its_exit_goes_to_exit() {
    let mut t = term(10, 20, 100);
    // Outer: `bash`; the inner shell's first prompt comes with no D for it.
    feed(
        &mut t,
        &format!(
            "{A}$ {B}{}{C}{A}$ {B}{}{C}{}{A}$ ",
            e("bash"),
            e("exit"),
            d(3)
        ),
    );
    let got: Vec<_> = t
        .commands()
        .map(|r| (r.command.clone().unwrap(), r.exit_code))
        .collect();
    assert_eq!(
        got,
        [("bash".to_string(), None), ("exit".to_string(), Some(3))]
    );
    // `exec bash`: same shape, one record with no exit code.
    feed(&mut t, &format!("{}{C}{A}$ ", e("exec bash")));
    assert_eq!(t.last_command().unwrap().exit_code, None);
    assert!(t.running_command().is_none());
}

#[test]
fn d_without_c_and_empty_lines_make_no_record() {
    let mut t = term(5, 20, 100);
    // First prompt's D, then VS Code's bash on an empty line (E with no text, C, D).
    feed(
        &mut t,
        &format!("\x1b]133;D\x07{A}$ {B}\r\n{}{C}\x1b]133;D\x07{A}$ ", e("")),
    );
    assert_eq!(t.commands().len(), 0);
    assert!(t.running_command().is_none());
    // A second C while one runs is ignored (a DEBUG trap firing twice).
    feed(&mut t, &format!("{}{C}{C}{}", e("a"), d(0)));
    assert_eq!(t.commands().map(|r| r.id).collect::<Vec<_>>(), [1]);
}

#[test]
fn ris_keeps_the_log_and_the_open_command_ends_with_its_own_exit() {
    let mut t = term(5, 20, 100);
    feed(&mut t, &format!("{}{C}old\r\n{}", e("ls"), d(0)));
    feed(&mut t, &format!("{A}$ {B}{}{C}x\x1bc", e("reset")));
    assert_eq!(
        t.shell_integration(),
        None,
        "RIS resets the state, as before"
    );
    assert_eq!(t.commands().len(), 1, "the log is kept");
    let ls = t.last_command().unwrap();
    assert!(ls.erased, "its rows were on the screen RIS cleared");
    assert_eq!(output(&t, ls), "", "and are not read as what comes after");
    feed(&mut t, &format!("{}{A}$ ", d(0)));
    let r = t.last_command().unwrap();
    assert_eq!(
        (r.command.as_deref(), r.exit_code, r.erased),
        (Some("reset"), Some(0), true)
    );
    assert_eq!(output(&t, r), "");
}

#[test]
fn clear_marks_earlier_output_erased_and_history_survives() {
    let mut t = term(3, 20, 100);
    feed(&mut t, &format!("{C}1\r\n2\r\n3\r\n4\r\n{}", d(0)));
    feed(&mut t, &format!("{}{C}\x1b[H\x1b[2J{}", e("clear"), d(0)));
    feed(&mut t, "later\r\nlater");
    let first = t.commands().next().unwrap();
    assert_eq!((first.erased, first.output_end_row), (true, Some(2)));
    // Rows 0 and 1 had scrolled into history before the clear; later output is not its.
    assert_eq!(output(&t, first), "1\n2");
    let clear = t.last_command().unwrap();
    assert_eq!((output(&t, clear).as_str(), clear.erased), ("", true));
}

#[test]
fn output_is_read_back_from_history_and_says_what_fell_out() {
    let mut t = term(3, 10, 5);
    feed(&mut t, C);
    for i in 0..20 {
        feed(&mut t, &format!("line {i}\r\n"));
    }
    feed(&mut t, &d(0));
    let r = t.last_command().unwrap().clone();
    assert_eq!((r.output_start_row, r.output_end_row), (0, Some(20)));
    let o = t.command_output(&r, usize::MAX);
    // 5 rows of history and the 2 output rows left on the 3-row screen.
    assert_eq!((o.rows, o.rows_lost), (20, 13));
    assert_eq!(
        o.text,
        (13..20)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // ED 3 drops history: its rows count as lost.
    feed(&mut t, "\x1b[3J");
    assert_eq!(t.command_output(&r, usize::MAX).rows_lost, 18);
    // Scrolled past the 5 rows of history: all lost, no text (found by the no-panic test).
    feed(&mut t, &"\r\n".repeat(8));
    let o = t.command_output(&r, usize::MAX);
    assert_eq!((o.text.as_str(), o.rows_lost), ("", 20));
}

#[test]
fn max_rows_keeps_head_and_tail() {
    let mut t = term(3, 10, 100);
    feed(&mut t, C);
    for i in 0..10 {
        feed(&mut t, &format!("{i}\r\n"));
    }
    feed(&mut t, &d(0));
    let o = t.command_output(t.last_command().unwrap(), 5);
    assert_eq!(
        (o.text.as_str(), o.tail.as_str(), o.rows_left_out),
        ("0\n1\n2", "8\n9", 5)
    );
}

#[test]
fn soft_wrapped_rows_join() {
    let mut t = term(4, 5, 100);
    feed(&mut t, &format!("{C}abcdefg\r\nh\r\n{}", d(0)));
    assert_eq!(output(&t, t.last_command().unwrap()), "abcdefg\nh");
}

#[test]
fn resize_keeps_row_numbers() {
    let mut t = term(6, 20, 100);
    feed(&mut t, &format!("{C}a\r\nb\r\nc\r\n{}{A}$ ", d(0)));
    let r = t.last_command().unwrap().clone();
    // Shrinking pushes the top rows into history; growing adds rows below; columns cut.
    t.resize(Size::new(2, 20));
    assert_eq!(t.screen_top_row(), 2);
    assert_eq!(output(&t, &r), "a\nb\nc");
    t.resize(Size::new(8, 3));
    assert_eq!(output(&t, &r), "a\nb\nc");
    feed(&mut t, &format!("\r\n{C}d\r\n{}", d(0)));
    assert_eq!(output(&t, t.last_command().unwrap()), "d");
    assert_eq!(output(&t, &r), "a\nb\nc");
}

#[test]
fn the_log_is_bounded_and_ids_keep_counting() {
    let mut t = term(3, 10, 10);
    for _ in 0..MAX_COMMANDS + 10 {
        feed(&mut t, &format!("{C}{}", d(0)));
    }
    assert_eq!(t.commands().len(), MAX_COMMANDS);
    assert_eq!(t.commands().next().unwrap().id, 10);
    assert!(t.command(9).is_none() && t.command(10).is_some());
}

#[test]
fn command_text_is_cut_at_a_character_boundary() {
    let mut t = term(3, 10, 10);
    feed(
        &mut t,
        &format!("{}{C}{}", e(&"é".repeat(MAX_COMMAND_BYTES)), d(0)),
    );
    let text = t.last_command().unwrap().command.clone().unwrap();
    assert_eq!(text.len(), MAX_COMMAND_BYTES);
}

/// The relay's terminal and a page rebuilt from its snapshot (as on reattach).
fn rebuilt(t: &mut Terminal, scrollback: usize) -> Terminal {
    let mut page = Terminal::new(t.size(), scrollback);
    page.feed(&t.snapshot());
    page
}

fn assert_same_log(relay: &Terminal, page: &Terminal) {
    assert_eq!(
        page.commands().collect::<Vec<_>>(),
        relay.commands().collect::<Vec<_>>()
    );
    assert_eq!(page.running_command(), relay.running_command());
    assert_eq!(page.shell_integration(), relay.shell_integration());
    assert_eq!(page.screen_top_row(), relay.screen_top_row());
    for r in relay.commands().chain(relay.running_command()) {
        assert_eq!(
            page.command_output(r, usize::MAX),
            relay.command_output(r, usize::MAX),
            "{r:?}"
        );
    }
}

#[test]
fn a_snapshot_carries_the_log_so_a_reattached_page_agrees() {
    let mut relay = term(4, 20, 5);
    relay.set_now_ms(7);
    feed(
        &mut relay,
        &format!("\x1b]7;file://h/home/a%3Bb\x07{A}$ {B}{}{C}", e("seq 9")),
    );
    for i in 1..=9 {
        feed(&mut relay, &format!("{i}\r\n"));
    }
    relay.set_now_ms(9);
    feed(
        &mut relay,
        &format!("{}{A}$ {B}{}{C}run", d(1), e("sleep 9; é")),
    );
    let mut page = rebuilt(&mut relay, 5);
    assert_same_log(&relay, &page);
    assert_eq!(
        page.last_command().unwrap().cwd.as_deref(),
        Some("/home/a;b")
    );
    // Both go on the same way after the reattach.
    for t in [&mut relay, &mut page] {
        t.set_now_ms(20);
        feed(t, &format!("ning\r\n{}{A}$ ", d(130)));
    }
    assert_same_log(&relay, &page);
    assert_eq!(page.last_command().unwrap().duration_ms(), Some(11));
    // A second generation, and after ED 3, RIS and a pending command line.
    feed(&mut relay, &format!("\x1b[3J\x1bc{}", e("next")));
    let mut page = rebuilt(&mut rebuilt(&mut relay, 5), 5);
    assert_same_log(&relay, &page);
    assert_eq!(
        page.snapshot(),
        relay.snapshot(),
        "a snapshot of the copy is the same snapshot"
    );
}

#[test]
fn a_page_resynced_in_band_drops_its_old_log() {
    // The relay resyncs a page with RIS and ED 3 before the snapshot (no `Terminal::reset`);
    // RIS keeps the log and row count, so the snapshot must replace them even when empty.
    let mut relay = term(3, 10, 10);
    let mut page = term(3, 10, 10);
    feed(&mut page, &format!("{C}1\r\n2\r\n3\r\n4\r\n{}{C}", d(0)));
    feed(&mut page, "\x1bc\x1b[3J");
    page.feed(&relay.snapshot());
    assert_same_log(&relay, &page);
    assert_eq!((page.commands().len(), page.screen_top_row()), (0, 0));
}

/// Whether the command line holds text: the cursor against where the prompt ended (`B`).
#[test]
fn command_line_typed_follows_the_cursor_from_the_prompt_end() {
    let mut t = term(5, 40, 10);
    assert_eq!(t.command_line_typed(), None, "no prompt reported yet");
    feed(&mut t, &format!("{A}$ {B}"));
    assert_eq!(t.command_line_typed(), Some(false));
    feed(&mut t, "echo hi");
    assert_eq!(t.command_line_typed(), Some(true));
    // Erased again (readline's backspaces): empty.
    feed(&mut t, &"\x08 \x08".repeat(7));
    assert_eq!(t.command_line_typed(), Some(false));
    feed(&mut t, &format!("true\r\n{C}{}{A}$ {B}", d(0)));
    assert_eq!(t.command_line_typed(), Some(false), "a new prompt");
    feed(&mut t, &format!("sleep 9\r\n{C}"));
    assert_eq!(t.command_line_typed(), None, "a command runs");
}

fn agent(name: &str) -> crate::Author {
    crate::Author::new(crate::AuthorKind::McpClient, name)
}

#[test]
fn the_newest_note_before_a_command_start_is_its_author() {
    let mut t = term(5, 40, 10);
    feed(&mut t, &format!("{A}$ {B}"));
    t.note_submit(crate::Author::person());
    t.note_submit(agent("claude-code"));
    feed(&mut t, &format!("ls\r\n{C}"));
    assert_eq!(
        t.running_command().unwrap().submitted_by,
        Some(agent("claude-code"))
    );
    // Taken: the next command, started with no note (a script's marks), has no author.
    feed(&mut t, &format!("{}{A}$ {B}{C}", d(0)));
    assert_eq!(t.running_command().unwrap().submitted_by, None);
    // A line typed ahead while a command runs belongs to the command it starts.
    t.note_submit(crate::Author::person());
    feed(&mut t, &format!("{}{A}$ {B}{C}", d(0)));
    assert_eq!(
        t.running_command().unwrap().submitted_by,
        Some(crate::Author::person())
    );
}

#[test]
fn an_in_band_note_keeps_its_place_among_the_marks() {
    // The relay writes the note into the stream when the line goes to the program: a `C` of
    // output written before it (still unread by a slow reader) does not take it.
    let mut t = term(5, 40, 10);
    let note = String::from_utf8(agent("x").note_sequence()).unwrap();
    t.note_submit(crate::Author::person());
    feed(&mut t, &format!("{A}$ {B}{C}{note}{}{A}$ {B}{C}", d(0)));
    assert_eq!(
        t.last_command().unwrap().submitted_by,
        Some(crate::Author::person())
    );
    assert_eq!(t.running_command().unwrap().submitted_by, Some(agent("x")));
}

#[test]
fn authors_and_a_pending_note_survive_a_snapshot() {
    let mut relay = term(4, 30, 10);
    relay.note_submit(crate::Author::new(
        crate::AuthorKind::PageAgent,
        "type_in_terminal",
    ));
    feed(&mut relay, &format!("{A}$ {B}{C}{}{A}$ {B}{C}", d(0)));
    relay.note_submit(crate::Author::new(crate::AuthorKind::RouteCaller, "ci"));
    let page = rebuilt(&mut relay, 10);
    assert_same_log(&relay, &page);
    let mut page = page;
    feed(&mut page, &format!("{}{A}$ {B}{C}", d(0)));
    assert_eq!(
        page.running_command().unwrap().submitted_by,
        Some(crate::Author::new(crate::AuthorKind::RouteCaller, "ci")),
        "the note pending at the snapshot goes to the next command"
    );
    let kinds: Vec<_> = page
        .commands()
        .map(|r| r.submitted_by.as_ref().map(|a| a.kind.as_str()))
        .collect();
    assert_eq!(kinds, [Some("page_agent"), None]);
}

#[test]
fn a_malformed_note_is_ignored_and_names_are_cleaned() {
    let mut t = term(5, 40, 10);
    for bad in [
        "\x1b]7711;s;robot;eA==\x07",
        "\x1b]7711;s;person;!!\x07",
        "\x1b]7711;s\x07",
    ] {
        feed(&mut t, bad);
    }
    feed(&mut t, C);
    assert_eq!(
        t.running_command().unwrap().submitted_by,
        None,
        "none taken"
    );
    let a = crate::Author::new(
        crate::AuthorKind::McpClient,
        &format!("a\x1b[31mb{}", "é".repeat(40)),
    );
    assert!(a.name.starts_with("a[31mb"), "{}", a.name);
    assert!(a.name.len() <= crate::limits::MAX_AUTHOR_NAME_BYTES);
    assert_eq!(crate::Author::new(crate::AuthorKind::Person, "x").name, "");
}

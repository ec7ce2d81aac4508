//! The agent model, each case with the smallest output that shows it.

use super::*;
use crate::Size;

const A: &str = "\x1b]133;A\x07";
const B: &str = "\x1b]133;B\x07";
const C: &str = "\x1b]133;C\x07";

fn term(rows: u16, cols: u16) -> Terminal {
    Terminal::new(Size::new(rows, cols), 100)
}

fn feed(t: &mut Terminal, s: &str) {
    t.feed(s.as_bytes());
}

fn d(code: i32) -> String {
    format!("\x1b]133;D;{code}\x07")
}

/// Regression (MCP `send_input` + `wait_for_text: ">>>"` + `new_output` answered at once in a
/// Python REPL, on the old prompt): the prompt left of the cursor never counts.
#[test]
fn a_repl_prompt_left_of_the_cursor_is_not_new_output() {
    let mut t = term(5, 40);
    feed(&mut t, "Python 3\r\n>>> ");
    let from = NewOutput::at_cursor(&t);
    assert_eq!(from.before, ">>> ");
    assert!(!from.contains(&t, 0, ">>>"));
    feed(&mut t, "print(6*7)\r\n");
    assert!(!from.contains(&t, 0, ">>>"), "{:?}", from.rows(&t, 0));
    feed(&mut t, "42\r\n>>> ");
    assert!(from.contains(&t, 0, "42"));
    assert!(from.contains(&t, 0, ">>>"));
}

#[test]
fn text_written_later_on_the_start_row_counts() {
    let mut t = term(5, 40);
    feed(&mut t, "$ ");
    let from = NewOutput::at_cursor(&t);
    feed(&mut t, "done");
    assert!(from.contains(&t, 0, "done"));
    assert!(!from.contains(&t, 0, "$"));
    // The row rewritten from its start (CR, then other text) counts whole.
    feed(&mut t, "\r$$ again");
    assert!(from.contains(&t, 0, "$$ again"));
}

#[test]
fn a_wide_prompt_is_cut_by_cells() {
    let mut t = term(3, 20);
    feed(&mut t, "世界> ");
    let from = NewOutput::at_cursor(&t);
    assert_eq!(from.before, "世界> ");
    feed(&mut t, "x");
    assert_eq!(from.text(&t, 0), "x");
}

#[test]
fn a_pending_wrap_keeps_the_last_column_in_the_text_before() {
    let mut t = term(3, 4);
    feed(&mut t, "abcd");
    assert_eq!(NewOutput::at_cursor(&t).before, "abcd");
}

#[test]
fn rows_above_the_start_never_count_and_the_start_is_found_after_scrolling() {
    let mut t = term(3, 20);
    feed(&mut t, "old\r\n$ ");
    let from = NewOutput::at_cursor(&t);
    feed(&mut t, "\r\nnew\r\n1\r\n2\r\n3\r\n");
    let text = from.text(&t, 0);
    assert!(text.contains("new"), "{text:?}");
    assert!(!text.contains("old"), "{text:?}");
    // A floor below the start row reads from the floor.
    let floor = t.screen_top_row();
    assert!(!from.text(&t, floor).contains("new"));
}

#[test]
fn below_the_cursor_leaves_the_echoed_line_out() {
    let mut t = term(5, 40);
    feed(&mut t, "$ echo hi");
    let from = NewOutput::below_cursor(&t);
    feed(&mut t, "\r\nhi\r\n$ ");
    assert_eq!(from.text(&t, 0), "hi\n$");
}

#[test]
fn in_a_command_only_its_output_counts() {
    let mut t = term(6, 40);
    feed(&mut t, &format!("{A}$ {B}"));
    let w = CommandWait::next(&t);
    let from = NewOutput::at_cursor(&t).in_command(Some(w));
    feed(&mut t, "echo X");
    assert!(!from.contains(&t, 0, "X"), "the echoed line never counts");
    feed(&mut t, &format!("\r\n{C}X\r\n{}{A}$ {B}", d(0)));
    assert_eq!(from.text(&t, 0), "X");
    assert!(w.finished(&t));
    assert_eq!(w.find(&t).map(|r| r.exit_code), Some(Some(0)));
}

#[test]
fn an_alternate_screen_entered_later_counts_whole() {
    let mut t = term(4, 20);
    feed(&mut t, "$ ");
    let from = NewOutput::at_cursor(&t);
    feed(&mut t, "\x1b[?1049h\x1b[Htop line\r\nmore");
    assert_eq!(from.text(&t, 0), "top line\nmore");
    // Taken on the alternate screen: from the cursor there, the text left of it excluded.
    let from = NewOutput::at_cursor(&t);
    feed(&mut t, "!\r\nnext");
    assert_eq!(from.text(&t, 0), "!\nnext");
}

#[test]
fn command_waits_find_their_record() {
    let mut t = term(6, 40);
    assert_eq!(next_command_id(&t), 0);
    assert!(!integration_known(&t));
    let first = CommandWait::next(&t);
    assert_eq!(first, CommandWait::After(None));
    assert_eq!(CommandWait::from_id(0), first);
    feed(&mut t, &format!("{A}$ {B}"));
    assert!(integration_known(&t));
    assert!(!first.finished(&t), "no record yet");
    feed(&mut t, &format!("true\r\n{C}"));
    let running = t.running_command().unwrap().id;
    assert_eq!(newest_command_id(&t), Some(running));
    assert!(!CommandWait::Id(running).finished(&t));
    feed(&mut t, &format!("{}{A}$ {B}", d(3)));
    assert!(first.finished(&t));
    assert!(CommandWait::Id(running).finished(&t));
    assert_eq!(next_command_id(&t), running + 1);
    assert!(CommandWait::from_id(running + 1).find(&t).is_none());
    // A record the log no longer has ends an `Id` wait.
    assert!(CommandWait::Id(999).finished(&t));
}

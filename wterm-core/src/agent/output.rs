//! How much of a command's output one agent answer carries, the same on both surfaces: at most
//! [`MAX_COMMAND_OUTPUT_ROWS`] rows and [`MAX_COMMAND_OUTPUT_BYTES`] bytes, the head and the
//! tail kept and the rows between counted (`rows_left_out`), so the end of a long output (the
//! error, the summary line) is never what is cut.

use crate::{CommandOutput, CommandRecord, Terminal};

/// Most rows of a command's output one answer carries (a `waitForCommand` / `wait_for_command`
/// answer, `run_command`): the first half in `text`, the last half in `tail`, the rows between
/// counted as left out. The rest stays readable from the history.
pub const MAX_COMMAND_OUTPUT_ROWS: usize = 400;

/// Most UTF-8 bytes of a command's output one answer carries (so at most this many
/// characters), head and tail together: 20000 bytes is about 5000 model tokens, well under
/// what MCP clients take in one answer. Rows cut to stay under it are counted as left out; a
/// single row longer than its half keeps its start (head) or end (tail), cut at a character
/// boundary.
pub const MAX_COMMAND_OUTPUT_BYTES: usize = 20_000;

/// `record`'s output in `t`, bounded by [`MAX_COMMAND_OUTPUT_ROWS`] and
/// [`MAX_COMMAND_OUTPUT_BYTES`]; `rows_left_out` counts every row not answered, whichever bound
/// left it out.
pub fn command_output(t: &Terminal, record: &CommandRecord) -> CommandOutput {
    bound(
        t.command_output(record, MAX_COMMAND_OUTPUT_ROWS),
        MAX_COMMAND_OUTPUT_BYTES,
    )
}

/// `out` cut to `max` bytes in all: all of `text` when there is no tail, else half each.
fn bound(out: CommandOutput, max: usize) -> CommandOutput {
    let half = max / 2;
    let head_max = if out.tail.is_empty() { max } else { half };
    let (text, cut_head) = keep_head(&out.text, head_max);
    let (tail, cut_tail) = keep_tail(&out.tail, half);
    CommandOutput {
        text,
        tail,
        rows_left_out: out.rows_left_out + cut_head + cut_tail,
        ..out
    }
}

/// The first rows of `text` within `max` bytes, and how many rows were cut; a first row longer
/// than `max` keeps its start (cut at a character boundary, and counted as cut), so one huge
/// line is not answered as nothing. Byte searches, no row list: this is in the page's wasm.
fn keep_head(text: &str, max: usize) -> (String, u64) {
    if text.len() <= max {
        return (text.to_owned(), 0);
    }
    let rows = |s: &str| s.bytes().filter(|b| *b == b'\n').count() as u64;
    match text.as_bytes()[..=max].iter().rposition(|b| *b == b'\n') {
        Some(i) => (text[..i].to_owned(), rows(&text[i..])),
        None => {
            let mut end = max;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            (text[..end].to_owned(), rows(text) + 1)
        }
    }
}

/// The last rows of `text` within `max` bytes, and how many rows were cut; a last row longer
/// than `max` keeps its end.
fn keep_tail(text: &str, max: usize) -> (String, u64) {
    if text.len() <= max {
        return (text.to_owned(), 0);
    }
    let from = text.len() - max - 1;
    let rows = |s: &str| s.bytes().filter(|b| *b == b'\n').count() as u64;
    match text.as_bytes()[from..].iter().position(|b| *b == b'\n') {
        Some(i) => (text[from + i + 1..].to_owned(), rows(&text[..=from + i])),
        None => {
            let mut start = from + 1;
            while !text.is_char_boundary(start) {
                start += 1;
            }
            (text[start..].to_owned(), rows(text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_huge_row_keeps_its_ends() {
        let row = "é".repeat(50_000);
        let (head, cut) = keep_head(&row, 1001);
        assert_eq!((head.len(), cut), (1000, 1));
        let (tail, cut) = keep_tail(&row, 1001);
        assert_eq!((tail.len(), cut), (1000, 0));
        let rows = format!("a\n{row}\nb");
        assert_eq!(keep_head(&rows, 10), ("a".to_owned(), 2));
        assert_eq!(keep_tail(&rows, 10), ("b".to_owned(), 2));
        assert_eq!(keep_head("x\ny", 10), ("x\ny".to_owned(), 0));
    }

    #[test]
    fn head_and_tail_keep_whole_rows_within_the_bound_and_count_the_rest() {
        let rows: Vec<String> = (0..40).map(|i| "ab€".repeat(i % 7)).collect();
        let text = rows.join("\n");
        for max in 1..text.len() + 2 {
            let (head, cut) = keep_head(&text, max);
            let (tail, cut_tail) = keep_tail(&text, max);
            assert!(head.len() <= max && tail.len() <= max, "{max}");
            assert!(text.starts_with(&head) && text.ends_with(&tail), "{max}");
            let whole = |kept: &str| kept.split('\n').count() as u64;
            // Whole rows kept, or one row's part counted as cut.
            assert!(
                whole(&head) + cut == 40 || cut == 40,
                "{max}: {head:?} {cut}"
            );
            assert!(
                whole(&tail) + cut_tail == 40 || cut_tail == 39,
                "{max}: {tail:?} {cut_tail}"
            );
        }
    }

    #[test]
    fn both_bounds_count_what_they_leave_out() {
        // 5000 rows of 9 bytes: the row bound keeps 200 + 200, the byte bound keeps those
        // (3600 bytes a half); every other row is counted.
        let mut t = Terminal::new(crate::Size::new(24, 80), 10_000);
        t.feed(b"\x1b]133;A\x07$ \x1b]133;B\x07seq\r\n\x1b]133;C\x07");
        for i in 0..5000 {
            t.feed(format!("row-{i:04}\r\n").as_bytes());
        }
        t.feed(b"\x1b]133;D;0\x07");
        let r = t.last_command().expect("a finished command").clone();
        let out = command_output(&t, &r);
        assert_eq!(out.rows, 5000);
        let head = out.text.split('\n').count() as u64;
        let tail = out.tail.split('\n').count() as u64;
        assert_eq!((head, tail), (200, 200));
        assert_eq!(head + tail + out.rows_left_out, 5000);
        assert!(out.tail.ends_with("row-4999"));
        // Wide rows: the byte bound cuts further, and still counts every row.
        let wide = bound(
            CommandOutput {
                text: vec!["x".repeat(99); 200].join("\n"),
                tail: vec!["y".repeat(99); 200].join("\n"),
                rows_left_out: 600,
                rows: 1000,
                ..CommandOutput::default()
            },
            MAX_COMMAND_OUTPUT_BYTES,
        );
        let kept = wide.text.split('\n').count() + wide.tail.split('\n').count();
        assert!(wide.text.len() + wide.tail.len() <= MAX_COMMAND_OUTPUT_BYTES);
        assert_eq!(kept as u64 + wide.rows_left_out, 1000);
    }
}

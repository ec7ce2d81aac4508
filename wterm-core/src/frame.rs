//! [`Frame`]: one read of a terminal for an off-page reader (the relay's `/mcp/read`), with the
//! screen hashes, style runs and row deltas that contract defines.

use blake2::digest::consts::U16;
use blake2::{Blake2b, Digest};

use crate::terminal::{join_rows, Color, Style, Terminal, TextRow};

/// BLAKE2b with a 16-byte digest (broker contract: `content_hash`, `stable_hash`).
type Blake2b128 = Blake2b<U16>;

/// A screen hash: BLAKE2b-128 of text as UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScreenHash(pub [u8; 16]);

impl ScreenHash {
    /// The hash of `text` as UTF-8.
    pub fn of(text: &str) -> Self {
        let mut h = Blake2b128::new();
        h.update(text.as_bytes());
        ScreenHash(h.finalize().into())
    }

    /// 32 lowercase hex digits.
    pub fn to_hex(self) -> String {
        let mut s = String::with_capacity(32);
        for b in self.0 {
            s.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
            s.push(char::from_digit(u32::from(b & 0xf), 16).unwrap_or('0'));
        }
        s
    }

    /// Parses 32 hex digits (either case); `None` for anything else.
    pub fn from_hex(s: &str) -> Option<Self> {
        if s.len() != 32 || !s.is_ascii() {
            return None;
        }
        let mut out = [0u8; 16];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(ScreenHash(out))
    }
}

/// Which rows a [`Frame`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The visible screen only.
    Screen,
    /// Up to this many history rows, oldest first, then the visible screen. On the alternate
    /// screen there is no history and this reads as [`View::Screen`].
    Scrollback(usize),
}

/// A run of cells in a non-default style, for `attrs: true` reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrRun {
    /// 0-based row index within the frame's rows.
    pub row: usize,
    /// 0-based first column.
    pub col: u16,
    /// Length in columns.
    pub len: u16,
    /// The run's style.
    pub style: Style,
}

/// One read of a terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The rows read: history rows (if any) then every visible screen row, trailing spaces
    /// trimmed (a soft-wrapped row keeps its full width).
    pub rows: Vec<TextRow>,
    /// How many of `rows` come from history.
    pub history_lines: usize,
    /// The cursor: index into `rows` and column; `None` when the program hid it.
    pub cursor: Option<(usize, u16)>,
    /// `rows` joined with `\n`, trailing spaces of each row trimmed.
    pub text: String,
    /// [`ScreenHash`] of `text`.
    pub content_hash: ScreenHash,
    /// [`ScreenHash`] of `text` with the cursor's cell replaced by NUL (a hidden cursor leaves
    /// the text as is), so output that only redraws the cell under the cursor keeps it equal.
    pub stable_hash: ScreenHash,
}

impl Frame {
    /// `self` with its rows replaced (same count, as redaction leaves them): `text` and
    /// `content_hash` from `rows`; `stable_hash` from `rows` with the cursor's row replaced by
    /// `cursor_row` (its index, and the row with the cursor's cell as NUL).
    pub(crate) fn with_rows(
        &self,
        rows: Vec<TextRow>,
        cursor_row: Option<(usize, TextRow)>,
    ) -> Frame {
        Frame::build(rows, self.history_lines, self.cursor, cursor_row)
    }

    /// A frame of `rows`: `text` and `content_hash` from them; `stable_hash` from them with
    /// row `cursor_row.0` replaced by `cursor_row.1` (the cursor's cell as NUL).
    fn build(
        rows: Vec<TextRow>,
        history_lines: usize,
        cursor: Option<(usize, u16)>,
        cursor_row: Option<(usize, TextRow)>,
    ) -> Frame {
        let text = join_rows(&rows);
        let stable_hash = match cursor_row {
            Some((r, row)) if r < rows.len() => {
                let mut marked = rows.clone();
                marked[r] = row;
                ScreenHash::of(&join_rows(&marked))
            }
            _ => ScreenHash::of(&text),
        };
        Frame {
            content_hash: ScreenHash::of(&text),
            stable_hash,
            rows,
            history_lines,
            cursor,
            text,
        }
    }

    /// The rows of `self` that differ from `prev` (same row count required, else `None`), as
    /// (row index, text).
    pub fn changed_rows(&self, prev: &Frame) -> Option<Vec<(usize, String)>> {
        if prev.rows.len() != self.rows.len() {
            return None;
        }
        Some(
            self.rows
                .iter()
                .zip(&prev.rows)
                .enumerate()
                .filter(|(_, (a, b))| a.text != b.text)
                .map(|(i, (a, _))| (i, a.text.trim_end_matches(' ').to_string()))
                .collect(),
        )
    }
}

impl Terminal {
    /// Reads a [`Frame`] of `view`.
    pub fn frame(&mut self, view: View) -> Frame {
        let history = match view {
            View::Scrollback(n) if !self.modes().alternate_screen => self.history_rows(n),
            _ => Vec::new(),
        };
        let history_lines = history.len();
        let mut rows = history;
        rows.extend(self.screen_rows());
        let cur = self.cursor();
        let cursor = cur
            .visible
            .then_some((history_lines + usize::from(cur.row), cur.col));
        let cursor_row = cursor.map(|(r, _)| (r, self.cursor_row_with_nul()));
        Frame::build(rows, history_lines, cursor, cursor_row)
    }

    /// Runs of non-default style in the rows of a frame read with `history_lines` history rows
    /// ([`Frame::history_lines`]: the newest that many rows of the scrollback, oldest first,
    /// then the visible screen), row by row, at most `max` runs; the second value says whether
    /// runs were left out. [`AttrRun::row`] indexes the frame's rows.
    pub fn attr_runs(&mut self, history_lines: usize, max: usize) -> (Vec<AttrRun>, bool) {
        let mut out = Vec::new();
        let mut runs = Vec::new();
        let history = history_lines.min(self.scrollback_rows());
        // History row i of the frame is the top row of the view moved up by `history - i`.
        let history_rows = (0..history).map(|i| (history_lines - history + i, history - i, 0));
        let screen_rows = (0..self.size().rows).map(|r| (history_lines + usize::from(r), 0, r));
        for (row, view_offset, r) in history_rows.chain(screen_rows) {
            self.row_runs(view_offset, r, &mut runs);
            let mut col = 0u16;
            for run in &runs {
                if run.style != Style::default() && !is_blank_default_bg(run) {
                    if out.len() == max {
                        return (out, true);
                    }
                    out.push(AttrRun {
                        row,
                        col,
                        len: run.cols,
                        style: run.style,
                    });
                }
                col += run.cols;
            }
        }
        (out, false)
    }
}

/// Spaces in a style that shows nothing (only fg or text attributes set, default background, no
/// reverse) are not worth reporting.
fn is_blank_default_bg(run: &crate::StyledRun) -> bool {
    run.style.bg == Color::Default
        && !run.style.inverse
        && !run.style.underline
        && run.text.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Size;

    #[test]
    fn hashes_are_blake2b_128_hex() {
        // BLAKE2b-128 of the empty string (RFC 7693 parameters, 16-byte digest).
        assert_eq!(
            ScreenHash::of("").to_hex(),
            "cae66941d9efbd404e4d88758ea67670"
        );
        let h = ScreenHash::of("abc");
        assert_eq!(ScreenHash::from_hex(&h.to_hex()), Some(h));
        assert_eq!(ScreenHash::from_hex("zz"), None);
    }

    #[test]
    fn stable_hash_ignores_the_cell_under_the_cursor() {
        let mut t = Terminal::new(Size::new(3, 10), 10);
        t.feed(b"$ abc\x1b[1;3H");
        let a = t.frame(View::Screen);
        t.feed(b"X\x1b[1;3H");
        let b = t.frame(View::Screen);
        assert_ne!(a.content_hash, b.content_hash);
        assert_eq!(a.stable_hash, b.stable_hash);
        t.feed(b"\x1b[2;1Hz");
        assert_ne!(t.frame(View::Screen).stable_hash, b.stable_hash);
    }

    #[test]
    fn stable_hash_marks_the_cell_after_wide_clusters() {
        // The cursor after a ZWJ sequence (two columns, three characters of width 2 + 0 + 2):
        // the marked cell is the one under the cursor, not one found by adding up char widths.
        let mut t = Terminal::new(Size::new(2, 10), 10);
        t.feed("\u{1f469}\u{200d}\u{1f4bb}ab\x1b[1;3H".as_bytes());
        let a = t.frame(View::Screen);
        t.feed(b"X\x1b[1;3H");
        let b = t.frame(View::Screen);
        assert_ne!(a.content_hash, b.content_hash);
        assert_eq!(a.stable_hash, b.stable_hash);
        assert_eq!(
            a.stable_hash,
            ScreenHash::of("\u{1f469}\u{200d}\u{1f4bb}\0b\n")
        );
    }

    #[test]
    fn frame_with_history_and_deltas() {
        let mut t = Terminal::new(Size::new(2, 10), 10);
        t.feed(b"a\r\nb\r\nc");
        let f = t.frame(View::Scrollback(5));
        assert_eq!(f.history_lines, 1);
        assert_eq!(f.text, "a\nb\nc");
        assert_eq!(f.cursor, Some((2, 1)));
        t.feed(b"d");
        let g = t.frame(View::Scrollback(5));
        assert_eq!(g.changed_rows(&f), Some(vec![(2, "cd".to_string())]));
        assert_eq!(t.frame(View::Screen).changed_rows(&f), None);
    }

    #[test]
    fn attr_runs_find_reverse_video() {
        let mut t = Terminal::new(Size::new(2, 20), 10);
        t.feed(b"ab\x1b[7mREV\x1b[0m cd \x1b[31m \x1b[0m");
        let (runs, cut) = t.attr_runs(0, 10);
        assert!(!cut);
        assert_eq!(runs.len(), 1, "{runs:?}");
        assert_eq!((runs[0].row, runs[0].col, runs[0].len), (0, 2, 3));
        assert!(runs[0].style.inverse);
        let (runs, cut) = t.attr_runs(5, 0);
        assert!(runs.is_empty() && cut);
    }

    #[test]
    fn attr_runs_cover_the_history_rows_of_a_frame() {
        let mut t = Terminal::new(Size::new(2, 20), 10);
        t.feed(b"x\x1b[1mBOLD\x1b[0m\r\n\x1b[4mu\x1b[0m\r\nplain\r\n\x1b[7mR\x1b[0m");
        let f = t.frame(View::Scrollback(5));
        assert_eq!(f.text, "xBOLD\nu\nplain\nR");
        assert_eq!(f.history_lines, 2);
        let (runs, cut) = t.attr_runs(f.history_lines, 10);
        assert!(!cut);
        let got: Vec<_> = runs.iter().map(|r| (r.row, r.col, r.len)).collect();
        assert_eq!(got, vec![(0, 1, 4), (1, 0, 1), (3, 0, 1)], "{runs:?}");
        assert!(runs[0].style.bold && runs[1].style.underline && runs[2].style.inverse);
        // Fewer history rows than asked (an older frame): the rows keep the frame's numbering.
        let (runs, _) = t.attr_runs(1, 10);
        let got: Vec<_> = runs.iter().map(|r| (r.row, r.col)).collect();
        assert_eq!(got, vec![(0, 0), (2, 0)], "{runs:?}");
    }
}

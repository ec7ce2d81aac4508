//! Exporting what the terminal shows: as text ([`Terminal::serialize_text`]) and as bytes that
//! redraw it ([`Terminal::serialize_ansi`]). The page's HTML export draws the same rows with
//! its renderer's styles (`wterm-wasm`). The ANSI export shares its row and style writer with
//! [`Terminal::snapshot`], which also carries modes and state a viewer does not see.

use std::borrow::Cow;

use crate::terminal::{join_rows, SnapshotWriter, Style, Terminal};

impl Terminal {
    /// The newest `scrollback` rows of history (clamped to what exists; none while the
    /// alternate screen is shown, as it has no history) then the screen, as
    /// [`Self::read_rows`] gives it (trailing blank rows below the cursor dropped), joined with
    /// `\n`. `scrollback: 0` gives exactly [`Self::screen_text`].
    pub fn serialize_text(&mut self, scrollback: usize) -> String {
        let n = if self.modes().alternate_screen {
            0
        } else {
            scrollback
        };
        let mut rows = self.history_rows(n);
        rows.extend(self.read_rows(None));
        join_rows(&rows)
    }

    /// Bytes that redraw what the terminal shows when written to a fresh terminal of the same
    /// size: the newest `scrollback` rows of history (as [`Self::serialize_text`]) then every
    /// screen row, with SGR colors and attributes, OSC 8 links, wide characters and soft wraps,
    /// then the cursor position (with a pending wrap), its visibility (DECTCEM) and the current
    /// pen. Fed to a fresh wterm terminal they give the same cells, history included when its
    /// scrollback holds it (tested); other terminals ignore wterm's private wrap mark
    /// (`OSC 7710`). Modes, title, tab stops and margins are not exported (see
    /// [`Self::snapshot`] for a full rebuild). The alternate screen, when shown, is exported as
    /// the screen.
    pub fn serialize_ansi(&mut self, scrollback: usize) -> Vec<u8> {
        let alt = self.modes().alternate_screen;
        let n = if alt {
            0
        } else {
            scrollback.min(self.scrollback_rows())
        };
        let s = &self.screen;
        let cols = s.size.cols;
        let mut w = SnapshotWriter {
            out: Vec::new(),
            style: Style::default(),
            s,
            prev: String::new(),
            text: String::new(),
        };
        let b = s.buf();
        let history = s.history.range(s.history.len() - n..);
        let rows = history
            .map(|r| Cow::Owned(r.unpack()))
            .chain(b.rows.iter().map(Cow::Borrowed));
        let mut prev_wrapped = None;
        for row in rows {
            if prev_wrapped == Some(false) {
                w.out.extend_from_slice(b"\r\n");
                w.prev.clear();
            }
            w.row_after(&row, cols, prev_wrapped == Some(true));
            prev_wrapped = Some(row.wrapped);
        }
        w.wrap_mark(b.rows.back());
        w.out.extend_from_slice(b"\x1b[0m");
        w.style = Style::default();
        w.cursor(false);
        if !s.modes.show_cursor {
            w.out.extend_from_slice(b"\x1b[?25l");
        }
        w.set_style(s.pen.unpack());
        w.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terminal::{Size, StyledRun};

    fn runs(t: &mut Terminal, view_offset: usize) -> Vec<Vec<StyledRun>> {
        let mut out = Vec::new();
        for r in 0..t.size().rows {
            let mut v = Vec::new();
            t.row_runs(view_offset, r, &mut v);
            // Link ids are per terminal; compare the URIs.
            for run in &mut v {
                if let Some(id) = run.style.link {
                    run.text = format!("{}@{}", run.text, t.link_uri(id).unwrap_or(""));
                    run.style.link = None;
                }
            }
            out.push(v);
        }
        out
    }

    /// Feeds `input` to a terminal, exports it, feeds the export to a fresh one: the same cells
    /// on the screen and in the history exported, the same cursor.
    fn round_trip(size: Size, input: &[u8], scrollback: usize) -> (Terminal, Terminal) {
        let mut a = Terminal::new(size, 100);
        a.feed(input);
        let bytes = a.serialize_ansi(scrollback);
        let mut b = Terminal::new(size, 100);
        b.feed(&bytes);
        assert_eq!(runs(&mut a, 0), runs(&mut b, 0), "screen of {input:?}");
        assert_eq!(a.cursor(), b.cursor(), "cursor of {input:?}");
        let n = scrollback.min(a.scrollback_rows());
        assert_eq!(b.scrollback_rows(), n);
        for off in 1..=n {
            assert_eq!(
                runs(&mut a, off),
                runs(&mut b, off),
                "history {off} of {input:?}"
            );
        }
        (a, b)
    }

    #[test]
    fn ansi_round_trip() {
        let size = Size::new(4, 10);
        round_trip(
            size,
            b"\x1b[1;31mred\x1b[0m \x1b[4;38;2;1;2;3mrgb\x1b[0m",
            0,
        );
        round_trip(size, "中文e\u{301}👍🏽 \x1b[7mrev".as_bytes(), 0);
        // A soft wrap, a wide character pushed to the next row, a pending wrap at the end.
        round_trip(
            size,
            "0123456789abcdefgh中x\r\n\r\n012345678\x1b[42m9".as_bytes(),
            0,
        );
        round_trip(
            size,
            b"\x1b]8;;https://x.test/\x1b\\link\x1b]8;;\x1b\\ \x1b[?25l",
            0,
        );
        round_trip(size, b"a\r\nb\r\nc\r\nd\r\ne\r\nf\x1b[2;3H", 0);
        let many: String = (0..12)
            .map(|i| format!("line {i}\x1b[3{}m!\x1b[m\r\n", i % 8))
            .collect();
        round_trip(size, many.as_bytes(), 0);
        round_trip(size, many.as_bytes(), 5);
        round_trip(size, many.as_bytes(), 1000);
        let (_, b) = round_trip(size, b"\x1b[?1049hfull screen", 5);
        assert!(!b.modes().alternate_screen, "exported as the screen");
    }

    #[test]
    fn text_matches_read() {
        let mut t = Terminal::new(Size::new(3, 10), 100);
        t.feed(b"a\r\nb\r\nc\r\nd  \r\ne");
        assert_eq!(t.serialize_text(0), t.screen_text());
        assert_eq!(t.serialize_text(0), "c\nd\ne");
        assert_eq!(t.serialize_text(1), "b\nc\nd\ne");
        assert_eq!(t.serialize_text(99), "a\nb\nc\nd\ne");
    }
}

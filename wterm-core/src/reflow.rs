//! Reflow: when the width changes, the main screen and its history are re-wrapped as lines, so
//! a line that soft-wrapped at the old width reads as one line again at the new one (what
//! xterm.js, kitty, Ghostty and WezTerm do; xterm cuts rows instead).
//!
//! A line is a run of rows each soft-wrapped into the next ([`Row::wrapped`]) and the row that
//! ends it. Its cells are laid out again at the new width:
//! - A wrapped row gives all its columns, except a last cell left blank because the wide
//!   character after it did not fit (xterm.js drops that padding the same way).
//! - The line's last row gives its cells up to the last one that is not an erased blank
//!   ([`Cell::is_erased`]); its trailing erased blanks (a background color, say) fill the new
//!   last row up to the width and are cut there, so a colored row is not spread over two.
//! - A wide character never splits: when it does not fit, the row ends with a blank cell and it
//!   starts the next row, as when it was printed. A grapheme cluster is one cell and moves whole.
//! - Hard line breaks are never joined: a row that does not wrap always ends its line.
//!
//! Positions move with their character: the cursor, the saved cursor (DECSC), the command
//! log's lifetime rows and the prompt's end (`cmdlog.rs`).
//!
//! The line holding the cursor is not reflowed, as xterm.js does by default (kitty, Ghostty and
//! WezTerm reflow it; xterm.js only with `reflowCursorLine`): its rows are cut at the new width
//! or padded, and the program redraws it. That line is usually a shell's command line, and
//! readline redraws it on SIGWINCH assuming it was not reflowed: bash 5.2 moves up the rows the
//! line took at the old width, erases them and writes it again (`\r ESC[K \r ESC[A ESC[K \r`
//! and the prompt, for a line that took two rows). Had the line been joined into one row, that
//! `ESC[A ESC[K` would erase the row above it, a line of output; had it been split into two,
//! its first row would stay on screen as a stale copy.
//!
//! Which rows stay on the screen follows xterm.js (`Buffer._reflowLarger`/`_reflowSmaller`):
//! with rows in history, the cursor keeps its screen row, so narrowing pushes rows into history
//! and widening pulls them back; with no history yet, the screen's top stays put and rows the
//! lines gained are taken from blank rows below the cursor (the cursor moves down), and
//! widening moves the cursor up and adds blank rows at the bottom. The alternate screen is not
//! reflowed (`Screen::resize` cuts it, as xterm.js does); the main screen behind it is.

use std::collections::VecDeque;

use crate::grid::{Cell, CellStyle, HistoryRow, Row, WIDE, WIDE_CONT};
use crate::screen::Screen;
use crate::terminal::Size;

/// A position carried through a reflow: a row index in the sequence of rows (history, then the
/// main screen), a column, and whether a wrap is pending there (the cursor sits after the
/// character at `col`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Point {
    row: usize,
    col: u16,
    pending: bool,
}

/// Lays lines out at the new width, one at a time, into packed rows.
struct Rewrap {
    /// The new width, in columns.
    cols: usize,
    /// The old width, in columns: what a wrapped row gives to its line.
    old_cols: usize,
    /// The new rows, packed.
    out: Vec<HistoryRow>,
    /// For each old row, the new row holding its first cell; one more entry for the end.
    row_map: Vec<usize>,
    /// The cells of the line being gathered.
    line: Vec<Cell>,
    /// The offset in `line` where each of its old rows starts; its first is `first_old`.
    starts: Vec<usize>,
    first_old: usize,
    /// Points to carry (index 0 is the cursor) and where they went.
    points: Vec<Point>,
    /// The old rows of the cursor's line, which keep their cells (cut or padded).
    cursor_line: core::ops::RangeInclusive<usize>,
    moved: Vec<Option<Point>>,
    /// Scratch: a history row's cells; the offset in `line` where each new row starts.
    scratch: Vec<Cell>,
    firsts: Vec<usize>,
    row: Vec<Cell>,
}

impl Rewrap {
    fn new(
        cols: usize,
        old_cols: usize,
        total: usize,
        points: Vec<Point>,
        cursor_line: core::ops::RangeInclusive<usize>,
    ) -> Rewrap {
        Rewrap {
            cursor_line,
            cols,
            old_cols,
            out: Vec::with_capacity(total),
            row_map: Vec::with_capacity(total + 1),
            line: Vec::new(),
            starts: Vec::new(),
            first_old: 0,
            moved: vec![None; points.len()],
            points,
            scratch: Vec::new(),
            firsts: Vec::new(),
            row: Vec::with_capacity(cols),
        }
    }

    fn has_point(&self, row: usize) -> bool {
        self.points.iter().any(|p| p.row == row)
    }

    /// A history row; `next_first` is the flags of the next row's first cell.
    fn history_row(&mut self, i: usize, row: HistoryRow, next_first: u8) {
        if self.cursor_line.contains(&i) {
            self.keep(i, &row.unpack());
            return;
        }
        // A line of one row that fits stays as it is: no unpacking.
        if self.starts.is_empty() && !row.wrapped && row.len() <= self.cols && !self.has_point(i) {
            self.row_map.push(self.out.len());
            self.out.push(row);
            return;
        }
        let mut cells = core::mem::take(&mut self.scratch);
        cells.clear();
        row.unpack_into(&mut cells);
        self.add(i, &cells, row.wrapped, next_first);
        self.scratch = cells;
    }

    /// A main-screen row; `next_first` as for [`Self::history_row`].
    fn screen_row(&mut self, i: usize, row: &Row, next_first: u8) {
        if self.cursor_line.contains(&i) {
            self.keep(i, row);
            return;
        }
        if self.starts.is_empty()
            && !row.wrapped
            && row.used_len() <= self.cols
            && !self.has_point(i)
        {
            self.row_map.push(self.out.len());
            self.out.push(HistoryRow::pack(row, None));
            return;
        }
        self.add(i, &row.cells, row.wrapped, next_first);
    }

    /// A row of the cursor's line: its cells cut at the new width (a wide character whose second
    /// half is cut off is blanked, as cutting always did) or padded, its wrap flag kept
    /// (xterm.js). Positions on it keep their column, clamped to the row; a pending wrap becomes
    /// the next column when there is one.
    fn keep(&mut self, i: usize, row: &Row) {
        let cols = self.cols;
        let mut cells = core::mem::take(&mut self.row);
        cells.clear();
        cells.extend_from_slice(&row.cells[..row.cells.len().min(cols)]);
        if cells.len() == cols && cells[cols - 1].flags() & WIDE != 0 {
            cells[cols - 1] = Cell::blank(cells[cols - 1].style);
        }
        let at = self.out.len();
        self.emit(&cells, row.wrapped);
        self.row = cells;
        self.row_map.push(at);
        for (k, p) in self.points.iter().enumerate() {
            if p.row == i {
                let col = usize::from(p.col) + usize::from(p.pending);
                self.moved[k] = Some(Point {
                    row: at,
                    col: col.min(cols - 1) as u16,
                    pending: false,
                });
            }
        }
    }

    /// Adds old row `i`'s cells to the line; a row that does not wrap ends it.
    fn add(&mut self, i: usize, cells: &[Cell], wrapped: bool, next_first: u8) {
        if self.starts.is_empty() {
            self.first_old = i;
        }
        self.starts.push(self.line.len());
        let blank = Cell::blank(CellStyle::DEFAULT);
        let at = |k: usize| cells.get(k).copied().unwrap_or(blank);
        if wrapped {
            let mut n = self.old_cols;
            if next_first & WIDE != 0 && n > 0 && at(n - 1).is_erased() {
                n -= 1;
            }
            self.line.extend((0..n).map(at));
            return;
        }
        let keep = cells
            .iter()
            .rposition(|c| !c.is_erased())
            .map_or(0, |p| p + 1);
        let used = cells
            .iter()
            .rposition(|c| !c.is_default_blank())
            .map_or(0, |p| p + 1);
        self.line.extend((0..keep).map(at));
        let trailing: Vec<Cell> = (keep..used.max(keep)).map(at).collect();
        self.flush(i, &trailing);
    }

    /// Lays out the gathered line (old rows `first_old..=last`), then `trailing` erased cells
    /// while they fit in its last row.
    fn flush(&mut self, last: usize, trailing: &[Cell]) {
        let out_base = self.out.len();
        let cols = self.cols;
        let mut row = core::mem::take(&mut self.row);
        row.clear();
        self.firsts.clear();
        self.firsts.push(0);
        let line = core::mem::take(&mut self.line);
        let mut i = 0;
        while i < line.len() {
            let c = line[i];
            let pair = c.flags() & WIDE != 0
                && line.get(i + 1).is_some_and(|n| n.flags() & WIDE_CONT != 0);
            let w = if pair { 2 } else { 1 };
            if row.len() + w > cols {
                if row.len() < cols {
                    // The wide character does not fit: the last cell stays blank.
                    row.push(Cell::blank(CellStyle::DEFAULT));
                }
                self.emit(&row, true);
                row.clear();
                self.firsts.push(i);
            }
            if pair {
                row.extend_from_slice(&line[i..i + 2]);
            } else {
                // A half without its other half (never made by printing) becomes narrow.
                row.push(Cell::new(c.content(), c.style, 0));
            }
            i += w;
        }
        for &c in trailing {
            if row.len() >= cols {
                break;
            }
            row.push(c);
        }
        self.emit(&row, false);
        self.row = row;

        // Where the old rows and the points went.
        let place = |firsts: &[usize], offset: usize| -> (usize, usize) {
            let offset = offset.min(line.len());
            let r = firsts.partition_point(|&f| f <= offset) - 1;
            (r, offset - firsts[r])
        };
        for &s in &self.starts {
            self.row_map.push(out_base + place(&self.firsts, s).0);
        }
        for (k, p) in self.points.iter().enumerate() {
            if p.row < self.first_old || p.row > last {
                continue;
            }
            let start = self.starts[p.row - self.first_old];
            let offset = start + usize::from(p.col) + usize::from(p.pending);
            let (mut r, mut col) = place(&self.firsts, offset);
            let mut pending = false;
            if col >= cols {
                // After the last cell of a full row: a wrap is pending there.
                col = cols - 1;
                pending = true;
            } else if p.pending && col == 0 && r > 0 {
                r -= 1;
                col = cols - 1;
                pending = true;
            }
            self.moved[k] = Some(Point {
                row: out_base + r,
                col: col as u16,
                pending,
            });
        }
        self.line = line;
        self.line.clear();
        self.starts.clear();
    }

    fn emit(&mut self, cells: &[Cell], wrapped: bool) {
        let used = cells
            .iter()
            .rposition(|c| !c.is_default_blank())
            .map_or(0, |p| p + 1);
        self.out
            .push(HistoryRow::pack_cells(&cells[..used], wrapped, None));
    }
}

impl Screen {
    /// Reflows the main screen and its history to `size` (the width differs from the current
    /// one); see the module doc. Leaves `self.size` to the caller.
    pub(crate) fn reflow_main(&mut self, size: Size) {
        let old_cols = usize::from(self.size.cols);
        let (rows, cols) = (usize::from(size.rows), usize::from(size.cols));
        let mut history = core::mem::take(&mut self.history);
        let screen = core::mem::take(&mut self.main.rows);
        let h = history.len();
        let total = h + screen.len();
        // The lifetime number of the oldest row kept; rows before it are gone and keep theirs.
        let base = self.rows_scrolled.saturating_sub(h as u64);

        let m = &self.main;
        let mut points = vec![Point {
            row: h + usize::from(m.row),
            col: m.col,
            pending: m.pending_wrap,
        }];
        let saved_at = m.saved.map(|s| {
            points.push(Point {
                row: h + usize::from(s.row),
                col: s.col,
                pending: s.pending_wrap,
            });
            points.len() - 1
        });
        let input_at = self.log.input_start.and_then(|(row, col)| {
            let i = usize::try_from(row.checked_sub(base)?).ok()?;
            (i < total).then(|| {
                points.push(Point {
                    row: i,
                    col,
                    pending: false,
                });
                points.len() - 1
            })
        });

        let wrapped_at = |i: usize| {
            if i < h {
                history[i].wrapped
            } else {
                screen.get(i - h).is_some_and(|r| r.wrapped)
            }
        };
        let (mut first, mut last) = (points[0].row, points[0].row);
        while first > 0 && wrapped_at(first - 1) {
            first -= 1;
        }
        while last + 1 < total && wrapped_at(last) {
            last += 1;
        }
        let mut re = Rewrap::new(cols, old_cols, total, points, first..=last);
        let first_flags = |history: &VecDeque<HistoryRow>, i: usize| {
            if i < h {
                history[i].first_flags()
            } else {
                screen
                    .get(i - h)
                    .and_then(|r| r.cells.first())
                    .map_or(0, |c| c.flags())
            }
        };
        for i in 0..total {
            let next_first = first_flags(&history, i + 1);
            if i < h {
                let row = core::mem::replace(&mut history[i], HistoryRow::EMPTY);
                re.history_row(i, row, next_first);
            } else {
                re.screen_row(i, &screen[i - h], next_first);
            }
        }
        if !re.starts.is_empty() {
            // The last row soft-wraps into nothing.
            re.flush(total - 1, &[]);
        }
        drop(history);
        drop(screen);

        let Rewrap {
            mut out,
            mut row_map,
            moved,
            ..
        } = re;
        row_map.push(out.len());
        let n = out.len();
        let cursor = moved[0].unwrap_or(Point {
            row: n.saturating_sub(1),
            col: 0,
            pending: false,
        });
        let c = cursor.row;
        let last_content = out
            .iter()
            .rposition(|r| r.len() > 0 || r.wrapped)
            .unwrap_or(0);
        let top = if h == 0 {
            c.max(last_content).saturating_sub(rows - 1)
        } else {
            let y = usize::from(self.main.row).min(rows - 1);
            c.saturating_sub(y)
                .max(last_content.saturating_sub(rows - 1))
        }
        .min(c);

        self.main.rows = (top..top + rows)
            .map(|k| match out.get(k) {
                Some(packed) => {
                    let mut r = packed.unpack();
                    r.set_len(cols);
                    r
                }
                None => Row::new(size.cols, CellStyle::DEFAULT),
            })
            .collect();
        out.truncate(top);
        let dropped = top.saturating_sub(self.history_cap);
        out.drain(..dropped);
        self.history = VecDeque::from(out);
        self.rows_scrolled = base + top as u64;

        let on_screen = |p: Point| -> (u16, u16, bool) {
            let row = p.row.saturating_sub(top).min(rows - 1);
            let col = usize::from(p.col).min(cols - 1);
            (row as u16, col as u16, p.pending && col == cols - 1)
        };
        (self.main.row, self.main.col, self.main.pending_wrap) = on_screen(cursor);
        if let (Some(s), Some(Some(p))) = (self.main.saved.as_mut(), saved_at.map(|k| moved[k])) {
            (s.row, s.col, s.pending_wrap) = on_screen(p);
        }
        let screen_end = top + rows;
        let map_row = |row: u64| -> u64 {
            let Some(i) = row.checked_sub(base) else {
                return row;
            };
            let i = usize::try_from(i).unwrap_or(usize::MAX);
            let new = row_map.get(i).copied().unwrap_or(n);
            base + new.min(screen_end) as u64
        };
        for r in self.log.done.iter_mut().chain(self.log.running.as_mut()) {
            r.output_start_row = map_row(r.output_start_row);
            r.output_end_row = r.output_end_row.map(map_row);
        }
        if let Some(k) = input_at {
            self.log.input_start = moved[k].map(|p| (base + p.row as u64, p.col));
        }
    }
}

#[cfg(test)]
mod tests;

//! [`Screen`]: the terminal's state and the named operations escape sequences map onto
//! (`vt/perform.rs` does the mapping). Coordinates are 0-based; rows index the visible screen.
//!
//! Behaviour follows xterm (ctlseqs) and ECMA-48; where they leave a choice, the comment says
//! which terminal we follow.

use std::collections::{HashMap, VecDeque};

use crate::cmdlog::CommandLog;
use crate::grid::{Cell, CellStyle, Clusters, HistoryRow, Row, WIDE, WIDE_CONT};
use crate::limits::{KITTY_STACK_DEPTH, MAX_LINKS, MAX_LINK_URI_BYTES, MAX_TITLE_BYTES};
use crate::modes::{CursorShape, CursorStyle, MouseEncoding, MouseTracking};
use crate::terminal::{DynamicColors, LinkId, Progress, ShellIntegration, Size};
use crate::unicode;

/// A character set designated into G0–G3 (`ESC ( F` and friends).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Charset {
    #[default]
    Ascii,
    /// DEC Special Graphics (`ESC ( 0`): `q` draws `─`, `x` `│`, and so on (VT100 manual, table
    /// 3-9).
    DecGraphics,
}

impl Charset {
    #[inline]
    fn map(self, c: char) -> char {
        match self {
            Charset::Ascii => c,
            Charset::DecGraphics => unicode::dec_graphics(c),
        }
    }
}

/// Mouse tracking and encoding modes, as DEC private mode numbers.
pub(crate) const MOUSE_MODES: [u16; 4] = [9, 1000, 1002, 1003];

/// What DECSC (`ESC 7`) saves and DECRC restores (VT510 manual, DECSC).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SavedCursor {
    pub row: u16,
    pub col: u16,
    pub pending_wrap: bool,
    pub pen: CellStyle,
    pub origin: bool,
    pub charsets: [Charset; 4],
    pub gl: usize,
}

/// One of the two screens (main, alternate): rows, cursor, saved cursor, kitty flag stack.
#[derive(Debug, Clone)]
pub(crate) struct Buffer {
    pub rows: VecDeque<Row>,
    pub row: u16,
    pub col: u16,
    /// The cursor is at the last column and the next printed character wraps first (xterm's
    /// "pending wrap"/VT100 "last column flag").
    pub pending_wrap: bool,
    pub saved: Option<SavedCursor>,
    /// Kitty keyboard flag stack (kitty spec: separate stacks per screen); top is last.
    pub kitty: Vec<u8>,
}

impl Buffer {
    fn new(size: Size) -> Buffer {
        Buffer {
            rows: (0..size.rows)
                .map(|_| Row::new(size.cols, CellStyle::DEFAULT))
                .collect(),
            row: 0,
            col: 0,
            pending_wrap: false,
            saved: None,
            kitty: Vec::new(),
        }
    }
}

/// Modes kept as flags; [`crate::Modes`] is the public view.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ModeState {
    pub app_cursor: bool,
    pub app_keypad: bool,
    pub bracketed_paste: bool,
    pub show_cursor: bool,
    pub autowrap: bool,
    pub insert: bool,
    pub origin: bool,
    /// xterm's reverse wraparound (`CSI ? 45 h`): with autowrap, BS and CUB continue at the
    /// end of the row above.
    pub reverse_wrap: bool,
    /// DECLRMM (`CSI ? 69 h`): `CSI Pl ; Pr s` sets left and right margins instead of saving
    /// the cursor.
    pub lr_margin_mode: bool,
    /// LNM (`CSI 20 h`): LF, VT and FF also return the carriage.
    pub newline: bool,
    pub sync: bool,
    pub focus_events: bool,
    /// One bit per entry of [`MOUSE_MODES`].
    pub mouse: u8,
    /// Mouse encodings 1005, 1006, 1015 as bits 0, 1, 2.
    pub mouse_encoding: u8,
    pub cursor_style: CursorStyle,
}

impl Default for ModeState {
    fn default() -> Self {
        ModeState {
            app_cursor: false,
            app_keypad: false,
            bracketed_paste: false,
            show_cursor: true,
            autowrap: true,
            insert: false,
            origin: false,
            reverse_wrap: false,
            lr_margin_mode: false,
            newline: false,
            sync: false,
            focus_events: false,
            mouse: 0,
            mouse_encoding: 0,
            cursor_style: CursorStyle::default(),
        }
    }
}

impl ModeState {
    /// The tracking mode whose bit is set; the bits exclude each other.
    pub fn mouse_tracking(&self) -> MouseTracking {
        match self.mouse.trailing_zeros() {
            0 => MouseTracking::X10,
            1 => MouseTracking::Normal,
            2 => MouseTracking::ButtonEvent,
            3 => MouseTracking::AnyEvent,
            _ => MouseTracking::Off,
        }
    }

    /// The encoding in force: SGR over URXVT over UTF-8 when several are set.
    pub fn mouse_encoding(&self) -> MouseEncoding {
        if self.mouse_encoding & 2 != 0 {
            MouseEncoding::Sgr
        } else if self.mouse_encoding & 4 != 0 {
            MouseEncoding::Urxvt
        } else if self.mouse_encoding & 1 != 0 {
            MouseEncoding::Utf8
        } else {
            MouseEncoding::X10
        }
    }
}

/// The whole emulator state.
#[derive(Debug, Clone)]
pub(crate) struct Screen {
    pub size: Size,
    pub main: Buffer,
    pub alt: Buffer,
    pub alt_active: bool,
    /// Rows scrolled off the top of the main screen, oldest first.
    pub history: VecDeque<HistoryRow>,
    /// An allocation history rows trade with ([`HistoryRow::repack`]); holds no row.
    pub history_spare: Vec<u32>,
    /// Rows that ever left the top of the main screen (kept in history or not): the lifetime
    /// row number of the main screen's top row (`cmdlog.rs`). Kept by RIS.
    pub rows_scrolled: u64,
    pub history_cap: usize,
    /// The SGR state new characters are drawn with (and the OSC 8 link).
    pub pen: CellStyle,
    /// Scroll region, inclusive rows (DECSTBM).
    pub top: u16,
    pub bottom: u16,
    /// Left and right margins, inclusive columns (DECSLRM, while DECLRMM is set); the whole
    /// width otherwise.
    pub left: u16,
    pub right: u16,
    pub tabs: Vec<bool>,
    pub charsets: [Charset; 4],
    /// Which of G0–G3 is invoked into GL (SI → 0, SO → 1).
    pub gl: usize,
    pub modes: ModeState,
    pub clusters: Clusters,
    pub links: Vec<Box<str>>,
    link_index: HashMap<Box<str>, LinkId, crate::MapHasher>,
    /// The cell the last character was printed into, while nothing else happened since: a
    /// combining mark or joiner that follows extends it.
    pub last_print: Option<(u16, u16)>,
    /// The last printed graphic character and its width, for REP.
    pub last_char: Option<(u32, u8)>,
    /// Scratch text for `join`, kept so that joining allocates nothing.
    join_text: String,
    pub title: Option<String>,
    pub cwd: Option<String>,
    /// What OSC 10/11/12 queries are answered with; set by the adapter, kept by RIS.
    pub dynamic_colors: DynamicColors,
    pub shell: Option<ShellIntegration>,
    /// The command log (`cmdlog.rs`); kept by RIS.
    pub log: CommandLog,
    /// The adapter's clock, in milliseconds, as last given (`Terminal::set_now_ms`).
    pub now_ms: u64,
    pub replies: Vec<u8>,
    pub title_changed: bool,
    pub bell: bool,
    /// Text the program put on the clipboard (OSC 52) since the last `Effects`.
    pub clipboard: Option<String>,
    /// The last progress report (`OSC 9 ; 4`); kept by RIS, as the title is.
    pub progress: Progress,
    /// A progress report since the last `Effects`.
    pub progress_changed: Option<Progress>,
    /// A CSI or ESC sequence was dispatched, or an OSC ended by BEL, since `Terminal::feed`
    /// last cleared it: vte is back in ground state (parser bookkeeping, not terminal state).
    pub sequence_ended: bool,
}

/// The scalar value of the three bytes `a b c` when they encode a plain wide character
/// ([`unicode::is_plain_wide`]). Those lie between U+3041 and U+D7A3, where no three-byte form
/// is overlong or a surrogate, so continuation bytes are all that validity asks of the rest.
#[inline]
fn plain_wide_at(a: u8, b: u8, c: u8) -> Option<u32> {
    if a & 0xf0 != 0xe0 || b & 0xc0 != 0x80 || c & 0xc0 != 0x80 {
        return None;
    }
    let v = u32::from(a & 0x0f) << 12 | u32::from(b & 0x3f) << 6 | u32::from(c & 0x3f);
    char::from_u32(v)
        .filter(|&ch| unicode::is_plain_wide(ch))
        .map(|_| v)
}

/// Blanks a wide character whose halves lie on both sides of the boundary before `col`.
#[inline]
fn split_wide(cells: &mut [Cell], col: usize) {
    if col > 0 && col < cells.len() && cells[col].flags() & WIDE_CONT != 0 {
        cells[col - 1] = Cell::blank(cells[col - 1].style);
        cells[col] = Cell::blank(cells[col].style);
    }
}

fn default_tabs(cols: u16) -> Vec<bool> {
    (0..cols).map(|c| c > 0 && c % 8 == 0).collect()
}

impl Screen {
    pub fn new(size: Size, history_cap: usize) -> Screen {
        Screen {
            size,
            main: Buffer::new(size),
            // Allocated when a program first switches to it (most sessions never do).
            alt: Buffer::new(Size {
                rows: 0,
                cols: size.cols,
            }),
            alt_active: false,
            history: VecDeque::new(),
            history_spare: Vec::new(),
            rows_scrolled: 0,
            history_cap,
            pen: CellStyle::DEFAULT,
            top: 0,
            bottom: size.rows - 1,
            left: 0,
            right: size.cols - 1,
            tabs: default_tabs(size.cols),
            charsets: [Charset::Ascii; 4],
            gl: 0,
            modes: ModeState::default(),
            clusters: Clusters::default(),
            links: Vec::new(),
            link_index: HashMap::default(),
            last_print: None,
            last_char: None,
            join_text: String::new(),
            title: None,
            cwd: None,
            dynamic_colors: DynamicColors::DEFAULT,
            shell: None,
            log: CommandLog::default(),
            now_ms: 0,
            replies: Vec::new(),
            title_changed: false,
            clipboard: None,
            progress: Progress::default(),
            progress_changed: None,
            bell: false,
            sequence_ended: false,
        }
    }

    #[inline]
    pub fn buf(&self) -> &Buffer {
        if self.alt_active {
            &self.alt
        } else {
            &self.main
        }
    }

    #[inline]
    pub fn buf_mut(&mut self) -> &mut Buffer {
        if self.alt_active {
            &mut self.alt
        } else {
            &mut self.main
        }
    }

    /// The style erased and scrolled-in cells get: the pen's background only (xterm BCE).
    #[inline]
    fn erase_style(&self) -> CellStyle {
        self.pen.background()
    }

    // ---- printing ----

    /// Prints one character at the cursor: DEC graphics mapping, grapheme joining, wide cells,
    /// autowrap (DECAWM), insert mode (IRM).
    #[inline]
    pub fn print(&mut self, c: char) {
        // Printable ASCII over a narrow cell is the common case; everything else takes
        // `print_general`.
        let ascii = (' '..='~').contains(&c) && self.charsets.get(self.gl) == Some(&Charset::Ascii);
        if !(ascii && self.put_narrow_run(&[c as u8]) == 1) {
            self.print_general(c);
        }
    }

    #[inline(never)]
    pub fn print_general(&mut self, c: char) {
        // DEL (0x7f) reaches `print` from vte; it prints nothing (ECMA-48 treats it as filler).
        if c == '\x7f' {
            return;
        }
        let c = self.charsets[self.gl].map(c);
        if (c as u32) < 0x7f {
            self.put(c as u32, 1);
            return;
        }
        // CJK text: a wide character that joins nothing unless the cell printed last ends in
        // ZWJ (`join`), written in one step when nothing else on the row moves.
        if unicode::is_plain_wide(c) && !self.last_print_ends_in_zwj() && self.put_wide_fast(c) {
            return;
        }
        if let Some(at) = self.last_print {
            if self.join(at, c) {
                return;
            }
        }
        match unicode::width(c) {
            0 => {} // a mark with nothing to join is dropped, as xterm does
            2 if self.put_wide_fast(c) => {}
            w => self.put(c as u32, w),
        }
    }

    /// Whether the cell printed last ends in ZWJ, so that any character joins it.
    fn last_print_ends_in_zwj(&self) -> bool {
        self.last_print
            .and_then(|(row, col)| {
                self.buf()
                    .rows
                    .get(usize::from(row))?
                    .cells
                    .get(usize::from(col))
            })
            .is_some_and(|cell| self.clusters.last_char(cell.content()) == Some(unicode::ZWJ))
    }

    /// What the fast writes (`put_narrow_run`, `put_wide_fast`) write with: the active buffer,
    /// the column text wraps at from the cursor (the right margin while the cursor is left of
    /// it, else the last column) and the pen. `None` under insert mode or with a wrap pending,
    /// which the general path handles.
    #[inline]
    fn fast_write_target(&mut self) -> Option<(&mut Buffer, u16, CellStyle)> {
        let (cols, right, pen) = (self.size.cols, self.right, self.pen);
        if self.modes.insert {
            return None;
        }
        let buf = if self.alt_active {
            &mut self.alt
        } else {
            &mut self.main
        };
        if buf.pending_wrap {
            return None;
        }
        let edge = if buf.col <= right { right } else { cols - 1 };
        Some((buf, edge, pen))
    }

    /// Writes the two-column character `c` at the cursor as [`Self::put_slow`] would, when that
    /// changes nothing else: insert mode off, no wrap pending, both columns left of the edge
    /// and no wide character under them. Returns false, having written nothing, otherwise.
    #[inline]
    fn put_wide_fast(&mut self, c: char) -> bool {
        let Some((buf, edge, pen)) = self.fast_write_target() else {
            return false;
        };
        let (row, col) = (buf.row, buf.col);
        if col + 2 > edge {
            return false;
        }
        let Some(r) = buf.rows.get_mut(usize::from(row)) else {
            return false;
        };
        let at = usize::from(col);
        // `col + 2 <= edge < cols`: the cell after the pair exists.
        let Some(cells) = r.cells.get_mut(at..at + 3) else {
            return false;
        };
        if cells[0].flags() | cells[1].flags() | (cells[2].flags() & WIDE_CONT) != 0 {
            return false;
        }
        let content = c as u32;
        cells[0] = Cell::new(content, pen, WIDE);
        cells[1] = Cell::new(b' ' as u32, pen, WIDE_CONT);
        r.touch(at + 2);
        buf.col = col + 2;
        self.last_print = Some((row, col));
        self.last_char = Some((content, 2));
        true
    }

    /// Prints the run of plain wide characters ([`unicode::is_plain_wide`], three bytes of
    /// UTF-8 each) at the start of `text` while each fits whole before the edge with no wide
    /// character under it, as [`Self::print_general`] would one at a time: not after a cell
    /// ending in ZWJ (which the first would join), nor under insert mode or with a wrap pending
    /// (DEC graphics maps nothing outside ASCII). Returns the bytes taken (0: nothing written);
    /// the first character that is not so, or does not fit, is left to the caller.
    #[inline(never)]
    pub fn print_wide_run(&mut self, text: &[u8]) -> usize {
        let first = match text {
            [a, b, c, ..] => plain_wide_at(*a, *b, *c),
            _ => None,
        };
        if first.is_none() || self.last_print_ends_in_zwj() {
            return 0;
        }
        let Some((buf, edge, pen)) = self.fast_write_target() else {
            return 0;
        };
        let row = buf.row;
        let Some(r) = buf.rows.get_mut(usize::from(row)) else {
            return 0;
        };
        let mut col = usize::from(buf.col);
        let edge = usize::from(edge);
        let mut taken = 0;
        let mut last = 0;
        while let [a, b, c, ..] = text[taken..] {
            let Some(content) = plain_wide_at(a, b, c) else {
                break;
            };
            // `col + 2 <= edge < cols`: the cell after the pair exists.
            if col + 2 > edge {
                break;
            }
            let Some(cells) = r.cells.get_mut(col..col + 3) else {
                break;
            };
            if cells[0].flags() | cells[1].flags() | (cells[2].flags() & WIDE_CONT) != 0 {
                break;
            }
            cells[0] = Cell::new(content, pen, WIDE);
            cells[1] = Cell::new(b' ' as u32, pen, WIDE_CONT);
            last = content;
            col += 2;
            taken += 3;
        }
        if taken == 0 {
            return 0;
        }
        r.touch(col);
        buf.col = col as u16;
        self.last_print = Some((row, col as u16 - 2));
        self.last_char = Some((last, 2));
        taken
    }

    /// Extends the cell at `at` with `c` when `c` continues its grapheme cluster; widens it to
    /// two columns for VS16 after an emoji-capable narrow character and for a flag.
    fn join(&mut self, at: (u16, u16), c: char) -> bool {
        let mut text = core::mem::take(&mut self.join_text);
        text.clear();
        let joined = self.join_with(at, c, &mut text);
        self.join_text = text;
        joined
    }

    /// [`Self::join`] with `text`, empty, to build the cluster's text in.
    fn join_with(&mut self, at: (u16, u16), c: char, text: &mut String) -> bool {
        let (row, col) = at;
        let cols = self.size.cols;
        let Some(cell) = self
            .buf()
            .rows
            .get(usize::from(row))
            .and_then(|r| r.cells.get(usize::from(col)))
            .copied()
        else {
            return false;
        };
        if char::from_u32(cell.content()).is_some_and(|last| !unicode::may_continue(last, c)) {
            return false;
        }
        self.clusters.push_text(cell.content(), text);
        if !unicode::continues_cluster(text, c) {
            return false;
        }
        let widen = cell.flags() & WIDE == 0 && unicode::widens(text, c);
        // The column text wraps at from the cell: the right margin when the cell is left of
        // it, else the last column (as a print there would wrap).
        let edge = if col <= self.right {
            self.right
        } else {
            cols - 1
        };
        if widen && (col + 1 > edge || self.buf().pending_wrap) {
            // No room to widen (the edge): VS16 is dropped and a second regional
            // indicator starts its own cell, so no narrow cell holds a cluster that would widen
            // when its text is printed again (a snapshot, REP).
            return c == '\u{fe0f}';
        }
        let autowrap = self.modes.autowrap;
        text.push(c);
        let Some(content) = self.clusters.extend(cell.content(), c, text) else {
            return true;
        };
        let buf = self.buf_mut();
        buf.rows[usize::from(row)].cells[usize::from(col)].set_content(content);
        if widen && col < edge && !buf.pending_wrap {
            let r = &mut buf.rows[usize::from(row)];
            r.touch(usize::from(col) + 3);
            // The neighbour's own wide pair must not be left half.
            if r.cells[usize::from(col) + 1].flags() & WIDE != 0
                && usize::from(col) + 2 < r.cells.len()
            {
                r.cells[usize::from(col) + 2] = Cell::blank(r.cells[usize::from(col) + 2].style);
            }
            let wide = r.cells[usize::from(col)].flags() | WIDE;
            r.cells[usize::from(col)].set_flags(wide);
            r.cells[usize::from(col) + 1] = Cell::new(b' ' as u32, cell.style, WIDE_CONT);
            if buf.row == row && buf.col == col + 1 {
                if col + 2 > edge {
                    buf.col = edge;
                    buf.pending_wrap = autowrap;
                } else {
                    buf.col = col + 2;
                }
            }
            self.last_char = Some((content, 2));
        }
        // A combining mark leaves REP its base character, as xterm repeats it.
        true
    }

    /// Prints a run of printable ASCII (0x20..=0x7E) exactly as `print` would one byte at a
    /// time: cells up to the last column are written in one pass, the rest (the last column,
    /// wraps, wide cells under the cursor, insert mode, DEC graphics) byte by byte.
    pub fn print_ascii(&mut self, run: &[u8]) {
        let mut i = 0;
        while i < run.len() {
            let ascii = self.charsets.get(self.gl) == Some(&Charset::Ascii);
            match if ascii {
                self.put_narrow_run(&run[i..])
            } else {
                0
            } {
                0 => {
                    self.print(char::from(run[i]));
                    i += 1;
                }
                n => i += n,
            }
        }
    }

    /// Writes the longest prefix of `run` (cell contents, each one narrow column) that needs
    /// nothing else on the row to change: not into the last column, no wrap pending, no wide
    /// cell under it, insert mode off. Returns its length (0: nothing written).
    #[inline(never)]
    fn put_narrow_run<T: Copy + Into<u32>>(&mut self, run: &[T]) -> usize {
        if run.is_empty() {
            return 0;
        }
        let Some((buf, edge, pen)) = self.fast_write_target() else {
            return 0;
        };
        let (row, col) = (buf.row, buf.col);
        if col >= edge {
            return 0;
        }
        let Some(r) = buf.rows.get_mut(usize::from(row)) else {
            return 0;
        };
        let start = usize::from(col);
        let room = usize::from(edge - col).min(run.len());
        let Some(cells) = r.cells.get_mut(start..start + room) else {
            return 0;
        };
        let mut n = 0;
        for (cell, &content) in cells.iter_mut().zip(run) {
            // Stop before a wide character's half: overwriting it blanks its other half.
            if cell.flags() != 0 {
                break;
            }
            *cell = Cell::new(content.into(), pen, 0);
            n += 1;
        }
        if n == 0 {
            return 0;
        }
        r.touch(start + n);
        let last = col + n as u16 - 1;
        buf.col = last + 1;
        self.last_print = Some((row, last));
        self.last_char = Some((run[n - 1].into(), 1));
        n
    }

    /// Writes `content` of `width` columns (1 or 2) at the cursor and advances it.
    #[inline]
    pub fn put(&mut self, content: u32, width: u8) {
        if width != 1 || self.put_narrow_run(&[content]) == 0 {
            self.put_slow(content, width);
        }
    }

    #[inline(never)]
    fn put_slow(&mut self, content: u32, width: u8) {
        let cols = self.size.cols;
        let autowrap = self.modes.autowrap;
        let insert = self.modes.insert;
        let pen = self.pen;
        if self.buf().pending_wrap && autowrap {
            let row = self.buf().row;
            self.buf_mut().rows[usize::from(row)].wrapped = true;
            // To the left margin (xterm does so even from right of the right margin).
            self.buf_mut().col = self.left;
            self.index();
        }
        let edge = if self.buf().col <= self.right {
            self.right
        } else {
            cols - 1
        };
        if width == 2 && self.buf().col + 1 > edge {
            if !autowrap || cols < 2 {
                return;
            }
            // No room for both halves: the character wraps and the last cell keeps what it
            // holds, even the second half of another wide character (xterm 379, checked with
            // scripts/xterm-oracle.py; autowrap.txt).
            let (row, col) = (self.buf().row, self.buf().col);
            let left = self.left;
            let buf = self.buf_mut();
            let r = &mut buf.rows[usize::from(row)];
            r.touch(usize::from(col) + 1);
            r.wrapped = true;
            buf.col = left;
            self.index();
        }
        let (row, col) = (self.buf().row, self.buf().col);
        let w = u16::from(width);
        if insert {
            // Outside the left and right margins nothing moves (as ICH there; xterm).
            if !self.lr_margins_set() {
                self.insert_blanks(row, col, w);
            } else if self.col_in_lr_margins() {
                self.shift_cells(row, col, self.right, w, true);
            }
        }
        self.fix_wide(row, col, col + w);
        let buf = if self.alt_active {
            &mut self.alt
        } else {
            &mut self.main
        };
        let r = &mut buf.rows[usize::from(row)];
        let c = usize::from(col);
        r.touch(c + usize::from(width));
        let cells = &mut r.cells;
        if width == 2 {
            cells[c] = Cell::new(content, pen, WIDE);
            cells[c + 1] = Cell::new(b' ' as u32, pen, WIDE_CONT);
        } else {
            cells[c] = Cell::new(content, pen, 0);
        }
        self.last_print = Some((row, col));
        self.last_char = Some((content, width));
        let next = col + w;
        if next > edge {
            buf.col = edge;
            buf.pending_wrap = autowrap;
        } else {
            buf.col = next;
            buf.pending_wrap = false;
        }
    }

    /// Before cells `from..to` of `row` are overwritten, blanks both halves of any wide
    /// character that straddles either edge.
    fn fix_wide(&mut self, row: u16, from: u16, to: u16) {
        let cells = &mut self.buf_mut().rows[usize::from(row)].cells;
        split_wide(cells, usize::from(from));
        split_wide(cells, usize::from(to));
    }

    /// REP (`CSI Ps b`): prints `last`, the graphic character printed right before REP (none
    /// after a control or another sequence), `n` more times.
    pub fn repeat(&mut self, last: Option<(u32, u8)>, n: u16) {
        if let Some((content, width)) = last {
            for _ in 0..n {
                self.put(content, width);
            }
        }
    }

    // ---- cursor ----

    /// Moves the cursor to a screen position, clamped; clears the pending wrap.
    pub fn set_cursor(&mut self, row: u16, col: u16) {
        let (rows, cols) = (self.size.rows, self.size.cols);
        let buf = self.buf_mut();
        buf.row = row.min(rows - 1);
        buf.col = col.min(cols - 1);
        buf.pending_wrap = false;
    }

    /// CUP/HVP: 0-based `row`, `col`, relative to the scroll region under DECOM.
    pub fn goto(&mut self, row: u16, col: u16) {
        if self.modes.origin {
            let row = self.top.saturating_add(row).min(self.bottom);
            let col = self.left.saturating_add(col).min(self.right);
            self.set_cursor(row, col);
        } else {
            self.set_cursor(row, col);
        }
    }

    /// VPA: row only.
    pub fn goto_row(&mut self, row: u16) {
        let col = self.buf().col;
        self.goto(row, col);
    }

    /// CHA/HPA: column only.
    pub fn goto_col(&mut self, col: u16) {
        let row = self.buf().row;
        let col = if self.modes.origin {
            self.left.saturating_add(col).min(self.right)
        } else {
            col
        };
        self.set_cursor(row, col);
    }

    /// CUU: up `n`, stopping at the top margin when starting inside the region.
    pub fn up(&mut self, n: u16) {
        let (row, col) = (self.buf().row, self.buf().col);
        let limit = if row >= self.top { self.top } else { 0 };
        self.set_cursor(row.saturating_sub(n).max(limit), col);
    }

    /// CUD: down `n`, stopping at the bottom margin when starting inside the region.
    pub fn down(&mut self, n: u16) {
        let (row, col) = (self.buf().row, self.buf().col);
        let limit = if row <= self.bottom {
            self.bottom
        } else {
            self.size.rows - 1
        };
        self.set_cursor(row.saturating_add(n).min(limit), col);
    }

    /// CUF.
    pub fn forward(&mut self, n: u16) {
        let (row, col) = (self.buf().row, self.buf().col);
        // Stops at the right margin when starting left of it.
        let limit = if col <= self.right {
            self.right
        } else {
            self.size.cols - 1
        };
        self.set_cursor(row, col.saturating_add(n).min(limit));
    }

    /// CUB (and BS for `n` = 1): a pending wrap is cleared first, so BS after the last column
    /// lands on the column before it (xterm).
    pub fn backward(&mut self, n: u16) {
        let (row, col) = (self.buf().row, self.buf().col);
        if self.modes.reverse_wrap && self.modes.autowrap {
            // Reverse wraparound (xterm): a pending wrap is cancelled by the first step; the
            // rest count back through the rows above, from the top row to the bottom one.
            // Within the left and right margins the rows are the margins' width.
            let n = u32::from(n) - u32::from(self.buf().pending_wrap);
            let (left, right) = if self.col_in_lr_margins() {
                (self.left, self.right)
            } else {
                (0, self.size.cols - 1)
            };
            // From the top margin's row at the left margin, xterm 379 goes to the right
            // margin of the bottom margin's row, whatever the count (checked with
            // scripts/xterm-oracle.py; reverse_wrap.txt).
            if n > 0 && row == self.top && col == left {
                self.set_cursor(self.bottom, right);
                return;
            }
            let rows = u32::from(self.size.rows);
            let cols = u32::from(right - left) + 1;
            let at = u32::from(row) * cols + u32::from(col - left);
            let to = (at + rows * cols - n % (rows * cols)) % (rows * cols);
            self.set_cursor((to / cols) as u16, left + (to % cols) as u16);
            return;
        }
        // Stops at the left margin when starting right of it.
        let limit = if col >= self.left { self.left } else { 0 };
        self.set_cursor(row, col.saturating_sub(n).max(limit));
    }

    /// VPR (`CSI Ps e`): down `n` rows of the screen; unlike CUD it does not stop at the
    /// bottom margin, except in origin mode (xterm).
    pub fn down_rows(&mut self, n: u16) {
        let (row, col) = (self.buf().row, self.buf().col);
        let limit = if self.modes.origin {
            self.bottom
        } else {
            self.size.rows - 1
        };
        self.set_cursor(row.saturating_add(n).min(limit), col);
    }

    pub fn carriage_return(&mut self) {
        // To the left margin, or column 0 from left of it.
        let left = if self.buf().col >= self.left {
            self.left
        } else {
            0
        };
        let buf = self.buf_mut();
        buf.col = left;
        buf.pending_wrap = false;
    }

    /// CR then LF, as two `execute` calls would do them (LNM's extra CR changes nothing after
    /// a CR): the end of nearly every line of output, taken in one call.
    #[inline]
    pub fn carriage_return_linefeed(&mut self) {
        self.last_print = None;
        self.last_char = None;
        self.carriage_return();
        self.index();
    }

    /// LF, VT, FF: index, plus carriage return under LNM.
    pub fn linefeed(&mut self) {
        if self.modes.newline {
            self.carriage_return();
        }
        self.index();
    }

    /// IND: down one row, scrolling the region when at its bottom margin.
    pub fn index(&mut self) {
        let buf = self.buf_mut();
        buf.pending_wrap = false;
        let row = buf.row;
        if row == self.bottom {
            // Outside the left and right margins the bottom margin does not scroll.
            if self.col_in_lr_margins() {
                self.scroll_up(1);
            }
        } else if row + 1 < self.size.rows {
            self.buf_mut().row = row + 1;
        }
    }

    /// RI: up one row, scrolling the region down when at its top margin.
    pub fn reverse_index(&mut self) {
        let buf = self.buf_mut();
        buf.pending_wrap = false;
        let row = buf.row;
        if row == self.top {
            if self.col_in_lr_margins() {
                self.scroll_down(1);
            }
        } else if row > 0 {
            self.buf_mut().row = row - 1;
        }
    }

    /// HT / CHT: to the `n`-th next tab stop, or the last column.
    pub fn tab_forward(&mut self, n: u16) {
        let (row, mut col) = (self.buf().row, self.buf().col);
        // The right margin stops it when starting left of it (xterm).
        let cols = if col <= self.right {
            self.right + 1
        } else {
            self.size.cols
        };
        for _ in 0..n {
            col += 1;
            while col < cols - 1 && !self.tabs[usize::from(col)] {
                col += 1;
            }
            if col >= cols - 1 {
                col = cols - 1;
                break;
            }
        }
        // xterm keeps a pending wrap across HT (the next character still wraps).
        let pending = self.buf().pending_wrap;
        self.set_cursor(row, col);
        self.buf_mut().pending_wrap = pending;
    }

    /// CBT: to the `n`-th previous tab stop, or column 0.
    pub fn tab_backward(&mut self, n: u16) {
        let (row, mut col) = (self.buf().row, self.buf().col);
        for _ in 0..n {
            if col == 0 {
                break;
            }
            col -= 1;
            while col > 0 && !self.tabs[usize::from(col)] {
                col -= 1;
            }
        }
        // As HT, xterm keeps a pending wrap across CBT, even though the cursor moved back.
        let pending = self.buf().pending_wrap;
        self.set_cursor(row, col);
        self.buf_mut().pending_wrap = pending;
    }

    /// HTS: a tab stop at the cursor column.
    pub fn set_tab(&mut self) {
        let col = usize::from(self.buf().col);
        if let Some(t) = self.tabs.get_mut(col) {
            *t = true;
        }
    }

    /// TBC: 0 clears the stop at the cursor, 3 every stop.
    pub fn clear_tabs(&mut self, mode: u16) {
        match mode {
            0 => {
                let col = usize::from(self.buf().col);
                if let Some(t) = self.tabs.get_mut(col) {
                    *t = false;
                }
            }
            3 => self.tabs.iter_mut().for_each(|t| *t = false),
            _ => {}
        }
    }

    // ---- scrolling ----

    /// Keeps `row`'s text in history (main screen only), dropping the oldest row when full.
    fn push_history(&mut self, row: &Row) {
        self.rows_scrolled += 1;
        push_history_row(&mut self.history, self.history_cap, |h| {
            h.repack(row, &mut self.history_spare)
        });
    }

    /// SU and scrolling at the bottom margin: the region's rows move up `n`; rows leaving the
    /// top of a region that starts at the screen's top go to history (main screen, as xterm).
    pub fn scroll_up(&mut self, n: u16) {
        let (top, bottom) = (self.top, self.bottom);
        if n == 1 && top == 0 && bottom == self.size.rows - 1 && !self.lr_margins_set() {
            self.scroll_screen_up_one();
            return;
        }
        if self.lr_margins_set() {
            self.scroll_rect(top, bottom, n, true);
            return;
        }
        let n = n.min(bottom - top + 1);
        let style = self.erase_style();
        let cols = self.size.cols;
        let full = top == 0 && bottom == self.size.rows - 1;
        let keep = top == 0 && !self.alt_active;
        for _ in 0..n {
            let mut row = if full {
                self.buf_mut().rows.pop_front()
            } else {
                self.buf_mut().rows.remove(usize::from(top))
            }
            .unwrap_or_else(|| Row::new(cols, style));
            if keep {
                self.push_history(&row);
            }
            row.reset(cols, style);
            if full {
                self.buf_mut().rows.push_back(row);
            } else {
                self.buf_mut().rows.insert(usize::from(bottom), row);
            }
        }
        self.last_print = None;
    }

    /// [`Self::scroll_up`] by one row with no margins set, as every line feed at the bottom of
    /// a plain screen does: the top row is packed into history in place of the row history
    /// drops, then cleared and moved to the bottom; no row is allocated.
    fn scroll_screen_up_one(&mut self) {
        let style = self.erase_style();
        let cols = self.size.cols;
        let alt = self.alt_active;
        let buf = if alt { &mut self.alt } else { &mut self.main };
        // Rows move before they are written, never after: a row moved right after its fields
        // were stored one by one stalls on store forwarding (a third of this function's time).
        let Some(top) = buf.rows.pop_front() else {
            return;
        };
        buf.rows.push_back(top);
        let Some(row) = buf.rows.back_mut() else {
            return;
        };
        if !alt {
            self.rows_scrolled += 1;
            push_history_row(&mut self.history, self.history_cap, |h| {
                h.repack(row, &mut self.history_spare)
            });
        }
        row.reset(cols, style);
        self.last_print = None;
    }

    /// Writes whole lines of `bytes` while each is a run of printable ASCII narrower than the
    /// screen followed by CR LF, with the cursor at the start of the bottom row of a plain
    /// screen (no margins, insert mode off, ASCII in GL): what a flood like `yes` or `cat` is
    /// made of. Each line is written and scrolled as [`Self::print_ascii`] and
    /// [`Self::carriage_return_linefeed`] would, without their per-call checks. Returns the
    /// bytes taken (0 when the cursor or modes are not so, or the first line is not such).
    #[inline(never)]
    pub fn print_plain_lines(&mut self, bytes: &[u8]) -> usize {
        let (rows, cols) = (self.size.rows, usize::from(self.size.cols));
        if self.modes.insert
            || self.charsets.get(self.gl) != Some(&Charset::Ascii)
            || self.lr_margins_set()
            || self.top != 0
            || self.bottom != rows - 1
        {
            return 0;
        }
        let buf = self.buf();
        if buf.pending_wrap || buf.col != 0 || buf.row != rows - 1 {
            return 0;
        }
        let pen = self.pen;
        let erase_default = self.erase_style() == CellStyle::DEFAULT;
        let mut tried_batch = false;
        let mut i = 0;
        loop {
            let rest = &bytes[i..];
            let Some(mut row) = self.buf_mut().rows.back_mut() else {
                break;
            };
            let n = unicode::printable_ascii_len(rest);
            // Not into the last column, so no wrap becomes pending.
            if n >= cols || rest.get(n..n + 2) != Some(b"\r\n") {
                break;
            }
            // From the second line on, the bottom row is default blanks (a scroll just left
            // it) and every line that leaves the screen can go to history without passing
            // through it. Tried once, as it counts the lines ahead; not on the first line, so
            // that output mixing plain lines and others (`ls`) does not pay for the count.
            if i > 0 && erase_default && row.dirty_end == 0 && !tried_batch {
                tried_batch = true;
                let taken = self.print_plain_lines_past_the_screen(rest, pen);
                if taken > 0 {
                    i += taken;
                    break;
                }
                let Some(r) = self.buf_mut().rows.back_mut() else {
                    break;
                };
                row = r;
            }
            let cells = &mut row.cells[..n];
            // A wide character's half would need its other half blanked: the general path.
            if cells.iter().any(|c| c.flags() != 0) {
                break;
            }
            for (cell, &b) in cells.iter_mut().zip(&rest[..n]) {
                *cell = Cell::new(u32::from(b), pen, 0);
            }
            row.touch(n);
            self.scroll_screen_up_one();
            i += n + 2;
        }
        if i > 0 {
            self.last_char = None;
        }
        i
    }

    /// [`Self::print_plain_lines`] for at least a screenful of lines, with the bottom row all
    /// default blanks and a default erase style: the rows above the bottom one, then every line
    /// but the last `rows - 1`, go to history (those lines packed straight from `bytes`); the
    /// last `rows - 1` lines are written into the rows above the bottom one, which stays blank.
    /// The same rows, history and count of scrolled rows as a scroll per line. Returns the
    /// bytes taken (0, having done nothing, for fewer lines).
    #[inline(never)]
    fn print_plain_lines_past_the_screen(&mut self, bytes: &[u8], pen: CellStyle) -> usize {
        let cols = usize::from(self.size.cols);
        let keep = usize::from(self.size.rows) - 1;
        let (mut lines, mut end) = (0, 0);
        for n in unicode::PlainLines::new(bytes, cols) {
            lines += 1;
            end += n + 2;
        }
        if lines < keep {
            return 0;
        }
        let gone = lines - keep;
        let alt = self.alt_active;
        let buf = if alt { &mut self.alt } else { &mut self.main };
        let mut at = 0;
        let mut plain = unicode::PlainLines::new(bytes, cols);
        if !alt {
            self.rows_scrolled += lines as u64;
            // Rows pushed only to be dropped again by later ones are not packed at all.
            let mut skip = (keep + gone).saturating_sub(self.history_cap);
            for row in buf.rows.iter().take(keep) {
                if skip > 0 {
                    skip -= 1;
                } else {
                    push_history_row(&mut self.history, self.history_cap, |h| {
                        h.repack(row, &mut self.history_spare)
                    });
                }
            }
            for n in plain.by_ref().take(gone) {
                if skip > 0 {
                    skip -= 1;
                } else {
                    let text = &bytes[at..at + n];
                    push_history_row(&mut self.history, self.history_cap, |h| {
                        h.repack_ascii(text, pen, &mut self.history_spare)
                    });
                }
                at += n + 2;
            }
        } else {
            for n in plain.by_ref().take(gone) {
                at += n + 2;
            }
        }
        let cols = self.size.cols;
        for row in buf.rows.iter_mut().take(keep) {
            let n = plain.next().unwrap_or(0);
            row.reset(cols, CellStyle::DEFAULT);
            for (cell, &b) in row.cells.iter_mut().zip(&bytes[at..at + n]) {
                *cell = Cell::new(u32::from(b), pen, 0);
            }
            row.touch(n);
            at += n + 2;
        }
        self.last_print = None;
        end
    }

    /// SD and RI at the top margin: the region's rows move down `n`; blank rows enter at the top.
    pub fn scroll_down(&mut self, n: u16) {
        let (top, bottom) = (self.top, self.bottom);
        if self.lr_margins_set() {
            self.scroll_rect(top, bottom, n, false);
            return;
        }
        let n = n.min(bottom - top + 1);
        let style = self.erase_style();
        let cols = self.size.cols;
        for _ in 0..n {
            let buf = self.buf_mut();
            let mut row = buf
                .rows
                .remove(usize::from(bottom))
                .unwrap_or_else(|| Row::new(cols, style));
            row.reset(cols, style);
            buf.rows.insert(usize::from(top), row);
        }
        self.last_print = None;
    }

    /// DECSTBM: 0-based inclusive margins (already defaulted); an invalid region is ignored.
    /// The cursor goes home (to the region's top under DECOM).
    pub fn set_scroll_region(&mut self, top: u16, bottom: u16) {
        let bottom = bottom.min(self.size.rows - 1);
        if top >= bottom {
            return;
        }
        self.top = top;
        self.bottom = bottom;
        self.goto(0, 0);
    }

    /// IL: `n` blank rows at the cursor row, pushing rows below down within the region.
    pub fn insert_lines(&mut self, n: u16) {
        let row = self.buf().row;
        if row < self.top || row > self.bottom || !self.col_in_lr_margins() {
            return;
        }
        let saved = self.top;
        self.top = row;
        self.scroll_down(n);
        self.top = saved;
        self.carriage_return();
    }

    /// DL: removes `n` rows at the cursor row, pulling rows below up within the region.
    pub fn delete_lines(&mut self, n: u16) {
        let row = self.buf().row;
        if row < self.top || row > self.bottom || !self.col_in_lr_margins() {
            return;
        }
        if self.lr_margins_set() {
            self.scroll_rect(row, self.bottom, n, true);
            self.carriage_return();
            return;
        }
        let (top, bottom) = (self.top, self.bottom);
        let n = n.min(bottom - row + 1);
        let style = self.erase_style();
        let cols = self.size.cols;
        for _ in 0..n {
            let buf = self.buf_mut();
            let mut r = buf
                .rows
                .remove(usize::from(row))
                .unwrap_or_else(|| Row::new(cols, style));
            r.reset(cols, style);
            buf.rows.insert(usize::from(bottom), r);
        }
        let _ = top;
        self.carriage_return();
    }

    // ---- erasing and editing within a row ----

    /// Blanks cells `from..to` of `row` in the erase style.
    fn erase_cells(&mut self, row: u16, from: u16, to: u16) {
        let to = to.min(self.size.cols);
        if from >= to {
            return;
        }
        self.fix_wide(row, from, to);
        let style = self.erase_style();
        let cols = self.size.cols;
        let r = &mut self.buf_mut().rows[usize::from(row)];
        let (from, to) = (usize::from(from), usize::from(to));
        if style == CellStyle::DEFAULT {
            // Cells from `dirty_end` on are default blanks already: an erase to the end of the
            // row (EL after each line a full-screen program draws) blanks only the text left
            // from before, and leaves the row known blank from `from`.
            let dirty = usize::from(r.dirty_end).min(r.cells.len());
            if from < dirty {
                r.cells[from..to.min(dirty)].fill(Cell::blank(style));
                if to >= dirty {
                    r.dirty_end = from as u16;
                }
            }
        } else {
            r.cells[from..to].fill(Cell::blank(style));
            r.touch(to);
        }
        if to == usize::from(cols) {
            r.wrapped = false;
        }
    }

    /// EL: 0 cursor to end, 1 start to cursor, 2 whole row.
    pub fn erase_in_line(&mut self, mode: u16) {
        let (row, col) = (self.buf().row, self.buf().col);
        let cols = self.size.cols;
        match mode {
            0 => self.erase_cells(row, col, cols),
            1 => self.erase_cells(row, 0, col + 1),
            2 => self.erase_cells(row, 0, cols),
            _ => return,
        }
        self.buf_mut().pending_wrap = false;
    }

    /// ED: 0 cursor to end, 1 start to cursor, 2 whole screen, 3 history (xterm).
    pub fn erase_in_display(&mut self, mode: u16) {
        let (row, col) = (self.buf().row, self.buf().col);
        if !self.alt_active && (mode == 2 || (mode == 0 && row == 0 && col == 0)) {
            self.main_screen_erased();
        }
        let (rows, cols) = (self.size.rows, self.size.cols);
        match mode {
            0 => {
                self.erase_cells(row, col, cols);
                for r in row + 1..rows {
                    self.erase_cells(r, 0, cols);
                }
            }
            1 => {
                for r in 0..row {
                    self.erase_cells(r, 0, cols);
                }
                self.erase_cells(row, 0, col + 1);
            }
            2 => {
                for r in 0..rows {
                    self.erase_cells(r, 0, cols);
                }
            }
            3 => self.history.clear(),
            _ => return,
        }
        self.buf_mut().pending_wrap = false;
    }

    /// ECH: blanks `n` cells from the cursor without moving it.
    pub fn erase_chars(&mut self, n: u16) {
        let (row, col) = (self.buf().row, self.buf().col);
        self.erase_cells(row, col, col.saturating_add(n));
        self.buf_mut().pending_wrap = false;
    }

    /// Shifts cells from `col` right by `n` within `row`; cells pushed past the edge are lost.
    fn insert_blanks(&mut self, row: u16, col: u16, n: u16) {
        let cols = usize::from(self.size.cols);
        let (c, n) = (
            usize::from(col),
            usize::from(n).min(cols - usize::from(col)),
        );
        self.fix_wide(row, col, col);
        let style = self.erase_style();
        let r = &mut self.buf_mut().rows[usize::from(row)];
        // Content moves right by `n`; the inserted blanks may carry a background.
        let end = usize::from(r.dirty_end) + n;
        r.touch(if style == CellStyle::DEFAULT {
            end
        } else {
            end.max(c + n)
        });
        let cells = &mut r.cells;
        // The pair cut by the right edge goes blank.
        split_wide(cells, cols - n);
        cells[c..].rotate_right(n);
        cells[c..c + n].fill(Cell::blank(style));
    }

    /// ICH: `n` blanks at the cursor.
    pub fn insert_chars(&mut self, n: u16) {
        let (row, col) = (self.buf().row, self.buf().col);
        if self.lr_margins_set() {
            if self.col_in_lr_margins() {
                self.shift_cells(row, col, self.right, n, true);
            }
        } else {
            self.insert_blanks(row, col, n);
        }
        self.buf_mut().pending_wrap = false;
    }

    /// DCH: removes `n` cells at the cursor; blanks enter at the right edge.
    pub fn delete_chars(&mut self, n: u16) {
        let (row, col) = (self.buf().row, self.buf().col);
        if self.lr_margins_set() {
            if self.col_in_lr_margins() {
                self.shift_cells(row, col, self.right, n, false);
            }
            self.buf_mut().pending_wrap = false;
            return;
        }
        let cols = usize::from(self.size.cols);
        let c = usize::from(col);
        let n = usize::from(n).min(cols - c);
        self.fix_wide(row, col, (c + n) as u16);
        let style = self.erase_style();
        let r = &mut self.buf_mut().rows[usize::from(row)];
        if style != CellStyle::DEFAULT {
            r.touch(cols);
        }
        let cells = &mut r.cells;
        cells[c..].rotate_left(n);
        cells[cols - n..].fill(Cell::blank(style));
        self.buf_mut().pending_wrap = false;
    }

    // ---- left and right margins ----

    /// Whether left and right margins narrower than the screen are in effect.
    #[inline]
    pub fn lr_margins_set(&self) -> bool {
        self.left != 0 || self.right != self.size.cols - 1
    }

    /// Whether the cursor's column lies within the left and right margins.
    #[inline]
    fn col_in_lr_margins(&self) -> bool {
        let col = self.buf().col;
        col >= self.left && col <= self.right
    }

    /// The margins back to the whole width.
    pub fn reset_lr_margins(&mut self) {
        self.left = 0;
        self.right = self.size.cols - 1;
    }

    /// DECLRMM (`CSI ? 69 h/l`); resetting it removes the margins.
    pub fn set_lr_margin_mode(&mut self, on: bool) {
        self.modes.lr_margin_mode = on;
        if !on {
            self.reset_lr_margins();
        }
    }

    /// DECSLRM: 0-based inclusive margins (already defaulted); an invalid pair is ignored.
    /// The cursor goes home (to the margins' corner under DECOM).
    pub fn set_lr_margins(&mut self, left: u16, right: u16) {
        let right = right.min(self.size.cols - 1);
        if left >= right {
            return;
        }
        self.left = left;
        self.right = right;
        self.goto(0, 0);
    }

    /// Moves cells `from..=to` of `row` right (`to_right`) or left by `n`; the cells pushed
    /// past the end are lost and blanks in the erase style enter at the other end.
    fn shift_cells(&mut self, row: u16, from: u16, to: u16, n: u16, to_right: bool) {
        let (f, t) = (usize::from(from), usize::from(to) + 1);
        if f >= t {
            return;
        }
        let n = usize::from(n).min(t - f);
        let style = self.erase_style();
        let r = &mut self.buf_mut().rows[usize::from(row)];
        r.touch(t);
        let cells = &mut r.cells;
        split_wide(cells, f);
        split_wide(cells, t);
        let cells = &mut cells[f..t];
        let len = cells.len();
        if to_right {
            split_wide(cells, len - n);
            cells.rotate_right(n);
            cells[..n].fill(Cell::blank(style));
        } else {
            split_wide(cells, n);
            cells.rotate_left(n);
            cells[len - n..].fill(Cell::blank(style));
        }
        // A wide pair cut at either end of the moved block goes blank.
        if cells[0].flags() & WIDE_CONT != 0 {
            cells[0] = Cell::blank(style);
        }
        if cells[len - 1].flags() & WIDE != 0 {
            cells[len - 1] = Cell::blank(style);
        }
    }

    /// Scrolls the block of rows `top..=bottom` between the left and right margins up
    /// (`up`) or down by `n`; blank cells enter. No row goes to history (xterm).
    fn scroll_rect(&mut self, top: u16, bottom: u16, n: u16, up: bool) {
        let n = n.min(bottom - top + 1);
        let (l, r) = (usize::from(self.left), usize::from(self.right) + 1);
        let style = self.erase_style();
        let buf = self.buf_mut();
        for row in top..=bottom {
            let cells = &mut buf.rows[usize::from(row)].cells;
            split_wide(cells, l);
            split_wide(cells, r);
        }
        let rows: Vec<u16> = if up {
            (top..=bottom).collect()
        } else {
            (top..=bottom).rev().collect()
        };
        for (i, &dst) in rows.iter().enumerate() {
            let block: Vec<Cell> = match rows.get(i + usize::from(n)) {
                Some(&src) => buf.rows[usize::from(src)].cells[l..r].to_vec(),
                None => vec![Cell::blank(style); r - l],
            };
            let row = &mut buf.rows[usize::from(dst)];
            row.cells[l..r].copy_from_slice(&block);
            row.touch(r);
        }
        self.last_print = None;
    }

    /// SL (`CSI Ps SP @`) and SR (`CSI Ps SP A`): the rows of the scroll region, between the
    /// left and right margins, move left or right `n` columns; nothing happens when the cursor
    /// is outside that block (xterm).
    pub fn scroll_columns(&mut self, n: u16, to_right: bool) {
        let row = self.buf().row;
        if row < self.top || row > self.bottom || !self.col_in_lr_margins() {
            return;
        }
        for r in self.top..=self.bottom {
            self.shift_cells(r, self.left, self.right, n, to_right);
        }
    }

    /// DECIC (`CSI Ps ' }`) and DECDC (`CSI Ps ' ~`): `n` blank columns inserted at, or `n`
    /// columns deleted from, the cursor's column in every row of the scroll region, up to the
    /// right margin; nothing happens when the cursor is outside the margins.
    pub fn edit_columns(&mut self, n: u16, insert: bool) {
        let (row, col) = (self.buf().row, self.buf().col);
        if row < self.top || row > self.bottom || !self.col_in_lr_margins() {
            return;
        }
        for r in self.top..=self.bottom {
            self.shift_cells(r, col, self.right, n, insert);
        }
    }

    /// DECALN: fills the screen with `E`, resets margins, cursor home.
    pub fn alignment_test(&mut self) {
        let cols = self.size.cols;
        for r in self.buf_mut().rows.iter_mut() {
            r.reset(cols, CellStyle::DEFAULT);
            r.cells
                .fill(Cell::new(u32::from(b'E'), CellStyle::DEFAULT, 0));
            r.touch(usize::from(cols));
        }
        self.top = 0;
        self.bottom = self.size.rows - 1;
        self.reset_lr_margins();
        self.set_cursor(0, 0);
    }

    // ---- cursor save/restore, screens ----

    /// DECSC.
    pub fn save_cursor(&mut self) {
        let saved = SavedCursor {
            row: self.buf().row,
            col: self.buf().col,
            pending_wrap: self.buf().pending_wrap,
            pen: self.pen,
            origin: self.modes.origin,
            charsets: self.charsets,
            gl: self.gl,
        };
        self.buf_mut().saved = Some(saved);
    }

    /// DECRC: without a saved state, the cursor goes home and attributes reset (VT510).
    pub fn restore_cursor(&mut self) {
        let s = self.buf().saved.unwrap_or(SavedCursor {
            row: 0,
            col: 0,
            pending_wrap: false,
            pen: CellStyle::DEFAULT,
            origin: false,
            charsets: [Charset::Ascii; 4],
            gl: 0,
        });
        self.pen = s.pen;
        self.modes.origin = s.origin;
        self.charsets = s.charsets;
        self.gl = s.gl;
        self.set_cursor(s.row, s.col);
        self.buf_mut().pending_wrap = s.pending_wrap && s.col == self.size.cols - 1;
    }

    /// Switches to the alternate screen (47, 1047, 1049); `clear` erases it first.
    pub fn enter_alt(&mut self, clear: bool) {
        if self.alt.rows.is_empty() {
            self.alt.rows = (0..self.size.rows)
                .map(|_| Row::new(self.size.cols, CellStyle::DEFAULT))
                .collect();
        }
        if !self.alt_active {
            let (row, col) = (self.main.row, self.main.col);
            self.alt_active = true;
            self.alt.row = row;
            self.alt.col = col;
            self.alt.pending_wrap = false;
        }
        if clear {
            let (cols, style) = (self.size.cols, self.erase_style());
            for r in self.alt.rows.iter_mut() {
                r.reset(cols, style);
            }
        }
        self.last_print = None;
    }

    /// Back to the main screen; `clear` erases the alternate screen on the way (1047). The
    /// cursor stays where it is (xterm has one cursor; 1049 restores it afterwards).
    pub fn leave_alt(&mut self, clear: bool) {
        if self.alt_active {
            self.main.row = self.alt.row;
            self.main.col = self.alt.col;
            self.main.pending_wrap = false;
            if clear {
                let cols = self.size.cols;
                for r in self.alt.rows.iter_mut() {
                    r.reset(cols, CellStyle::DEFAULT);
                }
            }
            self.alt_active = false;
        }
        self.last_print = None;
    }

    // ---- resets ----

    /// DECSTR (`CSI ! p`), soft reset: modes and margins to defaults, the screen is kept.
    pub fn soft_reset(&mut self) {
        let style = self.modes.cursor_style;
        self.modes = ModeState {
            cursor_style: style,
            ..ModeState::default()
        };
        self.top = 0;
        self.bottom = self.size.rows - 1;
        self.reset_lr_margins();
        self.pen = CellStyle::DEFAULT;
        self.charsets = [Charset::Ascii; 4];
        self.gl = 0;
        self.main.saved = None;
        self.alt.saved = None;
    }

    /// RIS (`ESC c`): everything back to power-on state, history included, except the title,
    /// which xterm 379 keeps (both checked with the xterm oracle: xterm keeps no saved line
    /// from before a RIS); the working directory, shell-integration state and kitty flags go.
    /// The command log stays, its open record included (`reset` ends with its own `D`); its
    /// records' rows count as no longer kept, as rows that left the history do
    /// (`main_screen_erased`, then the lifetime row count carries on).
    pub fn full_reset(&mut self) {
        self.main_screen_erased();
        let mut fresh = Screen::new(self.size, self.history_cap);
        fresh.rows_scrolled = self.rows_scrolled;
        fresh.log = core::mem::take(&mut self.log);
        fresh.log.pending = None;
        fresh.now_ms = self.now_ms;
        fresh.replies = core::mem::take(&mut self.replies);
        fresh.bell = self.bell;
        fresh.clipboard = self.clipboard.take();
        fresh.progress = self.progress;
        fresh.progress_changed = self.progress_changed.take();
        fresh.dynamic_colors = self.dynamic_colors;
        fresh.sequence_ended = self.sequence_ended;
        fresh.title_changed = self.title_changed;
        fresh.title = self.title.take();
        // Links in history stay resolvable.
        fresh.links = core::mem::take(&mut self.links);
        fresh.link_index = core::mem::take(&mut self.link_index);
        fresh.clusters = core::mem::take(&mut self.clusters);
        *self = fresh;
    }

    // ---- resize ----

    /// Resizes both screens. A new width reflows the main screen and its history
    /// (`reflow.rs`); the alternate screen's columns are cut or padded on the right (xterm.js
    /// does not reflow it either: the program redraws). When only the height changes, or on the
    /// alternate screen, rows that shrink lose blank rows below the cursor first, then rows from
    /// the top go to history (main screen), so the cursor's row stays visible; growing adds rows
    /// at the bottom.
    pub fn resize(&mut self, size: Size) {
        if size == self.size {
            return;
        }
        let old = self.size;
        for alt in [false, true] {
            if alt && self.alt.rows.is_empty() {
                continue; // not allocated yet: enter_alt builds it at the new size
            }
            if !alt && size.cols != old.cols {
                self.reflow_main(size);
                continue;
            }
            let mut lost_top = Vec::new();
            {
                let buf = if alt { &mut self.alt } else { &mut self.main };
                for r in buf.rows.iter_mut() {
                    r.set_len(usize::from(size.cols));
                    if let Some(last) = r.cells.last_mut() {
                        if last.flags() & WIDE != 0 {
                            *last = Cell::blank(last.style);
                        }
                    }
                    if size.cols != old.cols {
                        r.wrapped = false;
                    }
                }
                while buf.rows.len() > usize::from(size.rows) {
                    let last = buf.rows.len() - 1;
                    if usize::from(buf.row) < last && buf.rows[last].used_len() == 0 {
                        buf.rows.pop_back();
                    } else {
                        if let Some(r) = buf.rows.pop_front() {
                            lost_top.push(r);
                        }
                        buf.row = buf.row.saturating_sub(1);
                        if let Some(s) = buf.saved.as_mut() {
                            s.row = s.row.saturating_sub(1);
                        }
                    }
                }
                while buf.rows.len() < usize::from(size.rows) {
                    buf.rows.push_back(Row::new(size.cols, CellStyle::DEFAULT));
                }
                buf.row = buf.row.min(size.rows - 1);
                buf.col = buf.col.min(size.cols - 1);
                buf.pending_wrap = false;
                if let Some(s) = buf.saved.as_mut() {
                    s.row = s.row.min(size.rows - 1);
                    s.col = s.col.min(size.cols - 1);
                }
            }
            if !alt {
                for r in lost_top {
                    self.push_history(&r);
                }
            }
        }
        self.size = size;
        let mut tabs = default_tabs(size.cols);
        let keep = usize::from(old.cols.min(size.cols));
        tabs[..keep].copy_from_slice(&self.tabs[..keep]);
        self.tabs = tabs;
        self.top = 0;
        self.bottom = size.rows - 1;
        self.left = 0;
        self.right = size.cols - 1;
        self.last_print = None;
    }

    // ---- OSC state ----

    /// wterm's private wrap mark ([`crate::vt::osc::OSC_WRAP_MARK`]): the cursor row soft-wraps.
    pub fn mark_wrapped(&mut self) {
        let row = self.buf().row;
        self.buf_mut().rows[usize::from(row)].wrapped = true;
    }

    /// OSC 0/2: a title over [`MAX_TITLE_BYTES`] is cut at a character boundary; empty clears.
    pub fn set_title(&mut self, title: &[u8]) {
        let mut t = String::from_utf8_lossy(title).into_owned();
        if t.len() > MAX_TITLE_BYTES {
            let mut cut = MAX_TITLE_BYTES;
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            t.truncate(cut);
        }
        self.title = if t.is_empty() { None } else { Some(t) };
        self.title_changed = true;
    }

    /// OSC 8: starts a hyperlink for following text, or ends it (`uri` empty). Only `http:` and
    /// `https:` URIs become links, so a program cannot make the page open `javascript:` or
    /// `file:` URIs; others, and those over [`MAX_LINK_URI_BYTES`], show as plain text.
    pub fn set_link(&mut self, uri: &[u8]) {
        self.pen.set_link(None);
        if uri.is_empty() || uri.len() > MAX_LINK_URI_BYTES {
            return;
        }
        let Ok(uri) = core::str::from_utf8(uri) else {
            return;
        };
        let lower = uri.get(..8).unwrap_or(uri).to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            return;
        }
        if let Some(&id) = self.link_index.get(uri) {
            self.pen.set_link(Some(id));
            return;
        }
        if self.links.len() >= MAX_LINKS {
            return;
        }
        self.links.push(uri.into());
        if let Some(id) = LinkId::new(self.links.len() as u16) {
            self.link_index.insert(uri.into(), id);
            self.pen.set_link(Some(id));
        }
    }

    pub fn link_uri(&self, id: LinkId) -> Option<&str> {
        self.links.get(usize::from(id.get()) - 1).map(|s| &**s)
    }

    // ---- kitty keyboard flags ----

    pub fn kitty_flags(&self) -> u8 {
        self.buf().kitty.last().copied().unwrap_or(0)
    }

    pub fn kitty_push(&mut self, flags: u8) {
        let stack = &mut self.buf_mut().kitty;
        if stack.len() >= KITTY_STACK_DEPTH {
            stack.remove(0);
        }
        stack.push(flags);
    }

    pub fn kitty_pop(&mut self, n: usize) {
        let stack = &mut self.buf_mut().kitty;
        let keep = stack.len().saturating_sub(n);
        stack.truncate(keep);
    }

    pub fn kitty_set(&mut self, flags: u8, mode: u16) {
        let stack = &mut self.buf_mut().kitty;
        let cur = stack.last().copied().unwrap_or(0);
        let new = match mode {
            2 => cur | flags,
            3 => cur & !flags,
            _ => flags,
        };
        match stack.last_mut() {
            Some(top) => *top = new,
            None => stack.push(new),
        }
    }

    /// DECSCUSR `Ps`: 0/1 blinking block, 2 steady block, 3/4 underline, 5/6 bar.
    pub fn set_cursor_style(&mut self, ps: u16) {
        let (shape, blink) = match ps {
            0 | 1 => (CursorShape::Block, true),
            2 => (CursorShape::Block, false),
            3 => (CursorShape::Underline, true),
            4 => (CursorShape::Underline, false),
            5 => (CursorShape::Bar, true),
            6 => (CursorShape::Bar, false),
            _ => return,
        };
        self.modes.cursor_style = CursorStyle { shape, blink };
    }
}

/// Pushes a row into `history` (at most `cap` rows) by packing it with `pack` into the slot of
/// the row it drops when full (rows move before they are written, see
/// `Screen::scroll_screen_up_one`), or into a new one.
#[inline]
fn push_history_row(
    history: &mut VecDeque<HistoryRow>,
    cap: usize,
    pack: impl FnOnce(&mut HistoryRow),
) {
    if cap == 0 {
        return;
    }
    if history.len() >= cap {
        if let Some(oldest) = history.pop_front() {
            history.push_back(oldest);
        }
    } else {
        history.push_back(HistoryRow::EMPTY);
    }
    if let Some(h) = history.back_mut() {
        pack(h);
    }
}

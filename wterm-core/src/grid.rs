//! Cell storage: [`Cell`], [`Row`], and the [`Clusters`] interner for cells holding more than
//! one character (grapheme clusters).

use std::collections::HashMap;

use crate::limits::{MAX_CLUSTERS, MAX_CLUSTER_BYTES};
use crate::terminal::{Color, LinkId, Style};

/// The cell is the first half of a character two columns wide.
pub(crate) const WIDE: u8 = 1;
/// The cell is the second half of a wide character; it has no content of its own.
pub(crate) const WIDE_CONT: u8 = 2;

/// First content value naming an interned cluster: values below are Unicode scalar values.
const CLUSTER_BASE: u32 = 0x11_0000;

/// A [`Style`] as cells store it: three words, no padding, that compare as three integers (a
/// `Style` takes 18 bytes and compares field by field). Colors are `tag << 24 | value` (tag 0
/// default, 1 indexed, 2 RGB); `rest` is `link << 8 | attrs`, the SGR attributes one bit each
/// and the link 0 for none, as a [`HistoryRow`] stores it.
#[derive(Debug, Clone, Copy, Eq, Default)]
pub(crate) struct CellStyle {
    fg: u32,
    bg: u32,
    rest: u32,
}

impl PartialEq for CellStyle {
    /// Without branches: history packing compares every cell's style with its neighbour's.
    #[inline]
    fn eq(&self, o: &CellStyle) -> bool {
        (self.fg ^ o.fg) | (self.bg ^ o.bg) | (self.rest ^ o.rest) == 0
    }
}

pub(crate) const ATTR_BOLD: u8 = 1;
pub(crate) const ATTR_DIM: u8 = 2;
pub(crate) const ATTR_ITALIC: u8 = 4;
pub(crate) const ATTR_UNDERLINE: u8 = 8;
pub(crate) const ATTR_INVERSE: u8 = 16;
pub(crate) const ATTR_BLINK: u8 = 32;
pub(crate) const ATTR_HIDDEN: u8 = 64;
pub(crate) const ATTR_STRIKETHROUGH: u8 = 128;

fn pack_color(c: Color) -> u32 {
    match c {
        Color::Default => 0,
        Color::Indexed(i) => 1 << 24 | u32::from(i),
        Color::Rgb(r, g, b) => 2 << 24 | u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b),
    }
}

fn unpack_color(v: u32) -> Color {
    match v >> 24 {
        1 => Color::Indexed(v as u8),
        2 => Color::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8),
        _ => Color::Default,
    }
}

impl CellStyle {
    /// The default style: default colors, no attributes, no link.
    pub const DEFAULT: CellStyle = CellStyle {
        fg: 0,
        bg: 0,
        rest: 0,
    };

    #[inline]
    fn link(self) -> u16 {
        (self.rest >> 8) as u16
    }

    #[inline]
    fn attrs(self) -> u8 {
        self.rest as u8
    }

    #[cfg(test)]
    pub fn pack(s: Style) -> CellStyle {
        let attrs = [
            (s.bold, ATTR_BOLD),
            (s.dim, ATTR_DIM),
            (s.italic, ATTR_ITALIC),
            (s.underline, ATTR_UNDERLINE),
            (s.inverse, ATTR_INVERSE),
            (s.blink, ATTR_BLINK),
            (s.hidden, ATTR_HIDDEN),
            (s.strikethrough, ATTR_STRIKETHROUGH),
        ]
        .iter()
        .fold(0, |a, &(on, bit)| if on { a | bit } else { a });
        CellStyle {
            fg: pack_color(s.fg),
            bg: pack_color(s.bg),
            rest: u32::from(s.link.map_or(0, LinkId::get)) << 8 | u32::from(attrs),
        }
    }

    pub fn unpack(self) -> Style {
        let on = |bit: u8| self.attrs() & bit != 0;
        Style {
            fg: unpack_color(self.fg),
            bg: unpack_color(self.bg),
            bold: on(ATTR_BOLD),
            dim: on(ATTR_DIM),
            italic: on(ATTR_ITALIC),
            underline: on(ATTR_UNDERLINE),
            inverse: on(ATTR_INVERSE),
            blink: on(ATTR_BLINK),
            hidden: on(ATTR_HIDDEN),
            strikethrough: on(ATTR_STRIKETHROUGH),
            link: LinkId::new(self.link()),
        }
    }

    /// Only the background: what erased and scrolled-in cells get (xterm BCE).
    #[inline]
    pub fn background(self) -> CellStyle {
        CellStyle {
            bg: self.bg,
            ..CellStyle::DEFAULT
        }
    }

    #[inline]
    pub fn set_link(&mut self, link: Option<LinkId>) {
        self.rest = u32::from(link.map_or(0, LinkId::get)) << 8 | u32::from(self.attrs());
    }

    /// SGR 0: default colors and attributes; the link stays (OSC 8 owns it).
    #[inline]
    pub fn reset_sgr(&mut self) {
        *self = CellStyle {
            rest: self.rest & !0xff,
            ..CellStyle::DEFAULT
        };
    }

    /// Turns the `ATTR_*` bits of `bits` on or off.
    #[inline]
    pub fn set_attrs(&mut self, bits: u8, on: bool) {
        if on {
            self.rest |= u32::from(bits);
        } else {
            self.rest &= !u32::from(bits);
        }
    }

    #[inline]
    pub fn set_fg(&mut self, c: Color) {
        self.fg = pack_color(c);
    }

    #[inline]
    pub fn set_bg(&mut self, c: Color) {
        self.bg = pack_color(c);
    }
}

/// One cell of the grid, 16 bytes: its content and wide flags in one word, as a [`HistoryRow`]
/// keeps them, then its style. The content is a Unicode scalar value, or `CLUSTER_BASE + n`
/// for the n-th interned grapheme cluster; a blank cell holds a space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cell {
    /// `content | flags << HISTORY_FLAG_SHIFT`.
    word: u32,
    pub style: CellStyle,
}

/// The content bits of a cell word.
const CONTENT_MASK: u32 = (1 << HISTORY_FLAG_SHIFT) - 1;

impl Cell {
    /// A cell holding `content` (below `CLUSTER_BASE + MAX_CLUSTERS`) with `flags` ([`WIDE`],
    /// [`WIDE_CONT`] or 0).
    #[inline]
    pub const fn new(content: u32, style: CellStyle, flags: u8) -> Cell {
        Cell {
            word: content | (flags as u32) << HISTORY_FLAG_SHIFT,
            style,
        }
    }

    #[inline]
    pub const fn content(&self) -> u32 {
        self.word & CONTENT_MASK
    }

    #[inline]
    pub const fn flags(&self) -> u8 {
        (self.word >> HISTORY_FLAG_SHIFT) as u8
    }

    #[inline]
    pub fn set_content(&mut self, content: u32) {
        self.word = content | (self.word & !CONTENT_MASK);
    }

    #[inline]
    pub fn set_flags(&mut self, flags: u8) {
        self.word = (self.word & CONTENT_MASK) | u32::from(flags) << HISTORY_FLAG_SHIFT;
    }

    /// An erased cell: a space in `style` (erasing keeps the background color, ECMA-48 BCE).
    #[inline]
    pub const fn blank(style: CellStyle) -> Cell {
        Cell::new(b' ' as u32, style, 0)
    }

    /// A cell that stores nothing worth keeping: a space in the default style.
    #[inline]
    pub fn is_default_blank(&self) -> bool {
        self.word == b' ' as u32 && self.style == CellStyle::DEFAULT
    }

    /// A space whose style is a background color at most: what erasing leaves ([`Cell::blank`]
    /// with the erase style). Reflow treats trailing ones as padding, not text, as xterm.js
    /// trims erased cells (they hold no content there) and keeps typed spaces.
    #[inline]
    pub fn is_erased(&self) -> bool {
        self.word == b' ' as u32 && self.style == self.style.background()
    }
}

/// A row of cells. Screen rows always hold exactly the screen's width; history rows are stored
/// without trailing default blanks and read back padded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    pub cells: Vec<Cell>,
    /// The program wrote past the last column, so the line continues on the next row.
    pub wrapped: bool,
    /// Every cell from this index on is a default blank (an upper bound: cells before it may
    /// be blank too). Whoever writes a cell that may not be a default blank calls
    /// [`Row::touch`]; it keeps [`Row::used_len`] from scanning a mostly empty row.
    pub dirty_end: u16,
}

impl Row {
    /// The cell at `col`, or a default blank past the row's cells (a row narrower than the
    /// screen after a resize reads as blank there).
    #[inline]
    pub(crate) fn cell_or_blank(&self, col: usize) -> Cell {
        self.cells
            .get(col)
            .copied()
            .unwrap_or(Cell::blank(CellStyle::DEFAULT))
    }

    pub fn new(cols: u16, style: CellStyle) -> Row {
        let mut r = Row {
            cells: Vec::new(),
            wrapped: false,
            dirty_end: u16::MAX,
        };
        r.reset(cols, style);
        r
    }

    /// A history row holding a copy of `cells` (already trimmed).
    pub fn from_cells(cells: Vec<Cell>, wrapped: bool) -> Row {
        let dirty_end = cells.len().min(usize::from(u16::MAX)) as u16;
        Row {
            cells,
            wrapped,
            dirty_end,
        }
    }

    /// Erases every cell to `style` blanks, keeping the width.
    pub fn reset(&mut self, cols: u16, style: CellStyle) {
        if style == CellStyle::DEFAULT && self.cells.len() == usize::from(cols) {
            // Cells past `dirty_end` are default blanks already.
            let end = usize::from(self.dirty_end).min(self.cells.len());
            self.cells[..end].fill(Cell::blank(style));
        } else {
            self.cells.clear();
            self.cells.resize(usize::from(cols), Cell::blank(style));
        }
        self.wrapped = false;
        self.dirty_end = if style == CellStyle::DEFAULT { 0 } else { cols };
    }

    /// Records that cells before `end` may now hold something.
    #[inline]
    pub fn touch(&mut self, end: usize) {
        let end = end.min(self.cells.len()) as u16;
        if end > self.dirty_end {
            self.dirty_end = end;
        }
    }

    /// Records that the row is now `len` cells wide (cut or padded with default blanks).
    pub fn set_len(&mut self, len: usize) {
        self.cells.resize(len, Cell::blank(CellStyle::DEFAULT));
        self.dirty_end = self.dirty_end.min(len as u16);
    }

    /// Number of cells up to the last one that is not a default blank.
    pub fn used_len(&self) -> usize {
        let end = usize::from(self.dirty_end).min(self.cells.len());
        self.cells[..end]
            .iter()
            .rposition(|c| !c.is_default_blank())
            .map_or(0, |i| i + 1)
    }
}

/// Bit position of a cell's `flags` in a [`HistoryRow`] cell word; content values stay below
/// it (scalar values and `CLUSTER_BASE + MAX_CLUSTERS` are under 2^30).
const HISTORY_FLAG_SHIFT: u32 = 30;
const _: () = assert!(CLUSTER_BASE as usize + MAX_CLUSTERS < 1 << HISTORY_FLAG_SHIFT);

/// A row kept in history, packed in one allocation: 4 bytes per cell (content and wide flags)
/// instead of a [`Cell`]'s 16, then 4 words per change of style along the row. Output that
/// scrolls into history is written once and rarely read, so this keeps history about 4x
/// smaller for typical output and the copy that scrolling costs short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HistoryRow {
    /// `content | flags << HISTORY_FLAG_SHIFT` for each of the first `cells` cells (trailing
    /// default blanks are not kept), then `[column, fg, bg, link << 8 | attrs]` for each
    /// column where the style changes, in column order; cells before the first change have
    /// the default style.
    words: Vec<u32>,
    cells: u16,
    /// The line continues on the next row ([`Row::wrapped`]).
    pub wrapped: bool,
}

/// Words per style change in a [`HistoryRow`].
const STYLE_WORDS: usize = 4;

/// Whether a reused allocation of `capacity` words should hold `len`: it fits, without
/// wasting more than about 4x (history would otherwise keep the size of its longest rows).
#[inline]
fn reusable(capacity: usize, len: usize) -> bool {
    capacity >= len && capacity <= 4 * len + 64
}

/// Empties `words` for a row of `len` words, keeping its allocation when [`reusable`], else
/// taking `spare`'s when that is, else a new one (with room for two changes of style more, a
/// coloured word's on and off, so that packing rarely grows it). The allocation given up
/// is kept in `spare` when larger than the one there: history alternates short rows (blank
/// lines) and long ones, and one spare spares the allocator a free and a malloc per pair.
#[inline(always)]
fn words_for(words: &mut Vec<u32>, len: usize, spare: &mut Vec<u32>) {
    if !reusable(words.capacity(), len) {
        if reusable(spare.capacity(), len) {
            core::mem::swap(words, spare);
        } else {
            let old = core::mem::replace(words, Vec::with_capacity(len + 2 * STYLE_WORDS));
            if old.capacity() > spare.capacity() {
                *spare = old;
            }
        }
    }
    words.clear();
}

impl HistoryRow {
    /// Packs `row`'s cells up to its last non-default one, reusing `spare`'s allocation (the
    /// row history drops as this one enters) when it fits.
    pub fn pack(row: &Row, spare: Option<HistoryRow>) -> HistoryRow {
        HistoryRow::pack_cells(&row.cells[..row.used_len()], row.wrapped, spare)
    }

    /// Packs `used`, a row's cells without its trailing default blanks (callers trim them, so
    /// equal rows pack equal), reusing `spare`'s allocation when it fits.
    pub fn pack_cells(used: &[Cell], wrapped: bool, spare: Option<HistoryRow>) -> HistoryRow {
        let mut row = spare.unwrap_or(HistoryRow::EMPTY);
        row.repack_cells(used, wrapped, &mut Vec::new());
        row
    }

    /// Packs `row` into this one in place, reusing its allocation (or `spare`'s, see
    /// [`words_for`]) when it fits: what history does with the row it drops as a new one enters.
    #[inline]
    pub fn repack(&mut self, row: &Row, spare: &mut Vec<u32>) {
        self.repack_cells(&row.cells[..row.used_len()], row.wrapped, spare);
    }

    #[inline(never)]
    fn repack_cells(&mut self, used: &[Cell], wrapped: bool, spare: &mut Vec<u32>) {
        words_for(&mut self.words, used.len(), spare);
        let words = &mut self.words;
        // Plain passes (each compiles to a tight loop) rather than one that does all.
        words.extend(used.iter().map(|c| c.word));
        let mut style = CellStyle::DEFAULT;
        // Coloured output (a row that starts styled) changes style every few cells: searched
        // cell by cell.
        if used.first().is_some_and(|c| c.style != CellStyle::DEFAULT) {
            for (i, c) in used.iter().enumerate() {
                if c.style != style {
                    style = c.style;
                    words.extend_from_slice(&[i as u32, style.fg, style.bg, style.rest]);
                }
            }
            self.cells = used.len() as u16;
            self.wrapped = wrapped;
            return;
        }
        // Elsewhere changes are rare along a row (most rows have none, `ls` colours a name):
        // eight cells at a time are compared with their left neighbours (the first with the
        // style so far) in one OR of differences, which vectorizes, and only a group where one
        // differs is searched cell by cell.
        let groups = used.chunks_exact(8);
        let tail = groups.remainder();
        for (g, group) in groups.chain([tail]).enumerate() {
            let mut left = style;
            let mut diff = 0;
            for c in group {
                diff |=
                    (c.style.fg ^ left.fg) | (c.style.bg ^ left.bg) | (c.style.rest ^ left.rest);
                left = c.style;
            }
            if diff == 0 {
                continue;
            }
            for (k, c) in group.iter().enumerate() {
                if c.style != style {
                    style = c.style;
                    words.extend_from_slice(&[(g * 8 + k) as u32, style.fg, style.bg, style.rest]);
                }
            }
        }
        self.cells = used.len() as u16;
        self.wrapped = wrapped;
    }

    /// Packs, in place, what a row of default blanks holds once the printable ASCII `text`
    /// (narrower than the row) is written at its start with `pen`, as [`Self::repack`] of that
    /// row would: trailing spaces are default blanks (trimmed) only when `pen` is the default.
    /// Inlined into the flood loop (`Screen::print_plain_lines_past_the_screen`), where a
    /// line of `yes` costs little more than this.
    #[inline]
    pub fn repack_ascii(&mut self, text: &[u8], pen: CellStyle, spare: &mut Vec<u32>) {
        let plain = pen == CellStyle::DEFAULT;
        let n = if plain {
            text.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1)
        } else {
            text.len()
        };
        let len = n + if plain || n == 0 { 0 } else { STYLE_WORDS };
        words_for(&mut self.words, len, spare);
        let words = &mut self.words;
        words.extend(text[..n].iter().map(|&b| u32::from(b)));
        if len > n {
            words.extend_from_slice(&[0, pen.fg, pen.bg, pen.rest]);
        }
        self.cells = n as u16;
        self.wrapped = false;
    }

    /// A row of no cells that does not wrap; holds no allocation.
    pub const EMPTY: HistoryRow = HistoryRow {
        words: Vec::new(),
        cells: 0,
        wrapped: false,
    };

    /// Cells kept (trailing default blanks are not).
    #[inline]
    pub fn len(&self) -> usize {
        usize::from(self.cells)
    }

    /// The flags of the first cell (0 when no cell is kept).
    #[inline]
    pub fn first_flags(&self) -> u8 {
        self.words
            .first()
            .filter(|_| self.cells > 0)
            .map_or(0, |&w| (w >> HISTORY_FLAG_SHIFT) as u8)
    }

    /// Each kept cell's content and flags, without its style: reading text needs no more.
    pub fn contents(&self) -> impl Iterator<Item = (u32, u8)> + '_ {
        self.words[..usize::from(self.cells)].iter().map(|&w| {
            (
                w & ((1 << HISTORY_FLAG_SHIFT) - 1),
                (w >> HISTORY_FLAG_SHIFT) as u8,
            )
        })
    }

    /// The row as [`Cell`]s (as many as were kept; readers pad with default blanks).
    pub fn unpack(&self) -> Row {
        let mut out = Vec::with_capacity(usize::from(self.cells));
        self.unpack_into(&mut out);
        Row::from_cells(out, self.wrapped)
    }

    /// Appends the kept cells to `out`.
    pub fn unpack_into(&self, out: &mut Vec<Cell>) {
        let (cells, changes) = self.words.split_at(usize::from(self.cells));
        let mut changes = changes.chunks_exact(STYLE_WORDS).peekable();
        out.reserve(cells.len());
        let mut style = CellStyle::DEFAULT;
        for (i, &w) in cells.iter().enumerate() {
            if let Some(&&[col, fg, bg, rest]) = changes.peek() {
                if col as usize == i {
                    style = CellStyle { fg, bg, rest };
                    changes.next();
                }
            }
            let content = w & ((1 << HISTORY_FLAG_SHIFT) - 1);
            out.push(Cell::new(content, style, (w >> HISTORY_FLAG_SHIFT) as u8));
        }
    }
}

/// Grapheme clusters (text of more than one scalar value drawn in one cell), stored once each.
///
/// Bounded by [`MAX_CLUSTERS`]; when full, a new cluster is not stored and the cell keeps its
/// first character only.
#[derive(Debug, Default, Clone)]
pub(crate) struct Clusters {
    texts: Vec<Box<str>>,
    index: HashMap<Box<str>, u32, crate::MapHasher>,
    /// Recent extensions, `(content, added character, content of both)`, in
    /// [`EXTENSION_CACHE_SLOTS`] slots (empty until first used): the same emoji sequences and
    /// marks recur, and a hit skips hashing the cluster's text.
    recent: Vec<(u32, u32, u32)>,
}

/// Slots of [`Clusters`]' cache of recent extensions (12 bytes each).
const EXTENSION_CACHE_SLOTS: usize = 256;

impl Clusters {
    /// The content value for `text`: a scalar value when it is one character, else an interned
    /// cluster. `None` when the table is full or `text` is longer than [`MAX_CLUSTER_BYTES`].
    pub fn intern(&mut self, text: &str) -> Option<u32> {
        let mut chars = text.chars();
        let first = chars.next()?;
        if chars.next().is_none() {
            return Some(first as u32);
        }
        if text.len() > MAX_CLUSTER_BYTES {
            return None;
        }
        if let Some(&n) = self.index.get(text) {
            return Some(CLUSTER_BASE + n);
        }
        if self.texts.len() >= MAX_CLUSTERS {
            return None;
        }
        let n = self.texts.len() as u32;
        self.texts.push(text.into());
        self.index.insert(text.into(), n);
        Some(CLUSTER_BASE + n)
    }

    /// The last character of `content`'s text (`None` for an unknown cluster).
    #[inline]
    pub fn last_char(&self, content: u32) -> Option<char> {
        if content < CLUSTER_BASE {
            char::from_u32(content)
        } else {
            self.texts
                .get((content - CLUSTER_BASE) as usize)?
                .chars()
                .next_back()
        }
    }

    /// The content value for `text`, which is `content`'s text followed by `c`: as
    /// [`Self::intern`], answered from the cache of recent extensions when it can be.
    pub fn extend(&mut self, content: u32, c: char, text: &str) -> Option<u32> {
        if self.recent.is_empty() {
            self.recent = vec![(u32::MAX, 0, 0); EXTENSION_CACHE_SLOTS];
        }
        let c = c as u32;
        // Multiplicative hashing of both halves; any mix works, the key is checked whole.
        let slot = ((content.wrapping_mul(0x9e37_79b1) ^ c).wrapping_mul(0x85eb_ca6b) >> 24)
            as usize
            % EXTENSION_CACHE_SLOTS;
        let (base, added, joined) = self.recent[slot];
        if base == content && added == c {
            return Some(joined);
        }
        let joined = self.intern(text)?;
        self.recent[slot] = (content, c, joined);
        Some(joined)
    }

    /// Appends the text of `content` to `out`.
    #[inline]
    pub fn push_text(&self, content: u32, out: &mut String) {
        if content < CLUSTER_BASE {
            out.push(char::from_u32(content).unwrap_or(' '));
        } else if let Some(t) = self.texts.get((content - CLUSTER_BASE) as usize) {
            out.push_str(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_style_round_trips_every_field() {
        let link = LinkId::new(7);
        let styles = [
            Style::default(),
            Style {
                fg: Color::Indexed(0),
                bg: Color::Indexed(255),
                ..Style::default()
            },
            Style {
                fg: Color::Rgb(1, 2, 3),
                bg: Color::Rgb(255, 0, 255),
                link,
                ..Style::default()
            },
            Style {
                bold: true,
                dim: true,
                italic: true,
                underline: true,
                inverse: true,
                blink: true,
                hidden: true,
                strikethrough: true,
                ..Style::default()
            },
            Style {
                underline: true,
                strikethrough: true,
                fg: Color::Indexed(9),
                ..Style::default()
            },
        ];
        for s in styles {
            assert_eq!(CellStyle::pack(s).unpack(), s);
        }
        assert_eq!(CellStyle::pack(Style::default()), CellStyle::DEFAULT);
        // Indexed 0 and the default color stay distinct.
        assert_ne!(CellStyle::pack(styles[1]).background(), CellStyle::DEFAULT);
    }

    #[test]
    fn cluster_extensions_from_the_cache_match_interning() {
        // More pairs than slots, so slots are shared and overwritten; each answer must still be
        // the content of the whole text.
        let mut t = Clusters::default();
        for round in 0..2 {
            for base in ['a', 'e', '👩', '🇫', '中'] {
                for k in 0..200u32 {
                    let mark = char::from_u32(0x300 + k % 0x70).unwrap();
                    let base_text = format!("{base}\u{200d}{}", k / 0x70);
                    let content = t.intern(&base_text).unwrap();
                    let text = format!("{base_text}{mark}");
                    let got = t.extend(content, mark, &text);
                    assert_eq!(got, t.intern(&text), "round {round} {text:?}");
                    let mut back = String::new();
                    t.push_text(got.unwrap(), &mut back);
                    assert_eq!(back, text);
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn history_rows_pack_any_styles_back(
            cells in proptest::collection::vec((0u32..4, 0u32..3, proptest::bool::ANY), 0..40),
            spare_cap in 0usize..200,
        ) {
            // Styles from a few values, so runs of equal ones cross the groups of eight.
            let style = |k: u32| CellStyle { fg: k, bg: k / 2, rest: k % 3 };
            let row: Vec<Cell> = cells
                .iter()
                .map(|&(c, k, first)| Cell::new(0x41 + c, style(if first { 0 } else { k }), 0))
                .collect();
            let mut spare = Vec::with_capacity(spare_cap);
            let mut packed = HistoryRow::pack_cells(&row, true, None);
            proptest::prop_assert_eq!(&packed.unpack().cells, &row);
            packed.repack_cells(&row[..row.len() / 2], false, &mut spare);
            proptest::prop_assert_eq!(&packed.unpack().cells[..], &row[..row.len() / 2]);
        }
    }

    #[test]
    fn history_row_round_trips_cells_styles_and_flags() {
        let red = CellStyle::pack(Style {
            fg: Color::Indexed(1),
            ..Style::default()
        });
        let mut row = Row::new(6, CellStyle::DEFAULT);
        row.cells[0] = Cell::new('a' as u32, red, 0);
        row.cells[1] = Cell::new(0x4e2d, red, WIDE);
        row.cells[2] = Cell::new(' ' as u32, red, WIDE_CONT);
        row.cells[3] = Cell::new(CLUSTER_BASE + 3, CellStyle::DEFAULT, 0);
        row.touch(4);
        row.wrapped = true;
        let back = HistoryRow::pack(&row, None).unpack();
        assert_eq!(back.cells, row.cells[..4]);
        assert!(back.wrapped);
        // Reusing a dropped row's allocations gives the same row.
        let spare = HistoryRow::pack(&Row::new(6, red), None);
        assert_eq!(
            HistoryRow::pack(&row, Some(spare)).unpack().cells,
            row.cells[..4]
        );
        // Styled only after a default cell (the styles' OR finds it), and default-styled
        // throughout into a styled row's allocation (no change words kept from it).
        row.cells[0] = Cell::new('a' as u32, CellStyle::DEFAULT, 0);
        let mut kept = HistoryRow::pack(&row, None);
        assert_eq!(kept.unpack().cells, row.cells[..4]);
        let plain = Row::from_cells(vec![Cell::new('b' as u32, CellStyle::DEFAULT, 0); 3], false);
        kept.repack(&plain, &mut Vec::new());
        assert_eq!(kept, HistoryRow::pack(&plain, None));
        assert_eq!(kept.unpack().cells, plain.cells);
    }
}

//! Cell storage: [`Cell`], [`Row`], and the [`Clusters`] interner for cells holding more than
//! one character (grapheme clusters).

use std::collections::HashMap;

use crate::limits::{MAX_CLUSTERS, MAX_CLUSTER_BYTES};
use crate::terminal::Style;

/// The cell is the first half of a character two columns wide.
pub(crate) const WIDE: u8 = 1;
/// The cell is the second half of a wide character; it has no content of its own.
pub(crate) const WIDE_CONT: u8 = 2;

/// First content value naming an interned cluster: values below are Unicode scalar values.
const CLUSTER_BASE: u32 = 0x11_0000;

/// One cell of the grid. `content` is a Unicode scalar value, or `CLUSTER_BASE + n` for the
/// n-th interned grapheme cluster; a blank cell holds a space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cell {
    pub content: u32,
    pub style: Style,
    pub flags: u8,
}

impl Cell {
    /// An erased cell: a space in `style` (erasing keeps the background color, ECMA-48 BCE).
    #[inline]
    pub const fn blank(style: Style) -> Cell {
        Cell { content: b' ' as u32, style, flags: 0 }
    }

    /// A cell that stores nothing worth keeping: a space in the default style.
    #[inline]
    pub fn is_default_blank(&self) -> bool {
        self.content == b' ' as u32 && self.flags == 0 && self.style == Style::default()
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
    pub fn new(cols: u16, style: Style) -> Row {
        let mut r = Row { cells: Vec::new(), wrapped: false, dirty_end: u16::MAX };
        r.reset(cols, style);
        r
    }

    /// A history row holding a copy of `cells` (already trimmed).
    pub fn from_cells(cells: Vec<Cell>, wrapped: bool) -> Row {
        let dirty_end = cells.len().min(usize::from(u16::MAX)) as u16;
        Row { cells, wrapped, dirty_end }
    }

    /// Erases every cell to `style` blanks, keeping the width.
    pub fn reset(&mut self, cols: u16, style: Style) {
        if style == Style::default() && self.cells.len() == usize::from(cols) {
            // Cells past `dirty_end` are default blanks already.
            let end = usize::from(self.dirty_end).min(self.cells.len());
            self.cells[..end].fill(Cell::blank(style));
        } else {
            self.cells.clear();
            self.cells.resize(usize::from(cols), Cell::blank(style));
        }
        self.wrapped = false;
        self.dirty_end = if style == Style::default() { 0 } else { cols };
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
        self.cells.resize(len, Cell::blank(Style::default()));
        self.dirty_end = self.dirty_end.min(len as u16);
    }

    /// Number of cells up to the last one that is not a default blank.
    pub fn used_len(&self) -> usize {
        let end = usize::from(self.dirty_end).min(self.cells.len());
        self.cells[..end].iter().rposition(|c| !c.is_default_blank()).map_or(0, |i| i + 1)
    }
}

/// Grapheme clusters (text of more than one scalar value drawn in one cell), stored once each.
///
/// Bounded by [`MAX_CLUSTERS`]; when full, a new cluster is not stored and the cell keeps its
/// first character only.
#[derive(Debug, Default, Clone)]
pub(crate) struct Clusters {
    texts: Vec<Box<str>>,
    index: HashMap<Box<str>, u32>,
}

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

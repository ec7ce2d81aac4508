//! Search over the terminal's own text (history and screen) and plain-text URL detection.
//!
//! Text is read as logical lines: a row that soft-wraps runs straight into the next, so a match
//! may cross a wrap (as [`crate::join_for_search`]). What matches is a [`Matcher`]: the core
//! brings [`TextMatcher`] (a literal, optionally case-insensitive) and [`UrlMatcher`]
//! (`http://` and `https://` URLs); an adapter may bring its own (the page runs JS `RegExp`
//! through it, which costs the wasm nothing). Whole-word filtering is done here, once, for
//! every matcher.
//!
//! Positions are [`SearchPos`]: a lifetime row number ([`Terminal::screen_top_row`] + screen
//! row) and a column, so a match keeps its place while output scrolls it into history.

use std::ops::Range;

use crate::grid::{Row, WIDE, WIDE_CONT};
use crate::limits::{MAX_SEARCH_MATCHES, MAX_SEARCH_ROWS};
use crate::terminal::Terminal;

/// Finds matches in one logical line of text.
pub trait Matcher {
    /// The first match in `line` that starts at or after byte `from` (a character boundary), as
    /// a byte range of `line` on character boundaries; `None` when there is none. An empty
    /// range is skipped by the caller.
    fn find_at(&mut self, line: &str, from: usize) -> Option<Range<usize>>;
}

/// A literal needle, compared character by character, exactly ([`TextMatcher::new`]) or with
/// both sides folded by Unicode's simple lowercase mapping ([`TextMatcher::ignore_case`]; a
/// character whose lowercase is several characters, like `İ`, is compared as it is). The
/// folding is a function pointer so that a build which never ignores case (the page, which
/// lets the browser's `RegExp` do it) links no case tables.
#[derive(Debug, Clone)]
pub struct TextMatcher {
    needle: Vec<char>,
    fold: fn(char) -> char,
}

impl TextMatcher {
    /// A case-sensitive matcher for `needle`; an empty needle matches nothing.
    pub fn new(needle: &str) -> Self {
        TextMatcher {
            needle: needle.chars().collect(),
            fold: |c| c,
        }
    }

    /// A matcher for `needle` that ignores case (see the type's doc).
    pub fn ignore_case(needle: &str) -> Self {
        TextMatcher {
            needle: needle.chars().map(fold_case).collect(),
            fold: fold_case,
        }
    }
}

/// `c` lowercased when its lowercase is one character.
fn fold_case(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// Whether `c` is part of a word for whole-word matching and URL starts: ASCII letters, digits
/// and `_`, and every non-ASCII character that is not whitespace (so words of any script count;
/// xterm.js's search addon likewise treats only listed ASCII characters as separators).
fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || (!c.is_ascii() && !c.is_whitespace())
}

impl Matcher for TextMatcher {
    fn find_at(&mut self, line: &str, from: usize) -> Option<Range<usize>> {
        let first = *self.needle.first()?;
        let fold = self.fold;
        let tail = line.get(from..)?;
        for (i, c) in tail.char_indices() {
            if fold(c) != first {
                continue;
            }
            let mut end = from + i + c.len_utf8();
            let mut rest = line[end..].chars();
            let mut ok = true;
            for &n in &self.needle[1..] {
                match rest.next() {
                    Some(h) if fold(h) == n => end += h.len_utf8(),
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                return Some(from + i..end);
            }
        }
        None
    }
}

/// Plain-text `http://` and `https://` URLs (scheme letters in either case). A URL runs from
/// the scheme to the first whitespace or character that RFC 3986 never allows unescaped
/// (`<>"{}|\^` and the backtick); then trailing `.,:;!?'` are dropped (sentence punctuation),
/// and a trailing `)` or `]` is dropped unless the URL opened one (so `(see https://x.test/a)`
/// gives `https://x.test/a` and `https://en.wikipedia.org/wiki/Rust_(language)` keeps its
/// parenthesis, as GNOME Terminal and iTerm2 do). A URL with nothing after `//` is not one.
#[derive(Debug, Clone, Copy, Default)]
pub struct UrlMatcher;

impl Matcher for UrlMatcher {
    fn find_at(&mut self, line: &str, from: usize) -> Option<Range<usize>> {
        let bytes = line.as_bytes();
        let mut at = from;
        while let Some(i) = line.get(at..)?.find("://") {
            let colon = at + i;
            at = colon + 3;
            let start = if colon >= 5 && bytes[colon - 5..colon].eq_ignore_ascii_case(b"https") {
                colon - 5
            } else if colon >= 4 && bytes[colon - 4..colon].eq_ignore_ascii_case(b"http") {
                colon - 4
            } else {
                continue;
            };
            // "xhttp://" is not a URL start; one after punctuation or a space is.
            if start < from || line[..start].chars().next_back().is_some_and(is_word) {
                continue;
            }
            let body = &line[at..];
            let stop = body
                .find(|c: char| c.is_whitespace() || "<>\"{}|\\^`".contains(c))
                .unwrap_or(body.len());
            let mut end = at + stop;
            while let Some(last) = line[at..end].chars().next_back() {
                let opened = |open: char| line[at..end].matches(open).count();
                let drop = match last {
                    '.' | ',' | ':' | ';' | '!' | '?' | '\'' => true,
                    ')' => opened('(') < opened(')'),
                    ']' => opened('[') < opened(']'),
                    _ => false,
                };
                if !drop {
                    break;
                }
                end -= last.len_utf8();
            }
            if end > at {
                return Some(start..end);
            }
        }
        None
    }
}

/// A place in the terminal's text: a lifetime row number (screen row `r` is row
/// [`Terminal::screen_top_row`]` + r`, and keeps its number in history) and a 0-based column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SearchPos {
    /// Lifetime row number.
    pub row: u64,
    /// 0-based column.
    pub col: u16,
}

/// A match: the cells from `start` to `end`, both included (`end` is a wide character's first
/// column when it ends on one, so `end.col + end_width - 1` is its last column). A match may
/// cross soft wraps; `end.row >= start.row`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SearchMatch {
    /// First cell.
    pub start: SearchPos,
    /// Last cell (its first column for a wide character).
    pub end: SearchPos,
    /// Columns the last character covers (2 for a wide one).
    pub end_width: u8,
}

impl SearchMatch {
    /// The columns of row `row` this match covers, as a half-open range, or `None` when it
    /// does not touch the row; `cols` is the terminal's width.
    pub fn cols_on_row(&self, row: u64, cols: u16) -> Option<Range<u16>> {
        if row < self.start.row || row > self.end.row {
            return None;
        }
        let from = if row == self.start.row {
            self.start.col
        } else {
            0
        };
        let to = if row == self.end.row {
            (self.end.col + u16::from(self.end_width)).min(cols)
        } else {
            cols
        };
        (to > from).then_some(from..to)
    }
}

/// Search options that do not depend on the matcher.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchOptions {
    /// Only matches that start and end with a word character and have none right before or
    /// after (ASCII letters, digits, `_`, and any non-ASCII character but whitespace).
    pub whole_word: bool,
    /// Look for the previous match instead of the next.
    pub backwards: bool,
}

/// What [`Terminal::search`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// The match after `from` (before it, `backwards`), wrapping around the end (start);
    /// `None` when there is no match.
    pub active: Option<SearchMatch>,
    /// The active match's 0-based position among the matches in reading order; `None` without
    /// a match, or when it lies past the [`MAX_SEARCH_MATCHES`] counted.
    pub index: Option<usize>,
    /// Matches counted, at most [`MAX_SEARCH_MATCHES`].
    pub count: usize,
    /// Counting stopped at [`MAX_SEARCH_MATCHES`], or the oldest history past
    /// [`MAX_SEARCH_ROWS`] rows was not searched: there may be more matches than `count`.
    pub truncated: bool,
}

/// A plain-text link found by [`Terminal::link_at`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextLink {
    /// The link's text (a URL for [`UrlMatcher`]).
    pub uri: String,
    /// Where it is.
    pub span: SearchMatch,
}

/// One logical line: its text and, for each character, where it starts in the text and which
/// cell holds it.
#[derive(Default)]
struct Line {
    /// Buffer index (0 = oldest history row) of its first row.
    first: usize,
    text: String,
    /// Per character: byte offset, row within the line, column, width in columns.
    chars: Vec<(u32, u32, u16, u8)>,
}

impl Line {
    /// The index in `chars` of the character starting at byte `b` (or the next one).
    fn char_at(&self, b: usize) -> usize {
        self.chars.partition_point(|c| (c.0 as usize) < b)
    }
}

impl Terminal {
    /// Rows of the buffer being shown: history then the main screen, or the alternate screen
    /// alone (it has no history).
    pub(crate) fn buffer_len(&self) -> usize {
        let s = &self.screen;
        if s.alt_active {
            s.alt.rows.len()
        } else {
            s.history.len() + s.main.rows.len()
        }
    }

    /// Whether row `i` of [`Self::buffer_len`]'s rows soft-wraps; `None` past the end.
    fn buffer_row_wrapped(&self, i: usize) -> Option<bool> {
        let s = &self.screen;
        if s.alt_active {
            return s.alt.rows.get(i).map(|r| r.wrapped);
        }
        let h = s.history.len();
        if i < h {
            s.history.get(i).map(|r| r.wrapped)
        } else {
            s.main.rows.get(i - h).map(|r| r.wrapped)
        }
    }

    /// Calls `f` with the content and flags of each cell of row `i` (history rows without
    /// unpacking their styles; cells past a history row's kept ones are not visited) and
    /// returns whether the row soft-wraps; `None` past the end.
    fn visit_row(&self, i: usize, f: &mut dyn FnMut(u32, u8)) -> Option<bool> {
        let s = &self.screen;
        let screen_row = |r: &Row, f: &mut dyn FnMut(u32, u8)| {
            r.cells.iter().for_each(|c| f(c.content(), c.flags()));
            r.wrapped
        };
        if s.alt_active {
            return s.alt.rows.get(i).map(|r| screen_row(r, f));
        }
        let h = s.history.len();
        if i < h {
            let r = s.history.get(i)?;
            r.contents().for_each(|(content, flags)| f(content, flags));
            Some(r.wrapped)
        } else {
            s.main.rows.get(i - h).map(|r| screen_row(r, f))
        }
    }

    /// The lifetime row number of buffer row 0.
    fn buffer_base(&self) -> u64 {
        let s = &self.screen;
        if s.alt_active {
            s.rows_scrolled
        } else {
            s.rows_scrolled.saturating_sub(s.history.len() as u64)
        }
    }

    /// The buffer index of lifetime row `row`, clamped into the buffer.
    fn buffer_index(&self, row: u64) -> usize {
        let len = self.buffer_len();
        (row.saturating_sub(self.buffer_base()) as usize).min(len.saturating_sub(1))
    }

    /// The first buffer row of the logical line holding buffer row `i`.
    fn line_start(&self, mut i: usize) -> usize {
        while i > 0 && self.buffer_row_wrapped(i - 1) == Some(true) {
            i -= 1;
        }
        i
    }

    /// Reads the logical line starting at buffer row `first` into `line`; returns the buffer
    /// index after it.
    fn read_line(&self, first: usize, line: &mut Line) -> usize {
        let cols = usize::from(self.size().cols);
        line.first = first;
        line.text.clear();
        line.chars.clear();
        let mut i = first;
        let clusters = &self.screen.clusters;
        loop {
            let r = (i - first) as u32;
            let mut col = 0usize;
            let Line { text, chars, .. } = &mut *line;
            let wrapped = self.visit_row(i, &mut |content, flags| {
                if col < cols && flags & WIDE_CONT == 0 {
                    let width = if flags & WIDE != 0 && col + 1 < cols {
                        2
                    } else {
                        1
                    };
                    chars.push((text.len() as u32, r, col as u16, width));
                    clusters.push_text(content, text);
                }
                col += 1;
            });
            let Some(wrapped) = wrapped else { break };
            i += 1;
            if !wrapped {
                break;
            }
            // A history row keeps no trailing blanks; a wrapped one still has them as text.
            for c in col..cols {
                chars.push((text.len() as u32, r, c as u16, 1));
                text.push(' ');
            }
        }
        // Blanks after the last text of the line are not text (a search for "a " must not
        // match at the end of every row).
        let trimmed = line.text.trim_end_matches(' ').len();
        line.text.truncate(trimmed);
        let keep = line.char_at(trimmed);
        line.chars.truncate(keep);
        i
    }

    /// Every match in `line`, in order, whole-word filtered; calls `f` with each.
    fn line_matches(
        &self,
        line: &Line,
        m: &mut dyn Matcher,
        whole_word: bool,
        f: &mut dyn FnMut(SearchMatch),
    ) {
        let text = &line.text;
        let base = self.buffer_base() + line.first as u64;
        let mut from = 0;
        while from <= text.len() {
            let Some(range) = m.find_at(text, from) else {
                break;
            };
            // A matcher that returns a range before `from`, off a boundary or empty moves on.
            let valid = range.start >= from
                && range.end <= text.len()
                && text.is_char_boundary(range.start)
                && text.is_char_boundary(range.end);
            if !valid || range.is_empty() {
                let next = range.start.max(from);
                from = next + text[next..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
            let word = |c: Option<char>| c.is_some_and(is_word);
            let bounded = !whole_word
                || (!word(text[..range.start].chars().next_back())
                    && !word(text[range.end..].chars().next())
                    && word(text[range.start..].chars().next())
                    && word(text[..range.end].chars().next_back()));
            if bounded {
                let a = line.chars[line.char_at(range.start)];
                let z = line.chars[line.char_at(range.end) - 1];
                f(SearchMatch {
                    start: SearchPos {
                        row: base + u64::from(a.1),
                        col: a.2,
                    },
                    end: SearchPos {
                        row: base + u64::from(z.1),
                        col: z.2,
                    },
                    end_width: z.3,
                });
                from = range.end;
            } else {
                from = range.start + text[range.start..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }

    /// Searches the buffer being shown (history and the main screen, or the alternate screen)
    /// for `m`'s matches, in one pass over at most the newest [`MAX_SEARCH_ROWS`] rows: counts
    /// them (up to [`MAX_SEARCH_MATCHES`]) and picks the active one, the first that starts after
    /// `from` (`options.backwards`: the last that starts before it), wrapping around; without
    /// `from`, the first match (backwards: the last). Matches may cross soft wraps; they do not
    /// overlap.
    pub fn search(
        &self,
        m: &mut dyn Matcher,
        from: Option<SearchPos>,
        options: SearchOptions,
    ) -> SearchResult {
        let len = self.buffer_len();
        let start = len.saturating_sub(MAX_SEARCH_ROWS);
        let rows_cut = start > 0;
        let start = self.line_start(start);
        let mut truncated = false;
        let mut out = SearchResult::default();
        let (mut first, mut last) = (None, None);
        let (mut after, mut before) = (None, None);
        let mut line = Line::default();
        let mut i = start;
        let base = self.buffer_base();
        while i < len {
            // Past the count limit, read on only while the active match may still change.
            if truncated {
                let done = match (from, options.backwards) {
                    (None, false) => first.is_some(),
                    (Some(_), false) => after.is_some(),
                    (Some(p), true) => before.is_some() && base + i as u64 > p.row,
                    (None, true) => false,
                };
                if done {
                    break;
                }
            }
            i = self.read_line(i, &mut line);
            self.line_matches(&line, m, options.whole_word, &mut |hit| {
                // The position among the matches, while they are still counted.
                let n = (out.count < MAX_SEARCH_MATCHES).then(|| {
                    out.count += 1;
                    out.count - 1
                });
                truncated |= n.is_none();
                first.get_or_insert((n, hit));
                last = Some((n, hit));
                if let Some(p) = from {
                    if hit.start > p && after.is_none() {
                        after = Some((n, hit));
                    }
                    if hit.start < p {
                        before = Some((n, hit));
                    }
                }
            });
        }
        out.truncated = truncated || rows_cut;
        let pick = match (from, options.backwards) {
            (None, false) => first,
            (None, true) => last,
            (Some(_), false) => after.or(first),
            (Some(_), true) => before.or(last),
        };
        if let Some((n, hit)) = pick {
            out.index = n;
            out.active = Some(hit);
        }
        out
    }

    /// The matches touching lifetime rows `rows` (those shown, for highlighting), in order, at
    /// most [`MAX_SEARCH_MATCHES`]; a line that starts above the range is read from its start,
    /// so a match crossing into the view from a wrap is found.
    pub fn matches_in_rows(
        &self,
        m: &mut dyn Matcher,
        rows: Range<u64>,
        whole_word: bool,
    ) -> Vec<SearchMatch> {
        let mut out = Vec::new();
        let len = self.buffer_len();
        if len == 0 || rows.is_empty() {
            return out;
        }
        let end = rows.end;
        let mut i = self.line_start(self.buffer_index(rows.start));
        let mut line = Line::default();
        while i < len && self.buffer_base() + (i as u64) < end && out.len() < MAX_SEARCH_MATCHES {
            i = self.read_line(i, &mut line);
            self.line_matches(&line, m, whole_word, &mut |hit| {
                if hit.end.row >= rows.start
                    && hit.start.row < end
                    && out.len() < MAX_SEARCH_MATCHES
                {
                    out.push(hit);
                }
            });
        }
        out
    }

    /// The plain-text link (a match of `m`, e.g. [`UrlMatcher`]) covering the cell at lifetime
    /// row `row`, column `col`, found in the cell's whole logical line (so a URL wrapped over
    /// several rows is one link); `None` when no match covers the cell.
    pub fn link_at(&self, m: &mut dyn Matcher, row: u64, col: u16) -> Option<TextLink> {
        let len = self.buffer_len();
        let base = self.buffer_base();
        if row < base || row >= base + len as u64 {
            return None;
        }
        let cols = self.size().cols;
        let mut line = Line::default();
        self.read_line(self.line_start((row - base) as usize), &mut line);
        let mut found = None;
        self.line_matches(&line, m, false, &mut |hit| {
            if found.is_none() && hit.cols_on_row(row, cols).is_some_and(|r| r.contains(&col)) {
                found = Some(hit);
            }
        });
        let span = found?;
        let at = |p: SearchPos| {
            let r = (p.row - base) as usize - line.first;
            line.chars
                .iter()
                .position(|c| c.1 as usize == r && c.2 == p.col)
        };
        let (a, z) = (at(span.start)?, at(span.end)?);
        let from = line.chars[a].0 as usize;
        let to = line
            .chars
            .get(z + 1)
            .map_or(line.text.len(), |c| c.0 as usize);
        Some(TextLink {
            uri: line.text[from..to].to_string(),
            span,
        })
    }
}

#[cfg(test)]
mod tests;

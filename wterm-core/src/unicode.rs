//! Character widths, the grapheme-cluster rules cells follow, and the DEC Special Graphics set.
//!
//! Cells hold extended grapheme clusters as modern terminals (kitty, WezTerm, Ghostty) draw
//! them: combining marks and other zero-width characters join their base; an emoji ZWJ sequence,
//! an emoji with a skin-tone modifier, and a regional-indicator pair (a flag) are one cell two
//! columns wide; U+FE0F (VS16, emoji presentation) widens a narrow emoji-capable character to
//! two columns (Unicode UTS #51). This is a subset of UAX #29 that covers what programs print;
//! Hangul jamo sequences and Indic conjuncts are not joined.

use unicode_width::UnicodeWidthChar;

pub(crate) const ZWJ: char = '\u{200d}';
const VS16: char = '\u{fe0f}';

/// Columns a character takes on its own: 0 (combining, format characters), 1, or 2 (East Asian
/// wide and fullwidth, emoji presentation), per Unicode's East Asian Width as the
/// `unicode-width` crate implements it.
#[inline]
pub(crate) fn width(c: char) -> u8 {
    c.width().unwrap_or(0) as u8
}

/// Whether `c` is two columns wide and never continues a cluster (no mark, modifier or
/// regional indicator; Hangul jamo are not joined): Hiragana, Katakana, the CJK Unified
/// Ideographs block and Hangul syllables, most of CJK text. Lets printing skip the width table
/// and the cluster rules (checked against both by a test).
#[inline]
pub(crate) fn is_plain_wide(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{3096}' | '\u{30a1}'..='\u{30fa}' | '\u{4e00}'..='\u{9fff}' | '\u{ac00}'..='\u{d7a3}')
}

fn is_regional_indicator(c: char) -> bool {
    ('\u{1f1e6}'..='\u{1f1ff}').contains(&c)
}

fn is_emoji_modifier(c: char) -> bool {
    ('\u{1f3fb}'..='\u{1f3ff}').contains(&c)
}

/// False when `c` cannot continue a cluster ending in `last`, whatever came before `last`:
/// lets most characters skip [`continues_cluster`], which needs the cluster's whole text.
#[inline]
pub(crate) fn may_continue(last: char, c: char) -> bool {
    last == ZWJ || width(c) == 0 || is_emoji_modifier(c) || is_regional_indicator(c)
}

/// Whether `c` continues the grapheme cluster `cluster` (the text of the cell printed last).
pub(crate) fn continues_cluster(cluster: &str, c: char) -> bool {
    let mut rev = cluster.chars().rev();
    let Some(last) = rev.next() else { return false };
    if width(c) == 0 || last == ZWJ {
        return true;
    }
    if is_emoji_modifier(c) {
        // One modifier, after an emoji base (those are all at or above U+261D).
        return (last as u32) >= 0x261d && !cluster.chars().any(is_emoji_modifier);
    }
    if is_regional_indicator(c) {
        // Pairs only: a third indicator starts a new flag.
        return is_regional_indicator(last) && rev.next().is_none();
    }
    false
}

/// Whether adding `c` to the one-column `cluster` makes it two columns wide: VS16 after an
/// emoji-capable character (anything outside ASCII, and the keycap bases `#`, `*`, `0`–`9`), or
/// the second regional indicator of a flag.
pub(crate) fn widens(cluster: &str, c: char) -> bool {
    let mut chars = cluster.chars();
    let (Some(base), None) = (chars.next(), chars.next()) else {
        return false;
    };
    match c {
        VS16 => !base.is_ascii() || base.is_ascii_digit() || base == '#' || base == '*',
        _ => is_regional_indicator(c) && is_regional_indicator(base),
    }
}

/// DEC Special Graphics (VT100 User Guide, table 3-9): `_` through `~` become line-drawing and
/// symbol characters; everything else is unchanged.
pub(crate) fn dec_graphics(c: char) -> char {
    const TABLE: [char; 32] = [
        ' ', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼', '⎺', '⎻',
        '─', '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
    ];
    match c {
        '_'..='~' => TABLE[c as usize - '_' as usize],
        _ => c,
    }
}

/// Length of the run of printable ASCII (0x20..=0x7E) at the start of `bytes`, eight bytes at
/// a time: per byte, "below 0x20" and "above 0x7E" set its top bit; carries and borrows only
/// reach bytes after the first such byte, so the lowest set bit marks it exactly.
#[inline]
pub(crate) fn printable_ascii_len(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const TOPS: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut words = bytes.chunks_exact(8);
    let mut len = 0;
    for w in &mut words {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        let below = x.wrapping_sub(ONES * 0x20) & !x & TOPS;
        let above = (x.wrapping_add(ONES) | x) & TOPS;
        let out = below | above;
        if out != 0 {
            return len + (out.trailing_zeros() / 8) as usize;
        }
        len += 8;
    }
    len + words
        .remainder()
        .iter()
        .position(|b| !(0x20..=0x7e).contains(b))
        .unwrap_or(words.remainder().len())
}

/// The lines at the start of some bytes that are each a run of printable ASCII shorter than
/// `cols` followed by CR LF, as lengths (without the CR LF), in order; ends at the first line
/// that is not such. One pass over the bytes, eight at a time: the control bytes of a word are
/// found together and visited lowest first, so short lines
/// (`yes`, `seq`) cost a bit scan each rather than a scan of their own.
pub(crate) struct PlainLines<'a> {
    bytes: &'a [u8],
    cols: usize,
    /// Where the next line starts.
    start: usize,
    /// Offset of the word `mask` was taken from.
    base: usize,
    /// Top bit set for each byte of the word at `base` not yet visited that is not printable
    /// ASCII.
    mask: u64,
    /// A line that is not plain was found: no more lines.
    done: bool,
}

impl<'a> PlainLines<'a> {
    pub(crate) fn new(bytes: &'a [u8], cols: usize) -> Self {
        let mut lines = PlainLines {
            bytes,
            cols,
            start: 0,
            base: 0,
            mask: 0,
            done: false,
        };
        lines.mask = lines.word_mask(0);
        lines
    }

    /// The not-printable mask of the eight bytes at `at` (past the end counts as not printable,
    /// so a line cut by the end is never taken).
    #[inline]
    fn word_mask(&self, at: usize) -> u64 {
        const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
        const TOPS: u64 = u64::from_ne_bytes([0x80; 8]);
        let x = match self.bytes.get(at..at + 8) {
            Some(w) => u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]),
            None => {
                let mut w = [0u8; 8];
                let tail = self.bytes.get(at..).unwrap_or(&[]);
                w[..tail.len()].copy_from_slice(tail);
                u64::from_le_bytes(w)
            }
        };
        // Exact for every byte (not only the first, as in `printable_ascii_len`): the sums stay
        // within each byte, so nothing carries into the next. A byte's low seven bits plus 0x60
        // reach the top bit from 0x20 on, plus 1 only at 0x7F.
        let low = x & (ONES * 0x7f);
        let at_least_space = low + ONES * 0x60;
        let del = low + ONES;
        (!(at_least_space | x) | del | x) & TOPS
    }
}

impl Iterator for PlainLines<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.done {
            return None;
        }
        loop {
            while self.mask == 0 {
                self.base += 8;
                // A line as long as the screen is not plain: stop looking.
                if self.base >= self.bytes.len() || self.base.saturating_sub(self.start) > self.cols
                {
                    self.done = true;
                    return None;
                }
                self.mask = self.word_mask(self.base);
            }
            let at = self.base + (self.mask.trailing_zeros() / 8) as usize;
            self.mask &= self.mask - 1;
            // The LF of the line just taken.
            if at < self.start {
                continue;
            }
            let n = at - self.start;
            if n >= self.cols || self.bytes.get(at..at + 2) != Some(b"\r\n") {
                self.done = true;
                return None;
            }
            self.start = at + 2;
            return Some(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`PlainLines`] as the plain definition: each line a printable ASCII run shorter than
    /// `cols` that CR LF ends.
    fn plain_lines_one_by_one(bytes: &[u8], cols: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let rest = &bytes[at..];
            let n = printable_ascii_len(rest);
            if n >= cols || rest.get(n..n + 2) != Some(b"\r\n") {
                return out;
            }
            out.push(n);
            at += n + 2;
        }
    }

    proptest::proptest! {
        #[test]
        fn plain_lines_mark_each_byte_that_is_not_printable(word: [u8; 8], pair: (u8, u8)) {
            // Each byte exactly, whatever its neighbours; every pair of values side by side.
            for w in [word, [pair.0, pair.1, pair.0, pair.1, 0x20, 0x7e, 0x7f, 0x1f]] {
                let mask = PlainLines::new(&w, 80).word_mask(0);
                for (k, b) in w.iter().enumerate() {
                    let marked = mask >> (8 * k + 7) & 1 == 1;
                    proptest::prop_assert_eq!(marked, !(0x20..=0x7e).contains(b), "{:?} {}", w, k);
                }
            }
        }

        #[test]
        fn plain_lines_match_the_line_by_line_scan(
            picks in proptest::collection::vec(0usize..16, 0..200),
            cols in 1usize..40,
        ) {
            // Mostly short lines (several to a word), some long, some broken.
            const PIECES: [&[u8]; 16] = [
                b"y", b"ab", b"\r\n", b"\r\n", b"\r\n", b"hello world", b" ", b"~",
                b"\r", b"\n", b"\x1b[m", "\u{4e2d}".as_bytes(), b"\x7f", b"\t", b"0123456789",
                b"\x00",
            ];
            let bytes: Vec<u8> = picks.iter().flat_map(|&i| PIECES[i].iter().copied()).collect();
            for start in 0..bytes.len().min(9) {
                let got: Vec<usize> = PlainLines::new(&bytes[start..], cols).collect();
                proptest::prop_assert_eq!(got, plain_lines_one_by_one(&bytes[start..], cols));
            }
        }
    }

    #[test]
    fn plain_wide_characters_are_wide_and_join_nothing() {
        let plain: Vec<char> = (0..=0x10ffff)
            .filter_map(char::from_u32)
            .filter(|&c| is_plain_wide(c))
            .collect();
        assert_eq!(plain.len(), 0x56 + 0x5a + 0x5200 + 0x2ba4);
        for c in plain {
            assert_eq!(width(c), 2, "{c:?}");
            for last in ['a', '中', '👩', '🇫', 'e'] {
                assert!(!may_continue(last, c), "{last:?} {c:?}");
                assert!(!continues_cluster(&last.to_string(), c), "{last:?} {c:?}");
            }
        }
    }

    #[test]
    fn cluster_rules() {
        assert!(continues_cluster("e", '\u{301}'));
        assert!(continues_cluster("👩\u{200d}", '💻'));
        assert!(!continues_cluster("👩", '💻'));
        assert!(continues_cluster("👍", '\u{1f3fd}'));
        assert!(!continues_cluster("a", '\u{1f3fd}'));
        assert!(!continues_cluster("\u{1f3fd}", '\u{1f3fd}'));
        assert!(!continues_cluster("👍\u{1f3fd}", '\u{1f3fd}'));
        for (last, c) in [
            ('e', '\u{301}'),
            (ZWJ, '💻'),
            ('👍', '\u{1f3fd}'),
            ('🇫', '🇷'),
        ] {
            assert!(
                may_continue(last, c) && continues_cluster(&last.to_string(), c),
                "{last:?} {c:?}"
            );
        }
        assert!(!may_continue('中', '文') && !may_continue('👩', '💻') && !may_continue('a', 'é'));
        assert!(continues_cluster("🇫", '🇷'));
        assert!(!continues_cluster("🇫🇷", '🇩'));
        assert!(widens("❤", VS16) && widens("1", VS16) && !widens("a", VS16));
        assert!(widens("🇫", '🇷'));
        assert_eq!(dec_graphics('q'), '─');
        assert_eq!(dec_graphics('x'), '│');
        assert_eq!(dec_graphics('A'), 'A');
    }
}

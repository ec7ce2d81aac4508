//! Word boundaries for selecting a word at a point (the page's long-press selection).
//!
//! The rule is xterm.js's default: a word is a run of characters that are neither whitespace
//! nor one of [`WORD_SEPARATORS`]; so a path, a URL or `foo.bar-baz` is one word. Real xterm's
//! default `charClass` differs (only letters, digits and `_` join, so `/` and `.` split a
//! path); a page terminal is compared with xterm.js, and VTE's default joins paths too, so the
//! xterm.js rule is the one followed here.

use std::ops::Range;

/// Characters that end a word besides whitespace (xterm.js `wordSeparator` default).
pub const WORD_SEPARATORS: &str = " ()[]{}',\"`";

/// Whether `c` can be part of a word.
pub fn is_word_char(c: char) -> bool {
    !c.is_whitespace() && !WORD_SEPARATORS.contains(c)
}

/// The word of `chars` (a row's characters) around index `at`, as a range of indices into
/// `chars`. A separator on its own is its own word (one character); whitespace, or an `at`
/// past the end, is no word (`None`).
pub fn word_bounds(chars: &[char], at: usize) -> Option<Range<usize>> {
    let c = *chars.get(at)?;
    if c.is_whitespace() {
        return None;
    }
    if !is_word_char(c) {
        return Some(at..at + 1);
    }
    let start = chars[..at]
        .iter()
        .rposition(|&c| !is_word_char(c))
        .map_or(0, |i| i + 1);
    let end = chars[at..]
        .iter()
        .position(|&c| !is_word_char(c))
        .map_or(chars.len(), |i| at + i);
    Some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(s: &str, at: usize) -> Option<String> {
        let chars: Vec<char> = s.chars().collect();
        word_bounds(&chars, at).map(|r| chars[r].iter().collect())
    }

    #[test]
    fn words_split_at_whitespace_and_separators_only() {
        assert_eq!(
            word("ls /usr/local/bin now", 6).as_deref(),
            Some("/usr/local/bin")
        );
        assert_eq!(
            word("see https://a.b/c?d=1 ok", 8).as_deref(),
            Some("https://a.b/c?d=1")
        );
        assert_eq!(word("f(foo.bar-baz)", 4).as_deref(), Some("foo.bar-baz"));
        assert_eq!(word("f(foo)", 1).as_deref(), Some("("));
        assert_eq!(word("a  b", 1), None);
        assert_eq!(word("ab", 2), None);
        assert_eq!(word("日本語 テスト", 1).as_deref(), Some("日本語"));
        assert_eq!(word("x", 0).as_deref(), Some("x"));
    }
}

//! [`strip_controls`]: program-supplied strings (titles, working directories, command lines,
//! launch titles) made safe to hand to clients that may print them raw.

use std::borrow::Cow;

/// Whether `c` is removed by [`strip_controls`]: C0 controls (U+0000–U+001F, ESC, CR, NUL and
/// tab among them), DEL (U+007F), C1 controls (U+0080–U+009F), and the characters that
/// reorder text around them: the bidi embeddings and overrides (U+202A–U+202E, U+202E is
/// RIGHT-TO-LEFT OVERRIDE), isolates (U+2066–U+2069), marks (U+200E, U+200F, U+061C), and the
/// line and paragraph separators (U+2028, U+2029).
pub fn is_stripped(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// `s` without the characters of [`is_stripped`]; borrowed when it has none. The relay applies
/// it to every string a program supplied before the string reaches a client (`GET /sessions`,
/// the websocket's `title`, `/mcp/terminals`, MCP tools); the terminal itself keeps what the
/// program sent.
pub fn strip_controls(s: &str) -> Cow<'_, str> {
    if s.chars().any(is_stripped) {
        Cow::Owned(s.chars().filter(|c| !is_stripped(*c)).collect())
    } else {
        Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_overrides_go_the_rest_stays() {
        assert!(matches!(strip_controls("vim main.rs"), Cow::Borrowed(_)));
        assert_eq!(
            strip_controls("a\u{1b}[31mb\0c\rd\te\u{7f}f\u{9b}g\u{202e}h\u{2066}i\u{200f}j"),
            "a[31mbcdefghij"
        );
        assert_eq!(strip_controls("\u{2028}x\u{2029}\u{061c}"), "x");
        // Everything else a title may hold is kept: letters of any script, emoji, joiners.
        let kept = "日本語 עברית 👩\u{200d}💻 café ~/src";
        assert_eq!(strip_controls(kept), kept);
    }
}

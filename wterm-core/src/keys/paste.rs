//! Pasted and agent-typed text to bytes.

/// Bracketed paste start (`CSI 200 ~`, xterm "Bracketed Paste Mode").
pub const PASTE_START: &[u8] = b"\x1b[200~";
/// Bracketed paste end (`CSI 201 ~`).
pub const PASTE_END: &[u8] = b"\x1b[201~";

/// Bytes for pasting `text`. When the program enabled bracketed paste (mode 2004) the text is
/// wrapped in `CSI 200 ~` … `CSI 201 ~` with every ESC removed, so the pasted text cannot end
/// the paste early. Otherwise line breaks become Enter ([`enter_newlines`]) and the text is
/// sent as is.
pub fn encode_paste(text: &str, bracketed: bool) -> Vec<u8> {
    if bracketed {
        let mut out = Vec::with_capacity(text.len() + PASTE_START.len() + PASTE_END.len());
        out.extend_from_slice(PASTE_START);
        out.extend(text.bytes().filter(|&b| b != 0x1b));
        out.extend_from_slice(PASTE_END);
        out
    } else {
        enter_newlines(text).into_bytes()
    }
}

/// Bytes for text typed as if by the user (WebMCP `type_in_terminal`): multi-line text is a
/// paste (see [`encode_paste`]); single-line text is sent as is.
pub fn encode_typed(text: &str, bracketed: bool) -> Vec<u8> {
    if text.contains(['\n', '\r']) {
        encode_paste(text, bracketed)
    } else {
        text.as_bytes().to_vec()
    }
}

/// Text with its line breaks turned into what the Enter key sends: `\r\n` and `\n` become one
/// CR (0x0D) each; a lone CR stays, and every other character, control characters included, is
/// unchanged. Same length or shorter, in bytes and characters.
///
/// The one newline rule for text sent to a program as typed input: a tty in its default mode
/// (`icrnl`) turns Enter's CR into the `\n` a program reads, while a `\n` sent as is reaches a
/// raw-mode program (an editor, a REPL, a TUI) as Ctrl+J, not Enter. Used by [`encode_paste`]
/// without bracketed paste (so by WebMCP `type_in_terminal`), and for the relay's MCP
/// `send_input` (whose `data` is otherwise raw bytes).
pub fn enter_newlines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {
                chars.next();
                out.push('\r');
            }
            '\n' => out.push('\r'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_strips_esc() {
        assert_eq!(
            encode_paste("a\x1b[201~b\n", true),
            b"\x1b[200~a[201~b\n\x1b[201~".to_vec()
        );
    }

    #[test]
    fn unbracketed_newlines_become_cr() {
        assert_eq!(encode_paste("a\r\nb\nc\rd", false), b"a\rb\rc\rd".to_vec());
    }

    #[test]
    fn enter_newlines_turns_each_line_break_into_one_cr() {
        assert_eq!(enter_newlines("a\nb\r\nc\r"), "a\rb\rc\r");
        assert_eq!(enter_newlines("\r\r\n\n\r\n"), "\r\r\r\r");
        assert_eq!(enter_newlines("\u{3}\t\u{1b}é中\n"), "\u{3}\t\u{1b}é中\r");
        assert_eq!(enter_newlines(""), "");
    }

    /// The rule as the relay's `send_input` first spelled it: every string over {a, CR, LF} up
    /// to 7 characters gets the same answer.
    #[test]
    fn enter_newlines_matches_replacing_crlf_then_lf() {
        let alphabet = ['a', '\r', '\n'];
        let mut texts = vec![String::new()];
        for _ in 0..7 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            for text in &longer {
                assert_eq!(
                    enter_newlines(text),
                    text.replace("\r\n", "\r").replace('\n', "\r"),
                    "{text:?}"
                );
            }
            texts = longer;
        }
    }

    #[test]
    fn typed_single_line_is_verbatim() {
        assert_eq!(encode_typed("ls -l", true), b"ls -l".to_vec());
        assert_eq!(encode_typed("a\nb", false), b"a\rb".to_vec());
    }
}

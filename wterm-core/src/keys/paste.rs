//! Pasted and agent-typed text to bytes.

/// Bracketed paste start (`CSI 200 ~`, xterm "Bracketed Paste Mode").
pub const PASTE_START: &[u8] = b"\x1b[200~";
/// Bracketed paste end (`CSI 201 ~`).
pub const PASTE_END: &[u8] = b"\x1b[201~";

/// Bytes for pasting `text`. When the program enabled bracketed paste (mode 2004) the text is
/// wrapped in `CSI 200 ~` … `CSI 201 ~` with every ESC removed, so the pasted text cannot end
/// the paste early. Otherwise line breaks (`\r\n`, `\n`) become CR, as a keyboard Enter, and the
/// text is sent as is.
pub fn encode_paste(text: &str, bracketed: bool) -> Vec<u8> {
    if bracketed {
        let mut out = Vec::with_capacity(text.len() + PASTE_START.len() + PASTE_END.len());
        out.extend_from_slice(PASTE_START);
        out.extend(text.bytes().filter(|&b| b != 0x1b));
        out.extend_from_slice(PASTE_END);
        out
    } else {
        newlines_to_cr(text)
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

/// `\r\n` and `\n` become one CR each; a lone CR stays.
pub fn newlines_to_cr(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                out.push(b'\r');
                i += 2;
                continue;
            }
            b'\n' => out.push(b'\r'),
            b => out.push(b),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_strips_esc() {
        assert_eq!(encode_paste("a\x1b[201~b\n", true), b"\x1b[200~a[201~b\n\x1b[201~".to_vec());
    }

    #[test]
    fn unbracketed_newlines_become_cr() {
        assert_eq!(encode_paste("a\r\nb\nc\rd", false), b"a\rb\rc\rd".to_vec());
    }

    #[test]
    fn typed_single_line_is_verbatim() {
        assert_eq!(encode_typed("ls -l", true), b"ls -l".to_vec());
        assert_eq!(encode_typed("a\nb", false), b"a\rb".to_vec());
    }
}

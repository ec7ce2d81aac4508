//! OSC payload decoding: OSC 7 (working directory), OSC 52 (clipboard), OSC 133 (shell
//! integration), and the number of wterm's private wrap mark.

use crate::limits::{MAX_CWD_BYTES, MAX_OSC_BYTES};
use crate::terminal::{ShellIntegration, ShellState};

/// `OSC 7710 ST`, private to wterm: marks the cursor row as soft-wrapped (its line continues on
/// the next row), as printing past its last column would. [`crate::Terminal::snapshot`] writes it
/// for a wrapped row whose continuation is gone (scroll regions, RI and the alternate screen can
/// move a wrapped row to the bottom and drop the row it wrapped into), so the snapshot keeps the
/// flag that decides how the row reads as text. Other terminals ignore unknown OSC numbers.
pub(crate) const OSC_WRAP_MARK: &[u8] = b"7710";

/// Joins OSC parameters after the first with `;`, undoing vte's split (a path or title may
/// contain `;`).
pub(crate) fn rest(params: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, p) in params.iter().enumerate().skip(1) {
        if i > 1 {
            out.push(b';');
        }
        out.extend_from_slice(p);
    }
    out
}

/// Decodes an OSC 7 report, `file://HOST/PATH` with PATH percent-encoded, to its path.
/// Returns `None` for anything else (other schemes, no path, over [`MAX_CWD_BYTES`], bad UTF-8).
pub(crate) fn decode_osc7(uri: &[u8]) -> Option<String> {
    if uri.len() > MAX_CWD_BYTES {
        return None;
    }
    let rest = uri.strip_prefix(b"file://")?;
    let slash = rest.iter().position(|&b| b == b'/')?;
    let path = &rest[slash..];
    let mut out = Vec::with_capacity(path.len());
    let mut i = 0;
    while i < path.len() {
        if path[i] == b'%' && i + 2 < path.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(path[i + 1]), hex(path[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(path[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// Decodes an OSC 52 clipboard write, `52 ; Pc ; Pd` (xterm ctlseqs, "Manipulate Selection
/// Data"): `Pc` names selections (`c`, `p`, `q`, `s`, `0`-`7`, or none: all are the one
/// clipboard here), `Pd` is the text in standard base64. Returns `None` for a query (`?`: never
/// answered), an empty `Pd` (xterm clears the selection; the page's clipboard is left alone),
/// bad base64 or UTF-8, and a sequence that filled the parser's [`MAX_OSC_BYTES`] (its end was
/// dropped, so the text would be cut).
pub(crate) fn decode_osc52(params: &[&[u8]]) -> Option<String> {
    let [_, selection, data] = params else { return None };
    let valid_selection = selection.iter().all(|b| b"cpqs01234567".contains(b));
    let len: usize = params.iter().map(|p| p.len() + 1).sum();
    if !valid_selection || data.is_empty() || *data == b"?" || len >= MAX_OSC_BYTES {
        return None;
    }
    String::from_utf8(decode_base64(data)?).ok()
}

/// Standard base64 (RFC 4648 §4) with optional `=` padding. Own code rather than a crate: it
/// is the only base64 in the wasm, and this is a few hundred bytes.
fn decode_base64(data: &[u8]) -> Option<Vec<u8>> {
    let data = data.strip_suffix(b"==").or_else(|| data.strip_suffix(b"=")).unwrap_or(data);
    if data.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(data.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in data {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// Applies an OSC 133 mark (FinalTerm shell integration: `A` prompt start, `B` command start,
/// `C` command executed, `D[;exit]` command finished) to the current state.
pub(crate) fn apply_osc133(params: &[&[u8]], current: &mut Option<ShellIntegration>) {
    let Some(mark) = params.get(1) else { return };
    let state = match mark.first() {
        Some(b'A') => ShellState::Prompt,
        Some(b'B') => ShellState::Input,
        Some(b'C') => ShellState::Running,
        Some(b'D') => ShellState::Done,
        _ => return,
    };
    let exit_code = if state == ShellState::Done {
        params
            .get(2)
            .and_then(|p| core::str::from_utf8(p).ok())
            .and_then(|s| s.trim().parse::<i32>().ok())
    } else {
        None
    };
    *current = Some(ShellIntegration { state, exit_code });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc7_decodes_percent_and_drops_host() {
        assert_eq!(decode_osc7(b"file://box/home/a%20b").as_deref(), Some("/home/a b"));
        assert_eq!(decode_osc7(b"file:///tmp").as_deref(), Some("/tmp"));
        assert_eq!(decode_osc7(b"file://host/x%2").as_deref(), Some("/x%2"));
        assert_eq!(decode_osc7(b"http://host/x"), None);
        assert_eq!(decode_osc7(b"file://hostonly"), None);
    }

    #[test]
    fn base64_follows_rfc4648_test_vectors() {
        // RFC 4648 §10.
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(decode_base64(enc.as_bytes()).as_deref(), Some(plain.as_bytes()), "{enc}");
            let unpadded = enc.trim_end_matches('=');
            assert_eq!(decode_base64(unpadded.as_bytes()).as_deref(), Some(plain.as_bytes()));
        }
        assert_eq!(decode_base64(b"/+8="), Some(vec![0xff, 0xef]));
        for bad in ["Z", "Zm9v!", "Zm 9v", "Zm9vY"] {
            assert_eq!(decode_base64(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn osc52_writes_only_whole_utf8_text() {
        assert_eq!(decode_osc52(&[b"52", b"c", b"aMOp"]).as_deref(), Some("hé"));
        assert_eq!(decode_osc52(&[b"52", b"", b"aGk="]).as_deref(), Some("hi"));
        assert_eq!(decode_osc52(&[b"52", b"ps0", b"aGk="]).as_deref(), Some("hi"));
        // Queries are not answered; clearing, bad selections, bad data are ignored.
        assert_eq!(decode_osc52(&[b"52", b"c", b"?"]), None);
        assert_eq!(decode_osc52(&[b"52", b"c", b""]), None);
        assert_eq!(decode_osc52(&[b"52", b"x", b"aGk="]), None);
        assert_eq!(decode_osc52(&[b"52", b"c", b"/w=="]), None, "0xff is not UTF-8");
        assert_eq!(decode_osc52(&[b"52", b"c"]), None);
        assert_eq!(decode_osc52(&[b"52", b"c", b"aGk=", b"x"]), None);
        // A payload that filled the parser's buffer lost its end.
        let long = vec![b'A'; MAX_OSC_BYTES];
        assert_eq!(decode_osc52(&[b"52", b"c", &long]), None);
    }

    #[test]
    fn osc133_marks() {
        let mut s = None;
        apply_osc133(&[b"133", b"A"], &mut s);
        assert_eq!(s, Some(ShellIntegration { state: ShellState::Prompt, exit_code: None }));
        apply_osc133(&[b"133", b"D", b"130"], &mut s);
        assert_eq!(s, Some(ShellIntegration { state: ShellState::Done, exit_code: Some(130) }));
        apply_osc133(&[b"133", b"D"], &mut s);
        assert_eq!(s, Some(ShellIntegration { state: ShellState::Done, exit_code: None }));
        apply_osc133(&[b"133", b"Z"], &mut s);
        assert_eq!(s.unwrap().state, ShellState::Done);
    }
}

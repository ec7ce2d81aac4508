//! OSC payload decoding: OSC 7 (working directory) and OSC 133 (shell integration), and the
//! number of wterm's private wrap mark.

use crate::limits::MAX_CWD_BYTES;
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

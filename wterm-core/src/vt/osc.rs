//! OSC payload decoding: OSC 7 (working directory), OSC 9;4 (progress), OSC 52 (clipboard),
//! OSC 133 and 633 (shell integration), and the numbers of wterm's private wrap mark and
//! command-log records.

use crate::limits::{MAX_CWD_BYTES, MAX_OSC_BYTES};
use crate::terminal::{Progress, ProgressState, ShellIntegration, ShellState};

/// `OSC 7710 ST`, private to wterm: marks the cursor row as soft-wrapped (its line continues on
/// the next row), as printing past its last column would. [`crate::Terminal::snapshot`] writes it
/// for a wrapped row whose continuation is gone (scroll regions, RI and the alternate screen can
/// move a wrapped row to the bottom and drop the row it wrapped into), so the snapshot keeps the
/// flag that decides how the row reads as text. Other terminals ignore unknown OSC numbers.
pub(crate) const OSC_WRAP_MARK: &[u8] = b"7710";

/// `OSC 7711 ; ... ST`, private to wterm: the command log and lifetime row count, written by
/// [`crate::Terminal::snapshot`] after everything else and read back by the receiving terminal
/// (`cmdlog.rs` has the format).
pub(crate) const OSC_COMMAND_LOG: &[u8] = b"7711";

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
    String::from_utf8(percent_decode(&rest[slash..])).ok()
}

/// The value of a hex digit.
fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// `%HH` to the byte; a `%` not followed by two hex digits stays as it is (RFC 3986 §2.1).
fn percent_decode(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' && i + 2 < s.len() {
            if let (Some(h), Some(l)) = (hex(s[i + 1]), hex(s[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

/// A decimal number of ASCII digits only, saturating; `Some(0)` for an empty one (xterm.js's
/// progress addon reads an absent `st` or `pr` as 0); `None` for any other byte.
fn decimal(s: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.saturating_mul(10).saturating_add(u32::from(b - b'0'));
    }
    Some(v)
}

/// Decodes ConEmu's progress report, `9 ; 4 ; st [; pr]` (ConEmu "ANSI escape codes", OSC 9;4;
/// Windows Terminal reads the same), given the `previous` state. `st`: 0 remove (value 0),
/// 1 set to `pr`, 2 error and 4 paused (`pr`, or the previous value when `pr` is absent or 0),
/// 3 indeterminate (keeps the previous value); `pr` is clamped to 100. These are the rules of
/// xterm.js's progress addon. `Some(None)`: the payload is a progress report (`9;4;...`) but
/// faulty (a byte other than a digit, an unknown state, more parameters) and changes nothing;
/// `None`: not a progress report at all (`9 ; text` is an iTerm2 notification).
pub(crate) fn decode_progress(params: &[&[u8]], previous: Progress) -> Option<Option<Progress>> {
    let [_, b"4", st, rest @ ..] = params else {
        return None;
    };
    let pr = match rest {
        [] => Some(0),
        [pr] => decimal(pr),
        _ => None,
    };
    let (Some(st), Some(pr)) = (decimal(st), pr) else {
        return Some(None);
    };
    let pr = pr.min(100) as u8;
    let kept = |v: u8| if v == 0 { previous.value } else { v };
    let (state, value) = match st {
        0 => (ProgressState::Remove, 0),
        1 => (ProgressState::Set, pr),
        2 => (ProgressState::Error, kept(pr)),
        3 => (ProgressState::Indeterminate, previous.value),
        4 => (ProgressState::Paused, kept(pr)),
        _ => return Some(None),
    };
    Some(Some(Progress { state, value }))
}

/// Decodes an OSC 52 clipboard write, `52 ; Pc ; Pd` (xterm ctlseqs, "Manipulate Selection
/// Data"): `Pc` names selections (`c`, `p`, `q`, `s`, `0`-`7`, or none: all are the one
/// clipboard here), `Pd` is the text in standard base64. Returns `None` for a query (`?`: never
/// answered), an empty `Pd` (xterm clears the selection; the page's clipboard is left alone),
/// bad base64 or UTF-8, and a sequence that filled the parser's [`MAX_OSC_BYTES`] (its end was
/// dropped, so the text would be cut).
pub(crate) fn decode_osc52(params: &[&[u8]]) -> Option<String> {
    let [_, selection, data] = params else {
        return None;
    };
    let valid_selection = selection.iter().all(|b| b"cpqs01234567".contains(b));
    let len: usize = params.iter().map(|p| p.len() + 1).sum();
    if !valid_selection || data.is_empty() || *data == b"?" || len >= MAX_OSC_BYTES {
        return None;
    }
    String::from_utf8(decode_base64(data)?).ok()
}

/// Standard base64 (RFC 4648 §4) with optional `=` padding. Own code rather than a crate: it
/// is the only base64 in the wasm, and this is a few hundred bytes.
pub(crate) fn decode_base64(data: &[u8]) -> Option<Vec<u8>> {
    let data = data
        .strip_suffix(b"==")
        .or_else(|| data.strip_suffix(b"="))
        .unwrap_or(data);
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

/// Standard base64 with padding, the inverse of [`decode_base64`] (the command log in a
/// snapshot).
pub(crate) fn encode_base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// What an OSC 133 or OSC 633 sequence reports about the shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ShellReport {
    /// A mark (`A` prompt, `B` input, `C` running, `D[;exit]` done), with the command line when
    /// `C` carries one (OSC 133 `cmdline=` / `cmdline_url=`).
    Mark(ShellIntegration, Option<String>),
    /// VS Code's `OSC 633 ; E ; <commandline> [; <nonce>]`: the command about to run.
    CommandLine(String),
    /// VS Code's `OSC 633 ; P ; Cwd=<path>`: the working directory, as OSC 7 reports it.
    Cwd(String),
}

/// Decodes shell integration, two dialects of one protocol:
///
/// - OSC 133 (FinalTerm marks, as kitty, Ghostty, WezTerm and iTerm2 read them): `A`, `B`, `C`,
///   `D[;exit]`; options after the mark are ignored except on `C`: `cmdline_url=`
///   (percent-encoded; fish's and Ghostty's scripts) and `cmdline=` (the shell's own quoting,
///   `printf %q`; kitty's scripts). Ghostty reads both keys this way. A `;` inside a `cmdline=`
///   value is not escaped, so the rest of the sequence is taken as the value.
/// - OSC 633 (VS Code's `shellIntegration-*.sh`): `A`-`D` as in 133; `E ; <commandline> [;
///   <nonce>]` with `\\` for a backslash and `\xHH` for `;` and bytes below 0x20
///   (`__vsc_escape_value`); `P ; Cwd=<path>`, escaped the same way. The nonce is not checked:
///   any program can print marks of either kind, so none of this is trusted more than output.
///   Other properties and `F`/`G` are ignored.
pub(crate) fn decode_shell_osc(params: &[&[u8]]) -> Option<ShellReport> {
    let vscode = params.first() == Some(&&b"633"[..]);
    let arg = params.get(1)?;
    let state = match arg.first()? {
        b'A' => ShellState::Prompt,
        b'B' => ShellState::Input,
        b'C' => ShellState::Running,
        b'D' => ShellState::Done,
        b'E' if vscode => {
            return Some(ShellReport::CommandLine(unescape_vscode(
                params.get(2).copied().unwrap_or(b""),
            )));
        }
        b'P' if vscode => {
            let path = unescape_vscode(params.get(2)?.strip_prefix(b"Cwd=")?);
            return (!path.is_empty() && path.len() <= MAX_CWD_BYTES)
                .then_some(ShellReport::Cwd(path));
        }
        _ => return None,
    };
    let mut exit_code = None;
    let mut cmdline = None;
    if state == ShellState::Done {
        exit_code = params
            .get(2)
            .and_then(|p| core::str::from_utf8(p).ok())
            .and_then(|s| s.trim().parse::<i32>().ok());
    } else if state == ShellState::Running && !vscode {
        for (i, p) in params.iter().enumerate().skip(2) {
            if let Some(v) = p.strip_prefix(b"cmdline_url=") {
                cmdline = Some(String::from_utf8_lossy(&percent_decode(v)).into_owned());
            } else if p.starts_with(b"cmdline=") {
                let whole = rest(&params[i - 1..]);
                cmdline = Some(unquote_shell(&whole[b"cmdline=".len()..]));
                break;
            }
        }
    }
    Some(ShellReport::Mark(
        ShellIntegration { state, exit_code },
        cmdline,
    ))
}

/// Undoes VS Code's `__vsc_escape_value`: `\\` is a backslash, `\xHH` the byte HH; anything
/// else is itself. Bytes that are not UTF-8 become U+FFFD.
fn unescape_vscode(s: &[u8]) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' {
            if s.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            let digit = |k: usize| s.get(i + k).and_then(|&b| hex(b));
            if let (Some(b'x'), Some(h), Some(l)) = (s.get(i + 1), digit(2), digit(3)) {
                out.push(h * 16 + l);
                i += 4;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Undoes a shell's quoting of one word (bash `printf %q`, zsh `${(q)...}`): `\c` is `c`,
/// `'...'` is literal, `"..."` drops a `\` before `"`, `\`, `$` and backquote, and `$'...'` has
/// C escapes (`\n`, `\t`, `\e`, `\xHH`, octal `\NNN`, ...). Lenient: an unclosed quote runs to
/// the end. Bytes that are not UTF-8 become U+FFFD.
fn unquote_shell(s: &[u8]) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'\\' if i + 1 < s.len() => {
                out.push(s[i + 1]);
                i += 2;
            }
            b'\'' => {
                let end = s[i + 1..]
                    .iter()
                    .position(|&b| b == b'\'')
                    .map_or(s.len(), |p| i + 1 + p);
                out.extend_from_slice(&s[i + 1..end]);
                i = end + 1;
            }
            b'"' => {
                i += 1;
                while i < s.len() && s[i] != b'"' {
                    if s[i] == b'\\' && s.get(i + 1).is_some_and(|b| b"\"\\$`".contains(b)) {
                        i += 1;
                    }
                    out.push(s[i]);
                    i += 1;
                }
                i += 1;
            }
            b'$' if s.get(i + 1) == Some(&b'\'') => {
                i += 2;
                while i < s.len() && s[i] != b'\'' {
                    if s[i] != b'\\' || i + 1 >= s.len() {
                        out.push(s[i]);
                        i += 1;
                        continue;
                    }
                    let c = s[i + 1];
                    i += 2;
                    // \x takes up to 2 hex digits, \0-\7 up to 3 octal ones (bash's $'...').
                    let (radix, max, first) = match c {
                        b'x' => (16, 2, 0),
                        b'0'..=b'7' => (8, 2, c - b'0'),
                        _ => (0, 0, 0),
                    };
                    if radix == 0 {
                        out.push(match c {
                            b'n' => b'\n',
                            b't' => b'\t',
                            b'r' => b'\r',
                            b'e' | b'E' => 0x1b,
                            b'a' => 0x07,
                            b'b' => 0x08,
                            b'f' => 0x0c,
                            b'v' => 0x0b,
                            other => other,
                        });
                        continue;
                    }
                    let mut v = first;
                    for _ in 0..max {
                        match s.get(i).and_then(|&b| (b as char).to_digit(radix)) {
                            Some(d) => v = v.wrapping_mul(radix as u8).wrapping_add(d as u8),
                            None => break,
                        }
                        i += 1;
                    }
                    out.push(v);
                }
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc7_decodes_percent_and_drops_host() {
        assert_eq!(
            decode_osc7(b"file://box/home/a%20b").as_deref(),
            Some("/home/a b")
        );
        assert_eq!(decode_osc7(b"file:///tmp").as_deref(), Some("/tmp"));
        assert_eq!(decode_osc7(b"file://host/x%2").as_deref(), Some("/x%2"));
        assert_eq!(decode_osc7(b"http://host/x"), None);
        assert_eq!(decode_osc7(b"file://hostonly"), None);
    }

    #[test]
    fn osc9_4_progress_follows_conemu_and_xtermjs() {
        let p = |state, value| Progress { state, value };
        let at40 = p(ProgressState::Set, 40);
        let d = |params: &[&[u8]]| decode_progress(params, at40);
        assert_eq!(
            d(&[b"9", b"4", b"1", b"75"]),
            Some(Some(p(ProgressState::Set, 75)))
        );
        assert_eq!(
            d(&[b"9", b"4", b"1", b"250"]),
            Some(Some(p(ProgressState::Set, 100)))
        );
        assert_eq!(d(&[b"9", b"4", b"1"]), Some(Some(p(ProgressState::Set, 0))));
        assert_eq!(
            d(&[b"9", b"4", b"0", b"50"]),
            Some(Some(p(ProgressState::Remove, 0)))
        );
        assert_eq!(
            d(&[b"9", b"4", b""]),
            Some(Some(p(ProgressState::Remove, 0)))
        );
        // Error and paused keep the previous value unless given one; indeterminate always does.
        assert_eq!(
            d(&[b"9", b"4", b"2"]),
            Some(Some(p(ProgressState::Error, 40)))
        );
        assert_eq!(
            d(&[b"9", b"4", b"2", b"0"]),
            Some(Some(p(ProgressState::Error, 40)))
        );
        assert_eq!(
            d(&[b"9", b"4", b"4", b"7"]),
            Some(Some(p(ProgressState::Paused, 7)))
        );
        assert_eq!(
            d(&[b"9", b"4", b"3", b"90"]),
            Some(Some(p(ProgressState::Indeterminate, 40)))
        );
        assert_eq!(
            d(&[b"9", b"4", b"1", b"99999999999999999999"]),
            Some(Some(p(ProgressState::Set, 100)))
        );
        // Faulty progress reports change nothing.
        for bad in [
            &[&b"9"[..], b"4", b"5", b"1"][..],
            &[b"9", b"4", b"1", b"-1"],
            &[b"9", b"4", b"1", b" 5"],
            &[b"9", b"4", b"x"],
            &[b"9", b"4", b"1", b"5", b"6"],
        ] {
            assert_eq!(d(bad), Some(None), "{bad:?}");
        }
        // iTerm2 notifications and ConEmu's other OSC 9 commands are not progress.
        assert_eq!(d(&[b"9", b"build done"]), None);
        assert_eq!(d(&[b"9", b"4"]), None);
        assert_eq!(d(&[b"9", b"9", b"/tmp"]), None);
        assert_eq!(d(&[b"9"]), None);
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
            assert_eq!(
                decode_base64(enc.as_bytes()).as_deref(),
                Some(plain.as_bytes()),
                "{enc}"
            );
            let unpadded = enc.trim_end_matches('=');
            assert_eq!(
                decode_base64(unpadded.as_bytes()).as_deref(),
                Some(plain.as_bytes())
            );
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
        assert_eq!(
            decode_osc52(&[b"52", b"ps0", b"aGk="]).as_deref(),
            Some("hi")
        );
        // Queries are not answered; clearing, bad selections, bad data are ignored.
        assert_eq!(decode_osc52(&[b"52", b"c", b"?"]), None);
        assert_eq!(decode_osc52(&[b"52", b"c", b""]), None);
        assert_eq!(decode_osc52(&[b"52", b"x", b"aGk="]), None);
        assert_eq!(
            decode_osc52(&[b"52", b"c", b"/w=="]),
            None,
            "0xff is not UTF-8"
        );
        assert_eq!(decode_osc52(&[b"52", b"c"]), None);
        assert_eq!(decode_osc52(&[b"52", b"c", b"aGk=", b"x"]), None);
        // A payload that filled the parser's buffer lost its end.
        let long = vec![b'A'; MAX_OSC_BYTES];
        assert_eq!(decode_osc52(&[b"52", b"c", &long]), None);
    }

    fn mark(params: &[&[u8]]) -> Option<(ShellState, Option<i32>, Option<String>)> {
        match decode_shell_osc(params)? {
            ShellReport::Mark(m, text) => Some((m.state, m.exit_code, text)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn osc133_marks() {
        assert_eq!(
            mark(&[b"133", b"A"]),
            Some((ShellState::Prompt, None, None))
        );
        assert_eq!(
            mark(&[b"133", b"A", b"k=s"]),
            Some((ShellState::Prompt, None, None))
        );
        assert_eq!(
            mark(&[b"133", b"D", b"130"]),
            Some((ShellState::Done, Some(130), None))
        );
        assert_eq!(mark(&[b"133", b"D"]), Some((ShellState::Done, None, None)));
        assert_eq!(
            mark(&[b"133", b"D", b"0", b"aid=1"]),
            Some((ShellState::Done, Some(0), None))
        );
        assert_eq!(mark(&[b"133", b"Z"]), None);
        assert_eq!(mark(&[b"133"]), None);
        // 633 A-D are the same marks.
        assert_eq!(
            mark(&[b"633", b"D", b"1"]),
            Some((ShellState::Done, Some(1), None))
        );
        assert_eq!(
            mark(&[b"633", b"C"]),
            Some((ShellState::Running, None, None))
        );
        // E and P mean nothing in 133.
        assert_eq!(mark(&[b"133", b"E", b"ls"]), None);
    }

    #[test]
    fn osc133_command_lines_as_kitty_and_ghostty_send_them() {
        let text = |params: &[&[u8]]| mark(params).and_then(|m| m.2);
        assert_eq!(
            text(&[b"133", b"C", b"cmdline_url=echo%20hi%3B%0Als"]).as_deref(),
            Some("echo hi;\nls")
        );
        assert_eq!(
            text(&[b"133", b"C", br"cmdline=echo\ hi"]).as_deref(),
            Some("echo hi")
        );
        // bash printf %q escapes `;` with a backslash, but the parser splits there anyway.
        assert_eq!(
            text(&[b"133", b"C", br"cmdline=a\", b"b"]).as_deref(),
            Some("a;b")
        );
        assert_eq!(
            text(&[b"133", b"C", br"cmdline=$'a\nb\x41\101'\ \'q\'"]).as_deref(),
            Some("a\nbAA 'q'")
        );
        assert_eq!(
            text(&[b"133", b"C", br#"cmdline='x y'"z\"""#]).as_deref(),
            Some("x yz\"")
        );
        assert_eq!(text(&[b"133", b"C"]), None);
    }

    #[test]
    fn osc633_command_line_and_cwd_unescape_as_vscode_escapes() {
        assert_eq!(
            decode_shell_osc(&[b"633", b"E", br"echo a\x3bb \\ \x0a\xzz", b"nonce"]),
            Some(ShellReport::CommandLine("echo a;b \\ \n\\xzz".into()))
        );
        assert_eq!(
            decode_shell_osc(&[b"633", b"E"]),
            Some(ShellReport::CommandLine(String::new()))
        );
        assert_eq!(
            decode_shell_osc(&[b"633", b"P", br"Cwd=/a\x3bb"]),
            Some(ShellReport::Cwd("/a;b".into()))
        );
        assert_eq!(decode_shell_osc(&[b"633", b"P", b"IsWindows=False"]), None);
        assert_eq!(decode_shell_osc(&[b"633", b"P", b"Cwd="]), None);
    }

    #[test]
    fn base64_round_trips() {
        for s in [
            "",
            "f",
            "fo",
            "foo",
            "foob",
            "fooba",
            "foobar",
            "h\u{e9} \u{1f600}",
        ] {
            let enc = encode_base64(s.as_bytes());
            assert_eq!(
                decode_base64(enc.as_bytes()).as_deref(),
                Some(s.as_bytes()),
                "{s}"
            );
        }
        assert_eq!(encode_base64(b"foob"), "Zm9vYg==");
    }
}

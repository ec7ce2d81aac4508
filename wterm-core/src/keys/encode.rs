//! Chord + modes → bytes. A pure function of its inputs: the caller passes the live modes.

use super::{Chord, Key, Mods};
use crate::Modes;

const KITTY_DISAMBIGUATE: u8 = Modes::KITTY_DISAMBIGUATE;
const KITTY_ALL_KEYS: u8 = Modes::KITTY_REPORT_ALL_KEYS;

/// The bytes the key sends to the program, given the program's current `modes`.
///
/// Legacy encoding follows xterm: Ctrl+letter is the C0 control, Alt and Meta add an ESC prefix,
/// cursor keys send SS3 under DECCKM (`CSI ? 1 h`) and `CSI 1;m X` with modifiers (xterm
/// ctlseqs, "PC-Style Function Keys"), Shift+Tab is `CSI Z`. When the program pushed kitty
/// keyboard flags 1 or 8 (`CSI > flags u`), keys are encoded per the kitty keyboard protocol
/// ("Disambiguate escape codes", "Report all keys as escape codes"): e.g. Ctrl+C = `CSI 99;5u`.
/// A chord with no encoding (Ctrl with a character that has no control code, and no kitty
/// flags) sends the character itself, as xterm does.
pub fn encode(chord: Chord, modes: &Modes) -> Vec<u8> {
    let flags = modes.kitty_flags;
    if flags & (KITTY_DISAMBIGUATE | KITTY_ALL_KEYS) != 0 {
        if let Some(bytes) = encode_kitty(chord, modes, flags) {
            return bytes;
        }
    }
    encode_legacy(chord, modes)
}

fn csi(body: &str) -> Vec<u8> {
    let mut v = b"\x1b[".to_vec();
    v.extend_from_slice(body.as_bytes());
    v
}

/// Final byte of the cursor and Home/End keys in `CSI 1;m X` / SS3 form.
fn letter_key(key: Key) -> Option<u8> {
    Some(match key {
        Key::ArrowUp => b'A',
        Key::ArrowDown => b'B',
        Key::ArrowRight => b'C',
        Key::ArrowLeft => b'D',
        Key::Home => b'H',
        Key::End => b'F',
        Key::F(1) => b'P',
        Key::F(2) => b'Q',
        Key::F(3) => b'R',
        Key::F(4) => b'S',
        _ => return None,
    })
}

/// Number of the `CSI n ~` keys.
fn tilde_key(key: Key) -> Option<u8> {
    Some(match key {
        Key::Insert => 2,
        Key::Delete => 3,
        Key::PageUp => 5,
        Key::PageDown => 6,
        Key::F(5) => 15,
        Key::F(6) => 17,
        Key::F(7) => 18,
        Key::F(8) => 19,
        Key::F(9) => 20,
        Key::F(10) => 21,
        Key::F(11) => 23,
        Key::F(12) => 24,
        _ => return None,
    })
}

/// The C0 control code Ctrl+`c` produces in xterm, if any.
fn ctrl_code(c: char) -> Option<u8> {
    Some(match c {
        'a'..='z' => c as u8 - b'a' + 1,
        'A'..='Z' => c as u8 - b'A' + 1,
        '@' | ' ' | '2' | '`' => 0,
        '[' | '3' | '{' => 0x1b,
        '\\' | '4' | '|' => 0x1c,
        ']' | '5' | '}' => 0x1d,
        '^' | '6' | '~' => 0x1e,
        '_' | '7' | '/' | '-' => 0x1f,
        '?' | '8' => 0x7f,
        _ => return None,
    })
}

fn encode_legacy(chord: Chord, modes: &Modes) -> Vec<u8> {
    let Chord { key, mods } = chord;
    // Alt and Meta both send an ESC prefix before the unmodified encoding (xterm
    // metaSendsEscape), for the keys that have no modifier parameter form.
    let esc_prefix = mods.alt || mods.meta;
    let param = mods.param();
    let mut out = Vec::new();
    match key {
        Key::Char(c) => {
            if esc_prefix {
                out.push(0x1b);
            }
            match (mods.ctrl, ctrl_code(c)) {
                (true, Some(code)) => out.push(code),
                _ => {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        Key::Enter | Key::LineFeed | Key::Tab | Key::Backspace | Key::Escape => {
            if key == Key::Tab && mods.shift {
                if esc_prefix {
                    out.push(0x1b);
                }
                out.extend_from_slice(b"\x1b[Z");
                return out;
            }
            if esc_prefix {
                out.push(0x1b);
            }
            out.push(match key {
                Key::Enter => b'\r',
                Key::LineFeed => b'\n',
                Key::Tab => b'\t',
                // Ctrl+Backspace sends BS (xterm), plain Backspace DEL.
                Key::Backspace if mods.ctrl => 0x08,
                Key::Backspace => 0x7f,
                _ => 0x1b,
            });
        }
        _ => {
            if let Some(fin) = letter_key(key) {
                if param > 1 {
                    out.extend_from_slice(format!("\x1b[1;{param}").as_bytes());
                    out.push(fin);
                } else if modes.application_cursor || matches!(key, Key::F(_)) {
                    out.extend_from_slice(&[0x1b, b'O', fin]);
                } else {
                    out.extend_from_slice(&[0x1b, b'[', fin]);
                }
            } else if let Some(n) = tilde_key(key) {
                if param > 1 {
                    out.extend_from_slice(&csi(&format!("{n};{param}~")));
                } else {
                    out.extend_from_slice(&csi(&format!("{n}~")));
                }
            }
        }
    }
    out
}

/// The kitty key code of a key in `CSI code u` form, for the keys that use it.
fn kitty_u_code(key: Key) -> Option<u32> {
    Some(match key {
        Key::Char(c) => {
            // Kitty reports the unshifted key; for letters that is the lowercase letter.
            if c.is_ascii_uppercase() {
                c.to_ascii_lowercase() as u32
            } else {
                c as u32
            }
        }
        Key::Enter => 13,
        Key::Tab => 9,
        Key::Backspace => 127,
        Key::Escape => 27,
        _ => return None,
    })
}

fn encode_kitty(chord: Chord, modes: &Modes, flags: u8) -> Option<Vec<u8>> {
    let Chord { key, mods } = chord;
    let all_keys = flags & KITTY_ALL_KEYS != 0;
    let param = mods.param();
    if key == Key::LineFeed {
        return None;
    }
    if let Some(code) = kitty_u_code(key) {
        let text_key = matches!(key, Key::Char(_));
        let plain = !mods.any()
            || (text_key
                && mods
                    == Mods {
                        shift: true,
                        ..Mods::NONE
                    });
        // Flag 1 leaves unmodified text (Shift alone included) and unmodified Enter, Tab and
        // Backspace in legacy form, so a shell stays usable; Escape always becomes CSI 27 u.
        if !all_keys && plain && key != Key::Escape {
            return None;
        }
        let body = if param > 1 {
            format!("{code};{param}u")
        } else {
            format!("{code}u")
        };
        return Some(csi(&body));
    }
    if let Some(fin) = letter_key(key) {
        // F3 is CSI 13 ~ in kitty, since CSI 1;m R collides with a cursor position report.
        if key == Key::F(3) {
            let body = if param > 1 {
                format!("13;{param}~")
            } else {
                "13~".to_string()
            };
            return Some(csi(&body));
        }
        if param > 1 {
            return Some(csi(&format!("1;{param}{}", fin as char)));
        }
        if all_keys {
            return Some(csi(&(fin as char).to_string()));
        }
        // Unmodified cursor keys keep their legacy (DECCKM-aware) form under flag 1.
        return Some(encode_legacy(chord, modes));
    }
    None
}

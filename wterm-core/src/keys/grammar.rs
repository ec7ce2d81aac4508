//! Key names: the WebMCP chord grammar, the broker token grammar, and DOM `KeyboardEvent.key`.

use super::{Chord, Key, Mods};
use crate::error::{Error, ErrorKind};

/// The accepted key names, for error messages.
pub const KEY_NAMES_HELP: &str = "Enter, Tab, Escape, Backspace, Delete, Insert, Home, End, \
PageUp, PageDown, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, F1..F12, Space (aliases: Esc, \
Return, Up, Down, Left, Right, Del, Ins, PgUp, PgDn, BS)";

/// The key grammar both agent surfaces take ([`parse_key`]), in one sentence: the text of the
/// `keys` argument's description and of every unknown-key error.
pub const KEYS_HELP: &str = "a single character, LF, or a key name: Enter, Tab, Escape, \
Backspace, Delete, Insert, Home, End, PageUp, PageDown, ArrowUp, ArrowDown, ArrowLeft, \
ArrowRight, F1..F12, Space (aliases: Esc, Return, Up, Down, Left, Right, Del, Ins, PgUp, PgDn, \
BS); modifiers written before it as Ctrl+, Alt+, Shift+, Meta+ (Ctrl+C, Shift+Tab, \
Ctrl+Shift+ArrowLeft) or as the prefixes C- (Ctrl, on letters, @ [ \\ ] ^ _ ? and Space), M- \
(Alt, sent as ESC first) and S- (Shift, on Tab and the cursor, Home and End keys), each at most \
once (C-c, M-f, C-M-x, S-Tab, C-S-Left)";

/// The description of a `keys` argument taking at most `max` keys, the same on both surfaces:
/// "Keys pressed in order (at most {max}), each " and [`KEYS_HELP`].
pub fn keys_doc(max: usize) -> String {
    format!("Keys pressed in order (at most {max}), each {KEYS_HELP}.")
}

/// Parses one key of either notation, the grammar of the page's `press_terminal_keys` and the
/// relay's `send_keys` / `/mcp/keys` alike (see [`KEYS_HELP`]): a token that starts with `C-`,
/// `M-` or `S-` and has more after it is a broker token ([`parse_broker_key`], broker-api.md
/// "Key grammar"); `LF` is the line-feed key; anything else is a chord ([`parse_chord`]).
/// The two notations do not overlap: a chord never has `-` after its first letter unless the
/// key is `-` itself, which `C-`/`M-`/`S-` alone (no key) are not taken for.
///
/// Errors: those of the notation the token is in; an unknown key is
/// [`ErrorKind::UnknownKey`], whose message is [`KEYS_HELP`].
pub fn parse_key(token: &str) -> Result<Chord, Error> {
    let b = token.as_bytes();
    if b.len() > 2 && matches!(b[0], b'C' | b'M' | b'S') && b[1] == b'-' {
        return parse_broker_key(token).map_err(|_| {
            Error::new(ErrorKind::UnknownKey {
                name: token.to_string(),
            })
        });
    }
    if token.eq_ignore_ascii_case("lf") {
        return Ok(Chord {
            key: Key::LineFeed,
            mods: Mods::NONE,
        });
    }
    parse_chord(token)
}

/// A named key (case-insensitive), with the common aliases.
fn named_key(name: &str) -> Option<Key> {
    let lower = name.to_ascii_lowercase();
    Some(match lower.as_str() {
        "enter" | "return" => Key::Enter,
        "tab" => Key::Tab,
        "escape" | "esc" => Key::Escape,
        "backspace" | "bs" => Key::Backspace,
        "delete" | "del" => Key::Delete,
        "insert" | "ins" => Key::Insert,
        "home" => Key::Home,
        "end" => Key::End,
        "pageup" | "pgup" => Key::PageUp,
        "pagedown" | "pgdn" | "pgdown" => Key::PageDown,
        "arrowup" | "up" => Key::ArrowUp,
        "arrowdown" | "down" => Key::ArrowDown,
        "arrowleft" | "left" => Key::ArrowLeft,
        "arrowright" | "right" => Key::ArrowRight,
        "space" | "spacebar" => Key::Char(' '),
        _ => {
            let n = lower.strip_prefix('f')?.parse::<u8>().ok()?;
            if (1..=12).contains(&n) && !lower[1..].starts_with('0') {
                Key::F(n)
            } else {
                return None;
            }
        }
    })
}

fn single_char(s: &str) -> Option<char> {
    let mut it = s.chars();
    let c = it.next()?;
    it.next().is_none().then_some(c)
}

/// A key given by name or as a single character.
fn key_of(name: &str) -> Option<Key> {
    single_char(name).map(Key::Char).or_else(|| named_key(name))
}

/// Shift applied to a letter gives the capital, as the keyboard does.
fn apply_shift(key: Key, mods: Mods) -> Key {
    match key {
        Key::Char(c) if mods.shift && c.is_ascii_lowercase() => Key::Char(c.to_ascii_uppercase()),
        k => k,
    }
}

/// Parses a WebMCP key chord: `Mod+Mod+Key`, modifiers `Ctrl`, `Alt`, `Shift`, `Meta`
/// (case-insensitive, any order; `Control`, `Option`, `Cmd` and `Super` are aliases), the key a
/// `KeyboardEvent.key` name (see [`KEY_NAMES_HELP`]) or a single character (`"Ctrl+C"`,
/// `"Shift+Tab"`, `"/"`, `"Ctrl++"`).
///
/// Errors: [`ErrorKind::EmptyKey`], [`ErrorKind::UnknownModifier`],
/// [`ErrorKind::RepeatedModifier`] (`Ctrl+Ctrl+c`), [`ErrorKind::UnknownKey`].
pub fn parse_chord(chord: &str) -> Result<Chord, Error> {
    if chord.is_empty() {
        return Err(Error::new(ErrorKind::EmptyKey));
    }
    // The key is whatever follows the last separating '+'; a trailing "++" means the key '+'.
    let (mods_part, key_part) = if chord == "+" {
        ("", "+")
    } else if let Some(head) = chord.strip_suffix("++") {
        (head, "+")
    } else {
        match chord.rfind('+') {
            Some(i) => (&chord[..i], &chord[i + 1..]),
            None => ("", chord),
        }
    };
    let mut mods = Mods::NONE;
    if !mods_part.is_empty() {
        for m in mods_part.split('+') {
            let flag = match m.to_ascii_lowercase().as_str() {
                "ctrl" | "control" => &mut mods.ctrl,
                "alt" | "option" | "opt" => &mut mods.alt,
                "shift" => &mut mods.shift,
                "meta" | "cmd" | "command" | "super" | "win" => &mut mods.meta,
                _ => {
                    return Err(Error::new(ErrorKind::UnknownModifier {
                        name: m.to_string(),
                        chord: chord.to_string(),
                    }))
                }
            };
            if std::mem::replace(flag, true) {
                return Err(Error::new(ErrorKind::RepeatedModifier {
                    name: m.to_string(),
                    chord: chord.to_string(),
                }));
            }
        }
    }
    if key_part.is_empty() {
        return Err(Error::new(ErrorKind::EmptyKey));
    }
    let key = key_of(key_part).ok_or_else(|| {
        Error::new(ErrorKind::UnknownKey {
            name: key_part.to_string(),
        })
    })?;
    Ok(Chord {
        key: apply_shift(key, mods),
        mods,
    })
}

/// Parses one token of the broker key grammar (`/mcp/keys`, MCP `send_keys`): a named key
/// (`Enter`/`Return`, `LF`, `Tab`, `Esc`, `Space`, `BS`, `Del`, `Ins`, `PgUp`, `PgDn`, `Home`,
/// `End`, `Up`, `Down`, `Left`, `Right`, `F1`..`F12`, case-insensitive), `C-x` (control:
/// letters, `@ [ \ ] ^ _`, `C-?` = DEL, `C-Space` = NUL), `M-x` (ESC prefix), `S-x` (shift, for
/// Tab and the cursor, Home and End keys only: broker-api.md, "Key grammar"), combined as
/// `C-M-x` or `C-S-Left`; any other single character is itself.
///
/// Errors: [`ErrorKind::EmptyKey`], [`ErrorKind::UnknownBrokerKey`] naming the token.
pub fn parse_broker_key(token: &str) -> Result<Chord, Error> {
    if token.is_empty() {
        return Err(Error::new(ErrorKind::EmptyKey));
    }
    let unknown = || {
        Error::new(ErrorKind::UnknownBrokerKey {
            name: token.to_string(),
        })
    };
    let mut mods = Mods::NONE;
    let mut rest = token;
    loop {
        let (flag, tail) = match rest.as_bytes() {
            [b'C', b'-', _, ..] => (&mut mods.ctrl, &rest[2..]),
            [b'M', b'-', _, ..] => (&mut mods.alt, &rest[2..]),
            [b'S', b'-', _, ..] => (&mut mods.shift, &rest[2..]),
            _ => break,
        };
        if *flag {
            return Err(unknown());
        }
        *flag = true;
        rest = tail;
    }
    let key = if rest.eq_ignore_ascii_case("lf") {
        Key::LineFeed
    } else {
        key_of(rest).ok_or_else(unknown)?
    };
    let shiftable = matches!(
        key,
        Key::Tab
            | Key::ArrowUp
            | Key::ArrowDown
            | Key::ArrowLeft
            | Key::ArrowRight
            | Key::Home
            | Key::End
    );
    if mods.shift && !shiftable {
        return Err(unknown());
    }
    if mods.ctrl {
        if let Key::Char(c) = key {
            let ok = c.is_ascii_alphabetic() || "@[\\]^_? ".contains(c);
            if !ok || mods.shift {
                return Err(unknown());
            }
        }
    }
    Ok(Chord {
        key: apply_shift(key, mods),
        mods,
    })
}

/// Maps a DOM `KeyboardEvent.key` value to a [`Key`]; `None` for keys that send nothing by
/// themselves (modifiers, `Dead`, `Unidentified`, `Process`, F13 and beyond, media keys).
pub fn dom_key(key: &str) -> Option<Key> {
    if let Some(c) = single_char(key) {
        return Some(Key::Char(c));
    }
    match key {
        "Enter" => Some(Key::Enter),
        "Tab" => Some(Key::Tab),
        "Escape" | "Esc" => Some(Key::Escape),
        "Backspace" => Some(Key::Backspace),
        "Delete" | "Del" => Some(Key::Delete),
        "Insert" => Some(Key::Insert),
        "Home" => Some(Key::Home),
        "End" => Some(Key::End),
        "PageUp" => Some(Key::PageUp),
        "PageDown" => Some(Key::PageDown),
        "ArrowUp" | "Up" => Some(Key::ArrowUp),
        "ArrowDown" | "Down" => Some(Key::ArrowDown),
        "ArrowLeft" | "Left" => Some(Key::ArrowLeft),
        "ArrowRight" | "Right" => Some(Key::ArrowRight),
        _ => match key.strip_prefix('F').and_then(|n| n.parse::<u8>().ok()) {
            Some(n @ 1..=12) => Some(Key::F(n)),
            _ => None,
        },
    }
}

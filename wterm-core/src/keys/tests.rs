//! The key encoding table: (chord, modes) → bytes, from xterm's ctlseqs ("PC-Style Function
//! Keys", "Alt and Meta Keys") and the kitty keyboard protocol spec.

use super::*;
use crate::Modes;

const LEGACY: Modes = Modes::RESET;
const DECCKM: Modes = Modes {
    application_cursor: true,
    ..LEGACY
};
const KITTY1: Modes = Modes {
    kitty_flags: 1,
    ..LEGACY
};
const KITTY8: Modes = Modes {
    kitty_flags: 8,
    ..LEGACY
};
const KITTY9: Modes = Modes {
    kitty_flags: 9,
    ..LEGACY
};
const KITTY1_DECCKM: Modes = Modes {
    kitty_flags: 1,
    application_cursor: true,
    ..LEGACY
};

/// (WebMCP chord, modes, expected bytes).
const TABLE: &[(&str, Modes, &[u8])] = &[
    // Printable keys.
    ("a", LEGACY, b"a"),
    ("A", LEGACY, b"A"),
    ("Shift+a", LEGACY, b"A"),
    ("/", LEGACY, b"/"),
    ("Space", LEGACY, b" "),
    ("é", LEGACY, "é".as_bytes()),
    ("中", LEGACY, "中".as_bytes()),
    ("+", LEGACY, b"+"),
    ("Ctrl++", LEGACY, b"+"),
    // Enter, Tab, Backspace, Escape.
    ("Enter", LEGACY, b"\r"),
    ("Return", LEGACY, b"\r"),
    ("Tab", LEGACY, b"\t"),
    ("Shift+Tab", LEGACY, b"\x1b[Z"),
    ("Backspace", LEGACY, b"\x7f"),
    ("Ctrl+Backspace", LEGACY, b"\x08"),
    ("Alt+Backspace", LEGACY, b"\x1b\x7f"),
    ("Escape", LEGACY, b"\x1b"),
    ("Esc", LEGACY, b"\x1b"),
    ("Alt+Enter", LEGACY, b"\x1b\r"),
    // Control characters.
    ("Ctrl+a", LEGACY, b"\x01"),
    ("Ctrl+C", LEGACY, b"\x03"),
    ("ctrl+c", LEGACY, b"\x03"),
    ("Ctrl+d", LEGACY, b"\x04"),
    ("Ctrl+z", LEGACY, b"\x1a"),
    ("Ctrl+Z", LEGACY, b"\x1a"),
    ("Ctrl+@", LEGACY, b"\x00"),
    ("Ctrl+Space", LEGACY, b"\x00"),
    ("Ctrl+2", LEGACY, b"\x00"),
    ("Ctrl+[", LEGACY, b"\x1b"),
    ("Ctrl+\\", LEGACY, b"\x1c"),
    ("Ctrl+]", LEGACY, b"\x1d"),
    ("Ctrl+^", LEGACY, b"\x1e"),
    ("Ctrl+6", LEGACY, b"\x1e"),
    ("Ctrl+_", LEGACY, b"\x1f"),
    ("Ctrl+/", LEGACY, b"\x1f"),
    ("Ctrl+?", LEGACY, b"\x7f"),
    ("Ctrl+1", LEGACY, b"1"),
    // Alt / Meta as ESC prefix.
    ("Alt+b", LEGACY, b"\x1bb"),
    ("Alt+f", LEGACY, b"\x1bf"),
    ("Meta+x", LEGACY, b"\x1bx"),
    ("Alt+Shift+b", LEGACY, b"\x1bB"),
    ("Ctrl+Alt+a", LEGACY, b"\x1b\x01"),
    ("Alt+.", LEGACY, b"\x1b."),
    // Cursor keys, normal and DECCKM.
    ("ArrowUp", LEGACY, b"\x1b[A"),
    ("ArrowDown", LEGACY, b"\x1b[B"),
    ("ArrowRight", LEGACY, b"\x1b[C"),
    ("ArrowLeft", LEGACY, b"\x1b[D"),
    ("Up", LEGACY, b"\x1b[A"),
    ("Home", LEGACY, b"\x1b[H"),
    ("End", LEGACY, b"\x1b[F"),
    ("ArrowUp", DECCKM, b"\x1bOA"),
    ("ArrowDown", DECCKM, b"\x1bOB"),
    ("ArrowRight", DECCKM, b"\x1bOC"),
    ("ArrowLeft", DECCKM, b"\x1bOD"),
    ("Home", DECCKM, b"\x1bOH"),
    ("End", DECCKM, b"\x1bOF"),
    ("Enter", DECCKM, b"\r"),
    ("a", DECCKM, b"a"),
    // Modifier parameters (xterm): 2 Shift, 3 Alt, 4 Shift+Alt, 5 Ctrl, 6 Ctrl+Shift, 7
    // Ctrl+Alt, 9 Meta.
    ("Shift+ArrowUp", LEGACY, b"\x1b[1;2A"),
    ("Alt+ArrowUp", LEGACY, b"\x1b[1;3A"),
    ("Alt+Shift+ArrowUp", LEGACY, b"\x1b[1;4A"),
    ("Ctrl+ArrowLeft", LEGACY, b"\x1b[1;5D"),
    ("Ctrl+ArrowRight", LEGACY, b"\x1b[1;5C"),
    ("Ctrl+Shift+ArrowLeft", LEGACY, b"\x1b[1;6D"),
    ("Ctrl+Alt+ArrowLeft", LEGACY, b"\x1b[1;7D"),
    ("Meta+ArrowLeft", LEGACY, b"\x1b[1;9D"),
    ("Ctrl+ArrowLeft", DECCKM, b"\x1b[1;5D"),
    ("Shift+Home", LEGACY, b"\x1b[1;2H"),
    ("Ctrl+End", LEGACY, b"\x1b[1;5F"),
    ("Shift+End", DECCKM, b"\x1b[1;2F"),
    // Editing keypad.
    ("Insert", LEGACY, b"\x1b[2~"),
    ("Delete", LEGACY, b"\x1b[3~"),
    ("Del", LEGACY, b"\x1b[3~"),
    ("PageUp", LEGACY, b"\x1b[5~"),
    ("PgUp", LEGACY, b"\x1b[5~"),
    ("PageDown", LEGACY, b"\x1b[6~"),
    ("Shift+PageUp", LEGACY, b"\x1b[5;2~"),
    ("Ctrl+Delete", LEGACY, b"\x1b[3;5~"),
    ("Alt+Insert", LEGACY, b"\x1b[2;3~"),
    ("Delete", DECCKM, b"\x1b[3~"),
    // Function keys.
    ("F1", LEGACY, b"\x1bOP"),
    ("F2", LEGACY, b"\x1bOQ"),
    ("F3", LEGACY, b"\x1bOR"),
    ("F4", LEGACY, b"\x1bOS"),
    ("F5", LEGACY, b"\x1b[15~"),
    ("F6", LEGACY, b"\x1b[17~"),
    ("F7", LEGACY, b"\x1b[18~"),
    ("F8", LEGACY, b"\x1b[19~"),
    ("F9", LEGACY, b"\x1b[20~"),
    ("F10", LEGACY, b"\x1b[21~"),
    ("F11", LEGACY, b"\x1b[23~"),
    ("F12", LEGACY, b"\x1b[24~"),
    ("Shift+F1", LEGACY, b"\x1b[1;2P"),
    ("Ctrl+F4", LEGACY, b"\x1b[1;5S"),
    ("Shift+F5", LEGACY, b"\x1b[15;2~"),
    ("Ctrl+F12", LEGACY, b"\x1b[24;5~"),
    ("F1", DECCKM, b"\x1bOP"),
    // Kitty flag 1: disambiguate escape codes.
    ("Ctrl+c", KITTY1, b"\x1b[99;5u"),
    ("Ctrl+C", KITTY1, b"\x1b[99;5u"),
    ("Ctrl+a", KITTY1, b"\x1b[97;5u"),
    ("Alt+a", KITTY1, b"\x1b[97;3u"),
    ("Ctrl+Alt+a", KITTY1, b"\x1b[97;7u"),
    ("Ctrl+Shift+a", KITTY1, b"\x1b[97;6u"),
    ("Escape", KITTY1, b"\x1b[27u"),
    ("Alt+Escape", KITTY1, b"\x1b[27;3u"),
    ("a", KITTY1, b"a"),
    ("A", KITTY1, b"A"),
    ("Shift+a", KITTY1, b"A"),
    ("Enter", KITTY1, b"\r"),
    ("Tab", KITTY1, b"\t"),
    ("Backspace", KITTY1, b"\x7f"),
    ("Shift+Enter", KITTY1, b"\x1b[13;2u"),
    ("Ctrl+Enter", KITTY1, b"\x1b[13;5u"),
    ("Shift+Tab", KITTY1, b"\x1b[9;2u"),
    ("Ctrl+Backspace", KITTY1, b"\x1b[127;5u"),
    ("Ctrl+Space", KITTY1, b"\x1b[32;5u"),
    ("ArrowUp", KITTY1, b"\x1b[A"),
    ("ArrowUp", KITTY1_DECCKM, b"\x1bOA"),
    ("Ctrl+ArrowLeft", KITTY1, b"\x1b[1;5D"),
    ("F1", KITTY1, b"\x1bOP"),
    ("F3", KITTY1, b"\x1b[13~"),
    ("Shift+F3", KITTY1, b"\x1b[13;2~"),
    ("F5", KITTY1, b"\x1b[15~"),
    ("Delete", KITTY1, b"\x1b[3~"),
    ("Ctrl+PageUp", KITTY1, b"\x1b[5;5~"),
    // Kitty flag 8: report all keys as escape codes.
    ("a", KITTY8, b"\x1b[97u"),
    ("Shift+a", KITTY8, b"\x1b[97;2u"),
    ("1", KITTY8, b"\x1b[49u"),
    ("Space", KITTY8, b"\x1b[32u"),
    ("Enter", KITTY8, b"\x1b[13u"),
    ("Tab", KITTY8, b"\x1b[9u"),
    ("Backspace", KITTY8, b"\x1b[127u"),
    ("Escape", KITTY8, b"\x1b[27u"),
    ("Ctrl+c", KITTY8, b"\x1b[99;5u"),
    ("ArrowUp", KITTY8, b"\x1b[A"),
    ("Home", KITTY8, b"\x1b[H"),
    ("F1", KITTY8, b"\x1b[P"),
    ("Shift+ArrowDown", KITTY8, b"\x1b[1;2B"),
    ("Insert", KITTY8, b"\x1b[2~"),
    ("a", KITTY9, b"\x1b[97u"),
    ("Ctrl+c", KITTY9, b"\x1b[99;5u"),
];

#[test]
fn encoding_table() {
    assert!(TABLE.len() >= 100, "the table must keep at least 100 cases");
    let mut failures = Vec::new();
    for (chord, modes, want) in TABLE {
        let parsed = parse_chord(chord).unwrap_or_else(|e| panic!("{chord:?}: {e}"));
        let got = encode(parsed, modes);
        if got != *want {
            failures.push(format!(
                "{chord:?} kitty={} deccKM={}: got {:?}, want {:?}",
                modes.kitty_flags,
                modes.application_cursor,
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(want)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn chord_errors_name_the_bad_part() {
    let e = parse_chord("Ctrl+Nope").unwrap_err();
    assert!(e.to_string().contains("\"Nope\""), "{e}");
    assert!(e.to_string().contains("Enter"), "{e}");
    let e = parse_chord("Hyperish+a").unwrap_err();
    assert!(e.to_string().contains("Hyperish"), "{e}");
    assert!(parse_chord("").is_err());
    assert!(parse_chord("Ctrl+").is_err());
    assert!(parse_chord("F13").is_err());
    assert!(parse_chord("F01").is_err());
}

#[test]
fn chord_modifiers_any_order_and_case() {
    assert_eq!(
        parse_chord("shift+CTRL+arrowleft").unwrap(),
        parse_chord("Ctrl+Shift+ArrowLeft").unwrap()
    );
    assert_eq!(parse_chord("PGDN").unwrap().key, Key::PageDown);
}

/// (broker token, modes, expected bytes), broker-api.md "Key grammar".
const BROKER: &[(&str, Modes, &[u8])] = &[
    ("Enter", LEGACY, b"\r"),
    ("return", LEGACY, b"\r"),
    ("LF", LEGACY, b"\n"),
    ("Tab", LEGACY, b"\t"),
    ("Esc", LEGACY, b"\x1b"),
    ("Space", LEGACY, b" "),
    ("BS", LEGACY, b"\x7f"),
    ("Del", LEGACY, b"\x1b[3~"),
    ("Ins", LEGACY, b"\x1b[2~"),
    ("PgUp", LEGACY, b"\x1b[5~"),
    ("PgDn", LEGACY, b"\x1b[6~"),
    ("Up", LEGACY, b"\x1b[A"),
    ("Up", DECCKM, b"\x1bOA"),
    ("C-c", LEGACY, b"\x03"),
    ("C-@", LEGACY, b"\x00"),
    ("C-?", LEGACY, b"\x7f"),
    ("C-Space", LEGACY, b"\x00"),
    ("C-[", LEGACY, b"\x1b"),
    ("M-x", LEGACY, b"\x1bx"),
    ("C-M-x", LEGACY, b"\x1b\x18"),
    ("S-Tab", LEGACY, b"\x1b[Z"),
    ("S-Left", LEGACY, b"\x1b[1;2D"),
    ("C-S-Left", LEGACY, b"\x1b[1;6D"),
    ("C-Left", DECCKM, b"\x1b[1;5D"),
    ("M-Left", LEGACY, b"\x1b[1;3D"),
    ("x", LEGACY, b"x"),
    (":", LEGACY, b":"),
    ("-", LEGACY, b"-"),
    ("C", LEGACY, b"C"),
    ("ü", LEGACY, "ü".as_bytes()),
    ("C-c", KITTY1, b"\x1b[99;5u"),
    ("F12", LEGACY, b"\x1b[24~"),
];

#[test]
fn broker_grammar_table() {
    for (token, modes, want) in BROKER {
        let chord = parse_broker_key(token).unwrap_or_else(|e| panic!("{token:?}: {e}"));
        assert_eq!(encode(chord, modes), want.to_vec(), "{token:?}");
    }
    for bad in ["", "C-1", "Nope", "C-C-c", "C-S-a", "F0", "ab"] {
        assert!(parse_broker_key(bad).is_err(), "{bad:?} must be refused");
    }
}

#[test]
fn broker_shift_only_on_the_keys_the_grammar_gives_it() {
    // broker-api.md: `S-x` for Tab and the cursor/Home/End keys; anything else is an error.
    for ok in [
        "S-Tab", "S-Up", "S-Down", "S-Left", "S-Right", "S-Home", "S-End", "C-S-Left", "M-S-Tab",
    ] {
        assert!(parse_broker_key(ok).is_ok(), "{ok:?} must be accepted");
    }
    for bad in [
        "S-a", "S-A", "S-1", "S-Enter", "S-Space", "S-Esc", "S-BS", "S-PgUp", "S-F1", "S-LF",
        "M-S-x",
    ] {
        let e = parse_broker_key(bad).expect_err(bad).to_string();
        assert!(e.contains("S- (Shift, on Tab"), "{bad:?}: {e}");
    }
}

#[test]
fn chord_repeated_modifier_is_refused() {
    for bad in [
        "Ctrl+Ctrl+c",
        "ctrl+Control+c",
        "Shift+shift+Tab",
        "Alt+Option+x",
        "Meta+Cmd+k",
    ] {
        let e = parse_chord(bad).expect_err(bad).to_string();
        assert!(
            e.contains("more than once") && e.contains(bad),
            "{bad:?}: {e}"
        );
    }
    // A '+' key after a modifier is not a repeated modifier.
    assert!(parse_chord("Ctrl++").is_ok());
    assert!(parse_chord("Ctrl+Shift+ArrowLeft").is_ok());
}

#[test]
fn broker_key_errors_explain_the_prefixes() {
    // An agent that writes "Ctrl+C" (the WebMCP chord form) learns the broker's C-c form.
    let e = parse_broker_key("Ctrl+C").unwrap_err().to_string();
    assert!(e.starts_with("unknown key \"Ctrl+C\""), "{e}");
    for part in ["C- (Ctrl", "M- (Alt", "S- (Shift", "C-c", "Enter"] {
        assert!(e.contains(part), "{part:?} missing from {e}");
    }
}

#[test]
fn dom_keys() {
    assert_eq!(dom_key("a"), Some(Key::Char('a')));
    assert_eq!(dom_key(" "), Some(Key::Char(' ')));
    assert_eq!(dom_key("ArrowLeft"), Some(Key::ArrowLeft));
    assert_eq!(dom_key("F12"), Some(Key::F(12)));
    for none in [
        "Shift",
        "Control",
        "Alt",
        "Meta",
        "Dead",
        "Unidentified",
        "Process",
        "F13",
        "CapsLock",
    ] {
        assert_eq!(dom_key(none), None, "{none}");
    }
}

#[test]
fn one_grammar_takes_both_notations() {
    // The page's and the relay's agents write keys either way; both mean the same key.
    for (chord, token) in [
        ("Ctrl+C", "C-c"),
        ("Alt+x", "M-x"),
        ("Shift+Tab", "S-Tab"),
        ("Ctrl+Shift+ArrowLeft", "C-S-Left"),
        ("ArrowUp", "Up"),
        ("Escape", "Esc"),
        ("Enter", "Enter"),
        ("a", "a"),
    ] {
        let a = parse_key(chord).unwrap_or_else(|e| panic!("{chord}: {e}"));
        let b = parse_key(token).unwrap_or_else(|e| panic!("{token}: {e}"));
        assert_eq!(encode(a, &LEGACY), encode(b, &LEGACY), "{chord} vs {token}");
    }
    assert_eq!(encode(parse_key("LF").unwrap(), &LEGACY), b"\n");
    assert_eq!(encode(parse_key("lf").unwrap(), &LEGACY), b"\n");
    // Single characters that look like a prefix are themselves.
    for c in ["C", "M", "S", "-", "+"] {
        assert_eq!(encode(parse_key(c).unwrap(), &LEGACY), c.as_bytes(), "{c}");
    }
    // A prefix with no key after it is no key.
    assert!(parse_key("C-").is_err());
}

#[test]
fn one_grammar_has_one_error_text() {
    for (bad, named) in [
        ("Bogus", "Bogus"),
        ("C-1", "C-1"),
        ("S-a", "S-a"),
        ("Ctrl+Bogus", "Bogus"),
        ("C-C-c", "C-C-c"),
        ("F13", "F13"),
    ] {
        let e = parse_key(bad).expect_err(bad).to_string();
        assert!(
            e.starts_with(&format!("unknown key {named:?}")),
            "{bad}: {e}"
        );
        assert!(e.ends_with(KEYS_HELP), "{bad}: {e}");
    }
    for part in ["Ctrl+C", "C-c", "S-Tab", "ArrowUp", "LF", "F1..F12"] {
        assert!(KEYS_HELP.contains(part), "{part}");
    }
    // Modifier mistakes keep their own, more precise texts.
    assert!(parse_key("Hyper+a")
        .unwrap_err()
        .to_string()
        .contains("unknown modifier"));
    assert!(parse_key("Ctrl+Ctrl+c")
        .unwrap_err()
        .to_string()
        .contains("more than once"));
    assert!(keys_doc(64).starts_with("Keys pressed in order (at most 64), each a single"));
}

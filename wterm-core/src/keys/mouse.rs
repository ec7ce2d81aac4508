//! Mouse and focus events → bytes, for the program's current mouse modes (xterm ctlseqs,
//! "Mouse Tracking" and "FocusIn/FocusOut"). A pure function of its inputs, like [`super::encode`].

use super::Mods;
use crate::{Modes, MouseEncoding, MouseTracking};

/// A mouse button, or a wheel direction (the wheel is reported as buttons 4–7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MouseButton {
    /// The primary button (xterm button 1).
    Left,
    /// The middle button or wheel click (button 2).
    Middle,
    /// The secondary button (button 3).
    Right,
    /// Wheel rolled away from the user (button 4).
    WheelUp,
    /// Wheel rolled towards the user (button 5).
    WheelDown,
    /// Wheel tilted left (button 6).
    WheelLeft,
    /// Wheel tilted right (button 7).
    WheelRight,
}

impl MouseButton {
    /// Whether this is a wheel direction, which has a press but no release or drag.
    pub fn is_wheel(self) -> bool {
        matches!(
            self,
            Self::WheelUp | Self::WheelDown | Self::WheelLeft | Self::WheelRight
        )
    }

    /// The button number in `Cb` before modifiers and the X10 offset of 32.
    fn code(self) -> u32 {
        match self {
            Self::Left => 0,
            Self::Middle => 1,
            Self::Right => 2,
            Self::WheelUp => 64,
            Self::WheelDown => 65,
            Self::WheelLeft => 66,
            Self::WheelRight => 67,
        }
    }
}

/// What the mouse did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MouseAction {
    /// A button went down, or the wheel moved one step.
    Press(MouseButton),
    /// A button came up.
    Release(MouseButton),
    /// The pointer moved to another cell, with this button held (`None`: no button).
    Motion(Option<MouseButton>),
}

/// One mouse event over the terminal's screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MouseEvent {
    /// What happened.
    pub action: MouseAction,
    /// The cell's column, 0-based from the screen's left edge.
    pub col: u16,
    /// The cell's row, 0-based from the screen's top (not counting scrollback).
    pub row: u16,
    /// Modifiers held: Shift adds 4, Alt or Meta 8, Ctrl 16 to `Cb`.
    pub mods: Mods,
}

/// Largest coordinate the X10 encoding can carry: a byte of 32 + value, value 1-based.
pub const X10_MAX_COORD: u32 = 255 - 32;
/// Largest coordinate the UTF-8 encoding (1005) can carry: a 2-byte UTF-8 of 32 + value.
pub const UTF8_MAX_COORD: u32 = 0x7ff - 32;

/// The bytes reporting `ev` to the program, or `None` when its modes do not ask for this event
/// (tracking off, a release in X10 mode, motion without a button in button-event mode, a wheel
/// release) or when the encoding cannot carry the coordinates (past [`X10_MAX_COORD`] or
/// [`UTF8_MAX_COORD`]; SGR and URXVT have no limit).
///
/// Which events each tracking mode reports follows xterm: X10 (`?9`) button presses only,
/// without modifiers; normal (`?1000`) presses, releases and the wheel; button-event (`?1002`)
/// adds motion with a button held; any-event (`?1003`) adds all motion. `Cb` is the button
/// (0–2, wheel 64–67, 3 for a release outside SGR) plus 32 for motion plus the modifiers.
pub fn encode_mouse(ev: MouseEvent, modes: &Modes) -> Option<Vec<u8>> {
    let tracking = modes.mouse_tracking;
    let (button, motion, release) = match ev.action {
        MouseAction::Press(b) => (Some(b), false, false),
        MouseAction::Release(b) if b.is_wheel() => return None,
        MouseAction::Release(b) => (Some(b), false, true),
        MouseAction::Motion(Some(b)) if b.is_wheel() => return None,
        MouseAction::Motion(b) => (b, true, false),
    };
    let wanted = match tracking {
        MouseTracking::Off => false,
        MouseTracking::X10 => !motion && !release && button.is_some_and(|b| !b.is_wheel()),
        MouseTracking::Normal => !motion,
        MouseTracking::ButtonEvent => !motion || button.is_some(),
        MouseTracking::AnyEvent => true,
    };
    if !wanted {
        return None;
    }
    let encoding = modes.mouse_encoding;
    let mut cb = match button {
        // Outside SGR a release does not say which button (xterm: "3 = release").
        Some(_) if release && encoding != MouseEncoding::Sgr => 3,
        Some(b) => b.code(),
        None => 3,
    };
    if motion {
        cb += 32;
    }
    if tracking != MouseTracking::X10 {
        let m = ev.mods;
        cb += 4 * m.shift as u32 + 8 * (m.alt || m.meta) as u32 + 16 * m.ctrl as u32;
    }
    let (x, y) = (u32::from(ev.col) + 1, u32::from(ev.row) + 1);
    let mut out = b"\x1b[".to_vec();
    match encoding {
        MouseEncoding::Sgr => {
            out.push(b'<');
            push_params(&mut out, [cb, x, y]);
            out.push(if release { b'm' } else { b'M' });
        }
        MouseEncoding::Urxvt => {
            push_params(&mut out, [cb + 32, x, y]);
            out.push(b'M');
        }
        MouseEncoding::X10 => {
            if x > X10_MAX_COORD || y > X10_MAX_COORD {
                return None;
            }
            out.push(b'M');
            out.extend([cb, x, y].map(|v| (v + 32) as u8));
        }
        MouseEncoding::Utf8 => {
            if x > UTF8_MAX_COORD || y > UTF8_MAX_COORD {
                return None;
            }
            out.push(b'M');
            for v in [cb, x, y] {
                let c = char::from_u32(v + 32)?;
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
        }
    }
    Some(out)
}

/// Appends `a;b;c` in decimal (no `format!`: it would add its machinery to the wasm).
fn push_params(out: &mut Vec<u8>, params: [u32; 3]) {
    for (i, v) in params.into_iter().enumerate() {
        if i > 0 {
            out.push(b';');
        }
        let mut digits = [0u8; 10];
        let mut at = digits.len();
        let mut v = v;
        loop {
            at -= 1;
            digits[at] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        out.extend_from_slice(&digits[at..]);
    }
}

/// Focus in (`CSI I`) or out (`CSI O`) when the program enabled focus reporting (`CSI ? 1004 h`),
/// else `None`.
pub fn encode_focus(focused: bool, modes: &Modes) -> Option<&'static [u8]> {
    match (modes.focus_events, focused) {
        (false, _) => None,
        (true, true) => Some(b"\x1b[I"),
        (true, false) => Some(b"\x1b[O"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Terminal;
    use MouseAction::*;
    use MouseButton::*;

    /// The modes a program leaves after writing `setup`, so the tests go through the parser.
    fn modes_after(setup: &str) -> Modes {
        let mut t = Terminal::new(crate::Size::new(24, 80), 0);
        t.feed(setup.as_bytes());
        t.modes()
    }

    fn ev(action: MouseAction, col: u16, row: u16) -> MouseEvent {
        MouseEvent {
            action,
            col,
            row,
            mods: Mods::NONE,
        }
    }

    fn enc(setup: &str, e: MouseEvent) -> Option<Vec<u8>> {
        encode_mouse(e, &modes_after(setup))
    }

    #[test]
    fn off_reports_nothing() {
        for a in [Press(Left), Release(Left), Motion(None), Press(WheelUp)] {
            assert_eq!(enc("", ev(a, 0, 0)), None);
        }
        // Turned on, then off.
        assert_eq!(enc("\x1b[?1000h\x1b[?1000l", ev(Press(Left), 0, 0)), None);
    }

    #[test]
    fn x10_encoding_offsets_by_32_and_is_one_based() {
        let m = "\x1b[?1000h";
        assert_eq!(
            enc(m, ev(Press(Left), 0, 0)).unwrap(),
            b"\x1b[M\x20\x21\x21"
        );
        assert_eq!(
            enc(m, ev(Press(Right), 9, 4)).unwrap(),
            b"\x1b[M\x22\x2a\x25"
        );
        // A release does not say which button.
        assert_eq!(
            enc(m, ev(Release(Middle), 0, 0)).unwrap(),
            b"\x1b[M\x23\x21\x21"
        );
        assert_eq!(
            enc(m, ev(Press(WheelUp), 0, 0)).unwrap(),
            b"\x1b[M\x60\x21\x21"
        );
        assert_eq!(
            enc(m, ev(Press(WheelDown), 0, 0)).unwrap(),
            b"\x1b[M\x61\x21\x21"
        );
        assert_eq!(enc(m, ev(Release(WheelDown), 0, 0)), None);
        // Column 223 (1-based) is the last one a byte can carry.
        assert_eq!(
            enc(m, ev(Press(Left), 222, 0)).unwrap(),
            b"\x1b[M\x20\xff\x21"
        );
        assert_eq!(enc(m, ev(Press(Left), 223, 0)), None);
    }

    #[test]
    fn modifiers_add_4_8_16() {
        let m = "\x1b[?1000h\x1b[?1006h";
        let mut e = ev(Press(Left), 0, 0);
        e.mods = Mods {
            shift: true,
            ..Mods::NONE
        };
        assert_eq!(enc(m, e).unwrap(), b"\x1b[<4;1;1M");
        e.mods = Mods {
            alt: true,
            ..Mods::NONE
        };
        assert_eq!(enc(m, e).unwrap(), b"\x1b[<8;1;1M");
        e.mods = Mods {
            ctrl: true,
            shift: true,
            ..Mods::NONE
        };
        assert_eq!(enc(m, e).unwrap(), b"\x1b[<20;1;1M");
        // X10 compatibility mode drops them.
        assert_eq!(enc("\x1b[?9h", e).unwrap(), b"\x1b[M\x20\x21\x21");
    }

    #[test]
    fn sgr_names_the_released_button_and_has_no_limit() {
        let m = "\x1b[?1002h\x1b[?1006h";
        assert_eq!(enc(m, ev(Press(Left), 0, 0)).unwrap(), b"\x1b[<0;1;1M");
        assert_eq!(
            enc(m, ev(Release(Right), 299, 99)).unwrap(),
            b"\x1b[<2;300;100m"
        );
        assert_eq!(
            enc(m, ev(Motion(Some(Left)), 4, 2)).unwrap(),
            b"\x1b[<32;5;3M"
        );
        assert_eq!(enc(m, ev(Press(WheelUp), 1, 1)).unwrap(), b"\x1b[<64;2;2M");
        assert_eq!(
            enc(m, ev(Press(WheelRight), 1, 1)).unwrap(),
            b"\x1b[<67;2;2M"
        );
    }

    #[test]
    fn urxvt_and_utf8_encodings() {
        let u = "\x1b[?1000h\x1b[?1015h";
        assert_eq!(enc(u, ev(Press(Left), 0, 0)).unwrap(), b"\x1b[32;1;1M");
        assert_eq!(
            enc(u, ev(Release(Left), 299, 0)).unwrap(),
            b"\x1b[35;300;1M"
        );
        let m = "\x1b[?1000h\x1b[?1005h";
        assert_eq!(
            enc(m, ev(Press(Left), 0, 0)).unwrap(),
            b"\x1b[M\x20\x21\x21"
        );
        // 32 + 300 = 332 = U+014C, two bytes in UTF-8.
        assert_eq!(
            enc(m, ev(Press(Left), 299, 0)).unwrap(),
            "\x1b[M\x20\u{14c}\x21".as_bytes()
        );
        assert_eq!(
            enc(m, ev(Press(Left), 2014, 0)).unwrap(),
            "\x1b[M\x20\u{7ff}\x21".as_bytes()
        );
        assert_eq!(enc(m, ev(Press(Left), 2015, 0)), None);
        // SGR wins when several encodings are set.
        assert_eq!(
            enc("\x1b[?1000h\x1b[?1005h\x1b[?1006h", ev(Press(Left), 0, 0)).unwrap(),
            b"\x1b[<0;1;1M"
        );
    }

    #[test]
    fn each_tracking_mode_reports_its_events() {
        let events = [
            Press(Left),
            Release(Left),
            Press(WheelUp),
            Motion(Some(Left)),
            Motion(None),
        ];
        let reported = |setup: &str| -> Vec<bool> {
            events
                .iter()
                .map(|&a| enc(setup, ev(a, 0, 0)).is_some())
                .collect()
        };
        assert_eq!(reported("\x1b[?9h"), [true, false, false, false, false]);
        assert_eq!(reported("\x1b[?1000h"), [true, true, true, false, false]);
        assert_eq!(reported("\x1b[?1002h"), [true, true, true, true, false]);
        assert_eq!(reported("\x1b[?1003h"), [true, true, true, true, true]);
        // The tracking modes replace each other.
        assert_eq!(
            reported("\x1b[?1003h\x1b[?1000h"),
            [true, true, true, false, false]
        );
        // Motion with no button is Cb 3 + 32.
        assert_eq!(
            enc("\x1b[?1003h\x1b[?1006h", ev(Motion(None), 0, 0)).unwrap(),
            b"\x1b[<35;1;1M"
        );
        // A wheel "drag" is not an event.
        assert_eq!(enc("\x1b[?1003h", ev(Motion(Some(WheelUp)), 0, 0)), None);
    }

    /// Decodes a report back to (Cb, x, y, released), per encoding: the inverse the program does.
    fn decode(bytes: &[u8], encoding: MouseEncoding) -> (u32, u32, u32, bool) {
        let body = bytes.strip_prefix(b"\x1b[").expect("starts with CSI");
        let decimal = |s: &[u8], fin: u8| -> (Vec<u32>, bool) {
            let (last, rest) = s.split_last().unwrap();
            let nums = std::str::from_utf8(rest)
                .unwrap()
                .split(';')
                .map(|n| n.parse().unwrap())
                .collect();
            (nums, *last != fin)
        };
        match encoding {
            MouseEncoding::Sgr => {
                let (n, released) = decimal(body.strip_prefix(b"<").unwrap(), b'M');
                assert!(body.ends_with(b"M") || body.ends_with(b"m"));
                (n[0], n[1], n[2], released)
            }
            MouseEncoding::Urxvt => {
                let (n, other) = decimal(body, b'M');
                assert!(!other);
                (n[0] - 32, n[1], n[2], false)
            }
            MouseEncoding::X10 => {
                let b = body.strip_prefix(b"M").unwrap();
                assert_eq!(b.len(), 3);
                (
                    u32::from(b[0]) - 32,
                    u32::from(b[1]) - 32,
                    u32::from(b[2]) - 32,
                    false,
                )
            }
            MouseEncoding::Utf8 => {
                let s = std::str::from_utf8(body.strip_prefix(b"M").unwrap()).unwrap();
                let v: Vec<u32> = s.chars().map(|c| c as u32 - 32).collect();
                assert_eq!(v.len(), 3);
                (v[0], v[1], v[2], false)
            }
        }
    }

    /// Every event in every mode, at the coordinates around each encoding's limit: a report is
    /// made exactly when the mode wants the event and the encoding can carry it, and it decodes
    /// back to the event's cell, button and modifiers; a terminal fed it does not panic.
    #[test]
    fn every_report_decodes_back_to_its_event() {
        let buttons = [
            Left, Middle, Right, WheelUp, WheelDown, WheelLeft, WheelRight,
        ];
        let mut actions: Vec<MouseAction> = Vec::new();
        for b in buttons {
            actions.extend([Press(b), Release(b), Motion(Some(b))]);
        }
        actions.push(Motion(None));
        let coords = [0u16, 1, 94, 95, 222, 223, 2014, 2015, u16::MAX];
        let mut made = 0;
        for tracking in ["9", "1000", "1002", "1003"] {
            for encoding in ["", "1005", "1006", "1015"] {
                let mut setup = format!("\x1b[?{tracking}h");
                if !encoding.is_empty() {
                    setup.push_str(&format!("\x1b[?{encoding}h"));
                }
                let modes = modes_after(&setup);
                let mut echo = Terminal::new(crate::Size::new(24, 80), 0);
                for &action in &actions {
                    for m in 0..16u8 {
                        let mods = Mods {
                            shift: m & 1 != 0,
                            alt: m & 2 != 0,
                            ctrl: m & 4 != 0,
                            meta: m & 8 != 0,
                        };
                        for &col in &coords {
                            for &row in &[0u16, 223, 2015] {
                                let e = MouseEvent {
                                    action,
                                    col,
                                    row,
                                    mods,
                                };
                                let wheel_only =
                                    matches!(action, Release(b) | Motion(Some(b)) if b.is_wheel());
                                let wanted = !wheel_only
                                    && match (tracking, action) {
                                        ("9", Press(b)) => !b.is_wheel(),
                                        ("9", _) => false,
                                        (_, Press(_) | Release(_)) => true,
                                        ("1002", Motion(b)) => b.is_some(),
                                        ("1003", Motion(_)) => true,
                                        _ => false,
                                    };
                                let limit = match encoding {
                                    "" => 223,
                                    "1005" => 2015,
                                    _ => u32::MAX,
                                };
                                let carried = u32::from(col) < limit && u32::from(row) < limit;
                                let report = encode_mouse(e, &modes);
                                assert_eq!(report.is_some(), wanted && carried, "{e:?} {setup:?}");
                                let Some(bytes) = report else { continue };
                                made += 1;
                                echo.feed(&bytes);
                                let (cb, x, y, released) = decode(&bytes, modes.mouse_encoding);
                                assert_eq!(
                                    (x, y),
                                    (u32::from(col) + 1, u32::from(row) + 1),
                                    "{e:?} {setup:?}"
                                );
                                let (motion, button) = match action {
                                    Press(b) => (false, Some(b)),
                                    Release(b) => (false, Some(b)),
                                    Motion(b) => (true, b),
                                };
                                assert_eq!(cb & 32 != 0, motion, "{e:?} {setup:?}");
                                let base = cb & !(4 | 8 | 16 | 32);
                                let want = match (action, modes.mouse_encoding) {
                                    (Release(_), enc) if enc != MouseEncoding::Sgr => 3,
                                    _ => button.map_or(3, MouseButton::code),
                                };
                                assert_eq!(base, want, "{e:?} {setup:?}");
                                assert_eq!(
                                    released,
                                    matches!(action, Release(_))
                                        && modes.mouse_encoding == MouseEncoding::Sgr
                                );
                                let x10 = modes.mouse_tracking == MouseTracking::X10;
                                let want_mods = if x10 {
                                    0
                                } else {
                                    4 * mods.shift as u32
                                        + 8 * (mods.alt || mods.meta) as u32
                                        + 16 * mods.ctrl as u32
                                };
                                assert_eq!(cb & (4 | 8 | 16), want_mods, "{e:?} {setup:?}");
                            }
                        }
                    }
                }
            }
        }
        assert!(made > 10_000, "{made}");
    }

    #[test]
    fn focus_reports_follow_mode_1004() {
        assert_eq!(encode_focus(true, &modes_after("")), None);
        let m = modes_after("\x1b[?1004h");
        assert_eq!(encode_focus(true, &m), Some(&b"\x1b[I"[..]));
        assert_eq!(encode_focus(false, &m), Some(&b"\x1b[O"[..]));
        assert_eq!(
            encode_focus(false, &modes_after("\x1b[?1004h\x1b[?1004l")),
            None
        );
    }
}

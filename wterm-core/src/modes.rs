//! [`Modes`]: the terminal modes a program sets that change how input is encoded or the screen
//! is shown.

/// The cursor's shape, set with DECSCUSR (`CSI Ps SP q`, xterm's ctlseqs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CursorShape {
    /// A filled cell (DECSCUSR 0, 1, 2; the default).
    #[default]
    Block,
    /// A line under the cell (DECSCUSR 3, 4).
    Underline,
    /// A vertical bar at the cell's left edge (DECSCUSR 5, 6).
    Bar,
}

/// The cursor's look: shape and blinking, from DECSCUSR. `Ps` 0 and 1 are a blinking block, 2 a
/// steady block, 3/4 blinking/steady underline, 5/6 blinking/steady bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CursorStyle {
    /// The shape.
    pub shape: CursorShape,
    /// Whether it blinks.
    pub blink: bool,
}

impl Default for CursorStyle {
    /// A blinking block, DECSCUSR 0.
    fn default() -> Self {
        CursorStyle {
            shape: CursorShape::Block,
            blink: true,
        }
    }
}

/// Which mouse events the program asked to be told about (xterm ctlseqs, "Mouse Tracking").
/// The tracking modes exclude each other: setting one replaces the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MouseTracking {
    /// No mouse reporting: the mouse selects text and the wheel scrolls.
    #[default]
    Off,
    /// X10 compatibility (`CSI ? 9 h`): button presses only, without modifiers.
    X10,
    /// Normal tracking (`CSI ? 1000 h`): presses, releases and the wheel.
    Normal,
    /// Button-event tracking (`CSI ? 1002 h`): as normal, plus motion while a button is held.
    ButtonEvent,
    /// Any-event tracking (`CSI ? 1003 h`): as button-event, plus motion with no button held.
    AnyEvent,
}

/// How mouse reports are encoded (xterm ctlseqs, "Extended coordinates"). When a program sets
/// several, SGR wins over URXVT, and URXVT over UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MouseEncoding {
    /// `CSI M Cb Cx Cy`, each a byte of 32 + value; coordinates up to 223.
    #[default]
    X10,
    /// `CSI ? 1005 h`: as X10, with each value past 95 written as UTF-8; coordinates up to 2015.
    Utf8,
    /// `CSI ? 1006 h`: `CSI < Cb ; Cx ; Cy M` (press, motion) or `m` (release), in decimal.
    Sgr,
    /// `CSI ? 1015 h`: `CSI Cb ; Cx ; Cy M` in decimal, with Cb offset by 32 as in X10.
    Urxvt,
}

/// Modes the program has set. Each field names its mode and the sequence that sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modes {
    /// DECCKM, application cursor keys (`CSI ? 1 h`): cursor keys send SS3 (`ESC O A`).
    pub application_cursor: bool,
    /// DECKPAM, application keypad (`ESC =`).
    pub application_keypad: bool,
    /// Bracketed paste (`CSI ? 2004 h`): pastes are wrapped in `CSI 200 ~` … `CSI 201 ~`.
    pub bracketed_paste: bool,
    /// The alternate screen is shown (`CSI ? 1049 h` or `CSI ? 47 h`).
    pub alternate_screen: bool,
    /// DECTCEM reset (`CSI ? 25 l`): the cursor is hidden.
    pub hide_cursor: bool,
    /// Kitty keyboard protocol flags of the current screen (`CSI > flags u`): 1 disambiguate,
    /// 2 report event types, 4 alternate keys, 8 report all keys as escape codes, 16 text.
    pub kitty_flags: u8,
    /// Which mouse events are reported (`CSI ? 9/1000/1002/1003 h`).
    pub mouse_tracking: MouseTracking,
    /// How mouse reports are encoded (`CSI ? 1005/1006/1015 h`).
    pub mouse_encoding: MouseEncoding,
    /// Focus reporting (`CSI ? 1004 h`): the terminal sends `CSI I` on focus, `CSI O` on blur.
    pub focus_events: bool,
    /// DECAWM, autowrap (`CSI ? 7 h`, on by default): printing past the last column continues
    /// on the next row; when off, the last column is overwritten.
    pub autowrap: bool,
    /// IRM, insert mode (`CSI 4 h`): printed characters shift the rest of the row right.
    pub insert: bool,
    /// DECOM, origin mode (`CSI ? 6 h`): cursor addressing is relative to the scroll region.
    pub origin: bool,
    /// Synchronized output (`CSI ? 2026 h`): the program is drawing an update; a renderer shows
    /// the screen only once it is reset (contour's "synchronized output" spec).
    pub synchronized_output: bool,
    /// The cursor's shape and blinking (DECSCUSR).
    pub cursor_style: CursorStyle,
}

impl Default for Modes {
    /// [`Modes::RESET`].
    fn default() -> Self {
        Modes::RESET
    }
}

impl Modes {
    /// The modes of a freshly reset terminal: everything off except DECAWM.
    pub const RESET: Modes = Modes {
        application_cursor: false,
        application_keypad: false,
        bracketed_paste: false,
        alternate_screen: false,
        hide_cursor: false,
        kitty_flags: 0,
        mouse_tracking: MouseTracking::Off,
        mouse_encoding: MouseEncoding::X10,
        focus_events: false,
        autowrap: true,
        insert: false,
        origin: false,
        synchronized_output: false,
        cursor_style: CursorStyle {
            shape: CursorShape::Block,
            blink: true,
        },
    };
}

impl Modes {
    /// Kitty flag 1, "disambiguate escape codes".
    pub const KITTY_DISAMBIGUATE: u8 = 1;
    /// Kitty flag 8, "report all keys as escape codes": printable keys are sent as `CSI code u`
    /// instead of text, so a keyboard adapter must encode them from key events.
    pub const KITTY_REPORT_ALL_KEYS: u8 = 8;

    /// Whether some mouse tracking mode is on, so the mouse belongs to the program.
    pub fn mouse_reporting(&self) -> bool {
        self.mouse_tracking != MouseTracking::Off
    }

    /// Whether kitty flag 8 is on: every key, printable ones included, is an escape code.
    pub fn reports_all_keys(&self) -> bool {
        self.kitty_flags & Self::KITTY_REPORT_ALL_KEYS != 0
    }
}

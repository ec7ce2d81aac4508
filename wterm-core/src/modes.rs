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
        CursorStyle { shape: CursorShape::Block, blink: true }
    }
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
    /// Some mouse reporting mode is on (`CSI ? 1000 h` and friends).
    pub mouse_reporting: bool,
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
        mouse_reporting: false,
        autowrap: true,
        insert: false,
        origin: false,
        synchronized_output: false,
        cursor_style: CursorStyle { shape: CursorShape::Block, blink: true },
    };
}

impl Modes {
    /// Kitty flag 1, "disambiguate escape codes".
    pub const KITTY_DISAMBIGUATE: u8 = 1;
    /// Kitty flag 8, "report all keys as escape codes": printable keys are sent as `CSI code u`
    /// instead of text, so a keyboard adapter must encode them from key events.
    pub const KITTY_REPORT_ALL_KEYS: u8 = 8;

    /// Whether kitty flag 8 is on: every key, printable ones included, is an escape code.
    pub fn reports_all_keys(&self) -> bool {
        self.kitty_flags & Self::KITTY_REPORT_ALL_KEYS != 0
    }
}

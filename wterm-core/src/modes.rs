//! [`Modes`]: the terminal modes a program sets that change how input is encoded or the screen
//! is shown.

/// Modes the program has set. Each field names its mode and the sequence that sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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

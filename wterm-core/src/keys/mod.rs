//! Keys to bytes: the one encoder behind the page's keyboard, the WebMCP `press_terminal_keys`
//! tool and the relay's `/mcp/keys`.
//!
//! - [`Key`] + [`Mods`] = [`Chord`]; [`encode`] turns a chord into the bytes the same physical
//!   key sends in xterm for the program's current [`Modes`](crate::Modes): legacy, DECCKM (SS3
//!   cursor keys), xterm modifier parameters (`CSI 1;5D`), and the kitty keyboard protocol
//!   (flags 1 "disambiguate" and 8 "report all keys as escape codes").
//! - [`parse_key`]: the one key grammar of both agent surfaces, either notation: chords
//!   ([`parse_chord`], `"Ctrl+Shift+ArrowLeft"`) or broker tokens ([`parse_broker_key`], `"C-x"`,
//!   `"M-Left"`), help text [`KEYS_HELP`]; [`dom_key`]: `KeyboardEvent.key` names.
//! - [`encode_paste`]: pasted text, bracketed when mode 2004 is on; [`enter_newlines`]: the
//!   newline rule for typed text (line breaks become Enter's CR).
//! - [`encode_mouse`], [`encode_focus`]: mouse and focus reports for the program's mouse modes.

mod encode;
mod grammar;
mod mouse;
mod paste;

pub use encode::encode;
pub use grammar::{
    dom_key, keys_doc, parse_broker_key, parse_chord, parse_key, KEYS_HELP, KEY_NAMES_HELP,
};
pub use mouse::{
    encode_focus, encode_mouse, MouseAction, MouseButton, MouseEvent, UTF8_MAX_COORD, X10_MAX_COORD,
};
pub use paste::{encode_paste, encode_typed, enter_newlines};

/// A key, independent of modifiers. `Char` holds the character the key produces (with Shift
/// already applied, as in `KeyboardEvent.key`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// A printable character, including space.
    Char(char),
    /// Enter / Return: CR.
    Enter,
    /// A bare line feed (0x0A); broker grammar `LF` only.
    LineFeed,
    /// Tab.
    Tab,
    /// Backspace: DEL (0x7F), as xterm sends by default.
    Backspace,
    /// Escape.
    Escape,
    /// Insert.
    Insert,
    /// Delete (forward delete).
    Delete,
    /// Home.
    Home,
    /// End.
    End,
    /// Page Up.
    PageUp,
    /// Page Down.
    PageDown,
    /// Cursor up.
    ArrowUp,
    /// Cursor down.
    ArrowDown,
    /// Cursor left.
    ArrowLeft,
    /// Cursor right.
    ArrowRight,
    /// A function key, F1..=F12.
    F(u8),
}

/// Modifier keys held with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Mods {
    /// Control.
    pub ctrl: bool,
    /// Alt (Option): sends an ESC prefix in legacy encoding.
    pub alt: bool,
    /// Shift.
    pub shift: bool,
    /// Meta (the Windows/Command key; kitty's "super"): an ESC prefix in legacy encoding.
    pub meta: bool,
}

impl Mods {
    /// No modifier held.
    pub const NONE: Mods = Mods {
        ctrl: false,
        alt: false,
        shift: false,
        meta: false,
    };

    /// Whether any modifier is held.
    pub fn any(self) -> bool {
        self.ctrl || self.alt || self.shift || self.meta
    }

    /// The xterm modifier parameter, `1 + shift·1 + alt·2 + ctrl·4 + meta·8` (xterm ctlseqs,
    /// "PC-Style Function Keys"); the same numbering kitty uses with meta as "super".
    pub fn param(self) -> u8 {
        1 + self.shift as u8 + 2 * self.alt as u8 + 4 * self.ctrl as u8 + 8 * self.meta as u8
    }
}

/// A key with its modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Chord {
    /// The key.
    pub key: Key,
    /// The modifiers held with it.
    pub mods: Mods,
}

impl Chord {
    /// A key with no modifiers.
    pub const fn plain(key: Key) -> Self {
        Chord {
            key,
            mods: Mods::NONE,
        }
    }
}

#[cfg(test)]
mod tests;

//! The `terminal` fuzz target's input and oracle, shared by the libFuzzer target
//! (`fuzz_targets/terminal.rs`) and the stable replay tests (`tests/fuzz_corpus.rs`,
//! `tests/fuzz_regressions.rs`), which include this file with `#[path]`.
//!
//! An input is a [`Script`]: a starting size and a list of [`Op`]s on one [`Terminal`] (feed,
//! resize, key chord, paste, reads), decoded from the fuzzer's bytes by `arbitrary`'s derive.
//! [`run`] performs the script and panics (the fuzzer's "crash") when the engine panics or an
//! [`oracle`](check_snapshot_round_trip) check fails. [`Script::to_bytes`] is the inverse of the
//! decoder, so the topic-named seeds in `corpus/terminal/` are written from readable scripts.

use arbitrary::Arbitrary;
use wterm_core::keys::{self, Chord, Key, Mods};
use wterm_core::{join_rows, ScreenHash, Size, StyledRun, Terminal, View};

/// Most operations of one script that are performed, in operations; the rest are ignored, so
/// one input cannot spend seconds on a 1000 × 1000 screen.
pub const MAX_OPS: usize = 96;

/// Most rows the whole-screen `row_runs` read walks, in rows; a 1000-row screen is sampled at
/// its top and bottom instead of read whole on every step.
pub const MAX_ROWS_WALKED: u16 = 48;

/// Largest screen the fuzzer builds, in cells (rows × cols after clamping); a larger request
/// keeps its width and gets fewer rows. A 1000 × 1000 screen costs tens of milliseconds per
/// operation (every step reads the whole screen), which cut the run from over a thousand inputs
/// a second to about a hundred; 1000 rows (at ≤ 16 columns) and 1000 columns (at ≤ 16 rows) are
/// still reached.
pub const MAX_CELLS: u32 = 16_384;

/// Bound of [`Dim::Small`], exclusive, in rows or columns.
pub const SMALL_DIM: u8 = 32;

/// Bracketed paste start, `CSI 200 ~` (xterm "Bracketed Paste Mode"; `keys::paste` keeps its
/// own copy private).
const PASTE_START: &[u8] = b"\x1b[200~";
/// Bracketed paste end, `CSI 201 ~`.
const PASTE_END: &[u8] = b"\x1b[201~";

/// The size the fuzzer asks for: `rows` × `cols` as given, except that a request whose clamped
/// area exceeds [`MAX_CELLS`] gets fewer rows.
pub fn fit(rows: Dim, cols: Dim) -> Size {
    let want = Size::new(rows.get(), cols.get());
    let c = want.clamped();
    if u32::from(c.rows) * u32::from(c.cols) <= MAX_CELLS {
        return want;
    }
    Size::new((MAX_CELLS / u32::from(c.cols)) as u16, want.cols)
}

/// A screen dimension as the fuzzer picks it: the small values where edge cases live, any byte,
/// or any `u16` (the terminal clamps to `MIN_*`..=`MAX_*`).
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    /// 0 rows/cols: below every minimum.
    Zero,
    /// 1.
    One,
    /// 2.
    Two,
    /// 3.
    Three,
    /// 0..[`SMALL_DIM`]: where most edge cases live, and cheap.
    Small(u8),
    /// 0..=255.
    Byte(u8),
    /// 0..=65535: mostly above the 1000 maximum.
    Large(u16),
}

impl Dim {
    /// The requested value.
    pub fn get(self) -> u16 {
        match self {
            Dim::Zero => 0,
            Dim::One => 1,
            Dim::Two => 2,
            Dim::Three => 3,
            Dim::Small(b) => u16::from(b % SMALL_DIM),
            Dim::Byte(b) => u16::from(b),
            Dim::Large(v) => v,
        }
    }
}

/// Escape-sequence and text fragments the parser's less-trodden paths need, named so that a
/// minimized crash reads as a sequence.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frag {
    /// `ESC [`: CSI.
    Csi,
    /// `ESC ]`: OSC.
    Osc,
    /// `ESC P`: DCS.
    Dcs,
    /// `ESC \`: ST.
    St,
    /// BEL, also an OSC terminator.
    Bel,
    /// A lone ESC.
    Esc,
    /// `?`: DEC private marker.
    Question,
    /// `>`: secondary marker (DA2, kitty push).
    Greater,
    /// `<`: kitty pop.
    Less,
    /// `=`.
    Equals,
    /// `;`: parameter separator.
    Semi,
    /// `:`: sub-parameter separator.
    Colon,
    /// `ESC 7`: DECSC.
    SaveCursor,
    /// `ESC 8`: DECRC.
    RestoreCursor,
    /// `ESC M`: RI.
    ReverseIndex,
    /// `ESC D`: IND.
    Index,
    /// `ESC E`: NEL.
    NextLine,
    /// `ESC H`: HTS.
    TabSet,
    /// `ESC c`: RIS.
    FullReset,
    /// `ESC =`: DECKPAM.
    KeypadApplication,
    /// `ESC >`: DECKPNM.
    KeypadNumeric,
    /// `ESC ( 0`: DEC special graphics into G0.
    G0Graphics,
    /// `ESC ( B`: ASCII into G0.
    G0Ascii,
    /// `ESC # 8`: DECALN.
    ScreenAlignment,
    /// 0x9B: 8-bit CSI.
    Csi8,
    /// 0x9D: 8-bit OSC.
    Osc8Bit,
    /// CR.
    Cr,
    /// LF.
    Lf,
    /// CR LF.
    CrLf,
    /// HT.
    Tab,
    /// BS.
    Backspace,
    /// NUL.
    Nul,
    /// DEL.
    Del,
    /// U+4E2D, a wide CJK character.
    Wide,
    /// U+0301 COMBINING ACUTE ACCENT.
    Combining,
    /// U+200D ZERO WIDTH JOINER.
    Zwj,
    /// U+1F1FA, a regional indicator (half a flag).
    RegionalIndicator,
    /// U+1F3FD, an emoji skin-tone modifier.
    EmojiModifier,
    /// U+FE0F VARIATION SELECTOR-16 (emoji presentation).
    Vs16,
    /// U+FE0E VARIATION SELECTOR-15 (text presentation).
    Vs15,
    /// U+1F44D, a wide emoji.
    Emoji,
    /// U+2764, narrow by default, wide with VS16.
    Heart,
    /// U+200B ZERO WIDTH SPACE.
    ZeroWidthSpace,
    /// 0xE4 0xB8: the first two bytes of a three-byte character.
    PartialUtf8,
    /// 0xFF: never valid UTF-8.
    InvalidUtf8,
    /// `CSI 200 ~`: a bracketed-paste start written by the program.
    PasteStart,
    /// OSC 8 opening an `https:` link, ST-terminated.
    LinkOpen,
    /// OSC 8 closing the link.
    LinkClose,
    /// OSC 133 `A`, BEL-terminated.
    PromptMark,
    /// OSC 133 `D;1`, BEL-terminated.
    DoneMark,
    /// OSC 7 with a percent-encoded path.
    Cwd,
    /// OSC 2 setting a title.
    Title,
    /// `CSI > 1 u`: push kitty flags.
    KittyPush,
    /// `CSI < u`: pop kitty flags.
    KittyPop,
    /// `CSI ? u`: query kitty flags.
    KittyQuery,
    /// `CSI 6 n`: cursor position report.
    CursorReport,
    /// `CSI c`: DA1.
    DeviceAttributes,
}

impl Frag {
    /// The fragment's bytes.
    pub fn bytes(self) -> &'static [u8] {
        match self {
            Frag::Csi => b"\x1b[",
            Frag::Osc => b"\x1b]",
            Frag::Dcs => b"\x1bP",
            Frag::St => b"\x1b\\",
            Frag::Bel => b"\x07",
            Frag::Esc => b"\x1b",
            Frag::Question => b"?",
            Frag::Greater => b">",
            Frag::Less => b"<",
            Frag::Equals => b"=",
            Frag::Semi => b";",
            Frag::Colon => b":",
            Frag::SaveCursor => b"\x1b7",
            Frag::RestoreCursor => b"\x1b8",
            Frag::ReverseIndex => b"\x1bM",
            Frag::Index => b"\x1bD",
            Frag::NextLine => b"\x1bE",
            Frag::TabSet => b"\x1bH",
            Frag::FullReset => b"\x1bc",
            Frag::KeypadApplication => b"\x1b=",
            Frag::KeypadNumeric => b"\x1b>",
            Frag::G0Graphics => b"\x1b(0",
            Frag::G0Ascii => b"\x1b(B",
            Frag::ScreenAlignment => b"\x1b#8",
            Frag::Csi8 => b"\x9b",
            Frag::Osc8Bit => b"\x9d",
            Frag::Cr => b"\r",
            Frag::Lf => b"\n",
            Frag::CrLf => b"\r\n",
            Frag::Tab => b"\t",
            Frag::Backspace => b"\x08",
            Frag::Nul => b"\x00",
            Frag::Del => b"\x7f",
            Frag::Wide => "\u{4e2d}".as_bytes(),
            Frag::Combining => "\u{301}".as_bytes(),
            Frag::Zwj => "\u{200d}".as_bytes(),
            Frag::RegionalIndicator => "\u{1f1fa}".as_bytes(),
            Frag::EmojiModifier => "\u{1f3fd}".as_bytes(),
            Frag::Vs16 => "\u{fe0f}".as_bytes(),
            Frag::Vs15 => "\u{fe0e}".as_bytes(),
            Frag::Emoji => "\u{1f44d}".as_bytes(),
            Frag::Heart => "\u{2764}".as_bytes(),
            Frag::ZeroWidthSpace => "\u{200b}".as_bytes(),
            Frag::PartialUtf8 => b"\xe4\xb8",
            Frag::InvalidUtf8 => b"\xff",
            Frag::PasteStart => b"\x1b[200~",
            Frag::LinkOpen => b"\x1b]8;;https://example.com/a\x1b\\",
            Frag::LinkClose => b"\x1b]8;;\x1b\\",
            Frag::PromptMark => b"\x1b]133;A\x07",
            Frag::DoneMark => b"\x1b]133;D;1\x07",
            Frag::Cwd => b"\x1b]7;file://host/tmp/a%20b\x07",
            Frag::Title => b"\x1b]2;fuzz title\x07",
            Frag::KittyPush => b"\x1b[>1u",
            Frag::KittyPop => b"\x1b[<u",
            Frag::KittyQuery => b"\x1b[?u",
            Frag::CursorReport => b"\x1b[6n",
            Frag::DeviceAttributes => b"\x1b[c",
        }
    }
}

/// A mode number, for `CSI [?] n h/l` and DECRQM: the ones wterm-core reads or the new engine
/// adds, plus any number.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeNumber {
    /// DECCKM.
    ApplicationCursor,
    /// IRM (ANSI 4) or DECOM (DEC 6), by `private`.
    InsertOrOrigin,
    /// DECAWM.
    Autowrap,
    /// DECTCEM.
    ShowCursor,
    /// The alternate screen without cursor save.
    AltScreen47,
    /// The alternate screen with cursor save and clear.
    AltScreen1049,
    /// X11 mouse reporting.
    Mouse1000,
    /// SGR mouse encoding.
    MouseSgr1006,
    /// Bracketed paste.
    BracketedPaste,
    /// Synchronized output.
    SynchronizedOutput,
    /// Any number.
    Other(u16),
}

impl ModeNumber {
    /// The mode's number on the wire.
    pub fn get(self, private: bool) -> u16 {
        match self {
            ModeNumber::ApplicationCursor => 1,
            ModeNumber::InsertOrOrigin if private => 6,
            ModeNumber::InsertOrOrigin => 4,
            ModeNumber::Autowrap => 7,
            ModeNumber::ShowCursor => 25,
            ModeNumber::AltScreen47 => 47,
            ModeNumber::AltScreen1049 => 1049,
            ModeNumber::Mouse1000 => 1000,
            ModeNumber::MouseSgr1006 => 1006,
            ModeNumber::BracketedPaste => 2004,
            ModeNumber::SynchronizedOutput => 2026,
            ModeNumber::Other(n) => n,
        }
    }
}

/// One piece of a [`Op::Feed`]: a named fragment, a whole sequence, or raw data.
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A named fragment.
    Frag(Frag),
    /// A decimal number (a CSI parameter, a count).
    Num(u16),
    /// A CSI final byte, 0x40..=0x7E (`byte % 63 + 0x40`).
    Final(u8),
    /// A CSI intermediate byte, 0x20..=0x2F (`byte % 16 + 0x20`).
    Intermediate(u8),
    /// A C0 control, 0x00..=0x1F (`byte % 32`).
    Control(u8),
    /// Any byte.
    Byte(u8),
    /// Any Unicode scalar value, as UTF-8.
    Char(char),
    /// Below 128, `count` numbered lines of text, each ended by CR LF: fills the screen and
    /// history fast. From 128 on, a flood of `(count - 128) * 8` short lines (`yes`, `seq`:
    /// several to a word, of 0 to 12 letters, one in 13 holding a wide character and one in 17
    /// ended by LF alone), which printing takes a screenful at a time ([`flood_lines`]).
    Lines(u8),
    /// `CSI [?] n h` (set) or `l` (reset); with `query`, DECRQM `CSI [?] n $ p` instead.
    Mode {
        /// DEC private (`?`) or ANSI.
        private: bool,
        /// Which mode.
        mode: ModeNumber,
        /// Set or reset.
        set: bool,
        /// Ask with DECRQM instead of setting.
        query: bool,
    },
    /// `CSI p1;p2;… m`.
    Sgr(Vec<u8>),
    /// `CSI row;col H`.
    CursorTo(u16, u16),
    /// `CSI top;bottom r`: DECSTBM.
    ScrollRegion(u16, u16),
    /// `CSI n SP q`: DECSCUSR.
    CursorStyle(u8),
    /// `CSI n b`: REP, n ≤ 255 (a larger count is `Num` + `Final`: each repeat is a full
    /// print in vt100, and 65535 of them made REP most of the fuzzer's time).
    Repeat(u8),
}

impl Piece {
    /// Appends the piece's bytes to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Piece::Frag(f) => out.extend_from_slice(f.bytes()),
            Piece::Num(n) => out.extend_from_slice(n.to_string().as_bytes()),
            Piece::Final(b) => out.push(b % 63 + 0x40),
            Piece::Intermediate(b) => out.push(b % 16 + 0x20),
            Piece::Control(b) => out.push(b % 32),
            Piece::Byte(b) => out.push(*b),
            Piece::Char(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            Piece::Lines(count @ 128..) => flood_lines(usize::from(count - 128) * 8, out),
            Piece::Lines(count) => {
                for i in 0..*count {
                    out.extend_from_slice(format!("line {i}\r\n").as_bytes());
                }
            }
            Piece::Mode {
                private,
                mode,
                set,
                query,
            } => {
                let marker = if *private { "?" } else { "" };
                let n = mode.get(*private);
                let tail = if *query {
                    "$p"
                } else if *set {
                    "h"
                } else {
                    "l"
                };
                out.extend_from_slice(format!("\x1b[{marker}{n}{tail}").as_bytes());
            }
            Piece::Sgr(params) => {
                let params: Vec<String> = params.iter().map(u8::to_string).collect();
                out.extend_from_slice(format!("\x1b[{}m", params.join(";")).as_bytes());
            }
            Piece::CursorTo(r, c) => out.extend_from_slice(format!("\x1b[{r};{c}H").as_bytes()),
            Piece::ScrollRegion(t, b) => out.extend_from_slice(format!("\x1b[{t};{b}r").as_bytes()),
            Piece::CursorStyle(n) => out.extend_from_slice(format!("\x1b[{n} q").as_bytes()),
            Piece::Repeat(n) => out.extend_from_slice(format!("\x1b[{n}b").as_bytes()),
        }
    }
}

/// Appends `count` short lines, as [`Piece::Lines`] from 128 describes them.
pub fn flood_lines(count: usize, out: &mut Vec<u8>) {
    for i in 0..count {
        let len = (i * 7) % 13;
        out.extend((0..len).map(|k| b'a' + ((i + k) % 26) as u8));
        if i % 13 == 12 {
            out.extend_from_slice("\u{4e2d}".as_bytes());
        }
        out.extend_from_slice(if i % 17 == 16 { b"\n" } else { b"\r\n" });
    }
}

/// The bytes of `pieces`, concatenated.
pub fn bytes_of(pieces: &[Piece]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in pieces {
        p.write(&mut out);
    }
    out
}

/// A key for [`keys::encode`], mirroring [`Key`] (which has no `Arbitrary`).
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum FuzzKey {
    Char(char),
    Enter,
    LineFeed,
    Tab,
    Backspace,
    Escape,
    Insert,
    Delete,
    Home,
    End,
    PageUp,
    PageDown,
    ArrowUp,
    ArrowDown,
    ArrowLeft,
    ArrowRight,
    /// Any number, F0 and F13.. included.
    F(u8),
}

impl FuzzKey {
    /// The public API's key.
    pub fn key(self) -> Key {
        match self {
            FuzzKey::Char(c) => Key::Char(c),
            FuzzKey::Enter => Key::Enter,
            FuzzKey::LineFeed => Key::LineFeed,
            FuzzKey::Tab => Key::Tab,
            FuzzKey::Backspace => Key::Backspace,
            FuzzKey::Escape => Key::Escape,
            FuzzKey::Insert => Key::Insert,
            FuzzKey::Delete => Key::Delete,
            FuzzKey::Home => Key::Home,
            FuzzKey::End => Key::End,
            FuzzKey::PageUp => Key::PageUp,
            FuzzKey::PageDown => Key::PageDown,
            FuzzKey::ArrowUp => Key::ArrowUp,
            FuzzKey::ArrowDown => Key::ArrowDown,
            FuzzKey::ArrowLeft => Key::ArrowLeft,
            FuzzKey::ArrowRight => Key::ArrowRight,
            FuzzKey::F(n) => Key::F(n),
        }
    }
}

/// Which key-name grammar an [`Op::KeyName`] goes through.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    /// [`keys::parse_chord`] (`Ctrl+Shift+ArrowLeft`).
    Chord,
    /// [`keys::parse_broker_key`] (`C-x`, `M-Left`).
    Broker,
    /// [`keys::dom_key`] (`KeyboardEvent.key`).
    Dom,
}

/// A key name for [`Op::KeyName`]: a known token or any characters.
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq)]
pub enum NamePart {
    /// `Ctrl+`.
    Ctrl,
    /// `Shift+`.
    Shift,
    /// `Alt+`.
    Alt,
    /// `C-` (broker).
    BrokerCtrl,
    /// `M-` (broker).
    BrokerMeta,
    /// `ArrowLeft`.
    ArrowLeft,
    /// `F`.
    F,
    /// Any character.
    Char(char),
}

impl NamePart {
    fn write(&self, out: &mut String) {
        match self {
            NamePart::Ctrl => out.push_str("Ctrl+"),
            NamePart::Shift => out.push_str("Shift+"),
            NamePart::Alt => out.push_str("Alt+"),
            NamePart::BrokerCtrl => out.push_str("C-"),
            NamePart::BrokerMeta => out.push_str("M-"),
            NamePart::ArrowLeft => out.push_str("ArrowLeft"),
            NamePart::F => out.push('F'),
            NamePart::Char(c) => out.push(*c),
        }
    }
}

/// A view offset for [`Terminal::row_runs`], relative to the history the terminal has.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offset {
    /// 0: the live screen.
    Live,
    /// One row up.
    One,
    /// Half the history.
    Half,
    /// All the history.
    All,
    /// Past the history by this many rows (clamped by the terminal).
    Past(u16),
}

impl Offset {
    fn get(self, history: usize) -> usize {
        match self {
            Offset::Live => 0,
            Offset::One => 1,
            Offset::Half => history / 2,
            Offset::All => history,
            Offset::Past(n) => history + usize::from(n),
        }
    }
}

/// A read of the terminal, each with the contract checks that apply to it.
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// `screen_text` and `screen_rows`.
    Screen,
    /// `tail_rows(n)`.
    Tail(u16),
    /// `history_rows(n)`.
    History(u16),
    /// `read_rows(None)` or `read_rows(Some(n))`.
    #[allow(clippy::enum_variant_names)] // Named after the method it calls, `read_rows`.
    ReadRows(Option<u16>),
    /// `row_runs` of one row.
    RowRuns(Offset, u16),
    /// `row_runs` of every row (up to [`MAX_ROWS_WALKED`]).
    AllRowRuns(Offset),
    /// `cell(row, col)`.
    Cell(u16, u16),
    /// `frame(View::Screen)`.
    FrameScreen,
    /// `frame(View::Scrollback(n))`.
    FrameScrollback(u16),
    /// `attr_runs(first_row, max)`.
    AttrRuns(u16, u8),
    /// `snapshot()` replayed into a fresh terminal: see [`check_snapshot_round_trip`].
    Snapshot,
    /// `title`, `cwd`, `shell_integration`, `modes`, `link_uri` of every link on screen.
    Metadata,
}

/// One operation on the terminal.
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Program output, fed in two chunks split at `split % (len + 1)`.
    Feed(Vec<Piece>, u16),
    /// A resize.
    Resize(Dim, Dim),
    /// A key chord encoded for the current modes; with `echo`, the bytes are fed back as a
    /// terminal in echo mode would show them.
    Key(FuzzKey, FuzzMods, bool),
    /// A key name through one of the grammars, then encoded as [`Op::Key`] (echo flag likewise).
    KeyName(Grammar, Vec<NamePart>, bool),
    /// Pasted (or, with `typed`, agent-typed) text encoded for the current bracketed-paste mode;
    /// the bytes are fed back when `echo`.
    Paste {
        /// The text, from pieces, lossily decoded as UTF-8.
        text: Vec<Piece>,
        /// `encode_typed` instead of `encode_paste`.
        typed: bool,
        /// Feed the encoding back.
        echo: bool,
    },
    /// A read.
    Read(Read),
    /// `reset()`.
    Reset,
}

/// Modifiers, mirroring [`Mods`].
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct FuzzMods {
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
    pub meta: bool,
}

/// A whole input: the terminal to make, then the operations.
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// Starting rows.
    pub rows: Dim,
    /// Starting columns.
    pub cols: Dim,
    /// Scrollback capacity in rows, 0..=255: small, so history fills and evicts quickly.
    pub scrollback: u8,
    /// The operations, in order (at most [`MAX_OPS`] are performed).
    pub ops: Vec<Op>,
}

impl Script {
    /// Decodes fuzzer bytes as libfuzzer-sys does (`arbitrary_take_rest`).
    pub fn from_bytes(data: &[u8]) -> arbitrary::Result<Script> {
        Script::arbitrary_take_rest(arbitrary::Unstructured::new(data))
    }
}

/// Performs `script` on a fresh terminal, running every check; panics on the first failure.
///
/// A second terminal, the reference, gets the same operations with every byte fed whole
/// through `Terminal::feed_unbatched` (vte's own dispatch); it must end with the same snapshot,
/// and match in cursor, modes and replies after every operation: this checks `feed`'s ground-
/// state shortcut and that splitting a write never changes its effect.
pub fn run(script: &Script) {
    let size = fit(script.rows, script.cols);
    let mut t = Terminal::new(size, usize::from(script.scrollback));
    let mut reference = Terminal::new(size, usize::from(script.scrollback));
    check_invariants(&mut t);
    for op in script.ops.iter().take(MAX_OPS) {
        apply(&mut t, &mut reference, op);
        check_invariants(&mut t);
        assert_eq!(
            t.cursor(),
            reference.cursor(),
            "cursor differs from the unbatched reference"
        );
        assert_eq!(
            t.modes(),
            reference.modes(),
            "modes differ from the unbatched reference"
        );
    }
    assert_eq!(
        t.snapshot(),
        reference.snapshot(),
        "snapshot differs from the unbatched reference"
    );
    check_snapshot_round_trip(&mut t);
}

fn feed_echo(t: &mut Terminal, reference: &mut Terminal, bytes: &[u8], echo: bool) {
    if echo {
        let got = t.feed(bytes);
        assert_eq!(
            got,
            reference.feed_unbatched(bytes),
            "effects differ from the unbatched reference"
        );
    }
}

fn apply(t: &mut Terminal, reference: &mut Terminal, op: &Op) {
    match op {
        Op::Feed(pieces, split) => {
            let bytes = bytes_of(pieces);
            let at = usize::from(*split) % (bytes.len() + 1);
            let mut got = t.feed(&bytes[..at]);
            let second = t.feed(&bytes[at..]);
            got.replies.extend_from_slice(&second.replies);
            got.title_changed |= second.title_changed;
            got.bell |= second.bell;
            // The last clipboard write of the two feeds, as one feed reports it.
            if second.clipboard.is_some() {
                got.clipboard = second.clipboard;
            }
            assert_eq!(
                got,
                reference.feed_unbatched(&bytes),
                "effects differ from the unbatched reference"
            );
        }
        Op::Resize(rows, cols) => {
            let want = fit(*rows, *cols);
            t.resize(want);
            reference.resize(want);
            assert_eq!(
                t.size(),
                want.clamped(),
                "resize({want:?}) must give the clamped size"
            );
        }
        Op::Key(key, mods, echo) => {
            let chord = Chord {
                key: key.key(),
                mods: Mods {
                    ctrl: mods.ctrl,
                    alt: mods.alt,
                    shift: mods.shift,
                    meta: mods.meta,
                },
            };
            let bytes = encode_checked(t, chord);
            feed_echo(t, reference, &bytes, *echo);
        }
        Op::KeyName(grammar, parts, echo) => {
            let mut name = String::new();
            for p in parts {
                p.write(&mut name);
            }
            let chord = match grammar {
                Grammar::Chord => keys::parse_chord(&name).ok(),
                Grammar::Broker => keys::parse_broker_key(&name).ok(),
                Grammar::Dom => keys::dom_key(&name).map(Chord::plain),
            };
            if let Some(chord) = chord {
                let bytes = encode_checked(t, chord);
                feed_echo(t, reference, &bytes, *echo);
            }
        }
        Op::Paste { text, typed, echo } => {
            let text = String::from_utf8_lossy(&bytes_of(text)).into_owned();
            let bracketed = t.modes().bracketed_paste;
            let bytes = if *typed {
                keys::encode_typed(&text, bracketed)
            } else {
                keys::encode_paste(&text, bracketed)
            };
            let as_paste = !*typed || text.contains(['\n', '\r']);
            if as_paste && bracketed {
                let inner = bytes
                    .strip_prefix(PASTE_START)
                    .and_then(|b| b.strip_suffix(PASTE_END))
                    .expect("a bracketed paste is wrapped in CSI 200 ~ … CSI 201 ~");
                assert!(
                    !inner.contains(&0x1b),
                    "ESC inside a bracketed paste could end it early"
                );
            } else if as_paste {
                assert!(
                    !bytes.contains(&b'\n'),
                    "an unbracketed paste sends line breaks as CR"
                );
            } else {
                assert_eq!(
                    bytes,
                    text.as_bytes(),
                    "single-line typed text is sent as is"
                );
            }
            feed_echo(t, reference, &bytes, *echo);
        }
        Op::Read(read) => perform_read(t, read),
        Op::Reset => {
            let (size, cap) = (t.size(), t.scrollback_capacity());
            t.reset();
            reference.reset();
            assert_eq!(
                (t.size(), t.scrollback_capacity()),
                (size, cap),
                "reset keeps size and capacity"
            );
            assert_eq!(t.screen_text(), "", "reset clears the screen");
            assert_eq!(t.scrollback_rows(), 0, "reset clears history");
        }
    }
}

/// [`keys::encode`] with the terminal's live modes, checking the documented legacy rule: with
/// no kitty flags, an unmodified printable character is sent as its UTF-8.
fn encode_checked(t: &Terminal, chord: Chord) -> Vec<u8> {
    let modes = t.modes();
    let bytes = keys::encode(chord, &modes);
    let kitty = modes.kitty_flags
        & (wterm_core::Modes::KITTY_DISAMBIGUATE | wterm_core::Modes::KITTY_REPORT_ALL_KEYS);
    if let Key::Char(c) = chord.key {
        if kitty == 0 && !chord.mods.any() && !c.is_control() {
            assert_eq!(
                bytes,
                c.to_string().as_bytes(),
                "plain {c:?} without kitty flags"
            );
        }
    }
    bytes
}

fn perform_read(t: &mut Terminal, read: &Read) {
    let size = t.size();
    let history = t.scrollback_rows();
    match read {
        Read::Screen => {
            let rows = t.screen_rows();
            let text = t.screen_text();
            assert!(
                join_rows(&rows).starts_with(&text),
                "screen_text is a prefix of the joined rows"
            );
        }
        Read::Tail(n) => {
            let n = usize::from(*n);
            let rows = t.tail_rows(n);
            let want = n.clamp(1, wterm_core::limits::MAX_TAIL_LINES);
            assert!(
                rows.len() <= want,
                "tail_rows({n}) gave {} rows",
                rows.len()
            );
        }
        Read::History(n) => {
            let n = usize::from(*n);
            let rows = t.history_rows(n);
            assert_eq!(
                rows.len(),
                n.min(history),
                "history_rows({n}) with {history} rows of history"
            );
        }
        Read::ReadRows(n) => {
            let rows = t.read_rows(n.map(usize::from));
            assert!(
                rows.len() <= size.rows as usize || n.is_some(),
                "read_rows(None) is within the screen"
            );
        }
        Read::RowRuns(offset, row) => {
            let mut runs = Vec::new();
            t.row_runs(offset.get(history), *row, &mut runs);
            check_runs(&runs, *row, size);
        }
        Read::AllRowRuns(offset) => {
            let mut runs = Vec::new();
            let off = offset.get(history);
            let rows: Vec<u16> = if size.rows <= MAX_ROWS_WALKED {
                (0..size.rows).collect()
            } else {
                let half = MAX_ROWS_WALKED / 2;
                (0..half).chain(size.rows - half..size.rows).collect()
            };
            for row in rows {
                t.row_runs(off, row, &mut runs);
                check_runs(&runs, row, size);
            }
        }
        Read::Cell(row, col) => {
            let inside = *row < size.rows && *col < size.cols;
            if !inside {
                assert!(
                    t.cell(*row, *col).is_none(),
                    "cell({row}, {col}) outside {size:?}"
                );
            } else {
                let _ = t.cell(*row, *col);
            }
        }
        Read::FrameScreen => check_frame(t, View::Screen, 0),
        Read::FrameScrollback(n) => {
            check_frame(t, View::Scrollback(usize::from(*n)), usize::from(*n))
        }
        Read::AttrRuns(first_row, max) => {
            let (first_row, max) = (usize::from(*first_row), usize::from(*max));
            let (runs, cut) = t.attr_runs(first_row, max);
            assert!(
                runs.len() <= max && (runs.len() == max || !cut),
                "attr_runs: {} runs of at most {max}, cut {cut}",
                runs.len()
            );
            // The frame's rows: up to `first_row` history rows (as many as there are), then the screen.
            let lowest = first_row - first_row.min(t.scrollback_rows());
            let mut last = (0, 0);
            for r in &runs {
                assert!(
                    r.row >= lowest && r.row < first_row + usize::from(size.rows),
                    "attr run row {} outside the frame's rows {lowest}..{}",
                    r.row,
                    first_row + usize::from(size.rows)
                );
                assert!(
                    (r.row, r.col) >= last,
                    "attr runs out of order: {r:?} after {last:?}"
                );
                last = (r.row, r.col + r.len);
                assert!(
                    r.len > 0 && u32::from(r.col) + u32::from(r.len) <= u32::from(size.cols),
                    "attr run {r:?} outside {size:?}"
                );
            }
        }
        Read::Snapshot => check_snapshot_round_trip(t),
        Read::Metadata => {
            let _ = (t.title(), t.cwd(), t.shell_integration(), t.modes());
            let mut runs = Vec::new();
            for row in 0..size.rows.min(MAX_ROWS_WALKED) {
                t.row_runs(0, row, &mut runs);
                for run in &runs {
                    if let Some(id) = run.style.link {
                        let _ = t.link_uri(id);
                    }
                }
            }
        }
    }
}

/// The runs of a screen row cover exactly the screen's width; a row past the bottom has none.
fn check_runs(runs: &[StyledRun], row: u16, size: Size) {
    if row >= size.rows {
        assert!(
            runs.is_empty(),
            "row_runs of row {row} past the bottom of {size:?}"
        );
        return;
    }
    let cols: u32 = runs.iter().map(|r| u32::from(r.cols)).sum();
    assert_eq!(
        cols,
        u32::from(size.cols),
        "row {row}'s runs cover {cols} columns of {size:?}: {runs:?}"
    );
    for r in runs {
        assert!(
            !r.wide || r.cols == 2,
            "a wide run covers exactly two columns: {r:?}"
        );
    }
}

fn check_frame(t: &mut Terminal, view: View, requested: usize) {
    let size = t.size();
    let alt = t.modes().alternate_screen;
    let f = t.frame(view);
    assert!(
        f.history_lines <= requested,
        "frame history {} > requested {requested}",
        f.history_lines
    );
    assert!(
        !alt || f.history_lines == 0,
        "the alternate screen has no history"
    );
    assert_eq!(
        f.rows.len(),
        f.history_lines + usize::from(size.rows),
        "frame rows = history + screen"
    );
    assert_eq!(f.text, join_rows(&f.rows), "frame text is its rows joined");
    assert_eq!(
        f.content_hash,
        ScreenHash::of(&f.text),
        "content_hash is the text's hash"
    );
    if let Some((row, col)) = f.cursor {
        assert!(
            row < f.rows.len() && col <= size.cols,
            "frame cursor ({row}, {col}) outside"
        );
    }
}

/// Checked after every operation: the screen has exactly `size().rows` rows, the cursor is on
/// the screen, and history stays within the capacity.
pub fn check_invariants(t: &mut Terminal) {
    let size = t.size();
    assert_eq!(size, size.clamped(), "size() is within the limits");
    let rows = t.screen_rows();
    assert_eq!(
        rows.len(),
        usize::from(size.rows),
        "screen_rows() has exactly size().rows rows"
    );
    let c = t.cursor();
    assert!(
        c.row < size.rows && c.col <= size.cols,
        "cursor {c:?} outside {size:?}"
    );
    assert!(
        t.scrollback_rows() <= t.scrollback_capacity(),
        "history beyond capacity"
    );
}

/// The oracle beyond "no panic": [`Terminal::snapshot`] fed into a fresh terminal of the same
/// size and capacity rebuilds the same screen text, cursor, title, modes, shell state, lifetime
/// row count and command log.
///
/// `snapshot`'s doc leaves out only the main screen hidden behind the alternate screen, so the
/// visible screen is compared on both screens.
pub fn check_snapshot_round_trip(t: &mut Terminal) {
    let snap = t.snapshot();
    let mut fresh = Terminal::new(t.size(), t.scrollback_capacity());
    fresh.feed(&snap);
    assert_eq!(
        fresh.screen_text(),
        t.screen_text(),
        "snapshot round trip: screen_text"
    );
    assert_eq!(fresh.cursor(), t.cursor(), "snapshot round trip: cursor");
    assert_eq!(fresh.title(), t.title(), "snapshot round trip: title");
    assert_eq!(fresh.modes(), t.modes(), "snapshot round trip: modes");
    assert_eq!(
        fresh.shell_integration(),
        t.shell_integration(),
        "snapshot round trip: shell_integration"
    );
    assert_eq!(
        fresh.screen_top_row(),
        t.screen_top_row(),
        "snapshot round trip: screen_top_row"
    );
    assert!(
        fresh.commands().eq(t.commands()),
        "snapshot round trip: commands"
    );
    assert_eq!(
        fresh.running_command(),
        t.running_command(),
        "snapshot round trip: running_command"
    );
}

/// The inverse of the `arbitrary` derive for these types (arbitrary 1.x: enum tag a `u32`
/// little-endian mapped by `(tag * variants) >> 32`, integers little-endian, `char` a `u32`,
/// `bool` a byte whose low bit is set, `Vec` a `true` byte before each element and `false`
/// after the last, fields in order), so readable scripts become seed files.
pub mod encode {
    use super::*;

    /// The bytes that [`Script::from_bytes`] decodes to `script`.
    pub fn script(script: &Script) -> Vec<u8> {
        let mut out = Vec::new();
        dim(&mut out, script.rows);
        dim(&mut out, script.cols);
        out.push(script.scrollback);
        // The last field is decoded with `arbitrary_take_rest`, which ends at a false byte or
        // at the end of the data, so the final terminator can be left off.
        for op in &script.ops {
            out.push(1);
            self::op(&mut out, op);
        }
        out
    }

    fn tag(out: &mut Vec<u8>, index: u64, count: u64) {
        // The smallest u32 with (x * count) >> 32 == index.
        let x = (index << 32).div_ceil(count);
        out.extend_from_slice(&(x as u32).to_le_bytes());
    }

    fn boolean(out: &mut Vec<u8>, b: bool) {
        out.push(u8::from(b));
    }

    fn u16le(out: &mut Vec<u8>, v: u16) {
        out.extend_from_slice(&v.to_le_bytes());
    }

    fn chr(out: &mut Vec<u8>, c: char) {
        out.extend_from_slice(&u32::from(c).to_le_bytes());
    }

    fn list<T>(out: &mut Vec<u8>, items: &[T], mut each: impl FnMut(&mut Vec<u8>, &T)) {
        for item in items {
            out.push(1);
            each(out, item);
        }
        out.push(0);
    }

    fn dim(out: &mut Vec<u8>, d: Dim) {
        match d {
            Dim::Zero => tag(out, 0, 7),
            Dim::One => tag(out, 1, 7),
            Dim::Two => tag(out, 2, 7),
            Dim::Three => tag(out, 3, 7),
            Dim::Small(b) => {
                tag(out, 4, 7);
                out.push(b);
            }
            Dim::Byte(b) => {
                tag(out, 5, 7);
                out.push(b);
            }
            Dim::Large(v) => {
                tag(out, 6, 7);
                u16le(out, v);
            }
        }
    }

    /// Every [`Frag`], in declaration order (the order the derive numbers them).
    pub const FRAGS: &[Frag] = &[
        Frag::Csi,
        Frag::Osc,
        Frag::Dcs,
        Frag::St,
        Frag::Bel,
        Frag::Esc,
        Frag::Question,
        Frag::Greater,
        Frag::Less,
        Frag::Equals,
        Frag::Semi,
        Frag::Colon,
        Frag::SaveCursor,
        Frag::RestoreCursor,
        Frag::ReverseIndex,
        Frag::Index,
        Frag::NextLine,
        Frag::TabSet,
        Frag::FullReset,
        Frag::KeypadApplication,
        Frag::KeypadNumeric,
        Frag::G0Graphics,
        Frag::G0Ascii,
        Frag::ScreenAlignment,
        Frag::Csi8,
        Frag::Osc8Bit,
        Frag::Cr,
        Frag::Lf,
        Frag::CrLf,
        Frag::Tab,
        Frag::Backspace,
        Frag::Nul,
        Frag::Del,
        Frag::Wide,
        Frag::Combining,
        Frag::Zwj,
        Frag::RegionalIndicator,
        Frag::EmojiModifier,
        Frag::Vs16,
        Frag::Vs15,
        Frag::Emoji,
        Frag::Heart,
        Frag::ZeroWidthSpace,
        Frag::PartialUtf8,
        Frag::InvalidUtf8,
        Frag::PasteStart,
        Frag::LinkOpen,
        Frag::LinkClose,
        Frag::PromptMark,
        Frag::DoneMark,
        Frag::Cwd,
        Frag::Title,
        Frag::KittyPush,
        Frag::KittyPop,
        Frag::KittyQuery,
        Frag::CursorReport,
        Frag::DeviceAttributes,
    ];

    fn frag(out: &mut Vec<u8>, f: Frag) {
        let i = FRAGS
            .iter()
            .position(|&g| g == f)
            .expect("FRAGS lists every fragment");
        tag(out, i as u64, FRAGS.len() as u64);
    }

    fn mode_number(out: &mut Vec<u8>, m: ModeNumber) {
        const N: u64 = 11;
        let i = match m {
            ModeNumber::ApplicationCursor => 0,
            ModeNumber::InsertOrOrigin => 1,
            ModeNumber::Autowrap => 2,
            ModeNumber::ShowCursor => 3,
            ModeNumber::AltScreen47 => 4,
            ModeNumber::AltScreen1049 => 5,
            ModeNumber::Mouse1000 => 6,
            ModeNumber::MouseSgr1006 => 7,
            ModeNumber::BracketedPaste => 8,
            ModeNumber::SynchronizedOutput => 9,
            ModeNumber::Other(n) => {
                tag(out, 10, N);
                u16le(out, n);
                return;
            }
        };
        tag(out, i, N);
    }

    /// Appends one [`Piece`].
    pub fn piece(out: &mut Vec<u8>, p: &Piece) {
        const N: u64 = 14;
        match p {
            Piece::Frag(f) => {
                tag(out, 0, N);
                frag(out, *f);
            }
            Piece::Num(n) => {
                tag(out, 1, N);
                u16le(out, *n);
            }
            Piece::Final(b) => {
                tag(out, 2, N);
                out.push(*b);
            }
            Piece::Intermediate(b) => {
                tag(out, 3, N);
                out.push(*b);
            }
            Piece::Control(b) => {
                tag(out, 4, N);
                out.push(*b);
            }
            Piece::Byte(b) => {
                tag(out, 5, N);
                out.push(*b);
            }
            Piece::Char(c) => {
                tag(out, 6, N);
                chr(out, *c);
            }
            Piece::Lines(n) => {
                tag(out, 7, N);
                out.push(*n);
            }
            Piece::Mode {
                private,
                mode,
                set,
                query,
            } => {
                tag(out, 8, N);
                boolean(out, *private);
                mode_number(out, *mode);
                boolean(out, *set);
                boolean(out, *query);
            }
            Piece::Sgr(params) => {
                tag(out, 9, N);
                list(out, params, |o, b| o.push(*b));
            }
            Piece::CursorTo(r, c) => {
                tag(out, 10, N);
                u16le(out, *r);
                u16le(out, *c);
            }
            Piece::ScrollRegion(t, b) => {
                tag(out, 11, N);
                u16le(out, *t);
                u16le(out, *b);
            }
            Piece::CursorStyle(n) => {
                tag(out, 12, N);
                out.push(*n);
            }
            Piece::Repeat(n) => {
                tag(out, 13, N);
                out.push(*n);
            }
        }
    }

    fn fuzz_key(out: &mut Vec<u8>, k: FuzzKey) {
        const N: u64 = 17;
        let i = match k {
            FuzzKey::Char(c) => {
                tag(out, 0, N);
                chr(out, c);
                return;
            }
            FuzzKey::Enter => 1,
            FuzzKey::LineFeed => 2,
            FuzzKey::Tab => 3,
            FuzzKey::Backspace => 4,
            FuzzKey::Escape => 5,
            FuzzKey::Insert => 6,
            FuzzKey::Delete => 7,
            FuzzKey::Home => 8,
            FuzzKey::End => 9,
            FuzzKey::PageUp => 10,
            FuzzKey::PageDown => 11,
            FuzzKey::ArrowUp => 12,
            FuzzKey::ArrowDown => 13,
            FuzzKey::ArrowLeft => 14,
            FuzzKey::ArrowRight => 15,
            FuzzKey::F(n) => {
                tag(out, 16, N);
                out.push(n);
                return;
            }
        };
        tag(out, i, N);
    }

    fn mods(out: &mut Vec<u8>, m: FuzzMods) {
        for b in [m.ctrl, m.alt, m.shift, m.meta] {
            boolean(out, b);
        }
    }

    fn name_part(out: &mut Vec<u8>, p: &NamePart) {
        const N: u64 = 8;
        let i = match p {
            NamePart::Ctrl => 0,
            NamePart::Shift => 1,
            NamePart::Alt => 2,
            NamePart::BrokerCtrl => 3,
            NamePart::BrokerMeta => 4,
            NamePart::ArrowLeft => 5,
            NamePart::F => 6,
            NamePart::Char(c) => {
                tag(out, 7, N);
                chr(out, *c);
                return;
            }
        };
        tag(out, i, N);
    }

    fn offset(out: &mut Vec<u8>, o: Offset) {
        const N: u64 = 5;
        match o {
            Offset::Live => tag(out, 0, N),
            Offset::One => tag(out, 1, N),
            Offset::Half => tag(out, 2, N),
            Offset::All => tag(out, 3, N),
            Offset::Past(n) => {
                tag(out, 4, N);
                u16le(out, n);
            }
        }
    }

    fn read(out: &mut Vec<u8>, r: &Read) {
        const N: u64 = 12;
        match r {
            Read::Screen => tag(out, 0, N),
            Read::Tail(n) => {
                tag(out, 1, N);
                u16le(out, *n);
            }
            Read::History(n) => {
                tag(out, 2, N);
                u16le(out, *n);
            }
            Read::ReadRows(n) => {
                tag(out, 3, N);
                boolean(out, n.is_some());
                if let Some(n) = n {
                    u16le(out, *n);
                }
            }
            Read::RowRuns(o, row) => {
                tag(out, 4, N);
                offset(out, *o);
                u16le(out, *row);
            }
            Read::AllRowRuns(o) => {
                tag(out, 5, N);
                offset(out, *o);
            }
            Read::Cell(r, c) => {
                tag(out, 6, N);
                u16le(out, *r);
                u16le(out, *c);
            }
            Read::FrameScreen => tag(out, 7, N),
            Read::FrameScrollback(n) => {
                tag(out, 8, N);
                u16le(out, *n);
            }
            Read::AttrRuns(first, max) => {
                tag(out, 9, N);
                u16le(out, *first);
                out.push(*max);
            }
            Read::Snapshot => tag(out, 10, N),
            Read::Metadata => tag(out, 11, N),
        }
    }

    fn grammar(out: &mut Vec<u8>, g: Grammar) {
        let i = match g {
            Grammar::Chord => 0,
            Grammar::Broker => 1,
            Grammar::Dom => 2,
        };
        tag(out, i, 3);
    }

    /// Appends one [`Op`].
    pub fn op(out: &mut Vec<u8>, op: &Op) {
        const N: u64 = 7;
        match op {
            Op::Feed(pieces, split) => {
                tag(out, 0, N);
                list(out, pieces, piece);
                u16le(out, *split);
            }
            Op::Resize(r, c) => {
                tag(out, 1, N);
                dim(out, *r);
                dim(out, *c);
            }
            Op::Key(k, m, echo) => {
                tag(out, 2, N);
                fuzz_key(out, *k);
                mods(out, *m);
                boolean(out, *echo);
            }
            Op::KeyName(g, parts, echo) => {
                tag(out, 3, N);
                grammar(out, *g);
                list(out, parts, name_part);
                boolean(out, *echo);
            }
            Op::Paste { text, typed, echo } => {
                tag(out, 4, N);
                list(out, text, piece);
                boolean(out, *typed);
                boolean(out, *echo);
            }
            Op::Read(r) => {
                tag(out, 5, N);
                read(out, r);
            }
            Op::Reset => tag(out, 6, N),
        }
    }
}

//! The topic-named seeds of `corpus/terminal/`, as readable scripts. `tests/fuzz_corpus.rs`
//! checks that each file on disk is the encoding of its script (and rewrites them all when
//! `WTERM_WRITE_FUZZ_SEEDS=1`), so a seed means what its name says.

use super::ops::{
    Dim, Frag, FuzzKey, FuzzMods, Grammar, ModeNumber, NamePart, Offset, Op, Piece, Read, Script,
};

use Frag as F;
use Piece as P;

fn feed(pieces: Vec<Piece>) -> Op {
    Op::Feed(pieces, 0)
}

fn text(s: &str) -> Vec<Piece> {
    s.chars().map(P::Char).collect()
}

fn frags(fs: &[Frag]) -> Vec<Piece> {
    fs.iter().map(|&f| P::Frag(f)).collect()
}

fn mode(private: bool, mode: ModeNumber, set: bool) -> Piece {
    P::Mode {
        private,
        mode,
        set,
        query: false,
    }
}

/// `CSI n1 ; n2 … [intermediate] final`: a sequence built from pieces, for the finals and
/// intermediates that have no piece of their own (DECSLRM, SL/SR, DECIC/DECDC, VPR, CBT).
fn csi(params: &[u16], intermediate: Option<u8>, final_byte: u8) -> Vec<Piece> {
    let mut out = vec![P::Frag(F::Csi)];
    for (i, &n) in params.iter().enumerate() {
        if i > 0 {
            out.push(P::Frag(F::Semi));
        }
        out.push(P::Num(n));
    }
    if let Some(b) = intermediate {
        out.push(P::Intermediate(b - 0x20));
    }
    out.push(P::Final(final_byte - 0x40));
    out
}

fn private_mode(n: u16, set: bool) -> Piece {
    mode(true, ModeNumber::Other(n), set)
}

const NO_MODS: FuzzMods = FuzzMods {
    ctrl: false,
    alt: false,
    shift: false,
    meta: false,
};

/// Every read but the snapshot (`ops::run` ends with that check anyway), so each seed
/// exercises the whole read side once at its end.
fn all_reads() -> Vec<Op> {
    [
        Read::Screen,
        Read::Tail(5),
        Read::History(3),
        Read::ReadRows(None),
        Read::ReadRows(Some(2)),
        Read::RowRuns(Offset::One, 0),
        Read::AllRowRuns(Offset::Half),
        Read::AllRowRuns(Offset::Past(7)),
        Read::Cell(0, 0),
        Read::Cell(999, 3),
        Read::FrameScreen,
        Read::FrameScrollback(4),
        Read::AttrRuns(2, 8),
        Read::Metadata,
    ]
    .into_iter()
    .map(Op::Read)
    .collect()
}

fn script(rows: Dim, cols: Dim, scrollback: u8, mut ops: Vec<Op>) -> Script {
    ops.extend(all_reads());
    Script {
        rows,
        cols,
        scrollback,
        ops,
    }
}

/// The seeds, by file name.
#[allow(clippy::eq_op)] // Final bytes are spelt as their letter minus 0x40, `b'@' - 0x40` too.
pub fn seeds() -> Vec<(&'static str, Script)> {
    let (small, wide) = (Dim::Byte(6), Dim::Byte(20));
    vec![
        (
            "csi",
            script(
                small,
                wide,
                10,
                vec![
                    feed(text("hello world")),
                    feed(vec![
                        P::CursorTo(2, 3),
                        P::Char('x'),
                        P::Frag(F::Csi),
                        P::Num(2),
                        P::Final(b'K' - 0x40),
                    ]),
                    feed(vec![
                        P::Frag(F::Csi),
                        P::Num(3),
                        P::Final(b'@' - 0x40),
                        P::Frag(F::Csi),
                        P::Num(65535),
                        P::Final(b'P' - 0x40),
                    ]),
                    feed(vec![
                        P::Frag(F::Csi),
                        P::Num(2),
                        P::Final(b'L' - 0x40),
                        P::Frag(F::Csi),
                        P::Final(b'M' - 0x40),
                        P::Frag(F::Csi),
                        P::Num(1),
                        P::Final(b'J' - 0x40),
                    ]),
                    feed(vec![
                        P::Frag(F::Csi),
                        P::Num(4),
                        P::Final(b'X' - 0x40),
                        P::Frag(F::Csi),
                        P::Num(9),
                        P::Final(b'G' - 0x40),
                        P::Frag(F::Csi),
                        P::Num(3),
                        P::Final(b'd' - 0x40),
                    ]),
                    feed(vec![
                        P::Frag(F::Csi8),
                        P::Num(2),
                        P::Final(b'S' - 0x40),
                        P::Frag(F::Csi),
                        P::Intermediate(0),
                        P::Final(b'q' - 0x40),
                    ]),
                    feed(frags(&[
                        F::CursorReport,
                        F::DeviceAttributes,
                        F::Csi,
                        F::Greater,
                        F::Csi,
                    ])),
                    feed(vec![P::Final(b'c' - 0x40)]),
                ],
            ),
        ),
        (
            "osc",
            script(
                small,
                wide,
                10,
                vec![
                    feed(frags(&[F::Title, F::Cwd, F::PromptMark, F::DoneMark])),
                    feed(vec![
                        P::Frag(F::Osc),
                        P::Num(0),
                        P::Frag(F::Semi),
                        P::Char('t'),
                        P::Frag(F::St),
                    ]),
                    feed(vec![
                        P::Frag(F::Osc),
                        P::Num(52),
                        P::Frag(F::Semi),
                        P::Char('c'),
                        P::Frag(F::Semi),
                        P::Char('?'),
                        P::Frag(F::Bel),
                    ]),
                    feed(vec![
                        P::Frag(F::Osc),
                        P::Num(52),
                        P::Frag(F::Semi),
                        P::Char('c'),
                        P::Frag(F::Semi),
                        P::Char('a'),
                        P::Char('G'),
                        P::Char('k'),
                        P::Char('='),
                        P::Frag(F::Bel),
                    ]),
                    feed(vec![
                        P::Frag(F::Osc8Bit),
                        P::Num(2),
                        P::Frag(F::Semi),
                        P::Char('\u{9c}'),
                        P::Byte(0x9c),
                    ]),
                    feed(vec![
                        P::Frag(F::Osc),
                        P::Num(7),
                        P::Frag(F::Semi),
                        P::Char('%'),
                        P::Frag(F::Esc),
                    ]),
                    feed(vec![
                        P::Char('c'),
                        P::Frag(F::Dcs),
                        P::Char('q'),
                        P::Frag(F::St),
                    ]),
                ],
            ),
        ),
        (
            "sgr",
            script(
                small,
                wide,
                10,
                vec![
                    feed(vec![
                        P::Sgr(vec![1, 2, 3, 4, 5, 7, 8, 9]),
                        P::Char('a'),
                        P::Sgr(vec![38, 5, 196]),
                        P::Char('b'),
                    ]),
                    feed(vec![
                        P::Sgr(vec![38, 2, 1, 2, 3, 48, 2, 255, 255, 255]),
                        P::Char('c'),
                        P::Sgr(vec![]),
                    ]),
                    feed(vec![
                        P::Sgr(vec![91, 101, 22, 23, 24, 25, 27, 28, 29]),
                        P::Char('d'),
                        P::Sgr(vec![0]),
                    ]),
                    feed(vec![
                        P::Frag(F::Csi),
                        P::Num(4),
                        P::Frag(F::Colon),
                        P::Num(3),
                        P::Final(b'm' - 0x40),
                        P::Char('e'),
                    ]),
                    feed(vec![
                        P::Sgr(vec![7]),
                        P::Char(' '),
                        P::Sgr(vec![48, 5]),
                        P::Char(' '),
                        P::Sgr(vec![38, 2]),
                    ]),
                ],
            ),
        ),
        (
            "graphemes",
            script(
                Dim::Byte(4),
                Dim::Byte(6),
                10,
                vec![
                    feed(frags(&[F::Wide, F::Wide, F::Wide, F::Wide])),
                    feed(vec![
                        P::Char('e'),
                        P::Frag(F::Combining),
                        P::Frag(F::Emoji),
                        P::Frag(F::EmojiModifier),
                    ]),
                    feed(frags(&[
                        F::RegionalIndicator,
                        F::RegionalIndicator,
                        F::Heart,
                        F::Vs16,
                        F::Heart,
                        F::Vs15,
                    ])),
                    feed(vec![
                        P::Frag(F::Emoji),
                        P::Frag(F::Zwj),
                        P::Frag(F::Emoji),
                        P::Frag(F::Zwj),
                        P::Frag(F::Heart),
                        P::Frag(F::Vs16),
                    ]),
                    feed(vec![
                        P::CursorTo(1, 6),
                        P::Frag(F::Wide),
                        P::Frag(F::Combining),
                        P::Frag(F::ZeroWidthSpace),
                    ]),
                    Op::Feed(
                        vec![
                            P::Frag(F::Emoji),
                            P::Frag(F::PartialUtf8),
                            P::Char('x'),
                            P::Frag(F::InvalidUtf8),
                        ],
                        2,
                    ),
                ],
            ),
        ),
        (
            "wide_last_column",
            script(
                Dim::Byte(3),
                Dim::Two,
                5,
                vec![
                    feed(vec![
                        P::Char('a'),
                        P::Frag(F::Wide),
                        P::Frag(F::Heart),
                        P::Frag(F::Vs16),
                    ]),
                    feed(vec![
                        P::CursorTo(1, 2),
                        P::Frag(F::Emoji),
                        P::Frag(F::Combining),
                    ]),
                    Op::Resize(Dim::Byte(3), Dim::One),
                    feed(frags(&[F::Wide, F::Vs16, F::Wide])),
                ],
            ),
        ),
        (
            "resize",
            script(
                small,
                wide,
                20,
                vec![
                    feed(vec![P::Lines(12), P::Char('x')]),
                    Op::Resize(Dim::Zero, Dim::Zero),
                    Op::Read(Read::Screen),
                    Op::Resize(Dim::One, Dim::Two),
                    feed(frags(&[F::Wide, F::Combining, F::CrLf])),
                    Op::Resize(Dim::Large(1000), Dim::Three),
                    Op::Resize(Dim::Three, Dim::Large(u16::MAX)),
                    feed(vec![P::Lines(4)]),
                    Op::Resize(Dim::Large(u16::MAX), Dim::Large(u16::MAX)),
                    Op::Resize(Dim::Byte(5), Dim::Byte(9)),
                ],
            ),
        ),
        (
            "reflow_wrapped_lines",
            script(
                Dim::Small(6),
                Dim::Small(12),
                8,
                vec![
                    feed(
                        [
                            text("a long line that soft-wraps "),
                            frags(&[F::Wide, F::Combining, F::Wide]),
                            vec![P::Sgr(vec![1, 31])],
                            text("red and bold"),
                            vec![P::Sgr(vec![0]), P::Frag(F::CrLf), P::Lines(9)],
                            text("0123456789ab"),
                            frags(&[F::Wide, F::Zwj, F::Wide]),
                            text("tail"),
                        ]
                        .concat(),
                    ),
                    Op::Resize(Dim::Small(6), Dim::Small(5)),
                    Op::Read(Read::Tail(40)),
                    Op::Resize(Dim::Small(6), Dim::Small(17)),
                    Op::Resize(Dim::Small(4), Dim::Three),
                    Op::Resize(Dim::Small(9), Dim::Two),
                    Op::Read(Read::History(8)),
                    Op::Resize(Dim::Small(6), Dim::Small(12)),
                ],
            ),
        ),
        (
            "reflow_cursor_and_alt_screen",
            script(
                Dim::Small(5),
                Dim::Small(10),
                4,
                vec![
                    feed(
                        [
                            text("0123456789abcdefghij"),
                            frags(&[F::Wide, F::Wide]),
                            vec![P::CursorTo(2, 3), P::Frag(F::SaveCursor)],
                            vec![P::CursorTo(3, 7)],
                        ]
                        .concat(),
                    ),
                    Op::Resize(Dim::Small(5), Dim::Small(7)),
                    feed(vec![
                        mode(true, ModeNumber::AltScreen1049, true),
                        P::Lines(3),
                        P::Char('x'),
                    ]),
                    Op::Resize(Dim::Small(3), Dim::Small(23)),
                    Op::Read(Read::Snapshot),
                    feed(vec![mode(true, ModeNumber::AltScreen1049, false)]),
                    Op::Resize(Dim::Small(5), Dim::Three),
                    feed(vec![P::Frag(F::RestoreCursor), P::Char('Z')]),
                    Op::Resize(Dim::Small(5), Dim::Small(10)),
                ],
            ),
        ),
        (
            "alt_screen",
            script(
                small,
                wide,
                10,
                vec![
                    feed(vec![P::Lines(8), P::Char('m')]),
                    feed(vec![
                        mode(true, ModeNumber::AltScreen1049, true),
                        P::Char('A'),
                        P::CursorTo(3, 4),
                    ]),
                    Op::Read(Read::Snapshot),
                    Op::Read(Read::FrameScrollback(10)),
                    feed(vec![
                        mode(true, ModeNumber::AltScreen1049, false),
                        mode(true, ModeNumber::AltScreen47, true),
                        P::Char('B'),
                    ]),
                    feed(vec![
                        mode(true, ModeNumber::AltScreen47, false),
                        P::Char('C'),
                    ]),
                    feed(vec![
                        mode(true, ModeNumber::AltScreen1049, true),
                        mode(true, ModeNumber::AltScreen1049, true),
                    ]),
                ],
            ),
        ),
        (
            "scroll_region",
            script(
                small,
                wide,
                10,
                vec![
                    feed(vec![
                        P::Lines(6),
                        P::ScrollRegion(2, 4),
                        P::CursorTo(4, 1),
                        P::Lines(3),
                    ]),
                    feed(vec![
                        P::Frag(F::ReverseIndex),
                        P::Frag(F::ReverseIndex),
                        P::Frag(F::Index),
                        P::Frag(F::NextLine),
                    ]),
                    feed(vec![
                        P::ScrollRegion(5, 2),
                        P::ScrollRegion(0, 0),
                        P::ScrollRegion(1, 65535),
                    ]),
                    feed(vec![
                        mode(true, ModeNumber::InsertOrOrigin, true),
                        P::ScrollRegion(3, 5),
                        P::CursorTo(1, 1),
                        P::Char('o'),
                    ]),
                ],
            ),
        ),
        (
            "modes",
            script(
                small,
                Dim::Byte(8),
                10,
                vec![
                    feed(vec![mode(true, ModeNumber::Autowrap, false), P::Lines(1)]),
                    feed(text("0123456789abc")),
                    feed(vec![
                        mode(true, ModeNumber::Autowrap, true),
                        mode(false, ModeNumber::InsertOrOrigin, true),
                        P::Frag(F::Cr),
                        P::Char('I'),
                    ]),
                    feed(vec![
                        mode(true, ModeNumber::SynchronizedOutput, true),
                        P::Char('s'),
                        mode(true, ModeNumber::SynchronizedOutput, false),
                    ]),
                    feed(vec![P::Mode {
                        private: true,
                        mode: ModeNumber::SynchronizedOutput,
                        set: true,
                        query: true,
                    }]),
                    feed(vec![P::Mode {
                        private: false,
                        mode: ModeNumber::Other(20),
                        set: true,
                        query: true,
                    }]),
                    feed(vec![
                        mode(true, ModeNumber::ShowCursor, false),
                        mode(true, ModeNumber::Mouse1000, true),
                        mode(true, ModeNumber::MouseSgr1006, true),
                    ]),
                    feed(vec![
                        mode(true, ModeNumber::ApplicationCursor, true),
                        mode(true, ModeNumber::BracketedPaste, true),
                        P::Frag(F::KeypadApplication),
                    ]),
                    feed(vec![
                        mode(true, ModeNumber::Other(65535), true),
                        mode(false, ModeNumber::Other(0), false),
                    ]),
                ],
            ),
        ),
        (
            "cursor_style_rep",
            script(
                small,
                wide,
                10,
                vec![
                    feed(vec![
                        P::CursorStyle(0),
                        P::CursorStyle(2),
                        P::CursorStyle(5),
                        P::CursorStyle(255),
                    ]),
                    feed(vec![
                        P::Char('z'),
                        P::Repeat(5),
                        P::Frag(F::Wide),
                        P::Repeat(3),
                        P::Frag(F::Csi),
                        P::Num(65535),
                        P::Final(b'b' - 0x40),
                    ]),
                    feed(vec![
                        P::Frag(F::Tab),
                        P::Frag(F::TabSet),
                        P::Frag(F::Csi),
                        P::Num(3),
                        P::Final(b'g' - 0x40),
                        P::Frag(F::Tab),
                    ]),
                ],
            ),
        ),
        (
            "dec_graphics",
            script(
                small,
                wide,
                10,
                vec![
                    feed(vec![
                        P::Frag(F::G0Graphics),
                        P::Char('l'),
                        P::Char('q'),
                        P::Char('k'),
                        P::Frag(F::G0Ascii),
                        P::Char('q'),
                    ]),
                    feed(vec![
                        P::Control(0x0e),
                        P::Char('x'),
                        P::Control(0x0f),
                        P::Frag(F::ScreenAlignment),
                    ]),
                ],
            ),
        ),
        (
            "links",
            script(
                small,
                wide,
                10,
                vec![
                    feed(vec![
                        P::Frag(F::LinkOpen),
                        P::Char('L'),
                        P::Char('K'),
                        P::Frag(F::LinkClose),
                        P::Char(' '),
                    ]),
                    feed(vec![
                        P::Frag(F::Osc),
                        P::Num(8),
                        P::Frag(F::Semi),
                        P::Frag(F::Semi),
                        P::Char('j'),
                        P::Char(':'),
                        P::Frag(F::St),
                        P::Char('x'),
                    ]),
                ],
            ),
        ),
        (
            "kitty_keys",
            script(
                small,
                wide,
                10,
                vec![
                    Op::Key(
                        FuzzKey::Char('c'),
                        FuzzMods {
                            ctrl: true,
                            ..NO_MODS
                        },
                        true,
                    ),
                    feed(frags(&[F::KittyPush, F::KittyQuery])),
                    Op::Key(
                        FuzzKey::Char('c'),
                        FuzzMods {
                            ctrl: true,
                            ..NO_MODS
                        },
                        true,
                    ),
                    Op::Key(
                        FuzzKey::F(3),
                        FuzzMods {
                            shift: true,
                            ..NO_MODS
                        },
                        false,
                    ),
                    feed(vec![
                        P::Frag(F::Csi),
                        P::Frag(F::Greater),
                        P::Num(8),
                        P::Final(b'u' - 0x40),
                    ]),
                    Op::Key(FuzzKey::Char('a'), NO_MODS, true),
                    Op::Key(
                        FuzzKey::Escape,
                        FuzzMods {
                            alt: true,
                            meta: true,
                            ..NO_MODS
                        },
                        false,
                    ),
                    feed(frags(&[F::KittyPop, F::KittyPop, F::KittyPop])),
                ],
            ),
        ),
        (
            "keys",
            script(
                small,
                wide,
                10,
                vec![
                    Op::Key(FuzzKey::ArrowUp, NO_MODS, true),
                    feed(vec![mode(true, ModeNumber::ApplicationCursor, true)]),
                    Op::Key(FuzzKey::ArrowLeft, NO_MODS, true),
                    Op::Key(
                        FuzzKey::F(0),
                        FuzzMods {
                            ctrl: true,
                            shift: true,
                            alt: true,
                            meta: true,
                        },
                        true,
                    ),
                    Op::Key(FuzzKey::F(13), NO_MODS, true),
                    Op::Key(
                        FuzzKey::Char('\u{1b}'),
                        FuzzMods {
                            ctrl: true,
                            ..NO_MODS
                        },
                        true,
                    ),
                    Op::KeyName(
                        Grammar::Chord,
                        vec![NamePart::Ctrl, NamePart::Shift, NamePart::ArrowLeft],
                        true,
                    ),
                    Op::KeyName(
                        Grammar::Chord,
                        vec![NamePart::Ctrl, NamePart::Char('+')],
                        true,
                    ),
                    Op::KeyName(
                        Grammar::Broker,
                        vec![NamePart::BrokerCtrl, NamePart::Char('x')],
                        true,
                    ),
                    Op::KeyName(
                        Grammar::Broker,
                        vec![
                            NamePart::BrokerMeta,
                            NamePart::F,
                            NamePart::Char('1'),
                            NamePart::Char('2'),
                        ],
                        true,
                    ),
                    Op::KeyName(Grammar::Dom, vec![NamePart::ArrowLeft], true),
                    Op::KeyName(
                        Grammar::Chord,
                        vec![NamePart::Alt, NamePart::F, NamePart::Char('0')],
                        true,
                    ),
                ],
            ),
        ),
        (
            "paste",
            script(
                small,
                wide,
                10,
                vec![
                    Op::Paste {
                        text: text("a\r\nb\nc"),
                        typed: false,
                        echo: true,
                    },
                    feed(vec![mode(true, ModeNumber::BracketedPaste, true)]),
                    Op::Paste {
                        text: vec![
                            P::Char('x'),
                            P::Frag(F::PasteStart),
                            P::Frag(F::Esc),
                            P::Frag(F::Lf),
                        ],
                        typed: false,
                        echo: true,
                    },
                    Op::Paste {
                        text: text("one line"),
                        typed: true,
                        echo: true,
                    },
                    Op::Paste {
                        text: vec![P::Frag(F::InvalidUtf8), P::Frag(F::Cr)],
                        typed: true,
                        echo: true,
                    },
                ],
            ),
        ),
        (
            "history",
            script(
                Dim::Byte(4),
                Dim::Byte(10),
                6,
                vec![
                    feed(vec![P::Lines(30)]),
                    feed(text("a long line that soft-wraps over several rows")),
                    Op::Read(Read::History(200)),
                    Op::Read(Read::Tail(10_000)),
                    Op::Read(Read::AllRowRuns(Offset::All)),
                    feed(vec![P::Frag(F::Csi), P::Num(3), P::Final(b'J' - 0x40)]),
                ],
            ),
        ),
        (
            "short_line_flood",
            script(
                Dim::Byte(5),
                Dim::Byte(9),
                40,
                vec![
                    Op::Feed(vec![P::Lines(140)], 333),
                    feed(vec![P::Sgr(vec![41]), P::Lines(131), P::Sgr(vec![0])]),
                    Op::Read(Read::History(200)),
                    feed(vec![private_mode(1049, true), P::Lines(150)]),
                ],
            ),
        ),
        (
            "chunking",
            script(
                small,
                wide,
                10,
                vec![
                    Op::Feed(
                        vec![
                            P::Frag(F::Csi),
                            P::Num(31),
                            P::Final(b'm' - 0x40),
                            P::Char('r'),
                        ],
                        3,
                    ),
                    Op::Feed(vec![P::Frag(F::Wide), P::Frag(F::Vs16), P::Char('w')], 4),
                    Op::Feed(frags(&[F::Esc]), 0),
                    Op::Feed(vec![P::Char('c'), P::Char('z')], 0),
                    Op::Feed(vec![P::Frag(F::Title), P::Frag(F::Emoji)], 9),
                ],
            ),
        ),
        (
            "reset",
            script(
                small,
                wide,
                10,
                vec![
                    feed(vec![
                        P::Lines(9),
                        P::Frag(F::Title),
                        P::Frag(F::KittyPush),
                        mode(true, ModeNumber::AltScreen1049, true),
                    ]),
                    feed(frags(&[F::FullReset])),
                    feed(vec![
                        P::Char('r'),
                        P::Frag(F::SaveCursor),
                        P::CursorTo(3, 3),
                        P::Frag(F::RestoreCursor),
                    ]),
                    Op::Reset,
                    feed(vec![P::Frag(F::Esc), P::Frag(F::Esc), P::Char('c')]),
                ],
            ),
        ),
        (
            "controls",
            script(
                small,
                wide,
                10,
                vec![
                    feed((0u8..32).map(P::Control).collect()),
                    feed(vec![
                        P::Byte(0x84),
                        P::Byte(0x85),
                        P::Byte(0x88),
                        P::Byte(0x8d),
                        P::Byte(0x90),
                        P::Byte(0x9c),
                        P::Frag(F::Del),
                        P::Frag(F::Nul),
                    ]),
                    feed(frags(&[
                        F::Backspace,
                        F::Backspace,
                        F::Tab,
                        F::Tab,
                        F::Tab,
                        F::Tab,
                        F::Cr,
                        F::Lf,
                    ])),
                ],
            ),
        ),
        (
            "tiny_screen",
            script(
                Dim::One,
                Dim::One,
                0,
                vec![
                    feed(vec![
                        P::Char('a'),
                        P::Frag(F::Wide),
                        P::Frag(F::Combining),
                        P::Frag(F::Vs16),
                        P::Lines(3),
                    ]),
                    feed(vec![
                        P::CursorTo(65535, 65535),
                        P::Char('b'),
                        P::ScrollRegion(1, 1),
                        P::Frag(F::ReverseIndex),
                    ]),
                    Op::Resize(Dim::Zero, Dim::One),
                ],
            ),
        ),
        (
            // DECLRMM (mode 69) and DECSLRM with everything the margins constrain: printing and
            // autowrap at the right margin, CR, ICH/DCH, IL/DL, SU/SD, SL/SR and DECIC/DECDC.
            "lr_margins",
            script(
                small,
                Dim::Byte(12),
                10,
                vec![
                    feed(vec![P::Lines(6), private_mode(69, true)]),
                    feed([csi(&[3, 8], None, b's'), text("abcdefghijk")].concat()),
                    feed(
                        [
                            vec![P::Frag(F::Cr)],
                            csi(&[2], None, b'@'),
                            csi(&[1], None, b'P'),
                            csi(&[1], None, b'L'),
                            csi(&[1], None, b'M'),
                            csi(&[1], None, b'S'),
                            csi(&[1], None, b'T'),
                        ]
                        .concat(),
                    ),
                    feed(
                        [
                            csi(&[2], Some(b' '), b'@'),
                            csi(&[1], Some(b' '), b'A'),
                            csi(&[2], Some(b'\''), b'}'),
                            csi(&[1], Some(b'\''), b'~'),
                        ]
                        .concat(),
                    ),
                    feed(
                        [
                            vec![mode(true, ModeNumber::InsertOrOrigin, true)],
                            csi(&[9, 1], None, b's'),
                            vec![P::CursorTo(99, 99), P::Char('o')],
                            csi(&[], None, b's'),
                            vec![private_mode(69, false), P::Char('p')],
                        ]
                        .concat(),
                    ),
                ],
            ),
        ),
        (
            // Reverse wraparound (mode 45): BS and CUB across rows, from the home position,
            // inside a scroll region and at a left margin.
            "reverse_wrap",
            script(
                small,
                Dim::Byte(6),
                10,
                vec![
                    feed(vec![private_mode(45, true), P::Lines(2)]),
                    feed(
                        [
                            text("abcdefgh"),
                            vec![P::Frag(F::Backspace); 4],
                            csi(&[9], None, b'D'),
                            vec![P::CursorTo(1, 1), P::Frag(F::Backspace), P::Char('x')],
                        ]
                        .concat(),
                    ),
                    feed(
                        [
                            vec![P::ScrollRegion(2, 4), P::CursorTo(2, 1)],
                            csi(&[0], None, b'D'),
                            vec![private_mode(69, true)],
                            csi(&[3, 5], None, b's'),
                            vec![P::CursorTo(2, 3), P::Frag(F::Backspace), P::Char('y')],
                        ]
                        .concat(),
                    ),
                    feed(vec![private_mode(45, false), P::Frag(F::Backspace)]),
                ],
            ),
        ),
        (
            // REP after wide and combining characters and across the edge, VPR past the
            // bottom, HT and CBT with a pending wrap and at margins.
            "rep_vpr_tabs",
            script(
                small,
                Dim::Byte(10),
                10,
                vec![
                    feed(vec![P::Frag(F::Wide), P::Repeat(7), P::Char('e')]),
                    feed(vec![P::Frag(F::Combining), P::Repeat(3), P::Frag(F::Lf)]),
                    feed([text("0123456789"), csi(&[], None, b'Z'), vec![P::Char('z')]].concat()),
                    feed(
                        [
                            text("0123456789"),
                            vec![P::Frag(F::Tab), P::Char('t')],
                            csi(&[5], None, b'e'),
                            csi(&[99], None, b'e'),
                            vec![mode(true, ModeNumber::Autowrap, false), P::Frag(F::Wide)],
                            vec![P::Repeat(9)],
                        ]
                        .concat(),
                    ),
                    feed(
                        [
                            vec![
                                mode(true, ModeNumber::Autowrap, true),
                                private_mode(69, true),
                            ],
                            csi(&[2, 7], None, b's'),
                            vec![P::CursorTo(1, 7), P::Frag(F::Tab), P::Frag(F::Tab)],
                            csi(&[3], None, b'Z'),
                            vec![P::Char('c')],
                        ]
                        .concat(),
                    ),
                ],
            ),
        ),
        (
            // The alternate screen's three modes with DECSC/DECRC saved on each screen, a
            // pending wrap and origin mode carried across the switches.
            "alt_screen_save_restore",
            script(
                small,
                Dim::Byte(8),
                10,
                vec![
                    feed(vec![
                        P::Lines(7),
                        P::Char('m'),
                        P::CursorTo(2, 8),
                        P::Char('w'),
                        P::Frag(F::SaveCursor),
                    ]),
                    feed(vec![
                        mode(true, ModeNumber::AltScreen1049, true),
                        P::Frag(F::RestoreCursor),
                        P::Char('A'),
                        mode(true, ModeNumber::InsertOrOrigin, true),
                        P::Frag(F::SaveCursor),
                    ]),
                    feed(vec![
                        private_mode(1047, true),
                        P::Frag(F::RestoreCursor),
                        P::Char('B'),
                        private_mode(1047, false),
                        mode(true, ModeNumber::AltScreen47, true),
                        P::Frag(F::RestoreCursor),
                        P::Char('C'),
                    ]),
                    feed(vec![
                        mode(true, ModeNumber::AltScreen47, false),
                        mode(true, ModeNumber::AltScreen1049, false),
                        P::Frag(F::RestoreCursor),
                        P::Char('D'),
                        private_mode(1048, true),
                        private_mode(1048, false),
                    ]),
                ],
            ),
        ),
        (
            "large_screen",
            script(
                Dim::Large(1000),
                Dim::Small(4),
                255,
                vec![
                    feed(vec![P::CursorTo(1000, 4), P::Char('x'), P::Lines(40)]),
                    Op::Resize(Dim::Small(3), Dim::Large(1000)),
                    feed(vec![P::CursorTo(3, 1000), P::Frag(F::Wide), P::Repeat(255)]),
                ],
            ),
        ),
    ]
}

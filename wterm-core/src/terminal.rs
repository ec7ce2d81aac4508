//! [`Terminal`]: the emulator model's public face. The state and its operations live in
//! `screen.rs`, the parser boundary in `vt/`, cell storage in `grid.rs`.

use std::borrow::Cow;

use crate::cmdlog::{Author, CommandOutput, CommandRecord};
use crate::grid::{CellStyle, Row, WIDE, WIDE_CONT};
use crate::limits::{
    DEFAULT_SCROLLBACK_ROWS, MAX_COLS, MAX_OSC_BYTES, MAX_ROWS, MAX_SCROLLBACK_ROWS,
    MAX_TAIL_LINES, MIN_COLS, MIN_ROWS,
};
use crate::modes::{CursorShape, Modes};
use crate::screen::{Charset, Screen, MOUSE_MODES};
use crate::{unicode, vt};

/// A terminal size in cells. `rows` and `cols` are counts, at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Size {
    /// Height in rows.
    pub rows: u16,
    /// Width in columns.
    pub cols: u16,
}

impl Size {
    /// A size of `rows` × `cols`.
    pub const fn new(rows: u16, cols: u16) -> Self {
        Size { rows, cols }
    }

    /// This size with each side moved into the accepted range ([`MIN_ROWS`]..=[`MAX_ROWS`],
    /// [`MIN_COLS`]..=[`MAX_COLS`]).
    pub fn clamped(self) -> Self {
        Size {
            rows: self.rows.clamp(MIN_ROWS, MAX_ROWS),
            cols: self.cols.clamp(MIN_COLS, MAX_COLS),
        }
    }
}

impl Default for Size {
    /// 24 rows × 80 columns, the VT100's screen.
    fn default() -> Self {
        Size { rows: 24, cols: 80 }
    }
}

/// The cursor: 0-based `row` and `col` within the visible screen, and whether it is shown
/// (DECTCEM, `CSI ? 25 h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// 0-based row from the top of the screen.
    pub row: u16,
    /// 0-based column from the left.
    pub col: u16,
    /// False while the program has hidden it (`CSI ? 25 l`).
    pub visible: bool,
}

/// A color as the program set it with SGR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Color {
    /// The terminal's default foreground or background.
    #[default]
    Default,
    /// An entry of the 256-color palette (0-15 are the ANSI colors; SGR 30-37, 90-97, 38;5;N).
    Indexed(u8),
    /// A truecolor value (SGR 38;2;R;G;B).
    Rgb(u8, u8, u8),
}

/// The colors a program may ask for with OSC 10, 11 and 12 (xterm's "dynamic colors":
/// default foreground, default background, cursor), each as `[red, green, blue]`. The adapter
/// that draws sets them from its theme ([`Terminal::set_dynamic_colors`]); a program asks with
/// `OSC 11 ; ? ST` (to pick a dark or light scheme) and gets `OSC 11 ; rgb:RRRR/GGGG/BBBB ST`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DynamicColors {
    /// OSC 10: the default foreground.
    pub foreground: [u8; 3],
    /// OSC 11: the default background.
    pub background: [u8; 3],
    /// OSC 12: the cursor.
    pub cursor: [u8; 3],
}

impl DynamicColors {
    /// The page's default theme (`--wterm-fg` #d4d4d4 on `--wterm-bg` #1e1e1e, a cursor in the
    /// foreground color); what the relay answers, since it draws nothing itself.
    pub const DEFAULT: DynamicColors = DynamicColors {
        foreground: [0xd4, 0xd4, 0xd4],
        background: [0x1e, 0x1e, 0x1e],
        cursor: [0xd4, 0xd4, 0xd4],
    };
}

impl Default for DynamicColors {
    /// [`DynamicColors::DEFAULT`].
    fn default() -> Self {
        DynamicColors::DEFAULT
    }
}

/// The drawing style of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Style {
    /// Foreground color.
    pub fg: Color,
    /// Background color.
    pub bg: Color,
    /// SGR 1.
    pub bold: bool,
    /// SGR 2 (faint).
    pub dim: bool,
    /// SGR 3.
    pub italic: bool,
    /// SGR 4.
    pub underline: bool,
    /// SGR 7 (reverse video): the renderer swaps `fg` and `bg`.
    pub inverse: bool,
    /// SGR 5 (slow) or 6 (rapid) blink.
    pub blink: bool,
    /// SGR 8 (concealed): the text is present for reading but drawn invisible.
    pub hidden: bool,
    /// SGR 9 (crossed out).
    pub strikethrough: bool,
    /// The OSC 8 hyperlink the cell belongs to; look its URI up with [`Terminal::link_uri`].
    /// Only `http:` and `https:` URIs become links.
    pub link: Option<LinkId>,
}

/// An OSC 8 hyperlink's id within one [`Terminal`] (ids are reused only after a reset).
pub type LinkId = core::num::NonZeroU16;

/// One cell of [`Terminal::line_cells`]: its text ("" blank), width (1; 2 a wide character;
/// 0 its second half) and style.
pub type LineCell = (String, u8, Style);

/// A run of adjacent cells of one row that share a [`Style`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StyledRun {
    /// The cells' text; an empty cell contributes a space, a wide character appears once.
    pub text: String,
    /// Columns the run covers (a wide character covers two).
    pub cols: u16,
    /// The style shared by every cell of the run.
    pub style: Style,
    /// The run is exactly one wide character (CJK, most emoji) covering two columns; the
    /// renderer must give it two cells. Narrow cells never share a run with a wide one.
    pub wide: bool,
}

/// Shell integration state from OSC 133 (FinalTerm marks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShellIntegration {
    /// The last mark seen.
    pub state: ShellState,
    /// The exit status given with `D`, when the shell gave one.
    pub exit_code: Option<i32>,
}

/// The phase of the shell, from the last OSC 133 mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellState {
    /// `A`: the prompt is being drawn.
    Prompt,
    /// `B`: the user is typing a command.
    Input,
    /// `C`: the command is running.
    Running,
    /// `D`: the command finished.
    Done,
}

impl ShellState {
    /// The wire name (`"prompt"`, `"input"`, `"running"`, `"done"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ShellState::Prompt => "prompt",
            ShellState::Input => "input",
            ShellState::Running => "running",
            ShellState::Done => "done",
        }
    }
}

/// The state of a progress indicator (ConEmu's `OSC 9 ; 4 ; st ; pr ST`, also read by Windows
/// Terminal; xterm.js's progress addon numbers the states the same way). The discriminant is the
/// wire number `st`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ProgressState {
    /// `0`: no progress shown (the indicator is removed).
    #[default]
    Remove = 0,
    /// `1`: normal progress at `value` percent.
    Set = 1,
    /// `2`: the task failed (shown in red by Windows Terminal).
    Error = 2,
    /// `3`: busy, with no known percentage.
    Indeterminate = 3,
    /// `4`: paused, or a warning (shown in yellow).
    Paused = 4,
}

/// A progress report (`OSC 9 ; 4 ; st ; pr ST`): the state and the percentage, 0..=100.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Progress {
    /// What the indicator shows.
    pub state: ProgressState,
    /// Percent done, 0..=100 (larger values are clamped to 100). `Remove` sets it to 0;
    /// `Indeterminate` keeps the previous value, as do `Error` and `Paused` without one (or with
    /// 0), as xterm.js's progress addon does.
    pub value: u8,
}

/// What a [`Terminal::feed`] produced besides the screen change; the caller acts on it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects {
    /// Bytes to send back to the program: replies to DSR, DA1/DA2, XTVERSION, kitty flag
    /// queries, in the order the queries arrived.
    pub replies: Vec<u8>,
    /// The title changed (OSC 0/2); read it with [`Terminal::title`].
    pub title_changed: bool,
    /// The program rang the bell (BEL).
    pub bell: bool,
    /// The program set the clipboard to this text (OSC 52, `ESC ] 52 ; c ; BASE64 ST`); the
    /// last one when it did so several times in one feed. A query (`?`) is never answered:
    /// output must not read what the user copied.
    pub clipboard: Option<String>,
    /// The program reported progress (`OSC 9 ; 4 ; st ; pr ST`); the last report when it did so
    /// several times in one feed (read the current state with [`Terminal::progress`]). Reported
    /// even when equal to the previous state, as the program sent it. Other `OSC 9` payloads
    /// (iTerm2's `OSC 9 ; text` notifications, ConEmu's other `9 ; N` commands) are ignored.
    pub progress: Option<Progress>,
}

/// One row of text as extracted for reading: the row's text with trailing spaces removed, and
/// whether it soft-wraps into the next row (the program wrote past the last column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRow {
    /// Trailing spaces trimmed; wide characters once; combining marks with their base.
    pub text: String,
    /// The line continues on the next row (autowrap).
    pub wrapped: bool,
}

/// A terminal emulator: bytes from a program in, screen state out.
///
/// Coordinates are 0-based [`Cursor`]/row indices within the visible screen. The model never
/// panics on input: sizes are clamped (see [`crate::limits`]) and every operation stays inside
/// the grid.
pub struct Terminal {
    parser: vte::Parser<MAX_OSC_BYTES>,
    pub(crate) screen: Screen,
    /// The parser is known to be in its ground state with no UTF-8 character pending, so
    /// `feed` may print ASCII and execute C0 controls itself (see [`Terminal::feed`]).
    ground: bool,
    /// The start of a UTF-8 character that ended a `feed` call, held back until the next call
    /// completes it: vte 0.15 drops the character after a sequence split across `advance`
    /// calls (alacritty/vte#159), so it is only ever given whole characters.
    utf8_tail: [u8; 4],
    utf8_tail_len: usize,
}

impl core::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Terminal")
            .field("size", &self.size())
            .finish_non_exhaustive()
    }
}

impl Default for Terminal {
    fn default() -> Self {
        Terminal::new(Size::default(), DEFAULT_SCROLLBACK_ROWS)
    }
}

impl Terminal {
    /// The memory, in bytes, that a terminal of `size` (clamped) with `scrollback_rows` of
    /// history holds once full of plain text: both screens (main and alternate) at a whole
    /// cell each, and history at 4 bytes a cell (its packed form without style changes; styled
    /// history costs more, up to 20 bytes a cell). For budgets that count terminals against a
    /// total (the relay's memory budget), not an exact figure.
    pub fn memory_bound(size: Size, scrollback_rows: usize) -> u64 {
        let size = size.clamped();
        let cols = u64::from(size.cols);
        let screens =
            2 * cols * u64::from(size.rows) * std::mem::size_of::<crate::grid::Cell>() as u64;
        let history = cols * scrollback_rows.min(MAX_SCROLLBACK_ROWS) as u64 * 4;
        screens + history
    }

    /// A blank terminal of `size` (clamped, see [`Size::clamped`]) keeping up to
    /// `scrollback_rows` rows of history (at most [`MAX_SCROLLBACK_ROWS`]).
    pub fn new(size: Size, scrollback_rows: usize) -> Self {
        let size = size.clamped();
        Terminal {
            parser: vte::Parser::<MAX_OSC_BYTES>::new_with_size(),
            screen: Screen::new(size, scrollback_rows.min(MAX_SCROLLBACK_ROWS)),
            ground: true,
            utf8_tail: [0; 4],
            utf8_tail_len: 0,
        }
    }

    /// Forgets everything (screen, history, modes, title, kitty flags, command log) and starts
    /// blank at the same size, scrollback capacity, dynamic colors (the adapter's theme) and
    /// clock ([`Self::set_now_ms`]), as a freshly made terminal. Used before replaying a
    /// snapshot into a terminal that already shows something.
    pub fn reset(&mut self) {
        let colors = self.dynamic_colors();
        let now = self.screen.now_ms;
        *self = Terminal::new(self.size(), self.scrollback_capacity());
        self.set_dynamic_colors(colors);
        self.set_now_ms(now);
    }

    /// Parses program output. Any chunking works: a UTF-8 character or an escape sequence split
    /// across calls is completed by the next call. Returns the replies and events it caused.
    pub fn feed(&mut self, bytes: &[u8]) -> Effects {
        // vte hands printable characters over one `print` call at a time. While the parser is
        // in ground state (it leaves it only on ESC), runs of printable ASCII are written here
        // a row segment at a time and C0 controls executed directly, exactly as vte would
        // dispatch them; vte takes over from each ESC or non-ASCII byte until a sequence is
        // known to have ended in ground again (`Perform::terminated`).
        let mut i = 0;
        if self.utf8_tail_len > 0 {
            let held = self.utf8_tail_len;
            let need = vt::utf8_len(self.utf8_tail[0]) - held;
            let taken = bytes
                .iter()
                .take(need)
                .take_while(|&&b| b & 0xc0 == 0x80)
                .count();
            self.utf8_tail[held..held + taken].copy_from_slice(&bytes[..taken]);
            // Held on only while still the start of a valid character: F4 9B is not (F4 takes
            // 80..=8F next), and vte fed it prints U+FFFD at once.
            let grown = held + taken;
            if taken < need
                && taken == bytes.len()
                && vt::incomplete_utf8_suffix(&self.utf8_tail[..grown]) == grown
            {
                self.utf8_tail_len = grown;
                return self.effects();
            }
            self.utf8_tail_len = 0;
            let chunk = self.utf8_tail;
            let ground = self.ground;
            self.parse(&chunk[..held + taken]);
            // Cut short by a byte that cannot continue it, the character stays pending in vte
            // and the next byte resolves it there.
            self.ground = ground && taken == need;
            i = taken;
        }
        let end = bytes.len() - vt::incomplete_utf8_suffix(&bytes[i..]);
        self.utf8_tail_len = bytes.len() - end;
        self.utf8_tail[..self.utf8_tail_len].copy_from_slice(&bytes[end..]);
        let bytes = &bytes[..end];
        while i < bytes.len() {
            let rest = &bytes[i..];
            if !self.ground {
                i += self.parse(rest);
                continue;
            }
            if (0x20..0x7f).contains(&rest[0]) {
                let run = unicode::printable_ascii_len(rest);
                self.screen.print_ascii(&rest[..run]);
                i += run;
                continue;
            }
            match rest[0] {
                0x1b => {
                    // A whole CSI sequence of plain parameters (SGR, cursor moves, erases: most
                    // of what programs send) is read here; vte takes everything else.
                    if rest.get(1) == Some(&b'[') {
                        if let Some((params, action, n)) = vt::scan_csi(&rest[2..]) {
                            self.screen.csi(&params, &[], char::from(action));
                            i += 2 + n;
                            continue;
                        }
                    }
                    self.ground = false;
                }
                b'\r' if rest.get(1) == Some(&b'\n') => {
                    self.screen.carriage_return_linefeed();
                    i += 2;
                    i += self.screen.print_plain_lines(&bytes[i..]);
                }
                b @ 0x00..=0x1f => {
                    vte::Perform::execute(&mut self.screen, b);
                    i += 1;
                }
                0x7f => {
                    vte::Perform::print(&mut self.screen, '\x7f');
                    i += 1;
                }
                _ => {
                    // Non-ASCII text: runs of plain wide characters (CJK) written a run at a
                    // time, other characters one at a time, as vte's ground state dispatches
                    // valid text (`print` of a non-ASCII character is `print_general`). From
                    // invalid bytes on, vte takes the rest of the run; it may hold part of a
                    // character, which the next byte resolves inside vte.
                    let n = rest.iter().position(|&b| b < 0x80).unwrap_or(rest.len());
                    let run = &rest[..n];
                    let mut k = 0;
                    while k < n {
                        k += self.screen.print_wide_run(&run[k..]);
                        let Some(&lead) = run.get(k) else {
                            break;
                        };
                        let len = vt::utf8_len(lead);
                        let c = run
                            .get(k..k + len)
                            .and_then(|s| core::str::from_utf8(s).ok())
                            .and_then(|s| s.chars().next());
                        match c {
                            Some(c @ '\u{80}'..='\u{9f}') => {
                                vte::Perform::execute(&mut self.screen, c as u8)
                            }
                            Some(c) => self.screen.print_general(c),
                            None => {
                                self.parse(&run[k..]);
                                break;
                            }
                        }
                        k += len;
                    }
                    i += n;
                }
            }
        }
        self.effects()
    }

    /// vte parses `bytes` until a sequence ends in ground state (then `self.ground` is set) or
    /// the bytes run out; returns how many it took. One call site for vte's state machine,
    /// which is large and inlines wherever it is called.
    #[inline(never)]
    fn parse(&mut self, bytes: &[u8]) -> usize {
        self.screen.sequence_ended = false;
        let n = self
            .parser
            .advance_until_terminated(&mut self.screen, bytes);
        self.ground = self.screen.sequence_ended;
        n
    }

    /// [`Terminal::feed`] with every byte going through vte's own dispatch: the reference the
    /// ground-state shortcut is checked against (fuzz target, tests). Same result, slower.
    /// A character split across calls is held back here too, so that vte sees every call's
    /// bytes as one stream (see `utf8_tail`).
    #[doc(hidden)]
    pub fn feed_unbatched(&mut self, bytes: &[u8]) -> Effects {
        let held = core::mem::take(&mut self.utf8_tail_len);
        let whole = [&self.utf8_tail[..held], bytes].concat();
        let end = whole.len() - vt::incomplete_utf8_suffix(&whole);
        self.parser.advance(&mut self.screen, &whole[..end]);
        self.utf8_tail_len = whole.len() - end;
        self.utf8_tail[..self.utf8_tail_len].copy_from_slice(&whole[end..]);
        // Where it stopped is unknown now; `feed` lets vte find the next sequence end.
        self.ground = false;
        self.effects()
    }

    fn effects(&mut self) -> Effects {
        let s = &mut self.screen;
        Effects {
            replies: core::mem::take(&mut s.replies),
            title_changed: core::mem::replace(&mut s.title_changed, false),
            bell: core::mem::replace(&mut s.bell, false),
            clipboard: s.clipboard.take(),
            progress: s.progress_changed.take(),
        }
    }

    /// Resizes the screen to `size` (clamped, see [`Size::clamped`]). A new width reflows the
    /// main screen and its history: soft-wrapped lines are wrapped again at the new width, wide
    /// characters whole, the cursor, saved cursor and command-log rows on their characters
    /// (xterm.js's rules for which rows stay on screen; see `reflow.rs`). The alternate screen is
    /// cut or padded on the right instead (as xterm.js; the program redraws it). When only the
    /// height changes, shrinking drops blank rows below the cursor first, then moves rows from
    /// the top into history; growing adds rows at the bottom. The scroll region resets to the
    /// whole screen.
    pub fn resize(&mut self, size: Size) {
        self.screen.resize(size.clamped());
    }

    /// Whether the parser is known to be in its ground state with no sequence or UTF-8
    /// character pending: output fed after this point does not continue anything fed before,
    /// so a [`Terminal::snapshot`] taken now plus the output that follows rebuilds this
    /// terminal exactly (the relay's session holders rely on it). May say false while in
    /// ground (after a sequence vte finished on its own); never says true mid-sequence.
    pub fn at_ground(&self) -> bool {
        self.ground && self.utf8_tail_len == 0
    }

    /// The screen size in cells.
    pub fn size(&self) -> Size {
        self.screen.size
    }

    /// The most rows of history this terminal keeps.
    pub fn scrollback_capacity(&self) -> usize {
        self.screen.history_cap
    }

    /// Rows of history currently above the screen (0 on the alternate screen, which has none).
    pub fn scrollback_rows(&self) -> usize {
        if self.screen.alt_active {
            0
        } else {
            self.screen.history.len()
        }
    }

    /// The cursor within the visible screen.
    pub fn cursor(&self) -> Cursor {
        let b = self.screen.buf();
        Cursor {
            row: b.row,
            col: b.col,
            visible: self.screen.modes.show_cursor,
        }
    }

    /// Whether the next printed character wraps first (xterm's pending wrap).
    pub(crate) fn pending_wrap(&self) -> bool {
        self.screen.buf().pending_wrap
    }

    /// The input-affecting and display modes the program has set.
    pub fn modes(&self) -> Modes {
        let m = &self.screen.modes;
        Modes {
            application_cursor: m.app_cursor,
            application_keypad: m.app_keypad,
            bracketed_paste: m.bracketed_paste,
            alternate_screen: self.screen.alt_active,
            hide_cursor: !m.show_cursor,
            kitty_flags: self.screen.kitty_flags(),
            mouse_tracking: m.mouse_tracking(),
            mouse_encoding: m.mouse_encoding(),
            focus_events: m.focus_events,
            autowrap: m.autowrap,
            insert: m.insert,
            origin: m.origin,
            synchronized_output: m.sync,
            cursor_style: m.cursor_style,
        }
    }

    /// The URI of an OSC 8 hyperlink seen in a cell's [`Style::link`].
    pub fn link_uri(&self, id: LinkId) -> Option<&str> {
        self.screen.link_uri(id)
    }

    /// Sets the colors OSC 10/11/12 queries are answered with (the theme the adapter draws).
    /// They are configuration, not program state: a reset (RIS, [`Terminal::reset`]) keeps them.
    pub fn set_dynamic_colors(&mut self, colors: DynamicColors) {
        self.screen.dynamic_colors = colors;
    }

    /// The colors OSC 10/11/12 queries are answered with.
    pub fn dynamic_colors(&self) -> DynamicColors {
        self.screen.dynamic_colors
    }

    /// The last progress the program reported (`OSC 9 ; 4`); `Remove` with 0 until then.
    pub fn progress(&self) -> Progress {
        self.screen.progress
    }

    /// The window title the program set with OSC 0 or 2, if any.
    pub fn title(&self) -> Option<&str> {
        self.screen.title.as_deref()
    }

    /// The working directory reported with OSC 7 (`file://host/path`, decoded to the path).
    pub fn cwd(&self) -> Option<&str> {
        self.screen.cwd.as_deref()
    }

    /// The last OSC 133 shell-integration mark, if the shell sends them.
    pub fn shell_integration(&self) -> Option<ShellIntegration> {
        self.screen.shell
    }

    /// The shell's phase from the last OSC 133 / 633 mark ([`Self::shell_integration`]'s
    /// `state`), `None` before any mark and after RIS.
    pub fn shell_state(&self) -> Option<ShellState> {
        self.screen.shell.map(|s| s.state)
    }

    /// Gives the terminal the time, in milliseconds on the adapter's clock (wall clock or
    /// monotonic: the log only stores and subtracts it). The core has no clock: call this
    /// before [`Self::feed`]; shell marks in that output take this time
    /// ([`CommandRecord::start_ms`], [`CommandRecord::end_ms`]). Kept by RIS and
    /// [`Self::reset`]; 0 until first given.
    pub fn set_now_ms(&mut self, now_ms: u64) {
        self.screen.now_ms = now_ms;
    }

    /// The finished commands the log keeps, oldest first (at most [`crate::limits::MAX_COMMANDS`];
    /// the command still running is [`Self::running_command`]). See [`CommandRecord`] for how
    /// shell marks make records.
    pub fn commands(&self) -> impl DoubleEndedIterator<Item = &CommandRecord> + ExactSizeIterator {
        self.screen.log.done.iter()
    }

    /// Notes that `author` sent a line to the program with an Enter: the next command the shell
    /// starts (`C`) was submitted by them ([`CommandRecord::submitted_by`]; the newest note
    /// wins). Call it when the input goes to the program, only where no output the program
    /// wrote before it is still on its way here; otherwise put [`Author::note_sequence`] into
    /// the output stream, which keeps its place among the marks.
    pub fn note_submit(&mut self, author: Author) {
        self.screen.log.submitter = Some(author);
    }

    /// Whether the output stream says who submitted lines (it carried an
    /// [`Author::note_sequence`] or a snapshot's author): an adapter then stops calling
    /// [`Self::note_submit`] for its own input, whose note the stream brings in its place.
    pub fn authors_in_stream(&self) -> bool {
        self.screen.log.authors_in_stream
    }

    /// The newest finished command.
    pub fn last_command(&self) -> Option<&CommandRecord> {
        self.screen.log.done.back()
    }

    /// The command between its `C` mark and its end, if one is running.
    pub fn running_command(&self) -> Option<&CommandRecord> {
        self.screen.log.running.as_ref()
    }

    /// The record with this [`CommandRecord::id`], running or finished, while the log keeps it.
    pub fn command(&self, id: u64) -> Option<&CommandRecord> {
        let log = &self.screen.log;
        log.running
            .iter()
            .chain(log.done.iter().rev())
            .find(|r| r.id == id)
    }

    /// The lifetime row number of the main screen's top row: rows that ever left the top of the
    /// main screen, into history or past its bound. Screen row `r` of the main screen is row
    /// `screen_top_row() + r`; a row keeps its number as it scrolls into history. Unchanged by
    /// the alternate screen, RIS and ED 3; a resize that pushes rows into history adds them, and a
    /// reflow renumbers the rows it re-wraps (the command log follows them).
    pub fn screen_top_row(&self) -> u64 {
        self.screen.rows_scrolled
    }

    /// Whether the shell's command line holds text: `Some(false)` when the main screen's cursor
    /// is where the prompt ended (the last OSC 133 `B`), `Some(true)` when it moved on from there
    /// (someone typed), `None` when the shell is not reading a line or reported no `B`. A line
    /// typed and erased again counts as empty; a cursor moved left into typed text counts as
    /// text.
    pub fn command_line_typed(&self) -> Option<bool> {
        let (row, col) = self.screen.log.input_start?;
        if self.shell_state() != Some(ShellState::Input) || self.modes().alternate_screen {
            return None;
        }
        let m = &self.screen.main;
        Some((self.screen.rows_scrolled + u64::from(m.row), m.col) != (row, col))
    }

    /// A command's output as text, read from the rows it covers
    /// ([`CommandRecord::output_start_row`] up to its end row, or up to the cursor while it
    /// runs), on the main screen and in history; the alternate screen is never read (a
    /// full-screen program's output is not in the log). At most `max_rows` rows are returned
    /// (`usize::MAX` for all): the first half in [`CommandOutput::text`], the rest from the end
    /// in [`CommandOutput::tail`], the rows between counted. Rows no longer kept are counted in
    /// [`CommandOutput::rows_lost`].
    pub fn command_output(&self, record: &CommandRecord, max_rows: usize) -> CommandOutput {
        let s = &self.screen;
        let start = record.output_start_row;
        let end = record
            .output_end_row
            .unwrap_or_else(|| s.output_edge())
            .max(start);
        let (from, to) = self.kept_rows(start, end);
        let join = |range: core::ops::Range<u64>| {
            let rows: Vec<TextRow> = range.map(|abs| self.lifetime_row(abs)).collect();
            let mut text = join_for_search(&rows);
            text.truncate(text.trim_end_matches([' ', '\n']).len());
            text
        };
        let count = to - from;
        let max = max_rows as u64;
        let mut out = CommandOutput {
            rows: end - start,
            rows_lost: from - start,
            erased: record.erased,
            ..CommandOutput::default()
        };
        if count <= max {
            out.text = join(from..to);
        } else {
            let head = max.div_ceil(2);
            let tail = max - head;
            out.text = join(from..from + head);
            out.tail = join(to - tail..to);
            out.rows_left_out = count - max;
        }
        out
    }

    /// The part of lifetime rows `start..end` of the main screen still kept (history and
    /// screen), as a range `from..to` with `start <= from <= to <= end`.
    fn kept_rows(&self, start: u64, end: u64) -> (u64, u64) {
        let s = &self.screen;
        let top = s.rows_scrolled;
        let first_kept = top.saturating_sub(s.history.len() as u64);
        let screen_end = top + u64::from(s.size.rows);
        let from = start.max(first_kept).min(end);
        let to = end.min(screen_end).max(from);
        (from, to)
    }

    /// Lifetime row `abs` of the main screen as text (blank when it is not kept).
    fn lifetime_row(&self, abs: u64) -> TextRow {
        let s = &self.screen;
        let top = s.rows_scrolled;
        let first_kept = top.saturating_sub(s.history.len() as u64);
        let r = if abs < top {
            abs.checked_sub(first_kept)
                .and_then(|i| s.history.get(i as usize))
                .map(|h| Cow::Owned(h.unpack()))
        } else {
            s.main.rows.get((abs - top) as usize).map(Cow::Borrowed)
        };
        r.map_or(
            TextRow {
                text: String::new(),
                wrapped: false,
            },
            |r| self.text_row(&r),
        )
    }

    /// The kept lifetime rows of the main screen from `start` to `end` (`None`: to the bottom
    /// of the screen), trailing blank rows dropped ([`crate::agent::NewOutput::rows`]).
    pub(crate) fn rows_between(&self, start: u64, end: Option<u64>) -> Vec<TextRow> {
        let s = &self.screen;
        let end = end
            .unwrap_or(s.rows_scrolled + u64::from(s.size.rows))
            .max(start);
        let (from, to) = self.kept_rows(start, end);
        let mut rows: Vec<TextRow> = (from..to).map(|abs| self.lifetime_row(abs)).collect();
        let keep = rows
            .iter()
            .rposition(|r| !r.text.is_empty())
            .map_or(0, |i| i + 1);
        rows.truncate(keep);
        rows
    }

    /// The text of the cursor's row left of the cursor (wide characters once, trailing blanks
    /// kept): what a wait for new output leaves out of that row ([`crate::agent::NewOutput`]).
    pub(crate) fn cursor_row_text_before(&self) -> String {
        let b = self.screen.buf();
        let Some(row) = b.rows.get(usize::from(b.row)) else {
            return String::new();
        };
        // With a wrap pending the cursor sits on the last column, whose cell is written.
        let col = usize::from(b.col) + usize::from(self.pending_wrap());
        let n = col.min(row.cells.len());
        let mut text = String::with_capacity(n);
        for cell in &row.cells[..n] {
            if cell.flags() & WIDE_CONT == 0 {
                self.screen.clusters.push_text(cell.content(), &mut text);
            }
        }
        text
    }

    /// The row shown at screen row `row` when the view is scrolled `view_offset` rows up into
    /// history (clamped to what exists; the alternate screen has no history).
    fn view_row(&self, view_offset: usize, row: u16) -> Option<Cow<'_, Row>> {
        let s = &self.screen;
        if row >= s.size.rows {
            return None;
        }
        if s.alt_active {
            return s.alt.rows.get(usize::from(row)).map(Cow::Borrowed);
        }
        let h = s.history.len();
        let idx = h - view_offset.min(h) + usize::from(row);
        if idx < h {
            s.history.get(idx).map(|r| Cow::Owned(r.unpack()))
        } else {
            s.main.rows.get(idx - h).map(Cow::Borrowed)
        }
    }

    /// One line of history and screen together (0 = the oldest history row; the alternate
    /// screen has no history), cell by cell: whether it soft-wraps onto the next line, and per
    /// column the cell's text ("" for a blank cell and for a wide character's second half), its
    /// width (1; 2 for a wide character; 0 for its second half) and style. `None` past the last
    /// line. For adapters that expose a buffer API (the xterm.js-compatible entry).
    pub fn line_cells(&self, line: usize) -> Option<(bool, Vec<LineCell>)> {
        // The lookup of `view_row`, by absolute line: a second caller of `view_row` changed how
        // the core wasm (which never calls this) was inlined, +40 bytes gzipped.
        let s = &self.screen;
        let h = self.scrollback_rows();
        let r: Cow<'_, Row> = if line < h {
            Cow::Owned(s.history.get(line)?.unpack())
        } else {
            Cow::Borrowed(s.buf().rows.get(line - h)?)
        };
        let cols = usize::from(self.size().cols);
        let mut cells = Vec::with_capacity(cols);
        for col in 0..cols {
            let cell = r.cell_or_blank(col);
            let width = if cell.flags() & WIDE_CONT != 0 {
                0
            } else if cell.flags() & WIDE != 0 && col + 1 < cols {
                2
            } else {
                1
            };
            let mut text = String::new();
            if width != 0 && cell.content() != u32::from(b' ') {
                self.screen.clusters.push_text(cell.content(), &mut text);
            }
            cells.push((text, width, cell.style.unpack()));
        }
        Some((r.wrapped, cells))
    }

    /// Styled runs of one row of the view scrolled `view_offset` rows up into history (0 = the
    /// live screen; clamped to [`Self::scrollback_rows`]). Rows past the bottom give no runs.
    pub fn row_runs(&mut self, view_offset: usize, row: u16, out: &mut Vec<StyledRun>) {
        out.clear();
        let cols = usize::from(self.size().cols);
        let Some(r) = self.view_row(view_offset, row) else {
            return;
        };
        let clusters = &self.screen.clusters;
        let mut cur: Option<StyledRun> = None;
        let mut cur_style = CellStyle::DEFAULT;
        for col in 0..cols {
            let cell = r.cell_or_blank(col);
            if cell.flags() & WIDE_CONT != 0 {
                if let Some(run) = cur.as_mut() {
                    run.cols += 1;
                }
                continue;
            }
            // A wide cell cut by the right edge (history from a wider screen) draws narrow.
            let wide = cell.flags() & WIDE != 0 && col + 1 < cols;
            match cur.as_mut() {
                Some(run) if cur_style == cell.style && !wide && !run.wide => {
                    clusters.push_text(cell.content(), &mut run.text);
                    run.cols += 1;
                }
                _ => {
                    if let Some(run) = cur.take() {
                        out.push(run);
                    }
                    let mut text = String::new();
                    clusters.push_text(cell.content(), &mut text);
                    cur_style = cell.style;
                    cur = Some(StyledRun {
                        text,
                        cols: 1,
                        style: cell.style.unpack(),
                        wide,
                    });
                }
            }
        }
        if let Some(run) = cur {
            out.push(run);
        }
    }

    /// The style and text of the cell at a screen position (0-based), or `None` outside the
    /// screen or on the second half of a wide character. A blank cell's text is empty.
    pub fn cell(&self, row: u16, col: u16) -> Option<(String, Style)> {
        let cell = *self
            .screen
            .buf()
            .rows
            .get(usize::from(row))?
            .cells
            .get(usize::from(col))?;
        if cell.flags() & WIDE_CONT != 0 {
            return None;
        }
        let mut text = String::new();
        if cell.content() != u32::from(b' ') {
            self.screen.clusters.push_text(cell.content(), &mut text);
        }
        Some((text, cell.style.unpack()))
    }

    /// One row as text: wide characters once, blanks as spaces, trailing spaces trimmed unless
    /// the row soft-wraps (then it keeps the full width).
    fn text_row(&self, row: &Row) -> TextRow {
        let cols = usize::from(self.size().cols);
        let mut text = String::with_capacity(cols);
        let n = row.cells.len().min(cols);
        for cell in &row.cells[..n] {
            if cell.flags() & WIDE_CONT == 0 {
                self.screen.clusters.push_text(cell.content(), &mut text);
            }
        }
        if row.wrapped {
            text.extend(core::iter::repeat_n(' ', cols - n));
        } else {
            let trimmed = text.trim_end_matches(' ').len();
            text.truncate(trimmed);
        }
        TextRow {
            text,
            wrapped: row.wrapped,
        }
    }

    /// The cursor's screen row as text with the cursor's cell (a wide character's first half
    /// when the cursor is on its second) replaced by NUL, padded with spaces up to it: what
    /// [`crate::Frame::stable_hash`] hashes.
    pub(crate) fn cursor_row_with_nul(&self) -> TextRow {
        let b = self.screen.buf();
        let cols = usize::from(self.size().cols);
        let row = &b.rows[usize::from(b.row)];
        let mut at = usize::from(b.col);
        if at > 0
            && row
                .cells
                .get(at)
                .is_some_and(|c| c.flags() & WIDE_CONT != 0)
        {
            at -= 1;
        }
        let mut text = String::with_capacity(cols);
        for (i, cell) in row.cells.iter().enumerate().take(cols) {
            if i == at {
                text.push('\0');
            } else if cell.flags() & WIDE_CONT == 0 {
                self.screen.clusters.push_text(cell.content(), &mut text);
            }
        }
        if !row.wrapped {
            let trimmed = text.trim_end_matches(' ').len();
            text.truncate(trimmed);
        }
        TextRow {
            text,
            wrapped: row.wrapped,
        }
    }

    /// The rows of the visible screen as text, top to bottom.
    pub fn screen_rows(&self) -> Vec<TextRow> {
        self.screen
            .buf()
            .rows
            .iter()
            .map(|r| self.text_row(r))
            .collect()
    }

    /// The visible screen as plain text: rows joined with `\n`, trailing spaces of each row
    /// trimmed, and trailing blank rows below both the cursor and the last text dropped
    /// (WebMCP spec, `read_terminal` without `lines`).
    pub fn screen_text(&self) -> String {
        let rows = self.screen_rows();
        let end = self.content_end(&rows);
        join_rows(&rows[..end])
    }

    /// The last `lines` rows (clamped to 1..=[`MAX_TAIL_LINES`]) ending at the cursor row or the
    /// last row with text, whichever is lower, reaching up into scrollback.
    pub fn tail_rows(&mut self, lines: usize) -> Vec<TextRow> {
        let lines = lines.clamp(1, MAX_TAIL_LINES);
        let screen_rows = self.screen_rows();
        let end = self.content_end(&screen_rows);
        let mut out = Vec::with_capacity(lines);
        if lines > end {
            let want = (lines - end).min(self.scrollback_rows());
            out.extend(self.history_rows(want));
        }
        out.extend(screen_rows.into_iter().take(end));
        let skip = out.len().saturating_sub(lines);
        out.drain(..skip);
        out
    }

    /// The rows a reader asks for: the visible screen without trailing blank rows
    /// ([`Self::screen_text`]) when `lines` is `None`, else [`Self::tail_rows`].
    pub fn read_rows(&mut self, lines: Option<usize>) -> Vec<TextRow> {
        match lines {
            None => {
                let mut rows = self.screen_rows();
                let end = self.content_end(&rows);
                rows.truncate(end);
                rows
            }
            Some(n) => self.tail_rows(n),
        }
    }

    /// [`Self::tail_rows`] joined with `\n`.
    pub fn tail_text(&mut self, lines: usize) -> String {
        join_rows(&self.tail_rows(lines))
    }

    /// The newest `count` rows of history (clamped to what exists), oldest first.
    pub fn history_rows(&mut self, count: usize) -> Vec<TextRow> {
        let count = count.min(self.scrollback_rows());
        let h = &self.screen.history;
        h.range(h.len() - count..)
            .map(|r| self.text_row(&r.unpack()))
            .collect()
    }

    /// The number of leading screen rows that hold content: through the cursor row and the last
    /// row with text, whichever is lower on the screen.
    pub(crate) fn content_end(&self, rows: &[TextRow]) -> usize {
        let last_text = rows
            .iter()
            .rposition(|r| !r.text.is_empty())
            .map_or(0, |i| i + 1);
        let cursor = usize::from(self.cursor().row) + 1;
        last_text.max(cursor).min(rows.len())
    }

    /// Bytes that rebuild this terminal when fed to a fresh [`Terminal`] of the same size (the
    /// relay's snapshot on attach): history, both screens, cursor (with a pending wrap), saved
    /// cursors, scroll region, tab stops, pen, character sets, modes, cursor style, title,
    /// working directory, shell-integration mark, kitty flag stacks, and the command log with the
    /// lifetime row count (wterm's private `OSC 7711`, last), so the receiver's
    /// [`Self::commands`], [`Self::running_command`] and row numbers agree with this terminal's.
    pub fn snapshot(&mut self) -> Vec<u8> {
        let s = &self.screen;
        let cols = s.size.cols;
        let mut w = SnapshotWriter {
            out: Vec::new(),
            style: Style::default(),
            s,
            prev: String::new(),
            text: String::new(),
        };
        // History then the main screen as lines: the top ones scroll into history. History
        // rows are unpacked into one reused row (a snapshot with full history is the relay's
        // costliest step in a flood; see the relay's HOLDER_SNAPSHOT_AFTER_BYTES).
        let mut prev_wrapped = None;
        let mut unpacked = Row::from_cells(Vec::new(), false);
        let mut line = |w: &mut SnapshotWriter<'_>, row: &Row| {
            if prev_wrapped == Some(false) {
                w.out.extend_from_slice(b"\r\n");
                w.prev.clear();
            }
            w.row_after(row, cols, prev_wrapped == Some(true));
            prev_wrapped = Some(row.wrapped);
        };
        for r in s.history.iter() {
            unpacked.cells.clear();
            r.unpack_into(&mut unpacked.cells);
            unpacked.wrapped = r.wrapped;
            unpacked.dirty_end = u16::MAX;
            line(&mut w, &unpacked);
        }
        for row in &s.main.rows {
            line(&mut w, row);
        }
        w.wrap_mark(s.main.rows.back());
        w.out.extend_from_slice(b"\x1b[0m");
        w.style = Style::default();
        w.buffer_state(&s.main);
        if s.alt_active {
            w.out.extend_from_slice(b"\x1b[?47h");
            for (i, row) in s.alt.rows.iter().enumerate() {
                if i == 0 || !s.alt.rows[i - 1].wrapped {
                    w.out
                        .extend_from_slice(format!("\x1b[{};1H", i + 1).as_bytes());
                    w.prev.clear();
                }
                let after_wrap = i > 0 && s.alt.rows[i - 1].wrapped;
                w.row_after(row, cols, after_wrap);
            }
            w.wrap_mark(s.alt.rows.back());
            w.out.extend_from_slice(b"\x1b[0m");
            w.style = Style::default();
            w.buffer_state(&s.alt);
        }
        w.global_state();
        w.out
    }
}

/// Bytes that put a terminal which already shows something into the state
/// [`Terminal::snapshot`] expects, a freshly made [`Terminal`], without knowing what it shows or
/// which version of wterm it runs: the relay sends them before the snapshot that replaces a
/// lagged page's screen (a resync), whose stream was cut at an arbitrary byte. 36 bytes, fed as
/// program output; in order:
///
/// - `18` CAN: ends any escape, control or OSC string the dropped output left half-sent, so the
///   next byte starts a sequence (ECMA-48 §8.3.7; vte returns to ground on it from any state);
/// - `1b 63` RIS (`ESC c`): full reset of screens, cursor, pen, modes, margins, tab stops,
///   character sets, title and kitty flags, but not history, which xterm and tmux keep;
/// - `1b 5b 33 4a` ED 3 (`CSI 3 J`, xterm): clears the history as well;
/// - `1b 5d 32 3b 07` an empty OSC 2: clears the title, for a page running an older wterm
///   whose RIS kept it (this one's clears it already);
/// - `1b 5b 3c 39 39 75` (`CSI < 99 u`, kitty keyboard protocol): pops 99 entries, more than
///   a stack holds ([`KITTY_STACK_DEPTH`](crate::limits::KITTY_STACK_DEPTH)), so all of the
///   main screen's kitty flag stack, for a page whose RIS kept it;
/// - `1b 5b 3f 34 37 68` (`CSI ? 47 h`), `CSI < 99 u` again, `1b 5b 3f 34 37 6c`
///   (`CSI ? 47 l`): the same for the alternate screen's stack, which has its own (kitty
///   protocol); the alternate screen is blank after RIS, and mode 47 switches without clearing
///   or saving the cursor, so the visit leaves nothing behind.
///
/// After these bytes the terminal's snapshot equals a fresh terminal's of the same size
/// (tested); feeding a snapshot then rebuilds the session exactly as in a fresh page. What a
/// terminal keeps across a reset on purpose stays: its size, scrollback capacity and dynamic
/// colors (the adapter's theme).
pub const RESYNC_PREFIX: &[u8] = b"\x18\x1bc\x1b[3J\x1b]2;\x07\x1b[<99u\x1b[?47h\x1b[<99u\x1b[?47l";

/// Writes [`Terminal::snapshot`]'s bytes.
pub(crate) struct SnapshotWriter<'a> {
    pub(crate) out: Vec<u8>,
    /// The style the receiving terminal's pen has now.
    pub(crate) style: Style,
    pub(crate) s: &'a Screen,
    /// The text of the cell printed last with nothing in between, for cluster joining.
    pub(crate) prev: String,
    /// The text of the cell being printed (kept to reuse its allocation).
    pub(crate) text: String,
}

impl SnapshotWriter<'_> {
    /// SGR (and OSC 8) that turn the receiver's pen into `style`.
    pub(crate) fn set_style(&mut self, style: Style) {
        if style == self.style {
            return;
        }
        self.prev.clear();
        if style.link != self.style.link {
            let uri = style.link.and_then(|id| self.s.link_uri(id)).unwrap_or("");
            self.out
                .extend_from_slice(format!("\x1b]8;;{uri}\x1b\\").as_bytes());
        }
        let mut sgr = String::from("\x1b[0");
        let flags = [
            (style.bold, "1"),
            (style.dim, "2"),
            (style.italic, "3"),
            (style.underline, "4"),
            (style.blink, "5"),
            (style.inverse, "7"),
            (style.hidden, "8"),
            (style.strikethrough, "9"),
        ];
        for (on, code) in flags {
            if on {
                sgr.push(';');
                sgr.push_str(code);
            }
        }
        for (color, base) in [(style.fg, 38), (style.bg, 48)] {
            match color {
                Color::Default => {}
                Color::Indexed(i) => sgr.push_str(&format!(";{base};5;{i}")),
                Color::Rgb(r, g, b) => sgr.push_str(&format!(";{base};2;{r};{g};{b}")),
            }
        }
        sgr.push('m');
        self.out.extend_from_slice(sgr.as_bytes());
        self.style = style;
    }

    /// [`Self::row`] for a row that follows a wrapped one (`after_wrap`): the wrap happens only
    /// when something is printed, so a row that prints nothing gets a blank (found by the fuzz
    /// target, on both screens).
    pub(crate) fn row_after(&mut self, row: &Row, cols: u16, after_wrap: bool) {
        let before = self.out.len();
        self.row(row, cols);
        if after_wrap && self.out.len() == before {
            self.set_style(Style::default());
            self.out.push(b' ');
            self.prev = " ".into();
        }
    }

    /// After a screen's last row, which has no next row to wrap into: wterm's private wrap mark
    /// when that row soft-wraps (the cursor is still on it).
    pub(crate) fn wrap_mark(&mut self, last: Option<&Row>) {
        if last.is_some_and(|r| r.wrapped) {
            self.out.extend_from_slice(b"\x1b]");
            self.out.extend_from_slice(crate::vt::osc::OSC_WRAP_MARK);
            self.out.extend_from_slice(b"\x1b\\");
        }
    }

    /// A row's cells: through the last non-default cell, or every column when the row wraps
    /// (so the next row's first character wraps onto it).
    fn row(&mut self, row: &Row, cols: u16) {
        let cols = usize::from(cols);
        let n = if row.wrapped {
            cols
        } else {
            row.used_len().min(cols)
        };
        let blank = crate::grid::Cell::blank(CellStyle::DEFAULT);
        for i in 0..n {
            let cell = row.cells.get(i).copied().unwrap_or(blank);
            if cell.flags() & WIDE_CONT != 0 {
                continue;
            }
            if cell.flags() & WIDE != 0 && i + 1 >= cols {
                self.set_style(Style::default());
                self.out.push(b' ');
                continue;
            }
            self.set_style(cell.style.unpack());
            let mut text = std::mem::take(&mut self.text);
            text.clear();
            self.s.clusters.push_text(cell.content(), &mut text);
            // Cells a program printed apart must not join when printed together (a modifier,
            // indicator or anything after a ZWJ): NUL, a control that does nothing, ends the
            // cluster.
            if text
                .chars()
                .next()
                .is_some_and(|c| crate::unicode::continues_cluster(&self.prev, c))
            {
                self.out.push(0);
            }
            self.out.extend_from_slice(text.as_bytes());
            // The printed text becomes `prev`; the old `prev`'s allocation takes the next one.
            self.text = std::mem::replace(&mut self.prev, text);
        }
    }

    fn charsets(&mut self, charsets: &[Charset; 4], gl: usize) {
        for (i, c) in charsets.iter().enumerate() {
            let f = if *c == Charset::DecGraphics { '0' } else { 'B' };
            self.out
                .extend_from_slice(format!("\x1b{}{f}", ['(', ')', '*', '+'][i]).as_bytes());
        }
        self.out.push(if gl == 1 { 0x0e } else { 0x0f });
    }

    /// The saved cursor and kitty stack of the screen being written.
    fn buffer_state(&mut self, b: &crate::screen::Buffer) {
        for flags in &b.kitty {
            self.out
                .extend_from_slice(format!("\x1b[>{flags}u").as_bytes());
        }
        if let Some(sc) = b.saved {
            self.out
                .extend_from_slice(format!("\x1b[{};{}H", sc.row + 1, sc.col + 1).as_bytes());
            self.set_style(sc.pen.unpack());
            self.charsets(&sc.charsets, sc.gl);
            if sc.origin {
                // DECSC keeps DECOM; set it only around the save (DECOM homes the cursor).
                self.out.extend_from_slice(
                    format!("\x1b[?6h\x1b[{};{}H\x1b7\x1b[?6l", sc.row + 1, sc.col + 1).as_bytes(),
                );
            } else {
                self.out.extend_from_slice(b"\x1b7");
            }
            self.charsets(&[Charset::Ascii; 4], 0);
            self.set_style(Style::default());
        }
    }

    /// The cursor position (CUP), re-printing the last column's cell when a wrap is pending;
    /// `origin`: relative to the scroll region and margins, with DECOM set (as the terminal has
    /// it), else absolute.
    pub(crate) fn cursor(&mut self, origin: bool) {
        let s = self.s;
        let m = &s.modes;
        let cols = s.size.cols;
        let b = s.buf();
        // The cursor, re-printing the last column's cell when a wrap is pending.
        let (row_base, col_base) = if origin { (s.top, s.left) } else { (0, 0) };
        if origin {
            self.out.extend_from_slice(b"\x1b[?6h");
        }
        let r = b.row.saturating_sub(row_base) + 1;
        if b.pending_wrap && m.autowrap {
            let cells = &b.rows[usize::from(b.row)].cells;
            // The wrap is pending at the right margin (the edge from right of it), or, after
            // CBT (which keeps it, as xterm), at a tab stop left of there.
            let edge = if b.col <= s.right { s.right } else { cols - 1 };
            let last = usize::from(edge);
            let at = if cells[last].flags() & WIDE_CONT != 0 && last > 0 {
                last - 1
            } else {
                last
            };
            self.out.extend_from_slice(
                format!("\x1b[{r};{}H", at - usize::from(col_base) + 1).as_bytes(),
            );
            self.set_style(cells[at].style.unpack());
            let mut text = String::new();
            s.clusters.push_text(cells[at].content(), &mut text);
            self.out.extend_from_slice(text.as_bytes());
            let back = (b.col..edge)
                .filter(|&c| c == 0 || s.tabs[usize::from(c)])
                .count();
            if back > 0 {
                self.out
                    .extend_from_slice(format!("\x1b[{back}Z").as_bytes());
            }
        } else if b.col < col_base {
            // Left of the left margin under DECOM (CBT ignores the margin, as xterm), where no
            // CUP reaches: from the margin, CBT (at most one step per column) to column 0, then
            // CUF, which only the right margin stops.
            self.out
                .extend_from_slice(format!("\x1b[{r};1H\x1b[{col_base}Z").as_bytes());
            if b.col > 0 {
                self.out
                    .extend_from_slice(format!("\x1b[{}C", b.col).as_bytes());
            }
        } else {
            self.out.extend_from_slice(
                format!("\x1b[{r};{}H", b.col.saturating_sub(col_base) + 1).as_bytes(),
            );
        }
    }

    /// Tab stops, margins, modes, cursor, pen, character sets, title, cwd, shell mark, command log.
    fn global_state(&mut self) {
        let s = self.s;
        let rows = s.size.rows;
        let m = &s.modes;
        let default_tabs = s
            .tabs
            .iter()
            .enumerate()
            .all(|(c, &t)| t == (c > 0 && c % 8 == 0));
        if !default_tabs {
            self.out.extend_from_slice(b"\x1b[3g");
            for (c, _) in s.tabs.iter().enumerate().filter(|(_, &t)| t) {
                self.out
                    .extend_from_slice(format!("\x1b[1;{}H\x1bH", c + 1).as_bytes());
            }
        }
        if s.top != 0 || s.bottom != rows - 1 {
            self.out
                .extend_from_slice(format!("\x1b[{};{}r", s.top + 1, s.bottom + 1).as_bytes());
        }
        // DECLRMM and the left and right margins (DECSLRM homes the cursor, placed below).
        if m.lr_margin_mode {
            self.out.extend_from_slice(b"\x1b[?69h");
            if s.lr_margins_set() {
                self.out
                    .extend_from_slice(format!("\x1b[{};{}s", s.left + 1, s.right + 1).as_bytes());
            }
        }
        self.cursor(m.origin);
        self.set_style(s.pen.unpack());
        self.charsets(&s.charsets, s.gl);
        let mut modes = Vec::new();
        for (on, n) in [
            (m.app_cursor, 1),
            (!m.autowrap, 7),
            (m.reverse_wrap, 45),
            (!m.show_cursor, 25),
            (m.focus_events, 1004),
            (m.mouse_encoding & 1 != 0, 1005),
            (m.mouse_encoding & 2 != 0, 1006),
            (m.mouse_encoding & 4 != 0, 1015),
            (m.bracketed_paste, 2004),
            (m.sync, 2026),
        ] {
            if on {
                modes.push(n);
            }
        }
        for (i, n) in MOUSE_MODES.iter().enumerate() {
            if m.mouse & (1 << i) != 0 {
                modes.push(*n);
            }
        }
        for n in modes {
            let hl = if n == 7 || n == 25 { 'l' } else { 'h' };
            self.out
                .extend_from_slice(format!("\x1b[?{n}{hl}").as_bytes());
        }
        if m.insert {
            self.out.extend_from_slice(b"\x1b[4h");
        }
        if m.newline {
            self.out.extend_from_slice(b"\x1b[20h");
        }
        if m.app_keypad {
            self.out.extend_from_slice(b"\x1b=");
        }
        let cs = m.cursor_style;
        if cs != crate::modes::CursorStyle::default() {
            let n = match cs.shape {
                CursorShape::Block => 1,
                CursorShape::Underline => 3,
                CursorShape::Bar => 5,
            } + u8::from(!cs.blink);
            self.out.extend_from_slice(format!("\x1b[{n} q").as_bytes());
        }
        if let Some(title) = &s.title {
            self.out
                .extend_from_slice(format!("\x1b]2;{title}\x07").as_bytes());
        }
        if let Some(cwd) = &s.cwd {
            let mut enc = String::new();
            for b in cwd.bytes() {
                if b.is_ascii_graphic() && b != b'%' {
                    enc.push(b as char);
                } else {
                    enc.push_str(&format!("%{b:02X}"));
                }
            }
            self.out
                .extend_from_slice(format!("\x1b]7;file://localhost{enc}\x07").as_bytes());
        }
        if let Some(sh) = s.shell {
            let mark = match sh.state {
                ShellState::Prompt => "A".to_string(),
                ShellState::Input => "B".to_string(),
                ShellState::Running => "C".to_string(),
                ShellState::Done => match sh.exit_code {
                    Some(c) => format!("D;{c}"),
                    None => "D".to_string(),
                },
            };
            self.out
                .extend_from_slice(format!("\x1b]133;{mark}\x07").as_bytes());
        }
        s.write_command_log(&mut self.out);
    }
}

/// Rows joined with `\n`, each with trailing spaces trimmed: the text a reader gets.
pub fn join_rows(rows: &[TextRow]) -> String {
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(r.text.trim_end_matches(' '));
    }
    out
}

/// Joins rows for searching: a soft-wrapped row runs straight into the next, other rows are
/// separated by `\n`, so a match may span a wrap (WebMCP spec, `waitFor`).
pub fn join_for_search(rows: &[TextRow]) -> String {
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        out.push_str(&r.text);
        if !r.wrapped && i + 1 < rows.len() {
            out.push('\n');
        }
    }
    out
}

/// Whether `needle` appears in `rows`, a match spanning a soft wrap included (WebMCP
/// `waitFor`, broker `wait_for_text`). An empty needle never matches.
pub fn rows_contain(rows: &[TextRow], needle: &str) -> bool {
    !needle.is_empty() && join_for_search(rows).contains(needle)
}

#[cfg(test)]
mod tests;

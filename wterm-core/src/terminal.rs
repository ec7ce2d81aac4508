//! [`Terminal`]: the emulator model. With `vt/`, the only place that names vt100.

use core::num::NonZeroU16;

use crate::limits::{
    DEFAULT_SCROLLBACK_ROWS, MAX_COLS, MAX_ROWS, MAX_SCROLLBACK_ROWS, MAX_TAIL_LINES, MIN_COLS,
    MIN_ROWS,
};
use crate::modes::Modes;
use crate::vt::callbacks::State;

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
/// panics on input: sizes are clamped (see [`crate::limits`]), and the parser is guarded against
/// the inputs known to panic vt100.
pub struct Terminal {
    parser: vt100::Parser<State>,
    scrollback_capacity: usize,
    /// The last byte fed was ESC, so a `c` starting the next chunk completes RIS.
    pending_esc: bool,
    /// The start of a UTF-8 encoded U+FE0F held back from the previous chunk (see
    /// [`strip_vs16`]).
    vs16_carry: Vec<u8>,
}

impl core::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Terminal").field("size", &self.size()).finish_non_exhaustive()
    }
}

fn nz(v: u16) -> NonZeroU16 {
    NonZeroU16::new(v).unwrap_or(NonZeroU16::MIN)
}

impl Default for Terminal {
    fn default() -> Self {
        Terminal::new(Size::default(), DEFAULT_SCROLLBACK_ROWS)
    }
}

impl Terminal {
    /// A blank terminal of `size` (clamped, see [`Size::clamped`]) keeping up to
    /// `scrollback_rows` rows of history (at most [`MAX_SCROLLBACK_ROWS`]).
    pub fn new(size: Size, scrollback_rows: usize) -> Self {
        let size = size.clamped();
        let scrollback_capacity = scrollback_rows.min(MAX_SCROLLBACK_ROWS);
        Terminal {
            parser: vt100::Parser::new_with_callbacks(
                nz(size.rows),
                nz(size.cols),
                scrollback_capacity,
                State::default(),
            ),
            scrollback_capacity,
            pending_esc: false,
            vs16_carry: Vec::new(),
        }
    }

    /// Forgets everything (screen, history, modes, title, kitty flags) and starts blank at the
    /// same size and scrollback capacity, as a freshly made terminal. Used before replaying a
    /// snapshot into a terminal that already shows something.
    pub fn reset(&mut self) {
        *self = Terminal::new(self.size(), self.scrollback_capacity);
    }

    /// Parses program output. Any chunking works: a UTF-8 character or an escape sequence split
    /// across calls is completed by the next call. Returns the replies and events it caused.
    pub fn feed(&mut self, bytes: &[u8]) -> Effects {
        let filtered = strip_vs16(&mut self.vs16_carry, bytes);
        let bytes = &filtered[..];
        // vt100 handles RIS (`ESC c`) without telling us, so the state we keep ourselves (title,
        // cwd, shell integration, kitty flags) is reset here. ESC enters the escape state from
        // any parser state, so an adjacent `ESC c` is always RIS, even across chunks.
        let mut start = 0;
        if self.pending_esc && bytes.first() == Some(&b'c') {
            self.parser.process(&bytes[..1]);
            self.parser.callbacks_mut().reset_for_ris();
            start = 1;
        }
        let mut i = start;
        while let Some(off) = bytes[i..].windows(2).position(|w| w == b"\x1bc") {
            let end = i + off + 2;
            self.parser.process(&bytes[start..end]);
            self.parser.callbacks_mut().reset_for_ris();
            start = end;
            i = end;
        }
        self.parser.process(&bytes[start..]);
        if !bytes.is_empty() {
            self.pending_esc = bytes.last() == Some(&0x1b);
        }
        let st = self.parser.callbacks_mut();
        Effects {
            replies: core::mem::take(&mut st.replies),
            title_changed: core::mem::replace(&mut st.title_changed, false),
            bell: core::mem::replace(&mut st.bell, false),
        }
    }

    /// Resizes the screen to `size` (clamped, see [`Size::clamped`]). Rows that no longer fit
    /// at the bottom are dropped and the cursor is kept inside (vt100 does not reflow).
    pub fn resize(&mut self, size: Size) {
        let size = size.clamped();
        if size != self.size() {
            self.parser.screen_mut().set_size(nz(size.rows), nz(size.cols));
        }
    }

    /// The screen size in cells.
    pub fn size(&self) -> Size {
        let (rows, cols) = self.parser.screen().size();
        Size { rows: rows.get(), cols: cols.get() }
    }

    /// The most rows of history this terminal keeps.
    pub fn scrollback_capacity(&self) -> usize {
        self.scrollback_capacity
    }

    /// Rows of history currently above the screen (0 on the alternate screen, which has none).
    pub fn scrollback_rows(&self) -> usize {
        self.parser.screen().scrollback_len()
    }

    /// The cursor within the visible screen.
    pub fn cursor(&self) -> Cursor {
        let s = self.parser.screen();
        let (row, col) = s.cursor_position();
        Cursor { row, col, visible: !s.hide_cursor() }
    }

    /// The input-affecting and display modes the program has set.
    pub fn modes(&self) -> Modes {
        let s = self.parser.screen();
        let alt = s.alternate_screen();
        Modes {
            application_cursor: s.application_cursor(),
            application_keypad: s.application_keypad(),
            bracketed_paste: s.bracketed_paste(),
            alternate_screen: alt,
            hide_cursor: s.hide_cursor(),
            kitty_flags: self.parser.callbacks().kitty_flags(alt),
            mouse_reporting: s.mouse_protocol_mode() != vt100::MouseProtocolMode::None,
            ..Modes::default()
        }
    }

    /// The URI of an OSC 8 hyperlink seen in a cell's [`Style::link`].
    pub fn link_uri(&self, _id: LinkId) -> Option<&str> {
        None
    }

    /// The window title the program set with OSC 0 or 2, if any.
    pub fn title(&self) -> Option<&str> {
        self.parser.callbacks().title.as_deref()
    }

    /// The working directory reported with OSC 7 (`file://host/path`, decoded to the path).
    pub fn cwd(&self) -> Option<&str> {
        self.parser.callbacks().cwd.as_deref()
    }

    /// The last OSC 133 shell-integration mark, if the shell sends them.
    pub fn shell_integration(&self) -> Option<ShellIntegration> {
        self.parser.callbacks().shell
    }

    /// Styled runs of one row of the view scrolled `view_offset` rows up into history (0 = the
    /// live screen; clamped to [`Self::scrollback_rows`]). Rows past the bottom give no runs.
    pub fn row_runs(&mut self, view_offset: usize, row: u16, out: &mut Vec<StyledRun>) {
        out.clear();
        let screen = self.parser.screen_mut();
        screen.set_scrollback(view_offset);
        let cols = screen.size().1.get();
        let mut cur: Option<StyledRun> = None;
        for col in 0..cols {
            let Some(cell) = screen.cell(row, col) else { break };
            if cell.is_wide_continuation() {
                if let Some(run) = cur.as_mut() {
                    run.cols += 1;
                }
                continue;
            }
            let style = style_of(cell);
            let text = cell.contents();
            let wide = cell.is_wide();
            match cur.as_mut() {
                Some(run) if run.style == style && !wide && !run.wide => {
                    push_cell_text(&mut run.text, text);
                    run.cols += 1;
                }
                _ => {
                    if let Some(run) = cur.take() {
                        out.push(run);
                    }
                    let mut t = String::new();
                    push_cell_text(&mut t, text);
                    cur = Some(StyledRun { text: t, cols: 1, style, wide });
                }
            }
        }
        if let Some(run) = cur {
            out.push(run);
        }
        screen.set_scrollback(0);
    }

    /// The style and text of the cell at a screen position (0-based), or `None` outside the
    /// screen or on the second half of a wide character.
    pub fn cell(&self, row: u16, col: u16) -> Option<(String, Style)> {
        let cell = self.parser.screen().cell(row, col)?;
        if cell.is_wide_continuation() {
            return None;
        }
        Some((cell.contents().to_string(), style_of(cell)))
    }

    /// The rows of the visible screen as text, top to bottom.
    pub fn screen_rows(&self) -> Vec<TextRow> {
        let screen = self.parser.screen();
        visible_text_rows(screen, usize::from(screen.size().0.get()))
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
        let mut out = Vec::with_capacity(count);
        let screen = self.parser.screen_mut();
        let rows = usize::from(screen.size().0.get());
        // The view can show at most one screen of history at a time, so read it in pages.
        let mut remaining = count;
        while remaining > 0 {
            let page = remaining.min(rows);
            screen.set_scrollback(remaining);
            out.extend(visible_text_rows(screen, page));
            remaining -= page;
        }
        screen.set_scrollback(0);
        out
    }

    /// The number of leading screen rows that hold content: through the cursor row and the last
    /// row with text, whichever is lower on the screen.
    fn content_end(&self, rows: &[TextRow]) -> usize {
        let last_text = rows.iter().rposition(|r| !r.text.is_empty()).map_or(0, |i| i + 1);
        let cursor = usize::from(self.cursor().row) + 1;
        last_text.max(cursor).min(rows.len())
    }

    /// Bytes that rebuild this terminal's history, screen, cursor, title and modes when fed to a
    /// fresh [`Terminal`] of the same size (the relay's snapshot on attach).
    ///
    /// On the alternate screen the main screen's contents are not included (vt100 does not
    /// expose them), so a program that leaves the alternate screen after a re-attach reveals a
    /// blank main screen; history is kept.
    pub fn snapshot(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        let size = self.size();
        let history = self.scrollback_rows();
        let alt = self.parser.screen().alternate_screen();
        if history > 0 {
            let screen = self.parser.screen_mut();
            let rows = usize::from(size.rows);
            let mut remaining = history;
            let mut written = 0usize;
            while remaining > 0 {
                let page = remaining.min(rows);
                screen.set_scrollback(remaining);
                for (i, formatted) in screen.rows_formatted(0, size.cols).take(page).enumerate() {
                    out.extend_from_slice(b"\x1b[m");
                    out.extend_from_slice(formatted.as_bytes());
                    if !screen.row_wrapped(i as u16) {
                        out.extend_from_slice(b"\r\n");
                    }
                    written += 1;
                }
                remaining -= page;
            }
            screen.set_scrollback(0);
            // Push whatever history is still on the screen up into scrollback.
            let on_screen = written.min(usize::from(size.rows) - 1);
            out.extend_from_slice(format!("\x1b[m\x1b[{};1H", size.rows).as_bytes());
            out.extend(core::iter::repeat_n(b'\n', on_screen));
            out.extend_from_slice(b"\x1b[H\x1b[2J");
        }
        let screen = self.parser.screen();
        if alt {
            out.extend_from_slice(b"\x1b[?1049h");
        }
        out.extend_from_slice(screen.contents_formatted().as_bytes());
        out.extend_from_slice(screen.input_mode_formatted().as_bytes());
        let st = self.parser.callbacks();
        if let Some(title) = &st.title {
            out.extend_from_slice(b"\x1b]2;");
            out.extend_from_slice(title.as_bytes());
            out.extend_from_slice(b"\x07");
        }
        for (i, stack) in st.kitty.iter().enumerate() {
            if stack.is_empty() {
                continue;
            }
            let switch = (i == 1) != alt;
            if switch {
                out.extend_from_slice(if alt { b"\x1b[?47l" } else { b"\x1b[?47h" });
            }
            for flags in stack {
                out.extend_from_slice(format!("\x1b[>{flags}u").as_bytes());
            }
            if switch {
                out.extend_from_slice(if alt { b"\x1b[?47h" } else { b"\x1b[?47l" });
            }
        }
        out
    }
}

/// UTF-8 of U+FE0F VARIATION SELECTOR-16 (emoji presentation).
const VS16: &[u8] = "\u{fe0f}".as_bytes();

/// Removes U+FE0F from program output before vt100 sees it, keeping a partial encoding at the
/// end of `bytes` in `carry` for the next call.
///
/// vt100 0.18 widens a narrow cell when VS16 follows its character, and panics when that cell is
/// in the last column (found by the no-panic property test: a 2-column screen fed `;65535`,
/// U+FE0F, `CSI d` and two spaces). Like xterm and tmux, we let VS16 change no width: the
/// character keeps its own width and the selector is dropped.
fn strip_vs16(carry: &mut Vec<u8>, bytes: &[u8]) -> Vec<u8> {
    let mut input = core::mem::take(carry);
    input.extend_from_slice(bytes);
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        let rest = &input[i..];
        if rest.starts_with(VS16) {
            i += VS16.len();
        } else if rest.len() < VS16.len() && VS16.starts_with(rest) {
            carry.extend_from_slice(rest);
            break;
        } else {
            out.push(input[i]);
            i += 1;
        }
    }
    out
}

fn style_of(cell: &vt100::Cell) -> Style {
    Style {
        fg: color_of(cell.fgcolor()),
        bg: color_of(cell.bgcolor()),
        bold: cell.bold(),
        dim: cell.dim(),
        italic: cell.italic(),
        underline: cell.underline(),
        inverse: cell.inverse(),
        ..Style::default()
    }
}

fn color_of(c: vt100::Color) -> Color {
    match c {
        vt100::Color::Default => Color::Default,
        vt100::Color::Idx(i) => Color::Indexed(i),
        vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

fn push_cell_text(out: &mut String, text: &str) {
    if text.is_empty() {
        out.push(' ');
    } else {
        out.push_str(text);
    }
}

/// The first `count` rows of the screen's current view as text, in one pass over the grid
/// (reading cell by cell walks the row list once per cell). Wide characters appear once; blank
/// cells are spaces; a row that does not wrap has its trailing spaces trimmed.
fn visible_text_rows(screen: &vt100::Screen, count: usize) -> Vec<TextRow> {
    let cols = screen.size().1.get();
    screen
        .rows(0, cols)
        .take(count)
        .enumerate()
        .map(|(r, mut text)| {
            let wrapped = screen.row_wrapped(r as u16);
            if !wrapped {
                let trimmed = text.trim_end_matches(' ').len();
                text.truncate(trimmed);
            }
            TextRow { text, wrapped }
        })
        .collect()
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

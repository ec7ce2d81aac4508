//! The parser boundary: vte's raw actions (print, execute, CSI/ESC/OSC dispatch) turned into
//! [`Screen`] operations and replies. Sequence names and numbers are those of ECMA-48 and
//! xterm's ctlseqs; unknown sequences are ignored, as xterm does.

use vte::{Params, Perform};

use crate::grid::{
    ATTR_BLINK, ATTR_BOLD, ATTR_DIM, ATTR_HIDDEN, ATTR_INVERSE, ATTR_ITALIC, ATTR_STRIKETHROUGH,
    ATTR_UNDERLINE,
};
use crate::screen::{Charset, Screen, MOUSE_MODES};
use crate::terminal::Color;
use crate::vt::osc;

/// Reply to primary device attributes (`CSI c`): VT220 (62) with ANSI color (22).
pub(crate) const DA1_REPLY: &[u8] = b"\x1b[?62;22c";
/// Reply to secondary device attributes (`CSI > c`): type 0, firmware 10, ROM 1.
pub(crate) const DA2_REPLY: &[u8] = b"\x1b[>0;10;1c";

/// Values a CSI sequence holds at most, parameters and subparameters together: vte's bound
/// (its `MAX_PARAMS`); a longer sequence is dispatched as ignored.
pub(crate) const CSI_MAX_VALUES: usize = 32;

/// A CSI sequence's parameters, each a value and its subparameters (`38:2::1:2:3` is one
/// parameter of six values). Filled from vte's [`Params`] or by the ground-state scanner
/// ([`crate::vt::scan_csi`]), so one dispatch serves both.
#[derive(Clone)]
pub(crate) struct CsiParams {
    values: [u16; CSI_MAX_VALUES],
    /// Values in each parameter.
    counts: [u8; CSI_MAX_VALUES],
    len: usize,
    used: usize,
}

impl CsiParams {
    pub const EMPTY: CsiParams = CsiParams {
        values: [0; CSI_MAX_VALUES],
        counts: [0; CSI_MAX_VALUES],
        len: 0,
        used: 0,
    };

    /// Appends a parameter of one value; `false` (nothing appended) when full.
    #[inline]
    pub fn push(&mut self, value: u16) -> bool {
        if self.used == CSI_MAX_VALUES {
            return false;
        }
        self.values[self.used] = value;
        self.counts[self.len] = 1;
        self.used += 1;
        self.len += 1;
        true
    }

    fn from_vte(params: &Params) -> CsiParams {
        let mut out = CsiParams::EMPTY;
        for p in params.iter() {
            let n = p.len().min(CSI_MAX_VALUES - out.used);
            out.values[out.used..out.used + n].copy_from_slice(&p[..n]);
            out.counts[out.len] = n as u8;
            out.used += n;
            out.len += 1;
        }
        out
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Each parameter's values, the first being the parameter itself.
    pub fn iter(&self) -> impl Iterator<Item = &[u16]> + '_ {
        let mut at = 0;
        self.counts[..self.len].iter().map(move |&n| {
            let p = &self.values[at..at + usize::from(n)];
            at += usize::from(n);
            p
        })
    }
}

/// The `i`-th parameter (no subparameters), `default` when absent or 0 (ECMA-48 5.4.2: a
/// parameter of 0 means the default for most controls).
fn arg(params: &CsiParams, i: usize, default: u16) -> u16 {
    match params.iter().nth(i).and_then(|p| p.first()) {
        Some(&0) | None => default,
        Some(&n) => n,
    }
}

/// The `i`-th parameter as given (0 when absent): for selectors such as ED's where 0 is a value.
fn raw(params: &CsiParams, i: usize) -> u16 {
    params
        .iter()
        .nth(i)
        .and_then(|p| p.first())
        .copied()
        .unwrap_or(0)
}

/// Kitty flags occupy five bits (1 disambiguate, 2 event types, 4 alternate keys, 8 all keys as
/// escape codes, 16 associated text); other bits are dropped.
fn kitty_flags_value(p: u16) -> u8 {
    (p & 0x1f) as u8
}

impl Perform for Screen {
    #[inline]
    fn terminated(&self) -> bool {
        self.sequence_ended
    }

    fn print(&mut self, c: char) {
        // vte routes C0/C1 controls to `execute`, except a control completed from a UTF-8
        // sequence split across `advance` calls, which reaches `print`: route it the same way,
        // so chunking never changes what a control does (found by the fuzz target).
        match c {
            '\u{0}'..='\u{1f}' | '\u{80}'..='\u{9f}' => self.execute(c as u8),
            _ => Screen::print(self, c),
        }
    }

    fn execute(&mut self, byte: u8) {
        self.last_print = None;
        // REP repeats a graphic character only when it comes right before REP (ECMA-48
        // 8.3.103; xterm): any control or sequence in between leaves nothing to repeat.
        self.last_char = None;
        match byte {
            0x07 => self.bell = true,
            0x08 => self.backward(1),
            0x09 => self.tab_forward(1),
            0x0a..=0x0c => self.linefeed(),
            0x0d => self.carriage_return(),
            0x0e => self.gl = 1,
            0x0f => self.gl = 0,
            // C1 controls arriving as UTF-8 (U+0084 etc.) act like their ESC forms.
            0x84 => self.index(),
            0x85 => {
                self.carriage_return();
                self.index();
            }
            0x88 => self.set_tab(),
            0x8d => self.reverse_index(),
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        // vte is in ground after every dispatch of a CSI or ESC sequence and after an OSC ended
        // by BEL (not by ESC, which starts ST); `Terminal::feed` relies on this.
        self.sequence_ended = true;
        if ignore {
            self.last_print = None;
            self.last_char = None;
            return;
        }
        self.csi(&CsiParams::from_vte(params), intermediates, action);
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8) {
        self.sequence_ended = true;
        self.last_print = None;
        self.last_char = None;
        if ignore {
            return;
        }
        match (intermediates, byte) {
            ([], b'7') => self.save_cursor(),
            ([], b'8') => self.restore_cursor(),
            ([], b'D') => self.index(),
            ([], b'E') => {
                self.carriage_return();
                self.index();
            }
            ([], b'H') => self.set_tab(),
            ([], b'M') => self.reverse_index(),
            ([], b'c') => self.full_reset(),
            ([], b'=') => self.modes.app_keypad = true,
            ([], b'>') => self.modes.app_keypad = false,
            ([b'#'], b'8') => self.alignment_test(),
            ([i @ (b'(' | b')' | b'*' | b'+')], f) => {
                let g = usize::from(i - b'(');
                self.charsets[g] = if f == b'0' {
                    Charset::DecGraphics
                } else {
                    Charset::Ascii
                };
            }
            _ => {}
        }
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], bell_terminated: bool) {
        self.sequence_ended |= bell_terminated;
        self.last_print = None;
        self.last_char = None;
        match params.first() {
            Some(&b"0") | Some(&b"2") => {
                let title = osc::rest(params);
                self.set_title(&title);
            }
            Some(&b"7") => {
                if let Some(path) = osc::decode_osc7(&osc::rest(params)) {
                    self.cwd = Some(path);
                }
            }
            // OSC 8 ; params ; URI — the URI may itself contain `;`.
            Some(&b"8") if params.len() >= 2 => {
                let uri = osc::rest(&params[1..]);
                self.set_link(&uri);
            }
            Some(&n @ (b"10" | b"11" | b"12")) => {
                self.query_dynamic_colors(n, &params[1..], bell_terminated)
            }
            Some(&b"9") => {
                if let Some(Some(progress)) = osc::decode_progress(params, self.progress) {
                    self.progress = progress;
                    self.progress_changed = Some(progress);
                }
            }
            Some(&b"52") => {
                if let Some(text) = osc::decode_osc52(params) {
                    self.clipboard = Some(text);
                }
            }
            Some(&b"133") | Some(&b"633") => {
                if let Some(report) = osc::decode_shell_osc(params) {
                    self.shell_report(report);
                }
            }
            Some(&n) if n == osc::OSC_WRAP_MARK => self.mark_wrapped(),
            Some(&n) if n == osc::OSC_COMMAND_LOG => self.read_command_log(params),
            _ => {}
        }
    }
}

impl Screen {
    /// Dispatches a CSI sequence that is not ignored: its parameters, its intermediates (a
    /// private marker such as `?` first) and its final byte.
    pub(crate) fn csi(&mut self, params: &CsiParams, intermediates: &[u8], action: char) {
        self.last_print = None;
        // Only REP itself uses the character printed just before it (see `execute`).
        let last_char = self.last_char.take();
        let rows = self.size.rows;
        match (intermediates, action) {
            ([], '@') => self.insert_chars(arg(params, 0, 1)),
            ([], 'A') => self.up(arg(params, 0, 1)),
            ([], 'B') => self.down(arg(params, 0, 1)),
            ([], 'e') => self.down_rows(arg(params, 0, 1)),
            ([], 'C') | ([], 'a') => self.forward(arg(params, 0, 1)),
            ([], 'D') => self.backward(arg(params, 0, 1)),
            ([], 'E') => {
                self.down(arg(params, 0, 1));
                self.carriage_return();
            }
            ([], 'F') => {
                self.up(arg(params, 0, 1));
                self.carriage_return();
            }
            ([], 'G') | ([], '`') => self.goto_col(arg(params, 0, 1) - 1),
            ([], 'H') | ([], 'f') => self.goto(arg(params, 0, 1) - 1, arg(params, 1, 1) - 1),
            ([], 'I') => self.tab_forward(arg(params, 0, 1)),
            ([], 'J') | ([b'?'], 'J') => self.erase_in_display(raw(params, 0)),
            ([], 'K') | ([b'?'], 'K') => self.erase_in_line(raw(params, 0)),
            ([], 'L') => self.insert_lines(arg(params, 0, 1)),
            ([], 'M') => self.delete_lines(arg(params, 0, 1)),
            ([], 'P') => self.delete_chars(arg(params, 0, 1)),
            ([], 'S') => self.scroll_up(arg(params, 0, 1)),
            // `CSI Ps ; Ps ; … T` with several parameters is xterm's mouse highlight; only SD here.
            ([], 'T') if params.len() <= 1 => self.scroll_down(arg(params, 0, 1)),
            ([], 'X') => self.erase_chars(arg(params, 0, 1)),
            ([], 'Z') => self.tab_backward(arg(params, 0, 1)),
            ([], 'b') => {
                self.repeat(last_char, arg(params, 0, 1));
                self.last_char = None;
            }
            ([], 'c') if raw(params, 0) == 0 => self.replies.extend_from_slice(DA1_REPLY),
            ([], 'd') => self.goto_row(arg(params, 0, 1) - 1),
            ([], 'g') => self.clear_tabs(raw(params, 0)),
            ([], 'h') => params.iter().for_each(|p| self.set_ansi_mode(p[0], true)),
            ([], 'l') => params.iter().for_each(|p| self.set_ansi_mode(p[0], false)),
            ([b'?'], 'h') => params
                .iter()
                .for_each(|p| self.set_private_mode(p[0], true)),
            ([b'?'], 'l') => params
                .iter()
                .for_each(|p| self.set_private_mode(p[0], false)),
            ([], 'm') => self.sgr(params),
            ([], 'n') => match raw(params, 0) {
                5 => self.replies.extend_from_slice(b"\x1b[0n"),
                6 => self.report_cursor(false),
                _ => {}
            },
            ([b'?'], 'n') if raw(params, 0) == 6 => self.report_cursor(true),
            ([], 'r') => {
                let top = arg(params, 0, 1) - 1;
                let bottom = arg(params, 1, rows) - 1;
                self.set_scroll_region(top, bottom);
            }
            // With DECLRMM set, `CSI s` is DECSLRM (xterm); SCOSC otherwise.
            ([], 's') if self.modes.lr_margin_mode => {
                let left = arg(params, 0, 1) - 1;
                let right = arg(params, 1, self.size.cols) - 1;
                self.set_lr_margins(left, right);
            }
            ([], 's') => self.save_cursor(),
            ([b' '], '@') => self.scroll_columns(arg(params, 0, 1), false),
            ([b' '], 'A') => self.scroll_columns(arg(params, 0, 1), true),
            ([b'\''], '}') => self.edit_columns(arg(params, 0, 1), true),
            ([b'\''], '~') => self.edit_columns(arg(params, 0, 1), false),
            ([], 'u') => self.restore_cursor(),
            ([b'>'], 'c') if raw(params, 0) == 0 => self.replies.extend_from_slice(DA2_REPLY),
            ([b'>'], 'q') => self.replies.extend_from_slice(
                format!("\x1bP>|wterm-rs {}\x1b\\", env!("CARGO_PKG_VERSION")).as_bytes(),
            ),
            ([b'?'], 'u') => {
                let flags = self.kitty_flags();
                self.replies
                    .extend_from_slice(format!("\x1b[?{flags}u").as_bytes());
            }
            ([b'>'], 'u') => self.kitty_push(kitty_flags_value(raw(params, 0))),
            ([b'<'], 'u') => self.kitty_pop(usize::from(arg(params, 0, 1))),
            ([b'='], 'u') => {
                let mode = params
                    .iter()
                    .nth(1)
                    .and_then(|p| p.first())
                    .copied()
                    .unwrap_or(1);
                self.kitty_set(kitty_flags_value(raw(params, 0)), mode);
            }
            ([b' '], 'q') => self.set_cursor_style(raw(params, 0)),
            ([b'!'], 'p') => self.soft_reset(),
            ([b'$'], 'p') => {
                let mode = raw(params, 0);
                let state = self.ansi_mode(mode);
                self.replies
                    .extend_from_slice(format!("\x1b[{mode};{state}$y").as_bytes());
            }
            ([b'?', b'$'], 'p') => {
                let mode = raw(params, 0);
                let state = self.private_mode(mode);
                self.replies
                    .extend_from_slice(format!("\x1b[?{mode};{state}$y").as_bytes());
            }
            _ => {}
        }
    }

    /// OSC 10/11/12 with `?`: answers the color, `OSC n ; rgb:RRRR/GGGG/BBBB`, ended as the
    /// query was (BEL or ST). As in xterm, each further parameter is the next color (`OSC 10 ;
    /// ? ; ?` asks for 10 and 11). Setting a color (a value instead of `?`) is not supported and
    /// ignored: the theme belongs to the page.
    fn query_dynamic_colors(&mut self, first: &[u8], params: &[&[u8]], bell_terminated: bool) {
        let c = self.dynamic_colors;
        let first = first[1] - b'0';
        for (i, p) in params.iter().enumerate() {
            let n = usize::from(first) + i;
            if n > 2 {
                break;
            }
            if *p != b"?" {
                continue;
            }
            // `rgb:RRRR/GGGG/BBBB`: each 8-bit component twice, as xterm scales it to 16 bits.
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let out = &mut self.replies;
            out.extend_from_slice(&[0x1b, b']', b'1', b'0' + n as u8, b';']);
            out.extend_from_slice(b"rgb:");
            for (k, v) in [c.foreground, c.background, c.cursor][n]
                .into_iter()
                .enumerate()
            {
                if k > 0 {
                    out.push(b'/');
                }
                let pair = [HEX[usize::from(v >> 4)], HEX[usize::from(v & 15)]];
                out.extend_from_slice(&[pair[0], pair[1], pair[0], pair[1]]);
            }
            out.extend_from_slice(if bell_terminated { b"\x07" } else { b"\x1b\\" });
        }
    }

    /// CPR (`CSI row ; col R`) or, for DECXCPR, `CSI ? row ; col R`; 1-based, and relative to
    /// the scroll region and the left margin under DECOM.
    fn report_cursor(&mut self, private: bool) {
        let (mut row, mut col) = (self.buf().row, self.buf().col);
        if self.modes.origin {
            row = row.saturating_sub(self.top);
            col = col.saturating_sub(self.left);
        }
        let q = if private { "?" } else { "" };
        self.replies
            .extend_from_slice(format!("\x1b[{q}{};{}R", row + 1, col + 1).as_bytes());
    }

    /// SM/RM: IRM (4) and LNM (20).
    fn set_ansi_mode(&mut self, mode: u16, on: bool) {
        match mode {
            4 => self.modes.insert = on,
            20 => self.modes.newline = on,
            _ => {}
        }
    }

    /// DECRQM state of an ANSI mode: 1 set, 2 reset, 0 not recognized.
    fn ansi_mode(&self, mode: u16) -> u8 {
        let flag = match mode {
            4 => self.modes.insert,
            20 => self.modes.newline,
            _ => return 0,
        };
        if flag {
            1
        } else {
            2
        }
    }

    /// DECSET/DECRST.
    fn set_private_mode(&mut self, mode: u16, on: bool) {
        match mode {
            1 => self.modes.app_cursor = on,
            6 => {
                self.modes.origin = on;
                self.goto(0, 0);
            }
            7 => {
                self.modes.autowrap = on;
                if !on {
                    self.buf_mut().pending_wrap = false;
                }
            }
            25 => self.modes.show_cursor = on,
            45 => self.modes.reverse_wrap = on,
            69 => self.set_lr_margin_mode(on),
            47 => {
                if on {
                    self.enter_alt(false)
                } else {
                    self.leave_alt(false)
                }
            }
            1047 => {
                if on {
                    self.enter_alt(false)
                } else {
                    self.leave_alt(true)
                }
            }
            1048 => {
                if on {
                    self.save_cursor()
                } else {
                    self.restore_cursor()
                }
            }
            1049 => {
                if on {
                    if !self.alt_active {
                        self.save_cursor();
                    }
                    self.enter_alt(true);
                } else {
                    // The cursor is restored even when the main screen is already shown (xterm,
                    // tmux; ncurses programs such as dialog rely on it).
                    self.leave_alt(false);
                    self.restore_cursor();
                }
            }
            1004 => self.modes.focus_events = on,
            1005 | 1006 | 1015 => {
                let bit = match mode {
                    1005 => 1,
                    1006 => 2,
                    _ => 4,
                };
                if on {
                    self.modes.mouse_encoding |= bit;
                } else {
                    self.modes.mouse_encoding &= !bit;
                }
            }
            2004 => self.modes.bracketed_paste = on,
            2026 => self.modes.sync = on,
            m => {
                if let Some(i) = MOUSE_MODES.iter().position(|&x| x == m) {
                    // The tracking modes exclude each other (xterm).
                    self.modes.mouse = if on {
                        1 << i
                    } else {
                        self.modes.mouse & !(1 << i)
                    };
                }
            }
        }
    }

    /// DECRQM state of a DEC private mode: 1 set, 2 reset, 0 not recognized.
    fn private_mode(&self, mode: u16) -> u8 {
        let m = &self.modes;
        let flag = match mode {
            1 => m.app_cursor,
            6 => m.origin,
            7 => m.autowrap,
            25 => m.show_cursor,
            45 => m.reverse_wrap,
            69 => m.lr_margin_mode,
            47 | 1047 | 1049 => self.alt_active,
            1004 => m.focus_events,
            1005 => m.mouse_encoding & 1 != 0,
            1006 => m.mouse_encoding & 2 != 0,
            1015 => m.mouse_encoding & 4 != 0,
            2004 => m.bracketed_paste,
            2026 => m.sync,
            n => match MOUSE_MODES.iter().position(|&x| x == n) {
                Some(i) => m.mouse & (1 << i) != 0,
                None => return 0,
            },
        };
        if flag {
            1
        } else {
            2
        }
    }

    /// SGR: ECMA-48 8.3.117 plus xterm's 256-color and truecolor forms, with `;` or `:`.
    fn sgr(&mut self, params: &CsiParams) {
        let pen = &mut self.pen;
        let mut it = params.iter();
        while let Some(p) = it.next() {
            match p[0] {
                0 => pen.reset_sgr(),
                1 => pen.set_attrs(ATTR_BOLD, true),
                2 => pen.set_attrs(ATTR_DIM, true),
                3 => pen.set_attrs(ATTR_ITALIC, true),
                4 => pen.set_attrs(ATTR_UNDERLINE, p.get(1).is_none_or(|&s| s != 0)),
                5 | 6 => pen.set_attrs(ATTR_BLINK, true),
                7 => pen.set_attrs(ATTR_INVERSE, true),
                8 => pen.set_attrs(ATTR_HIDDEN, true),
                9 => pen.set_attrs(ATTR_STRIKETHROUGH, true),
                21 => pen.set_attrs(ATTR_UNDERLINE, true),
                22 => pen.set_attrs(ATTR_BOLD | ATTR_DIM, false),
                23 => pen.set_attrs(ATTR_ITALIC, false),
                24 => pen.set_attrs(ATTR_UNDERLINE, false),
                25 => pen.set_attrs(ATTR_BLINK, false),
                27 => pen.set_attrs(ATTR_INVERSE, false),
                28 => pen.set_attrs(ATTR_HIDDEN, false),
                29 => pen.set_attrs(ATTR_STRIKETHROUGH, false),
                n @ 30..=37 => pen.set_fg(Color::Indexed((n - 30) as u8)),
                38 => {
                    if let Some(c) = extended_color(p, &mut it) {
                        pen.set_fg(c);
                    }
                }
                39 => pen.set_fg(Color::Default),
                n @ 40..=47 => pen.set_bg(Color::Indexed((n - 40) as u8)),
                48 => {
                    if let Some(c) = extended_color(p, &mut it) {
                        pen.set_bg(c);
                    }
                }
                49 => pen.set_bg(Color::Default),
                // Underline color: consumed so its arguments are not read as attributes.
                58 => {
                    let _ = extended_color(p, &mut it);
                }
                n @ 90..=97 => pen.set_fg(Color::Indexed((n - 90 + 8) as u8)),
                n @ 100..=107 => pen.set_bg(Color::Indexed((n - 100 + 8) as u8)),
                _ => {}
            }
        }
    }
}

/// The color of SGR 38/48/58: `5;n` or `2;r;g;b` as following parameters, or the colon forms
/// `38:5:n`, `38:2::r:g:b` (with a color-space id) and `38:2:r:g:b` (ITU T.416 / xterm).
/// As xterm 379 (checked with scripts/xterm-oracle.py): parameters missing at the end of the
/// sequence count as 0 (`38;5` is palette entry 0, `48;2;1;2` is rgb(1,2,0)), and a color with
/// a value past 255 is ignored rather than clamped.
fn extended_color<'a>(p: &[u16], it: &mut impl Iterator<Item = &'a [u16]>) -> Option<Color> {
    let palette = |n: u16| u8::try_from(n).ok().map(Color::Indexed);
    let rgb = |r: u16, g: u16, b: u16| {
        Some(Color::Rgb(
            u8::try_from(r).ok()?,
            u8::try_from(g).ok()?,
            u8::try_from(b).ok()?,
        ))
    };
    if p.len() > 1 {
        return match p[1] {
            5 => p.get(2).and_then(|&n| palette(n)),
            2 if p.len() >= 6 => rgb(p[3], p[4], p[5]),
            2 if p.len() == 5 => rgb(p[2], p[3], p[4]),
            _ => None,
        };
    }
    let first = it.next().map(|q| q[0]);
    let mut next = || it.next().map_or(0, |q| q[0]);
    match first {
        Some(5) => palette(next()),
        Some(2) => {
            let (r, g, b) = (next(), next(), next());
            rgb(r, g, b)
        }
        _ => None,
    }
}

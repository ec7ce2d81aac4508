//! The vt100 `Callbacks` implementation: state vt100 does not keep, and replies to queries.

use crate::limits::{KITTY_STACK_DEPTH, MAX_TITLE_BYTES};
use crate::terminal::ShellIntegration;
use crate::vt::osc;

/// Our own per-terminal state, updated from vt100's callbacks while it parses.
#[derive(Debug, Default, Clone)]
pub(crate) struct State {
    pub title: Option<String>,
    pub cwd: Option<String>,
    pub shell: Option<ShellIntegration>,
    /// Kitty keyboard flag stacks, one per screen (kitty spec: "separate stacks for the main
    /// and alternate screens"); index 0 main, 1 alternate. The top is the last element.
    pub kitty: [Vec<u8>; 2],
    /// Bytes to send back to the program (query replies), drained by `Terminal::feed`.
    pub replies: Vec<u8>,
    pub title_changed: bool,
    pub bell: bool,
}

impl State {
    /// RIS (`ESC c`) resets the terminal: forget the title, cwd, shell-integration state and
    /// both kitty flag stacks. Replies already queued stay (they answer earlier queries).
    pub fn reset_for_ris(&mut self) {
        if self.title.is_some() {
            self.title_changed = true;
        }
        self.title = None;
        self.cwd = None;
        self.shell = None;
        self.kitty = Default::default();
    }

    /// OSC 0/2: a title over [`MAX_TITLE_BYTES`] is cut at a character boundary; empty clears it.
    fn set_title(&mut self, title: &[u8]) {
        let mut t = String::from_utf8_lossy(title).into_owned();
        if t.len() > MAX_TITLE_BYTES {
            let mut cut = MAX_TITLE_BYTES;
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            t.truncate(cut);
        }
        self.title = if t.is_empty() { None } else { Some(t) };
        self.title_changed = true;
    }

    pub fn kitty_flags(&self, alternate: bool) -> u8 {
        self.kitty[alternate as usize].last().copied().unwrap_or(0)
    }
}

fn first(params: &[&[u16]], default: u16) -> u16 {
    match params.first().and_then(|p| p.first()) {
        Some(&0) | None => default,
        Some(&n) => n,
    }
}

impl vt100::Callbacks for State {
    fn audible_bell(&mut self, _: &mut vt100::Screen) {
        self.bell = true;
    }

    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.set_title(title);
    }

    fn unhandled_osc(&mut self, _: &mut vt100::Screen, params: &[&[u8]]) {
        match params.first() {
            Some(&b"7") => {
                if let Some(path) = osc::decode_osc7(&osc::rest(params)) {
                    self.cwd = Some(path);
                }
            }
            Some(&b"133") => osc::apply_osc133(params, &mut self.shell),
            // OSC 0/2 with a `;` in the title arrive here split in pieces.
            Some(&b"0") | Some(&b"2") if params.len() > 2 => {
                let title = osc::rest(params);
                self.set_title(&title);
            }
            _ => {}
        }
    }

    fn unhandled_csi(
        &mut self,
        screen: &mut vt100::Screen,
        i1: Option<u8>,
        i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        let alt = screen.alternate_screen() as usize;
        match (i1, i2, c) {
            // DSR: status report (5) and cursor position report (6), ECMA-48 8.3.35.
            (None, None, 'n') => match first(params, 0) {
                5 => self.replies.extend_from_slice(b"\x1b[0n"),
                6 => {
                    let (row, col) = screen.cursor_position();
                    self.replies
                        .extend_from_slice(format!("\x1b[{};{}R", row + 1, col + 1).as_bytes());
                }
                _ => {}
            },
            // DECXCPR: CSI ? 6 n answers CSI ? row ; col R.
            (Some(b'?'), None, 'n') if first(params, 0) == 6 => {
                let (row, col) = screen.cursor_position();
                self.replies
                    .extend_from_slice(format!("\x1b[?{};{}R", row + 1, col + 1).as_bytes());
            }
            // DA1: a VT220 with ANSI color (xterm's ctlseqs, "Send Device Attributes").
            (None, None, 'c') if first(params, 0) == 0 => {
                self.replies.extend_from_slice(crate::vt::callbacks::DA1_REPLY);
            }
            // DA2: terminal type 0, firmware version, ROM 0.
            (Some(b'>'), None, 'c') if first(params, 0) == 0 => {
                self.replies.extend_from_slice(crate::vt::callbacks::DA2_REPLY);
            }
            // XTVERSION: CSI > q answers DCS > | name ST.
            (Some(b'>'), None, 'q') => {
                self.replies.extend_from_slice(
                    format!("\x1bP>|wterm-rs {}\x1b\\", env!("CARGO_PKG_VERSION")).as_bytes(),
                );
            }
            // Kitty keyboard protocol: query, push, pop, set.
            (Some(b'?'), None, 'u') => {
                let flags = self.kitty_flags(alt == 1);
                self.replies.extend_from_slice(format!("\x1b[?{flags}u").as_bytes());
            }
            (Some(b'>'), None, 'u') => {
                let stack = &mut self.kitty[alt];
                if stack.len() >= KITTY_STACK_DEPTH {
                    stack.remove(0);
                }
                stack.push(kitty_flags_value(params.first().and_then(|p| p.first()).copied()));
            }
            (Some(b'<'), None, 'u') => {
                let n = usize::from(first(params, 1));
                let stack = &mut self.kitty[alt];
                let keep = stack.len().saturating_sub(n);
                stack.truncate(keep);
            }
            (Some(b'='), None, 'u') => {
                let flags = kitty_flags_value(params.first().and_then(|p| p.first()).copied());
                let mode = params.get(1).and_then(|p| p.first()).copied().unwrap_or(1);
                let stack = &mut self.kitty[alt];
                let cur = stack.last().copied().unwrap_or(0);
                let new = match mode {
                    2 => cur | flags,
                    3 => cur & !flags,
                    _ => flags,
                };
                match stack.last_mut() {
                    Some(top) => *top = new,
                    None => stack.push(new),
                }
            }
            _ => {}
        }
    }
}

/// Kitty flags occupy five bits (1 disambiguate, 2 event types, 4 alternate keys, 8 all keys as
/// escape codes, 16 associated text); other bits are dropped.
fn kitty_flags_value(p: Option<u16>) -> u8 {
    (p.unwrap_or(0) & 0x1f) as u8
}

/// Reply to primary device attributes (`CSI c`): VT220 (62) with ANSI color (22).
pub(crate) const DA1_REPLY: &[u8] = b"\x1b[?62;22c";
/// Reply to secondary device attributes (`CSI > c`).
pub(crate) const DA2_REPLY: &[u8] = b"\x1b[>0;10;1c";

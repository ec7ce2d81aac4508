//! Agent activity told to the pages: the `{"type":"agent","kind","tool","at","by"}` websocket frame
//! (broker contract, "Websocket /ws"), sent by the one dispatch point of the broker operations
//! (`ops::dispatch`) once an operation on a window has been admitted (ladder and fields passed),
//! before it runs, so a page shows a long wait or a paced write as it starts.
//!
//! Reads are told at most once per [`AGENT_READ_NOTICE_MS`] per window; writes every time.

use wterm_core::Author;

use super::hub::Window;
use super::window::WindowState;
use crate::ground::author::AuthorFacts;
use crate::ground::limits::AGENT_READ_NOTICE_MS;
use crate::session::{epoch_ms, ToPage};

/// What an agent did to a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// It read the screen (`read_screen`).
    Read,
    /// It typed, pressed keys, ran a command, or changed the window's input or screen copy
    /// (`send_input`, `send_keys`, `run_command`, `reset_terminal`, `flush_input`, `set_pace`).
    Write,
}

impl Kind {
    /// `"read"` or `"write"`, the frame's `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
        }
    }
}

/// Tells the pages attached to `window` that an agent used `tool` on it now. Returns whether a
/// frame was queued (false: a read inside the rate limit, or no page attached).
pub fn tell(window: &Window, kind: Kind, tool: &str, by: &Author) -> bool {
    let Some(state) = WindowState::of(&window.session) else {
        return false;
    };
    // No page to tell: a read here must not use up the next one's notice.
    if window.session.pages() == 0 {
        return false;
    }
    let at = epoch_ms();
    if kind == Kind::Read && !state.take_read_notice(at, AGENT_READ_NOTICE_MS) {
        return false;
    }
    let frame = ToPage::Agent {
        kind: kind.as_str(),
        tool,
        at,
        by: AuthorFacts::of(by),
    }
    .to_json();
    window.session.tell_pages(&frame) > 0
}

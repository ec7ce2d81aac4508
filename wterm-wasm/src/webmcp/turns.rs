//! Turn-taking between the person and the page's agent (spec `webmcp-tools.md`,
//! "Turn-taking"): a line belongs to whoever began it. While an agent's `submit` has typed its
//! text and its Enter is pending ([`SUBMIT_DELAY_MS`]), the person's input is held and goes
//! right after that Enter, so it can never join the agent's line. A Ctrl+C from the person is
//! never held: it cancels the pending Enter (the call answers `person_interrupted`) and goes at
//! once with what was held before it.
//!
//! [`SUBMIT_DELAY_MS`]: crate::limits::SUBMIT_DELAY_MS

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::calls::{run_queued_soon, Calls, Settle};
use super::tools::Tool;
use crate::limits::PERSON_HOLD_MAX_BYTES;
use crate::term::{Inner, Shared};
use wterm_core::agent::turns;

/// What happens to a chunk of the person's input.
pub(crate) enum Hold {
    /// Nothing pending: it goes now.
    Send,
    /// Held until the pending Enter is pressed.
    Held,
    /// It interrupts the agent: `held` goes first, then the chunk; the cancelled calls are
    /// answered with [`answer_interrupted`] once it went.
    SendAfter { held: Vec<u8>, settles: Vec<Settle> },
}

/// Decides about the person's `bytes` (ETX, Ctrl+C, interrupts; so does more than
/// [`PERSON_HOLD_MAX_BYTES`] held), holding them in `inner` when an agent's Enter is pending.
pub(crate) fn hold_person_input(inner: &mut Inner, bytes: &[u8]) -> Hold {
    let mcp = &mut inner.mcp;
    if mcp.submits.is_empty() {
        return if mcp.held.is_empty() {
            Hold::Send
        } else {
            Hold::SendAfter {
                held: std::mem::take(&mut mcp.held),
                settles: Vec::new(),
            }
        };
    }
    if !bytes.contains(&0x03) && mcp.held.len() + bytes.len() <= PERSON_HOLD_MAX_BYTES {
        mcp.held.extend_from_slice(bytes);
        return Hold::Held;
    }
    let mut settles = Vec::with_capacity(mcp.submits.len());
    for s in std::mem::take(&mut mcp.submits) {
        mcp.input.enter_done(s.input.seq, None);
        settles.push(s.settle);
    }
    let held = std::mem::take(&mut mcp.held);
    run_queued_soon(inner);
    Hold::SendAfter { held, settles }
}

/// `Err(message)` when agent input `bytes` submits a line while the person is typing one
/// (wterm-core `agent::turns`, the relay's rule too); the message names the code and what to do.
pub(crate) fn gate(inner: &Inner, bytes: &[u8]) -> Result<(), String> {
    let line = inner.term.command_line_typed();
    if !turns::submits(bytes) || !inner.mcp.typists.person_holds(line, crate::dom::now_ms()) {
        return Ok(());
    }
    let (read, keys) = (Tool::Read.name(), Tool::Press.name());
    Err(format!(
        "{}: {}: {}",
        turns::CODE,
        turns::MEANING,
        turns::detail(read, keys)
    ))
}

/// Answers the calls whose Enter the person's Ctrl+C cancelled.
pub(crate) fn answer_interrupted(settles: Vec<Settle>) {
    if settles.is_empty() {
        return;
    }
    let result = super::tools::error_result(
        "person_interrupted: the person pressed Ctrl+C (or typed more than can be held) before \
         this call's Enter: the text was typed, Enter was not pressed, and the person's keys \
         went after it; read the terminal (read_terminal) before typing again",
    );
    for s in settles {
        s.resolve(&result);
    }
}

/// Sends the person's input held behind an Enter, once none is pending.
pub(crate) fn flush_held(shared: &Shared) {
    let held = {
        let Ok(mut inner) = shared.try_borrow_mut() else {
            return;
        };
        if !inner.mcp.submits.is_empty() {
            return;
        }
        std::mem::take(&mut inner.mcp.held)
    };
    if !held.is_empty() {
        crate::term::send_input(shared, &held);
    }
}

/// [`flush_held`] in a microtask: the caller holds the terminal's borrow.
pub(crate) fn flush_held_soon(inner: &Inner) {
    flush_held_soon_of(&inner.mcp);
}

/// [`flush_held_soon`] from the terminal's calls alone.
pub(crate) fn flush_held_soon_of(calls: &Calls) {
    if calls.held.is_empty() {
        return;
    }
    let w = calls.weak.clone();
    let task = Closure::once_into_js(move || {
        if let Some(shared) = w.upgrade() {
            flush_held(&shared);
        }
    });
    if let Some(window) = web_sys::window() {
        window.queue_microtask(task.unchecked_ref());
    }
}

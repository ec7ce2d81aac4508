//! Ordered input: keys or text sent while a command line submitted before them has not yet
//! started reach the program the caller meant.
//!
//! The race it closes: `send_input "yes\n"` then at once `send_keys ["C-c"]`. The Ctrl-C may
//! reach the PTY while the shell is still reading the line: the terminal driver turns it into
//! SIGINT for the shell and flushes the unread input (the line is lost), or the shell takes it
//! just before it starts `yes`, which then runs on. So when an input operation writes Enter
//! while the shell holds the PTY's foreground (it is reading a line), the window notes the
//! submission; the next input operation first waits until that command has started: its job
//! took the foreground, or the shell reported it finished (a builtin), or
//! [`SUBMIT_START_WAIT_MS`] passed (an empty line, a shell without integration).

use std::time::Duration;

use tokio::time::Instant;
use wterm_core::agent::{next_command_id, secret_prompt, turns};
use wterm_core::Author;

use super::window::{Submitted, WindowState};
use crate::ground::limits::{ECHO_WAIT_MS, LINE_RECHECK_MS, SUBMIT_POLL_MS, SUBMIT_START_WAIT_MS};
use crate::ground::Refusal;
use crate::session::{pty, Session};

/// Whether the command of a line submitted with `next_id` has started: the shell reported it
/// finished (a builtin), or a job holds the foreground and is past the shell's own code (see
/// [`job_running`]), or the shell reported it running and, holding the foreground itself,
/// waits for input: a builtin reading a line (`read -p`), which the input is for.
fn started(session: &Session, next_id: u64) -> bool {
    let (done, running) = session.inspect(|l| {
        let t = &*l.terminal;
        (
            t.commands().rev().any(|r| r.id >= next_id),
            t.running_command().is_some_and(|r| r.id >= next_id),
        )
    });
    if done {
        return true;
    }
    match (session.foreground_pgrp(), session.pid()) {
        (Some(fg), Some(shell)) if fg != shell => job_running(fg, shell),
        (Some(_), Some(shell)) => running && pty::waiting_for_input(shell),
        _ => false,
    }
}

/// Whether the foreground job `fg` (a process group leader) forked by `shell` runs the
/// program: it has exec'd (its executable is no longer the shell's), or a SIGINT would end it
/// (neither caught nor ignored). Between the fork and the exec the child still runs the
/// shell's code with the shell's SIGINT handler, which takes a Ctrl-C without passing it on:
/// that is how `yes` used to run on after an early Ctrl-C. Read from `/proc` (Linux).
fn job_running(fg: u32, shell: u32) -> bool {
    let exe = |pid: u32| std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    if exe(fg).is_some_and(|e| Some(e) != exe(shell)) {
        return true;
    }
    let Ok(status) = std::fs::read_to_string(format!("/proc/{fg}/status")) else {
        // Gone already: nothing of it can take the Ctrl-C any more.
        return true;
    };
    let mask = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
            .unwrap_or(0)
    };
    let sigint = 1u64 << (libc::SIGINT - 1);
    (mask("SigCgt:") | mask("SigIgn:")) & sigint == 0
}

/// Waits (at most [`SUBMIT_START_WAIT_MS`] after the submission) until the command of the
/// line last submitted in this window has started. Returns at once when there is none.
pub async fn await_start(session: &Session, state: &WindowState) {
    let Some(sub) = state.submitted().filter(|s| !s.started) else {
        return;
    };
    let deadline = sub.at + Duration::from_millis(SUBMIT_START_WAIT_MS);
    let mut changes = session.subscribe();
    loop {
        changes.borrow_and_update();
        let now = Instant::now();
        if now >= deadline || session.has_ended() || started(session, sub.next_command_id) {
            state.mark_started();
            return;
        }
        let poll = deadline.min(now + Duration::from_millis(SUBMIT_POLL_MS));
        tokio::select! {
            _ = changes.changed() => {}
            () = tokio::time::sleep_until(poll) => {}
        }
    }
}

/// Waits for the line editor's answer to input written just before a `run_command`, at most
/// until [`ECHO_WAIT_MS`] after that write: until the input has been taken and answered
/// ([`Session::input_settled`]: written, read by the shell, which sleeps again, its output in
/// the emulator), so the command line on the screen is the shell's. Output arriving after the
/// write proves nothing: it may answer earlier input (a late redraw of a Ctrl-U), while the
/// echo of text typed just now is still to come. Where the kernel cannot be asked, until output
/// has arrived since the write and the line looks empty.
pub async fn await_echo(session: &Session) {
    let Some(written) = session.last_input() else {
        return;
    };
    let deadline = written + Duration::from_millis(ECHO_WAIT_MS);
    let mut changes = session.subscribe();
    // Settled on two looks in a row, one poll apart, with no change between: a sample of
    // process states can catch a thread between two steps.
    let mut settled_at: Option<u64> = None;
    loop {
        let version = *changes.borrow_and_update();
        if session.has_ended() || Instant::now() >= deadline {
            return;
        }
        let answered = match session.input_settled() {
            Some(true) => {
                if settled_at == Some(version) {
                    true
                } else {
                    settled_at = Some(version);
                    false
                }
            }
            Some(false) => {
                settled_at = None;
                false
            }
            None => {
                session.input_unanswered().is_none()
                    && session.inspect(|l| l.terminal.command_line_typed()) != Some(true)
            }
        };
        if answered {
            return;
        }
        let poll = deadline.min(Instant::now() + Duration::from_millis(SUBMIT_POLL_MS));
        tokio::select! {
            _ = changes.changed() => {}
            () = tokio::time::sleep_until(poll) => {}
        }
    }
}

/// Whether the shell's command line holds text ([`wterm_core::Terminal::command_line_typed`]),
/// after [`await_echo`]. A line that looks typed is looked at again as output arrives until
/// [`LINE_RECHECK_MS`] after the last input: the settle check may have run before the kernel
/// gave the shell the last byte written (a Ctrl-U whose redraw is still to come).
pub async fn line_typed(session: &Session) -> Option<bool> {
    let typed = || session.inspect(|l| l.terminal.command_line_typed());
    let Some(written) = session.last_input() else {
        return typed();
    };
    let deadline = written + Duration::from_millis(LINE_RECHECK_MS);
    let mut changes = session.subscribe();
    loop {
        changes.borrow_and_update();
        let now = typed();
        if now != Some(true) || session.has_ended() || Instant::now() >= deadline {
            return now;
        }
        tokio::select! {
            _ = changes.changed() => {}
            () = tokio::time::sleep_until(deadline) => {}
        }
    }
}

/// The shell is reading a command line (it holds the PTY's foreground); taken before writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtPrompt {
    /// The id the command of the line will have.
    next_command_id: u64,
}

/// Whether a byte submits a line: CR (Enter) or LF (Ctrl-J, which bash, zsh and fish accept as
/// Enter too).
fn is_enter(b: u8) -> bool {
    b == b'\r' || b == b'\n'
}

/// [`AtPrompt`] when the shell is reading a command line now: it holds the PTY's foreground
/// and, when it reports its commands, none is running (a builtin such as `read` also runs in
/// the shell's own process, and a line typed to it starts no command).
pub fn at_prompt(session: &Session) -> Option<AtPrompt> {
    if !session.shell_in_foreground() {
        return None;
    }
    session.inspect(|l| {
        let t = &*l.terminal;
        t.running_command().is_none().then(|| AtPrompt {
            next_command_id: next_command_id(t),
        })
    })
}

/// After writing `bytes`: when they hold Enter (CR or LF) and the shell was reading a line, notes the
/// submission so the next input waits for its command to start. Returns the command id the
/// line will have.
pub fn note_written(state: &WindowState, at: Option<AtPrompt>, bytes: &[u8]) -> Option<u64> {
    let at = at.filter(|_| bytes.iter().any(|b| is_enter(*b)))?;
    state.set_submitted(Submitted {
        next_command_id: at.next_command_id,
        at: Instant::now(),
        started: false,
    });
    Some(at.next_command_id)
}

/// Why [`write_numbered`] stopped before the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The session's writer is gone: the process exited.
    Exited,
    /// The terminal waits for a secret ([`secret_gate`]); the rest was not sent.
    SecretPrompt,
}

/// What [`write_numbered`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// The call's number in the window's input sequence (`None` when nothing was written).
    pub seq: Option<u64>,
    /// Bytes written.
    pub bytes: usize,
    /// Why it stopped early, if it did.
    pub stopped: Option<Stopped>,
}

/// `Err(secret_prompt)` when agent input `bytes` may not go to `session` now: the terminal
/// waits for a secret and the person has not let agents type there
/// ([`wterm_core::agent::secret_prompt::admits`]); the line discipline is read afresh.
pub fn secret_gate(session: &Session, bytes: &[u8]) -> Result<(), Refusal> {
    let prompt = session.at_secret_prompt();
    if secret_prompt::admits(prompt, session.agents_may_type_secrets(), bytes) {
        Ok(())
    } else {
        Err(Refusal::SecretPrompt)
    }
}

/// `Err(person_typing)` when agent input `bytes` submits a line while a person at a page holds
/// the shell's command line ([`Session::person_holds_line`], wterm-core `agent::turns`, the
/// page's rule too); nothing may be sent then.
pub fn turn_gate(session: &Session, bytes: &[u8]) -> Result<(), Refusal> {
    if turns::submits(bytes) && session.person_holds_line() {
        Err(Refusal::PersonTyping)
    } else {
        Ok(())
    }
}

/// Writes `author`'s `bytes` to the session in order with the lines they submit: each piece up
/// to and including a CR is written only once the command of the line submitted before it has
/// started ([`await_start`]); LF counts as Enter. Numbers the call in the window's input
/// sequence as `tool` right before its first byte is written (`None`: not numbered). Each
/// piece passes [`secret_gate`] first: a line submitted earlier in `bytes` may start a program
/// that asks for a secret, and what follows is then not sent.
pub async fn write_numbered(
    session: &Session,
    state: &WindowState,
    bytes: bytes::Bytes,
    tool: Option<&'static str>,
    author: &Author,
) -> Written {
    let mut done = Written {
        seq: None,
        bytes: 0,
        stopped: None,
    };
    let mut rest = bytes;
    while !rest.is_empty() {
        let cut = rest
            .iter()
            .position(|b| is_enter(*b))
            .map_or(rest.len(), |i| i + 1);
        let piece = rest.split_to(cut);
        await_start(session, state).await;
        if secret_gate(session, &piece).is_err() {
            done.stopped = Some(Stopped::SecretPrompt);
            return done;
        }
        let at = at_prompt(session);
        if let Some(tool) = tool {
            match done.seq {
                None => done.seq = Some(state.input_sent(tool, piece.len())),
                Some(n) => state.input_more(n, piece.len()),
            }
        }
        if !session.write(piece.clone(), author).await {
            done.stopped = Some(Stopped::Exited);
            return done;
        }
        done.bytes += piece.len();
        note_written(state, at, &piece);
    }
    done
}

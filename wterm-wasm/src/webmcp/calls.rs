//! Tool calls in progress for one terminal: waiting `read_terminal`s, the pending Enter of
//! `type_in_terminal` with `submit`, and input calls queued behind that Enter; with them the
//! terminal's input sequence (spec "Input sequence"). They belong to the terminal ([`Calls`]
//! is a field of `term::Inner`): destroying or withdrawing it ends them all with an error
//! result, so a wait can never return output written afterwards.
//!
//! Waits are driven by output, never by polling (spec `read_terminal`). A write with waiters
//! present asks for one check at the next animation frame (the frame that draws the output), or
//! after [`HIDDEN_CHECK_MS`] when the page is hidden and gets no frames. At most once per
//! [`EAGER_CHECK_INTERVAL_MS`], a write is also checked at once, in a microtask after the task
//! that wrote it: output after a quiet spell (a command's answer) ends a wait in well under a
//! frame, while a flood of output still costs at most about two checks per frame. A check is
//! cheap for the screen but not for a wait over thousands of rows of scrollback (`lines`), so
//! after each check the next one waits in proportion to its cost ([`CHECK_COST_FACTOR`]). Each
//! waiter also has one timer for the moment it must be looked at without output: its idle
//! period ends or its timeout passes.

use std::cell::RefCell;
use std::rc::Weak;

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;
use wterm_core::{Terminal, TextRow};

use super::redaction::Redaction;
use crate::dom::{now_ms, page_hidden, Listener, Timeout};
use crate::limits::{CHECK_COST_FACTOR, EAGER_CHECK_INTERVAL_MS, HIDDEN_CHECK_MS};
use crate::term::Inner;
use wterm_core::agent::input::InputSequence;
use wterm_core::agent::wait::{verdict, Verdict, WaitClock, WaitSpec};
use wterm_core::agent::{CommandWait, NewOutput};

/// A call's promise: settled exactly once, by whoever removes the call from [`Calls`].
pub(crate) struct Settle {
    pub(crate) resolve: Function,
    pub(crate) reject: Function,
}

impl Settle {
    /// Resolves with a JSON string.
    pub(crate) fn resolve(&self, result: &JsValue) {
        let _ = self.resolve.call1(&JsValue::UNDEFINED, result);
    }

    /// Rejects with `reason` (the agent cancelled the call).
    pub(crate) fn reject(&self, reason: &JsValue) {
        let _ = self.reject.call1(&JsValue::UNDEFINED, reason);
    }
}

/// What a wait waits for and how it answers.
pub(crate) struct WaitCore {
    pub(crate) lines: Option<usize>,
    pub(crate) wait_for: Option<String>,
    pub(crate) spec: WaitSpec,
    pub(crate) clock: WaitClock,
    /// `newOutputOnly`: where `wait_for` is looked for.
    pub(crate) new_from: Option<NewOutput>,
    pub(crate) answer: Answer,
}

/// What an answer carries besides the state and the text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Answer {
    /// `type_in_terminal` and `press_terminal_keys`: what the call sent; the answer starts with
    /// `ok`, `terminal`, `seq`, `bytes` and `typed`, `submitted` or `pressed`.
    pub(crate) input: Option<InputAnswer>,
    /// `waitForCommand`: the command whose result goes in `command` (once it exists); waiting
    /// means waiting until it finished.
    pub(crate) command: Option<CommandWait>,
    /// [`Calls::person_inputs`] when the call started: more at the answer is `typeahead: true`.
    pub(crate) person_from: u64,
}

/// What an accepted input call sent (spec "Input sequence").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InputAnswer {
    /// The call's number in its terminal's input sequence, from 1; 0 while it has sent no byte
    /// (answered as `seq: null`).
    pub(crate) seq: u64,
    /// Bytes sent to the program, the Enter of a submit included once it is pressed.
    pub(crate) bytes: usize,
    pub(crate) kind: InputKind,
}

/// The tool-specific part of an [`InputAnswer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputKind {
    /// `type_in_terminal`: characters (Unicode scalars) typed, and whether Enter was pressed.
    Typed { chars: usize, submitted: bool },
    /// `press_terminal_keys`: keys pressed.
    Pressed(usize),
}

/// An input call that arrived while an earlier call's Enter was pending on the same terminal:
/// it runs once that Enter is pressed or cancelled, so calls reach the program in the order of
/// their sequence numbers and never interleave. Until then it has sent nothing and has no
/// number; cancelling it then means nothing of it went out.
pub(crate) struct Queued {
    pub(crate) call: u64,
    pub(crate) tool: super::tools::Tool,
    pub(crate) input: JsValue,
    pub(crate) client: JsValue,
    pub(crate) settle: Settle,
    /// Rejects the call when the agent's `AbortSignal` fires.
    pub(crate) _abort: Option<Listener>,
}

/// A `waitForCommand` call made before the shell the relay injected integration into drew its
/// first prompt: it runs once the shell reports, or is refused after
/// [`FIRST_PROMPT_WAIT_MS`](wterm_core::agent::FIRST_PROMPT_WAIT_MS).
pub(crate) struct AwaitingPrompt {
    pub(crate) queued: Queued,
    /// Refuses the call when the wait is over.
    pub(crate) _timer: Option<Timeout>,
}

/// A `read_terminal` (or a `type_in_terminal` that waits) waiting for text, idle output, a
/// command's end or its timeout.
pub(crate) struct Waiter {
    pub(crate) call: u64,
    pub(crate) core: WaitCore,
    pub(crate) settle: Settle,
    /// Fires when the wait must be checked without output.
    pub(crate) timer: Option<Timeout>,
    /// Rejects the call when the agent's `AbortSignal` fires.
    pub(crate) _abort: Option<Listener>,
}

/// The Enter of a `type_in_terminal` with `submit: true`, due [`SUBMIT_DELAY_MS`] after the
/// text.
///
/// [`SUBMIT_DELAY_MS`]: crate::limits::SUBMIT_DELAY_MS
pub(crate) struct Submit {
    pub(crate) call: u64,
    pub(crate) settle: Settle,
    /// The answer once Enter is pressed (its bytes then grow by the Enter's).
    pub(crate) input: InputAnswer,
    /// The wait that follows the Enter, and the agent's signal for it.
    pub(crate) then: Option<(WaitCore, Option<AbortSignal>)>,
    /// Presses Enter.
    pub(crate) _timer: Option<Timeout>,
    /// Cancels the Enter when the agent's `AbortSignal` fires.
    pub(crate) _abort: Option<Listener>,
}

/// The WebMCP state of one terminal that lives with it.
pub(crate) struct Calls {
    /// The terminal's id in the page registry.
    pub(crate) id: u64,
    /// The terminal's own handle, for the timers it starts (set by `init()`).
    pub(crate) weak: Weak<RefCell<Inner>>,
    next_call: u64,
    pub(crate) waiters: Vec<Waiter>,
    pub(crate) submits: Vec<Submit>,
    /// Input calls waiting for a pending Enter, oldest first.
    pub(crate) queued: Vec<Queued>,
    /// The relay injected shell integration into this terminal's shell (`setInjectedShell`):
    /// its first prompt will report, so a `waitForCommand` before it waits for it.
    pub(crate) integration_expected: bool,
    /// `waitForCommand` calls waiting for that first prompt, oldest first.
    pub(crate) awaiting_prompt: Vec<AwaitingPrompt>,
    /// The accepted input calls (spec "Input sequence").
    pub(crate) input: InputSequence,
    /// Whether the relay says a secret prompt is shown (spec "Secret prompts").
    pub(crate) secret: super::secret_prompt::SecretPrompt,
    /// The person's input held while an agent's Enter is pending (spec "Turn-taking").
    pub(crate) held: Vec<u8>,
    /// Chunks of the person's input sent to the program so far (keyboard, paste, IME, touch,
    /// mouse reports, `input()`): a wait that sees it grow answers `typeahead: true`.
    pub(crate) person_inputs: u64,
    /// Who last typed and when (spec "Turn-taking": an agent's Enter onto the person's line is
    /// refused).
    pub(crate) typists: wterm_core::agent::turns::Typists,
    /// When output last arrived while a wait was in progress (`performance.now()` ms).
    pub(crate) last_output: f64,
    /// Enter reached the program while no command ran: `Some(newest record id then)`; the
    /// command that line starts is the first record newer than it.
    pub(crate) submitted: Option<Option<u64>>,
    /// Output arrived since the last check: check at the next frame.
    check_due: bool,
    /// When the last microtask check was queued (`performance.now()` ms); at most one is
    /// queued per [`EAGER_CHECK_INTERVAL_MS`].
    last_eager: f64,
    /// No output-driven check before this time (`performance.now()` ms): see
    /// [`CHECK_COST_FACTOR`].
    next_check_at: f64,
    /// The check that stands in for a frame while the page is hidden, or that runs a check put
    /// off by [`CHECK_COST_FACTOR`].
    check_timer: Option<Timeout>,
}

thread_local! {
    static NEXT_TERMINAL_ID: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
}

impl Calls {
    /// The state of a new terminal, with a fresh id.
    pub(crate) fn new() -> Calls {
        let id = NEXT_TERMINAL_ID.with(|n| {
            let id = n.get();
            n.set(id + 1);
            id
        });
        Calls {
            id,
            weak: Weak::new(),
            next_call: 1,
            waiters: Vec::new(),
            submits: Vec::new(),
            queued: Vec::new(),
            integration_expected: false,
            awaiting_prompt: Vec::new(),
            input: InputSequence::default(),
            secret: Default::default(),
            held: Vec::new(),
            person_inputs: 0,
            typists: Default::default(),
            last_output: f64::MIN,
            submitted: None,
            check_due: false,
            last_eager: f64::MIN,
            next_check_at: f64::MIN,
            check_timer: None,
        }
    }

    /// The person's input `bytes` is going to the program.
    pub(crate) fn person_input(&mut self, bytes: &[u8]) {
        self.person_inputs += 1;
        self.typists.person_typed(bytes, crate::dom::now_ms());
    }

    /// A new call id, unique within this terminal.
    pub(crate) fn next_call(&mut self) -> u64 {
        let c = self.next_call;
        self.next_call += 1;
        c
    }

    /// Program output arrived: waiters are checked in a microtask (at most once per
    /// [`EAGER_CHECK_INTERVAL_MS`]), else at the next frame, or by a timer when the page is
    /// hidden.
    pub(crate) fn on_output(&mut self) {
        run_awaiting_soon(self);
        if self.waiters.is_empty() {
            return;
        }
        let now = now_ms();
        self.last_output = now;
        self.check_due = true;
        if now - self.last_eager >= EAGER_CHECK_INTERVAL_MS {
            self.last_eager = now;
            let w = self.weak.clone();
            // A one-shot closure: it frees itself when called, and a queued microtask always
            // runs, even after the terminal is gone.
            let eager = Closure::once_into_js(move || {
                if let Some(shared) = w.upgrade() {
                    if let Ok(mut inner) = shared.try_borrow_mut() {
                        run_due_check(&mut inner);
                    }
                }
            });
            if let Some(window) = web_sys::window() {
                window.queue_microtask(eager.unchecked_ref());
            }
        }
        if self.check_timer.is_none() && page_hidden() {
            self.arm_check_timer(f64::from(HIDDEN_CHECK_MS));
        }
    }

    /// Runs [`run_due_check`] in `delay_ms`.
    fn arm_check_timer(&mut self, delay_ms: f64) {
        let w = self.weak.clone();
        self.check_timer = Timeout::new(delay_ms, move || {
            if let Some(shared) = w.upgrade() {
                if let Ok(mut inner) = shared.try_borrow_mut() {
                    inner.mcp.check_timer = None;
                    run_due_check(&mut inner);
                }
            }
        });
    }

    /// Ends every call in progress with `{"error": message}` (destroyed or withdrawn).
    pub(crate) fn end_all(&mut self, message: &str) {
        let result = super::tools::error_result(message);
        for w in self.waiters.drain(..) {
            w.settle.resolve(&result);
        }
        for s in std::mem::take(&mut self.submits) {
            self.input.enter_done(s.input.seq, None);
            s.settle.resolve(&result);
        }
        for q in self.queued.drain(..) {
            q.settle.resolve(&result);
        }
        for a in self.awaiting_prompt.drain(..) {
            a.queued.settle.resolve(&result);
        }
        super::turns::flush_held_soon_of(self);
        self.check_due = false;
        self.check_timer = None;
    }
}

/// The `AbortSignal` a provider passed in `execute(input, client)` as `client.signal`, if any.
pub(crate) fn client_signal(client: &JsValue) -> Option<AbortSignal> {
    if !client.is_object() {
        return None;
    }
    js_sys::Reflect::get(client, &JsValue::from_str("signal"))
        .ok()?
        .dyn_into::<AbortSignal>()
        .ok()
}

/// Listens for the agent cancelling call `call` of the terminal behind `weak`: the call is
/// removed (by `remove`) and its promise rejected with the signal's reason.
pub(crate) fn on_abort(
    signal: &AbortSignal,
    weak: Weak<RefCell<Inner>>,
    remove: fn(&mut Inner, u64) -> Option<Settle>,
    call: u64,
) -> Option<Listener> {
    let s = signal.clone();
    Listener::new(signal, "abort", true, move |_| {
        let Some(shared) = weak.upgrade() else { return };
        let settle = match shared.try_borrow_mut() {
            Ok(mut inner) => remove(&mut inner, call),
            Err(_) => return,
        };
        if let Some(settle) = settle {
            settle.reject(&s.reason());
        }
    })
    .ok()
}

/// Removes waiter `call`; its timer and abort listener stop with it.
pub(crate) fn remove_waiter(inner: &mut Inner, call: u64) -> Option<Settle> {
    let i = inner.mcp.waiters.iter().position(|w| w.call == call)?;
    Some(inner.mcp.waiters.remove(i).settle)
}

/// Removes pending submit `call` (its Enter is never pressed); its timer and abort listener
/// stop with it, and the queued input calls go on.
pub(crate) fn remove_submit(inner: &mut Inner, call: u64) -> Option<Settle> {
    let i = inner.mcp.submits.iter().position(|s| s.call == call)?;
    let submit = inner.mcp.submits.remove(i);
    inner.mcp.input.enter_done(submit.input.seq, None);
    super::turns::flush_held_soon(inner);
    run_queued_soon(inner);
    Some(submit.settle)
}

/// Removes queued input call `call`, which has sent nothing.
pub(crate) fn remove_queued(inner: &mut Inner, call: u64) -> Option<Settle> {
    let i = inner.mcp.queued.iter().position(|q| q.call == call)?;
    Some(inner.mcp.queued.remove(i).settle)
}

/// Takes call `call` off the calls awaiting the first prompt.
pub(crate) fn remove_awaiting(inner: &mut Inner, call: u64) -> Option<Settle> {
    let i = inner
        .mcp
        .awaiting_prompt
        .iter()
        .position(|a| a.queued.call == call)?;
    Some(inner.mcp.awaiting_prompt.remove(i).queued.settle)
}

/// Runs the calls awaiting the first prompt, in a microtask, once the shell reports (or the
/// relay no longer says it will): they are checked after each output.
pub(crate) fn run_awaiting_soon(calls: &Calls) {
    if calls.awaiting_prompt.is_empty() {
        return;
    }
    let w = calls.weak.clone();
    let task = Closure::once_into_js(move || {
        let Some(shared) = w.upgrade() else { return };
        let ready = match shared.try_borrow_mut() {
            Ok(mut inner)
                if !inner.mcp.integration_expected
                    || wterm_core::agent::integration_known(&inner.term) =>
            {
                std::mem::take(&mut inner.mcp.awaiting_prompt)
            }
            _ => return,
        };
        drop(shared);
        for a in ready {
            let q = a.queued;
            let answer = super::tools::run(q.tool, &q.input, &q.client, true);
            q.settle.resolve(&answer);
        }
    });
    if let Some(window) = web_sys::window() {
        window.queue_microtask(task.unchecked_ref());
    }
}

/// Runs the queued input calls once no Enter is pending, in a microtask: the caller holds the
/// terminal's borrow, and a call runs without one.
pub(crate) fn run_queued_soon(inner: &Inner) {
    if inner.mcp.queued.is_empty() || !inner.mcp.submits.is_empty() {
        return;
    }
    let w = inner.mcp.weak.clone();
    let task = Closure::once_into_js(move || run_queued(&w));
    if let Some(window) = web_sys::window() {
        window.queue_microtask(task.unchecked_ref());
    }
}

/// Runs queued input calls in order until one leaves an Enter pending (the rest wait for it).
fn run_queued(weak: &Weak<RefCell<Inner>>) {
    loop {
        let Some(shared) = weak.upgrade() else { return };
        let next = match shared.try_borrow_mut() {
            Ok(mut inner) if inner.mcp.submits.is_empty() && !inner.mcp.queued.is_empty() => {
                inner.mcp.queued.remove(0)
            }
            _ => return,
        };
        drop(shared);
        let answer = super::tools::run(next.tool, &next.input, &next.client, false);
        // Resolving with a Promise (a call that waits) adopts it.
        next.settle.resolve(&answer);
    }
}

/// Checks all waiters if output arrived since the last check (from the animation frame, the
/// microtask after a write, or the hidden-page timer). A check that comes too soon after an
/// expensive one (see [`CHECK_COST_FACTOR`]) is put off with a timer instead.
pub(crate) fn run_due_check(inner: &mut Inner) {
    if !inner.mcp.check_due {
        return;
    }
    let start = now_ms();
    if start < inner.mcp.next_check_at {
        if inner.mcp.check_timer.is_none() {
            let delay = inner.mcp.next_check_at - start;
            inner.mcp.arm_check_timer(delay);
        }
        return;
    }
    inner.mcp.check_due = false;
    inner.mcp.check_timer = None;
    check(inner, None);
    let end = now_ms();
    inner.mcp.next_check_at = end + CHECK_COST_FACTOR * (end - start);
}

/// Checks the waiters (all, or only `only`): those whose wait is over are answered and
/// removed; the others get a timer for when they must be looked at again.
pub(crate) fn check(inner: &mut Inner, only: Option<u64>) {
    if inner.mcp.waiters.is_empty() {
        return;
    }
    let now = now_ms();
    let last_output = inner.mcp.last_output;
    let waiters = std::mem::take(&mut inner.mcp.waiters);
    let mut pending = Vec::with_capacity(waiters.len());
    for mut w in waiters {
        if only.is_some_and(|c| c != w.call) {
            pending.push(w);
            continue;
        }
        match evaluate(inner, &mut w.core, now, last_output) {
            Ok(answer) => w.settle.resolve(&answer),
            Err(due) => {
                arm(&mut w, inner.mcp.weak.clone(), due - now);
                pending.push(w);
            }
        }
    }
    inner.mcp.waiters = pending;
}

/// Whether what a wait waits for (besides idle output) is there: its command finished or asks
/// for a secret (a person must answer: `secretPrompt` in the answer), or its `waitFor` text is in the rows read (already redacted by the caller), or, with
/// `newOutputOnly`, in the new rows as `red` redacts them: a wait sees what the agent reads.
fn condition(
    term: &mut Terminal,
    secret_prompt: bool,
    w: &WaitCore,
    rows: &[TextRow],
    red: &Redaction,
) -> bool {
    if let Some(c) = w.answer.command {
        return secret_prompt || c.finished(term);
    }
    match (&w.wait_for, &w.new_from) {
        (Some(needle), Some(from)) => red.rows_contain(from.rows(term, 0), needle),
        (Some(needle), None) => wterm_core::rows_contain(rows, needle),
        (None, _) => false,
    }
}

/// Checks one wait at `now`: `Ok(answer)` when it is over (done or timed out), `Err(due)` when
/// it must be looked at again by `due` even without output.
pub(crate) fn evaluate(
    inner: &mut Inner,
    w: &mut WaitCore,
    now: f64,
    last_output: f64,
) -> Result<JsValue, f64> {
    let mut rows = inner.term.read_rows(w.lines);
    let mut red = Redaction::of(inner);
    // `waitFor` on the rows read matches what the answer would carry; other waits leave the
    // rows to the answer.
    let matched_in_rows =
        w.answer.command.is_none() && w.new_from.is_none() && w.wait_for.is_some();
    if matched_in_rows {
        red.rows(&mut rows);
    }
    let present = condition(&mut inner.term, inner.mcp.secret.active, w, &rows, &red);
    let timed_out = match verdict(w.spec, &mut w.clock, present, last_output, now) {
        Verdict::Done => false,
        Verdict::TimedOut => true,
        Verdict::Pending { due } => return Err(due),
    };
    if !matched_in_rows {
        red.rows(&mut rows);
    }
    Ok(super::tools::read_result(
        inner, &rows, timed_out, w.answer, red,
    ))
}

/// Starts wait `core` for a call answered through `settle`: answered at once when it is already
/// over, else kept as a waiter (cancelled by `signal`).
pub(crate) fn start_wait(
    inner: &mut Inner,
    mut core: WaitCore,
    settle: Settle,
    signal: Option<&AbortSignal>,
) {
    let now = now_ms();
    let last_output = inner.mcp.last_output;
    match evaluate(inner, &mut core, now, last_output) {
        Ok(answer) => settle.resolve(&answer),
        Err(due) => push_waiter(inner, core, settle, signal, due - now),
    }
}

/// Keeps a wait that is not over, checked again in `delay_ms` or on output.
pub(crate) fn push_waiter(
    inner: &mut Inner,
    core: WaitCore,
    settle: Settle,
    signal: Option<&AbortSignal>,
    delay_ms: f64,
) {
    let call = inner.mcp.next_call();
    let weak = inner.mcp.weak.clone();
    let mut waiter = Waiter {
        call,
        core,
        settle,
        timer: None,
        _abort: signal.and_then(|s| on_abort(s, weak.clone(), remove_waiter, call)),
    };
    arm(&mut waiter, weak, delay_ms);
    inner.mcp.waiters.push(waiter);
}

/// Sets waiter `w`'s timer to check it again in `delay_ms`.
pub(crate) fn arm(w: &mut Waiter, weak: Weak<RefCell<Inner>>, delay_ms: f64) {
    let call = w.call;
    // Timers may fire a little early against `performance.now()`; a check that finds itself
    // early simply sets the timer again.
    w.timer = Timeout::new(delay_ms.max(0.0) + 1.0, move || {
        if let Some(shared) = weak.upgrade() {
            if let Ok(mut inner) = shared.try_borrow_mut() {
                check(&mut inner, Some(call));
            }
        }
    });
}

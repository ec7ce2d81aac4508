//! The shared handle behind a `WTerm`: the terminal, the page callbacks, the view state and,
//! once initialized, the DOM. Keyboard handlers and the WebMCP tools reach the terminal through
//! it, and [`send_input`] is the one path by which anything reaches the program.
//!
//! Borrowing rule: a `RefCell` borrow of [`Inner`] is never held while page code runs. Work that
//! calls page callbacks collects them in an [`Outbox`] under the borrow and delivers it after,
//! so a callback may call back into the terminal (`onData` → `write`, `onResize` → `fit`).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{FocusOptions, HtmlElement, ResizeObserver};
use wterm_core::{Author, AuthorKind, Size, Terminal};

use crate::js::{bytes_to_string, size_object, Callbacks, Outbox, WebMcpConfig};
use crate::limits::{
    FRAME_COST_FACTOR, MAX_FRAME_PACE_MS, PACED_FRAME_MIN_MS, SYNC_OUTPUT_TIMEOUT_MS,
};
use crate::theme::Theme;
use crate::view::Dom;
use crate::webmcp;

/// The handle shared by the `WTerm` object and everything that acts on its behalf.
pub(crate) type Shared = Rc<RefCell<Inner>>;

thread_local! {
    /// Every terminal from `init()` until `destroy()`. A terminal on the page lives until it is
    /// destroyed, as an xterm.js `Terminal` does until `dispose()`, whether or not the page
    /// keeps its `WTerm`: otherwise the garbage collector freed one the page had forgotten
    /// (a `new WTerm(...)` in a function), and its screen and WebMCP tools went with it.
    static LIVE: RefCell<Vec<Shared>> = const { RefCell::new(Vec::new()) };
}

/// Keeps `shared` alive until [`forget`].
fn keep(shared: &Shared) {
    LIVE.with(|live| {
        let mut live = live.borrow_mut();
        if !live.iter().any(|s| Rc::ptr_eq(s, shared)) {
            live.push(shared.clone());
        }
    });
}

/// Lets `shared` go with its last `WTerm` (at `destroy()`, or an `init()` that failed).
pub(crate) fn forget(shared: &Shared) {
    // Taken out first: dropping a terminal must not run inside the borrow.
    let gone: Vec<Shared> = LIVE.with(|live| {
        let mut live = live.borrow_mut();
        let (gone, kept) = std::mem::take(&mut *live)
            .into_iter()
            .partition(|s| Rc::ptr_eq(s, shared));
        *live = kept;
        gone
    });
    drop(gone);
}

/// Where a terminal is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lifecycle {
    /// Constructed; output is parsed but nothing is drawn.
    New,
    /// `init()` built the DOM and waits for fonts.
    Initializing,
    /// Drawing and taking input.
    Ready,
    /// `destroy()` ran: DOM, listeners and callbacks are gone; calls do nothing.
    Destroyed,
}

/// The state behind one terminal.
pub(crate) struct Inner {
    /// The emulator: all terminal semantics live here.
    pub(crate) term: Terminal,
    /// The page's callbacks.
    pub(crate) callbacks: Callbacks,
    /// WebMCP settings from the options; `None` when off.
    pub(crate) webmcp: Option<WebMcpConfig>,
    /// The page element the terminal draws into.
    host: HtmlElement,
    /// Sizes the page asked for; a side not given is fitted to the host at `init()`.
    requested: (Option<u16>, Option<u16>),
    /// Rows scrolled up into history; 0 shows the live screen.
    pub(crate) view_offset: usize,
    /// The hidden input has keyboard focus.
    pub(crate) focused: bool,
    /// An IME composition is in progress (between `compositionstart` and `compositionend`).
    pub(crate) composing: bool,
    pub(crate) lifecycle: Lifecycle,
    /// Present from `init()` until `destroy()`.
    pub(crate) dom: Option<Dom>,
    /// WebMCP calls in progress for this terminal, and its id in the page registry.
    pub(crate) mcp: webmcp::Calls,
    /// When synchronized output (mode 2026) was first seen held (`performance.now()` ms).
    sync_since: Option<f64>,
    /// Replies to queries (DA, DSR, DECRQM, ...) go to the data callbacks; off while a relay
    /// answers them from its own emulator, so a program gets one reply however many pages
    /// watch it.
    pub(crate) answer_queries: bool,
    /// Ctrl+V pastes (left to the browser) instead of sending ^V: the `pasteWithCtrlV` option.
    pub(crate) paste_with_ctrl_v: bool,
    /// New output is announced to screen readers (a11y.rs): the `screenReaderMode` option.
    pub(crate) screen_reader: bool,
    /// The `theme` option or the last `setTheme`; `None`: the CSS variables decide.
    pub(crate) theme: Option<Theme>,
    /// Output was parsed since the last animation frame.
    output_since_frame: bool,
    /// While output keeps arriving, frames before this time (`performance.now()` ms) are
    /// skipped: the last frame was expensive ([`FRAME_COST_FACTOR`]).
    paced_until: f64,
    /// Search, its highlights, and plain-text links (`find.rs`).
    pub(crate) find: crate::find::Find,
}

impl Inner {
    /// A terminal for `host`; `cols`/`rows` are the sizes the page asked for (fitted at
    /// `init()` when `None`).
    pub(crate) fn new(
        host: HtmlElement,
        cols: Option<u16>,
        rows: Option<u16>,
        scrollback_rows: usize,
        callbacks: Callbacks,
        webmcp: Option<WebMcpConfig>,
    ) -> Self {
        let default = Size::default();
        let size = Size {
            cols: cols.unwrap_or(default.cols),
            rows: rows.unwrap_or(default.rows),
        };
        Inner {
            term: Terminal::new(size, scrollback_rows),
            callbacks,
            webmcp,
            host,
            requested: (cols, rows),
            view_offset: 0,
            focused: false,
            composing: false,
            lifecycle: Lifecycle::New,
            dom: None,
            mcp: webmcp::Calls::new(),
            sync_since: None,
            answer_queries: true,
            paste_with_ctrl_v: false,
            screen_reader: true,
            theme: None,
            output_since_frame: false,
            paced_until: 0.0,
            find: crate::find::Find::default(),
        }
    }

    /// Asks for an animation frame to draw changes (once initialized; one frame at a time).
    pub(crate) fn schedule_frame(&mut self) {
        if let Some(dom) = self.dom.as_mut() {
            dom.request_frame();
        }
    }

    /// Moves the view to the live screen, as any input does.
    pub(crate) fn scroll_to_bottom(&mut self) {
        if self.view_offset != 0 {
            self.view_offset = 0;
            if let Some(dom) = self.dom.as_mut() {
                dom.sync_scroll = true;
            }
            self.schedule_frame();
        }
    }

    /// Parses program output; replies to queries go to the data callbacks, a title change to
    /// the title callbacks.
    pub(crate) fn feed_output(&mut self, bytes: &[u8]) -> Outbox {
        let mut out = Outbox::default();
        if self.lifecycle == Lifecycle::Destroyed {
            return out;
        }
        // The command log's start and end times: epoch ms, as the relay's emulator stamps them.
        self.term.set_now_ms(js_sys::Date::now() as u64);
        let fx = self.term.feed(bytes);
        self.output_since_frame = true;
        self.mcp.on_output();
        if !fx.replies.is_empty() && self.answer_queries {
            // Without onData there is no program to answer: the replies are dropped.
            self.callbacks
                .data
                .queue(&mut out, bytes_to_string(&fx.replies));
        }
        if fx.title_changed {
            let title = JsValue::from_str(self.term.title().unwrap_or(""));
            self.callbacks.title.queue(&mut out, title);
        }
        if let Some(text) = fx.clipboard {
            write_clipboard(text);
        }
        if fx.bell {
            self.callbacks.bell.queue(&mut out, JsValue::UNDEFINED);
        }
        if let Some(progress) = fx.progress {
            let event = crate::js::progress_event(progress);
            self.callbacks.progress.queue(&mut out, event);
        }
        self.schedule_frame();
        out
    }

    /// Applies `theme` (already validated) to the terminal element, or removes the theme with
    /// `None`, and answers OSC 10/11/12 with the colours now drawn. Before `init()` it is kept
    /// and applied then.
    pub(crate) fn set_theme(&mut self, theme: Option<Theme>) {
        self.theme = theme;
        if let Some(dom) = self.dom.as_ref() {
            crate::theme::apply(&dom.root, self.theme.as_ref());
            if let Some(colors) = dom.theme_colors() {
                self.term.set_dynamic_colors(colors);
            }
        }
    }

    /// Resizes the terminal (clamped by the core); the resize callbacks hear of a real change.
    pub(crate) fn resize_to(&mut self, size: Size, out: &mut Outbox) {
        let before = self.term.size();
        self.term.resize(size);
        let after = self.term.size();
        if after != before {
            self.callbacks
                .resize
                .queue(out, size_object(after.cols, after.rows));
            self.schedule_frame();
        }
    }

    /// Re-measures the cell and resizes to fill the host. Does nothing before `init()` or while
    /// the host has no room for a cell (hidden, detached).
    pub(crate) fn fit(&mut self, out: &mut Outbox) {
        let Some(dom) = self.dom.as_mut() else { return };
        dom.measure();
        if let Some(colors) = dom.theme_colors() {
            self.term.set_dynamic_colors(colors);
        }
        if let Some(size) = dom.fitted_size() {
            self.resize_to(size, out);
        }
        self.schedule_frame();
    }

    /// Draws one frame (the animation-frame callback), then answers the WebMCP waits that the
    /// output drawn may have satisfied.
    ///
    /// While the program holds synchronized output (mode 2026) the screen is mid-update, so
    /// nothing is drawn until it ends or [`SYNC_OUTPUT_TIMEOUT_MS`] passes; another frame is
    /// asked for meanwhile. Likewise after an expensive frame while output keeps arriving, until
    /// the pacing delay ([`FRAME_COST_FACTOR`]) has passed.
    fn frame(&mut self) {
        let now = crate::dom::now_ms();
        let output = std::mem::take(&mut self.output_since_frame);
        let held = if self.term.modes().synchronized_output {
            let since = *self.sync_since.get_or_insert(now);
            now - since < SYNC_OUTPUT_TIMEOUT_MS
        } else {
            self.sync_since = None;
            false
        };
        if held || (output && now < self.paced_until) {
            if let Some(dom) = self.dom.as_mut() {
                dom.frame_done();
            }
            self.schedule_frame();
            webmcp::run_due_check(self);
            return;
        }
        if let Some(dom) = self.dom.as_mut() {
            dom.render(&mut self.term, &mut self.view_offset);
        }
        crate::a11y::check(self);
        crate::find::draw(self);
        let end = crate::dom::now_ms();
        let cost = end - now;
        self.paced_until = if cost > PACED_FRAME_MIN_MS {
            end + (FRAME_COST_FACTOR * cost).min(MAX_FRAME_PACE_MS)
        } else {
            0.0
        };
        webmcp::run_due_check(self);
    }

    /// Clears the terminal as a fresh one of the same size and scrollback capacity: blank
    /// screen, no history, default modes, no title (`wterm_core::Terminal::reset`). Waits in
    /// progress see it as output. A title that was set is reported cleared (`""` to the title
    /// callbacks), as RIS reports it: a page attaching to a session whose title went meanwhile
    /// otherwise kept showing the old one (the snapshot after the reset sets only a title the
    /// session has).
    pub(crate) fn reset(&mut self, out: &mut Outbox) {
        if self.lifecycle == Lifecycle::Destroyed {
            return;
        }
        if self.term.title().is_some() {
            self.callbacks.title.queue(out, JsValue::from_str(""));
        }
        self.term.reset();
        self.view_offset = 0;
        if let Some(dom) = self.dom.as_mut() {
            dom.sync_scroll = true;
        }
        self.mcp.on_output();
        self.schedule_frame();
    }

    /// The hidden input element, to focus it without holding the borrow (focusing fires
    /// `focus` synchronously, whose handler borrows).
    pub(crate) fn input_element(&self) -> Option<HtmlElement> {
        self.dom
            .as_ref()
            .map(|d| d.textarea.clone().unchecked_into())
    }

    /// Takes the DOM out for dropping once the borrow is released, and forgets the callbacks.
    pub(crate) fn destroy(&mut self) -> Option<Dom> {
        webmcp::end_calls(self, "was destroyed");
        self.lifecycle = Lifecycle::Destroyed;
        self.callbacks = Callbacks::default();
        self.webmcp = None;
        self.find = crate::find::Find::default();
        self.dom.take()
    }
}

impl Drop for Inner {
    /// A terminal freed without `destroy()` leaves the page registry soon after (not now: the
    /// last handle may be dropped while the registry is in use).
    fn drop(&mut self) {
        if self.lifecycle != Lifecycle::Destroyed && self.webmcp.is_some() {
            wasm_bindgen_futures::spawn_local(async { webmcp::prune() });
        }
    }
}

/// Local echo for a page without `onData`: what would go to the program is written back into
/// the terminal, with Enter (CR) shown as a new line and Backspace (DEL or BS) erasing the
/// character before the cursor (`"\b \b"`).
pub(crate) fn echo_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\r' => out.extend_from_slice(b"\r\n"),
            0x7f | 0x08 => out.extend_from_slice(b"\x08 \x08"),
            b => out.push(b),
        }
    }
    out
}

/// Sends input to the program the way a keystroke does: to `onData` and the `"data"` listeners,
/// or, when the page set neither, echoed into the terminal; either way the view jumps back to
/// the live screen. Keyboard, paste, IME and (next) the WebMCP tools all come through here.
pub(crate) fn send_input(shared: &Shared, bytes: &[u8]) {
    send(shared, bytes, None);
}

/// [`send_input`] for the WebMCP tool `tool`: never held behind the agent's own pending Enter;
/// `onData` and the `"data"` listeners get `{agent: tool}` as a second argument, so the relay
/// client can tell the relay whose input it is.
pub(crate) fn send_agent_input(shared: &Shared, bytes: &[u8], tool: &'static str) {
    send(shared, bytes, Some(tool));
}

/// The one path to the program. The person's input (`agent` false) that arrives while an agent's
/// Enter is pending is held and goes right after that Enter, so it never joins the agent's line
/// (spec `webmcp-tools.md`, "Turn-taking"); a Ctrl+C in it cancels the Enter and goes at once.
fn send(shared: &Shared, bytes: &[u8], agent: Option<&'static str>) {
    if bytes.is_empty() {
        return;
    }
    let mut cancelled = None;
    let out = {
        let Ok(mut inner) = shared.try_borrow_mut() else {
            web_sys::console::warn_1(&"wterm: input dropped: terminal busy".into());
            return;
        };
        if inner.lifecycle == Lifecycle::Destroyed {
            return;
        }
        let joined: Vec<u8>;
        let mut bytes = bytes;
        if agent.is_some() {
            inner.mcp.typists.agent_typed(bytes);
        } else {
            inner.mcp.person_input(bytes);
            match crate::webmcp::hold_person_input(&mut inner, bytes) {
                crate::webmcp::Hold::Held => return,
                crate::webmcp::Hold::Send => {}
                crate::webmcp::Hold::SendAfter { held, settles } => {
                    cancelled = Some(settles);
                    joined = [held.as_slice(), bytes].concat();
                    bytes = &joined;
                }
            }
        }
        inner.scroll_to_bottom();
        if bytes.contains(&b'\r') && inner.term.running_command().is_none() {
            // A line submitted at the prompt: `waitForCommand` waits for the command it starts.
            let newest = wterm_core::agent::newest_command_id(&inner.term);
            inner.mcp.submitted = Some(newest);
        }
        // Who submitted the line, until the output stream says it itself (a relay's notes).
        if wterm_core::agent::turns::submits(bytes) && !inner.term.authors_in_stream() {
            let author = match agent {
                Some(tool) => Author::new(AuthorKind::PageAgent, tool),
                None => Author::person(),
            };
            inner.term.note_submit(author);
        }
        if inner.callbacks.data.is_empty() {
            // Replies to queries typed at the echo are dropped by `feed_output`: without
            // onData there is no program to answer.
            inner.feed_output(&echo_bytes(bytes))
        } else {
            let mut out = Outbox::default();
            let by = agent.map(|tool| {
                let o = js_sys::Object::new();
                crate::js::set(&o, "agent", tool);
                JsValue::from(o)
            });
            inner
                .callbacks
                .data
                .queue2(&mut out, bytes_to_string(bytes), by);
            out
        }
    };
    out.deliver();
    if let Some(settles) = cancelled {
        crate::webmcp::answer_interrupted(settles);
    }
}

/// Writes program output (`WTerm.write`).
pub(crate) fn write(shared: &Shared, bytes: &[u8]) -> Result<(), JsError> {
    let out = shared
        .try_borrow_mut()
        .map_err(|_| busy())?
        .feed_output(bytes);
    out.deliver();
    Ok(())
}

/// The error for a call made while the terminal is in the middle of another one (from a
/// synchronous DOM event the terminal itself caused).
pub(crate) fn busy() -> JsError {
    JsError::new("the terminal is busy: call it again from outside its own event handler")
}

/// `init()`: builds the DOM, waits for web fonts, measures the cell, fits, starts listening
/// and drawing. A second call, or a call while the first is waiting, does nothing.
pub(crate) async fn init(shared: Shared) -> Result<(), JsValue> {
    {
        let mut inner = shared.try_borrow_mut().map_err(|_| busy())?;
        match inner.lifecycle {
            Lifecycle::Destroyed => return Err(JsError::new("the terminal was destroyed").into()),
            Lifecycle::Initializing | Lifecycle::Ready => return Ok(()),
            Lifecycle::New => {}
        }
        let dom = Dom::build(&inner.host)?;
        crate::theme::apply(&dom.root, inner.theme.as_ref());
        inner.dom = Some(dom);
        inner.lifecycle = Lifecycle::Initializing;
    }
    keep(&shared);
    // Measure the cell in the font that will draw it, not in a fallback shown meanwhile.
    if let Some(ready) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.fonts().ready().ok())
    {
        let _ = JsFuture::from(ready).await;
    }
    let out = {
        let mut inner = shared.try_borrow_mut().map_err(|_| busy())?;
        if inner.lifecycle != Lifecycle::Initializing {
            return Ok(()); // destroyed while waiting
        }
        match start(&mut inner, Rc::downgrade(&shared)) {
            Ok(out) => (out, inner.webmcp.clone(), inner.mcp.id),
            Err(e) => {
                inner.dom = None;
                inner.lifecycle = Lifecycle::New;
                drop(inner);
                forget(&shared);
                return Err(e);
            }
        }
    };
    let (out, cfg, id) = out;
    out.deliver();
    // Registered without the borrow: the provider is page code.
    if let Some(cfg) = cfg {
        // Checked at construction too; two modules' terminals made before either initialized
        // meet here, and the later one goes without tools, saying why.
        match webmcp::check_owner() {
            Ok(()) => webmcp::apply(id, Rc::downgrade(&shared), Some(&cfg)),
            Err(e) => web_sys::console::error_1(&JsValue::from(e)),
        }
    }
    Ok(())
}

/// The synchronous part of `init()` after the fonts: listeners, frame callback, resize
/// observer, measurement and fit.
fn start(inner: &mut Inner, weak: Weak<RefCell<Inner>>) -> Result<Outbox, JsValue> {
    inner.mcp.weak = weak.clone();
    let auto_fit = inner.requested == (None, None);
    let host = inner.host.clone();
    let dom = inner.dom.as_mut().ok_or("no DOM")?;
    let mut listeners = crate::input::attach(dom, &weak)?;
    listeners.extend(crate::touch::attach(dom, &weak)?);
    dom.listeners = listeners;
    if inner.screen_reader {
        let live = crate::a11y::LiveRegion::new(&dom.root, &inner.term)?;
        dom.live = Some(live);
    }
    let pointer = crate::find::attach(&dom.root, &weak)?;
    crate::find::set_listeners(inner, pointer);
    let dom = inner.dom.as_mut().ok_or("no DOM")?;

    let w = weak.clone();
    dom.on_frame = Some(Closure::new(move |_time: f64| {
        if let Some(shared) = w.upgrade() {
            if let Ok(mut inner) = shared.try_borrow_mut() {
                inner.frame();
            }
        }
    }));

    if auto_fit {
        let w = weak.clone();
        let closure = Closure::<dyn FnMut(JsValue)>::new(move |_entries: JsValue| {
            if let Some(shared) = w.upgrade() {
                let out = match shared.try_borrow_mut() {
                    Ok(mut inner) => {
                        let mut out = Outbox::default();
                        inner.fit(&mut out);
                        out
                    }
                    Err(_) => return,
                };
                out.deliver();
            }
        });
        let observer = ResizeObserver::new(closure.as_ref().unchecked_ref())?;
        observer.observe(&host);
        dom.resize_observer = Some((observer, closure));
    }

    dom.measure();
    if let Some(colors) = dom.theme_colors() {
        inner.term.set_dynamic_colors(colors);
    }
    let mut out = Outbox::default();
    if inner.requested.0.is_none() || inner.requested.1.is_none() {
        if let Some(fitted) = inner.dom.as_ref().and_then(Dom::fitted_size) {
            let size = Size {
                cols: inner.requested.0.unwrap_or(fitted.cols),
                rows: inner.requested.1.unwrap_or(fitted.rows),
            };
            inner.resize_to(size, &mut out);
        }
    }
    inner.lifecycle = Lifecycle::Ready;
    inner.schedule_frame();
    Ok(out)
}

/// Puts text (a program's OSC 52, or the selection on Ctrl+Shift+C) on the system clipboard (`navigator.clipboard.writeText`). The
/// browser refuses it when the page is not focused or not a secure context (http on another
/// host than localhost); that is logged, never thrown.
pub(crate) fn write_clipboard(text: String) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let clipboard = window.navigator().clipboard();
    if clipboard.is_undefined() {
        web_sys::console::warn_1(
            &"wterm: OSC 52 clipboard write dropped: no clipboard here (not a secure context)"
                .into(),
        );
        return;
    }
    let write = clipboard.write_text(&text);
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = JsFuture::from(write).await {
            web_sys::console::warn_2(
                &"wterm: the browser refused the OSC 52 clipboard write:".into(),
                &e,
            );
        }
    });
}

/// Focuses the hidden input without scrolling the page.
pub(crate) fn focus_element(el: &HtmlElement) {
    let opts = FocusOptions::new();
    opts.set_prevent_scroll(true);
    let _ = el.focus_with_options(&opts);
}

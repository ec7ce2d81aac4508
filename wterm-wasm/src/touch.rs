//! Touch screens: a one-finger swipe scrolls, a long-press selects a word.
//!
//! - Swipe: past [`TOUCH_SLOP_PX`] a touch scrolls as the wheel does (input.rs `on_wheel`):
//!   the history on the main screen, following the finger, then with momentum once it lifts
//!   (speed decaying by [`MOMENTUM_DECAY_PER_MS`]); wheel reports (button 4/5, one per row the
//!   finger moves) when the program tracks the mouse; cursor up/down on the alternate screen
//!   (xterm's `alternateScroll`). Momentum applies to the history only: a program gets one
//!   report per row the finger moved, never more.
//! - Long-press: a touch held [`LONG_PRESS_MS`] without moving selects the word under it
//!   (`wterm_core::words`, xterm.js's word rule); moving the finger on extends the selection;
//!   once it lifts, two handles (`div.wterm-handle`) at the selection's ends drag either end.
//!   A touch elsewhere removes the handles.
//! - A tap stays the browser's: its mouse events focus the input (and click in a program that
//!   tracks the mouse, as in xterm.js); two fingers (pinch) are left to the browser.

use std::cell::RefCell;
use std::rc::Weak;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Event, HtmlElement, Node, Range, Touch, TouchEvent};
use wterm_core::keys::Mods;
use wterm_core::words::word_bounds;

use crate::dom::{element, now_ms, Listener, Timeout};
use crate::js::scroll_top_f64;
use crate::limits::{
    LONG_PRESS_MS, MOMENTUM_DECAY_PER_MS, MOMENTUM_MIN_PX_PER_MS, TOUCH_SLOP_PX, VELOCITY_SAMPLES,
    VELOCITY_WINDOW_MS,
};
use crate::term::{focus_element, Inner, Shared};
use crate::view::Dom;

/// Which end of the selection a handle drags.
#[derive(Debug, Clone, Copy, PartialEq)]
enum End {
    Start,
    End,
}

/// The finger being followed.
struct Finger {
    id: i32,
    start: (f64, f64),
    last: (f64, f64),
    /// Moved past the slop: a swipe.
    moved: bool,
    /// A long-press selected a word; moving extends the selection.
    selecting: bool,
    /// Dragging a selection handle.
    handle: Option<End>,
    /// The last [`VELOCITY_SAMPLES`] (time ms, y px) samples, for the swipe's speed.
    samples: Vec<(f64, f64)>,
    /// Finger movement not yet turned into whole rows (wheel reports, arrows), in rows.
    rows_rest: f64,
}

/// Touch state of one terminal (held by its [`Dom`]).
#[derive(Default)]
pub(crate) struct TouchState {
    finger: Option<Finger>,
    long_press: Option<Timeout>,
    /// Momentum: speed of the content in px/ms (positive scrolls towards older rows) and the
    /// time of the last step; `None` when still.
    momentum: Option<(f64, f64)>,
    /// The pending animation frame of the momentum and its callback.
    frame: Option<i32>,
    on_frame: Option<Closure<dyn FnMut(f64)>>,
    handles: Option<[HtmlElement; 2]>,
}

impl Drop for TouchState {
    fn drop(&mut self) {
        if let (Some(id), Some(w)) = (self.frame.take(), web_sys::window()) {
            let _ = w.cancel_animation_frame(id);
        }
        self.remove_handles();
    }
}

impl TouchState {
    fn remove_handles(&mut self) {
        if let Some(handles) = self.handles.take() {
            for h in handles {
                h.remove();
            }
        }
    }
}

/// Adds the touch listeners to the terminal element (not passive: a swipe cancels the
/// browser's own scrolling and the mouse events that would follow).
pub(crate) fn attach(dom: &mut Dom, weak: &Weak<RefCell<Inner>>) -> Result<Vec<Listener>, JsValue> {
    let w = weak.clone();
    dom.touch.on_frame = Some(Closure::new(move |_t: f64| {
        if let Some(s) = w.upgrade() {
            if let Ok(mut inner) = s.try_borrow_mut() {
                momentum_step(&mut inner);
            }
        }
    }));
    let mut listeners = Vec::with_capacity(4);
    for kind in ["touchstart", "touchmove", "touchend", "touchcancel"] {
        let w = weak.clone();
        listeners.push(Listener::new(&dom.root, kind, false, move |e: Event| {
            let Some(s) = w.upgrade() else { return };
            let ev: &TouchEvent = e.unchecked_ref();
            match kind {
                "touchstart" => on_start(&s, ev, &w),
                "touchmove" => on_move(&s, ev),
                _ => on_end(&s, ev),
            }
        })?);
    }
    Ok(listeners)
}

/// When the event happened (ms on the `performance.now()` clock): its `timeStamp`, which the
/// browser sets when the finger moved, not when the handler runs.
fn event_ms(ev: &TouchEvent) -> f64 {
    let t = ev.time_stamp();
    if t > 0.0 {
        t
    } else {
        now_ms()
    }
}

fn point(t: &Touch) -> (f64, f64) {
    (f64::from(t.client_x()), f64::from(t.client_y()))
}

/// The touch of `ev` that is the followed finger.
fn finger_touch(ev: &TouchEvent, id: i32) -> Option<Touch> {
    let list = ev.changed_touches();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .find(|t| t.identifier() == id)
}

fn on_start(shared: &Shared, ev: &TouchEvent, weak: &Weak<RefCell<Inner>>) {
    let Ok(mut inner) = shared.try_borrow_mut() else {
        return;
    };
    let Some(dom) = inner.dom.as_mut() else {
        return;
    };
    let state = &mut dom.touch;
    state.momentum = None;
    state.long_press = None;
    let one = ev.touches().length() == 1;
    let touch = ev.changed_touches().item(0).filter(|_| one);
    let Some(touch) = touch else {
        state.finger = None; // a second finger: the browser's (pinch)
        return;
    };
    let target = ev.target().and_then(|t| t.dyn_into::<Element>().ok());
    let handle = target.as_ref().and_then(|t| {
        let handles = state.handles.as_ref()?;
        let el: &Element = t;
        if el == handles[0].unchecked_ref::<Element>() {
            Some(End::Start)
        } else if el == handles[1].unchecked_ref::<Element>() {
            Some(End::End)
        } else {
            None
        }
    });
    if handle.is_some() {
        ev.prevent_default();
    } else {
        state.remove_handles();
    }
    let at = point(&touch);
    state.finger = Some(Finger {
        id: touch.identifier(),
        start: at,
        last: at,
        moved: false,
        selecting: false,
        handle,
        samples: vec![(event_ms(ev), at.1)],
        rows_rest: 0.0,
    });
    if handle.is_none() {
        let w = weak.clone();
        state.long_press = Timeout::new(LONG_PRESS_MS, move || {
            if let Some(s) = w.upgrade() {
                on_long_press(&s);
            }
        });
    }
}

fn on_long_press(shared: &Shared) {
    let Ok(mut inner) = shared.try_borrow_mut() else {
        return;
    };
    let Some(dom) = inner.dom.as_mut() else {
        return;
    };
    dom.touch.long_press = None;
    let Some(finger) = dom.touch.finger.as_mut() else {
        return;
    };
    if finger.moved {
        return;
    }
    let (x, y) = finger.start;
    if select_word_at(&dom.root, x, y) {
        finger.selecting = true;
        // Copy (Ctrl+Shift+C, the copy event) reads the selection from the terminal element.
        focus_element(&dom.root);
    }
}

fn on_move(shared: &Shared, ev: &TouchEvent) {
    let scroll = {
        let Ok(mut inner) = shared.try_borrow_mut() else {
            return;
        };
        let cell_h = inner.dom.as_ref().map_or(1.0, |d| d.cell.h);
        let Some(dom) = inner.dom.as_mut() else {
            return;
        };
        let root = dom.root.clone();
        let state = &mut dom.touch;
        let Some(finger) = state.finger.as_mut() else {
            return;
        };
        let Some(touch) = finger_touch(ev, finger.id) else {
            return;
        };
        let at = point(&touch);
        if let Some(end) = finger.handle {
            ev.prevent_default();
            // The handle hangs below its row: aim at the row above the finger.
            drag_selection_end(&root, end, at.0, at.1 - cell_h);
            place_handles(state, &root);
            return;
        }
        if finger.selecting {
            ev.prevent_default();
            extend_selection_to(&root, at.0, at.1);
            return;
        }
        if !finger.moved {
            let (dx, dy) = (at.0 - finger.start.0, at.1 - finger.start.1);
            if dx * dx + dy * dy < TOUCH_SLOP_PX * TOUCH_SLOP_PX {
                return;
            }
            finger.moved = true;
            state.long_press = None;
        }
        ev.prevent_default();
        let Some(finger) = state.finger.as_mut() else {
            return;
        };
        let dy = at.1 - finger.last.1;
        finger.last = at;
        let now = event_ms(ev);
        if finger.samples.len() == VELOCITY_SAMPLES {
            finger.samples.remove(0);
        }
        finger.samples.push((now, at.1));
        (dy, at)
    };
    scroll_by(shared, scroll.0, scroll.1);
}

fn on_end(shared: &Shared, ev: &TouchEvent) {
    let Ok(mut inner) = shared.try_borrow_mut() else {
        return;
    };
    let history =
        !inner.term.modes().alternate_screen && crate::mouse::program_modes(&inner).is_none();
    let Some(dom) = inner.dom.as_mut() else {
        return;
    };
    let root = dom.root.clone();
    let state = &mut dom.touch;
    state.long_press = None;
    let Some(finger) = state.finger.as_ref() else {
        return;
    };
    if finger_touch(ev, finger.id).is_none() {
        return;
    }
    let Some(finger) = state.finger.take() else {
        return;
    };
    if finger.handle.is_some() || finger.selecting {
        // No mouse events after it: their mouseup would move focus and the selection.
        ev.prevent_default();
        place_handles(state, &root);
        return;
    }
    if !finger.moved {
        return; // a tap
    }
    ev.prevent_default();
    // The speed over the finger's last moves (at least two samples, within
    // VELOCITY_WINDOW_MS of the last); a finger that stopped before lifting has none. Times
    // are the events' own, so a busy main thread that runs handlers late does not stop a swipe.
    let lifted = event_ms(ev);
    let samples = &finger.samples;
    let Some(&last) = samples
        .last()
        .filter(|l| lifted - l.0 <= VELOCITY_WINDOW_MS)
    else {
        return;
    };
    let i = samples
        .iter()
        .position(|&(t, _)| last.0 - t <= VELOCITY_WINDOW_MS)
        .unwrap_or(0)
        .min(samples.len().saturating_sub(2));
    let first = samples[i];
    let dt = last.0 - first.0;
    if history && dt > 0.0 {
        let v = (last.1 - first.1) / dt;
        if v.abs() >= MOMENTUM_MIN_PX_PER_MS {
            state.momentum = Some((v, now_ms()));
            request_momentum_frame(state);
        }
    }
}

/// Scrolls by the finger's movement `dy` (px; positive: the finger moved down, towards older
/// rows) at `at`, as the wheel would (see the module doc).
fn scroll_by(shared: &Shared, dy: f64, at: (f64, f64)) {
    let (steps, modes) = {
        let Ok(mut inner) = shared.try_borrow_mut() else {
            return;
        };
        let owned = crate::mouse::program_modes(&inner);
        let alternate = inner.term.modes().alternate_screen;
        let rows = f64::from(inner.term.size().rows);
        let Some(dom) = inner.dom.as_mut() else {
            return;
        };
        if owned.is_none() && !alternate {
            let top = scroll_top_f64(&dom.viewport) - dy;
            dom.viewport.set_scroll_top(top.round() as i32);
            return;
        }
        let cell_h = dom.cell.h;
        let Some(finger) = dom.touch.finger.as_mut() else {
            return;
        };
        // The finger moving up brings newer rows: wheel down.
        finger.rows_rest -= dy / cell_h;
        let whole = finger.rows_rest.trunc();
        finger.rows_rest -= whole;
        (whole.max(-rows).min(rows) as i32, owned)
    };
    if steps == 0 {
        return;
    }
    match modes {
        Some(modes) => {
            for _ in 0..steps.unsigned_abs() {
                crate::mouse::report_wheel_at(shared, at, Mods::NONE, steps < 0, &modes);
            }
        }
        None => crate::input::alternate_scroll(shared, steps),
    }
}

fn request_momentum_frame(state: &mut TouchState) {
    let (Some(w), Some(cb)) = (web_sys::window(), state.on_frame.as_ref()) else {
        return;
    };
    state.frame = w.request_animation_frame(cb.as_ref().unchecked_ref()).ok();
}

/// One frame of momentum: the history moves on at the decaying speed until it is slower than
/// [`MOMENTUM_MIN_PX_PER_MS`] or reaches an end.
fn momentum_step(inner: &mut Inner) {
    let Some(dom) = inner.dom.as_mut() else {
        return;
    };
    dom.touch.frame = None;
    let Some((v, last)) = dom.touch.momentum else {
        return;
    };
    let now = now_ms();
    let dt = (now - last).max(0.0);
    let before = scroll_top_f64(&dom.viewport);
    let top = before - v * dt;
    dom.viewport.set_scroll_top(top.round() as i32);
    // Math.pow: Rust's powf would bring libm's pow into the wasm (2.4 KB).
    let v = v * js_sys::Math::pow(MOMENTUM_DECAY_PER_MS, dt);
    let stuck = dt > 0.0 && scroll_top_f64(&dom.viewport) == before && (v * dt).abs() >= 1.0;
    if v.abs() < MOMENTUM_MIN_PX_PER_MS || stuck {
        dom.touch.momentum = None;
        return;
    }
    dom.touch.momentum = Some((v, now));
    request_momentum_frame(&mut dom.touch);
}

/// The text nodes of a row, in order.
fn text_nodes(node: &Node, out: &mut Vec<Node>) {
    if node.node_type() == Node::TEXT_NODE {
        out.push(node.clone());
        return;
    }
    let children = node.child_nodes();
    for i in 0..children.length() {
        if let Some(c) = children.item(i) {
            text_nodes(&c, out);
        }
    }
}

/// The row element and the DOM position (text node, UTF-16 offset) of the character boundary
/// nearest to `(x, y)` (client px) in the terminal under `root`.
fn caret_at(root: &HtmlElement, x: f64, y: f64) -> Option<(Element, Node, u32)> {
    let doc = root.owner_document()?;
    let pos = doc.caret_position_from_point(x as f32, y as f32)?;
    let node = pos.offset_node()?;
    let el = match node.dyn_ref::<Element>() {
        Some(e) => e.clone(),
        None => node.parent_element()?,
    };
    let row = el.closest(".wterm-row").ok()??;
    if !root.contains(Some(&row)) {
        return None;
    }
    Some((row, node, pos.offset()))
}

/// A row's characters, each with its text node and UTF-16 offset.
struct RowText {
    nodes: Vec<Node>,
    chars: Vec<char>,
    /// (node index, UTF-16 offset) of each character; one more entry for the row's end.
    at: Vec<(usize, u32)>,
}

impl RowText {
    fn of(row: &Element) -> RowText {
        let mut nodes = Vec::new();
        text_nodes(row, &mut nodes);
        let (mut chars, mut at) = (Vec::new(), Vec::new());
        for (k, n) in nodes.iter().enumerate() {
            let mut off = 0u32;
            for c in n.text_content().unwrap_or_default().chars() {
                chars.push(c);
                at.push((k, off));
                off += c.len_utf16() as u32;
            }
        }
        match nodes.len().checked_sub(1) {
            Some(k) => {
                let len = nodes[k]
                    .text_content()
                    .unwrap_or_default()
                    .encode_utf16()
                    .count();
                at.push((k, len as u32));
            }
            None => at.push((0, 0)),
        }
        RowText { nodes, chars, at }
    }

    /// The DOM position of character boundary `i`.
    fn position(&self, i: usize) -> Option<(&Node, u32)> {
        let &(k, off) = self.at.get(i)?;
        Some((self.nodes.get(k)?, off))
    }

    /// The character boundary at a DOM position inside the row.
    fn index(&self, node: &Node, offset: u32) -> Option<usize> {
        let k = self.nodes.iter().position(|n| n == node)?;
        self.at.iter().position(|&(n, o)| n == k && o >= offset)
    }
}

/// Selects the word under `(x, y)`; whether there was one.
fn select_word_at(root: &HtmlElement, x: f64, y: f64) -> bool {
    let Some((row, node, offset)) = caret_at(root, x, y) else {
        return false;
    };
    let text = RowText::of(&row);
    let Some(mut i) = text.index(&node, offset) else {
        return false;
    };
    let Some(doc) = root.owner_document() else {
        return false;
    };
    // The caret is the boundary nearest the point: the character under it is the one before
    // when the point lies left of the boundary's character.
    if i > 0 {
        let left_of = char_rect(&doc, &text, i).is_none_or(|(left, _)| x < left);
        if left_of {
            i -= 1;
        }
    }
    let Some(word) = word_bounds(&text.chars, i) else {
        return false;
    };
    let (Some(s), Some(e)) = (text.position(word.start), text.position(word.end)) else {
        return false;
    };
    select(&doc, s, e).is_some()
}

/// The horizontal extent (client px) of character `i` of a row.
fn char_rect(doc: &Document, text: &RowText, i: usize) -> Option<(f64, f64)> {
    let (n, o) = text.position(i)?;
    let r = doc.create_range().ok()?;
    r.set_start(n, o).ok()?;
    let c = text.chars.get(i)?;
    r.set_end(n, o + c.len_utf16() as u32).ok()?;
    let rect = r.get_bounding_client_rect();
    Some((rect.left(), rect.right()))
}

fn select(doc: &Document, s: (&Node, u32), e: (&Node, u32)) -> Option<()> {
    let range = doc.create_range().ok()?;
    range.set_start(s.0, s.1).ok()?;
    range.set_end(e.0, e.1).ok()?;
    let sel = doc.get_selection().ok()??;
    sel.remove_all_ranges().ok()?;
    sel.add_range(&range).ok()
}

/// Moves the selection's focus (the end being dragged after a long-press) to `(x, y)`.
fn extend_selection_to(root: &HtmlElement, x: f64, y: f64) {
    let Some((_, node, offset)) = caret_at(root, x, y) else {
        return;
    };
    if let Some(sel) = root
        .owner_document()
        .and_then(|d| d.get_selection().ok().flatten())
    {
        let _ = sel.extend_with_offset(&node, offset);
    }
}

/// Moves one end of the selection to `(x, y)`, keeping the other.
fn drag_selection_end(root: &HtmlElement, end: End, x: f64, y: f64) {
    let Some((_, node, offset)) = caret_at(root, x, y) else {
        return;
    };
    let Some(sel) = root
        .owner_document()
        .and_then(|d| d.get_selection().ok().flatten())
    else {
        return;
    };
    let Some(range) = current_range(&sel) else {
        return;
    };
    let kept = match end {
        End::Start => (range.end_container(), range.end_offset()),
        End::End => (range.start_container(), range.start_offset()),
    };
    if let (Ok(kn), Ok(ko)) = kept {
        let _ = sel.set_base_and_extent(&kn, ko, &node, offset);
    }
}

fn current_range(sel: &web_sys::Selection) -> Option<Range> {
    (sel.range_count() > 0)
        .then(|| sel.get_range_at(0).ok())
        .flatten()
}

/// Shows the two handles under the selection's ends (adding them on first use), or removes
/// them when there is no selection in the terminal.
fn place_handles(state: &mut TouchState, root: &HtmlElement) {
    let range = root
        .owner_document()
        .and_then(|d| d.get_selection().ok().flatten())
        .and_then(|s| current_range(&s))
        .filter(|r| !r.collapsed() && r.intersects_node(root).unwrap_or(false));
    let Some(range) = range else {
        state.remove_handles();
        return;
    };
    let Some(rects) = range.get_client_rects() else {
        return;
    };
    let (Some(first), Some(last)) = (rects.item(0), rects.item(rects.length().saturating_sub(1)))
    else {
        return;
    };
    if state.handles.is_none() {
        let Some(doc) = root.owner_document() else {
            return;
        };
        let make = |class: &str| -> Option<HtmlElement> {
            let h = element(&doc, "div", class).ok()?;
            h.set_attribute("aria-hidden", "true").ok()?;
            root.append_child(&h).ok()?;
            Some(h)
        };
        let (Some(a), Some(b)) = (
            make("wterm-handle wterm-handle-start"),
            make("wterm-handle wterm-handle-end"),
        ) else {
            return;
        };
        state.handles = Some([a, b]);
    }
    let Some(handles) = state.handles.as_ref() else {
        return;
    };
    let origin = root.get_bounding_client_rect();
    for (h, x, y) in [
        (&handles[0], first.left(), first.bottom()),
        (&handles[1], last.right(), last.bottom()),
    ] {
        let style = h.style();
        let _ = style.set_property("left", &crate::js::px(x - origin.left()));
        let _ = style.set_property("top", &crate::js::px(y - origin.top()));
    }
}

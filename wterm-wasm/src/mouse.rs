//! Mouse reporting: when the program turned on mouse tracking (`CSI ? 1000 h` and friends), the
//! page's mouse presses, releases, drags, motion and wheel go to the program, encoded by
//! `wterm_core::keys::encode_mouse`, instead of selecting text and scrolling.
//!
//! - Shift held, as in xterm and xterm.js, leaves the mouse to the page: Shift+drag selects
//!   text even while a program tracks the mouse.
//! - While the view is scrolled into history the mouse stays the page's: reports name screen
//!   cells, and the rows shown are history rows.
//! - Without an `onData` listener (local echo) nothing is reported: there is no program.
//! - `onData` is a string, so a report that is not UTF-8 (the X10 encoding past column or row
//!   95) is dropped; programs that need more use SGR (`CSI ? 1006 h`), as vim and tmux do.
//!   A release that cannot be encoded there is sent at column/row 95 instead, so the program
//!   never believes a button is still held.
//! - A drag that leaves the terminal keeps reporting, clamped to the screen's edge, until the
//!   buttons come up: motion and release are listened to on the document. Motion without a
//!   button counts only over the terminal's own elements (not over a page's overlay on it).
//! - Each button is tracked: with two held, both releases are reported.
//! - One wheel event (a notch, or a touchpad's movement worth a row) is one report, as in
//!   xterm.js; Shift+wheel scrolls the page's history instead.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, HtmlElement, MouseEvent};
use wterm_core::keys::{encode_mouse, Mods, MouseAction, MouseButton, MouseEvent as Report};
use wterm_core::Modes;

use crate::dom::Listener;
use crate::term::{focus_element, send_input, Inner, Shared};

/// The drag in progress: the buttons held (bit 0 left, 1 middle, 2 right) and the cell last
/// reported.
#[derive(Debug, Default)]
pub(crate) struct MouseDrag {
    held: u8,
    last_cell: Option<(u16, u16)>,
}

impl MouseDrag {
    fn bit(b: MouseButton) -> u8 {
        match b {
            MouseButton::Left => 1,
            MouseButton::Middle => 2,
            _ => 4,
        }
    }

    /// The button a motion report names: the first held, `None` when none is.
    fn dragging(&self) -> Option<MouseButton> {
        [MouseButton::Left, MouseButton::Middle, MouseButton::Right]
            .into_iter()
            .find(|&b| self.held & Self::bit(b) != 0)
    }
}

/// Last coordinate (0-based) the X10 encoding carries as a byte under 128, which `onData`'s
/// string can hold: 95 (1-based) + 32 = 127.
const X10_STRING_MAX: u16 = 94;

/// `MouseEvent.button` to a button that can be reported (back/forward are not).
fn dom_button(button: i16) -> Option<MouseButton> {
    match button {
        0 => Some(MouseButton::Left),
        1 => Some(MouseButton::Middle),
        2 => Some(MouseButton::Right),
        _ => None,
    }
}

fn mods(ev: &MouseEvent) -> Mods {
    Mods {
        ctrl: ev.ctrl_key(),
        alt: ev.alt_key(),
        shift: ev.shift_key(),
        meta: ev.meta_key(),
    }
}

/// The modes, when the mouse belongs to the program now.
pub(crate) fn program_modes(inner: &Inner) -> Option<Modes> {
    let modes = inner.term.modes();
    let owned =
        modes.mouse_reporting() && inner.view_offset == 0 && !inner.callbacks.data.is_empty();
    owned.then_some(modes)
}

/// The screen cell under `(x, y)` (client px); `clamp` moves a point outside onto the nearest
/// edge cell, else a point outside gives `None`.
pub(crate) fn cell_at(inner: &Inner, x: f64, y: f64, clamp: bool) -> Option<(u16, u16)> {
    let dom = inner.dom.as_ref()?;
    let rect = dom.rows_rect();
    let size = inner.term.size();
    let col = ((x - rect.left()) / dom.cell.w).floor();
    let row = ((y - rect.top()) / dom.cell.h).floor();
    let (cols, rows) = (f64::from(size.cols), f64::from(size.rows));
    let inside = (0.0..cols).contains(&col) && (0.0..rows).contains(&row);
    if !inside && !clamp {
        return None;
    }
    // max/min, not f64::clamp: its panic message would pull float formatting into the wasm.
    Some((
        col.max(0.0).min(cols - 1.0) as u16,
        row.max(0.0).min(rows - 1.0) as u16,
    ))
}

/// Sends a report unless the modes do not ask for it or it is not UTF-8.
fn report(shared: &Shared, action: MouseAction, cell: (u16, u16), mods: Mods, modes: &Modes) {
    let mut r = Report {
        action,
        col: cell.0,
        row: cell.1,
        mods,
    };
    let mut bytes = encode_mouse(r, modes);
    if bytes
        .as_ref()
        .is_some_and(|b| std::str::from_utf8(b).is_err())
    {
        bytes = None;
        if matches!(action, MouseAction::Release(_)) {
            r.col = r.col.min(X10_STRING_MAX);
            r.row = r.row.min(X10_STRING_MAX);
            bytes = encode_mouse(r, modes);
        }
    }
    if let Some(bytes) = bytes {
        send_input(shared, &bytes);
    }
}

/// The mouse events listened to, in the order of [`attach`]'s targets.
#[derive(Clone, Copy)]
enum Kind {
    Press,
    ContextMenu,
    Move,
    Release,
}

/// Adds the mouse listeners: press and context menu on the terminal, motion and release on
/// the document (a drag may leave the terminal). One closure type for all four keeps the wasm
/// small.
pub(crate) fn attach(
    root: &HtmlElement,
    textarea: &HtmlElement,
    weak: &std::rc::Weak<std::cell::RefCell<Inner>>,
) -> Result<Vec<Listener>, JsValue> {
    let doc: web_sys::EventTarget = root
        .owner_document()
        .ok_or("element has no document")?
        .into();
    Ok(vec![
        listen(root, "mousedown", Kind::Press, weak, textarea)?,
        listen(root, "contextmenu", Kind::ContextMenu, weak, textarea)?,
        listen(&doc, "mousemove", Kind::Move, weak, textarea)?,
        listen(&doc, "mouseup", Kind::Release, weak, textarea)?,
    ])
}

fn listen(
    target: &web_sys::EventTarget,
    name: &'static str,
    kind: Kind,
    weak: &std::rc::Weak<std::cell::RefCell<Inner>>,
    textarea: &HtmlElement,
) -> Result<Listener, JsValue> {
    let w = weak.clone();
    let ta = textarea.clone();
    // Press and context menu may be cancelled, so those two are not passive.
    let passive = matches!(kind, Kind::Move | Kind::Release);
    Listener::new(target, name, passive, move |e: Event| {
        let Some(s) = w.upgrade() else { return };
        let e: &MouseEvent = e.unchecked_ref();
        match kind {
            Kind::Press => on_press(&s, e, &ta),
            Kind::ContextMenu => on_context_menu(&s, e),
            Kind::Move => on_move(&s, e),
            Kind::Release => on_release(&s, e),
        }
    })
}

/// A right press reported to the program opens no menu.
fn on_context_menu(shared: &Shared, ev: &MouseEvent) {
    let owned = shared
        .try_borrow()
        .ok()
        .and_then(|i| program_modes(&i))
        .is_some();
    if owned && !ev.shift_key() {
        ev.prevent_default();
    }
}

fn on_press(shared: &Shared, ev: &MouseEvent, textarea: &HtmlElement) {
    if ev.shift_key() {
        // Shift+mousedown extends the current selection, which sits in the focused input: it
        // is dropped so the press starts a new one on the screen.
        if let Some(sel) = web_sys::window().and_then(|w| w.get_selection().ok().flatten()) {
            let _ = sel.remove_all_ranges();
        }
        return;
    }
    let (modes, cell, button) = {
        let Ok(mut inner) = shared.try_borrow_mut() else {
            return;
        };
        let Some(modes) = program_modes(&inner) else {
            return;
        };
        let Some(button) = dom_button(ev.button()) else {
            return;
        };
        let Some(cell) = cell_at(&inner, ev.client_x().into(), ev.client_y().into(), false) else {
            return; // the scrollbar, or padding past the last cell
        };
        if let Some(dom) = inner.dom.as_mut() {
            dom.mouse.held |= MouseDrag::bit(button);
            dom.mouse.last_cell = Some(cell);
        }
        (modes, cell, button)
    };
    // No text selection starts; the keyboard stays with the terminal.
    ev.prevent_default();
    focus_element(textarea);
    report(shared, MouseAction::Press(button), cell, mods(ev), &modes);
}

fn on_move(shared: &Shared, ev: &MouseEvent) {
    let (modes, cell, held) = {
        let Ok(mut inner) = shared.try_borrow_mut() else {
            return;
        };
        let Some(modes) = program_modes(&inner) else {
            return;
        };
        let Some(dom) = inner.dom.as_ref() else {
            return;
        };
        let held = dom.mouse.dragging();
        // Motion without a button counts only over the terminal's own elements; a drag
        // anywhere, clamped to the screen.
        if held.is_none() {
            let target = ev.target().and_then(|t| t.dyn_into::<web_sys::Node>().ok());
            if !dom.root.contains(target.as_ref()) {
                return;
            }
        }
        let (x, y) = (ev.client_x().into(), ev.client_y().into());
        let Some(cell) = cell_at(&inner, x, y, held.is_some()) else {
            return;
        };
        let Some(dom) = inner.dom.as_mut() else {
            return;
        };
        if dom.mouse.last_cell == Some(cell) {
            return;
        }
        dom.mouse.last_cell = Some(cell);
        (modes, cell, held)
    };
    report(shared, MouseAction::Motion(held), cell, mods(ev), &modes);
}

fn on_release(shared: &Shared, ev: &MouseEvent) {
    let (modes, cell, button) = {
        let Ok(mut inner) = shared.try_borrow_mut() else {
            return;
        };
        let Some(button) = dom_button(ev.button()) else {
            return;
        };
        let bit = MouseDrag::bit(button);
        match inner.dom.as_mut() {
            Some(dom) if dom.mouse.held & bit != 0 => dom.mouse.held &= !bit,
            _ => return,
        }
        let (x, y) = (ev.client_x().into(), ev.client_y().into());
        let cell = cell_at(&inner, x, y, true);
        // Tracking turned off mid-drag: the press was reported, the release is not wanted.
        let (Some(modes), Some(cell)) = (program_modes(&inner), cell) else {
            return;
        };
        (modes, cell, button)
    };
    report(shared, MouseAction::Release(button), cell, mods(ev), &modes);
}

/// One wheel step over the screen, a button 4 (`up`) or 5 press at the pointer's cell.
pub(crate) fn report_wheel(shared: &Shared, ev: &MouseEvent, up: bool, modes: &Modes) {
    let (x, y) = (ev.client_x().into(), ev.client_y().into());
    report_wheel_at(shared, (x, y), mods(ev), up, modes);
}

/// One wheel step at the cell under `point` (client px, clamped to the screen), as
/// [`report_wheel`]; a swipe on a touch screen sends these (touch.rs).
pub(crate) fn report_wheel_at(
    shared: &Shared,
    point: (f64, f64),
    mods: Mods,
    up: bool,
    modes: &Modes,
) {
    let cell = {
        let Ok(inner) = shared.try_borrow() else {
            return;
        };
        cell_at(&inner, point.0, point.1, true)
    };
    let Some(cell) = cell else { return };
    let button = if up {
        MouseButton::WheelUp
    } else {
        MouseButton::WheelDown
    };
    report(shared, MouseAction::Press(button), cell, mods, modes);
}

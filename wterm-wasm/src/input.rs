//! Input listeners: keyboard, text input, IME composition and paste on the hidden textarea;
//! focus, wheel, scroll, click-to-focus and copy on the terminal's elements. Keys are encoded
//! by `wterm_core::keys` for the program's current modes; everything goes out through
//! [`send_input`].
//!
//! Which event carries what, so that nothing is sent twice:
//! - `keydown` sends every key that is not plain text: named keys (Enter, arrows, F-keys, ...)
//!   and characters with Ctrl, Alt or Meta. It calls `preventDefault` for what it sends, so no
//!   `input` event follows.
//! - `input` (`insertText`) sends plain text: printable keys without Ctrl/Alt/Meta, characters
//!   composed with AltGr or macOS Option, dead-key results, mobile keyboards. Exception: when
//!   the program asked for every key as an escape code (kitty flag 8), printable keys are
//!   encoded in `keydown` as well.
//! - During an IME composition (`compositionstart` .. `compositionend`) nothing is sent;
//!   `compositionend` sends the composed text once (ime.rs, which also shows it at the cursor).
//! - `paste` sends the clipboard's text, bracketed when the program enabled mode 2004.
//! - Browser copy and paste chords (Ctrl+Shift+C/V, Meta+C/V, Ctrl/Shift+Insert) and other
//!   Meta+character shortcuts are left to the browser (see `leave_to_browser`); so is Ctrl+V
//!   with the `pasteWithCtrlV` option. Ctrl+V and Ctrl+C otherwise go to the program (^V, ^C).

use std::cell::RefCell;
use std::rc::Weak;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    ClipboardEvent, Event, EventTarget, FocusEvent, HtmlTextAreaElement, InputEvent, KeyboardEvent,
    MouseEvent, Node, WheelEvent,
};
use wterm_core::keys::{self, Chord, Key, Mods};

use crate::dom::Listener;
use crate::js::scroll_top_f64;
use crate::mouse;
use crate::term::{focus_element, send_input, Inner, Shared};
use crate::view::Dom;

/// `KeyboardEvent.keyCode` of keys consumed by an IME (the "Process" key).
const IME_KEY_CODE: u32 = 229;

/// Adds the terminal's listeners; they stop when the returned guards are dropped.
pub(crate) fn attach(dom: &Dom, weak: &Weak<RefCell<Inner>>) -> Result<Vec<Listener>, JsValue> {
    let ta: HtmlTextAreaElement = dom.textarea.clone();
    let root = dom.root.clone();
    let viewport = dom.viewport.clone();
    let mut listeners = Vec::new();

    let w = weak.clone();
    listeners.push(Listener::new(&ta, "keydown", false, move |e: Event| {
        if let Some(s) = w.upgrade() {
            if !copy_chord(&s, e.unchecked_ref()) && !crate::find::find_key(&s, e.unchecked_ref()) {
                on_keydown(&s, e.unchecked_ref());
            }
        }
    })?);

    let w = weak.clone();
    let t = ta.clone();
    listeners.push(Listener::new(&ta, "input", false, move |e: Event| {
        if let Some(s) = w.upgrade() {
            on_input(&s, e.unchecked_ref(), &t);
        }
    })?);

    listeners.extend(crate::ime::attach(dom, weak)?);

    let w = weak.clone();
    listeners.push(Listener::new(&ta, "paste", false, move |e: Event| {
        if let Some(s) = w.upgrade() {
            on_paste(&s, e.unchecked_ref());
        }
    })?);

    // Focus is the terminal's while its input or the terminal element itself has it (a click
    // on the screen focuses the element, so that a drag can select text); moving between the
    // two is no change, and sends no focus report (newcomer report: every click sent CSI O then
    // CSI I to programs using mode 1004).
    for (kind, focused) in [("focusin", true), ("focusout", false)] {
        let w = weak.clone();
        let r = root.clone();
        listeners.push(Listener::new(&root, kind, true, move |e: Event| {
            let e: &FocusEvent = e.unchecked_ref();
            let other = e.related_target().and_then(|t| t.dyn_into::<Node>().ok());
            if other.is_some() && r.contains(other.as_ref()) {
                return;
            }
            if let Some(s) = w.upgrade() {
                let report = match s.try_borrow_mut() {
                    Ok(mut inner) => {
                        inner.focused = focused;
                        // Focus reports (mode 1004) only go to a program, never to the echo.
                        let modes = inner.term.modes();
                        keys::encode_focus(focused, &modes)
                            .filter(|_| !inner.callbacks.data.is_empty())
                    }
                    Err(_) => None,
                };
                if let Some(bytes) = report {
                    send_input(&s, bytes);
                }
            }
            r.set_class_name(if focused {
                "wterm wterm-focus"
            } else {
                "wterm"
            });
        })?);
    }

    // Keys and text arriving while the terminal element (not its input) has focus, as after
    // selecting text: a key that types moves focus to the input, so its text lands there, and
    // is handled here; modifiers alone and browser chords (copy) leave focus and the selection
    // alone (newcomer report: Control alone cleared the selection before C arrived). Text with
    // no keydown (emoji pickers, dictation) and pastes are taken here too.
    for kind in ["keydown", "beforeinput", "paste"] {
        let w = weak.clone();
        let t = ta.clone();
        listeners.push(Listener::new(&root, kind, false, move |e: Event| {
            let from_input = e
                .target()
                .is_some_and(|target| &target == t.unchecked_ref::<EventTarget>());
            let Some(s) = w.upgrade() else { return };
            if from_input {
                return;
            }
            match kind {
                "keydown" => {
                    let ev: &KeyboardEvent = e.unchecked_ref();
                    if crate::find::find_key(&s, ev) {
                    } else if !copy_chord(&s, ev) && !is_modifier(&ev.key()) {
                        focus_element(&t);
                        on_keydown(&s, ev);
                    }
                }
                "beforeinput" => {
                    let ev: &InputEvent = e.unchecked_ref();
                    if let Some(text) = ev.data().filter(|_| ev.input_type() == "insertText") {
                        e.prevent_default();
                        focus_element(&t);
                        send_input(&s, text.as_bytes());
                    }
                }
                _ => {
                    focus_element(&t);
                    on_paste(&s, e.unchecked_ref());
                }
            }
        })?);
    }

    // A click that selected nothing focuses the input; a drag that selected text leaves the
    // selection alone so it can be copied.
    let t = ta.clone();
    listeners.push(Listener::new(&root, "mouseup", true, move |e: Event| {
        let e: &MouseEvent = e.unchecked_ref();
        if e.button() != 0 {
            return;
        }
        let collapsed = web_sys::window()
            .and_then(|w| w.get_selection().ok().flatten())
            .is_none_or(|s| s.is_collapsed());
        if collapsed {
            focus_element(&t);
        }
    })?);

    let copy_root = root.clone();
    let w = weak.clone();
    listeners.push(Listener::new(&root, "copy", false, move |e: Event| {
        let wrapped = w
            .upgrade()
            .and_then(|s| view_wrapped(&s))
            .unwrap_or_default();
        on_copy(e.unchecked_ref(), &copy_root, &wrapped);
    })?);

    let w = weak.clone();
    listeners.push(Listener::new(
        &viewport,
        "scroll",
        true,
        move |_e: Event| {
            if let Some(s) = w.upgrade() {
                on_scroll(&s);
            }
        },
    )?);

    let w = weak.clone();
    listeners.push(Listener::new(
        &viewport,
        "wheel",
        false,
        move |e: Event| {
            if let Some(s) = w.upgrade() {
                on_wheel(&s, e.unchecked_ref());
            }
        },
    )?);

    listeners.extend(crate::mouse::attach(&root, &ta, weak)?);
    Ok(listeners)
}

/// A key that is only a modifier: pressed alone it types nothing.
fn is_modifier(key: &str) -> bool {
    matches!(
        key,
        "Shift" | "Control" | "Alt" | "Meta" | "AltGraph" | "CapsLock" | "OS"
    )
}

/// Ctrl+Shift+C with text selected in the terminal: copies it as the `copy` handler would
/// (rows joined, trailing blanks trimmed). Chrome has no Ctrl+Shift+C copy of its own (it opens
/// the inspector), so a terminal page must do it, as terminals on Linux do. Returns whether it
/// copied; without a selection the key is left to the browser (`leave_to_browser`), and the
/// program gets nothing.
fn copy_chord(shared: &Shared, ev: &KeyboardEvent) -> bool {
    let chord = ev.ctrl_key() && ev.shift_key() && !ev.alt_key() && !ev.meta_key();
    if !chord || !ev.key().eq_ignore_ascii_case("c") {
        return false;
    }
    let root = match shared.try_borrow() {
        Ok(inner) => match inner.dom.as_ref() {
            Some(dom) => dom.root.clone(),
            None => return false,
        },
        Err(_) => return false,
    };
    let wrapped = view_wrapped(shared).unwrap_or_default();
    match selected_rows_text(&root, &wrapped).filter(|t| !t.is_empty()) {
        Some(text) => {
            ev.prevent_default();
            crate::term::write_clipboard(text);
            true
        }
        None => false,
    }
}

/// Chords left to the browser: copy and paste (Ctrl+Shift+C/V, Ctrl/Shift+Insert), and Meta
/// with a character (Cmd+C/V, and the other Cmd shortcuts on macOS: reload, find, zoom), unless
/// the program enabled the kitty keyboard protocol, where Meta is a modifier it reads ("super").
fn leave_to_browser(key: &str, m: Mods, kitty_flags: u8) -> bool {
    let c_or_v = key.eq_ignore_ascii_case("c") || key.eq_ignore_ascii_case("v");
    let insert = key == "Insert" && (m.ctrl || m.shift) && !m.alt && !m.meta;
    let meta_char = m.meta && key.chars().count() == 1;
    insert
        || (c_or_v && m.ctrl && m.shift && !m.alt && !m.meta)
        || (c_or_v && m.meta && !m.ctrl && !m.alt)
        || (meta_char && kitty_flags == 0)
}

/// Ctrl+V alone (no Shift, Alt or Meta): with the `pasteWithCtrlV` option it is left to the
/// browser, whose paste shortcut it is on Linux and Windows, and arrives as a `paste` event.
fn is_ctrl_v(key: &str, m: Mods) -> bool {
    key.eq_ignore_ascii_case("v") && m.ctrl && !m.shift && !m.alt && !m.meta
}

/// The Latin letter or digit of a physical key (`KeyboardEvent.code` `"KeyC"`, `"Digit1"`), so
/// that Ctrl+C sends ^C on a non-Latin layout too.
fn latin_key(code: &str, shift: bool) -> Option<char> {
    let c = code
        .strip_prefix("Key")
        .or_else(|| code.strip_prefix("Digit"))?;
    let mut chars = c.chars();
    let ch = chars.next().filter(|ch| ch.is_ascii_alphanumeric())?;
    if chars.next().is_some() {
        return None;
    }
    Some(if shift {
        ch.to_ascii_uppercase()
    } else {
        ch.to_ascii_lowercase()
    })
}

#[inline(never)] // called from two listeners; one copy in the wasm
fn on_keydown(shared: &Shared, ev: &KeyboardEvent) {
    if ev.is_composing() || ev.key_code() == IME_KEY_CODE {
        return;
    }
    let name = ev.key();
    let mut mods = Mods {
        ctrl: ev.ctrl_key(),
        alt: ev.alt_key(),
        shift: ev.shift_key(),
        meta: ev.meta_key(),
    };
    let (modes, paste_with_ctrl_v) = match shared.try_borrow() {
        Ok(inner) if !inner.composing => (inner.term.modes(), inner.paste_with_ctrl_v),
        _ => return,
    };
    if leave_to_browser(&name, mods, modes.kitty_flags)
        || (paste_with_ctrl_v && is_ctrl_v(&name, mods))
    {
        return;
    }
    let Some(mut key) = keys::dom_key(&name) else {
        return;
    };
    if let Key::Char(c) = key {
        if ev.get_modifier_state("AltGraph")
            || (mods.alt && !mods.ctrl && !mods.meta && !c.is_ascii())
        {
            // A character composed with AltGr or macOS Option: text, not a chord.
            mods = Mods {
                shift: mods.shift,
                ..Mods::NONE
            };
        } else if (mods.ctrl || mods.alt || mods.meta) && !c.is_ascii() {
            if let Some(latin) = latin_key(&ev.code(), mods.shift) {
                key = Key::Char(latin);
            }
        }
        let plain = !(mods.ctrl || mods.alt || mods.meta);
        if plain && !modes.reports_all_keys() {
            return; // arrives as an `input` event
        }
    }
    let bytes = keys::encode(Chord { key, mods }, &modes);
    ev.prevent_default();
    send_input(shared, &bytes);
}

fn on_input(shared: &Shared, ev: &InputEvent, ta: &HtmlTextAreaElement) {
    if ev.is_composing() {
        return;
    }
    let text = ev
        .data()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| ta.value());
    ta.set_value("");
    let modes = match shared.try_borrow() {
        Ok(inner) if !inner.composing => inner.term.modes(),
        _ => return,
    };
    let key = |k| keys::encode(Chord::plain(k), &modes);
    let bytes = match ev.input_type().as_str() {
        "insertText" | "insertReplacementText" => text.into_bytes(),
        "insertLineBreak" | "insertParagraph" => key(Key::Enter),
        "deleteContentBackward" => key(Key::Backspace),
        "deleteContentForward" => key(Key::Delete),
        // Composition text arrives with `compositionend`; anything else is not input.
        _ => return,
    };
    send_input(shared, &bytes);
}

fn on_paste(shared: &Shared, ev: &ClipboardEvent) {
    ev.prevent_default();
    let text = ev
        .clipboard_data()
        .and_then(|d| d.get_data("text/plain").ok())
        .unwrap_or_default();
    if text.is_empty() {
        return;
    }
    let Ok(bracketed) = shared.try_borrow().map(|i| i.term.modes().bracketed_paste) else {
        return;
    };
    send_input(shared, &keys::encode_paste(&text, bracketed));
}

fn on_scroll(shared: &Shared) {
    let Ok(mut inner) = shared.try_borrow_mut() else {
        return;
    };
    let Some(offset) = inner.dom.as_ref().map(Dom::scrolled_offset) else {
        return;
    };
    // The terminal moved the view (a search revealing a match) and the next frame moves the
    // scrollbar there: a scroll event from before, arriving now, must not undo the move.
    if inner.dom.as_ref().is_some_and(|d| d.sync_scroll) {
        return;
    }
    if offset != inner.view_offset {
        inner.view_offset = offset;
        inner.schedule_frame();
    }
}

/// When the program tracks the mouse, the wheel goes to it as button 4/5 presses, one per wheel
/// event (a notch; a touchpad's movement once it adds up to a row), as xterm.js does; Shift+wheel
/// then scrolls the history instead. Otherwise, on the main screen the wheel scrolls history
/// natively; on the alternate screen (which has no history) it sends cursor up/down, one per row
/// scrolled, as xterm's `alternateScroll` does, so `less` and `man` scroll.
fn on_wheel(shared: &Shared, ev: &WheelEvent) {
    let (steps, to_program) = {
        let Ok(mut inner) = shared.try_borrow_mut() else {
            return;
        };
        let modes = inner.term.modes();
        let owned = mouse::program_modes(&inner);
        let rows = f64::from(inner.term.size().rows);
        let Some(dom) = inner.dom.as_mut() else {
            return;
        };
        let unit = match ev.delta_mode() {
            WheelEvent::DOM_DELTA_LINE => dom.cell.h,
            WheelEvent::DOM_DELTA_PAGE => dom.cell.h * rows,
            _ => 1.0,
        };
        if owned.is_some() && ev.shift_key() {
            if !modes.alternate_screen {
                // Browsers turn Shift+wheel into a horizontal scroll, which the viewport has not.
                ev.prevent_default();
                let delta = if ev.delta_y() != 0.0 {
                    ev.delta_y()
                } else {
                    ev.delta_x()
                };
                let top = scroll_top_f64(&dom.viewport) + delta * unit;
                dom.viewport.set_scroll_top(top.round() as i32);
            }
            return;
        }
        if owned.is_none() && (!modes.alternate_screen || modes.mouse_reporting()) {
            return;
        }
        ev.prevent_default();
        dom.wheel_rest += ev.delta_y() * unit / dom.cell.h;
        let whole = dom.wheel_rest.trunc();
        dom.wheel_rest -= whole;
        let steps = whole.max(-rows).min(rows) as i32;
        if steps == 0 {
            return;
        }
        if owned.is_some() {
            dom.wheel_rest = 0.0;
        }
        (steps, owned)
    };
    match to_program {
        Some(modes) => mouse::report_wheel(shared, ev, steps < 0, &modes),
        None => alternate_scroll(shared, steps),
    }
}

/// xterm's `alternateScroll`: scrolling on the alternate screen sends cursor up (`steps` < 0)
/// or down, once per row, in the program's cursor-key mode (DECCKM).
pub(crate) fn alternate_scroll(shared: &Shared, steps: i32) {
    let Ok(modes) = shared.try_borrow().map(|i| i.term.modes()) else {
        return;
    };
    let key = if steps < 0 {
        Key::ArrowUp
    } else {
        Key::ArrowDown
    };
    let bytes = keys::encode(Chord::plain(key), &modes).repeat(steps.unsigned_abs() as usize);
    send_input(shared, &bytes);
}

/// Copies the selection row by row: the selected part of each `.wterm-row` as its DOM text
/// (`Range.toString`, so the styled runs of a row stay on one line; the selection's own
/// `toString` puts every flex item on a line of its own), trailing blanks removed (rows are
/// padded with spaces to the terminal's width), rows joined with `\n` except after a row the
/// line continues from (soft wrap, `wrapped[i]` for the view's row `i`), so a long command or
/// URL pastes as one line.
fn on_copy(ev: &ClipboardEvent, root: &web_sys::Element, wrapped: &[bool]) {
    let Some(text) = selected_rows_text(root, wrapped) else {
        return;
    };
    if text.is_empty() {
        return;
    }
    if let Some(data) = ev.clipboard_data() {
        if data.set_data("text/plain", &text).is_ok() {
            ev.prevent_default();
        }
    }
}

/// For each row of the view, whether its line continues on the next row.
pub(crate) fn view_wrapped(shared: &Shared) -> Option<Vec<bool>> {
    let mut inner = shared.try_borrow_mut().ok()?;
    let rows = usize::from(inner.term.size().rows);
    let offset = inner.view_offset.min(inner.term.scrollback_rows());
    let mut flags: Vec<bool> = inner
        .term
        .history_rows(offset)
        .iter()
        .map(|r| r.wrapped)
        .collect();
    flags.extend(inner.term.screen_rows().iter().map(|r| r.wrapped));
    flags.truncate(rows);
    Some(flags)
}

/// The selected text of the terminal under `root` (see [`on_copy`]); `None` without a
/// selection or when it does not touch a row.
pub(crate) fn selected_rows_text(root: &web_sys::Element, wrapped: &[bool]) -> Option<String> {
    let window = web_sys::window()?;
    let doc = window.document()?;
    let sel = window.get_selection().ok()??;
    if sel.range_count() == 0 {
        return None;
    }
    let range = sel.get_range_at(0).ok()?;
    let rows = root.query_selector_all(".wterm-row").ok()?;
    let start = range.start_container().ok()?;
    let end = range.end_container().ok()?;
    let mut text = String::new();
    let mut any = false;
    let mut joined = false;
    for i in 0..rows.length() {
        let Some(row) = rows.item(i) else { continue };
        if !range.intersects_node(&row).unwrap_or(false) {
            continue;
        }
        let part = doc.create_range().ok()?;
        part.select_node_contents(&row).ok()?;
        if row.contains(Some(&start)) {
            part.set_start(&start, range.start_offset().ok()?).ok()?;
        }
        if row.contains(Some(&end)) {
            part.set_end(&end, range.end_offset().ok()?).ok()?;
        }
        let row_text: String = part.to_string().into();
        if any && !joined {
            text.push('\n');
        }
        any = true;
        joined = wrapped.get(i as usize).copied().unwrap_or(false);
        // A wrapped row's trailing spaces are part of its line.
        text.push_str(if joined {
            &row_text
        } else {
            row_text.trim_end_matches(' ')
        });
    }
    any.then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_chords_pass_through() {
        let m = |ctrl, alt, shift, meta| Mods {
            ctrl,
            alt,
            shift,
            meta,
        };
        let ctrl_shift = m(true, false, true, false);
        let meta = m(false, false, false, true);
        let ctrl = m(true, false, false, false);
        let shift = m(false, false, true, false);
        assert!(leave_to_browser("C", ctrl_shift, 0));
        assert!(leave_to_browser("V", ctrl_shift, 0));
        assert!(leave_to_browser("c", meta, 0));
        assert!(leave_to_browser("v", meta, 1));
        assert!(leave_to_browser("r", meta, 0));
        assert!(leave_to_browser("Insert", shift, 0));
        assert!(!leave_to_browser("r", meta, 1));
        assert!(!leave_to_browser("ArrowLeft", meta, 0));
        assert!(!leave_to_browser("c", ctrl, 0));
        assert!(!leave_to_browser("v", ctrl, 0));
        assert!(is_ctrl_v("v", ctrl));
        assert!(!is_ctrl_v("V", ctrl_shift));
        assert!(!is_ctrl_v("v", meta));
    }

    #[test]
    fn latin_key_from_code() {
        assert_eq!(latin_key("KeyC", false), Some('c'));
        assert_eq!(latin_key("KeyC", true), Some('C'));
        assert_eq!(latin_key("Digit2", false), Some('2'));
        assert_eq!(latin_key("Semicolon", false), None);
    }
}

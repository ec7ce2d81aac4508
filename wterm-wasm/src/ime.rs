//! IME composition: while a composition is in progress (`compositionstart` ..
//! `compositionend`) nothing is sent and its text is shown at the cursor in a preview element
//! (`div.wterm-ime`, styled like the terminal's text and underlined, as xterm.js's composition
//! view); `compositionend` hides it and sends the committed text, once.
//!
//! Keys the IME consumes arrive as `keydown` with `isComposing` or `keyCode` 229 and are not
//! sent (input.rs `on_keydown`), so no Latin letter leaks out before the composition starts.

use std::cell::RefCell;
use std::rc::Weak;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CompositionEvent, Event, HtmlElement, HtmlTextAreaElement};

use crate::dom::Listener;
use crate::term::{send_input, Inner, Shared};
use crate::view::Dom;

/// Adds the composition listeners to the hidden input; they stop when the guards are dropped.
pub(crate) fn attach(dom: &Dom, weak: &Weak<RefCell<Inner>>) -> Result<Vec<Listener>, JsValue> {
    let ta = &dom.textarea;
    let mut listeners = Vec::with_capacity(3);
    for kind in ["compositionstart", "compositionupdate", "compositionend"] {
        let w = weak.clone();
        let t = ta.clone();
        let preview = dom.ime.clone();
        listeners.push(Listener::new(ta, kind, false, move |e: Event| {
            let Some(s) = w.upgrade() else { return };
            let ev: &CompositionEvent = e.unchecked_ref();
            match kind {
                "compositionend" => on_end(&s, ev, &t, &preview),
                _ => on_update(&s, ev, &preview),
            }
        })?);
    }
    Ok(listeners)
}

/// Start or update: the composition so far is shown at the cursor.
fn on_update(shared: &Shared, ev: &CompositionEvent, preview: &HtmlElement) {
    match shared.try_borrow_mut() {
        Ok(mut inner) => inner.composing = true,
        Err(_) => return,
    }
    let text = ev.data().unwrap_or_default();
    preview.set_text_content(Some(&text));
    preview.set_hidden(text.is_empty());
}

/// End: the preview goes and the committed text (possibly empty: a cancelled composition) is
/// sent.
fn on_end(shared: &Shared, ev: &CompositionEvent, ta: &HtmlTextAreaElement, preview: &HtmlElement) {
    ta.set_value("");
    preview.set_text_content(None);
    preview.set_hidden(true);
    match shared.try_borrow_mut() {
        Ok(mut inner) => inner.composing = false,
        Err(_) => return,
    }
    if let Some(text) = ev.data() {
        send_input(shared, text.as_bytes());
    }
}

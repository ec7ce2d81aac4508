//! What the xterm.js-compatible entry (`wterm-wasm/xterm`, package file `xterm.js`) reads that
//! `WTerm` has no other way to give: the buffer line by line and cell by cell, the cursor and
//! modes, the view's scroll position, and the selection's text. Full build only (feature `full`),
//! so the core entry's size is unchanged.

use wasm_bindgen::prelude::*;
use wterm_core::modes::MouseTracking;
use wterm_core::Color;

use crate::js::set;
use crate::term::{busy, Lifecycle};
use crate::WTerm;

/// A colour as one number: -1 the default, 0..255 a palette index, 0x1000000 + 0xRRGGBB a
/// truecolor value.
fn color_code(c: Color) -> f64 {
    match c {
        Color::Default => -1.0,
        Color::Indexed(n) => f64::from(n),
        Color::Rgb(r, g, b) => f64::from(0x100_0000 | u32::from_be_bytes([0, r, g, b])),
    }
}

#[wasm_bindgen]
impl WTerm {
    /// `bufferState()`: the active buffer for the xterm.js-compatible entry: `{alternate,
    /// cursorX, cursorY, baseY, viewportY, length}` (history rows are lines `0..baseY`, the
    /// screen `baseY..length`; `viewportY` the first line in view) and the modes
    /// (`applicationCursorKeysMode`, `applicationKeypadMode`, `bracketedPasteMode`, `insertMode`,
    /// `mouseTrackingMode`, `originMode`, `wraparoundMode`, `sendFocusMode`,
    /// `synchronizedOutputMode`, `cursorHidden`).
    #[wasm_bindgen(js_name = bufferState, skip_typescript)]
    pub fn buffer_state(&self) -> Result<JsValue, JsError> {
        let inner = self.shared.try_borrow().map_err(|_| busy())?;
        let t = &inner.term;
        let base = t.scrollback_rows();
        let cursor = t.cursor();
        let m = t.modes();
        let o = js_sys::Object::new();
        set(&o, "alternate", m.alternate_screen);
        set(&o, "cursorX", cursor.col);
        set(&o, "cursorY", cursor.row);
        set(&o, "baseY", base as f64);
        set(&o, "viewportY", (base - inner.view_offset.min(base)) as f64);
        set(&o, "length", (base + usize::from(t.size().rows)) as f64);
        set(&o, "applicationCursorKeysMode", m.application_cursor);
        set(&o, "applicationKeypadMode", m.application_keypad);
        set(&o, "bracketedPasteMode", m.bracketed_paste);
        set(&o, "insertMode", m.insert);
        let mouse = match m.mouse_tracking {
            MouseTracking::Off => "none",
            MouseTracking::X10 => "x10",
            MouseTracking::Normal => "vt200",
            MouseTracking::ButtonEvent => "drag",
            MouseTracking::AnyEvent => "any",
        };
        set(&o, "mouseTrackingMode", mouse);
        set(&o, "originMode", m.origin);
        set(&o, "wraparoundMode", m.autowrap);
        set(&o, "sendFocusMode", m.focus_events);
        set(&o, "synchronizedOutputMode", m.synchronized_output);
        set(&o, "cursorHidden", m.hide_cursor);
        Ok(o.into())
    }

    /// `bufferLine(line)`: one line of history and screen (0 = the oldest history row) as a flat
    /// array `[wrapped, text, width, fg, bg, flags, text, width, ...]`, five entries per column:
    /// the cell's text ("" blank), width (1, 2, 0 for a wide character's second half), colours
    /// (-1 default, 0..255 palette, 0x1000000 + RGB) and flags (1 bold, 2 italic, 4 dim,
    /// 8 underline, 16 blink, 32 inverse, 64 invisible, 128 strikethrough); `undefined` past the
    /// last line.
    #[wasm_bindgen(js_name = bufferLine, skip_typescript)]
    pub fn buffer_line(&self, line: f64) -> Result<JsValue, JsError> {
        let inner = self.shared.try_borrow().map_err(|_| busy())?;
        if !(line >= 0.0 && line.fract() == 0.0) {
            return Ok(JsValue::UNDEFINED);
        }
        let Some((wrapped, cells)) = inner.term.line_cells(line as usize) else {
            return Ok(JsValue::UNDEFINED);
        };
        let out = js_sys::Array::new();
        out.push(&wrapped.into());
        for (text, width, s) in cells {
            let flags = u32::from(s.bold)
                | u32::from(s.italic) << 1
                | u32::from(s.dim) << 2
                | u32::from(s.underline) << 3
                | u32::from(s.blink) << 4
                | u32::from(s.inverse) << 5
                | u32::from(s.hidden) << 6
                | u32::from(s.strikethrough) << 7;
            out.push(&text.into());
            out.push(&width.into());
            out.push(&color_code(s.fg).into());
            out.push(&color_code(s.bg).into());
            out.push(&flags.into());
        }
        Ok(out.into())
    }

    /// `scrollLines(amount)`: moves the view `amount` lines down (negative: up into history),
    /// within the history; drawn at the next frame.
    #[wasm_bindgen(js_name = scrollLines, skip_typescript)]
    pub fn scroll_lines(&self, amount: f64) -> Result<(), JsError> {
        let mut inner = self.shared.try_borrow_mut().map_err(|_| busy())?;
        if inner.lifecycle == Lifecycle::Destroyed || !amount.is_finite() {
            return Ok(());
        }
        let base = inner.term.scrollback_rows() as f64;
        let offset = inner.view_offset.min(base as usize) as f64;
        let new = (offset - amount.trunc()).clamp(0.0, base) as usize;
        if new != inner.view_offset {
            inner.view_offset = new;
            if let Some(dom) = inner.dom.as_mut() {
                dom.sync_scroll = true;
            }
            inner.schedule_frame();
        }
        Ok(())
    }

    /// `selectionText()`: the text selected in the terminal, as copying gives it (rows joined,
    /// trailing blanks trimmed, soft-wrapped rows as one line), or `undefined`.
    #[wasm_bindgen(js_name = selectionText, skip_typescript)]
    pub fn selection_text(&self) -> Option<String> {
        let root = self.shared.try_borrow().ok()?.dom.as_ref()?.root.clone();
        let wrapped = crate::input::view_wrapped(&self.shared)?;
        crate::input::selected_rows_text(&root, &wrapped)
    }
}

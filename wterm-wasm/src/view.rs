//! [`Dom`]: the elements a terminal adds to its host element, the cell metrics measured from
//! them, the listeners and timers it owns, and the per-frame render with scroll syncing.
//!
//! ```text
//! host (the page's element)
//! └── div.wterm                     theme variables, --wterm-cell-w/-h, --wterm-cols/-rows
//!     ├── div.wterm-viewport        scrolls over history + screen (native wheel and scrollbar)
//!     │   ├── div.wterm-screen      position: sticky; the rows of the current view
//!     │   │   ├── div.wterm-rows    div.wterm-row × rows
//!     │   │   ├── div.wterm-cursor
//!     │   │   └── textarea.wterm-input   hidden; keyboard, paste and IME land here
//!     │   └── div.wterm-spacer      history rows tall
//!     └── span.wterm-measure        measures the cell
//! ```

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlTextAreaElement, ResizeObserver};
use wterm_core::limits::{MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS};
use wterm_core::{DynamicColors, Size, Terminal};

use crate::dom::{element, inject_style, set_var, Listener};
use crate::js::{px, scroll_top_f64};
use crate::mouse::MouseDrag;
use crate::render::{Renderer, GROUPED_SCRIPTS};

/// Cell width used until a measurement succeeds (the host is hidden or detached), in CSS px.
const FALLBACK_CELL_W_PX: f64 = 8.0;
/// Cell height used until a measurement succeeds, in CSS px.
const FALLBACK_CELL_H_PX: f64 = 17.0;
/// Characters in the measuring span; the cell width is the span's width divided by this, so
/// sub-pixel advances are measured to 1/64 px.
const MEASURE_CHARS: usize = 64;
/// Characters measured for the advance of each script drawn in runs (render.rs
/// `GROUPED_SCRIPTS`).
const MEASURE_WIDE_CHARS: usize = 16;

/// A resize observer on the host and its callback, kept together so the callback lives exactly
/// as long as the observation.
pub(crate) type AutoFit = (ResizeObserver, Closure<dyn FnMut(JsValue)>);

/// The size of one cell in CSS pixels. `h` is a whole number (the font's normal line height
/// rounded up), so row positions and scroll offsets land on whole pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CellSize {
    pub(crate) w: f64,
    pub(crate) h: f64,
}

/// The DOM side of an initialized terminal. Dropping it removes its listeners, cancels its
/// animation frame, disconnects its resize observer and takes its elements out of the page.
pub(crate) struct Dom {
    pub(crate) root: HtmlElement,
    pub(crate) viewport: HtmlElement,
    pub(crate) textarea: HtmlTextAreaElement,
    /// The IME composition preview at the cursor (ime.rs).
    pub(crate) ime: HtmlElement,
    /// Announces new output to screen readers (a11y.rs); `None` with `screenReaderMode: false`.
    pub(crate) live: Option<crate::a11y::LiveRegion>,
    /// Swipe, momentum, long-press and selection handles (touch.rs).
    pub(crate) touch: crate::touch::TouchState,
    measure: HtmlElement,
    renderer: Renderer,
    pub(crate) cell: CellSize,
    scrollbar_px: f64,
    /// Scrollback rows as of the last frame: the spacer's height in rows.
    pub(crate) history: usize,
    /// Scrollback rows the view offset is counted against: [`Dom::history`], or the history of
    /// the moment the terminal last moved the view (a search revealing a match) when that came
    /// after the last frame.
    pub(crate) offset_history: usize,
    /// Size as of the last frame.
    size: Option<Size>,
    /// The view offset was changed by the terminal (input, output, resize), not by the user
    /// scrolling: the next frame moves the scrollbar to match.
    pub(crate) sync_scroll: bool,
    /// Wheel movement not yet turned into whole rows, in rows (alternate screen).
    pub(crate) wheel_rest: f64,
    /// The mouse drag being reported to the program, if any.
    pub(crate) mouse: MouseDrag,
    /// The pending `requestAnimationFrame` id; at most one at a time.
    frame: Option<i32>,
    /// The frame callback, made once at start-up and kept for the terminal's lifetime.
    pub(crate) on_frame: Option<Closure<dyn FnMut(f64)>>,
    /// Refits on host resize when the page gave no size.
    pub(crate) resize_observer: Option<AutoFit>,
    /// Keyboard, paste, IME, focus, scroll, wheel, mouse and copy listeners.
    pub(crate) listeners: Vec<Listener>,
}

impl Dom {
    /// Builds the elements inside `host` (adding the stylesheet to the document first if
    /// needed). Nothing is listened to yet.
    pub(crate) fn build(host: &HtmlElement) -> Result<Dom, JsValue> {
        let doc = host.owner_document().ok_or("element has no document")?;
        inject_style(&doc)?;
        let root = element(&doc, "div", "wterm")?;
        // Focusable, so a click on the screen keeps focus in the terminal (input.rs).
        root.set_attribute("tabindex", "-1")?;
        let viewport = element(&doc, "div", "wterm-viewport")?;
        let screen = element(&doc, "div", "wterm-screen")?;
        let rows = element(&doc, "div", "wterm-rows")?;
        // The rows read as a document of lines (browse mode reads the screen); new output is
        // announced by the live region, not by the rows, which change in place.
        rows.set_attribute("role", "document")?;
        rows.set_attribute("aria-label", "Terminal screen")?;
        let ime = element(&doc, "div", "wterm-ime")?;
        ime.set_attribute("aria-hidden", "true")?;
        ime.set_hidden(true);
        let cursor = element(&doc, "div", "wterm-cursor")?;
        cursor.set_attribute("aria-hidden", "true")?;
        let textarea: HtmlTextAreaElement =
            element(&doc, "textarea", "wterm-input")?.unchecked_into();
        for (k, v) in [
            ("aria-label", "Terminal input"),
            ("autocapitalize", "off"),
            ("autocomplete", "off"),
            ("autocorrect", "off"),
            ("spellcheck", "false"),
            ("tabindex", "0"),
        ] {
            textarea.set_attribute(k, v)?;
        }
        let spacer = element(&doc, "div", "wterm-spacer")?;
        let measure = element(&doc, "span", "wterm-measure")?;
        measure.set_attribute("aria-hidden", "true")?;
        measure.set_text_content(Some(&"W".repeat(MEASURE_CHARS)));
        screen.append_child(&rows)?;
        screen.append_child(&cursor)?;
        screen.append_child(&ime)?;
        screen.append_child(&textarea)?;
        viewport.append_child(&screen)?;
        viewport.append_child(&spacer)?;
        root.append_child(&viewport)?;
        root.append_child(&measure)?;
        host.append_child(&root)?;
        Ok(Dom {
            renderer: Renderer::new(doc, screen, rows, cursor),
            root,
            viewport,
            textarea,
            ime,
            live: None,
            touch: crate::touch::TouchState::default(),
            measure,
            cell: CellSize {
                w: FALLBACK_CELL_W_PX,
                h: FALLBACK_CELL_H_PX,
            },
            scrollbar_px: 0.0,
            history: 0,
            offset_history: 0,
            size: None,
            sync_scroll: true,
            wheel_rest: 0.0,
            mouse: MouseDrag::default(),
            frame: None,
            on_frame: None,
            resize_observer: None,
            listeners: Vec::new(),
        })
    }

    /// Measures the cell in the current font and the scrollbar's width, and publishes both as
    /// CSS variables. A failed measurement (hidden or detached host) keeps the previous values.
    pub(crate) fn measure(&mut self) {
        let rect = self.measure.get_bounding_client_rect();
        let w = rect.width() / MEASURE_CHARS as f64;
        let h = rect.height().ceil();
        if w > 0.0 && h > 0.0 {
            let cell = CellSize { w, h };
            if cell != self.cell {
                self.cell = cell;
                self.sync_scroll = true;
            }
        }
        set_var(&self.root, "--wterm-cell-w", &px(self.cell.w));
        set_var(&self.root, "--wterm-cell-h", &px(self.cell.h));
        // The advance of each grouped script in the current fonts: letter-spacing makes it two
        // cells. A script that did not measure is drawn one box per character.
        let mut grouped = [false; GROUPED_SCRIPTS.len()];
        for (i, (sample, _)) in GROUPED_SCRIPTS.iter().enumerate() {
            self.measure
                .set_text_content(Some(&sample.to_string().repeat(MEASURE_WIDE_CHARS)));
            let advance =
                self.measure.get_bounding_client_rect().width() / MEASURE_WIDE_CHARS as f64;
            if advance > 0.0 {
                set_var(
                    &self.root,
                    &format!("--wterm-ls-{i}"),
                    &px(2.0 * self.cell.w - advance),
                );
                grouped[i] = true;
            }
        }
        self.measure
            .set_text_content(Some(&"W".repeat(MEASURE_CHARS)));
        self.renderer.set_grouped(grouped);
        let sb = f64::from(self.viewport.offset_width() - self.viewport.client_width());
        if sb >= 0.0 && self.viewport.offset_width() > 0 {
            self.scrollbar_px = sb;
        }
        set_var(&self.root, "--wterm-sb-w", &px(self.scrollbar_px));
    }

    /// The size in cells that fills the terminal's box (the host's content box), or `None` when
    /// the box is smaller than a cell (hidden, detached or not laid out yet).
    pub(crate) fn fitted_size(&self) -> Option<Size> {
        let w = f64::from(self.root.client_width()) - self.scrollbar_px;
        let h = f64::from(self.root.client_height());
        if w < self.cell.w || h < self.cell.h {
            return None;
        }
        let cols = (w / self.cell.w).floor().min(f64::from(MAX_COLS)) as u16;
        let rows = (h / self.cell.h).floor().min(f64::from(MAX_ROWS)) as u16;
        Some(Size {
            rows: rows.max(MIN_ROWS),
            cols: cols.max(MIN_COLS),
        })
    }

    /// Asks for a frame unless one is pending.
    /// Forgets the frame being run, so the next [`Self::request_frame`] asks for a new one (a
    /// frame skipped during synchronized output draws nothing).
    pub(crate) fn frame_done(&mut self) {
        self.frame = None;
    }

    pub(crate) fn request_frame(&mut self) {
        if self.frame.is_some() {
            return;
        }
        let (Some(window), Some(cb)) = (web_sys::window(), self.on_frame.as_ref()) else {
            return;
        };
        self.frame = window
            .request_animation_frame(cb.as_ref().unchecked_ref())
            .ok();
    }

    /// Draws the current state: size and history first (they set the scroll range), then the
    /// rows of the view and the cursor, then the scrollbar position if the terminal moved the
    /// view.
    ///
    /// While the user looks at history (`view_offset > 0`), new history moves the view up by
    /// the same number of rows, so the rows being read stay put (as xterm does).
    pub(crate) fn render(&mut self, term: &mut Terminal, view_offset: &mut usize) {
        self.frame = None;
        let size = term.size();
        if self.size != Some(size) {
            set_var(&self.root, "--wterm-cols", &size.cols.to_string());
            set_var(&self.root, "--wterm-rows", &size.rows.to_string());
            self.size = Some(size);
            self.sync_scroll = true;
        }
        let history = term.scrollback_rows();
        *view_offset = self.offset_now(history, *view_offset);
        self.offset_history = history;
        if history != self.history {
            set_var(&self.root, "--wterm-history", &history.to_string());
            self.history = history;
            self.sync_scroll = true;
        }
        *view_offset = (*view_offset).min(history);
        let rewritten = match self.renderer.draw(term, *view_offset) {
            Ok(n) => n,
            Err(e) => {
                web_sys::console::error_2(&JsValue::from_str("wterm: render failed:"), &e);
                0
            }
        };
        if self.sync_scroll {
            // Setting the scroll position lays the page out first.
            self.sync_scroll = false;
            let top = (history - *view_offset) as f64 * self.cell.h;
            self.viewport.set_scroll_top(top.round() as i32);
        } else if rewritten > 0 {
            // Lay out the new rows now rather than after the callback: the browser would do it
            // before painting this frame anyway, so it costs nothing extra, and the frame's
            // measured cost (which paces the next frame, term.rs) then includes it. Laying out
            // a screen of new CJK text costs 3 to 5 times the callback that wrote it.
            let _ = self.root.offset_width();
        }
    }

    /// The theme as drawn, for OSC 10/11/12 replies: the computed `color` and
    /// `background-color` of the terminal element (so a `theme` and a page's own
    /// `--wterm-fg`/`--wterm-bg` count), the cursor in `--wterm-cursor` when that is a hex
    /// colour (a theme always writes one), else in the foreground color. `None` when the browser
    /// gives a color that is not `rgb(R, G, B)` / `rgba(R, G, B, A)` with whole components.
    pub(crate) fn theme_colors(&self) -> Option<DynamicColors> {
        let style = web_sys::window()?.get_computed_style(&self.root).ok()??;
        let fg = css_rgb(&style.get_property_value("color").ok()?)?;
        let bg = css_rgb(&style.get_property_value("background-color").ok()?)?;
        let cursor = style
            .get_property_value("--wterm-cursor")
            .ok()
            .and_then(|c| wterm_core::hex_rgb(&c));
        Some(DynamicColors {
            foreground: fg,
            background: bg,
            cursor: cursor.unwrap_or(fg),
        })
    }

    /// Where the rows are in the page, in client px.
    pub(crate) fn rows_rect(&self) -> web_sys::DomRect {
        self.renderer.rows_rect()
    }

    /// The view offset the scrollbar shows: rows between its position and the bottom, counted
    /// against [`Dom::offset_history`].
    pub(crate) fn scrolled_offset(&self) -> usize {
        let rows_from_top = (scroll_top_f64(&self.viewport) / self.cell.h).round();
        self.offset_history
            .saturating_sub(rows_from_top.max(0.0) as usize)
    }

    /// `view_offset` (counted against [`Dom::offset_history`]) counted against `history`, the
    /// scrollback now: while the user looks at history, rows added since move the view up by as
    /// many.
    pub(crate) fn offset_now(&self, history: usize, view_offset: usize) -> usize {
        if view_offset > 0 && history > self.offset_history {
            view_offset + (history - self.offset_history)
        } else {
            view_offset
        }
    }
}

/// `rgb(R, G, B)` or `rgba(R, G, B, A)` (a computed color) to its components; `None` for any
/// other form or a fractional component. Bytes by hand: `trim`/`parse` cost the wasm 0.7 KB.
fn css_rgb(css: &str) -> Option<[u8; 3]> {
    let body = css.strip_prefix("rgb")?;
    let (mut out, mut n, mut cur) = ([0u8; 3], 0, None::<u16>);
    for &b in body.as_bytes() {
        if b.is_ascii_digit() {
            let v = cur.unwrap_or(0) * 10 + u16::from(b - b'0');
            cur = Some(v.min(256));
        } else if b == b'.' && n < 3 {
            return None;
        } else if let Some(v) = cur.take() {
            if n == 3 {
                break;
            }
            out[n] = u8::try_from(v).ok()?;
            n += 1;
        }
    }
    (n == 3).then_some(out)
}

impl Drop for Dom {
    fn drop(&mut self) {
        if let (Some(id), Some(window)) = (self.frame.take(), web_sys::window()) {
            let _ = window.cancel_animation_frame(id);
        }
        if let Some((observer, _closure)) = self.resize_observer.take() {
            observer.disconnect();
        }
        self.listeners.clear();
        self.root.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::css_rgb;

    #[test]
    fn computed_colors_parse() {
        assert_eq!(css_rgb("rgb(30, 30, 30)"), Some([30, 30, 30]));
        assert_eq!(css_rgb("rgba(255, 0, 7, 0.5)"), Some([255, 0, 7]));
        assert_eq!(css_rgb("rgb(1.5, 2, 3)"), None);
        assert_eq!(css_rgb("rgb(256, 2, 3)"), None);
        assert_eq!(css_rgb("rgb(1, 2)"), None);
        assert_eq!(css_rgb("color(srgb 0.1 0.2 0.3)"), None);
    }
}

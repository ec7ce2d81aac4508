//! DOM plumbing shared by the renderer and the input handlers: event listeners that remove
//! themselves when dropped, the stylesheet injected once per document, element creation.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AddEventListenerOptions, Document, Element, Event, EventTarget, HtmlElement};

/// `id` of the `<style>` element the first terminal of a document adds to `<head>`.
pub(crate) const STYLE_ID: &str = "wterm-style";

/// The stylesheet: theme and palette as CSS custom properties, the row/span layout, cursor and
/// hidden input. Fonts: `--wterm-font-family` (the terminal font) then `--wterm-font-fallback`
/// (emoji and CJK fonts tried, in order, for characters the terminal font lacks).
///
/// A `theme` (theme.rs) sets the same variables inline on the terminal element, which beats
/// these rules and the page's.
///
/// The theme's defaults sit on `:where(:root)`: zero specificity, on the document's root, so an
/// app's own rule wins however its CSS is ordered against this sheet (which is added when the
/// first terminal starts, after the app's CSS): one on `.wterm`, on the host element or any
/// ancestor (inherited), or on `:root`. A cascade layer was the other way; it would also let
/// every unlayered rule of the app (`a { color }`, resets) beat the layout rules below, which
/// keep their class specificity because the grid's alignment depends on them.
///
/// Layout: the viewport scrolls over `history + rows` rows; the screen inside it is
/// `position: sticky`, so it always covers the visible area and the renderer draws the rows of
/// the current view offset into it. Every span is exactly `--n` cells wide and every wide
/// character sits in a two-cell box, so columns stay aligned whatever the fallback fonts
/// measure.
pub(crate) const STYLE_CSS: &str = concat!(
    ":where(:root){",
    "--wterm-bg:#1e1e1e;--wterm-fg:#d4d4d4;",
    "--wterm-c0:#000000;--wterm-c1:#cd0000;--wterm-c2:#00cd00;--wterm-c3:#cdcd00;",
    "--wterm-c4:#0000ee;--wterm-c5:#cd00cd;--wterm-c6:#00cdcd;--wterm-c7:#e5e5e5;",
    "--wterm-c8:#7f7f7f;--wterm-c9:#ff0000;--wterm-c10:#00ff00;--wterm-c11:#ffff00;",
    "--wterm-c12:#5c5cff;--wterm-c13:#ff00ff;--wterm-c14:#00ffff;--wterm-c15:#ffffff;",
    "--wterm-font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,'DejaVu Sans Mono',",
    "'Liberation Mono','Courier New',monospace;--wterm-font-size:14px;",
    // Named fallbacks for emoji and CJK: a character the terminal font lacks is found in this
    // list instead of by the browser's per-character system font search, which on a flood of
    // new CJK characters took two thirds of the layout time.
    "--wterm-font-fallback:'Noto Sans Mono CJK SC','Noto Sans CJK SC','WenQuanYi Zen Hei Mono',",
    "'PingFang SC','Hiragino Sans','Microsoft YaHei','Malgun Gothic','Noto Color Emoji',",
    "'Apple Color Emoji','Segoe UI Emoji'}",
    ".wterm{--wterm-cell-w:8px;--wterm-cell-h:17px;--wterm-cols:80;--wterm-rows:24;--wterm-history:0;",
    "--wterm-sb-w:0px;",
    "position:relative;box-sizing:border-box;width:100%;height:100%;overflow:hidden;",
    "background:var(--wterm-bg);color:var(--wterm-fg);",
    "font-family:var(--wterm-font-family),var(--wterm-font-fallback);",
    "font-size:var(--wterm-font-size);font-variant-ligatures:none;font-kerning:none;cursor:text}",
    ".wterm:focus{outline:none}",
    ".wterm-viewport{position:relative;overflow-x:hidden;overflow-y:auto;",
    "scrollbar-gutter:stable;scrollbar-width:thin;",
    "scrollbar-color:rgba(128,128,128,.5) transparent;",
    "width:calc(var(--wterm-cell-w)*var(--wterm-cols) + var(--wterm-sb-w));",
    "height:calc(var(--wterm-cell-h)*var(--wterm-rows))}",
    ".wterm-screen{position:sticky;top:0;overflow:hidden;",
    "width:calc(var(--wterm-cell-w)*var(--wterm-cols));",
    "height:calc(var(--wterm-cell-h)*var(--wterm-rows))}",
    ".wterm-spacer{height:calc(var(--wterm-cell-h)*var(--wterm-history))}",
    ".wterm-row{display:flex;height:var(--wterm-cell-h);line-height:var(--wterm-cell-h);",
    "white-space:pre;overflow-x:clip;overflow-y:visible;contain:layout style}",
    ".wterm-row>span,.wterm-a>span{flex:none;min-width:0;width:calc(var(--wterm-cell-w)*var(--n,1))}",
    ".wterm-w{text-align:center}",
    // Runs of CJK characters (render.rs GROUPED_SCRIPTS): each glyph centred on its two cells.
    ".wterm-g0{letter-spacing:var(--wterm-ls-0);text-indent:calc(var(--wterm-ls-0)/2);text-align:left}",
    ".wterm-g1{letter-spacing:var(--wterm-ls-1);text-indent:calc(var(--wterm-ls-1)/2);text-align:left}",
    ".wterm-g2{letter-spacing:var(--wterm-ls-2);text-indent:calc(var(--wterm-ls-2)/2);text-align:left}",
    ".wterm-b{font-weight:bold}.wterm-i{font-style:italic}.wterm-u{text-decoration-line:underline}",
    ".wterm-s{text-decoration-line:line-through}",
    ".wterm-u.wterm-s{text-decoration-line:underline line-through}",
    ".wterm-h{color:transparent!important}",
    "@keyframes wterm-blink{50%{opacity:0}}.wterm-k{animation:wterm-blink 1s step-end infinite}",
    ".wterm-a{color:inherit;text-decoration:none;display:contents}",
    ".wterm-a>span{text-decoration-line:underline;text-decoration-style:dotted}",
    ".wterm-a:hover>span{text-decoration-style:solid}",
    ".wterm-cursor.wterm-bar,.wterm-cursor.wterm-ul{background:transparent!important;",
    "color:transparent!important}",
    ".wterm-cursor.wterm-bar{box-shadow:inset 2px 0 0 var(--wterm-cc)}",
    ".wterm-cursor.wterm-ul{box-shadow:inset 0 -2px 0 var(--wterm-cc)}",
    ".wterm-cursor{position:absolute;pointer-events:none;white-space:pre;text-align:center;",
    "left:calc(var(--wterm-cell-w)*var(--cx,0));top:calc(var(--wterm-cell-h)*var(--cy,0));",
    "width:calc(var(--wterm-cell-w)*var(--cn,1));height:var(--wterm-cell-h);",
    "line-height:var(--wterm-cell-h)}",
    ".wterm:not(.wterm-focus) .wterm-cursor{background:transparent!important;",
    "color:transparent!important;outline:1px solid var(--wterm-cursor,var(--wterm-fg));outline-offset:-1px}",
    // `--wterm-cursor` and `--wterm-selection` have no default: without them the cursor block
    // takes the colour of the text under it and the selection the browser's own (`Highlight`).
    ".wterm-row ::selection{background-color:var(--wterm-selection,Highlight)}",
    // Rows of a command an agent submitted (render.rs `mark_row`): a bar at the left edge.
    ".wterm-row[data-by]{box-shadow:inset 3px 0 var(--wterm-agent-mark,#c586c0)}",
    ".wterm-input{position:absolute;left:calc(var(--wterm-cell-w)*var(--cx,0));",
    "top:calc(var(--wterm-cell-h)*var(--cy,0));width:1px;height:var(--wterm-cell-h);",
    "margin:0;padding:0;border:0;outline:none;resize:none;overflow:hidden;opacity:0;",
    "color:transparent;background:transparent;caret-color:transparent;white-space:pre;",
    "font:inherit;z-index:-1}",
    // The IME composition at the cursor, in the terminal's colors, underlined (ime.rs).
    ".wterm-ime{position:absolute;left:calc(var(--wterm-cell-w)*var(--cx,0));",
    "top:calc(var(--wterm-cell-h)*var(--cy,0));min-width:var(--wterm-cell-w);",
    "height:var(--wterm-cell-h);line-height:var(--wterm-cell-h);white-space:pre;z-index:1;",
    "background:var(--wterm-bg);color:var(--wterm-fg);text-decoration:underline;pointer-events:none}",
    // A secret prompt's notice (webmcp/secret_prompt.rs): across the top, over the rows.
    ".wterm-secret{position:absolute;top:0;left:0;right:0;z-index:3;padding:2px 8px;",
    "font:12px/1.4 system-ui,sans-serif;background:#7a5c00;color:#fff;pointer-events:none}",
    ".wterm-secret[hidden]{display:none}",
    // Read by screen readers, not shown (a11y.rs).
    ".wterm-live{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);",
    "white-space:pre-wrap}",
    // Touch selection handles (touch.rs): a drop under each end of the selection.
    ".wterm-handle{position:absolute;width:20px;height:20px;margin-left:-10px;z-index:2;",
    "border-radius:0 50% 50% 50%;background:var(--wterm-fg);opacity:.8;touch-action:none}",
    ".wterm-handle-start{border-radius:50% 0 50% 50%;margin-left:-20px}",
    ".wterm-handle-end{margin-left:0}",
    // Search highlights and the link under the pointer (find.rs).
    ".wterm-marks{position:absolute;inset:0;pointer-events:none}",
    ".wterm-m{position:absolute;left:calc(var(--wterm-cell-w)*var(--x));",
    "top:calc(var(--wterm-cell-h)*var(--y));width:calc(var(--wterm-cell-w)*var(--n));",
    "height:var(--wterm-cell-h);background:var(--wterm-match,rgba(255,210,0,.3))}",
    ".wterm-ma{background:var(--wterm-match-active,rgba(255,140,0,.6));",
    "outline:1px solid var(--wterm-match-active-border,#ff8c00)}",
    ".wterm-m.wterm-lk{background:none;box-shadow:inset 0 -1px 0 var(--wterm-fg)}",
    ".wterm-measure{position:absolute;top:0;left:0;visibility:hidden;white-space:pre;",
    "line-height:normal}",
);

/// An event listener registered on `target` that is removed when this value is dropped
/// (gloo-events' `EventListener`, without the dependency). The closure lives exactly as long
/// as the registration.
#[must_use = "the listener is removed when this value is dropped"]
pub(crate) struct Listener {
    target: EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(Event)>,
}

impl Listener {
    /// Adds `f` as a `kind` listener on `target`. `passive: false` lets `f` call
    /// `preventDefault` on events (wheel, touch) that browsers make passive by default.
    pub(crate) fn new(
        target: &EventTarget,
        kind: &'static str,
        passive: bool,
        f: impl FnMut(Event) + 'static,
    ) -> Result<Listener, JsValue> {
        let closure = Closure::<dyn FnMut(Event)>::new(f);
        let opts = AddEventListenerOptions::new();
        opts.set_passive(passive);
        target.add_event_listener_with_callback_and_add_event_listener_options(
            kind,
            closure.as_ref().unchecked_ref(),
            &opts,
        )?;
        Ok(Listener {
            target: target.clone(),
            kind,
            closure,
        })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
    }
}

/// Adds the stylesheet to `doc` unless a terminal already did (looked up by [`STYLE_ID`]).
pub(crate) fn inject_style(doc: &Document) -> Result<(), JsValue> {
    if doc.get_element_by_id(STYLE_ID).is_some() {
        return Ok(());
    }
    let style = doc.create_element("style")?;
    style.set_id(STYLE_ID);
    style.set_text_content(Some(STYLE_CSS));
    match doc.head() {
        Some(head) => head.append_child(&style)?,
        None => doc
            .document_element()
            .ok_or("no document element")?
            .append_child(&style)?,
    };
    Ok(())
}

/// A new `<tag class="class">` owned by `doc` (not yet attached).
pub(crate) fn element(doc: &Document, tag: &str, class: &str) -> Result<HtmlElement, JsValue> {
    let el: Element = doc.create_element(tag)?;
    el.set_class_name(class);
    el.dyn_into::<HtmlElement>().map_err(JsValue::from)
}

/// Sets a CSS custom property (or any property) in `el`'s inline style.
pub(crate) fn set_var(el: &HtmlElement, name: &str, value: &str) {
    let _ = el.style().set_property(name, value);
}

/// A `setTimeout` that is cleared when this value is dropped; the callback lives exactly as
/// long as the timer.
#[must_use = "the timer is cleared when this value is dropped"]
pub(crate) struct Timeout {
    id: i32,
    _closure: Closure<dyn FnMut()>,
}

impl Timeout {
    /// Calls `f` once after `ms` milliseconds (rounded up). `None` without a window.
    pub(crate) fn new(ms: f64, f: impl FnMut() + 'static) -> Option<Timeout> {
        let window = web_sys::window()?;
        let closure = Closure::<dyn FnMut()>::new(f);
        let id = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(
                closure.as_ref().unchecked_ref(),
                ms.ceil().clamp(0.0, f64::from(i32::MAX)) as i32,
            )
            .ok()?;
        Some(Timeout {
            id,
            _closure: closure,
        })
    }
}

impl Drop for Timeout {
    fn drop(&mut self) {
        if let Some(window) = web_sys::window() {
            window.clear_timeout_with_handle(self.id);
        }
    }
}

/// `performance.now()`, in milliseconds (0 without a window).
pub(crate) fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// `document.hidden`: the page gets no animation frames.
pub(crate) fn page_hidden() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden())
}

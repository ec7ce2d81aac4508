//! Search and plain-text links in the page: the options and state behind `search`,
//! `findNext`, `findPrevious`, `clearSearch`, the highlights of the matches in view, the
//! underline of the link under the pointer, Ctrl/Cmd+click, and Ctrl+Shift+F opening the
//! find bar (`findbar.js`, imported only then). The matching itself is `wterm-core`'s
//! ([`Terminal::search`], [`Terminal::matches_in_rows`], [`Terminal::link_at`]); a regular
//! expression is the page's own `RegExp`, run by core over each logical line through
//! [`JsRegex`], so no regex engine ships in the wasm.

use std::ops::Range;

use js_sys::{Function, Object, RegExp};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, HtmlElement, KeyboardEvent, MouseEvent};
use wterm_core::{
    Matcher, SearchMatch, SearchOptions, SearchPos, TextLink, TextMatcher, UrlMatcher,
};

use crate::dom::Listener;
use crate::js::{absent, describe, is_plain_object, opt_bool, opt_function, prop, set, Outbox};
use crate::limits::MAX_SEARCH_QUERY_CHARS;
use crate::term::{Inner, Shared};

#[wasm_bindgen(inline_js = "export function open_find_bar(term, root) {
  return import('../../findbar.js').then((m) => m.openFindBar(term, root)).catch((e) => {
    console.warn('wterm: the find bar could not be loaded:', e);
  });
}")]
extern "C" {
    /// Imports `findbar.js` (a chunk of its own for bundlers) and opens the bar in `root`.
    fn open_find_bar(term: JsValue, root: &HtmlElement) -> js_sys::Promise;
}

#[wasm_bindgen]
extern "C" {
    /// `RegExp(pattern, flags)`; throws a `SyntaxError` on a bad pattern.
    #[wasm_bindgen(catch, js_name = RegExp)]
    fn regexp_new(pattern: &str, flags: &str) -> Result<RegExp, JsValue>;
}

/// A page `RegExp` (with the `g` flag) as a [`Matcher`]: JS reports UTF-16 offsets, which are
/// turned into byte offsets of the line here. A throw of `exec` ends the search (no more
/// matches) and is kept in `error` for the caller to report.
pub(crate) struct JsRegex(RegExp, Option<String>);

/// The byte offset of UTF-16 offset `u16_at` in `s`, rounded up to a character boundary.
fn byte_of_utf16(s: &str, u16_at: usize) -> usize {
    let mut n = 0;
    for (b, c) in s.char_indices() {
        if n >= u16_at {
            return b;
        }
        n += c.len_utf16();
    }
    s.len()
}

impl Matcher for JsRegex {
    fn find_at(&mut self, line: &str, from: usize) -> Option<Range<usize>> {
        let from16 = line.get(..from)?.encode_utf16().count();
        self.0.set_last_index(from16 as u32);
        if self.1.is_some() {
            return None;
        }
        // `exec` called so that a throw is caught: V8 compiles a pattern at its first use and
        // may throw then ("Regular expression too large"); uncaught, the throw would unwind
        // through the terminal's borrow and leave it busy for good.
        let exec = js_sys::Reflect::get(&self.0, &"exec".into())
            .ok()?
            .unchecked_into::<Function>();
        let m = match exec.call1(&self.0, &line.into()) {
            Ok(m) if m.is_null() => return None,
            Ok(m) => m.unchecked_into::<js_sys::Array>(),
            Err(e) => {
                self.1 = Some(js_message(&e));
                return None;
            }
        };
        let at = prop(&m, "index", "index").ok()?.as_f64()? as usize;
        let len = m.get(0).unchecked_into::<js_sys::JsString>().length() as usize;
        Some(byte_of_utf16(line, at)..byte_of_utf16(line, at + len))
    }
}

/// A thrown JS value's `message`, or the value itself as text.
fn js_message(e: &JsValue) -> String {
    js_sys::Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "an error".into())
}

/// What a search looks for.
pub(crate) enum Needle {
    Text(TextMatcher),
    Regex(JsRegex),
    Url(UrlMatcher),
}

impl Matcher for Needle {
    fn find_at(&mut self, line: &str, from: usize) -> Option<Range<usize>> {
        match self {
            Needle::Text(m) => m.find_at(line, from),
            Needle::Regex(m) => m.find_at(line, from),
            Needle::Url(m) => m.find_at(line, from),
        }
    }
}

/// The current search: what `search` was last given.
struct Query {
    text: String,
    regex: bool,
    case_sensitive: bool,
    whole_word: bool,
    needle: Needle,
}

/// Options of `search`, `findNext`, `findPrevious` (`WTermSearchOptions`).
#[derive(Clone, Copy, Default, PartialEq)]
struct Opts {
    case_sensitive: bool,
    regex: bool,
    whole_word: bool,
    backwards: bool,
    incremental: bool,
}

const OPTS_SHAPE: &str =
    "{caseSensitive?: boolean, regex?: boolean, wholeWord?: boolean, backwards?: boolean, \
     incremental?: boolean}";

fn parse_opts(v: &JsValue) -> Result<Opts, JsError> {
    if absent(v) {
        return Ok(Opts::default());
    }
    if !is_plain_object(v) {
        return Err(JsError::new(&format!(
            "search options must be an object {OPTS_SHAPE}; got {}",
            describe(v)
        )));
    }
    crate::js::refuse_unknown_keys(
        v,
        "search options",
        &[
            "caseSensitive",
            "regex",
            "wholeWord",
            "backwards",
            "incremental",
        ],
    )?;
    let b =
        |k: &str| -> Result<bool, JsError> { Ok(opt_bool(&prop(v, k, k)?, k)?.unwrap_or(false)) };
    Ok(Opts {
        case_sensitive: b("caseSensitive")?,
        regex: b("regex")?,
        whole_word: b("wholeWord")?,
        backwards: b("backwards")?,
        incremental: b("incremental")?,
    })
}

/// The terminal's search and link state (a field of [`Inner`]).
#[derive(Default)]
pub(crate) struct Find {
    query: Option<Query>,
    /// The match shown as active; `None` before the first hit.
    active: Option<SearchMatch>,
    /// The last result, as handed to the page.
    count: usize,
    index: Option<usize>,
    truncated: bool,
    /// Plain-text link detection is on (option `links`, default true).
    links_off: bool,
    /// A custom link pattern (`links: {pattern}`); `None`: `http(s)://` URLs.
    link_pattern: Option<RegExp>,
    /// `onLink(uri, event)`: replaces opening the link in a new tab.
    pub(crate) on_link: Option<Function>,
    /// `findBar: false`: Ctrl+Shift+F is the program's.
    find_bar_off: bool,
    /// `onSearch(result)` and `"search"` listeners.
    pub(crate) on_search: crate::js::Listeners,
    /// The link under the pointer.
    hover: Option<TextLink>,
    /// The highlight layer, made at the first frame that draws into it, and its last content.
    marks: Option<HtmlElement>,
    marks_html: String,
    /// The listeners of this module (pointer over links, Ctrl/Cmd+click).
    listeners: Vec<Listener>,
}

/// Reads this module's constructor options: `links` (`boolean | {pattern?: RegExp}`),
/// `onLink`, `findBar` (boolean), `onSearch`.
pub(crate) fn parse_options(v: &JsValue) -> Result<Find, JsError> {
    let mut f = Find::default();
    if absent(v) || !is_plain_object(v) {
        return Ok(f);
    }
    let links = prop(v, "links", "links")?;
    if let Some(on) = links.as_bool() {
        f.links_off = !on;
    } else if is_plain_object(&links) {
        let p = prop(&links, "pattern", "links.pattern")?;
        if !absent(&p) {
            let re = p.dyn_into::<RegExp>().map_err(|p| {
                JsError::new(&format!(
                    "links.pattern must be a RegExp; got {}",
                    describe(&p)
                ))
            })?;
            // A copy with the `g` flag, so `lastIndex` says where to look from.
            let mut flags = String::from(re.flags());
            if !flags.contains('g') {
                flags.push('g');
            }
            let source = String::from(re.source());
            f.link_pattern =
                Some(regexp_new(&source, &flags).map_err(|_| {
                    JsError::new("links.pattern could not be copied with the g flag")
                })?);
        }
    } else if !absent(&links) {
        return Err(JsError::new(&format!(
            "links must be a boolean or an object {{pattern?: RegExp}}; got {}",
            describe(&links)
        )));
    }
    f.on_link = opt_function(&prop(v, "onLink", "onLink")?, "onLink")?;
    f.find_bar_off = !opt_bool(&prop(v, "findBar", "findBar")?, "findBar")?.unwrap_or(true);
    f.on_search = crate::js::Listeners::from_option(opt_function(
        &prop(v, "onSearch", "onSearch")?,
        "onSearch",
    )?);
    Ok(f)
}

/// The lifetime row shown at the top of the view (by the next frame, when output came since
/// the last).
fn view_top(inner: &Inner) -> u64 {
    let history = inner.term.scrollback_rows();
    let offset = inner.dom.as_ref().map_or(inner.view_offset, |d| {
        d.offset_now(history, inner.view_offset)
    });
    inner.term.screen_top_row().saturating_sub(offset as u64)
}

/// The result object: `{query, count, index, truncated}` (`index` -1 without a match).
fn result_object(f: &Find) -> JsValue {
    let o = Object::new();
    set(
        &o,
        "query",
        f.query.as_ref().map_or("", |q| q.text.as_str()),
    );
    set(&o, "count", f.count as u32);
    set(&o, "index", f.index.map_or(-1.0, |i| i as f64));
    set(&o, "truncated", f.truncated);
    o.into()
}

/// Moves the view so `m` is shown, centred when it was out of view.
fn reveal(inner: &mut Inner, m: SearchMatch) {
    let rows = u64::from(inner.term.size().rows);
    let top = view_top(inner);
    if m.start.row >= top && m.end.row < top + rows {
        return;
    }
    let screen_top = inner.term.screen_top_row();
    let want_top = m.start.row.saturating_sub(rows / 2);
    let offset = screen_top.saturating_sub(want_top) as usize;
    let history = inner.term.scrollback_rows();
    inner.view_offset = offset.min(history);
    if let Some(dom) = inner.dom.as_mut() {
        // Counted against the history now, not the last frame's.
        dom.offset_history = history;
        dom.sync_scroll = true;
    }
}

/// `search(query, opts)` and friends: `query` `None` repeats the current search in the
/// direction of `opts.backwards` (findNext/findPrevious without arguments). Returns the result
/// object, also sent to the `"search"` listeners.
pub(crate) fn search(
    inner: &mut Inner,
    query: Option<&JsValue>,
    opts: &JsValue,
    backwards: Option<bool>,
) -> Result<(JsValue, Outbox), JsError> {
    let mut opts = parse_opts(opts)?;
    if let Some(b) = backwards {
        opts.backwards = b;
    }
    let query = match query {
        Some(q) if !absent(q) => Some(q.as_string().ok_or_else(|| {
            JsError::new(&format!("query must be a string; got {}", describe(q)))
        })?),
        _ => None,
    };
    if let Some(text) = &query {
        let n = text.chars().count();
        if n > MAX_SEARCH_QUERY_CHARS {
            return Err(JsError::new(&format!(
                "query is {n} characters long; at most {MAX_SEARCH_QUERY_CHARS} are accepted"
            )));
        }
    }
    let f = &mut inner.find;
    if let Some(text) = query {
        let same = f.query.as_ref().is_some_and(|q| {
            q.text == text
                && q.regex == opts.regex
                && q.case_sensitive == opts.case_sensitive
                && q.whole_word == opts.whole_word
        });
        if !same {
            let needle = if opts.regex && !text.is_empty() {
                let flags = if opts.case_sensitive { "g" } else { "gi" };
                Needle::Regex(JsRegex(
                    regexp_new(&text, flags).map_err(|e| {
                        let msg = js_message(&e);
                        JsError::new(&format!(
                        "query is not a valid regular expression ({msg}); with regex: true it is \
                         a JavaScript RegExp source such as \"err(or)?\\\\d+\""
                    ))
                    })?,
                    None,
                ))
            } else if opts.case_sensitive || text.is_empty() {
                Needle::Text(TextMatcher::new(&text))
            } else {
                // The browser's case-insensitive RegExp over the escaped text: the core's own
                // folding would add its Unicode case tables to the wasm.
                let mut source = String::with_capacity(text.len() * 2);
                for c in text.chars() {
                    if "\\^$.*+?()[]{}|/".contains(c) {
                        source.push('\\');
                    }
                    source.push(c);
                }
                Needle::Regex(JsRegex(
                    regexp_new(&source, "gi")
                        .map_err(|_| JsError::new("query could not be searched"))?,
                    None,
                ))
            };
            f.query = Some(Query {
                text,
                regex: opts.regex,
                case_sensitive: opts.case_sensitive,
                whole_word: opts.whole_word,
                needle,
            });
        }
    }
    let top = view_top(inner);
    let rows = u64::from(inner.term.size().rows);
    let f = &mut inner.find;
    let Some(q) = f.query.as_mut() else {
        return Err(JsError::new(
            "no search to repeat: call search(query, options) or findNext(query, options) first",
        ));
    };
    // From the active match (staying on it when `incremental`), else from the view's edge.
    let from = match (f.active, opts.incremental, opts.backwards) {
        (Some(a), false, _) => Some(a.start),
        (Some(a), true, false) => before(a.start),
        (Some(a), true, true) => Some(SearchPos {
            row: a.start.row,
            col: a.start.col.saturating_add(1),
        }),
        (None, _, false) => top
            .checked_sub(1)
            .map(|row| SearchPos { row, col: u16::MAX }),
        (None, _, true) => Some(SearchPos {
            row: top + rows,
            col: 0,
        }),
    };
    let r = inner.term.search(
        &mut q.needle,
        from,
        SearchOptions {
            whole_word: q.whole_word,
            backwards: opts.backwards,
        },
    );
    if let Needle::Regex(JsRegex(_, Some(msg))) = &q.needle {
        let msg = format!("query could not be searched: {msg}");
        f.query = None;
        f.active = None;
        f.count = 0;
        inner.schedule_frame();
        return Err(JsError::new(&msg));
    }
    f.active = r.active;
    f.count = r.count;
    f.index = r.index;
    f.truncated = r.truncated;
    let result = result_object(f);
    if let Some(m) = r.active {
        reveal(inner, m);
    }
    inner.schedule_frame();
    let mut out = Outbox::default();
    inner.find.on_search.queue(&mut out, result.clone());
    Ok((result, out))
}

/// `clearSearch()`: forgets the search and removes its highlights.
pub(crate) fn clear(inner: &mut Inner) -> Result<(), JsError> {
    let f = &mut inner.find;
    f.query = None;
    f.active = None;
    f.count = 0;
    f.index = None;
    f.truncated = false;
    inner.schedule_frame();
    Ok(())
}

/// The `"search"` listeners (`addListener("search")`).
pub(crate) fn search_listeners(find: &mut Find) -> Result<&mut crate::js::Listeners, JsError> {
    Ok(&mut find.on_search)
}

/// The position just before `p`, `None` at the very start.
fn before(p: SearchPos) -> Option<SearchPos> {
    match (p.row, p.col) {
        (0, 0) => None,
        (r, 0) => Some(SearchPos {
            row: r - 1,
            col: u16::MAX,
        }),
        (r, c) => Some(SearchPos { row: r, col: c - 1 }),
    }
}

/// Appends one highlight box per row a span covers within the view.
fn push_marks(out: &mut String, m: &SearchMatch, top: u64, size: wterm_core::Size, class: &str) {
    use std::fmt::Write as _;
    let end = m.end.row.min(top + u64::from(size.rows) - 1);
    for row in m.start.row.max(top)..=end {
        if let Some(cols) = m.cols_on_row(row, size.cols) {
            let _ = write!(
                out,
                "<div class=\"{class}\" style=\"--x:{};--y:{};--n:{}\"></div>",
                cols.start,
                row - top,
                cols.end - cols.start
            );
        }
    }
}

/// Draws the highlights of the matches in view (the active one apart) and the underline of
/// the link under the pointer; called after each rendered frame. Rewrites the layer only when
/// it changed.
pub(crate) fn draw(inner: &mut Inner) {
    if inner.find.query.is_none() && inner.find.hover.is_none() && inner.find.marks.is_none() {
        return;
    }
    let top = view_top(inner);
    let size = inner.term.size();
    let mut html = String::new();
    let Inner { term, find, .. } = inner;
    if let Some(q) = find.query.as_mut() {
        let view = top..top + u64::from(size.rows);
        for m in term.matches_in_rows(&mut q.needle, view, q.whole_word) {
            let class = if Some(m) == find.active {
                "wterm-m wterm-ma"
            } else {
                "wterm-m"
            };
            push_marks(&mut html, &m, top, size, class);
        }
    }
    if let Some(link) = &find.hover {
        push_marks(&mut html, &link.span, top, size, "wterm-m wterm-lk");
    }
    if html == find.marks_html {
        return;
    }
    if find.marks.is_none() {
        find.marks = make_layer(inner.dom.as_ref());
    }
    if let Some(el) = &inner.find.marks {
        el.set_inner_html(&html);
    }
    inner.find.marks_html = html;
}

/// The highlight layer, under the cursor in the screen element.
fn make_layer(dom: Option<&crate::view::Dom>) -> Option<HtmlElement> {
    let screen = dom?.root.query_selector(".wterm-screen").ok()??;
    let doc = screen.owner_document()?;
    let el: HtmlElement = doc.create_element("div").ok()?.unchecked_into();
    el.set_class_name("wterm-marks");
    el.set_attribute("aria-hidden", "true").ok()?;
    let cursor = screen.query_selector(".wterm-cursor").ok()?;
    screen
        .insert_before(&el, cursor.as_ref().map(|c| c.unchecked_ref()))
        .ok()?;
    Some(el)
}

/// The plain-text link at client point `(x, y)`, if detection is on.
fn link_at_point(inner: &Inner, x: f64, y: f64) -> Option<TextLink> {
    let f = &inner.find;
    if f.links_off {
        return None;
    }
    let (col, row) = crate::mouse::cell_at(inner, x, y, false)?;
    let row = view_top(inner) + u64::from(row);
    let mut needle = match &f.link_pattern {
        Some(re) => Needle::Regex(JsRegex(re.clone(), None)),
        None => Needle::Url(UrlMatcher),
    };
    inner.term.link_at(&mut needle, row, col)
}

/// Whether `ev` is Ctrl+Shift+F with the find bar on; if so the bar is opened (imported the
/// first time) and the key goes no further.
pub(crate) fn find_key(shared: &Shared, ev: &KeyboardEvent) -> bool {
    let chord = ev.ctrl_key() && ev.shift_key() && !ev.alt_key() && !ev.meta_key();
    if !chord || !(ev.code() == "KeyF" || ev.key().eq_ignore_ascii_case("f")) {
        return false;
    }
    let root = match shared.try_borrow() {
        Ok(inner) if !inner.find.find_bar_off => inner.dom.as_ref().map(|d| d.root.clone()),
        _ => None,
    };
    let Some(root) = root else { return false };
    ev.prevent_default();
    let _ = open_find_bar(crate::WTerm::from_shared(shared.clone()).into(), &root);
    true
}

/// Adds the pointer listeners: hover underlines a link, Ctrl/Cmd+click opens it.
pub(crate) fn attach(
    root: &HtmlElement,
    weak: &std::rc::Weak<std::cell::RefCell<Inner>>,
) -> Result<Vec<Listener>, JsValue> {
    let mut listeners = Vec::new();
    for kind in ["mousemove", "mouseleave"] {
        let w = weak.clone();
        listeners.push(Listener::new(root, kind, true, move |e: Event| {
            let Some(shared) = w.upgrade() else { return };
            let Ok(mut inner) = shared.try_borrow_mut() else {
                return;
            };
            let ev: &MouseEvent = e.unchecked_ref();
            let link = if kind == "mousemove" && ev.buttons() == 0 {
                link_at_point(&inner, f64::from(ev.client_x()), f64::from(ev.client_y()))
            } else {
                None
            };
            if link != inner.find.hover {
                if let Some(dom) = inner.dom.as_ref() {
                    let _ = dom
                        .root
                        .style()
                        .set_property("cursor", if link.is_some() { "pointer" } else { "" });
                }
                inner.find.hover = link;
                inner.schedule_frame();
            }
        })?);
    }
    let w = weak.clone();
    listeners.push(Listener::new(root, "click", false, move |e: Event| {
        let ev: &MouseEvent = e.unchecked_ref();
        if !(ev.ctrl_key() || ev.meta_key()) || ev.button() != 0 {
            return;
        }
        let Some(shared) = w.upgrade() else { return };
        let (link, hook) = match shared.try_borrow() {
            Ok(inner) => (
                link_at_point(&inner, f64::from(ev.client_x()), f64::from(ev.client_y())),
                inner.find.on_link.clone(),
            ),
            Err(_) => return,
        };
        let Some(link) = link else { return };
        e.prevent_default();
        match hook {
            Some(f) => {
                if let Err(err) = f.call2(&JsValue::NULL, &link.uri.into(), &e) {
                    web_sys::console::error_2(&"wterm: onLink threw:".into(), &err);
                }
            }
            None => {
                if let Some(win) = web_sys::window() {
                    // "noopener": the new tab gets no `window.opener` (and open returns null).
                    let _ =
                        win.open_with_url_and_target_and_features(&link.uri, "_blank", "noopener");
                }
            }
        }
    })?);
    Ok(listeners)
}

/// Stores the pointer listeners (at `init()`); dropping the [`Find`] removes them.
pub(crate) fn set_listeners(inner: &mut Inner, listeners: Vec<Listener>) {
    inner.find.listeners = listeners;
}

#[cfg(test)]
mod tests {
    use super::byte_of_utf16;

    #[test]
    fn utf16_offsets_become_byte_offsets() {
        // "a" 1 unit, "中" 1 unit (3 bytes), "👍" 2 units (4 bytes), "b".
        let s = "a中👍b";
        assert_eq!(byte_of_utf16(s, 0), 0);
        assert_eq!(byte_of_utf16(s, 1), 1);
        assert_eq!(byte_of_utf16(s, 2), 4);
        assert_eq!(byte_of_utf16(s, 4), 8);
        // Inside the surrogate pair: rounded up to the next character.
        assert_eq!(byte_of_utf16(s, 3), 8);
        assert_eq!(byte_of_utf16(s, 5), 9);
        assert_eq!(byte_of_utf16(s, 99), 9);
    }
}

//! Screen readers: a polite live region (`div.wterm-live`, `role="log"`) that announces new
//! output, bounded so a flood cannot freeze assistive tech. The rows themselves are a
//! `role="document"` that browse mode reads line by line (view.rs), and the input is labelled.
//!
//! What is announced: the text between the cursor's position at the last announcement and its
//! row now, once the cursor has moved to a new line (so the echo of what is typed on the
//! current line, already spoken by the screen reader, and redraws of one line such as progress
//! bars are not announced until the line is done). An announcement waits until output has been
//! quiet for [`ANNOUNCE_SETTLE_MS`], or at most [`ANNOUNCE_MAX_DELAY_MS`]; more than
//! [`MAX_ANNOUNCE_ROWS`] rows or [`MAX_ANNOUNCE_CHARS`] characters are announced as "N lines of
//! output". Output on the alternate screen (full-screen programs: vim, less, top) is not
//! announced: it redraws rather than appends, and is read through the rows.

use wasm_bindgen::prelude::*;
use web_sys::HtmlElement;
use wterm_core::{join_rows, Terminal, TextRow};

use crate::dom::{element, now_ms, Timeout};
use crate::limits::{
    ANNOUNCE_MAX_DELAY_MS, ANNOUNCE_SETTLE_MS, MAX_ANNOUNCE_CHARS, MAX_ANNOUNCE_ROWS,
};
use crate::term::Inner;

/// The live region and what it has announced.
pub(crate) struct LiveRegion {
    el: HtmlElement,
    /// The cursor's lifetime row (`screen_top_row + row`) at the last announcement, and how
    /// many characters of that row had been announced.
    mark: Option<(u64, usize)>,
    /// The cursor's lifetime row at the last check, and when it last changed (ms).
    seen: (u64, f64),
    /// When output waiting to be announced was first seen (ms).
    pending_since: Option<f64>,
    /// Calls [`check`] again when the pending output is due.
    timer: Option<Timeout>,
}

/// The cursor's lifetime row and the characters of its row, given the screen's rows.
fn cursor_line(term: &Terminal, screen: &[TextRow]) -> (u64, usize) {
    let row = term.cursor().row;
    let len = screen
        .get(usize::from(row))
        .map_or(0, |r| r.text.chars().count());
    (term.screen_top_row() + u64::from(row), len)
}

impl LiveRegion {
    /// Adds the region to `root`; what `term` shows already is not announced.
    pub(crate) fn new(root: &HtmlElement, term: &Terminal) -> Result<LiveRegion, JsValue> {
        let doc = root.owner_document().ok_or("element has no document")?;
        let el = element(&doc, "div", "wterm-live")?;
        el.set_attribute("role", "log")?;
        el.set_attribute("aria-live", "polite")?;
        el.set_attribute("aria-label", "Terminal output")?;
        root.append_child(&el)?;
        let mark = cursor_line(term, &term.screen_rows());
        Ok(LiveRegion {
            el,
            mark: Some(mark),
            seen: (mark.0, now_ms()),
            pending_since: None,
            timer: None,
        })
    }
}

/// Announces new output that is due, or sets a timer for when it will be. Called after each
/// drawn frame and by its own timer.
pub(crate) fn check(inner: &mut Inner) {
    let weak = inner.mcp.weak.clone();
    let Some(live) = inner.dom.as_mut().and_then(|d| d.live.as_mut()) else {
        return;
    };
    let term = &mut inner.term;
    if term.modes().alternate_screen {
        // The main screen's cursor comes back with it (mode 1049): the mark stays valid.
        live.pending_since = None;
        return;
    }
    let now = now_ms();
    let screen = term.screen_rows();
    let (row, len) = cursor_line(term, &screen);
    let Some((from, done)) = live.mark else {
        live.mark = Some((row, len));
        return;
    };
    if row <= from {
        // Same line (typing, a progress bar), or the screen was cleared or reset.
        if row < from {
            live.mark = Some((row, len));
        }
        live.pending_since = None;
        return;
    }
    if row != live.seen.0 {
        live.seen = (row, now);
    }
    let since = *live.pending_since.get_or_insert(now);
    let due = (live.seen.1 + ANNOUNCE_SETTLE_MS).min(since + ANNOUNCE_MAX_DELAY_MS);
    if now < due {
        live.timer = Timeout::new(due - now, move || {
            if let Some(shared) = weak.upgrade() {
                if let Ok(mut inner) = shared.try_borrow_mut() {
                    check(&mut inner);
                }
            }
        });
        return;
    }
    let text = announcement(term, screen, from, done, row);
    live.mark = Some((row, len));
    live.pending_since = None;
    live.timer = None;
    // One child per announcement, replacing the last: the addition is what is read.
    if let Some(doc) = live.el.owner_document() {
        if let Ok(item) = doc.create_element("div") {
            item.set_text_content(Some(&text));
            live.el.set_text_content(None);
            let _ = live.el.append_child(&item);
        }
    }
}

/// The text from character `done` of lifetime row `from` through row `to` (`screen`: the
/// screen's rows), or a summary when it is over the limits.
fn announcement(
    term: &mut Terminal,
    screen: Vec<TextRow>,
    from: u64,
    done: usize,
    to: u64,
) -> String {
    // usize: its Display is in the wasm already (u64's would add 0.3 KB).
    let lines = usize::try_from(to - from).unwrap_or(usize::MAX);
    let summary = || format!("{lines} lines of output");
    if to - from + 1 > MAX_ANNOUNCE_ROWS {
        return summary();
    }
    let top = term.screen_top_row();
    let mut rows: Vec<TextRow> = Vec::new();
    if from < top {
        let back = (top - from) as usize;
        if back > term.scrollback_rows() {
            return summary(); // scrolled past the history's bound
        }
        rows = term.history_rows(back);
    }
    let first = from.saturating_sub(top) as usize;
    let last = (to - top) as usize;
    rows.extend(screen.into_iter().take(last + 1).skip(first));
    if let Some(r) = rows.first_mut() {
        // The rest of the line announced last (rows are stored without trailing blanks, so the
        // blank after a prompt comes back as a leading one).
        let rest: String = r.text.chars().skip(done).collect();
        r.text = rest.trim_start().to_owned();
    }
    let text = join_rows(&rows);
    let text = text.trim_matches('\n');
    if text.chars().count() > MAX_ANNOUNCE_CHARS {
        return summary();
    }
    text.to_owned()
}

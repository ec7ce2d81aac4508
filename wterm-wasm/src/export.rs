//! `serialize({format, scrollback})`: the terminal as text, as ANSI bytes that redraw it, or as
//! HTML. Text and ANSI come from `wterm-core` (`Terminal::serialize_text`,
//! `Terminal::serialize_ansi`); the HTML is the renderer's styled runs with its colors
//! (`render::colors`), as a standalone `<pre>` carrying the theme's colors.

use std::fmt::Write as _;

use wasm_bindgen::prelude::*;
use wterm_core::limits::MAX_SCROLLBACK_ROWS;
use wterm_core::{StyledRun, Terminal};

use crate::js::{absent, describe, is_plain_object, prop};
use crate::render::{colors, push_escaped};
use crate::term::Inner;

/// The theme's CSS variables copied onto the exported `<pre>`, so its colors hold outside the
/// page (foreground, background and the 16 ANSI colors).
const THEME_VARS: [&str; 18] = [
    "--wterm-fg",
    "--wterm-bg",
    "--wterm-c0",
    "--wterm-c1",
    "--wterm-c2",
    "--wterm-c3",
    "--wterm-c4",
    "--wterm-c5",
    "--wterm-c6",
    "--wterm-c7",
    "--wterm-c8",
    "--wterm-c9",
    "--wterm-c10",
    "--wterm-c11",
    "--wterm-c12",
    "--wterm-c13",
    "--wterm-c14",
    "--wterm-c15",
];

const SHAPE: &str = "{format?: \"text\" | \"ansi\" | \"html\", scrollback?: boolean | number}";

/// `serialize(options)`. Errors name the bad option and what is accepted.
pub(crate) fn serialize(inner: &mut Inner, options: &JsValue) -> Result<String, JsError> {
    let (mut format, mut scrollback) = ("text".to_string(), usize::MAX);
    if !absent(options) {
        if !is_plain_object(options) {
            return Err(JsError::new(&format!(
                "serialize options must be an object {SHAPE}; got {}",
                describe(options)
            )));
        }
        crate::js::refuse_unknown_keys(options, "serialize options", &["format", "scrollback"])?;
        let f = prop(options, "format", "format")?;
        if !absent(&f) {
            format = match f.as_string().as_deref() {
                Some(s @ ("text" | "ansi" | "html")) => s.to_string(),
                _ => {
                    return Err(JsError::new(&format!(
                        "format must be \"text\", \"ansi\" or \"html\"; got {}",
                        describe(&f)
                    )))
                }
            };
        }
        let s = prop(options, "scrollback", "scrollback")?;
        if let Some(all) = s.as_bool() {
            scrollback = if all { usize::MAX } else { 0 };
        } else if !absent(&s) {
            scrollback = crate::js::opt_int(&s, "scrollback", 0, MAX_SCROLLBACK_ROWS as u32)
                .map_err(|_| {
                    JsError::new(&format!(
                        "scrollback must be true (all history), false (none) or an integer \
                         0..{MAX_SCROLLBACK_ROWS} (rows of history); got {}",
                        describe(&s)
                    ))
                })?
                .unwrap_or(0) as usize;
        }
    }
    let term = &mut inner.term;
    Ok(match format.as_str() {
        "ansi" => String::from_utf8_lossy(&term.serialize_ansi(scrollback)).into_owned(),
        "html" => html(term, scrollback, inner.dom.as_ref()),
        _ => term.serialize_text(scrollback),
    })
}

/// The HTML export: `<pre class="wterm-export">` with the theme's variables, one `<div>` per
/// row, one `<span>` per styled run (inline colors and attributes), OSC 8 links as `<a>`.
/// Every character of the text is escaped.
fn html(term: &mut Terminal, scrollback: usize, dom: Option<&crate::view::Dom>) -> String {
    let mut out = String::from("<pre class=\"wterm-export\" style=\"");
    let el = dom
        .map(|d| d.root.clone().into())
        .or_else(|| web_sys::window()?.document()?.document_element());
    let style = el.and_then(|el| web_sys::window()?.get_computed_style(&el).ok()?);
    for var in THEME_VARS {
        let v = style
            .as_ref()
            .and_then(|s| s.get_property_value(var).ok())
            .unwrap_or_default();
        let v = v.trim();
        // Only plain color values: anything else (a page's own variable) is left out.
        if !v.is_empty()
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || "#(),. %".contains(c))
        {
            let _ = write!(out, "{var}:{v};");
        }
    }
    out.push_str(
        "color:var(--wterm-fg,#d4d4d4);background:var(--wterm-bg,#1e1e1e);\
         font-family:monospace;white-space:pre\">",
    );
    let alt = term.modes().alternate_screen;
    let h = term.scrollback_rows();
    let n = if alt { 0 } else { scrollback.min(h) };
    let screen_rows = term.read_rows(None).len();
    let mut runs = Vec::new();
    let rows = (h - n..h)
        .map(|idx| (h - idx, 0u16))
        .chain((0..screen_rows as u16).map(|r| (0, r)));
    for (offset, row) in rows {
        term.row_runs(offset, row, &mut runs);
        // Blanks in the default style at the end of a row are not drawn.
        while let Some(last) = runs.last_mut() {
            if last.style != Default::default() {
                break;
            }
            let keep = last.text.trim_end_matches(' ').len();
            if keep > 0 {
                last.text.truncate(keep);
                break;
            }
            runs.pop();
        }
        out.push_str("<div>");
        for run in &runs {
            push_run(&mut out, run, term);
        }
        out.push_str("</div>");
    }
    out.push_str("</pre>");
    out
}

fn push_run(out: &mut String, run: &StyledRun, term: &Terminal) {
    let link = run.style.link.and_then(|id| term.link_uri(id));
    if let Some(uri) = link {
        out.push_str("<a href=\"");
        push_escaped(out, uri);
        out.push_str("\">");
    }
    let s = &run.style;
    let (fg, bg) = colors(s);
    let mut css = String::new();
    if let Some(fg) = fg {
        let _ = write!(css, "color:{fg};");
    }
    if let Some(bg) = bg {
        let _ = write!(css, "background:{bg};");
    }
    for (on, rule) in [
        (s.bold, "font-weight:bold;"),
        (s.italic, "font-style:italic;"),
        (s.hidden, "visibility:hidden;"),
    ] {
        if on {
            css.push_str(rule);
        }
    }
    match (s.underline, s.strikethrough) {
        (true, true) => css.push_str("text-decoration:underline line-through;"),
        (true, false) => css.push_str("text-decoration:underline;"),
        (false, true) => css.push_str("text-decoration:line-through;"),
        _ => {}
    }
    if css.is_empty() {
        push_escaped(out, &run.text);
    } else {
        out.push_str("<span style=\"");
        push_escaped(out, &css);
        out.push_str("\">");
        push_escaped(out, &run.text);
        out.push_str("</span>");
    }
    if link.is_some() {
        out.push_str("</a>");
    }
}

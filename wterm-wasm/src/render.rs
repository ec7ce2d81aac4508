//! DOM rows from the terminal's styled runs: one `div.wterm-row` per screen row, one `span` per
//! run ([`Terminal::row_runs`]), and the cursor block. A row's element is rewritten only when
//! its runs differ from the ones drawn last time. No terminal semantics here: colors, widths
//! and cursor state all come from `wterm-core`.

use std::ops::RangeInclusive;

use wasm_bindgen::JsValue;
use web_sys::{Document, Element, HtmlElement};
use wterm_core::{Color, CursorShape, Style, StyledRun, Terminal};

use crate::dom::set_var;

/// Cell levels of the 6×6×6 color cube, palette entries 16..=231 (xterm `256colres.pl`).
const CUBE_LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
/// First palette entry of the gray ramp (232..=255: 8, 18, ..., 238).
const GRAY_START: u8 = 232;

/// Scripts whose wide characters are drawn in runs: consecutive characters of one script and
/// style share one box, and `letter-spacing` (the CSS variable `--wterm-ls-N`, two cells minus
/// the script's advance, measured by [`crate::view::Dom::measure`]) puts each on its two cells.
/// One box per character made the browser's layout the cost of CJK output. CJK fonts give
/// every character of these blocks the same full-width advance, so one sample per script
/// measures them all; should a character come from another font, only its own run's glyphs
/// shift, as the run's box still has the width of its cells. Each entry: the script's sample
/// character and the range it covers.
pub(crate) const GROUPED_SCRIPTS: [(char, RangeInclusive<char>); 3] = [
    // CJK Unified Ideographs.
    ('中', '\u{4E00}'..='\u{9FFF}'),
    // Hiragana and Katakana.
    ('あ', '\u{3041}'..='\u{30FF}'),
    // Hangul syllables.
    ('한', '\u{AC00}'..='\u{D7A3}'),
];

/// The [`GROUPED_SCRIPTS`] entry a wide run belongs to: one character of a grouped script.
fn grouped_script(run: &StyledRun) -> Option<usize> {
    if !run.wide {
        return None;
    }
    let mut chars = run.text.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    GROUPED_SCRIPTS
        .iter()
        .position(|(_, range)| range.contains(&c))
}

/// The rows, the cursor, and what was last drawn into them.
pub(crate) struct Renderer {
    doc: Document,
    /// Parent of the row elements.
    rows_el: HtmlElement,
    /// Carries `--cx`, `--cy` and `--cn` (cursor column, view row, width in cells), which the
    /// cursor block and the hidden input both read.
    screen: HtmlElement,
    cursor_el: HtmlElement,
    rows: Vec<RowView>,
    /// The cursor as last drawn; `None` before the first frame.
    cursor: Option<CursorView>,
    /// Scratch buffers, reused every frame.
    runs: Vec<StyledRun>,
    html: String,
    /// Which [`GROUPED_SCRIPTS`] are drawn in runs: those whose advance was measured.
    grouped: [bool; GROUPED_SCRIPTS.len()],
}

struct RowView {
    el: Element,
    /// The runs drawn into `el`; `None` until first drawn.
    runs: Option<Vec<StyledRun>>,
    /// The agent-submitted command marked on it (`data-by`, with who, when and the exit code
    /// in its `title`), and whether it had ended when marked.
    mark: Option<(u64, bool)>,
}

/// Everything that decides how the cursor block looks.
#[derive(Debug, Clone, PartialEq)]
struct CursorView {
    /// Row within the view (the screen row moved down by the view offset).
    row: usize,
    col: u16,
    /// 2 on a wide character.
    cells: u16,
    /// Drawn: the cursor is shown (DECTCEM) and its row is in view.
    shown: bool,
    text: String,
    /// Reversed colors of the cell under the cursor: its foreground is the block's background.
    fg: String,
    bg: String,
    /// Attribute classes of the cell, then the shape and blink classes (DECSCUSR).
    class: String,
}

impl Renderer {
    /// A renderer drawing rows into `rows_el` and the cursor into `cursor_el`, both inside
    /// `screen`.
    pub(crate) fn new(
        doc: Document,
        screen: HtmlElement,
        rows_el: HtmlElement,
        cursor_el: HtmlElement,
    ) -> Self {
        Renderer {
            doc,
            rows_el,
            screen,
            cursor_el,
            rows: Vec::new(),
            cursor: None,
            runs: Vec::new(),
            html: String::new(),
            grouped: [false; GROUPED_SCRIPTS.len()],
        }
    }

    /// Where the rows are in the page, in client px (mouse reports map a point to a cell).
    pub(crate) fn rows_rect(&self) -> web_sys::DomRect {
        self.rows_el.get_bounding_client_rect()
    }

    /// Sets which [`GROUPED_SCRIPTS`] are drawn in runs; every row is redrawn when it changes.
    pub(crate) fn set_grouped(&mut self, grouped: [bool; GROUPED_SCRIPTS.len()]) {
        if grouped != self.grouped {
            self.grouped = grouped;
            for row in &mut self.rows {
                row.runs = None;
            }
        }
    }

    /// Draws the view `view_offset` rows up into history: rows whose runs changed, and the
    /// cursor if it changed. Returns how many rows were rewritten.
    pub(crate) fn draw(
        &mut self,
        term: &mut Terminal,
        view_offset: usize,
    ) -> Result<usize, JsValue> {
        let size = term.size();
        self.set_row_count(usize::from(size.rows))?;
        // A selection on rows being rewritten would stay on the same places of the screen and
        // so cover other text: it is cleared, as xterm.js does when the selected lines go.
        let mut selection = self.selection();
        let mut rewritten = 0;
        let marks: Vec<Option<(u64, bool)>> = wterm_core::agent::agent_rows(term, view_offset)
            .into_iter()
            .map(|r| r.map(|r| (r.id, r.finished())))
            .collect();
        for (row, mark) in self.rows.iter_mut().zip(marks) {
            if row.mark != mark {
                row.mark = mark;
                mark_row(&row.el, mark.and_then(|(id, _)| term.command(id)));
            }
        }
        for (r, row) in self.rows.iter_mut().enumerate() {
            term.row_runs(view_offset, r as u16, &mut self.runs);
            if row.runs.as_deref() == Some(self.runs.as_slice()) {
                continue;
            }
            if let Some((sel, range)) = &selection {
                if range.intersects_node(&row.el).unwrap_or(false) {
                    let _ = sel.remove_all_ranges();
                    selection = None;
                }
            }
            self.html.clear();
            push_row(&mut self.html, &self.runs, self.grouped, term);
            row.el.set_inner_html(&self.html);
            rewritten += 1;
            // Keep what was drawn; the old vector becomes the next row's scratch buffer.
            std::mem::swap(row.runs.get_or_insert_with(Vec::new), &mut self.runs);
        }
        self.draw_cursor(term, view_offset);
        Ok(rewritten)
    }

    /// The page's selection and its range, when it is not empty and touches the rows.
    fn selection(&self) -> Option<(web_sys::Selection, web_sys::Range)> {
        let sel = self.doc.get_selection().ok()??;
        if sel.is_collapsed() || sel.range_count() == 0 {
            return None;
        }
        let range = sel.get_range_at(0).ok()?;
        range
            .intersects_node(&self.rows_el)
            .ok()?
            .then_some((sel, range))
    }

    fn set_row_count(&mut self, n: usize) -> Result<(), JsValue> {
        while self.rows.len() < n {
            let el = self.doc.create_element("div")?;
            el.set_class_name("wterm-row");
            self.rows_el.append_child(&el)?;
            self.rows.push(RowView {
                el,
                runs: None,
                mark: None,
            });
        }
        while self.rows.len() > n {
            if let Some(row) = self.rows.pop() {
                row.el.remove();
            }
        }
        Ok(())
    }

    fn draw_cursor(&mut self, term: &Terminal, view_offset: usize) {
        let size = term.size();
        let cursor = term.cursor();
        let col = cursor.col.min(size.cols.saturating_sub(1));
        let row = usize::from(cursor.row) + view_offset;
        let (text, style) = term.cell(cursor.row, col).unwrap_or_default();
        // The cell after a wide character is its continuation, for which `cell` gives `None`.
        let wide = col + 1 < size.cols && term.cell(cursor.row, col + 1).is_none();
        let (fg, bg) = colors(&style);
        let mut class = String::from("wterm-cursor");
        push_classes(&mut class, &style);
        let cs = term.modes().cursor_style;
        match cs.shape {
            CursorShape::Block => {}
            CursorShape::Bar => class.push_str(" wterm-bar"),
            CursorShape::Underline => class.push_str(" wterm-ul"),
        }
        if cs.blink {
            class.push_str(" wterm-k");
        }
        let view = CursorView {
            row,
            col,
            cells: if wide { 2 } else { 1 },
            shown: cursor.visible && row < usize::from(size.rows),
            text,
            fg: bg.unwrap_or_else(|| "var(--wterm-bg)".into()),
            // The theme's cursor colour when it has one (`--wterm-cursor`), else the text's.
            bg: format!(
                "var(--wterm-cursor,{})",
                fg.as_deref().unwrap_or("var(--wterm-fg)")
            ),
            class,
        };
        if self.cursor.as_ref() == Some(&view) {
            return;
        }
        set_var(&self.screen, "--cx", &view.col.to_string());
        set_var(&self.screen, "--cy", &view.row.to_string());
        set_var(&self.screen, "--cn", &view.cells.to_string());
        let el = &self.cursor_el;
        let style = el.style();
        let _ = style.set_property("display", if view.shown { "block" } else { "none" });
        let _ = style.set_property("color", &view.fg);
        let _ = style.set_property("background", &view.bg);
        let _ = style.set_property("--wterm-cc", &view.bg);
        el.set_class_name(&view.class);
        el.set_text_content(Some(&view.text));
        self.cursor = Some(view);
    }
}

/// Appends a palette entry as CSS: entries 0..=15 are the theme's `--wterm-cN` variables (xterm
/// defaults in the stylesheet), the rest the xterm 256-color cube and gray ramp.
fn push_indexed(out: &mut String, i: u8) {
    use std::fmt::Write as _;
    if i < 16 {
        let _ = write!(out, "var(--wterm-c{i})");
    } else if i < GRAY_START {
        let n = i - 16;
        let (r, g, b) = (n / 36, (n / 6) % 6, n % 6);
        let l = |v: u8| CUBE_LEVELS[usize::from(v)];
        let _ = write!(out, "#{:02x}{:02x}{:02x}", l(r), l(g), l(b));
    } else {
        let v = 8 + 10 * (i - GRAY_START);
        let _ = write!(out, "#{v:02x}{v:02x}{v:02x}");
    }
}

/// A color as CSS, `None` for the default (inherited from the theme).
fn css_color(c: Color) -> Option<String> {
    let mut out = String::new();
    match c {
        Color::Default => return None,
        Color::Indexed(i) => push_indexed(&mut out, i),
        Color::Rgb(r, g, b) => {
            use std::fmt::Write as _;
            let _ = write!(out, "#{r:02x}{g:02x}{b:02x}");
        }
    }
    Some(out)
}

/// The CSS foreground and background of a style, `None` meaning the theme default.
///
/// Bold draws ANSI colors 0..=7 in their bright variants (xterm's `boldColors`); inverse swaps
/// foreground and background, defaults included; faint draws the foreground at half strength.
pub(crate) fn colors(style: &Style) -> (Option<String>, Option<String>) {
    let fg = match style.fg {
        Color::Indexed(i @ 0..=7) if style.bold => Color::Indexed(i + 8),
        c => c,
    };
    let (mut fg, bg) = if style.inverse {
        (
            Some(css_color(style.bg).unwrap_or_else(|| "var(--wterm-bg)".into())),
            Some(css_color(fg).unwrap_or_else(|| "var(--wterm-fg)".into())),
        )
    } else {
        (css_color(fg), css_color(style.bg))
    };
    if style.dim {
        let base = fg.unwrap_or_else(|| "var(--wterm-fg)".into());
        fg = Some(format!("color-mix(in srgb,{base} 50%,transparent)"));
    }
    (fg, bg)
}

/// Marks `el` as a row of `record`, a command an agent submitted (`data-by` its author's kind,
/// `title` who ran what, when, and how it ended), or unmarks it.
fn mark_row(el: &Element, record: Option<&wterm_core::CommandRecord>) {
    let Some(r) = record else {
        let _ = el.remove_attribute("data-by");
        let _ = el.remove_attribute("title");
        return;
    };
    let Some(by) = &r.submitted_by else {
        return;
    };
    let who = match by.kind {
        wterm_core::AuthorKind::PageAgent => format!("An agent in this page ({})", by.name),
        wterm_core::AuthorKind::McpClient => format!("MCP client {}", by.name),
        // The /mcp/* routes' callers are MCP clients too (`wterm-relay mcp` calls them).
        _ if by.name == "unscoped" => "An MCP client".to_owned(),
        _ => format!("An MCP client (scope {})", by.name),
    };
    let when =
        js_sys::Date::new(&JsValue::from_f64(r.start_ms as f64)).to_locale_time_string("default");
    let how = match (r.finished(), r.exit_code) {
        (false, _) => "still running".to_owned(),
        (true, Some(code)) => format!("exit {code}"),
        (true, None) => "exit unknown".to_owned(),
    };
    let what = r.command.as_deref().unwrap_or("a command");
    let _ = el.set_attribute("data-by", by.kind.as_str());
    let _ = el.set_attribute("title", &format!("{who} ran {what} at {when}: {how}"));
}

/// Appends the attribute classes of `style`, each after a space: bold, italic, underline,
/// strikethrough (SGR 9), concealed (SGR 8), blink (SGR 5/6).
fn push_classes(out: &mut String, style: &Style) {
    for (on, class) in [
        (style.bold, " wterm-b"),
        (style.italic, " wterm-i"),
        (style.underline, " wterm-u"),
        (style.strikethrough, " wterm-s"),
        (style.hidden, " wterm-h"),
        (style.blink, " wterm-k"),
    ] {
        if on {
            out.push_str(class);
        }
    }
}

/// Appends a row's runs, consecutive wide characters of one grouped script and style as one
/// run (see [`GROUPED_SCRIPTS`]).
fn push_row(
    out: &mut String,
    runs: &[StyledRun],
    grouped: [bool; GROUPED_SCRIPTS.len()],
    term: &Terminal,
) {
    let mut i = 0;
    while i < runs.len() {
        let run = &runs[i];
        let link = run.style.link.and_then(|id| term.link_uri(id));
        let script = grouped_script(run).filter(|&s| grouped[s]);
        let Some(script) = script else {
            push_run(out, run, link, None);
            i += 1;
            continue;
        };
        let mut group = run.clone();
        i += 1;
        while let Some(next) = runs.get(i) {
            if next.style != run.style || grouped_script(next) != Some(script) {
                break;
            }
            group.text.push_str(&next.text);
            group.cols += next.cols;
            i += 1;
        }
        push_run(out, &group, link, Some(script));
    }
}

/// Appends one run as `<span style="--n:COLS;...">TEXT</span>`, inside an `a.wterm-a` when
/// it belongs to an OSC 8 hyperlink (the core only keeps `http:`/`https:` URIs). `group`: the
/// run is wide characters of that [`GROUPED_SCRIPTS`] entry.
fn push_run(out: &mut String, run: &StyledRun, link: Option<&str>, group: Option<usize>) {
    use std::fmt::Write as _;
    if let Some(uri) = link {
        out.push_str("<a class=\"wterm-a\" target=\"_blank\" rel=\"noopener noreferrer\" href=\"");
        push_escaped(out, uri);
        out.push_str("\">");
    }
    out.push_str("<span");
    let mut class = String::new();
    push_classes(&mut class, &run.style);
    // A wide run (one cluster covering two columns) is its own two-cell box, whatever the
    // fallback font measures; no inner box (one fewer layout box per wide character halves the
    // layout time of CJK and emoji rows).
    if run.wide {
        class.push_str(" wterm-w");
    }
    if let Some(g) = group {
        let _ = write!(class, " wterm-g{g}");
    }
    if !class.is_empty() {
        let _ = write!(out, " class=\"{}\"", &class[1..]);
    }
    let _ = write!(out, " style=\"--n:{}", run.cols);
    let (fg, bg) = colors(&run.style);
    if let Some(fg) = fg {
        let _ = write!(out, ";color:{fg}");
    }
    if let Some(bg) = bg {
        let _ = write!(out, ";background:{bg}");
    }
    out.push_str("\">");
    push_escaped(out, &run.text);
    out.push_str("</span>");
    if link.is_some() {
        out.push_str("</a>");
    }
}

pub(crate) fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, cols: u16, wide: bool) -> StyledRun {
        StyledRun {
            text: text.into(),
            cols,
            style: Style::default(),
            wide,
        }
    }

    #[test]
    fn palette() {
        let mut s = String::new();
        push_indexed(&mut s, 1);
        push_indexed(&mut s, 16);
        push_indexed(&mut s, 196);
        push_indexed(&mut s, 231);
        push_indexed(&mut s, 232);
        push_indexed(&mut s, 255);
        assert_eq!(s, "var(--wterm-c1)#000000#ff0000#ffffff#080808#eeeeee");
    }

    #[test]
    fn inverse_swaps_defaults() {
        let style = Style {
            inverse: true,
            ..Style::default()
        };
        assert_eq!(
            colors(&style),
            (
                Some("var(--wterm-bg)".into()),
                Some("var(--wterm-fg)".into())
            )
        );
        let style = Style {
            inverse: true,
            fg: Color::Rgb(1, 2, 3),
            ..Style::default()
        };
        assert_eq!(
            colors(&style),
            (Some("var(--wterm-bg)".into()), Some("#010203".into()))
        );
    }

    #[test]
    fn bold_brightens_ansi() {
        let style = Style {
            bold: true,
            fg: Color::Indexed(1),
            ..Style::default()
        };
        assert_eq!(colors(&style).0.as_deref(), Some("var(--wterm-c9)"));
    }

    #[test]
    fn wide_runs_are_boxed() {
        let mut s = String::new();
        push_run(&mut s, &run("a<", 2, false), None, None);
        push_run(&mut s, &run("中", 2, true), None, None);
        push_run(&mut s, &run("\u{2764}\u{FE0F}", 2, true), None, None);
        assert_eq!(
            s,
            "<span style=\"--n:2\">a&lt;</span>\
             <span class=\"wterm-w\" style=\"--n:2\">中</span>\
             <span class=\"wterm-w\" style=\"--n:2\">\u{2764}\u{FE0F}</span>"
        );
    }

    #[test]
    fn links_strikethrough_and_concealed_text() {
        let mut s = String::new();
        let mut r = run("go", 2, false);
        r.style.strikethrough = true;
        r.style.underline = true;
        push_run(&mut s, &r, Some("https://x.test/?a=\"1\"&b"), None);
        r.style = Style {
            hidden: true,
            ..Style::default()
        };
        push_run(&mut s, &r, None, None);
        assert_eq!(
            s,
            "<a class=\"wterm-a\" target=\"_blank\" rel=\"noopener noreferrer\" \
             href=\"https://x.test/?a=&quot;1&quot;&amp;b\">\
             <span class=\"wterm-u wterm-s\" style=\"--n:2\">go</span></a>\
             <span class=\"wterm-h\" style=\"--n:2\">go</span>"
        );
    }

    #[test]
    fn wide_characters_of_one_script_and_style_share_a_box() {
        let t = Terminal::default();
        let bold = Style {
            bold: true,
            ..Style::default()
        };
        let runs = [
            run("中", 2, true),
            run("文", 2, true),
            run("あ", 2, true),
            run("い", 2, true),
            StyledRun {
                style: bold,
                ..run("字", 2, true)
            },
            run("\u{1F600}", 2, true),
            run("한", 2, true),
            run("x", 1, false),
        ];
        let mut s = String::new();
        push_row(&mut s, &runs, [true, true, false], &t);
        assert_eq!(
            s,
            "<span class=\"wterm-w wterm-g0\" style=\"--n:4\">中文</span>\
             <span class=\"wterm-w wterm-g1\" style=\"--n:4\">あい</span>\
             <span class=\"wterm-b wterm-w wterm-g0\" style=\"--n:2\">字</span>\
             <span class=\"wterm-w\" style=\"--n:2\">\u{1F600}</span>\
             <span class=\"wterm-w\" style=\"--n:2\">한</span>\
             <span style=\"--n:1\">x</span>"
        );
    }
}

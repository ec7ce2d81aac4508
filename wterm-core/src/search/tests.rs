use super::*;
use crate::terminal::Size;

fn term(rows: u16, cols: u16, text: &str) -> Terminal {
    let mut t = Terminal::new(Size::new(rows, cols), 1000);
    t.feed(text.as_bytes());
    t
}

fn pos(row: u64, col: u16) -> SearchPos {
    SearchPos { row, col }
}

fn all(t: &Terminal, needle: &str, case_sensitive: bool) -> Vec<SearchMatch> {
    let mut m = if case_sensitive {
        TextMatcher::new(needle)
    } else {
        TextMatcher::ignore_case(needle)
    };
    t.matches_in_rows(&mut m, 0..u64::MAX, false)
}

#[test]
fn finds_next_and_previous_and_wraps_around() {
    let t = term(4, 20, "foo bar\r\nbar foo\r\nfoo");
    let mut m = TextMatcher::new("foo");
    let opts = SearchOptions::default();
    let r = t.search(&mut m, None, opts);
    assert_eq!(r.count, 3);
    assert_eq!(r.index, Some(0));
    assert_eq!(r.active.unwrap().start, pos(0, 0));
    let r = t.search(&mut m, Some(pos(0, 0)), opts);
    assert_eq!((r.index, r.active.unwrap().start), (Some(1), pos(1, 4)));
    let r = t.search(&mut m, Some(pos(2, 0)), opts);
    assert_eq!(
        (r.index, r.active.unwrap().start),
        (Some(0), pos(0, 0)),
        "wraps to the top"
    );
    let back = SearchOptions {
        backwards: true,
        ..opts
    };
    let r = t.search(&mut m, Some(pos(0, 0)), back);
    assert_eq!(
        (r.index, r.active.unwrap().start),
        (Some(2), pos(2, 0)),
        "wraps to the end"
    );
    let r = t.search(&mut m, None, back);
    assert_eq!(r.index, Some(2));
    assert!(!r.truncated);
}

#[test]
fn case_folding() {
    let t = term(2, 20, "Foo FOO foo Ärger ärger");
    assert_eq!(all(&t, "foo", true).len(), 1);
    assert_eq!(all(&t, "foo", false).len(), 3);
    assert_eq!(all(&t, "ÄRGER", false).len(), 2);
    assert_eq!(all(&t, "", false).len(), 0);
}

#[test]
fn whole_word() {
    let t = term(2, 40, "cat concat cat_x (cat) cat 猫cat");
    let mut m = TextMatcher::new("cat");
    let hits = t.matches_in_rows(&mut m, 0..10, true);
    let cols: Vec<u16> = hits.iter().map(|h| h.start.col).collect();
    assert_eq!(cols, [0, 18, 23]);
}

#[test]
fn match_crosses_a_soft_wrap() {
    // 10 columns: "0123456hello" wraps "hel" | "lo".
    let t = term(3, 10, "0123456hello world");
    let hits = all(&t, "hello", true);
    assert_eq!(hits.len(), 1);
    let h = hits[0];
    assert_eq!((h.start, h.end), (pos(0, 7), pos(1, 1)));
    assert_eq!(h.cols_on_row(0, 10), Some(7..10));
    assert_eq!(h.cols_on_row(1, 10), Some(0..2));
    assert_eq!(h.cols_on_row(2, 10), None);
    // A hard line break is not a wrap.
    let t = term(3, 10, "0123456hel\r\nlo");
    assert!(all(&t, "hello", true).is_empty());
}

#[test]
fn wide_characters_map_to_their_cells() {
    let t = term(2, 20, "a中文b");
    let h = all(&t, "文b", true)[0];
    assert_eq!((h.start, h.end, h.end_width), (pos(0, 3), pos(0, 5), 1));
    let h = all(&t, "中文", true)[0];
    assert_eq!((h.start.col, h.end.col, h.end_width), (1, 3, 2));
    assert_eq!(h.cols_on_row(0, 20), Some(1..5));
}

#[test]
fn trailing_blanks_are_not_text() {
    let t = term(3, 10, "ab\r\ncd");
    assert!(all(&t, "b ", true).is_empty());
}

#[test]
fn blanks_of_a_wrapped_history_row_are_text() {
    // History keeps no trailing default blanks; the wrapped row's spaces still join the line.
    let mut t = term(2, 6, "ab    cd");
    t.feed(b"\r\n\r\n\r\n");
    assert_eq!(t.scrollback_rows(), 3);
    let h = all(&t, "b    c", true);
    assert_eq!(h.len(), 1);
    assert_eq!((h[0].start.col, h[0].end.col), (1, 0));
}

#[test]
fn positions_follow_rows_into_history() {
    let mut t = term(2, 10, "needle\r\n");
    let before = all(&t, "needle", true)[0].start;
    t.feed(b"x\r\ny\r\nz");
    assert_eq!(t.scrollback_rows(), 2);
    let after = all(&t, "needle", true)[0].start;
    assert_eq!(before, after, "a lifetime row number stays with its row");
    let hits = t.matches_in_rows(&mut TextMatcher::new("needle"), 1..2, false);
    assert!(hits.is_empty(), "rows outside the range give nothing");
}

#[test]
fn count_stops_at_the_limit() {
    let mut t = Terminal::new(Size::new(5, 100), 100);
    for _ in 0..30 {
        t.feed("x ".repeat(49).as_bytes());
        t.feed(b"\r\n");
    }
    let r = t.search(&mut TextMatcher::new("x"), None, SearchOptions::default());
    assert_eq!(r.count, MAX_SEARCH_MATCHES);
    assert!(r.truncated);
    // Past the counted matches, next and previous still move, without an index.
    let last = t.search(
        &mut TextMatcher::new("x"),
        None,
        SearchOptions {
            backwards: true,
            ..SearchOptions::default()
        },
    );
    let end = last.active.unwrap();
    assert_eq!(last.index, None);
    let before_end = t.search(
        &mut TextMatcher::new("x"),
        Some(end.start),
        SearchOptions {
            backwards: true,
            ..SearchOptions::default()
        },
    );
    assert_eq!(before_end.active.unwrap().start.col, end.start.col - 2);
    let wrapped = t.search(
        &mut TextMatcher::new("x"),
        Some(end.start),
        SearchOptions::default(),
    );
    assert_eq!(
        wrapped.index,
        Some(0),
        "next after the last wraps to the first"
    );
}

#[test]
fn alternate_screen_is_searched_alone() {
    let mut t = term(2, 10, "main\r\nmain\r\nmain");
    t.feed(b"\x1b[?1049h\x1b[Halt");
    assert!(all(&t, "main", true).is_empty());
    assert_eq!(all(&t, "alt", true).len(), 1);
}

/// A matcher that returns an empty range or one behind `from`: the search still ends.
struct Bad;
impl Matcher for Bad {
    fn find_at(&mut self, _line: &str, _from: usize) -> Option<Range<usize>> {
        Some(0..0)
    }
}

#[test]
fn a_misbehaving_matcher_cannot_loop() {
    let t = term(2, 10, "abc");
    assert!(t.matches_in_rows(&mut Bad, 0..10, false).is_empty());
}

fn url(text: &str) -> Option<&str> {
    UrlMatcher.find_at(text, 0).map(|r| &text[r])
}

#[test]
fn urls() {
    assert_eq!(
        url("see https://x.test/a?b=1#c."),
        Some("https://x.test/a?b=1#c")
    );
    assert_eq!(url("(see http://x.test/a)"), Some("http://x.test/a"));
    assert_eq!(
        url("https://en.wikipedia.org/wiki/Rust_(language)"),
        Some("https://en.wikipedia.org/wiki/Rust_(language)")
    );
    assert_eq!(url("<https://x.test/>"), Some("https://x.test/"));
    assert_eq!(url("\"https://x.test/q\","), Some("https://x.test/q"));
    assert_eq!(url("HTTPS://X.TEST"), Some("HTTPS://X.TEST"));
    assert_eq!(url("ftp://x.test"), None);
    assert_eq!(url("xhttp://x.test"), None);
    assert_eq!(url("https:// x"), None);
    assert_eq!(url("a https://x.test/中文 b"), Some("https://x.test/中文"));
}

#[test]
fn link_at_reads_the_whole_wrapped_line() {
    // 12 columns: the URL wraps after "https://exam".
    let t = term(3, 12, "https://example.test/path ok");
    let link = t.link_at(&mut UrlMatcher, 1, 3).unwrap();
    assert_eq!(link.uri, "https://example.test/path");
    assert_eq!(link.span.start, pos(0, 0));
    assert_eq!(link.span.end, pos(2, 0));
    assert_eq!(t.link_at(&mut UrlMatcher, 2, 2), None, "the space after it");
    assert_eq!(t.link_at(&mut UrlMatcher, 99, 0), None);
}

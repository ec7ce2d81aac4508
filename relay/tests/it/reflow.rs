//! Reflow on resize through the real relay, real bash and real vim: a page's
//! `resize` re-wraps the session's main screen; the alternate screen is cut, and a full-screen
//! program redraws it; a fresh page's snapshot rebuilds the reflowed screen.

use std::time::Instant;

use serde_json::{json, Value};
use wterm_core::{Size, Terminal};

use crate::support::{Mcp, Page, Relay, WAIT};

/// 200 characters: the numbers 100..=199 written one after another, cut to 200 ("100101102…").
fn long_line() -> String {
    (100..200).map(|n| n.to_string()).collect::<String>()[..200].to_owned()
}

/// The rows of window `id`'s screen as `/mcp/read` gives them, without the blank rows at the
/// bottom (`/mcp/read` gives every row; `Terminal::screen_text` and `read_terminal` drop them).
async fn rows(mcp: &Mcp, id: u64) -> (Vec<String>, Value) {
    let a = mcp.read(json!({"id": id})).await;
    let text = a["text"]
        .as_str()
        .unwrap()
        .trim_end_matches('\n')
        .to_owned();
    (text.split('\n').map(str::to_owned).collect(), a)
}

/// Reads window `id` until `ok` holds for its rows; panics with the last rows after [`WAIT`].
async fn until(mcp: &Mcp, id: u64, what: &str, ok: impl Fn(&[String]) -> bool) -> Vec<String> {
    let start = Instant::now();
    loop {
        let (rows, _) = rows(mcp, id).await;
        if ok(&rows) {
            return rows;
        }
        assert!(
            start.elapsed() < WAIT,
            "{what}: not within {WAIT:?}; the screen:\n{}",
            rows.join("\n")
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Whether `rows` hold `line` as consecutive rows of `cols` (the last one shorter).
fn holds_wrapped(rows: &[String], line: &str, cols: usize) -> bool {
    let pieces: Vec<&str> = line
        .as_bytes()
        .chunks(cols)
        .map(|c| core::str::from_utf8(c).unwrap())
        .collect();
    rows.windows(pieces.len())
        .any(|w| w.iter().zip(&pieces).all(|(r, p)| r == p))
}

async fn resize(page: &mut Page, cols: u16, rows: u16) {
    page.send_json(json!({"type": "resize", "cols": cols, "rows": rows}))
        .await;
}

#[tokio::test]
async fn a_200_character_line_reads_whole_after_80_40_80_and_a_fresh_page_rebuilds_it() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.new_session().await;
    let mut page = relay.attach(Some(id)).await;
    page.expect_attach().await;
    mcp.wait_text(id, "$").await;
    let line = long_line();
    mcp.type_text(id, "seq -s '' 100 199 | cut -c1-200\r").await;
    let before = until(&mcp, id, "the line at 80", |r| holds_wrapped(r, &line, 80)).await;

    resize(&mut page, 40, 24).await;
    until(&mcp, id, "the line at 40", |r| holds_wrapped(r, &line, 40)).await;
    resize(&mut page, 80, 24).await;
    let after = until(&mcp, id, "the line at 80 again", |r| {
        holds_wrapped(r, &line, 80)
    })
    .await;
    // Bash redraws its prompt on SIGWINCH (`\r` and the prompt again, on the same row): the
    // screen reads as before the two resizes.
    assert_eq!(after, before);

    // A fresh page rebuilds the same screen from the snapshot.
    let mut fresh = relay.attach(Some(id)).await;
    let (resized, snapshot) = fresh.expect_attach().await;
    assert_eq!(
        resized,
        json!({"type": "resized", "cols": 80, "rows": 24, "shell_integration": true})
    );
    let mut t = Terminal::new(Size::new(24, 80), 1000);
    t.feed(&snapshot);
    assert_eq!(t.screen_text(), after.join("\n"));
}

#[tokio::test]
async fn the_alternate_screen_is_cut_not_reflowed() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.new_session().await;
    let mut page = relay.attach(Some(id)).await;
    page.expect_attach().await;
    mcp.wait_text(id, "$").await;
    let line = long_line();
    // A program that draws on the alternate screen once and does not redraw on SIGWINCH.
    mcp.type_text(
        id,
        "printf '\\e[?1049h\\e[H%s' \"$(seq -s '' 100 199 | cut -c1-100)\"; read; printf '\\e[?1049l'\r",
    )
    .await;
    until(&mcp, id, "the alternate screen at 80", |r| {
        r.first().map(String::as_str) == Some(&line[..80])
    })
    .await;
    resize(&mut page, 40, 24).await;
    // Cut: each row keeps its first 40 columns; a reflow would have made 40, 40, 20.
    let rows = until(&mcp, id, "the alternate screen cut at 40", |r| {
        r.len() >= 2 && r[0] == line[..40] && r[1] == line[80..100]
    })
    .await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    // Back on the main screen at 40 columns: the shell's command line was reflowed.
    mcp.type_text(id, "\r").await;
    until(&mcp, id, "the main screen", |r| {
        r.iter().all(|row| row.chars().count() <= 40) && r.join("").contains("printf")
    })
    .await;
}

#[tokio::test]
async fn vim_redraws_the_alternate_screen_and_the_main_screen_behind_it_is_reflowed() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.new_session().await;
    let mut page = relay.attach(Some(id)).await;
    page.expect_attach().await;
    mcp.wait_text(id, "$").await;
    let line = long_line();
    mcp.type_text(
        id,
        "f=$(mktemp); seq -s '' 100 199 | cut -c1-200 | tee $f; echo second >> $f\r",
    )
    .await;
    until(&mcp, id, "the line at 80", |r| holds_wrapped(r, &line, 80)).await;
    // `nowrap`: vim shows the first 80 columns of the line on row 0 and `second` on row 1. A
    // reflow of those rows at 40 columns would put columns 40..80 on row 1.
    mcp.type_text(id, "vim -u NONE -N -c 'set nowrap' $f\r")
        .await;
    until(&mcp, id, "vim at 80", |r| {
        r.len() > 1 && r[0] == line[..80] && r[1] == "second"
    })
    .await;
    resize(&mut page, 40, 24).await;
    let (_, a) = rows(&mcp, id).await;
    assert_eq!(a["alt_screen"], true);
    until(&mcp, id, "vim's redraw at 40", |r| {
        r.len() > 1 && r[0] == line[..40] && r[1] == "second"
    })
    .await;
    resize(&mut page, 80, 24).await;
    until(&mcp, id, "vim's redraw at 80", |r| {
        r.len() > 1 && r[0] == line[..80] && r[1] == "second"
    })
    .await;
    resize(&mut page, 40, 24).await;
    until(&mcp, id, "vim's redraw at 40 again", |r| {
        r.len() > 1 && r[0] == line[..40] && r[1] == "second"
    })
    .await;
    // Leaving vim: the main screen, written at 80 columns, was reflowed to 40 behind it.
    mcp.type_text(id, "\x1b:q!\r").await;
    until(&mcp, id, "the shell at 40", |r| holds_wrapped(r, &line, 40)).await;
    mcp.type_text(id, "rm -f $f\r").await;
}

//! The `/mcp/*` routes against real shells: listing, reads and every wait, deltas, style runs,
//! input and keys (DECCKM observed by a real program), read mode, reset, flush, launch and
//! handles, admin, `/mcp/config`.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wterm_core::ScreenHash;

use crate::support::{Mcp, Options, Relay};

const ADMIN: &str = "routes-admin-token";

/// Writes a python3 script into the relay's temp dir and returns the command that runs it.
fn script(dir: &std::path::Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    format!("python3 {}\r", path.display())
}

#[tokio::test]
async fn info_and_terminals_describe_the_windows() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let info = mcp.get("/mcp/info").await;
    assert_eq!(info.status, 200);
    let mut info = info.json();
    let memory = info.as_object_mut().unwrap().remove("memory").unwrap();
    assert_eq!(memory["budget_bytes"], 1024 * 1024 * 1024, "{memory}");
    assert!(memory["reserved_bytes"].as_u64().unwrap() > 0, "{memory}");
    assert_eq!(
        info,
        json!({"ok": true, "allow_launch": false, "default_mode": "readwrite",
               "version": env!("CARGO_PKG_VERSION"), "scope": null, "terminals": true,
               "admin": false, "window_edit": true})
    );
    assert_eq!(
        mcp.scoped("team-x").get("/mcp/info").await.json()["scope"],
        "team-x"
    );

    mcp.type_text(id, "printf '\\033]2;my-title\\007'; cd /tmp\r")
        .await;
    let list = loop {
        let list = mcp.get("/mcp/terminals").await.json();
        if list[0]["title"] == "my-title" && list[0]["cwd"] == "/tmp" {
            break list;
        }
        // The title and cwd arrive with output: wait for the next change, not a timer.
        let h = mcp.read(json!({"id": id})).await["content_hash"].clone();
        mcp.read(json!({"id": id, "wait_for_change": h, "timeout_ms": 2000}))
            .await;
    };
    let row = &list[0];
    assert!(
        list.is_array() && list.as_array().unwrap().len() == 1,
        "{list}"
    );
    assert_eq!(row["id"], id);
    assert_eq!(row["host"], wterm_relay::broker::hostname());
    assert_eq!(row["agent"], Value::Null);
    assert_eq!(row["kind"], "shell");
    assert_eq!(
        (row["cols"].as_u64(), row["rows"].as_u64()),
        (Some(80), Some(24))
    );
    assert_eq!(row["mode"], "readwrite");
    assert_eq!(row["scope"], Value::Null);
    assert_eq!(row["app_cursor"], false);
    assert_eq!(row["pace_ms"], 0);
    assert!(row["version"].as_u64().unwrap() > 0);
    let profiles = mcp.get("/mcp/profiles").await.json();
    assert_eq!(profiles, json!({"default": "shell", "profiles": ["shell"]}));
}

#[tokio::test]
async fn read_answers_every_field_and_the_hashes_are_blake2b() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    mcp.type_text(id, "echo fields-$((40+2))\r").await;
    let a = mcp.wait_text(id, "fields-42").await;
    for key in [
        "ok",
        "id",
        "cols",
        "rows",
        "text",
        "alt_screen",
        "app_cursor",
        "view",
        "history_lines",
        "content_hash",
        "stable_hash",
        "cursor",
        "delta",
        "matched",
        "idle_ms",
    ] {
        assert!(a.get(key).is_some(), "no {key} in {a}");
    }
    let text = a["text"].as_str().unwrap();
    assert_eq!(a["content_hash"], ScreenHash::of(text).to_hex());
    assert_eq!(
        text.split('\n').count(),
        24,
        "the full screen, blank rows included"
    );
    assert_eq!(a["view"], "screen");
    assert_eq!(a["delta"], false);
    assert_eq!(a["history_lines"], 0);
    assert!(a["cursor"]["row"].as_u64().is_some());
    assert!(a["idle_ms"].as_u64().is_some());

    // Scrollback: history rows first.
    mcp.type_text(id, "seq 1 60; echo seq-$((1+1))-done\r")
        .await;
    mcp.wait_text(id, "seq-2-done").await;
    let s = mcp
        .read(json!({"id": id, "view": "scrollback", "lines": 30}))
        .await;
    assert_eq!(s["view"], "scrollback");
    assert_eq!(s["history_lines"], 30);
    assert_eq!(s["text"].as_str().unwrap().split('\n').count(), 54);
    let s = mcp
        .read(json!({"id": id, "view": "scrollback", "lines": 0}))
        .await;
    assert_eq!(s["history_lines"], 0);
    // On the alternate screen a scrollback read is a screen read.
    mcp.type_text(id, "printf '\\033[?1049halt-%s' screen; sleep 30\r")
        .await;
    let alt = mcp.wait_text(id, "alt-screen").await;
    assert_eq!(alt["alt_screen"], true);
    let s = mcp
        .read(json!({"id": id, "view": "scrollback", "lines": 30}))
        .await;
    assert_eq!(
        (s["view"].clone(), s["history_lines"].clone()),
        (json!("screen"), json!(0))
    );
}

/// Newcomer report: a window that ended during a wait answered `matched:false` like a timeout,
/// so an agent could not tell a dead shell from a slow one. `exited:true` (ext) says so.
#[tokio::test]
async fn a_wait_ended_by_the_process_exiting_says_exited() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let waiter = {
        let mcp = mcp.clone();
        tokio::spawn(async move {
            mcp.read(json!({"id": id, "wait_for_text": "never-there", "timeout_ms": 15000}))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t0 = Instant::now();
    mcp.type_text(id, "echo bye-$((1+1)); exit\r").await;
    let a = waiter.await.unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert_eq!(
        (a["matched"].clone(), a["exited"].clone()),
        (json!(false), json!(true)),
        "{a}"
    );
    assert!(
        a["text"].as_str().unwrap().contains("\nbye-2"),
        "the last screen: {a}"
    );
}

#[tokio::test]
async fn waits_for_text_regex_absence_change_idle_and_time_out() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;

    // Text already present matches at once.
    mcp.type_text(id, "echo here-$((2+3))\r").await;
    mcp.wait_text(id, "here-5").await;
    let t0 = Instant::now();
    let a = mcp
        .read(json!({"id": id, "wait_for_text": "here-5", "timeout_ms": 15000}))
        .await;
    assert_eq!(a["matched"], true);
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());

    // Text that appears later wakes the wait.
    let waiter = {
        let mcp = mcp.clone();
        tokio::spawn(async move {
            mcp.read(json!({"id": id, "wait_for_text": "later-7", "timeout_ms": 15000}))
                .await
        })
    };
    let regex_waiter = {
        let mcp = mcp.clone();
        tokio::spawn(async move {
            mcp.read(json!({"id": id, "wait_for_regex": r"later-\d+\b", "timeout_ms": 15000}))
                .await
        })
    };
    mcp.type_text(id, "sleep 0.3; echo later-$((3+4))\r").await;
    let a = waiter.await.unwrap();
    assert_eq!(a["matched"], true);
    assert!(
        a["text"].as_str().unwrap().contains("\nlater-7"),
        "{}",
        a["text"]
    );
    let a = regex_waiter.await.unwrap();
    assert_eq!(a["matched"], true);
    assert!(a["text"].as_str().unwrap().contains("\nlater-7"));

    // wait_absent: until the text is gone (here: the screen is cleared).
    let absent = {
        let mcp = mcp.clone();
        tokio::spawn(async move {
            mcp.read(
                json!({"id": id, "wait_for_text": "later-7", "wait_absent": true,
                            "timeout_ms": 15000}),
            )
            .await
        })
    };
    mcp.type_text(id, "sleep 0.2; clear\r").await;
    let a = absent.await.unwrap();
    assert_eq!(a["matched"], true);
    assert!(!a["text"].as_str().unwrap().contains("later-7"));
    let a = mcp
        .read(json!({"id": id, "wait_for_regex": "^nothing$", "wait_absent": true, "timeout_ms": 100}))
        .await;
    assert_eq!(a["matched"], true, "absent already");

    // A wait that times out answers the current screen with matched:false.
    let t0 = Instant::now();
    let a = mcp
        .read(json!({"id": id, "wait_for_text": "never-there", "timeout_ms": 300}))
        .await;
    let took = t0.elapsed();
    assert_eq!(a["matched"], false);
    assert_eq!(
        a.get("exited"),
        None,
        "a live window's timeout says nothing of an exit"
    );
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(3),
        "{took:?}"
    );
    assert!(a["text"].as_str().unwrap().contains('$'));
    let a = mcp
        .read(json!({"id": id, "wait_for_text": "never-there", "timeout_ms": 0}))
        .await;
    assert_eq!(a["matched"], false);

    // wait_for_change: woken by output.
    let h = mcp.read(json!({"id": id})).await["content_hash"].clone();
    let change = {
        let mcp = mcp.clone();
        tokio::spawn(async move {
            mcp.read(json!({"id": id, "wait_for_change": h, "timeout_ms": 15000}))
                .await
        })
    };
    mcp.type_text(id, "x").await;
    let a = change.await.unwrap();
    assert_eq!(a["matched"], true);
    mcp.type_text(id, "\x15").await; // Ctrl+U: clear the line again.

    // wait_for_idle: reset by output, met once the screen stays put.
    mcp.type_text(id, "for i in 1 2 3 4 5; do echo tick$i; sleep 0.25; done\r")
        .await;
    mcp.wait_text(id, "tick1").await;
    let t0 = Instant::now();
    let a = mcp
        .read(json!({"id": id, "wait_for_idle": 600, "timeout_ms": 15000}))
        .await;
    let took = t0.elapsed();
    assert_eq!(a["matched"], true);
    assert!(
        a["text"].as_str().unwrap().contains("tick5"),
        "{}",
        a["text"]
    );
    assert!(
        took >= Duration::from_millis(1300),
        "idle met too early: {took:?}"
    );
    assert!(a["idle_ms"].as_u64().unwrap() >= 600, "{a}");
    // An idle wait shorter than its timeout fails when output keeps coming.
    mcp.type_text(id, "while :; do echo busy-$RANDOM; sleep 0.05; done\r")
        .await;
    mcp.wait_text(id, "busy-").await;
    let a = mcp
        .read(json!({"id": id, "wait_for_idle": 500, "timeout_ms": 1200}))
        .await;
    assert_eq!(a["matched"], false);
    mcp.post("/mcp/keys", json!({"id": id, "keys": ["C-c"]}))
        .await;

    // Refusals of the wait fields.
    for (body, want) in [
        (
            json!({"id": id, "wait_for_text": "a", "wait_for_idle": 5}),
            "conflicting_wait",
        ),
        (
            json!({"id": id, "wait_for_change": "a", "wait_for_regex": "b"}),
            "conflicting_wait",
        ),
        (
            json!({"id": id, "wait_for_text": "a", "wait_for_regex": "("}),
            "bad_regex",
        ),
        (
            json!({"id": id, "wait_for_regex": "(unclosed"}),
            "bad_regex",
        ),
        (json!({"id": id, "view": "everything"}), "bad_request"),
    ] {
        let r = mcp.post("/mcp/read", body.clone()).await;
        assert_eq!(
            (r.status, r.json()["error"].clone()),
            (400, json!(want)),
            "{body}"
        );
    }
}

/// Applies a delta's changed rows to the text it is relative to.
fn patch(base: &str, delta: &Value) -> String {
    let mut lines: Vec<String> = base.split('\n').map(str::to_owned).collect();
    for row in delta["changed_rows"].as_array().unwrap() {
        lines[row["row"].as_u64().unwrap() as usize] = row["text"].as_str().unwrap().to_owned();
    }
    lines.join("\n")
}

#[tokio::test]
async fn since_gives_deltas_that_patch_back_to_the_full_screen() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let first = mcp.read(json!({"id": id})).await;
    mcp.type_text(id, "echo delta-$((5*5))\r").await;
    // The output and the prompt after it, so nothing is drawn between the reads below.
    let r = mcp
        .read(json!({"id": id, "wait_for_regex": "(?m)^delta-25\n\\$", "timeout_ms": 15000}))
        .await;
    assert_eq!(r["matched"], true, "{r}");
    let d = mcp
        .read(json!({"id": id, "since": first["content_hash"]}))
        .await;
    assert_eq!(d["delta"], true, "{d}");
    assert_eq!(d["text"], "");
    let changed = d["changed_rows"].as_array().unwrap();
    assert!(!changed.is_empty() && changed.len() <= 24 * 60 / 100, "{d}");
    let patched = patch(first["text"].as_str().unwrap(), &d);
    assert_eq!(ScreenHash::of(&patched).to_hex(), d["content_hash"]);
    let full = mcp.read(json!({"id": id})).await;
    assert_eq!(full["text"].as_str().unwrap(), patched);

    // Unchanged since: an empty delta.
    let same = mcp
        .read(json!({"id": id, "since": full["content_hash"]}))
        .await;
    assert_eq!(
        (same["delta"].clone(), same["changed_rows"].clone()),
        (json!(true), json!([]))
    );
    // Most rows changed: a full read.
    mcp.type_text(id, "seq 100 140; echo many-$((1+1))\r").await;
    mcp.wait_text(id, "many-2").await;
    let big = mcp
        .read(json!({"id": id, "since": full["content_hash"]}))
        .await;
    assert_eq!(big["delta"], false);
    assert!(big["text"].as_str().unwrap().contains("many-2"));
    // An unknown hash: a full read.
    let unknown = mcp.read(json!({"id": id, "since": "0".repeat(32)})).await;
    assert_eq!(unknown["delta"], false);
}

#[tokio::test]
async fn attrs_report_a_reverse_video_run() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    mcp.type_text(
        id,
        "printf 'ab\\033[7mREV\\033[0m cd \\033[1;31mRB\\033[0m\\n'\r",
    )
    .await;
    let a = mcp
        .read(json!({"id": id, "wait_for_text": "abREV cd RB", "attrs": true, "timeout_ms": 15000}))
        .await;
    assert_eq!(a["matched"], true);
    let text = a["text"].as_str().unwrap();
    let row = text.lines().position(|l| l == "abREV cd RB").unwrap();
    let runs = a["attr_runs"].as_array().unwrap();
    let on_row: Vec<&Value> = runs.iter().filter(|r| r["row"] == row).collect();
    assert_eq!(
        on_row[0],
        &json!({"row": row, "col": 2, "len": 3, "fg": null, "bg": null,
                "reverse": true, "bold": false, "underscore": false})
    );
    assert_eq!(on_row[1]["col"], 9);
    assert_eq!(
        (on_row[1]["fg"].clone(), on_row[1]["bold"].clone()),
        (json!(1), json!(true))
    );
    assert!(mcp.read(json!({"id": id})).await.get("attr_runs").is_none());
    // Scrolled into history, the same runs are reported on that row of a scrollback read.
    mcp.type_text(id, "seq 1 60; echo scrolled-$((1+1))\r")
        .await;
    mcp.wait_text(id, "scrolled-2").await;
    let h = mcp
        .read(json!({"id": id, "view": "scrollback", "lines": 500, "attrs": true}))
        .await;
    let text = h["text"].as_str().unwrap();
    let row = text
        .lines()
        .position(|l| l == "abREV cd RB")
        .expect("row in the answer");
    assert!(row < h["history_lines"].as_u64().unwrap() as usize, "{h}");
    let runs = h["attr_runs"].as_array().unwrap();
    let on_row: Vec<&Value> = runs.iter().filter(|r| r["row"] == row).collect();
    assert_eq!(
        (
            on_row.len(),
            on_row[0]["col"].clone(),
            on_row[0]["reverse"].clone()
        ),
        (2, json!(2), json!(true)),
        "{runs:?}"
    );
}

#[tokio::test]
async fn input_is_verbatim_and_over_256_kib_is_refused_with_nothing_sent() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let big = "y".repeat(256 * 1024 + 1);
    let r = mcp.post("/mcp/input", json!({"id": id, "data": big})).await;
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (413, json!("too_large"))
    );
    let r = mcp.post("/mcp/input", json!({"id": id, "data": 42})).await;
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (400, json!("bad_data"))
    );
    // Multi-byte text and control bytes pass unchanged.
    mcp.type_text(
        id,
        "echo 'é€😀' | od -An -tx1 | tr -d ' \\n'; echo ' =h'ex\r",
    )
    .await;
    let a = mcp.wait_text(id, "=hex").await;
    assert!(
        a["text"]
            .as_str()
            .unwrap()
            .contains("c3a9e282acf09f98800a =hex"),
        "{}",
        a["text"]
    );
    assert!(
        !a["text"].as_str().unwrap().contains("yyyyyyyy"),
        "the refused input reached the shell"
    );
}

#[tokio::test]
async fn keys_follow_decckm_as_a_real_program_sees_them() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let dir = tempfile::tempdir().unwrap();
    let run = script(
        dir.path(),
        "keys.py",
        r#"import os, sys, termios, tty
app = sys.argv[1:] == []
old = termios.tcgetattr(0)
tty.setraw(0)
os.write(1, (b"\x1b[?1h" if app else b"\x1b[?1l") + b"READY-" + (b"APP" if app else b"NORMAL") + b"\r\n")
data = b""
while not data.endswith(b"q"):
    data += os.read(0, 100)
termios.tcsetattr(0, termios.TCSADRAIN, old)
os.write(1, b"\x1b[?1lHEX:" + data.hex().encode() + b":END\r\n")
"#,
    );
    mcp.type_text(id, &run).await;
    let a = mcp.wait_text(id, "READY-APP").await;
    assert_eq!(a["app_cursor"], true, "the relay saw DECCKM");
    let listed = mcp.get("/mcp/terminals").await.json();
    assert_eq!(listed[0]["app_cursor"], true);
    let r = mcp
        .post(
            "/mcp/keys",
            json!({"id": id, "keys": ["Up", "Left", "C-a", "M-x", "S-Tab", "F1", "C-Space", "Enter", "Tab", "q"]}),
        )
        .await;
    let k = r.json();
    assert_eq!(
        (r.status, &k["ok"], &k["sent"]),
        (200, &json!(true), &json!(10)),
        "{k}"
    );
    // Up, Left, F1 as SS3 (DECCKM), S-Tab CSI Z, M-x ESC x: 19 bytes in all.
    assert_eq!(k["bytes"], 19, "{k}");
    assert!(k["seq"].as_u64().is_some_and(|n| n >= 1), "{k}");
    let a = mcp.wait_text(id, ":END").await;
    let text = a["text"].as_str().unwrap();
    let hex = text
        .split("HEX:")
        .nth(1)
        .unwrap()
        .split(":END")
        .next()
        .unwrap();
    assert_eq!(
        hex,
        "1b4f411b4f44011b781b5b5a1b4f5000".to_owned() + "0d0971",
        "{text}"
    );

    // Without DECCKM the same arrow is CSI A; paced with delay_ms.
    mcp.type_text(id, &run.replace('\r', " normal\r")).await;
    mcp.wait_text(id, "READY-NORMAL").await;
    let t0 = Instant::now();
    let r = mcp
        .post(
            "/mcp/keys",
            json!({"id": id, "keys": ["Up", "Down", "q"], "delay_ms": 150}),
        )
        .await;
    assert_eq!(r.json()["sent"], 3);
    assert!(t0.elapsed() >= Duration::from_millis(300));
    let a = mcp.wait_text(id, "1b5b411b5b4271:END").await;
    assert_eq!(a["app_cursor"], false);

    // A bad token anywhere: nothing at all is sent.
    let r = mcp
        .post(
            "/mcp/keys",
            json!({"id": id, "keys": ["e", "c", "h", "o", "NoSuchKey", "Enter"]}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "bad_keys");
    assert!(r.json()["detail"].as_str().unwrap().contains("NoSuchKey"));
    mcp.type_text(id, "echo keys-$((9*9))\r").await;
    let a = mcp.wait_text(id, "keys-81").await;
    assert!(
        !a["text"].as_str().unwrap().contains("echoecho"),
        "{}",
        a["text"]
    );

    // pace_ms is the default delay, clamped.
    let r = mcp
        .post("/mcp/pace", json!({"id": id, "pace_ms": 99999}))
        .await;
    assert_eq!(r.json(), json!({"ok": true, "id": id, "pace_ms": 1000}));
    let r = mcp
        .post("/mcp/pace", json!({"id": id, "pace_ms": "fast"}))
        .await;
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (400, json!("bad_pace"))
    );
    assert_eq!(mcp.get("/mcp/terminals").await.json()[0]["pace_ms"], 1000);
}

#[tokio::test]
async fn read_mode_refuses_every_write_and_nothing_reaches_the_pty() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("read").await;
    let id = relay.ready_session(&mcp).await;
    let before = mcp.read(json!({"id": id})).await;
    for (path, body) in [
        ("/mcp/input", json!({"id": id, "data": "echo leaked-1\r"})),
        (
            "/mcp/keys",
            json!({"id": id, "keys": ["e", "c", "h", "o", " ", "l", "e", "a", "k", "Enter"]}),
        ),
        ("/mcp/reset", json!({"id": id})),
        ("/mcp/flush", json!({"id": id})),
        ("/mcp/pace", json!({"id": id, "pace_ms": 500})),
    ] {
        let r = mcp.post(path, body).await;
        assert_eq!(
            (r.status, r.json()),
            (403, json!({"error": "read_only"})),
            "{path}"
        );
    }
    let after = mcp.read(json!({"id": id})).await;
    assert_eq!(
        after["content_hash"], before["content_hash"],
        "nothing changed the screen"
    );
    assert_eq!(mcp.get("/mcp/terminals").await.json()[0]["pace_ms"], 0);
    relay
        .set_window(json!({"id": id, "mode": "readwrite"}))
        .await;
    mcp.type_text(id, "echo after-$((1+1))\r").await;
    let a = mcp.wait_text(id, "after-2").await;
    assert!(
        !a["text"].as_str().unwrap().contains("leak"),
        "{}",
        a["text"]
    );
}

/// `wait_for_idle` is judged by the core's rule (`agent::wait::verdict`, the page's too): a
/// read that typed nothing counts the quiet before it, so a screen quiet for longer than the
/// period matches even with a timeout shorter than the period; input of the call's own starts
/// the period again.
#[tokio::test]
async fn an_idle_wait_counts_the_quiet_before_a_read_and_not_before_input() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let quiet = mcp
        .read(json!({"id": id, "wait_for_idle": 700, "timeout_ms": 15000}))
        .await;
    assert_eq!(quiet["matched"], true, "{quiet}");
    let a = mcp
        .read(json!({"id": id, "wait_for_idle": 700, "timeout_ms": 50}))
        .await;
    assert_eq!(a["matched"], true, "{a}");
    assert!(a["idle_ms"].as_u64().unwrap() >= 700, "{a}");
    // Typing with the same wait: the quiet before the input does not count.
    let typed = mcp
        .post(
            "/mcp/input",
            json!({"id": id, "data": "x", "wait_for_idle": 700, "timeout_ms": 50}),
        )
        .await;
    assert_eq!(typed.status, 200, "{}", typed.body);
    assert_eq!(typed.json()["matched"], false, "{}", typed.body);
}
#[tokio::test]
async fn reset_clears_the_relays_screen_and_wakes_change_waits() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    mcp.type_text(id, "echo before-$((6*6))\r").await;
    mcp.wait_text(id, "before-36").await;
    // The prompt after the output may still be on its way: start from a quiet screen, or its
    // arrival (not the reset) wakes the waiter (a race CI hit once the relay's emulator was
    // fed behind the pages).
    let a = mcp
        .read(json!({"id": id, "wait_for_idle": 300, "timeout_ms": 5000}))
        .await;
    assert_eq!(a["matched"], true, "{a}");
    let waiter = {
        let mcp = mcp.clone();
        let h = a["content_hash"].clone();
        tokio::spawn(async move {
            mcp.read(json!({"id": id, "wait_for_change": h, "timeout_ms": 15000}))
                .await
        })
    };
    // Let the waiter subscribe first; a reset before it would match at once, which is fine too.
    let r = mcp.post("/mcp/reset", json!({"id": id})).await;
    assert_eq!(r.json(), json!({"ok": true, "id": id}));
    let a = waiter.await.unwrap();
    assert_eq!(a["matched"], true);
    assert!(
        a["text"].as_str().unwrap().trim().is_empty(),
        "{}",
        a["text"]
    );
    // The program got nothing and goes on.
    mcp.type_text(id, "echo after-reset-$((2*2))\r").await;
    let a = mcp.wait_text(id, "after-reset-4").await;
    assert!(!a["text"].as_str().unwrap().contains("before-36"));
}

#[tokio::test]
async fn flush_discards_input_the_program_has_not_read() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    mcp.type_text(
        id,
        "echo sleeping-$((1)); sleep 2; read -r line; echo \"got\"\":$line:\"\r",
    )
    .await;
    mcp.wait_text(id, "sleeping-1").await;
    mcp.type_text(id, "typed-ahead\r").await;
    let r = mcp.post("/mcp/flush", json!({"id": id})).await;
    assert_eq!(r.json(), json!({"ok": true, "id": id}));
    mcp.type_text(id, "fresh\r").await;
    let a = mcp.wait_text(id, "got:").await;
    let text = a["text"].as_str().unwrap();
    assert!(text.contains("got:fresh:"), "{text}");
    assert!(!text.contains("got:typed-ahead"), "{text}");
}

const PROFILES: &str = r#"
default_profile = "sh"
[profiles.sh]
command = ["/bin/bash", "--norc", "--noprofile"]
env = { PS1 = "$ " }
[profiles.echoer]
command = ["/bin/sh", "-c", "echo launched-in-$PWD-$PROFILE_VAR; exec cat"]
cwd = "/tmp"
env = { PROFILE_VAR = "x1" }
"#;

async fn launch_relay() -> (Relay, Mcp, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, PROFILES).unwrap();
    let relay = Relay::start_with(Options {
        args: vec!["--config".into(), config.display().to_string()],
        env: vec![("WEB_TERMINAL_MCP_ADMIN_TOKEN".into(), ADMIN.into())],
        ..Options::default()
    })
    .await;
    let mcp = relay.enable_mcp("off").await;
    (relay, mcp, dir)
}

fn err(r: &crate::support::HttpResponse) -> (u16, Value) {
    (r.status, r.json()["error"].clone())
}

#[tokio::test]
async fn launch_validates_in_order_and_tags_scope_and_mode() {
    let (relay, mcp, dir) = launch_relay().await;
    assert_eq!(
        mcp.get("/mcp/profiles").await.json(),
        json!({"default": "sh", "profiles": ["echoer", "sh"]})
    );
    let r = mcp.call("POST", "/mcp/launch", "[not json").await;
    assert_eq!(err(&r), (403, json!("launch_disabled")));
    let r = mcp
        .admin(ADMIN)
        .post("/mcp/knobs", json!({"allow_launch": true}))
        .await;
    assert_eq!(
        r.json(),
        json!({"ok": true, "default_mode": "off", "allow_launch": true})
    );

    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let file = file.display().to_string();
    for (body, want) in [
        ("[]".to_owned(), (400, "bad_json")),
        ("{".to_owned(), (400, "bad_json")),
        (json!({"profile": 5}).to_string(), (400, "bad_request")),
        (
            json!({"cols": 0, "mode": "x"}).to_string(),
            (400, "bad_dims"),
        ),
        (json!({"rows": 1001}).to_string(), (400, "bad_dims")),
        (json!({"cols": "80"}).to_string(), (400, "bad_dims")),
        (
            json!({"mode": "write", "cwd": "/no/such"}).to_string(),
            (400, "bad_mode"),
        ),
        (
            json!({"cwd": "/no/such", "profile": "nope"}).to_string(),
            (400, "bad_cwd"),
        ),
        (json!({"cwd": "relative"}).to_string(), (400, "bad_cwd")),
        (
            json!({"cwd": file, "profile": "nope"}).to_string(),
            (400, "cwd_not_dir"),
        ),
        (
            json!({"profile": "nope"}).to_string(),
            (400, "unknown_profile"),
        ),
    ] {
        let r = mcp.call("POST", "/mcp/launch", &body).await;
        assert_eq!(err(&r), (want.0, json!(want.1)), "{body}");
    }
    assert!(
        mcp.admin(ADMIN).ids().await.is_empty(),
        "a refused launch started nothing"
    );

    // Unscoped launch of a profile: its cwd and env, kind, title, size; readwrite by default
    // although the relay's default mode is off.
    let r = mcp
        .post(
            "/mcp/launch",
            json!({"profile": "echoer", "cols": 100, "rows": 30, "title": "my-launch"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let a = r.json();
    assert_eq!(
        (a["ok"].clone(), a["registered"].clone(), a["mode"].clone()),
        (json!(true), json!(true), json!("readwrite"))
    );
    assert!(a.get("scope").is_none(), "{a}");
    assert!(a["pid"].as_u64().unwrap() > 1);
    assert!(a["handle"].as_str().unwrap().len() >= 32);
    let echoer = a["id"].as_u64().unwrap();
    mcp.wait_text(echoer, "launched-in-/tmp-x1").await;
    let row = mcp.get("/mcp/terminals").await.json()[0].clone();
    assert_eq!(
        (
            row["kind"].clone(),
            row["title"].clone(),
            row["cols"].clone(),
            row["rows"].clone()
        ),
        (json!("echoer"), json!("my-launch"), json!(100), json!(30))
    );
    assert!(
        !relay.log().contains(a["handle"].as_str().unwrap()),
        "the handle reached the log"
    );

    // A scoped caller's launch is tagged with its scope.
    let team_a = mcp.scoped("team-a");
    let cwd = dir.path().display().to_string();
    let r = team_a
        .post("/mcp/launch", json!({"cwd": cwd, "mode": "read"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let b = r.json();
    assert_eq!(
        (b["scope"].clone(), b["mode"].clone()),
        (json!("team-a"), json!("read"))
    );
    let shell = b["id"].as_u64().unwrap();
    team_a.wait_text(shell, "$").await;
    assert_eq!(team_a.ids().await, vec![shell]);
    assert_eq!(mcp.scoped("team-b").ids().await, Vec::<u64>::new());
    assert_eq!(mcp.ids().await, vec![echoer, shell]);
    let r = team_a
        .post("/mcp/input", json!({"id": shell, "data": "x"}))
        .await;
    assert_eq!(err(&r), (403, json!("read_only")));
}

#[tokio::test]
async fn the_launch_handle_lets_its_holder_change_the_window_until_the_page_takes_it() {
    let (relay, mcp, _dir) = launch_relay().await;
    mcp.admin(ADMIN)
        .post("/mcp/knobs", json!({"allow_launch": true}))
        .await;
    let team_a = mcp.scoped("team-a");
    let team_b = mcp.scoped("team-b");
    let a = team_a
        .post("/mcp/launch", json!({"mode": "read"}))
        .await
        .json();
    let id = a["id"].as_u64().unwrap();
    let handle = a["handle"].as_str().unwrap().to_owned();

    // Others cannot: 404 when they cannot see the window, 403 when they can.
    for (who, body, want) in [
        (
            &team_b,
            json!({"id": id, "mode": "readwrite"}),
            (404, "unknown_or_off"),
        ),
        (
            &team_b,
            json!({"id": id, "handle": "wrong", "mode": "readwrite"}),
            (404, "unknown_or_off"),
        ),
        (
            &team_a,
            json!({"id": id, "mode": "readwrite"}),
            (403, "admin_required"),
        ),
        (
            &mcp,
            json!({"id": id, "handle": handle.clone() + "x", "scope": "x"}),
            (403, "admin_required"),
        ),
    ] {
        let r = who.post("/mcp/window", body.clone()).await;
        assert_eq!(err(&r), (want.0, json!(want.1)), "{body}");
    }
    // The owner can, from any scope, even while the window is off.
    let r = team_b
        .post(
            "/mcp/window",
            json!({"id": id, "handle": handle, "mode": "off"}),
        )
        .await;
    assert_eq!(
        r.json(),
        json!({"ok": true, "id": id, "scope": "team-a", "mode": "off", "effective_mode": "off", "redact": true, "secret_input": false})
    );
    assert!(team_a.ids().await.is_empty());
    let r = team_b
        .post(
            "/mcp/window",
            json!({"id": id, "handle": handle, "scope": "team-b", "mode": "readwrite"}),
        )
        .await;
    assert_eq!(r.json()["scope"], "team-b");
    assert_eq!(team_b.ids().await, vec![id]);
    team_b.wait_text(id, "$").await;
    let r = team_b
        .post(
            "/mcp/window",
            json!({"id": id, "handle": handle, "clear_scope": true, "clear_mode": true}),
        )
        .await;
    assert_eq!(
        r.json(),
        json!({"ok": true, "id": id, "scope": null, "mode": null, "effective_mode": "off", "redact": true, "secret_input": false})
    );
    for (body, want) in [
        (
            json!({"id": id, "handle": handle, "scope": "bad scope"}),
            "bad_scope",
        ),
        (
            json!({"id": id, "handle": handle, "mode": "rw"}),
            "bad_mode",
        ),
        (
            json!({"id": id, "handle": handle, "mode": "read", "clear_mode": true}),
            "bad_request",
        ),
    ] {
        assert_eq!(
            err(&mcp.post("/mcp/window", body.clone()).await),
            (400, json!(want)),
            "{body}"
        );
    }
    team_b
        .post(
            "/mcp/window",
            json!({"id": id, "handle": handle, "mode": "read"}),
        )
        .await;

    // An edit from the page takes ownership away.
    let page = relay.set_window(json!({"id": id, "scope": "team-c"})).await;
    assert_eq!(
        page,
        json!({"ok": true, "id": id, "mode": "read", "scope": "team-c", "effective_mode": "read", "redact": true, "secret_input": false})
    );
    let r = mcp
        .scoped("team-c")
        .post(
            "/mcp/window",
            json!({"id": id, "handle": handle, "mode": "readwrite"}),
        )
        .await;
    assert_eq!(err(&r), (403, json!("admin_required")));
    let r = team_b
        .post(
            "/mcp/window",
            json!({"id": id, "handle": handle, "mode": "readwrite"}),
        )
        .await;
    assert_eq!(err(&r), (404, json!("unknown_or_off")));
    // The admin can, without a handle.
    let r = mcp
        .admin(ADMIN)
        .post("/mcp/window", json!({"id": id, "mode": "readwrite"}))
        .await;
    assert_eq!(r.json()["mode"], "readwrite");
}

#[tokio::test]
async fn scoped_listing_and_the_admin_view() {
    let relay = Relay::start_with(Options {
        env: vec![("WEB_TERMINAL_MCP_ADMIN_TOKEN".into(), ADMIN.into())],
        ..Options::default()
    })
    .await;
    let mcp = relay.enable_mcp("read").await;
    let plain = relay.new_session().await;
    let off = relay.new_session().await;
    let tagged = relay.new_session().await;
    relay.set_window(json!({"id": off, "mode": "off"})).await;
    relay
        .set_window(json!({"id": tagged, "scope": "team-a", "mode": "read"}))
        .await;
    assert_eq!(mcp.ids().await, vec![plain, tagged]);
    assert_eq!(mcp.scoped("team-a").ids().await, vec![tagged]);
    assert_eq!(mcp.scoped("team-z").ids().await, Vec::<u64>::new());
    let admin = mcp.admin(ADMIN);
    assert_eq!(admin.ids().await, vec![plain, off, tagged]);
    assert_eq!(admin.scoped("team-z").ids().await, vec![plain, off, tagged]);
    assert_eq!(admin.get("/mcp/info").await.json()["admin"], true);
    let listed = admin.get("/mcp/terminals").await.json();
    assert_eq!(listed[1]["mode"], "off");
    // Seeing an off window is not reading it.
    let r = admin.post("/mcp/read", json!({"id": off})).await;
    assert_eq!(err(&r), (404, json!("unknown_or_off")));
    let r = admin
        .scoped("team-z")
        .post("/mcp/read", json!({"id": tagged}))
        .await;
    assert_eq!(r.status, 200);

    // Knobs: admin only; never tokens or enabled.
    let token_before = relay.get("/mcp/config").await.json()["token"].clone();
    let r = mcp.post("/mcp/knobs", json!({"default_mode": "off"})).await;
    assert_eq!(err(&r), (403, json!("admin_required")));
    // Asking knobs for tokens or `enabled` is refused whole, naming the field: nothing changes.
    let mode_before = mcp.get("/mcp/info").await.json()["default_mode"].clone();
    let r = admin
        .post(
            "/mcp/knobs",
            json!({"default_mode": "off", "allow_launch": true, "enabled": false, "token": null}),
        )
        .await;
    assert_eq!(err(&r), (400, json!("bad_request")));
    assert!(r.json()["detail"].as_str().unwrap().contains("\"enabled\""));
    assert_eq!(
        mcp.get("/mcp/info").await.json()["default_mode"],
        mode_before
    );
    let r = admin
        .post(
            "/mcp/knobs",
            json!({"default_mode": "off", "allow_launch": true}),
        )
        .await;
    assert_eq!(
        r.json(),
        json!({"ok": true, "default_mode": "off", "allow_launch": true})
    );
    let cfg = relay.get("/mcp/config").await.json();
    assert_eq!(
        (cfg["enabled"].clone(), cfg["token"].clone()),
        (json!(true), token_before)
    );
    assert_eq!(mcp.ids().await, vec![tagged], "plain now inherits off");
    assert_eq!(
        err(&admin
            .post("/mcp/knobs", json!({"default_mode": "on"}))
            .await),
        (400, json!("bad_mode"))
    );
    assert_eq!(
        err(&admin
            .post("/mcp/knobs", json!({"allow_launch": "yes"}))
            .await),
        (400, json!("bad_request"))
    );
}

#[tokio::test]
async fn mcp_config_mints_rotates_and_clears_tokens() {
    let relay = Relay::start().await;
    let cfg = relay.get("/mcp/config").await;
    assert_eq!(cfg.status, 200);
    let cfg = cfg.json();
    assert_eq!(
        (
            cfg["enabled"].clone(),
            cfg["token"].clone(),
            cfg["admin_token"].clone(),
            cfg["default_mode"].clone(),
            cfg["allow_launch"].clone(),
            cfg["token_env_pinned"].clone()
        ),
        (
            json!(false),
            json!(null),
            json!(null),
            json!("off"),
            json!(false),
            json!(false)
        )
    );
    assert_eq!(cfg["known_scopes"], json!([]));
    assert_eq!(cfg["local_url"], relay.origin());
    let r = crate::support::http(relay.port, "GET", "/mcp/config", &[], "").await;
    assert_eq!(r.status, 401, "the page token is needed");

    let mcp = relay.enable_mcp("read").await;
    let rotated = relay
        .post("/mcp/config", r#"{"generate": true}"#)
        .await
        .json();
    assert_ne!(rotated["token"].as_str().unwrap(), mcp.token);
    assert_eq!(
        err(&mcp.get("/mcp/info").await),
        (401, json!("auth_required")),
        "the old token is gone"
    );
    let admin = relay
        .post("/mcp/config", r#"{"generate_admin": true}"#)
        .await
        .json();
    let admin_token = admin["admin_token"].as_str().unwrap().to_owned();
    let current = Mcp {
        token: rotated["token"].as_str().unwrap().to_owned(),
        ..mcp.clone()
    };
    assert_eq!(
        current.admin(&admin_token).get("/mcp/info").await.json()["admin"],
        true
    );
    relay.post("/mcp/config", r#"{"admin_token": null}"#).await;
    assert_eq!(
        err(&current.admin(&admin_token).get("/mcp/info").await),
        (403, json!("admin_required"))
    );
    for (body, want) in [
        (r#"{"enabled": "yes"}"#, (400, "bad_request")),
        (r#"{"default_mode": "all"}"#, (400, "bad_mode")),
        (r#"{"token": "has space"}"#, (400, "bad_request")),
        (r#"{"token": "short"}"#, (400, "bad_request")),
        (r#"{"generate": true, "token": "x"}"#, (400, "bad_request")),
        ("[]", (400, "bad_json")),
    ] {
        let r = relay.post("/mcp/config", body).await;
        assert_eq!(err(&r), (want.0, json!(want.1)), "{body}");
    }
    // Nothing half-applied: a refused body changed nothing.
    let r = relay
        .post(
            "/mcp/config",
            r#"{"enabled": false, "default_mode": "all"}"#,
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(relay.get("/mcp/config").await.json()["enabled"], true);
    let file = std::fs::read_to_string(relay.state_dir.join("webterm_mcp.json")).unwrap();
    assert!(file.contains(rotated["token"].as_str().unwrap()));
    assert!(
        !relay.log().contains(rotated["token"].as_str().unwrap()),
        "a token reached the log"
    );
}

#[tokio::test]
async fn env_tokens_are_pinned_and_never_written() {
    let relay = Relay::start_with(Options {
        env: vec![
            ("WEB_TERMINAL_MCP_TOKEN".into(), "env-mcp-token".into()),
            (
                "WEB_TERMINAL_MCP_ADMIN_TOKEN".into(),
                "env-admin-token".into(),
            ),
        ],
        ..Options::default()
    })
    .await;
    relay
        .post(
            "/mcp/config",
            r#"{"enabled": true, "default_mode": "read"}"#,
        )
        .await;
    let cfg = relay.get("/mcp/config").await.json();
    assert_eq!(cfg["token"], "env-mcp-token");
    assert_eq!(cfg["token_env_pinned"], true);
    assert_eq!(cfg["admin_token_env_pinned"], true);
    for body in [
        r#"{"generate": true}"#,
        r#"{"token": null}"#,
        r#"{"admin_token": "long-enough-admin-token"}"#,
    ] {
        assert_eq!(
            err(&relay.post("/mcp/config", body).await),
            (409, json!("token_env_pinned")),
            "{body}"
        );
    }
    let file = std::fs::read_to_string(relay.state_dir.join("webterm_mcp.json")).unwrap();
    assert!(
        !file.contains("env-mcp-token") && !file.contains("env-admin-token"),
        "{file}"
    );
    let mcp = Mcp {
        port: relay.port,
        token: "env-mcp-token".into(),
        scope: None,
        admin: None,
    };
    assert_eq!(
        mcp.admin("env-admin-token").get("/mcp/info").await.json()["admin"],
        true
    );
}

/// Where the contract is silent the relay refuses rather than ignores: a misspelt field is an
/// error naming it (not a read that silently did not wait), nothing is applied, and bare codes
/// carry a detail saying what is accepted.
#[tokio::test]
async fn unknown_fields_and_empty_waits_are_refused_with_nothing_applied() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;

    let t0 = Instant::now();
    let r = mcp
        .post(
            "/mcp/read",
            json!({"id": id, "wait_for_txt": "zzz", "timeout_ms": 2000}),
        )
        .await;
    assert_eq!((r.status, &r.json()["error"]), (400, &json!("bad_request")));
    let detail = r.json()["detail"].as_str().unwrap().to_owned();
    assert!(
        detail.contains("\"wait_for_txt\"") && detail.contains("wait_for_text"),
        "{detail}"
    );
    assert!(
        t0.elapsed() < Duration::from_millis(1500),
        "refused at once, no wait"
    );

    let r = mcp
        .post("/mcp/read", json!({"id": id, "wait_for_text": ""}))
        .await;
    assert_eq!((r.status, &r.json()["error"]), (400, &json!("bad_request")));
    assert!(r.json()["detail"].as_str().unwrap().contains("non-empty"));

    for (route, body) in [
        ("/mcp/input", json!({"id": id, "text": "echo lost\r"})),
        ("/mcp/keys", json!({"id": id, "keys": ["x"], "delay": 5})),
        ("/mcp/pace", json!({"id": id, "pace_ms": 5, "ms": 5})),
        ("/mcp/reset", json!({"id": id, "hard": true})),
        ("/mcp/flush", json!({"id": id, "all": true})),
    ] {
        let r = mcp.post(route, body).await;
        assert_eq!(r.status, 400, "{route}");
        assert!(
            matches!(r.json()["error"].as_str(), Some("bad_request" | "bad_data")),
            "{route}: {}",
            r.json()
        );
        assert!(
            r.json()["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "{route}"
        );
    }
    // The refused keys and input reached nothing; the pace is unchanged.
    mcp.type_text(id, "echo unknown-$((6*7))\r").await;
    let a = mcp.wait_text(id, "unknown-42").await;
    assert!(!a["text"].as_str().unwrap().contains("lost"));
    assert!(!a["text"].as_str().unwrap().contains("xecho"));

    // A bare code says what is accepted.
    let r = mcp.post("/mcp/read", json!({"window": id})).await;
    assert_eq!((r.status, &r.json()["error"]), (400, &json!("bad_id")));
    assert!(r.json()["detail"].as_str().unwrap().contains("id must be"));

    // The page's settings: a misspelt switch changes nothing.
    let r = relay
        .post("/mcp/config", r#"{"enable": false, "allow_launch": true}"#)
        .await;
    assert_eq!((r.status, &r.json()["error"]), (400, &json!("bad_request")));
    let config = relay.get("/mcp/config").await.json();
    assert_eq!(
        (&config["enabled"], &config["allow_launch"]),
        (&json!(true), &json!(false))
    );
}

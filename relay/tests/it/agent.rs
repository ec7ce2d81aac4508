//! Agents seen and stopped by a person: the `{"type":"agent"}` frame that tells a
//! window's pages an MCP client read or wrote it, its rate limit for reads, and what calls in
//! flight do when the person takes the window back (`/session/mcp` mode change).

use std::time::{Duration, Instant};

use serde_json::json;
use wterm_relay::ground::limits::AGENT_READ_NOTICE_MS;

use crate::support::{Relay, WAIT};

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Asserts `frame` is an agent frame of `kind` and `tool` stamped between `from` and now, with
/// `by` naming the caller, and nothing else in it (no screen text or secret).
fn assert_agent(frame: &serde_json::Value, kind: &str, tool: &str, from: u64) {
    let keys: Vec<&str> = frame
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys.len(), 5, "{frame}");
    assert_eq!(frame["type"], "agent", "{frame}");
    // Who: a route caller named by its scope (the issue's authors), no token.
    assert_eq!(frame["by"]["kind"], "route_caller", "{frame}");
    assert_eq!(frame["kind"], kind, "{frame}");
    assert_eq!(frame["tool"], tool, "{frame}");
    let at = frame["at"].as_u64().unwrap();
    assert!(
        at >= from && at <= now_ms(),
        "at {at} not in {from}..now: {frame}"
    );
}

#[tokio::test]
async fn mcp_reads_and_writes_are_told_to_the_attached_pages() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let mut page = relay.attach(Some(id)).await;
    page.expect_attach().await;
    let mut second = relay.attach(Some(id)).await;
    second.expect_attach().await;

    let t0 = now_ms();
    mcp.type_text(id, "echo told-$((40+2))\r").await;
    let frame = page.wait_text("agent").await;
    assert_agent(&frame, "write", "send_input", t0);
    // Every attached page is told.
    assert_agent(&second.wait_text("agent").await, "write", "send_input", t0);
    page.wait_output(b"told-42", WAIT).await;

    // A polling agent: two reads in a row are told once ...
    let t1 = now_ms();
    mcp.read(json!({"id": id})).await;
    mcp.read(json!({"id": id})).await;
    // ... a refused write (bad data) is not told at all ...
    let bad = mcp.post("/mcp/input", json!({"id": id, "data": 5})).await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    // ... and the next frame after the read is this write: nothing came between.
    let r = mcp
        .post("/mcp/keys", json!({"id": id, "keys": ["x", "BS"]}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_agent(&page.wait_text("agent").await, "read", "read_screen", t1);
    assert_agent(&page.wait_text("agent").await, "write", "send_keys", t1);
    assert!(
        page.texts.iter().all(|t| t["type"] != "agent"),
        "{:?}",
        page.texts
    );

    // Once the limit has passed, a read is told again.
    tokio::time::sleep(Duration::from_millis(AGENT_READ_NOTICE_MS + 50)).await;
    let t2 = now_ms();
    mcp.read(json!({"id": id})).await;
    assert_agent(&page.wait_text("agent").await, "read", "read_screen", t2);

    // A window-less operation (list) tells nobody; the page's own input is no agent's.
    mcp.ids().await;
    page.send_input(b"echo mine-$((1+1))\r").await;
    page.wait_output(b"mine-2", WAIT).await;
    assert!(
        page.texts.iter().all(|t| t["type"] != "agent"),
        "{:?}",
        page.texts
    );
}

#[tokio::test]
async fn a_waiting_read_ends_with_the_refusal_when_the_person_turns_the_window_off() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let waiter = tokio::spawn({
        let mcp = mcp.clone();
        async move {
            let start = Instant::now();
            let r = mcp
                .post(
                    "/mcp/read",
                    json!({"id": id, "wait_for_text": "never-on-screen", "timeout_ms": 15000}),
                )
                .await;
            (r, start.elapsed())
        }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Dropping to `read` leaves a read alone ...
    relay.set_window(json!({"id": id, "mode": "read"})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !waiter.is_finished(),
        "a read-mode window may still be read"
    );
    // ... `off` ends it with what a new call gets.
    let off_at = Instant::now();
    relay.set_window(json!({"id": id, "mode": "off"})).await;
    let (r, _) = tokio::time::timeout(WAIT, waiter).await.unwrap().unwrap();
    let ended_after = off_at.elapsed();
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(r.json(), json!({"error": "unknown_or_off"}));
    assert!(
        ended_after < Duration::from_secs(2),
        "the wait ended {ended_after:?} after the window went off"
    );
}

#[tokio::test]
async fn paced_keys_stop_between_keys_when_the_window_turns_read_only() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let keys = ["a", "b", "c", "d", "e", "f", "g", "h"];
    let sender = tokio::spawn({
        let mcp = mcp.clone();
        async move {
            mcp.post(
                "/mcp/keys",
                json!({"id": id, "keys": keys, "delay_ms": 300, "wait_for_idle": 100}),
            )
            .await
        }
    });
    tokio::time::sleep(Duration::from_millis(700)).await;
    relay.set_window(json!({"id": id, "mode": "read"})).await;
    let r = tokio::time::timeout(WAIT, sender).await.unwrap().unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    assert_eq!(answer["stopped"], "read_only", "{answer}");
    let sent = answer["sent"].as_u64().unwrap();
    assert!(
        (1..keys.len() as u64).contains(&sent),
        "sent {sent} of {}: {answer}",
        keys.len()
    );
    // No read after it: the answer is the keys' alone.
    assert!(answer.get("text").is_none(), "{answer}");
    // What reached the line is exactly the keys it counted.
    let typed: String = keys[..sent as usize].concat();
    let screen = mcp.read(json!({"id": id})).await;
    let text = screen["text"].as_str().unwrap();
    assert!(text.contains(&format!("$ {typed}")), "{text}");
    assert!(
        !text.contains(&format!("$ {}", keys[..sent as usize + 1].concat())),
        "{text}"
    );
    let refused = mcp.post("/mcp/input", json!({"id": id, "data": "x"})).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(refused.json(), json!({"error": "read_only"}));
}

//! Large reads are bounded: `/mcp/read` answers that count more than
//! `READ_FREE_CELLS` cells share `READ_CELLS_IN_FLIGHT`; past it a read queues, and one that
//! cannot start within `READ_QUEUE_WAIT_MS` is refused with `429 reads_busy`, nothing read.
//! Screen-sized reads never queue.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{HttpResponse, Mcp, Relay};

/// Columns of the test's window: 200 x (10000 history + 50 screen rows) is about 2.0 M cells a
/// read, so two fit in the 4 Mi cells in flight and a third queues.
const COLS: u64 = 200;

/// A relay with MCP on, one 200x50 window whose history holds 10000 full rows.
async fn filled() -> (Relay, Mcp, u64) {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let r = relay
        .post("/sessions", &json!({"cols": COLS, "rows": 50}).to_string())
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.json()["id"].as_u64().unwrap();
    mcp.wait_text(id, "$").await;
    mcp.type_text(
        id,
        "yes \"$(printf '%0190d' 7)\" | head -n 12000; echo FILL''ED\r",
    )
    .await;
    mcp.wait_text(id, "FILLED").await;
    (relay, mcp, id)
}

fn big(id: u64) -> Value {
    json!({"id": id, "view": "scrollback", "lines": 10000})
}

/// The answer's JSON; a failure names the status, the error and the body's first bytes only
/// (an answer is megabytes).
fn parse(r: &HttpResponse) -> Value {
    serde_json::from_str(&r.body).unwrap_or_else(|e| {
        panic!(
            "{} {:?}: {e}: {} bytes: {:?}",
            r.status,
            r.headers,
            r.body.len(),
            r.body.chars().take(300).collect::<String>()
        )
    })
}

/// `(VmRSS, VmHWM)` of `pid` in bytes.
fn rss(pid: i32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no {name} in /proc/{pid}/status"))
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Peak RSS growth of the relay while `n` large reads run at once, and how many answered:
/// every one answers whole or, having queued past `READ_QUEUE_WAIT_MS` (a slow machine), is
/// refused `429 reads_busy`; nothing else.
async fn peak_growth(relay: &Relay, mcp: &Mcp, id: u64, n: usize) -> (u64, usize) {
    let pid = relay.pid();
    // Resets VmHWM to the current RSS (proc(5), clear_refs "5").
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
    let (base, _) = rss(pid);
    let reads = (0..n).map(|_| {
        let mcp = mcp.clone();
        tokio::spawn(async move { mcp.post("/mcp/read", big(id)).await })
    });
    let mut answered = 0;
    for r in futures_util::future::join_all(reads).await {
        let r = r.unwrap();
        let a = parse(&r);
        if r.status == 429 {
            assert_eq!(a["error"], "reads_busy", "{a}");
            continue;
        }
        assert_eq!(r.status, 200, "{}", a["error"]);
        assert_eq!(a["history_lines"], 10000, "{}", a["history_lines"]);
        assert_eq!(a["view"], "scrollback");
        answered += 1;
    }
    (rss(pid).1.saturating_sub(base), answered)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_large_reads_at_once_queue_within_the_bound() {
    let (relay, mcp, id) = filled().await;
    // Warm: the first read builds the frame cache and the allocator's arenas.
    peak_growth(&relay, &mcp, id, 2).await;
    let (one, _) = peak_growth(&relay, &mcp, id, 1).await;
    let one = one.max(4 << 20);
    let (twenty, answered) = peak_growth(&relay, &mcp, id, 20).await;
    eprintln!(
        "peak RSS growth: one read {} MiB, twenty at once {} MiB ({answered} answered, the \
         rest queued past the wait)",
        one >> 20,
        twenty >> 20
    );
    // Two run at a time and the rest queue, so at least the first two answer; without the
    // bound twenty hold about twenty answers at once.
    assert!(answered >= 2, "{answered}");
    assert!(
        twenty < 6 * one,
        "twenty reads grew the relay by {twenty} bytes, one by {one}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_read_that_cannot_start_in_time_is_refused_and_small_reads_pass() {
    let (_relay, mcp, id) = filled().await;
    // Two large reads that wait (for text that never comes) hold the cells in flight.
    let held: Vec<_> = (0..2)
        .map(|_| {
            let mcp = mcp.clone();
            let mut body = big(id);
            body["wait_for_text"] = json!("NEVER-SHOWN");
            body["timeout_ms"] = json!(14000);
            tokio::spawn(async move { mcp.post("/mcp/read", body).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    // A screen read does not count against the bound.
    let small = parse(&mcp.post("/mcp/read", json!({"id": id})).await);
    assert_eq!(small["view"], "screen");
    assert!(
        held.iter().all(|h| !h.is_finished()),
        "the held reads ended early"
    );
    // A third large read queues, then is refused with the figures; nothing read.
    let r = mcp.post("/mcp/read", big(id)).await;
    let body = parse(&r);
    assert_eq!(r.status, 429, "{}", body["error"]);
    assert_eq!(body["error"], "reads_busy", "{body}");
    let detail = body["detail"].as_str().unwrap();
    assert!(
        detail.contains("cells") && detail.contains("lines"),
        "{detail}"
    );
    assert!(body.get("text").is_none());
    for h in held {
        let r = h.await.unwrap();
        let a = parse(&r);
        assert_eq!(r.status, 200, "{}", a["error"]);
        assert_eq!(a["matched"], false);
    }
    // Room again: the same read answers.
    let r = mcp.post("/mcp/read", big(id)).await;
    assert_eq!(parse(&r)["history_lines"], 10000, "{}", r.status);
}

/// Sends `POST /mcp/read` for a large answer over a raw connection; then reads it in steps of
/// `step` bytes, sleeping `pause` between them. Returns (Content-Length, bytes of body got).
async fn read_slowly(mcp: &Mcp, id: u64, step: usize, pause: Duration) -> (usize, usize) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = big(id).to_string();
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", mcp.port))
        .await
        .unwrap();
    let req = format!(
        "POST /mcp/read HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        mcp.port,
        mcp.token,
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = vec![0; step];
    loop {
        tokio::time::sleep(pause).await;
        let mut n_step = 0;
        while n_step < step {
            match s.read(&mut buf[..step - n_step]).await {
                Ok(0) | Err(_) => {
                    return split(&got);
                }
                Ok(n) => {
                    got.extend_from_slice(&buf[..n]);
                    n_step += n;
                }
            }
        }
    }
}

/// (Content-Length, body bytes) of a raw response.
fn split(raw: &[u8]) -> (usize, usize) {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").expect("a response head");
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("a content-length");
    (length, body.len())
}

/// Regression: a large answer was handed to hyper whole, the connection then counted as idle
/// although its bytes were still being written, and closed 5 s later mid-answer (a client
/// reading 1.9 MB at 256 KiB a second got a third of it). A peer that stops reading is still
/// closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_gets_the_whole_answer_and_a_stopped_one_is_closed() {
    let (_relay, mcp, id) = filled().await;
    let (length, got) = read_slowly(&mcp, id, 256 * 1024, Duration::from_secs(1)).await;
    assert!(length > 1_500_000, "{length}");
    assert_eq!(got, length, "the answer was cut");
    // Reads nothing for 15 s (past the 10 s send stall timeout), then everything it can.
    let (length, got) = read_slowly(&mcp, id, 4 << 20, Duration::from_secs(15)).await;
    assert!(
        got < length,
        "a peer that stopped reading kept its connection"
    );
}

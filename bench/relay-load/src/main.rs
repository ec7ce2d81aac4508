//! `relay-load`: a bounded load test of wterm-relay's broker routes, on loopback only.
//!
//! Usage: `cargo run --release -p relay-load [-- --relay PATH]` (without `--relay` it builds
//! and uses `target/release/wterm-relay` of this workspace).
//!
//! What it does, then prints:
//! - starts a relay (temporary state and home, MCP on with a pinned token) and 50 sessions;
//! - floods session 1 with `yes` for the whole run;
//! - starts 200 concurrent `/mcp/read` `wait_for_text` requests spread over the sessions (those
//!   on the flooded session wait for the flood's own text; the others for a marker typed only
//!   after every wait is in flight);
//! - meanwhile reads an unrelated idle session over and over, one request at a time, and
//!   records each answer's latency: p50 / p99 / max (target p99 < 50 ms);
//! - checks that every wait returned `matched: true` with its text on screen.
//!
//! It stops by itself: every wait has the relay's 15 s timeout, the whole run is bounded by
//! [`RUN_LIMIT`], and the relay is terminated at the end. Exit code 1 when a wait failed or the
//! p99 target was missed.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// Sessions started.
const SESSIONS: usize = 50;
/// Concurrent `wait_for_text` reads.
const WAITERS: usize = 200;
/// The longest the whole run may take.
const RUN_LIMIT: Duration = Duration::from_secs(120);
/// How long the latency probe reads while every wait is in flight, before the markers are
/// typed.
const PROBE_BEFORE_MARKERS: Duration = Duration::from_secs(3);
/// The p99 target of an unrelated read under this load.
const P99_TARGET: Duration = Duration::from_millis(50);
/// The MCP token the relay is started with.
const MCP_TOKEN: &str = "relay-load-mcp-token";
/// The page token the relay is started with.
const PAGE_TOKEN: &str = "relay-load-page-token";

fn die(msg: &str) -> ! {
    eprintln!("relay-load: {msg}");
    std::process::exit(2)
}

fn relay_path() -> PathBuf {
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (Some("--relay"), Some(p)) => PathBuf::from(p),
        (None, _) => {
            let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
            let status = std::process::Command::new(
                std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()),
            )
            .args(["build", "--release", "--quiet", "-p", "wterm-relay"])
            .current_dir(&root)
            .status()
            .unwrap_or_else(|e| die(&format!("cannot run cargo: {e}")));
            if !status.success() {
                die("building wterm-relay failed");
            }
            root.join("target/release/wterm-relay")
        }
        _ => die("usage: relay-load [--relay PATH]"),
    }
}

struct Relay {
    port: u16,
    child: Child,
    dir: PathBuf,
}

async fn start_relay(bin: &PathBuf) -> Relay {
    let dir = std::env::temp_dir().join(format!("relay-load-{}", std::process::id()));
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".bashrc"), "PS1='$ '\nunset PROMPT_COMMAND\n").unwrap();
    let mut child = Command::new(bin)
        .args(["--port", "0", "--state-dir"])
        .arg(dir.join("state"))
        // The relay's own connection handling is measured here; sessions are its children
        // (not held past it, the default) so a killed bench leaves no shells.
        .arg("--no-persist")
        .env("HOME", &home)
        .env("SHELL", "/bin/bash")
        .env("WEB_TERMINAL_TOKEN", PAGE_TOKEN)
        .env("WEB_TERMINAL_MCP_TOKEN", MCP_TOKEN)
        .env("RUST_LOG", "warn")
        .current_dir(&home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| die(&format!("cannot start {}: {e}", bin.display())));
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .ok()
        .and_then(|l| l.ok().flatten())
        .unwrap_or_else(|| die("the relay printed no URL"));
    let port = line
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| die(&format!("unexpected first line {line:?}")));
    Relay { port, child, dir }
}

/// One HTTP/1.1 request on a fresh loopback connection; returns status and JSON body.
async fn http(port: u16, method: &str, path: &str, token: &str, body: &Value) -> (u16, Value) {
    let body = if method == "GET" {
        String::new()
    } else {
        body.to_string()
    };
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    s.set_nodelay(true).unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

async fn mcp(port: u16, path: &str, body: Value) -> (u16, Value) {
    http(port, "POST", path, MCP_TOKEN, &body).await
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let bin = relay_path();
    match tokio::time::timeout(RUN_LIMIT, run(&bin)).await {
        Ok(ok) => std::process::exit(if ok { 0 } else { 1 }),
        Err(_) => die(&format!("the run took longer than {RUN_LIMIT:?}")),
    }
}

async fn run(bin: &PathBuf) -> bool {
    let mut relay = start_relay(bin).await;
    let port = relay.port;
    let (st, _) = http(
        port,
        "POST",
        "/mcp/config",
        PAGE_TOKEN,
        &json!({"enabled": true, "default_mode": "readwrite"}),
    )
    .await;
    assert_eq!(st, 200, "enabling MCP");
    let mut ids = Vec::new();
    for _ in 0..SESSIONS {
        let (st, v) = http(port, "POST", "/sessions", PAGE_TOKEN, &json!({})).await;
        assert_eq!(st, 200, "creating a session: {v}");
        ids.push(v["id"].as_u64().unwrap());
    }
    for id in &ids {
        let (_, v) = mcp(
            port,
            "/mcp/read",
            json!({"id": id, "wait_for_text": "$", "timeout_ms": 15000}),
        )
        .await;
        assert_eq!(v["matched"], true, "session {id} shows no prompt");
    }
    let flood = ids[0];
    let probe = ids[SESSIONS - 1];
    let waited = &ids[..SESSIONS - 1];
    mcp(
        port,
        "/mcp/input",
        json!({"id": flood, "data": "yes flood-line\r"}),
    )
    .await;
    let (_, v) = mcp(
        port,
        "/mcp/read",
        json!({"id": flood, "wait_for_regex": "(flood-line\\n){5}", "timeout_ms": 15000}),
    )
    .await;
    assert_eq!(v["matched"], true, "the flood did not start");
    let flood_v0 = version_of(port, flood).await;
    let t_flood = Instant::now();

    // 200 waits, all in flight before any marker is typed.
    let started = Arc::new(AtomicUsize::new(0));
    let mut waits = Vec::new();
    let mut markers: Vec<Vec<String>> = vec![Vec::new(); waited.len()];
    for i in 0..WAITERS {
        let slot = i % waited.len();
        let id = waited[slot];
        let needle = if id == flood {
            "flood-line".to_owned()
        } else {
            let m = format!("mark-{i}-ok");
            markers[slot].push(m.clone());
            m
        };
        let started = started.clone();
        waits.push(tokio::spawn(async move {
            started.fetch_add(1, Ordering::SeqCst);
            let (st, v) = mcp(
                port,
                "/mcp/read",
                json!({"id": id, "wait_for_text": needle, "timeout_ms": 15000}),
            )
            .await;
            let ok = st == 200
                && v["matched"] == true
                && v["text"].as_str().is_some_and(|t| t.contains(&needle));
            (ok, Instant::now(), needle, st, v["matched"].clone())
        }));
    }
    while started.load(Ordering::SeqCst) < WAITERS {
        tokio::task::yield_now().await;
    }

    // The unrelated reads: sequential, until every wait has returned.
    let done = Arc::new(AtomicUsize::new(0));
    let prober = {
        let done = done.clone();
        tokio::spawn(async move {
            let mut lat = Vec::new();
            while done.load(Ordering::SeqCst) == 0 {
                let t0 = Instant::now();
                let (st, v) = mcp(port, "/mcp/read", json!({"id": probe})).await;
                lat.push(t0.elapsed());
                assert!(st == 200 && v["ok"] == true, "probe read failed: {st} {v}");
            }
            lat
        })
    };
    tokio::time::sleep(PROBE_BEFORE_MARKERS).await;
    let typed_at = Instant::now();
    for (slot, ms) in markers.iter().enumerate() {
        if ms.is_empty() {
            continue;
        }
        // Quoted apart so the typed command line itself does not contain the marker.
        let line: Vec<String> = ms
            .iter()
            .map(|m| format!("echo {}\"\"{}", &m[..m.len() - 2], &m[m.len() - 2..]))
            .collect();
        mcp(
            port,
            "/mcp/input",
            json!({"id": waited[slot], "data": line.join("; ") + "\r"}),
        )
        .await;
    }
    let mut failed = Vec::new();
    let mut after_marker = Vec::new();
    for w in waits {
        let (ok, at, needle, st, matched) = w.await.unwrap();
        if !ok {
            failed.push(format!("{needle}: status {st}, matched {matched}"));
        } else if needle != "flood-line" {
            after_marker.push(at.saturating_duration_since(typed_at));
        }
    }
    done.store(1, Ordering::SeqCst);
    let mut lat = prober.await.unwrap();
    let flood_v1 = version_of(port, flood).await;
    let flood_secs = t_flood.elapsed().as_secs_f64();
    mcp(port, "/mcp/keys", json!({"id": flood, "keys": ["C-c"]})).await;
    stop(&mut relay).await;

    lat.sort();
    after_marker.sort();
    let p99 = percentile(&lat, 0.99);
    println!("relay-load: {SESSIONS} sessions, {WAITERS} concurrent wait_for_text reads, `yes` flooding session {flood}");
    println!(
        "  waits: {}/{WAITERS} returned matched with their text; marker typed → wait answered: p50 {} p99 {} max {}",
        WAITERS - failed.len(),
        ms(percentile(&after_marker, 0.5)),
        ms(percentile(&after_marker, 0.99)),
        ms(after_marker.last().copied().unwrap_or_default()),
    );
    println!(
        "  unrelated /mcp/read ({} reads, one at a time): p50 {} p99 {} max {} (target p99 < {})",
        lat.len(),
        ms(percentile(&lat, 0.5)),
        ms(p99),
        ms(lat.last().copied().unwrap_or_default()),
        ms(P99_TARGET),
    );
    println!(
        "  flood: {} output chunks fed to the relay's emulator in {flood_secs:.1} s ({:.0}/s)",
        flood_v1 - flood_v0,
        (flood_v1 - flood_v0) as f64 / flood_secs
    );
    for f in failed.iter().take(10) {
        println!("  FAILED wait {f}");
    }
    let ok = failed.is_empty() && p99 < P99_TARGET;
    println!("  result: {}", if ok { "PASS" } else { "FAIL" });
    ok
}

/// Stops the relay cleanly (SIGTERM: it hangs up its sessions and reaps them), or kills it
/// after 10 s; removes its temporary directory.
async fn stop(relay: &mut Relay) {
    if let Some(pid) = relay.child.id() {
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .await;
    }
    if tokio::time::timeout(Duration::from_secs(10), relay.child.wait())
        .await
        .is_err()
    {
        let _ = relay.child.start_kill();
        let _ = relay.child.wait().await;
    }
    let _ = std::fs::remove_dir_all(&relay.dir);
}

/// The window's `version` from `/mcp/terminals` (output chunks fed, resizes, resets).
async fn version_of(port: u16, id: u64) -> u64 {
    let (_, list) = http(port, "GET", "/mcp/terminals", MCP_TOKEN, &Value::Null).await;
    list.as_array()
        .and_then(|l| l.iter().find(|t| t["id"] == id))
        .and_then(|t| t["version"].as_u64())
        .unwrap_or(0)
}

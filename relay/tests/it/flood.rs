//! The listener's limits against a flood: thousands of slow and idle connections held open
//! (and reopened when closed) from other addresses while a real page loads, makes a session,
//! attaches over the websocket, types and reads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::support::{http, Options, Relay, WAIT};

/// Connections the flood holds.
const FLOOD: usize = 2000;

/// How long a holder waits before reopening a connection the relay closed. Short enough for a
/// churn of hundreds of new connections a second; not so short that the flood takes both
/// cores from the tests running beside it.
const REOPEN_AFTER: Duration = Duration::from_secs(2);

/// The flood's addresses: 127.0.0.2 and up (the page is 127.0.0.1).
const FLOOD_ADDRESSES: usize = 8;

/// How long the flood keeps reopening what the relay closed.
const FLOOD_FOR: Duration = Duration::from_secs(15);

/// The relay's open-file limit in this test (the default soft limit of many systems), which
/// it cannot raise: 1100 idle connections used to exhaust it.
const NOFILE: u64 = 1024;

/// The relay's timeouts (`ground/limits.rs`), and what a closing may take on top of them on a
/// loaded 2-core machine.
const IDLE: Duration = Duration::from_secs(5);
const HEADER: Duration = Duration::from_secs(10);
const BODY: Duration = Duration::from_secs(20);
const SLACK: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Connects and sends nothing.
    Idle,
    /// Sends a request head one byte every 0.5 s, never ending it.
    SlowHead,
    /// Sends half a request head, then nothing.
    HalfHead,
    /// Sends a whole head (with the page token) and a body one byte every 0.5 s, never ending it.
    SlowBody,
}

const KINDS: [Kind; 4] = [Kind::Idle, Kind::SlowHead, Kind::HalfHead, Kind::SlowBody];

impl Kind {
    fn timeout(self) -> Duration {
        match self {
            Kind::Idle => IDLE,
            Kind::SlowHead | Kind::HalfHead => HEADER,
            // The head is in at once; the body's deadline starts there.
            Kind::SlowBody => BODY,
        }
    }
}

/// One held connection's end.
#[derive(Debug)]
struct Held {
    kind: Kind,
    lifetime: Duration,
    /// The relay closed it (else it was still open when the test gave up).
    closed: bool,
    /// The status line's code, when the relay answered before closing.
    status: Option<u16>,
}

/// Holds one connection of `kind` until the relay closes it (or `give_up`); returns how it
/// ended. `None` when the connection could not be made.
async fn hold(from: u8, port: u16, kind: Kind, token: &str, give_up: Duration) -> Option<Held> {
    let socket = tokio::net::TcpSocket::new_v4().ok()?;
    socket.bind(([127, 0, 0, from], 0).into()).ok()?;
    let stream = tokio::time::timeout(WAIT, socket.connect(([127, 0, 0, 1], port).into()))
        .await
        .ok()?
        .ok()?;
    let start = Instant::now();
    let (mut rx, mut tx) = stream.into_split();
    let head = match kind {
        Kind::Idle => String::new(),
        Kind::SlowHead => format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: "),
        Kind::HalfHead => format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUser-Ag"),
        Kind::SlowBody => format!(
            "POST /sessions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"cols\":"
        ),
    };
    let trickle = async {
        if tx.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        if matches!(kind, Kind::SlowHead | Kind::SlowBody) {
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                if tx.write_all(b" ").await.is_err() {
                    return;
                }
            }
        }
        std::future::pending::<()>().await
    };
    let mut answer = Vec::new();
    let read = async {
        let mut buf = [0u8; 1024];
        loop {
            match rx.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
    };
    let closed = tokio::select! {
        () = read => true,
        () = async { trickle.await; std::future::pending::<()>().await } => unreachable!(),
        () = tokio::time::sleep(give_up) => false,
    };
    let status = std::str::from_utf8(&answer)
        .ok()
        .and_then(|a| a.split(' ').nth(1))
        .and_then(|s| s.parse().ok());
    Some(Held {
        kind,
        lifetime: start.elapsed(),
        closed,
        status,
    })
}

/// The kernel's count of handshakes dropped because a listen queue was full (system-wide,
/// `TcpExt: ListenOverflows`). A connection dropped there was never the relay's: the client
/// thinks it is connected, the relay never saw it.
fn listen_overflows() -> u64 {
    let netstat = std::fs::read_to_string("/proc/net/netstat").unwrap_or_default();
    let mut lines = netstat.lines();
    while let (Some(names), Some(values)) = (lines.next(), lines.next()) {
        if names.starts_with("TcpExt:") {
            if let Some(i) = names
                .split_whitespace()
                .position(|n| n == "ListenOverflows")
            {
                return values
                    .split_whitespace()
                    .nth(i)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
            }
        }
    }
    0
}

fn open_files(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

fn nofile_of(pid: i32) -> u64 {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    line.split_whitespace().nth(3).unwrap().parse().unwrap()
}

/// This test process needs a descriptor per held connection.
fn raise_own_nofile() {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain syscalls on a struct we own.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        lim.rlim_cur = lim.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
    }
    assert!(
        lim.rlim_cur as usize > FLOOD + 200,
        "this test needs an open-file limit over {} (hard limit {})",
        FLOOD + 200,
        lim.rlim_max
    );
}

/// The page's round: load the page, make a session, attach, type, read. Returns the time each
/// step took.
async fn page_round(relay: &Relay, n: usize) -> [Duration; 3] {
    let t = Instant::now();
    let index = http(relay.port, "GET", "/", &[], "").await;
    assert_eq!(index.status, 200, "GET / during the flood: {}", index.body);
    let load = t.elapsed();

    let t = Instant::now();
    let id = relay.new_session().await;
    let mut page = relay.attach(Some(id)).await;
    page.expect_attach().await;
    let attach = t.elapsed();

    let t = Instant::now();
    page.send_input(format!("echo flood-{n}-$((6*7))\r").as_bytes())
        .await;
    page.wait_output(format!("flood-{n}-42").as_bytes(), WAIT)
        .await;
    let echo = t.elapsed();
    page.close().await;
    [load, attach, echo]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_slow_and_idle_connections_leaves_the_page_working() {
    raise_own_nofile();
    let relay = Relay::start_with(Options {
        nofile: Some(NOFILE),
        ..Options::default()
    })
    .await;
    let pid = relay.pid();
    let cap = nofile_of(pid);
    assert_eq!(cap, NOFILE);

    let overflows_before = listen_overflows();
    // Open files, sampled every 50 ms while the flood lasts.
    let sampling = Arc::new(AtomicBool::new(true));
    let most_files = Arc::new(AtomicUsize::new(0));
    let sampler = tokio::spawn({
        let (sampling, most_files) = (sampling.clone(), most_files.clone());
        async move {
            while sampling.load(Ordering::Relaxed) {
                most_files.fetch_max(open_files(pid), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    });

    // The flood: each holder keeps a connection of its kind open, reopening it (after
    // REOPEN_AFTER) when the relay closes it, until FLOOD_FOR is over; its last connection is held
    // until the relay closes it.
    let flood_start = Instant::now();
    let ended: Arc<Mutex<Vec<Held>>> = Arc::default();
    let last: Arc<Mutex<Vec<Held>>> = Arc::default();
    let failed_connects = Arc::new(AtomicUsize::new(0));
    let mut holders = Vec::new();
    for i in 0..FLOOD {
        let kind = KINDS[i % KINDS.len()];
        let from = 2 + (i / KINDS.len() % FLOOD_ADDRESSES) as u8;
        let (port, token) = (relay.port, relay.token.clone());
        let (ended, last, failed) = (ended.clone(), last.clone(), failed_connects.clone());
        holders.push(tokio::spawn(async move {
            // Spread the first connects over about a second.
            tokio::time::sleep(Duration::from_micros(500 * i as u64)).await;
            loop {
                let reopen = flood_start.elapsed() < FLOOD_FOR;
                let give_up = kind.timeout() + SLACK * 4;
                match hold(from, port, kind, &token, give_up).await {
                    Some(held) if reopen && held.closed => ended.lock().unwrap().push(held),
                    Some(held) => {
                        last.lock().unwrap().push(held);
                        return;
                    }
                    None => {
                        failed.fetch_add(1, Ordering::Relaxed);
                        if !reopen {
                            return;
                        }
                    }
                }
                tokio::time::sleep(REOPEN_AFTER).await;
            }
        }));
    }

    // The page, three times while the flood is on.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut rounds = Vec::new();
    for n in 0..3 {
        rounds.push(page_round(&relay, n).await);
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    let files_during_flood = open_files(pid);

    for h in holders {
        h.await.unwrap();
    }
    sampling.store(false, Ordering::Relaxed);
    sampler.await.unwrap();
    let files_after = open_files(pid);
    let overflows = listen_overflows() - overflows_before;

    // And the page once more, after.
    let after = page_round(&relay, 9).await;

    let ended = ended.lock().unwrap();
    let last = last.lock().unwrap();
    eprintln!(
        "flood: {FLOOD} holders from {FLOOD_ADDRESSES} addresses for {FLOOD_FOR:?} against a relay with RLIMIT_NOFILE {cap}: \
         {} connections closed by the relay while the flood lasted, {} last connections, {} \
         connects failed",
        ended.len(),
        last.len(),
        failed_connects.load(Ordering::Relaxed)
    );
    for kind in KINDS {
        let mut lifetimes: Vec<Duration> = ended
            .iter()
            .chain(last.iter())
            .filter(|h| h.kind == kind && h.closed)
            .map(|h| h.lifetime)
            .collect();
        lifetimes.sort();
        let open = last.iter().filter(|h| h.kind == kind && !h.closed).count();
        let statuses: std::collections::BTreeMap<Option<u16>, usize> = ended
            .iter()
            .chain(last.iter())
            .filter(|h| h.kind == kind)
            .fold(Default::default(), |mut m, h| {
                *m.entry(h.status).or_default() += 1;
                m
            });
        let pct = |p: usize| {
            lifetimes
                .get((lifetimes.len() * p / 100).min(lifetimes.len().saturating_sub(1)))
                .copied()
                .unwrap_or_default()
        };
        eprintln!(
            "  {kind:?}: {} closed by the relay, lifetime p50 {:.2?} p90 {:.2?} max {:.2?} \
             (timeout {:?}); still open at the end {open}; answers {statuses:?}",
            lifetimes.len(),
            pct(50),
            pct(90),
            lifetimes.last().copied().unwrap_or_default(),
            kind.timeout(),
        );
    }
    let names = ["GET /", "POST /sessions + attach", "type + read echo"];
    for (i, name) in names.iter().enumerate() {
        let during: Vec<String> = rounds.iter().map(|r| format!("{:.0?}", r[i])).collect();
        eprintln!(
            "  page {name}: during the flood {} ; after {:.0?}",
            during.join(", "),
            after[i]
        );
    }
    eprintln!(
        "  relay open files: most {} (sampled every 50 ms), {files_during_flood} during the \
         flood, {files_after} after; cap {cap}",
        most_files.load(Ordering::Relaxed)
    );
    let never_closed: Vec<&Held> = last.iter().filter(|h| !h.closed).collect();
    eprintln!(
        "  handshakes the kernel dropped on a full listen queue: {overflows}; idle connections \
         never closed: {}",
        never_closed.len()
    );

    // Every held connection was closed by the relay, within its timeout; except an idle one
    // whose handshake the kernel dropped on a full listen queue (it never reached the relay,
    // and, sending nothing, never learns).
    assert!(
        never_closed.iter().all(|h| h.kind == Kind::Idle) && never_closed.len() as u64 <= overflows,
        "connections still open: {never_closed:?}"
    );
    for h in ended.iter().chain(last.iter()).filter(|h| h.closed) {
        assert!(
            h.lifetime <= h.kind.timeout() + SLACK,
            "a {:?} connection lived {:?}, over its timeout {:?}",
            h.kind,
            h.lifetime,
            h.kind.timeout()
        );
    }
    for h in ended.iter().chain(last.iter()) {
        if h.kind == Kind::SlowBody && h.lifetime >= BODY {
            assert_eq!(
                h.status,
                Some(408),
                "a slow body cut at its deadline gets 408"
            );
        }
    }
    assert!(
        (most_files.load(Ordering::Relaxed) as u64) < cap,
        "the relay's open files reached its limit"
    );
    assert!(
        !relay.log().contains("Too many open files"),
        "the relay ran out of files:\n{}",
        relay.log()
    );
}

/// The timeouts spare what is in use: a websocket quiet for longer than the idle and header
/// timeouts, and a request whose answer takes longer than the idle timeout (a `/mcp/read`
/// wait); a kept-alive connection with nothing in flight is closed after the idle timeout.
#[tokio::test]
async fn timeouts_spare_a_quiet_websocket_and_a_long_answer() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let mut page = relay.attach(Some(id)).await;
    page.expect_attach().await;

    // A kept-alive connection: one request, then nothing.
    let mut kept = TcpStream::connect(("127.0.0.1", relay.port)).await.unwrap();
    let kept_at = Instant::now();
    kept.write_all(
        format!(
            "GET /info HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\r\n",
            relay.port, relay.token
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let kept_closed = async {
        let mut buf = vec![0u8; 4096];
        while kept.read(&mut buf).await.is_ok_and(|n| n > 0) {}
        kept_at.elapsed()
    };

    // A wait of 8 s: longer than the idle timeout, with nothing sent meanwhile.
    let wait_at = Instant::now();
    let wait = mcp.read(serde_json::json!({
        "id": id, "wait_for_text": "never-printed", "timeout_ms": 8000
    }));
    let (kept_closed, answer) = tokio::join!(kept_closed, wait);
    assert_eq!(answer["matched"], false, "{answer}");
    assert!(wait_at.elapsed() >= Duration::from_secs(8));
    assert!(
        kept_closed >= IDLE && kept_closed < IDLE + SLACK,
        "an idle kept-alive connection closed after {kept_closed:?}"
    );

    // The page has been quiet for longer than the header timeout too.
    tokio::time::sleep((HEADER + Duration::from_secs(1)).saturating_sub(wait_at.elapsed())).await;
    page.send_input(b"echo still-$((40+2))\r").await;
    page.wait_output(b"still-42", WAIT).await;
}

/// CPU time the process has used (user + system), from `/proc/PID/stat`, in clock ticks.
fn cpu_ticks(pid: i32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 and 15 of stat(5), counted from the state (field 3) here.
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Out of file descriptors (a limit far below the connection cap), the relay neither spins on
/// the failing accept nor stops: it pauses, frees the oldest connection without a request, and
/// serves again.
#[tokio::test]
async fn out_of_files_the_relay_pauses_instead_of_spinning() {
    let relay = Relay::start_with(Options {
        nofile: Some(32),
        ..Options::default()
    })
    .await;
    let pid = relay.pid();
    let mut idle = Vec::new();
    for _ in 0..100 {
        if let Ok(s) = TcpStream::connect(("127.0.0.1", relay.port)).await {
            idle.push(s);
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ticks = cpu_ticks(pid);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let used = cpu_ticks(pid) - ticks;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    eprintln!("out of files: {used} ticks of CPU in 2 s (at {hz} a second)");
    assert!(
        used < hz / 2,
        "the relay used {used} ticks in 2 s while out of files"
    );
    assert!(relay.log().contains("accept failed"), "{}", relay.log());
    let info = relay.get("/info").await;
    assert_eq!(info.status, 200, "{}", info.body);
    drop(idle);
    let info = relay.get("/info").await;
    assert_eq!(info.status, 200, "{}", info.body);
}

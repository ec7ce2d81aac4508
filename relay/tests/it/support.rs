//! Shared by every test: a real `wterm-relay` process on 127.0.0.1:0 with test secrets, a raw
//! HTTP/1.1 client, and a websocket "page".

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Upper bound for any single wait in these tests; generous for a loaded 2-core machine.
pub const WAIT: Duration = Duration::from_secs(20);

/// How a relay is started.
pub struct Options {
    /// `WEB_TERMINAL_TOKEN`; `None` leaves it unset (the relay mints or reads its sidecar).
    pub env_token: Option<String>,
    /// Extra command-line arguments.
    pub args: Vec<String>,
    /// A state directory to reuse (else a fresh one in the temp dir).
    pub state_dir: Option<PathBuf>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Start the relay with this open-file limit, soft and hard (`RLIMIT_NOFILE`), so it
    /// cannot raise it.
    pub nofile: Option<u64>,
    /// The relay binary (default: the one cargo built for this test).
    pub bin: Option<PathBuf>,
    /// Sessions in holder processes, the relay's default. Off unless a test is
    /// about them: the relay then gets `--no-persist` (unless `args` says either), so a test
    /// that ends its relay leaves no shell behind.
    pub held: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            env_token: Some(format!("test-token-{}", std::process::id())),
            args: vec![],
            state_dir: None,
            env: vec![],
            nofile: None,
            bin: None,
            held: false,
        }
    }
}

/// A running relay; killed (SIGTERM, then SIGKILL) when dropped, its log printed if the test
/// failed.
pub struct Relay {
    /// The URL the relay printed.
    pub url: String,
    pub port: u16,
    pub token: String,
    pub state_dir: PathBuf,
    /// Holds the relay's home, state and log; removed on drop.
    _dir: tempfile::TempDir,
    child: Child,
    log: PathBuf,
    bin: PathBuf,
    held: bool,
}

impl Relay {
    pub async fn start() -> Relay {
        Relay::start_with(Options::default()).await
    }

    pub async fn start_with(opts: Options) -> Relay {
        let dir = tempfile::tempdir().unwrap();
        let state_dir = opts
            .state_dir
            .clone()
            .unwrap_or_else(|| dir.path().join("state"));
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        // A plain prompt, whoever runs the tests (root's default ends in `#`).
        std::fs::write(home.join(".bashrc"), "PS1='$ '\nunset PROMPT_COMMAND\n").unwrap();
        let log = dir.path().join("relay.log");
        let bin = opts
            .bin
            .clone()
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_wterm-relay")));
        let mut cmd = Command::new(&bin);
        if !opts.args.iter().any(|a| a == "--port") {
            cmd.arg("--port").arg("0");
        }
        let says = |flag: &str| opts.args.iter().any(|a| a == flag);
        let held = opts.held || says("--persist");
        if !held && !says("--no-persist") {
            cmd.arg("--no-persist");
        }
        cmd.arg("--state-dir")
            .arg(&state_dir)
            .args(&opts.args)
            .env("SHELL", "/bin/bash")
            .env("HOME", &home)
            .env("RUST_LOG", "wterm_relay=debug")
            .env_remove("WEB_TERMINAL_TOKEN")
            .env_remove("WEB_TERMINAL_MCP_TOKEN")
            .env_remove("WEB_TERMINAL_MCP_ADMIN_TOKEN")
            .env_remove("XDG_CONFIG_HOME")
            .envs(opts.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&home)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .kill_on_drop(true);
        if let Some(token) = &opts.env_token {
            cmd.env("WEB_TERMINAL_TOKEN", token);
        }
        if let Some(n) = opts.nofile {
            // SAFETY: setrlimit is async-signal-safe; nothing else runs in the forked child.
            unsafe {
                cmd.pre_exec(move || {
                    let lim = libc::rlimit {
                        rlim_cur: n,
                        rlim_max: n,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        let mut child = cmd.spawn().expect("start wterm-relay");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(WAIT, lines.next_line())
            .await
            .expect("the relay printed no URL line in time")
            .unwrap()
            .unwrap_or_else(|| {
                panic!(
                    "the relay exited: {}",
                    std::fs::read_to_string(&log).unwrap()
                )
            });
        let url = line
            .strip_prefix("wterm-relay listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        let (base, token) = url.split_once("/#token=").expect("URL with #token=");
        let port = base.rsplit_once(':').unwrap().1.parse().unwrap();
        if !opts.args.iter().any(|a| a == "--listen") {
            let tls = opts.args.iter().any(|a| a == "--tls-cert");
            let scheme = if tls { "https" } else { "http" };
            assert!(base.starts_with(&format!("{scheme}://127.0.0.1:")), "{url}");
        }
        Relay {
            url: url.clone(),
            port,
            token: token.to_owned(),
            state_dir,
            _dir: dir,
            child,
            log,
            bin,
            held,
        }
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn pid(&self) -> i32 {
        self.child.id().expect("relay running") as i32
    }

    /// Sends SIGTERM and waits for the relay to exit; returns its exit status.
    pub async fn terminate(&mut self) -> std::process::ExitStatus {
        signal(self.pid(), libc::SIGTERM);
        tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("relay exits on SIGTERM")
            .unwrap()
    }

    /// Waits for the relay to exit (after a signal sent some other way).
    pub async fn wait_exit(&mut self) -> std::process::ExitStatus {
        tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("relay exits")
            .unwrap()
    }

    /// `METHOD path` with the page token.
    pub async fn get(&self, path: &str) -> HttpResponse {
        http(
            self.port,
            "GET",
            path,
            &[("Authorization", &format!("Bearer {}", self.token))],
            "",
        )
        .await
    }

    pub async fn post(&self, path: &str, body: &str) -> HttpResponse {
        let auth = format!("Bearer {}", self.token);
        http(
            self.port,
            "POST",
            path,
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
            ],
            body,
        )
        .await
    }

    /// Creates a session with `POST /sessions` and returns its id.
    pub async fn new_session(&self) -> u64 {
        let r = self.post("/sessions", "").await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()["id"].as_u64().unwrap()
    }

    /// A page attached to `session` whose socket has a small receive buffer (4 KiB), so TCP
    /// backpressure reaches the relay as soon as it stops reading.
    pub async fn attach_slow(&self, session: u64) -> Page {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let stream = socket
            .connect(([127, 0, 0, 1], self.port).into())
            .await
            .unwrap();
        let mut req = format!("ws://127.0.0.1:{}/ws?session={session}", self.port)
            .into_client_request()
            .unwrap();
        req.headers_mut().insert(
            "Sec-WebSocket-Protocol",
            HeaderValue::from_str(&format!("wterm.v1, bearer.{}", self.token)).unwrap(),
        );
        req.headers_mut()
            .insert("Origin", HeaderValue::from_str(&self.origin()).unwrap());
        let (ws, resp) = tokio::time::timeout(
            WAIT,
            tokio_tungstenite::client_async(req, MaybeTlsStream::Plain(stream)),
        )
        .await
        .expect("websocket handshake in time")
        .unwrap();
        Page::new(ws, &resp)
    }

    /// A page attached to `session` (a new one when `None`), with the right token and origin.
    pub async fn attach(&self, session: Option<u64>) -> Page {
        let query = session
            .map(|id| format!("?session={id}"))
            .unwrap_or_default();
        connect(self.port, &query, Some(&self.token), Some(&self.origin()))
            .await
            .expect("attach")
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if let Some(pid) = self.child.id() {
            // A relay that holds its sessions and still runs at the end of its test: end them
            // (through `holders kill`, which the relay sees), else they would outlive the test.
            // One a test stopped itself may have handed its holders to the next relay.
            if self.held {
                end_holders(&self.bin, &self.state_dir);
            }
            signal(pid as i32, libc::SIGTERM);
        }
        if std::thread::panicking() {
            eprintln!("---- relay log ----\n{}", self.log());
        }
    }
}

/// `wterm-relay holders kill --all` on `state_dir`: ends every held session there.
pub fn end_holders(bin: &Path, state_dir: &Path) {
    let _ = std::process::Command::new(bin)
        .args(["holders", "kill", "--all", "--state-dir"])
        .arg(state_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

pub fn signal(pid: i32, sig: i32) {
    // SAFETY: kill(2) has no memory-safety preconditions.
    unsafe {
        libc::kill(pid, sig);
    }
}

/// Whether a process exists (a zombie counts).
pub fn process_exists(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// A parsed HTTP/1.1 response.
#[derive(Debug)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", self.body))
    }
}

/// One request over a fresh connection (`Connection: close`), raw bytes both ways.
pub async fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> HttpResponse {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let mut req =
        format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut raw))
        .await
        .expect("HTTP answer in time")
        .unwrap();
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").expect("a complete response");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    HttpResponse {
        status,
        headers,
        body: if chunked {
            dechunk(body)
        } else {
            body.to_owned()
        },
    }
}

/// A chunked body (RFC 9112 §7.1) decoded: sizes in hex, extensions ignored, no trailers.
fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((line, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16)
            .expect("a chunk size");
        if size == 0 {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].strip_prefix("\r\n").unwrap_or(&after[size..]);
    }
    out
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens `/ws{query}`, offering `wterm.v1` and, when given, `bearer.TOKEN`.
pub async fn connect(
    port: u16,
    query: &str,
    token: Option<&str>,
    origin: Option<&str>,
) -> Result<Page, tungstenite::Error> {
    let mut req = format!("ws://127.0.0.1:{port}/ws{query}").into_client_request()?;
    let protocols = match token {
        Some(t) => format!("wterm.v1, bearer.{t}"),
        None => "wterm.v1".to_owned(),
    };
    req.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        HeaderValue::from_str(&protocols).unwrap(),
    );
    if let Some(o) = origin {
        req.headers_mut()
            .insert("Origin", HeaderValue::from_str(o).unwrap());
    }
    let (ws, resp) = tokio::time::timeout(WAIT, tokio_tungstenite::connect_async(req))
        .await
        .expect("websocket handshake in time")?;
    Ok(Page::new(ws, &resp))
}

impl Page {
    fn new(ws: Ws, resp: &tungstenite::handshake::client::Response) -> Page {
        let protocol = resp
            .headers()
            .get("Sec-WebSocket-Protocol")
            .map(|v| v.to_str().unwrap().to_owned());
        Page {
            ws,
            protocol,
            texts: Vec::new(),
            tail: Vec::new(),
            received: 0,
        }
    }
}

/// What a page received next.
#[derive(Debug)]
pub enum Got {
    Text(Value),
    Binary(Bytes),
    Close(Option<(u16, String)>),
}

/// A websocket client standing in for the page.
pub struct Page {
    ws: Ws,
    /// The subprotocol the relay selected.
    pub protocol: Option<String>,
    /// Text frames seen while waiting for output.
    pub texts: Vec<Value>,
    tail: Vec<u8>,
    /// Output bytes seen by [`Page::wait_output`].
    pub received: usize,
}

impl Page {
    pub async fn next(&mut self) -> Got {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a frame in time")
                .map(|r| r.expect("websocket error"));
            return match msg {
                Some(Message::Text(t)) => Got::Text(serde_json::from_str(t.as_str()).unwrap()),
                Some(Message::Binary(b)) => Got::Binary(b),
                Some(Message::Close(f)) => {
                    Got::Close(f.map(|f| (u16::from(f.code), f.reason.to_string())))
                }
                Some(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => continue,
                None => Got::Close(None),
            };
        }
    }

    pub async fn expect_text(&mut self) -> Value {
        match self.next().await {
            Got::Text(v) => v,
            other => panic!("expected a text frame, got {other:?}"),
        }
    }

    pub async fn expect_binary(&mut self) -> Bytes {
        match self.next().await {
            Got::Binary(b) => b,
            other => panic!("expected a binary frame, got {other:?}"),
        }
    }

    /// The attach preamble: `resized`, then the snapshot. Returns both.
    pub async fn expect_attach(&mut self) -> (Value, Bytes) {
        let resized = self.expect_text().await;
        assert_eq!(resized["type"], "resized", "{resized}");
        let snapshot = self.expect_binary().await;
        (resized, snapshot)
    }

    /// Reads frames until the output contains `needle`, collecting text frames in
    /// [`Page::texts`]; panics after `within`. Returns the time it took.
    pub async fn wait_output(&mut self, needle: &[u8], within: Duration) -> Duration {
        let start = Instant::now();
        loop {
            let left = within.checked_sub(start.elapsed()).unwrap_or_else(|| {
                panic!(
                    "no {:?} in the output within {within:?}",
                    String::from_utf8_lossy(needle)
                )
            });
            let msg = tokio::time::timeout(left, self.ws.next())
                .await
                .unwrap_or_else(|_| {
                    panic!(
                        "no {:?} in the output within {within:?}; last bytes {:?}",
                        String::from_utf8_lossy(needle),
                        String::from_utf8_lossy(&self.tail)
                    )
                });
            match msg.map(|r| r.expect("websocket error")) {
                Some(Message::Binary(b)) => {
                    self.received += b.len();
                    self.tail.extend_from_slice(&b);
                    if self.tail.windows(needle.len()).any(|w| w == needle) {
                        self.tail.clear();
                        return start.elapsed();
                    }
                    let keep = self.tail.len().min(needle.len().max(256));
                    self.tail.drain(..self.tail.len() - keep);
                }
                Some(Message::Text(t)) => {
                    self.texts.push(serde_json::from_str(t.as_str()).unwrap())
                }
                Some(Message::Close(f)) => panic!("closed while waiting for output: {f:?}"),
                Some(_) => {}
                None => panic!("stream ended while waiting for output"),
            }
        }
    }

    /// Reads until a text frame of `type`, skipping output; returns it.
    pub async fn wait_text(&mut self, kind: &str) -> Value {
        if let Some(i) = self.texts.iter().position(|t| t["type"] == kind) {
            return self.texts.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            match self.next().await {
                Got::Text(v) if v["type"] == kind => return v,
                Got::Text(v) => self.texts.push(v),
                Got::Binary(_) => {}
                Got::Close(f) => panic!("closed while waiting for {kind}: {f:?}"),
            }
        }
        panic!("no {kind} frame in time")
    }

    /// Reads until the connection ends, skipping output, and panicking on an `exit` frame:
    /// the close code, or `None` when the connection was cut without one (a killed relay).
    pub async fn wait_gone(&mut self) -> Option<u16> {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("the connection ends in time");
            match msg {
                Some(Ok(Message::Text(t))) => {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    assert_ne!(v["type"], "exit", "{v}");
                }
                Some(Ok(Message::Close(f))) => return f.map(|f| u16::from(f.code)),
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return None,
            }
        }
    }

    /// Reads until the close frame, skipping everything else; returns its code and reason.
    pub async fn wait_close(&mut self) -> (u16, String) {
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            match self.next().await {
                Got::Close(Some(f)) => return f,
                Got::Close(None) => panic!("the stream ended without a close frame"),
                Got::Text(v) => self.texts.push(v),
                Got::Binary(_) => {}
            }
        }
        panic!("no close frame in time")
    }

    pub async fn send_input(&mut self, bytes: &[u8]) {
        self.ws
            .send(Message::Binary(Bytes::copy_from_slice(bytes)))
            .await
            .unwrap();
    }

    pub async fn send_json(&mut self, v: Value) {
        self.ws
            .send(Message::Text(v.to_string().into()))
            .await
            .unwrap();
    }

    /// Sends a close 1000 and returns what came back before the stream ended: the relay's
    /// answering close frame (RFC 6455 §5.5.1), or `None`.
    pub async fn close_and_get_reply(mut self) -> Option<u16> {
        self.ws
            .close(Some(tungstenite::protocol::CloseFrame {
                code: CloseCode::Normal,
                reason: "".into(),
            }))
            .await
            .unwrap();
        let mut reply = None;
        let _ = tokio::time::timeout(WAIT, async {
            while let Some(msg) = self.ws.next().await {
                match msg {
                    Ok(Message::Close(f)) => reply = f.map(|f| u16::from(f.code)),
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        })
        .await;
        reply
    }

    pub async fn close(mut self) {
        let _ = self
            .ws
            .close(Some(tungstenite::protocol::CloseFrame {
                code: CloseCode::Normal,
                reason: "".into(),
            }))
            .await;
        // Read the relay's answering close.
        let _ = tokio::time::timeout(WAIT, async {
            while let Some(Ok(_)) = self.ws.next().await {}
        })
        .await;
    }
}

// ---- MCP helpers ----

/// A client of the `/mcp/*` routes: the MCP token, and optionally a scope and the admin token.
#[derive(Clone)]
pub struct Mcp {
    pub port: u16,
    pub token: String,
    pub scope: Option<String>,
    pub admin: Option<String>,
}

impl Mcp {
    pub fn scoped(&self, scope: &str) -> Mcp {
        Mcp {
            scope: Some(scope.to_owned()),
            ..self.clone()
        }
    }

    pub fn admin(&self, admin: &str) -> Mcp {
        Mcp {
            admin: Some(admin.to_owned()),
            ..self.clone()
        }
    }

    /// `METHOD path` with this client's credentials and `body`.
    pub async fn call(&self, method: &str, path: &str, body: &str) -> HttpResponse {
        let auth = format!("Bearer {}", self.token);
        let mut headers: Vec<(&str, &str)> = vec![("Authorization", &auth)];
        if let Some(s) = &self.scope {
            headers.push(("X-Browserland-Scope", s));
        }
        if let Some(a) = &self.admin {
            headers.push(("X-Browserland-Mcp-Admin", a));
        }
        if method == "POST" {
            headers.push(("Content-Type", "application/json"));
        }
        http(self.port, method, path, &headers, body).await
    }

    pub async fn get(&self, path: &str) -> HttpResponse {
        self.call("GET", path, "").await
    }

    pub async fn post(&self, path: &str, body: Value) -> HttpResponse {
        self.call("POST", path, &body.to_string()).await
    }

    /// `POST /mcp/read`, expecting 200.
    pub async fn read(&self, body: Value) -> Value {
        let r = self.post("/mcp/read", body).await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    }

    /// Waits (through the relay's own `wait_for_text`) until `needle` is on window `id`.
    pub async fn wait_text(&self, id: u64, needle: &str) -> Value {
        let a = self
            .read(serde_json::json!({"id": id, "wait_for_text": needle, "timeout_ms": 15000}))
            .await;
        assert_eq!(
            a["matched"], true,
            "no {needle:?} on screen:\n{}",
            a["text"]
        );
        a
    }

    /// `POST /mcp/input`, expecting 200.
    pub async fn type_text(&self, id: u64, data: &str) {
        let r = self
            .post("/mcp/input", serde_json::json!({"id": id, "data": data}))
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }

    /// `GET /mcp/terminals`: the ids listed.
    pub async fn ids(&self) -> Vec<u64> {
        let r = self.get("/mcp/terminals").await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_u64().unwrap())
            .collect()
    }
}

impl Relay {
    /// Switches MCP on through `/mcp/config` with a minted token and `default_mode`; returns a
    /// client holding the token.
    pub async fn enable_mcp(&self, default_mode: &str) -> Mcp {
        let r = self
            .post(
                "/mcp/config",
                &serde_json::json!({"enabled": true, "generate": true, "default_mode": default_mode})
                    .to_string(),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        Mcp {
            port: self.port,
            token: r.json()["token"].as_str().unwrap().to_owned(),
            scope: None,
            admin: None,
        }
    }

    /// Sets a window's mode and scope from the page (`POST /session/mcp`).
    pub async fn set_window(&self, body: Value) -> Value {
        let r = self.post("/session/mcp", &body.to_string()).await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    }

    /// A new session whose shell is ready: its prompt (`$ `) is on screen.
    pub async fn ready_session(&self, mcp: &Mcp) -> u64 {
        let id = self.new_session().await;
        // The page may have set the window off; the admin-less client needs to see it.
        mcp.wait_text(id, "$").await;
        id
    }
}

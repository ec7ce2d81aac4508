//! `/ws`: attach, snapshot, input, resize, title, refusals.

use serde_json::json;
use tokio_tungstenite::tungstenite;
use wterm_core::{Size, Terminal};

use crate::support::{connect, Relay, WAIT};

/// The screen a snapshot rebuilds in a fresh terminal of the attach size.
fn screen_of(resized: &serde_json::Value, snapshot: &[u8]) -> String {
    let size = Size::new(
        resized["rows"].as_u64().unwrap() as u16,
        resized["cols"].as_u64().unwrap() as u16,
    );
    let mut t = Terminal::new(size, 1000);
    t.feed(snapshot);
    t.screen_text()
}

#[tokio::test]
async fn attach_run_a_command_and_reattach_to_the_same_screen() {
    let relay = Relay::start().await;
    let id = relay.new_session().await;

    let mut page = relay.attach(Some(id)).await;
    assert_eq!(
        page.protocol.as_deref(),
        Some("wterm.v1"),
        "the relay selects wterm.v1, never the token"
    );
    let (resized, _snapshot) = page.expect_attach().await;
    assert_eq!(
        resized,
        json!({"type": "resized", "cols": 80, "rows": 24, "shell_integration": true})
    );

    page.send_input(b"echo hello-$((6*7))\r").await;
    page.wait_output(b"hello-42", WAIT).await;

    // A second page gets the same screen back from the relay's emulator.
    let mut second = relay.attach(Some(id)).await;
    let (resized, snapshot) = second.expect_attach().await;
    assert_eq!(
        resized,
        json!({"type": "resized", "cols": 80, "rows": 24, "shell_integration": true})
    );
    let screen = screen_of(&resized, &snapshot);
    assert!(screen.contains("hello-42"), "snapshot screen:\n{screen}");

    // Both pages see live output; either may type.
    second.send_input(b"echo again-$((1+2))\r").await;
    page.wait_output(b"again-3", WAIT).await;
    second.wait_output(b"again-3", WAIT).await;

    // Closing a page leaves the session running.
    page.close().await;
    let list = relay.get("/sessions").await.json();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    let mut third = relay.attach(Some(id)).await;
    let (resized, snapshot) = third.expect_attach().await;
    assert!(screen_of(&resized, &snapshot).contains("again-3"));
}

#[tokio::test]
async fn ws_without_a_session_makes_one_and_says_its_id_first() {
    let relay = Relay::start().await;
    let mut page = relay.attach(None).await;
    let hello = page.expect_text().await;
    assert_eq!(hello["type"], "session", "{hello}");
    let id = hello["id"].as_u64().unwrap();
    page.expect_attach().await;
    let list = relay.get("/sessions").await.json();
    assert_eq!(list[0]["id"].as_u64(), Some(id), "{list}");
    page.send_input(b"echo made-$((20+3))\r").await;
    page.wait_output(b"made-23", WAIT).await;
}

#[tokio::test]
async fn resize_reaches_the_pty_and_the_other_pages() {
    let relay = Relay::start().await;
    let id = relay.new_session().await;
    let mut a = relay.attach(Some(id)).await;
    a.expect_attach().await;
    let mut b = relay.attach(Some(id)).await;
    b.expect_attach().await;

    // Two resizes in a row, as a page does while it lays out: the other page hears of the
    // changes in order; the resizing page is not sent its own sizes back (it would chase the
    // stale first one).
    a.send_json(json!({"type": "resize", "cols": 90, "rows": 20}))
        .await;
    a.send_json(json!({"type": "resize", "cols": 100, "rows": 30}))
        .await;
    assert_eq!(
        b.wait_text("resized").await,
        json!({"type": "resized", "cols": 90, "rows": 20})
    );
    assert_eq!(
        b.wait_text("resized").await,
        json!({"type": "resized", "cols": 100, "rows": 30})
    );
    a.send_input(b"echo size-$(stty size | tr ' ' x)\r").await;
    a.wait_output(b"size-30x100", WAIT).await;
    assert!(
        a.texts.iter().all(|t| t["type"] != "resized"),
        "echoed: {:?}",
        a.texts
    );

    // The same size again changes nothing and tells nobody. (A page's messages are handled in
    // order, so once its next input has run, its resize has been handled.)
    b.send_json(json!({"type": "resize", "cols": 100, "rows": 30}))
        .await;
    b.send_input(b"echo mark-$((5*5))\r").await;
    b.wait_output(b"mark-25", WAIT).await;
    a.wait_output(b"mark-25", WAIT).await;
    assert!(
        a.texts.iter().all(|t| t["type"] != "resized"),
        "told: {:?}",
        a.texts
    );
    // Out-of-range sizes are clamped, not refused; the requester is told what it got.
    a.send_json(json!({"type": "resize", "cols": 5000, "rows": 0}))
        .await;
    let clamped = json!({"type": "resized", "cols": 1000, "rows": 1});
    assert_eq!(a.wait_text("resized").await, clamped);
    assert_eq!(b.wait_text("resized").await, clamped);
    assert_eq!(relay.get("/sessions").await.json()[0]["cols"], 1000);

    // A message the relay does not understand gets an error frame, and the socket stays up.
    a.send_json(json!({"type": "dance"})).await;
    assert_eq!(
        a.wait_text("error").await,
        json!({"type": "error", "reason": "bad_message",
               "detail": wterm_relay::http::ws::BAD_MESSAGE_DETAIL})
    );
    // The acknowledgement window was dropped (measured: no benefit over TCP's): `ack` is
    // unknown now, as any other message.
    a.texts.clear();
    a.send_json(json!({"type": "ack", "bytes": 10})).await;
    assert_eq!(a.wait_text("error").await["reason"], "bad_message");
    // A colors message with a color that is not #rgb/#rrggbb is refused the same way.
    a.texts.clear();
    a.send_json(
        json!({"type": "colors", "foreground": "white", "background": "#000", "cursor": "#fff"}),
    )
    .await;
    assert_eq!(a.wait_text("error").await["reason"], "bad_message");
    b.send_json(json!({"type": "resize", "cols": 80, "rows": 24}))
        .await;
    assert_eq!(
        a.wait_text("resized").await,
        json!({"type": "resized", "cols": 80, "rows": 24})
    );
    assert!(
        b.texts.iter().all(|t| t["type"] != "resized"),
        "echoed: {:?}",
        b.texts
    );
}

#[tokio::test]
async fn title_changes_are_sent_and_listed() {
    let relay = Relay::start().await;
    let id = relay.new_session().await;
    let mut page = relay.attach(Some(id)).await;
    page.expect_attach().await;
    page.send_input(b"printf '\\033]2;%s\\007' \"ti-$((3*3))\"\r")
        .await;
    assert_eq!(
        page.wait_text("title").await,
        json!({"type": "title", "data": "ti-9"})
    );
    assert_eq!(relay.get("/sessions").await.json()[0]["title"], "ti-9");
    // A page attaching later gets the title after its snapshot.
    let mut later = relay.attach(Some(id)).await;
    later.expect_attach().await;
    assert_eq!(
        later.expect_text().await,
        json!({"type": "title", "data": "ti-9"})
    );
}

#[tokio::test]
async fn a_wrong_or_missing_token_is_closed_with_4401() {
    let relay = Relay::start().await;
    let id = relay.new_session().await;
    for token in [Some("wrong"), None, Some("")] {
        let mut page = connect(
            relay.port,
            &format!("?session={id}"),
            token,
            Some(&relay.origin()),
        )
        .await
        .expect("the upgrade itself succeeds");
        let (code, reason) = page.wait_close().await;
        assert_eq!(
            (code, reason.as_str()),
            (4401, "auth_required"),
            "token {token:?}"
        );
    }
}

#[tokio::test]
async fn an_unknown_session_is_closed_with_4404() {
    let relay = Relay::start().await;
    for query in ["?session=99", "?session=abc"] {
        let mut page = connect(relay.port, query, Some(&relay.token), None)
            .await
            .unwrap();
        assert_eq!(page.wait_close().await.0, 4404, "{query}");
    }
    assert_eq!(
        relay.get("/sessions").await.json(),
        json!([]),
        "no session was made"
    );
}

#[tokio::test]
async fn a_foreign_origin_is_refused_before_the_upgrade() {
    let relay = Relay::start().await;
    let id = relay.new_session().await;
    for origin in ["http://evil.example", "null", "http://127.0.0.1:1"] {
        match connect(
            relay.port,
            &format!("?session={id}"),
            Some(&relay.token),
            Some(origin),
        )
        .await
        {
            Err(tungstenite::Error::Http(resp)) => {
                assert_eq!(resp.status(), 403, "{origin}");
                let body = String::from_utf8_lossy(resp.body().as_deref().unwrap_or_default())
                    .into_owned();
                assert!(body.contains("bad_origin"), "{body}");
            }
            Err(e) => panic!("{origin}: unexpected error {e}"),
            Ok(_) => panic!("{origin}: upgrade accepted"),
        }
    }
    // The relay's own origin in its localhost spelling, and no Origin at all, are accepted.
    let own = format!("http://localhost:{}", relay.port);
    let mut page = connect(
        relay.port,
        &format!("?session={id}"),
        Some(&relay.token),
        Some(&own),
    )
    .await
    .unwrap();
    page.expect_attach().await;
    let mut page = connect(
        relay.port,
        &format!("?session={id}"),
        Some(&relay.token),
        None,
    )
    .await
    .unwrap();
    page.expect_attach().await;
}

#[tokio::test]
async fn an_allowed_extra_origin_may_attach() {
    let relay = Relay::start_with(crate::support::Options {
        args: vec![
            "--allow-origin".into(),
            "http://devbox.example:9000/".into(),
        ],
        ..Default::default()
    })
    .await;
    let mut page = connect(
        relay.port,
        "",
        Some(&relay.token),
        Some("http://devbox.example:9000"),
    )
    .await
    .unwrap();
    assert_eq!(page.expect_text().await["type"], "session");
}

/// Sends `frame` (raw bytes, after a hand-made upgrade) on a new session's socket and returns
/// the close code the relay answers with.
async fn close_code_after_raw_frame(relay: &Relay, frame: &[u8]) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(("127.0.0.1", relay.port))
        .await
        .unwrap();
    let req = format!(
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: wterm.v1, bearer.{}\r\n\r\n",
        relay.port, relay.token
    );
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        tcp.read_exact(&mut byte).await.unwrap();
        buf.push(byte[0]);
    }
    assert!(
        buf.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&buf)
    );
    tcp.write_all(frame).await.unwrap();
    // Server frames are unmasked: skip data frames until the close.
    tokio::time::timeout(WAIT, async {
        loop {
            let mut head = [0u8; 2];
            tcp.read_exact(&mut head).await.unwrap();
            let len = match head[1] & 0x7f {
                126 => u64::from(tcp.read_u16().await.unwrap()),
                127 => tcp.read_u64().await.unwrap(),
                n => u64::from(n),
            };
            let mut payload = vec![0u8; len as usize];
            tcp.read_exact(&mut payload).await.unwrap();
            if head[0] & 0x0f == 0x8 {
                return u16::from_be_bytes([payload[0], payload[1]]);
            }
        }
    })
    .await
    .expect("a close in time")
}

/// Newcomer report: a text frame that is not UTF-8, or an unmasked client frame, closed with
/// 1000 as if all were well. RFC 6455 §7.4.1 names 1007 and 1002.
#[tokio::test]
async fn broken_frames_close_with_the_rfc_codes() {
    let relay = Relay::start().await;
    // FIN + text, masked (zero key), payload 0xff: not UTF-8.
    let bad_utf8 = [0x81, 0x81, 0, 0, 0, 0, 0xff];
    assert_eq!(close_code_after_raw_frame(&relay, &bad_utf8).await, 1007);
    // FIN + binary, not masked.
    let unmasked = [0x82, 0x01, b'x'];
    assert_eq!(close_code_after_raw_frame(&relay, &unmasked).await, 1002);
}

/// Newcomer report: a page's close got no close back, so a browser saw an unclean close (1006).
#[tokio::test]
async fn a_page_closing_gets_the_close_answered() {
    let relay = Relay::start().await;
    let id = relay.new_session().await;
    let mut page = relay.attach(Some(id)).await;
    page.expect_attach().await;
    assert_eq!(page.close_and_get_reply().await, Some(1000));
}

/// Titles and other strings a program supplies reach clients without control characters or
/// bidi overrides (the page's `title` frame, `GET /sessions`, `/mcp/terminals`); a launch
/// title too.
#[tokio::test]
async fn titles_reach_clients_without_control_characters() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let mut page = relay.attach(Some(id)).await;
    page.expect_attach().await;
    // Tab, DEL, C1 CSI (U+009B), RIGHT-TO-LEFT OVERRIDE (U+202E), LRI (U+2066).
    page.send_input(
        b"printf '\\033]2;t\\tA\\177B\\302\\233C\\342\\200\\256D\\342\\201\\246E-%s\\007' $((6*7))\r",
    )
    .await;
    assert_eq!(
        page.wait_text("title").await,
        json!({"type": "title", "data": "tABCDE-42"})
    );
    assert_eq!(relay.get("/sessions").await.json()[0]["title"], "tABCDE-42");
    let mut later = relay.attach(Some(id)).await;
    later.expect_attach().await;
    assert_eq!(
        later.expect_text().await,
        json!({"type": "title", "data": "tABCDE-42"})
    );
    // A working directory (reported with OSC 7 at each prompt) whose name holds U+202E.
    page.send_input(
        b"mkdir -p \"$HOME/x$(printf '\\342\\200\\256')y\" && cd \"$_\" && echo cwd-$((1+1))\r",
    )
    .await;
    page.wait_output(b"cwd-2\r\n", WAIT).await;
    page.send_input(b"true\r").await;
    let mut row = json!(null);
    for _ in 0..100 {
        row = mcp.get("/mcp/terminals").await.json()[0].clone();
        if row["shell"]["last_command"]["cwd"]
            .as_str()
            .is_some_and(|c| c.ends_with("/xy"))
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(row["cwd"].as_str().unwrap().ends_with("/xy"), "{row}");
    assert_eq!(row["title"], "tABCDE-42", "{row}");
    let last = &row["shell"]["last_command"];
    assert!(last["cwd"].as_str().unwrap().ends_with("/xy"), "{row}");

    // A launch title with ESC, NUL, CR and U+202E.
    let r = relay
        .post("/mcp/config", &json!({"allow_launch": true}).to_string())
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = mcp
        .post(
            "/mcp/launch",
            json!({"title": "la\u{1b}[31m\u{0}\r\u{202e}unch"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let launched = r.json()["id"].as_u64().unwrap();
    let rows = mcp.get("/mcp/terminals").await.json();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == launched)
        .unwrap();
    assert_eq!(row["title"], "la[31munch", "{row}");
}

/// Polls `path` until it holds `want` (or panics after [`WAIT`] naming what it held).
pub async fn wait_file(path: &std::path::Path, want: &str) {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let got = std::fs::read_to_string(path).unwrap_or_default();
        if got == want {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} holds {got:?}, not {want:?}",
            path.display()
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A page that numbers its input (`client`) is told on each attach how much of it reached the
/// shell, and a resend that overlaps it runs only the new part (broker-api.md, `input`).
#[tokio::test]
async fn numbered_input_is_told_on_attach_and_a_resend_runs_once() {
    let relay = Relay::start().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ran");
    const CLIENT: &str = "00000000deadbeef";
    let mut page = connect(
        relay.port,
        &format!("?client={CLIENT}"),
        Some(&relay.token),
        Some(&relay.origin()),
    )
    .await
    .unwrap();
    let id = page.expect_text().await["id"].as_u64().unwrap();
    // A new session does not know the client yet.
    assert_eq!(
        page.expect_text().await,
        json!({"type": "input", "offset": null})
    );
    page.expect_attach().await;
    page.wait_output(b"$ ", WAIT).await;
    let one = format!("printf a >> {}\r", file.display());
    page.send_json(json!({"type": "input", "offset": 0})).await;
    page.send_input(one.as_bytes()).await;
    wait_file(&file, "a").await;
    page.close().await;

    let query = format!("?session={id}&client={CLIENT}");
    let mut page = connect(
        relay.port,
        &query,
        Some(&relay.token),
        Some(&relay.origin()),
    )
    .await
    .unwrap();
    assert_eq!(
        page.expect_text().await,
        json!({"type": "input", "offset": one.len()})
    );
    page.expect_attach().await;
    // The whole input again from 0 plus a new line: only the new line runs.
    let two = format!("printf b >> {}\r", file.display());
    page.send_json(json!({"type": "input", "offset": 0})).await;
    page.send_input(format!("{one}{two}").as_bytes()).await;
    wait_file(&file, "ab").await;
    // Input without numbering (another page, an agent) is written as before, beside it.
    let mut other = relay.attach(Some(id)).await;
    other.expect_attach().await;
    other
        .send_input(format!("printf c >> {}\r", file.display()).as_bytes())
        .await;
    wait_file(&file, "abc").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "abc");

    // An `input` message where no client was given says what it needs.
    other.send_json(json!({"type": "input", "offset": 0})).await;
    let err = other.wait_text("error").await;
    assert_eq!(err["reason"], "bad_message", "{err}");
    assert!(err["detail"].as_str().unwrap().contains("client"), "{err}");

    // A client id that is not 16 hex digits: refused with a reason, close 4400.
    for bad in ["xyz", "00000000deadbee", "00000000deadbeef0"] {
        let mut page = connect(
            relay.port,
            &format!("?session={id}&client={bad}"),
            Some(&relay.token),
            Some(&relay.origin()),
        )
        .await
        .unwrap();
        let err = page.expect_text().await;
        assert_eq!(err["reason"], "bad_client", "{err}");
        assert!(
            err["detail"].as_str().unwrap().contains("16 hex digits"),
            "{err}"
        );
        assert_eq!(page.wait_close().await.0, 4400);
    }
}

/// Opens `/ws{query}` as a page on the relay's origin with its token.
async fn open(relay: &Relay, query: &str) -> crate::support::Page {
    connect(relay.port, query, Some(&relay.token), Some(&relay.origin()))
        .await
        .unwrap()
}

/// A raw websocket client (not relay.js) that misuses numbered input cannot make a key run
/// twice, stick its count or have its input skipped as another's (broker-api.md, `input`).
#[tokio::test]
async fn numbered_input_from_a_misbehaving_page() {
    let relay = Relay::start().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ran");
    let ran = |c: &str| format!("printf {c} >> {}\r", file.display());
    const CLIENT: &str = "00000000feedf00d";
    /// JavaScript's Number.MAX_SAFE_INTEGER, the largest offset the relay takes.
    const MAX: u64 = (1 << 53) - 1;

    // 1. Binary input before the page's `input` message counts from the offset the relay told
    // (0 when it said null), so a resend from there does not run it twice.
    let mut page = open(&relay, &format!("?client={CLIENT}")).await;
    let id = page.expect_text().await["id"].as_u64().unwrap();
    assert_eq!(
        page.expect_text().await,
        json!({"type": "input", "offset": null})
    );
    page.expect_attach().await;
    page.wait_output(b"$ ", WAIT).await;
    let (a, b, c) = (ran("a"), ran("b"), ran("c"));
    page.send_input(a.as_bytes()).await;
    wait_file(&file, "a").await;
    page.close().await;
    let mut page = open(&relay, &format!("?session={id}&client={CLIENT}")).await;
    assert_eq!(
        page.expect_text().await,
        json!({"type": "input", "offset": a.len()}),
        "the input sent before any `input` message was counted from 0"
    );
    page.expect_attach().await;
    page.send_input(b.as_bytes()).await;
    wait_file(&file, "ab").await;
    page.send_json(json!({"type": "input", "offset": a.len()}))
        .await;
    page.send_input(format!("{b}{c}").as_bytes()).await;
    wait_file(&file, "abc").await;
    let mut total = a.len() + b.len() + c.len();

    // 2. An offset JavaScript cannot count exactly is refused with the accepted range; the
    // numbering goes on where it was.
    for offset in [u64::MAX, MAX + 1] {
        page.send_json(json!({"type": "input", "offset": offset}))
            .await;
        let err = page.wait_text("error").await;
        assert_eq!(err["reason"], "bad_message", "{err}");
        let detail = err["detail"].as_str().unwrap();
        assert!(detail.contains(&format!("0..={MAX}")), "{err}");
    }
    let d = ran("d");
    page.send_input(d.as_bytes()).await;
    wait_file(&file, "abcd").await;
    total += d.len();

    // 5. Bad `input` messages say what an `input` message is.
    for bad in [
        json!({"type": "input"}),
        json!({"type": "input", "offset": "3"}),
        json!({"type": "input", "offset": -1}),
        json!({"type": "input", "offset": 1.5}),
        json!({"type": "input", "offset": null}),
    ] {
        page.send_json(bad.clone()).await;
        let err = page.wait_text("error").await;
        assert_eq!(err["reason"], "bad_message", "{bad}: {err}");
        let detail = err["detail"].as_str().unwrap();
        assert!(
            detail.contains(&format!(
                r#"{{"type":"input","offset":<integer 0..={MAX}>}}"#
            )) && detail.contains("client="),
            "{bad}: {err}"
        );
    }
    let mut unnumbered = relay.attach(Some(id)).await;
    unnumbered.expect_attach().await;
    unnumbered
        .send_json(json!({"type": "input", "offset": 0}))
        .await;
    let err = unnumbered.wait_text("error").await;
    assert_eq!(err["reason"], "bad_message", "{err}");
    let detail = err["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!("0..={MAX}")) && detail.contains("client="),
        "{err}"
    );
    unnumbered.close().await;

    // 3. A second connection with the same client replaces the first, which is closed with
    // 4409 and whose input is no longer taken; the second's is not skipped as the first's.
    let mut second = open(&relay, &format!("?session={id}&client={CLIENT}")).await;
    assert_eq!(
        second.expect_text().await,
        json!({"type": "input", "offset": total})
    );
    second.expect_attach().await;
    page.send_input(ran("x").as_bytes()).await;
    assert_eq!(
        page.wait_close().await,
        (4409, "client_replaced".to_owned())
    );
    second
        .send_json(json!({"type": "input", "offset": total}))
        .await;
    second.send_input(ran("e").as_bytes()).await;
    wait_file(&file, "abcde").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "abcde");
    second.close().await;

    // 4. `bad_client` says what came (cut short), and a repeated `client` is refused too.
    let long = "z".repeat(4000);
    for (query, says) in [
        ("client=xyz".to_owned(), r#"got "xyz""#.to_owned()),
        (format!("client={long}"), format!(r#"got "{}"#, &long[..20])),
        (
            format!("client={CLIENT}&client={CLIENT}"),
            "once".to_owned(),
        ),
        (format!("client={CLIENT}&client=xyz"), "once".to_owned()),
    ] {
        let mut page = open(&relay, &format!("?session={id}&{query}")).await;
        let err = page.expect_text().await;
        assert_eq!(err["reason"], "bad_client", "{query}: {err}");
        let detail = err["detail"].as_str().unwrap();
        assert!(detail.contains(&says), "{query}: {err}");
        assert!(
            detail.len() < 300,
            "{query}: a detail of {} bytes",
            detail.len()
        );
        assert_eq!(page.wait_close().await.0, 4400, "{query}");
    }
}

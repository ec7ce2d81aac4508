//! The HTTP routes: page-token realm, credentials in URLs, static files.

use serde_json::json;

use crate::support::{http, Options, Relay};

#[tokio::test]
async fn info_and_sessions_need_the_page_token() {
    let relay = Relay::start().await;
    for (method, path) in [
        ("GET", "/info"),
        ("GET", "/sessions"),
        ("POST", "/sessions"),
        ("DELETE", "/sessions/1"),
    ] {
        for auth in [None, Some("Bearer wrong"), Some("Basic abc")] {
            let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", *a)).collect();
            let r = http(relay.port, method, path, &headers, "").await;
            assert_eq!(
                (r.status, r.json()),
                (401, json!({"error": "auth_required"})),
                "{method} {path} {auth:?}"
            );
        }
    }
    let r = relay.get("/info").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json(),
        json!({"ok": true, "version": env!("CARGO_PKG_VERSION"),
               "memory": {"budget_bytes": 1024 * 1024 * 1024, "reserved_bytes": 0}})
    );
    // The token is never echoed, and an unknown path is a 404 rather than a 401.
    assert!(
        !relay.log().contains(&relay.token),
        "the token reached the log"
    );
    assert_eq!(
        http(relay.port, "GET", "/no-such-route", &[], "")
            .await
            .status,
        404
    );
}

/// Newcomer report: every visit to `/` starts a shell and nothing ended one but its own exit.
#[tokio::test]
async fn a_session_is_ended_from_the_page_realm() {
    let relay = Relay::start().await;
    let id = relay.new_session().await;
    let mut page = relay.attach(Some(id)).await;
    page.expect_attach().await;
    let auth = format!("Bearer {}", relay.token);
    let delete = |path: String| {
        let auth = auth.clone();
        async move { http(relay.port, "DELETE", &path, &[("Authorization", &auth)], "").await }
    };
    let r = delete(format!("/sessions/{id}")).await;
    assert_eq!(r.status, 204, "{}", r.body);
    // The shell got SIGHUP: its page hears the exit, then the close that ends the session.
    assert_eq!(page.wait_text("exit").await["type"], "exit");
    assert_eq!(page.wait_close().await.0, 1000);
    assert_eq!(relay.get("/sessions").await.json(), json!([]));
    // A shell that ignores SIGHUP is killed after the grace time; "+N" is not an id.
    let stubborn = relay.new_session().await;
    let mut page = relay.attach(Some(stubborn)).await;
    page.expect_attach().await;
    page.send_input(b"trap '' HUP; echo trapped-$((2+3))\r")
        .await;
    page.wait_output(b"trapped-5", crate::support::WAIT).await;
    let r = delete(format!("/sessions/%2B{stubborn}")).await;
    assert_eq!(r.status, 404, "+N is not an id");
    let r = delete(format!("/sessions/{stubborn}")).await;
    assert_eq!(r.status, 204, "{}", r.body);
    assert_eq!(page.wait_text("exit").await["type"], "exit");
    assert_eq!(relay.get("/sessions").await.json(), json!([]));
    for path in [
        format!("/sessions/{id}"),
        "/sessions/x".into(),
        "/sessions/99".into(),
    ] {
        let r = delete(path.clone()).await;
        assert_eq!(
            (r.status, r.json()),
            (404, json!({"error": "unknown_session"})),
            "{path}"
        );
    }
}

#[tokio::test]
async fn sessions_are_created_and_listed() {
    let relay = Relay::start().await;
    assert_eq!(relay.get("/sessions").await.json(), json!([]));
    let a = relay.post("/sessions", "").await;
    assert_eq!((a.status, a.json()), (200, json!({"id": 1})));
    let b = relay.post("/sessions", r#"{"cols":100,"rows":30}"#).await;
    assert_eq!(b.json(), json!({"id": 2}));
    let list = relay.get("/sessions").await.json();
    let rows = list.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{list}");
    assert_eq!(
        (
            rows[0]["id"].as_u64(),
            rows[0]["cols"].as_u64(),
            rows[0]["rows"].as_u64()
        ),
        (Some(1), Some(80), Some(24))
    );
    assert_eq!(
        (
            rows[1]["id"].as_u64(),
            rows[1]["cols"].as_u64(),
            rows[1]["rows"].as_u64()
        ),
        (Some(2), Some(100), Some(30))
    );
    assert!(rows[1]["pid"].as_u64().is_some_and(|p| p > 1), "{list}");
    assert!(rows[1].get("title").is_some(), "{list}");

    for (body, code) in [
        (r#"{"cols":0}"#, "bad_dims"),
        (r#"{"rows":1001}"#, "bad_dims"),
        (r#"{"cols":"80"}"#, "bad_dims"),
        ("[]", "bad_json"),
        ("{", "bad_json"),
    ] {
        let r = relay.post("/sessions", body).await;
        assert_eq!(
            (r.status, &r.json()["error"]),
            (400, &json!(code)),
            "{body}"
        );
        assert!(
            r.json()["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "{body}: says what is accepted"
        );
    }
    assert_eq!(
        relay
            .get("/sessions")
            .await
            .json()
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn credentials_in_a_url_query_are_refused_everywhere() {
    let relay = Relay::start().await;
    let auth = format!("Bearer {}", relay.token);
    for path in [
        "/?token=x",
        "/info?auth=1",
        "/sessions?admin_token=x",
        "/ws?session=1&token=x",
        "/nope?tok%65n=1",
    ] {
        let r = http(relay.port, "GET", path, &[("Authorization", &auth)], "").await;
        assert_eq!(
            (r.status, r.json()),
            (400, json!({"error": "token_in_url"})),
            "{path}"
        );
    }
    // Other query keys are fine.
    assert_eq!(
        http(
            relay.port,
            "GET",
            "/info?x=token",
            &[("Authorization", &auth)],
            ""
        )
        .await
        .status,
        200
    );
}

#[tokio::test]
async fn serves_the_page_and_the_wasm_package() {
    let site = tempfile::tempdir().unwrap();
    let www = site.path().join("www");
    let pkg = site.path().join("pkg");
    std::fs::create_dir_all(&www).unwrap();
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        www.join("index.html"),
        "<!doctype html><title>wterm</title>",
    )
    .unwrap();
    std::fs::write(www.join("app.js"), "export {}").unwrap();
    std::fs::write(pkg.join("wterm_wasm_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let relay = Relay::start_with(Options {
        args: vec![
            "--www-dir".into(),
            www.display().to_string(),
            "--pkg-dir".into(),
            pkg.display().to_string(),
        ],
        ..Options::default()
    })
    .await;

    let index = http(relay.port, "GET", "/", &[], "").await;
    assert_eq!(index.status, 200);
    assert!(index
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert_eq!(index.header("cache-control"), Some("no-cache"));
    assert!(index.body.contains("<title>wterm</title>"));
    let csp = index
        .header("content-security-policy")
        .expect("the page has a CSP");
    for directive in [
        "default-src 'none'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} in {csp}");
    }
    assert_eq!(index.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(index.header("referrer-policy"), Some("no-referrer"));
    // WebMCP registers tools only in an origin-keyed agent cluster.
    assert_eq!(index.header("origin-agent-cluster"), Some("?1"));

    let js = http(relay.port, "GET", "/app.js", &[], "").await;
    assert_eq!(js.status, 200);
    assert!(
        js.header("content-type").unwrap().contains("javascript"),
        "{:?}",
        js.headers
    );

    let wasm = http(relay.port, "GET", "/pkg/wterm_wasm_bg.wasm", &[], "").await;
    assert_eq!(wasm.status, 200);
    assert_eq!(wasm.header("content-type"), Some("application/wasm"));
    assert_eq!(wasm.header("cache-control"), Some("no-cache"));

    assert_eq!(
        http(relay.port, "GET", "/pkg/missing.js", &[], "")
            .await
            .status,
        404
    );
    assert_ne!(
        http(relay.port, "GET", "/../Cargo.toml", &[], "")
            .await
            .status,
        200
    );
}

/// Newcomer report: after a restart, an old tab's `?session=1` re-attached to a new shell that
/// got id 1 and sent it the input typed during the outage. Ids now continue across restarts.
#[tokio::test]
async fn session_ids_continue_after_a_restart() {
    let state = tempfile::tempdir().unwrap();
    let opts = || Options {
        state_dir: Some(state.path().to_path_buf()),
        ..Options::default()
    };
    let mut first = Relay::start_with(opts()).await;
    assert_eq!(first.new_session().await, 1);
    assert_eq!(first.new_session().await, 2);
    first.terminate().await;
    let second = Relay::start_with(opts()).await;
    assert_eq!(second.new_session().await, 3);
    // The old id is gone rather than reused.
    let r = http(
        second.port,
        "DELETE",
        "/sessions/1",
        &[("Authorization", &format!("Bearer {}", second.token))],
        "",
    )
    .await;
    assert_eq!(r.status, 404);
}

/// `--listen` on an address other than loopback: a warning on stderr naming the address, the
/// risk and the remedy; the printed URL names an address the network can reach.
#[tokio::test]
async fn listening_beyond_loopback_warns_and_prints_a_reachable_url() {
    let relay = Relay::start_with(Options {
        args: vec![
            "--listen".into(),
            "0.0.0.0".into(),
            "--allow-plain-http".into(),
        ],
        ..Default::default()
    })
    .await;
    let log = relay.log();
    let warning = log
        .lines()
        .find(|l| l.contains("WARNING"))
        .unwrap_or_else(|| panic!("no warning on stderr:\n{log}"));
    let port = relay.port;
    assert!(warning.contains(&format!("0.0.0.0:{port}")), "{warning}");
    assert!(warning.contains("plain HTTP"), "{warning}");
    assert!(warning.contains("token"), "{warning}");
    assert!(
        warning.contains(&format!("ssh -L {port}:127.0.0.1:{port}")),
        "{warning}"
    );
    assert!(!relay.url.starts_with("http://127.0.0.1:"), "{}", relay.url);
    assert!(!relay.url.starts_with("http://0.0.0.0:"), "{}", relay.url);
    // It serves on that address too.
    let info = relay.get("/info").await;
    assert_eq!(info.status, 200, "{}", info.body);

    // On loopback, no warning.
    let quiet = Relay::start().await;
    assert!(!quiet.log().contains("WARNING"), "{}", quiet.log());
}

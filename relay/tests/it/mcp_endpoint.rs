//! The MCP endpoint `/mcp`: the ladder and the Origin check answer before any MCP message is
//! read; the JSON-RPC errors and `DELETE /mcp` over raw HTTP. (The protocol itself is tested
//! with the official MCP TypeScript SDK:
//! `node --test tests/mcp/`.)

use crate::support::{http, Relay};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[tokio::test]
async fn the_gate_runs_before_any_mcp_message() {
    let relay = Relay::start().await;
    let post = |headers: Vec<(&'static str, String)>| {
        let port = relay.port;
        async move {
            let mut h: Vec<(&str, &str)> = vec![
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
            ];
            h.extend(headers.iter().map(|(k, v)| (*k, v.as_str())));
            http(port, "POST", "/mcp", &h, INIT).await
        }
    };
    // 1. MCP off (no token yet).
    let r = post(vec![("Authorization", "Bearer x".into())]).await;
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (403, Some("mcp_disabled"))
    );
    let mcp = relay.enable_mcp("readwrite").await;
    let auth = format!("Bearer {}", mcp.token);
    // 2. A credential in the URL.
    let r = http(
        relay.port,
        "POST",
        "/mcp?token=x",
        &[("Authorization", &auth)],
        INIT,
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (400, Some("token_in_url"))
    );
    // 3. No token, a wrong one.
    let r = post(vec![]).await;
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (401, Some("auth_required"))
    );
    let r = post(vec![("Authorization", "Bearer wrong".into())]).await;
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (401, Some("auth_required"))
    );
    // 4. A scope off the grammar.
    let r = post(vec![
        ("Authorization", auth.clone()),
        ("X-Browserland-Scope", "no spaces".into()),
    ])
    .await;
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (400, Some("bad_scope"))
    );
    // 5. A wrong admin token.
    let r = post(vec![
        ("Authorization", auth.clone()),
        ("X-Browserland-Mcp-Admin", "nope".into()),
    ])
    .await;
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (403, Some("admin_required"))
    );
    // A page on another site.
    let r = post(vec![
        ("Authorization", auth.clone()),
        ("Origin", "https://evil.example".into()),
    ])
    .await;
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (403, Some("bad_origin"))
    );
}

/// The errors answered by the protocol's rules, over raw HTTP: -32700 for a body that is not
/// JSON, -32600 for a batch, -32601 naming what is accepted, -32602 for `tools/call` arguments
/// that are not an object; `DELETE /mcp` ends a session with `200` and no body, and answers
/// `404` for a session that is not there.
#[tokio::test]
async fn protocol_errors_and_session_end_follow_the_spec() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let port = relay.port;
    let auth = format!("Bearer {}", mcp.token);
    let base = vec![
        ("Authorization", auth.clone()),
        ("Accept", "application/json, text/event-stream".to_owned()),
        ("Content-Type", "application/json".to_owned()),
        ("MCP-Protocol-Version", "2025-06-18".to_owned()),
    ];
    let call = |method: &'static str, headers: Vec<(&'static str, String)>, body: String| async move {
        let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        http(port, method, "/mcp", &h, &body).await
    };
    let init = call("POST", base.clone(), INIT.to_owned()).await;
    assert_eq!(init.status, 200, "{}", init.body);
    let session = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let mut with_session = base.clone();
    with_session.push(("Mcp-Session-Id", session.clone()));
    let note = call(
        "POST",
        with_session.clone(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
    )
    .await;
    assert_eq!(note.status, 202, "{}", note.body);

    let error_of = |r: &crate::support::HttpResponse| {
        assert_eq!(
            r.header("content-type"),
            Some("application/json"),
            "{}",
            r.body
        );
        let v = r.json();
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        (
            v["id"].clone(),
            v["error"]["code"].as_i64().unwrap(),
            v["error"]["message"].as_str().unwrap().to_owned(),
        )
    };
    // Malformed JSON, with and without a session.
    for headers in [base.clone(), with_session.clone()] {
        let r = call("POST", headers, "{\"jsonrpc\":".to_owned()).await;
        assert_eq!(r.status, 400, "{}", r.body);
        let (id, code, message) = error_of(&r);
        assert_eq!((id, code), (serde_json::Value::Null, -32700), "{message}");
    }
    // A batch.
    let r = call(
        "POST",
        with_session.clone(),
        r#"[{"jsonrpc":"2.0","id":7,"method":"ping"}]"#.to_owned(),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(error_of(&r).1, -32600);
    // An unknown method, and one this server does not serve.
    for method in ["foo/bar", "prompts/list"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":8,"method":"{method}","params":{{}}}}"#);
        let r = call("POST", with_session.clone(), body).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let (id, code, message) = error_of(&r);
        assert_eq!((id, code), (serde_json::json!(8), -32601), "{message}");
        assert!(message.contains(method), "{message}");
        assert!(message.contains("tools/call"), "{message}");
    }
    // tools/call whose arguments are not an object.
    for args in ["5", "[1]", "\"x\""] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{{"name":"mcp_info","arguments":{args}}}}}"#
        );
        let r = call("POST", with_session.clone(), body).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let (id, code, message) = error_of(&r);
        assert_eq!((id, code), (serde_json::json!("a"), -32602), "{message}");
        assert!(message.contains("arguments"), "{message}");
    }
    // A good call still works.
    let r = call(
        "POST",
        with_session.clone(),
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mcp_info","arguments":{}}}"#
            .to_owned(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains(r#""id":9,"result""#), "{}", r.body);

    // DELETE: success with no body, then 404 for the ended session and for one never made.
    let r = call("DELETE", with_session.clone(), String::new()).await;
    assert_eq!((r.status, r.body.as_str()), (200, ""), "{r:?}");
    let r = call("DELETE", with_session.clone(), String::new()).await;
    assert_eq!(r.status, 404, "{}", r.body);
    let mut unknown = base.clone();
    unknown.push(("Mcp-Session-Id", "no-such-session".to_owned()));
    let r = call("DELETE", unknown, String::new()).await;
    assert_eq!(r.status, 404, "{}", r.body);
    // The ended session's requests are refused too (rmcp: 404).
    let r = call(
        "POST",
        with_session,
        r#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#.to_owned(),
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);
}

/// Regression (found with the official Python SDK 2.x, whose `Client` speaks 2026-07-28 by
/// default): a request of that revision has no session (SEP-2567), and the relay's JSON-RPC
/// checks ran only for requests of a live session, so an unknown method got rmcp's bare
/// `-32601 "foo/bar"` and `tools/call` with `arguments: 5` got `-32601` instead of `-32602`.
#[tokio::test]
async fn sessionless_requests_of_2026_07_28_get_the_same_errors() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let auth = format!("Bearer {}", mcp.token);
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;
    let post = |method_header: &'static str, name: Option<&'static str>, body: String| {
        let auth = auth.clone();
        let port = relay.port;
        async move {
            let mut h: Vec<(&str, &str)> = vec![
                ("Authorization", &auth),
                ("Accept", "application/json, text/event-stream"),
                ("Content-Type", "application/json"),
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", method_header),
            ];
            if let Some(n) = name {
                h.push(("Mcp-Name", n));
            }
            http(port, "POST", "/mcp", &h, &body).await
        }
    };
    let error = |r: &crate::support::HttpResponse| {
        // A JSON answer, or one SSE event holding it.
        let text = r
            .body
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .unwrap_or(&r.body)
            .to_owned();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        (
            v["id"].clone(),
            v["error"]["code"].as_i64(),
            v["error"]["message"].as_str().unwrap_or("").to_owned(),
        )
    };
    // A request of the revision works without a session.
    let r = post(
        "tools/list",
        None,
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{meta}}}}}"#),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("read_screen"), "{}", r.body);
    let r = post(
        "foo/bar",
        None,
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"foo/bar","params":{{"_meta":{meta}}}}}"#),
    )
    .await;
    let (id, code, message) = error(&r);
    assert_eq!(
        (id, code),
        (serde_json::json!(2), Some(-32601)),
        "{}",
        r.body
    );
    assert!(message.contains("tools/call"), "{message}");
    let r = post(
        "tools/call",
        Some("mcp_info"),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"mcp_info","arguments":5,"_meta":{meta}}}}}"#
        ),
    )
    .await;
    let (id, code, message) = error(&r);
    assert_eq!(
        (id, code),
        (serde_json::json!(3), Some(-32602)),
        "{}",
        r.body
    );
    assert!(message.contains("arguments must be an object"), "{message}");
}

/// A request of a revision with sessions but without `Mcp-Session-Id` was answered by rmcp
/// with `400` and plain text (a newcomer's report); it is a JSON-RPC error saying how to get a
/// session.
#[tokio::test]
async fn a_request_without_its_session_gets_a_jsonrpc_error() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let auth = format!("Bearer {}", mcp.token);
    let r = http(
        relay.port,
        "POST",
        "/mcp",
        &[
            ("Authorization", &auth),
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
            ("MCP-Protocol-Version", "2025-06-18"),
        ],
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}"#,
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    let v = r.json();
    assert_eq!(v["id"], 4, "{v}");
    assert_eq!(v["error"]["code"], -32600, "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("initialize") && message.contains("2026-07-28"),
        "{message}"
    );
}

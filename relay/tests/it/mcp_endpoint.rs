//! The MCP endpoint `/mcp`: the ladder and the Origin check answer before any MCP message is
//! read. (The protocol itself is tested with the official MCP TypeScript SDK:
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

//! The memory budget of the sessions' terminals (`--memory-budget-mib`): a new
//! session or a resize past it is refused with the figures, nothing half-made; the figure is on
//! `/info` and `/mcp/info`.

use serde_json::{json, Value};

use crate::support::{Options, Relay};

/// 1000x1000 counts about 72 MB (screens and 10000 rows of plain history): one fits in 100 MiB,
/// two do not.
async fn relay_of(mib: u64) -> Relay {
    Relay::start_with(Options {
        args: vec!["--memory-budget-mib".into(), mib.to_string()],
        ..Options::default()
    })
    .await
}

async fn memory(relay: &Relay) -> (u64, u64) {
    let info = relay.get("/info").await.json();
    (
        info["memory"]["budget_bytes"].as_u64().unwrap(),
        info["memory"]["reserved_bytes"].as_u64().unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_past_the_budget_are_refused_whole() {
    let relay = relay_of(100).await;
    assert_eq!(memory(&relay).await, (100 * 1024 * 1024, 0));
    let big = r#"{"cols":1000,"rows":1000}"#;
    let r = relay.post("/sessions", big).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let first = r.json()["id"].as_u64().unwrap();
    let (_, reserved) = memory(&relay).await;
    assert!((70_000_000..90_000_000).contains(&reserved), "{reserved}");

    let r = relay.post("/sessions", big).await;
    assert_eq!(r.status, 429, "{}", r.body);
    let body: Value = r.json();
    assert_eq!(body["error"], "memory_budget", "{body}");
    let detail = body["detail"].as_str().unwrap();
    assert!(
        detail.contains("MiB") && detail.contains("--memory-budget-mib"),
        "{detail}"
    );
    // Nothing half-made: one session listed, the reservation unchanged.
    let listed = relay.get("/sessions").await.json();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(memory(&relay).await.1, reserved);

    // A small one still fits; growing it to the largest does not: the size stays and the
    // page is told why.
    let small = relay.new_session().await;
    let mut page = relay.attach(Some(small)).await;
    page.expect_attach().await;
    let before = memory(&relay).await.1;
    page.send_json(json!({"type": "resize", "cols": 1000, "rows": 1000}))
        .await;
    let resized = page.wait_text("resized").await;
    assert_eq!(
        (resized["cols"].as_u64(), resized["rows"].as_u64()),
        (Some(80), Some(24)),
        "{resized}"
    );
    let error = page.wait_text("error").await;
    assert_eq!(error["reason"], "memory_budget", "{error}");
    assert_eq!(memory(&relay).await.1, before);
    let listed = relay.get("/sessions").await.json();
    let row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == small)
        .unwrap()
        .clone();
    assert_eq!(
        (row["cols"].as_u64(), row["rows"].as_u64()),
        (Some(80), Some(24)),
        "{row}"
    );
    // A resize within the budget goes through and counts.
    page.send_json(json!({"type": "resize", "cols": 120, "rows": 40}))
        .await;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while memory(&relay).await.1 <= before {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the resize was not counted"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }

    // MCP launch is held to the same budget.
    let mcp = relay.enable_mcp("readwrite").await;
    let r = relay
        .post("/mcp/config", &json!({"allow_launch": true}).to_string())
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = mcp
        .post("/mcp/launch", json!({"cols": 1000, "rows": 1000}))
        .await;
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (429, json!("memory_budget")),
        "{}",
        r.body
    );
    let info = mcp.get("/mcp/info").await.json();
    assert_eq!(info["memory"]["budget_bytes"], 100 * 1024 * 1024, "{info}");

    // Ending the big one gives its share back; then another fits.
    let auth = format!("Bearer {}", relay.token);
    let r = crate::support::http(
        relay.port,
        "DELETE",
        &format!("/sessions/{first}"),
        &[("Authorization", &auth)],
        "",
    )
    .await;
    assert_eq!(r.status, 204, "{}", r.body);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let r = relay.post("/sessions", big).await;
        if r.status == 200 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the budget was not given back: {}",
            r.body
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_budget_is_refused_at_start() {
    for bad in ["0", "-1", "lots"] {
        let dir = tempfile::tempdir().unwrap();
        let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_wterm-relay"))
            .args([
                "--port",
                "0",
                &format!("--memory-budget-mib={bad}"),
                "--state-dir",
            ])
            .arg(dir.path())
            .output()
            .await
            .unwrap();
        assert!(!out.status.success(), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--memory-budget-mib"), "{bad}: {err}");
    }
}

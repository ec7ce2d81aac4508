//! Secrets on a window reach agents as `[redacted:KIND]` through every broker route (reads and
//! their waits, commands and their output, listings, the audit log); the relay's own tokens are
//! `relay_token`; only the person at the page (`POST /session/mcp {redact}`) turns it off.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::commands::{run, terminal};
use crate::support::{Mcp, Options, Relay};

/// A GitHub token's shape (`ghp_` then 36 of [A-Za-z0-9]); made up.
const TOKEN: &str = "ghp_Abcdefghij0123456789Abcdefghij012345";
/// A line that prints `tok=TOKEN` without the whole token in the echoed command line.
const PRINT_TOKEN: &str = "printf '%s%s\\n' tok=ghp_Abcdefghij0123456789 Abcdefghij012345\r";
const ADMIN_TOKEN: &str = "redaction-admin-token-0123";

/// A relay with an admin token and MCP on (readwrite), and a bash window reporting commands.
async fn ready() -> (Relay, Mcp, u64) {
    let relay = Relay::start_with(Options {
        env: vec![("WEB_TERMINAL_MCP_ADMIN_TOKEN".into(), ADMIN_TOKEN.into())],
        ..Options::default()
    })
    .await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    let deadline = Instant::now() + Duration::from_secs(15);
    while terminal(&mcp, id).await["shell"]["state"] == "unknown" {
        assert!(Instant::now() < deadline, "the shell never reported");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (relay, mcp, id)
}

fn kinds(answer: &Value) -> Vec<String> {
    answer["redacted"]["kinds"]
        .as_array()
        .map(|k| k.iter().map(|k| k.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_on_screen_is_redacted_in_reads_and_waits() {
    let (relay, mcp, id) = ready().await;
    mcp.type_text(id, PRINT_TOKEN).await;
    // The wait matches the redacted text: what the answer shows.
    let a = mcp.wait_text(id, "tok=[redacted:github_token]").await;
    let text = a["text"].as_str().unwrap();
    assert!(!text.contains(TOKEN), "{text}");
    assert!(a["redacted"]["count"].as_u64().unwrap() >= 1, "{a}");
    assert_eq!(kinds(&a), ["github_token"], "{a}");

    // A wait for the secret's own text cannot match (it would tell an agent the secret).
    let probe = mcp
        .read(json!({"id": id, "wait_for_text": TOKEN, "timeout_ms": 300}))
        .await;
    assert_eq!(probe["matched"], false, "{probe}");
    assert!(!probe.to_string().contains(TOKEN));
    let redacted_hash = mcp.read(json!({"id": id})).await["content_hash"].clone();

    // No MCP route turns redaction off, not even with the admin token.
    let admin = mcp.admin(ADMIN_TOKEN);
    let r = admin
        .post("/mcp/window", json!({"id": id, "redact": false}))
        .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("redact"), "{}", r.body);
    assert_eq!(terminal(&mcp, id).await["redact"], true);

    // The person at the page can: agents then read the window as it is.
    let w = relay.set_window(json!({"id": id, "redact": false})).await;
    assert_eq!(w["redact"], false, "{w}");
    assert_eq!(terminal(&mcp, id).await["redact"], false);
    let raw = mcp.read(json!({"id": id})).await;
    assert!(raw["text"].as_str().unwrap().contains(TOKEN), "{raw}");
    assert_eq!(raw.get("redacted"), None, "{raw}");
    assert_ne!(
        raw["content_hash"], redacted_hash,
        "the hash is of the text answered"
    );

    // A bad value is refused with what is accepted, and changes nothing.
    let r = relay
        .post(
            "/session/mcp",
            &json!({"id": id, "redact": "no", "mode": "read"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("redact: accepted: true"), "{}", r.body);
    let row = terminal(&mcp, id).await;
    assert_eq!(row["redact"], false, "{row}");
    assert_eq!(
        row["mode"], "readwrite",
        "the mode was not half-applied: {row}"
    );

    // null is the default: redacted again.
    let w = relay.set_window(json!({"id": id, "redact": null})).await;
    assert_eq!(w["redact"], true, "{w}");
    let again = mcp.read(json!({"id": id})).await;
    assert!(!again["text"].as_str().unwrap().contains(TOKEN), "{again}");
    assert_eq!(again["content_hash"], redacted_hash);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_and_their_output_are_redacted() {
    let (_relay, mcp, id) = ready().await;
    // The secret is in what the command prints.
    let a = run(
        &mcp,
        id,
        "printf 'API_TOKEN=%s%s\\n' ghp_Abcdefghij0123456789 Abcdefghij012345",
    )
    .await;
    assert_eq!(a["exit_code"], 0, "{a}");
    let out = a["output"].as_str().unwrap();
    assert!(out.contains("API_TOKEN=[redacted:github_token]"), "{a}");
    assert!(!a.to_string().contains(TOKEN), "{a}");
    // The command line's `API_TOKEN=...` is a secret assignment to the core's rule.
    assert_eq!(kinds(&a), ["secret_assignment", "github_token"], "{a}");

    // The secret is in the command line itself: the answer, the shell facts and the listing.
    let a = run(&mcp, id, &format!("echo {TOKEN} >/dev/null")).await;
    assert_eq!(
        a["command"], "echo [redacted:github_token] >/dev/null",
        "{a}"
    );
    assert!(!a.to_string().contains(TOKEN), "{a}");
    let row = terminal(&mcp, id).await;
    assert!(!row.to_string().contains(TOKEN), "{row}");
    assert_eq!(kinds(&row), ["github_token"], "{row}");

    // wait_for_command on a command that already ended answers it redacted too.
    let w = mcp
        .read(json!({"id": id, "wait_for_command": true, "timeout_ms": 5000}))
        .await;
    assert!(!w.to_string().contains(TOKEN), "{w}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_relays_own_tokens_are_redacted_and_never_audited() {
    let (relay, mcp, id) = ready().await;
    for (name, secret) in [
        ("page", relay.token.clone()),
        ("mcp", mcp.token.clone()),
        ("admin", ADMIN_TOKEN.to_owned()),
    ] {
        mcp.type_text(id, &format!("echo {name}={secret}\r")).await;
        let a = mcp
            .wait_text(id, &format!("\n{name}=[redacted:relay_token]"))
            .await;
        assert!(!a.to_string().contains(&secret), "{name}: {a}");
        assert_eq!(kinds(&a), ["relay_token"], "{name}: {a}");
    }
    // Every call above is in the audit log, its typed data summarised without the tokens.
    let dir = relay.state_dir.join("audit");
    let files = wterm_relay::broker::audit::files(&dir);
    assert!(!files.is_empty());
    let all: String = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(all.contains("[redacted:relay_token]"), "{all}");
    for secret in [relay.token.as_str(), mcp.token.as_str(), ADMIN_TOKEN] {
        assert!(!all.contains(secret), "a token in the audit log");
    }
}

//! The state files: `webterm_mcp.json` and `webterm_mcp_windows.json` across relay restarts.
//!
//! What is tested here, honestly: a relay's sessions end with the relay (they are its children
//! and get SIGHUP on shutdown), so no session of a restarted relay can be the same process as
//! a row written by the previous one. The restart test therefore checks the parts that can be
//! observed end to end: rows are written before the answer with the session's pid and host;
//! on restart a row whose process is still alive (here a child of the test standing in for a
//! window that outlived the relay) is kept, rows of dead processes, malformed rows and rows
//! unseen for more than 7 days are dropped; and a reused id with another process starts
//! untagged at the default mode. The same-pid, same-host rule itself is unit-tested in
//! `broker::store` (`a_row_applies_to_its_own_process_on_its_own_host_only`).

use std::os::unix::fs::PermissionsExt as _;

use serde_json::{json, Value};

use crate::support::{Options, Relay};

fn windows_file(relay: &Relay) -> Value {
    let text = std::fs::read_to_string(relay.state_dir.join("webterm_mcp_windows.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn window_settings_are_on_disk_before_the_answer() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("read").await;
    let settings = relay.state_dir.join("webterm_mcp.json");
    assert_eq!(mode(&settings), 0o600);
    let id = relay.new_session().await;
    let pid = relay.get("/sessions").await.json()[0]["pid"]
        .as_u64()
        .unwrap();
    relay
        .set_window(json!({"id": id, "mode": "readwrite", "scope": "team-a"}))
        .await;
    // Read right after the answer: already written.
    let rows = windows_file(&relay);
    let row = &rows["windows"][id.to_string()];
    assert_eq!(row["scope"], "team-a");
    assert_eq!(row["mode"], "readwrite");
    assert_eq!(row["owner"], Value::Null);
    assert_eq!(row["pid"], pid);
    assert_eq!(row["host"], wterm_relay::broker::hostname());
    assert!(row["seen"].as_u64().unwrap() > 1_600_000_000);
    assert_eq!(
        mode(&relay.state_dir.join("webterm_mcp_windows.json")),
        0o600
    );
    // Clearing everything removes the row.
    relay
        .set_window(json!({"id": id, "mode": null, "scope": null}))
        .await;
    assert!(windows_file(&relay)["windows"]
        .get(id.to_string())
        .is_none());
    assert_eq!(mcp.ids().await, vec![id]);
}

#[tokio::test]
async fn a_restart_keeps_rows_of_live_processes_and_a_reused_id_starts_untagged() {
    // Session ids continue across restarts (next_session_id), so the id the next session gets
    // is `id + 1`; its row here belongs to another (live) process.
    let state = tempfile::tempdir().unwrap();
    let opts = || Options {
        state_dir: Some(state.path().to_path_buf()),
        env: vec![("WEB_TERMINAL_MCP_TOKEN".into(), "persist-token".into())],
        ..Options::default()
    };
    let mut first = Relay::start_with(opts()).await;
    first
        .post(
            "/mcp/config",
            r#"{"enabled": true, "default_mode": "read", "allow_launch": true}"#,
        )
        .await;
    let id = first.new_session().await;
    first
        .set_window(json!({"id": id, "mode": "off", "scope": "team-a"}))
        .await;
    let mut rows = windows_file(&first);
    first.terminate().await;

    // Stand-ins: a process that outlived the relay, one that did not, and other rows.
    let mut alive = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let mut dead = std::process::Command::new("true").spawn().unwrap();
    dead.wait().unwrap();
    let host = wterm_relay::broker::hostname();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let w = rows["windows"].as_object_mut().unwrap();
    let mut kept = w[&id.to_string()].clone();
    kept["pid"] = json!(alive.id());
    w.insert("41".into(), kept.clone());
    w.insert((id + 1).to_string(), kept);
    w.insert(
        "42".into(),
        json!({"scope": null, "mode": "read", "owner": null, "pid": dead.id(), "host": host, "seen": now}),
    );
    w.insert(
        "43".into(),
        json!({"scope": null, "mode": "read", "owner": null, "pid": 7, "host": "elsewhere", "seen": now - 8 * 86400}),
    );
    w.insert(
        "44".into(),
        json!({"scope": "far", "mode": "read", "owner": null, "pid": 7, "host": "elsewhere", "seen": now - 60}),
    );
    w.insert(
        "45".into(),
        json!({"scope": "bad scope", "pid": 1, "host": host, "seen": now}),
    );
    std::fs::write(
        state.path().join("webterm_mcp_windows.json"),
        serde_json::to_vec(&rows).unwrap(),
    )
    .unwrap();

    let second = Relay::start_with(opts()).await;
    let on_disk = windows_file(&second);
    let mut ids: Vec<&String> = on_disk["windows"].as_object().unwrap().keys().collect();
    ids.sort();
    let next = (id + 1).to_string();
    assert_eq!(ids, vec![&next, "41", "44"], "{on_disk}");
    assert_eq!(on_disk["windows"]["41"]["scope"], "team-a");
    assert!(
        second.log().contains("dropped malformed rows"),
        "{}",
        second.log()
    );
    let cfg = second.get("/mcp/config").await.json();
    assert_eq!(
        (
            cfg["enabled"].clone(),
            cfg["default_mode"].clone(),
            cfg["allow_launch"].clone()
        ),
        (json!(true), json!("read"), json!(true)),
        "the settings survived the restart"
    );
    assert_eq!(cfg["known_scopes"], json!(["far", "team-a"]));

    // The id its row names, another process: untagged, at the default mode.
    let reused = second.new_session().await;
    assert_eq!(reused, id + 1, "ids continue after a restart");
    let mcp = crate::support::Mcp {
        port: second.port,
        token: "persist-token".into(),
        scope: None,
        admin: None,
    };
    let listed = mcp.get("/mcp/terminals").await.json();
    assert_eq!(listed[0]["id"], reused);
    assert_eq!(
        (listed[0]["mode"].clone(), listed[0]["scope"].clone()),
        (json!("read"), json!(null))
    );
    let page = second.set_window(json!({"id": reused})).await;
    assert_eq!(
        (page["mode"].clone(), page["scope"].clone()),
        (json!(null), json!(null))
    );

    let _ = alive.kill();
    let _ = alive.wait();
}

#[tokio::test]
async fn a_corrupt_windows_file_starts_empty_with_one_warning() {
    let state = tempfile::tempdir().unwrap();
    std::fs::write(
        state.path().join("webterm_mcp_windows.json"),
        b"{\"windows\": [",
    )
    .unwrap();
    std::fs::write(state.path().join("webterm_mcp.json"), b"not json").unwrap();
    let relay = Relay::start_with(Options {
        state_dir: Some(state.path().to_path_buf()),
        ..Options::default()
    })
    .await;
    let log = relay.log();
    assert_eq!(log.matches("windows file is unusable").count(), 1, "{log}");
    assert_eq!(
        log.matches("MCP settings file is corrupt").count(),
        1,
        "{log}"
    );
    let cfg = relay.get("/mcp/config").await.json();
    assert_eq!(
        cfg["enabled"], false,
        "a corrupt settings file leaves MCP off"
    );
    let mcp = relay.enable_mcp("read").await;
    let id = relay.new_session().await;
    relay.set_window(json!({"id": id, "scope": "s1"})).await;
    assert_eq!(
        windows_file(&relay)["windows"][id.to_string()]["scope"],
        "s1"
    );
    assert_eq!(mcp.scoped("s1").ids().await, vec![id]);
}

/// A relay killed during a state write (SIGKILL between the temporary file and its rename)
/// leaves `.NAME.tmp.PID` beside the file, holding the tokens of that moment; the next start
/// removes it (and any below the state directory), and keeps everything else.
#[tokio::test]
async fn temporary_files_of_an_interrupted_write_are_removed_at_start() {
    let state = tempfile::tempdir().unwrap();
    // A finished child: its pid names no live process.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let left = [
        state.path().join(format!(".webterm_mcp.json.tmp.{dead}")),
        state
            .path()
            .join(format!(".webterm_mcp_windows.json.tmp.{dead}")),
        state.path().join(format!(".page_token.tmp.{dead}")),
    ];
    let mine = state.path().join("notes.tmp");
    for f in left.iter().chain([&mine]) {
        std::fs::write(f, r#"{"token":"left-behind-secret"}"#).unwrap();
    }
    let relay = Relay::start_with(Options {
        state_dir: Some(state.path().to_path_buf()),
        ..Options::default()
    })
    .await;
    for f in &left {
        assert!(!f.exists(), "{} is still there", f.display());
    }
    assert!(mine.exists());
    let log = relay.log();
    assert_eq!(
        log.matches("removed a temporary file left by an interrupted write")
            .count(),
        3,
        "{log}"
    );
}

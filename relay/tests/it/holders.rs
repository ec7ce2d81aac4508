//! Sessions that outlive the relay: each session's program runs in a holder process
//! (`wterm-relay hold`), and a relay started on the same state directory takes the sessions
//! over with their ids, screens, history, modes, title, cwd and window settings. Real relays,
//! real bash and vim on real PTYs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{process_exists, signal, Options, Relay, WAIT};

/// Ends every holder (and so its program) of this state directory when the test ends, however
/// it ends: holders outlive relays by design. A holder's argv names its socket.
struct Holders {
    pids: Vec<i32>,
    state_dir: PathBuf,
}

impl Holders {
    fn new(state_dir: &Path) -> Holders {
        Holders {
            pids: Vec::new(),
            state_dir: state_dir.to_path_buf(),
        }
    }

    /// Notes the holders of `relay`'s sessions (the parents of their programs).
    async fn note(&mut self, relay: &Relay) {
        for s in relay.get("/sessions").await.json().as_array().unwrap() {
            if let Some(pid) = s["pid"].as_i64() {
                if let Some(parent) = ppid(pid as i32) {
                    if !self.pids.contains(&parent) {
                        self.pids.push(parent);
                    }
                }
            }
        }
    }
}

impl Drop for Holders {
    fn drop(&mut self) {
        let dir = self.state_dir.join("holders").display().to_string();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            if let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() {
                let line = cmdline(pid);
                if line.contains(" hold ") && line.contains(&dir) {
                    self.pids.push(pid);
                }
            }
        }
        for &pid in &self.pids {
            // Each holder leads its own process group (setsid).
            signal(-pid, libc::SIGKILL);
            signal(pid, libc::SIGKILL);
        }
    }
}

fn ppid(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

fn cmdline(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// A relay on `state` with the default: sessions held (no `--persist` needed).
async fn start(state: &Path, extra: &[&str]) -> Relay {
    start_env(state, extra, &[]).await
}

async fn start_env(state: &Path, extra: &[&str], env: &[(&str, &str)]) -> Relay {
    Relay::start_with(Options {
        state_dir: Some(state.to_path_buf()),
        args: extra.iter().map(|s| (*s).to_owned()).collect(),
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        held: true,
        ..Options::default()
    })
    .await
}

fn sessions(list: &Value) -> Vec<(u64, u64)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_u64().unwrap(), s["pid"].as_u64().unwrap()))
        .collect()
}

/// SIGKILL and wait until the process is gone.
async fn kill_hard(relay: &mut Relay) {
    let pid = relay.pid();
    signal(pid, libc::SIGKILL);
    relay.wait_exit().await;
}

async fn restart_keeps_a_shell(hard: bool) {
    let state = tempfile::tempdir().unwrap();
    let state_dir: PathBuf = state.path().join("state");
    let mut holders = Holders::new(&state_dir);
    let mut relay = start(&state_dir, &[]).await;
    let mut page = relay.attach(None).await;
    let id = page.expect_text().await["id"].as_u64().unwrap();
    page.expect_attach().await;
    page.wait_output(b"$ ", WAIT).await;
    holders.note(&relay).await;
    let before = sessions(&relay.get("/sessions").await.json());
    let pid = before[0].1 as i32;
    assert!(
        cmdline(ppid(pid).unwrap()).contains(" hold"),
        "the shell is a holder's child: {}",
        cmdline(ppid(pid).unwrap())
    );
    page.send_input(
        b"cd /tmp && printf '\\033]2;kept-title\\007\\033[?1h' && seq 1 300 && echo m1-$((40+2))\r",
    )
    .await;
    page.wait_output(b"m1-42", WAIT).await;
    // Output the relay will not see before it goes: written while it is down (SIGTERM) or
    // after its last snapshot (SIGKILL).
    page.send_input(b"sleep 1; echo late-$((6*7))\r").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    if hard {
        kill_hard(&mut relay).await;
    } else {
        let status = relay.terminate().await;
        assert!(status.success(), "{status:?}");
    }
    assert!(
        process_exists(pid),
        "the shell outlived the relay:\n{}",
        relay.log()
    );
    tokio::time::sleep(Duration::from_millis(1200)).await;

    let relay2 = start(&state_dir, &[]).await;
    holders.note(&relay2).await;
    let after = sessions(&relay2.get("/sessions").await.json());
    assert_eq!(after, before, "same ids, same processes:\n{}", relay2.log());
    let info = &relay2.get("/sessions").await.json()[0];
    assert_eq!(info["title"], "kept-title", "{info}");
    let mut page2 = relay2.attach(Some(id)).await;
    let (_, snapshot) = page2.expect_attach().await;
    let text = String::from_utf8_lossy(&snapshot).into_owned();
    assert!(text.contains("m1-42"), "screen kept: {text:?}");
    // History: `seq` scrolled its first lines off a 24-row screen.
    assert!(text.contains("\r\n17\r\n"), "history kept: {text:?}");
    assert!(text.contains("\x1b[?1h"), "DECCKM kept: {text:?}");
    // Written while no relay was there: the holder kept it (in its ring, or unread on the PTY).
    if !text.contains("late-42") {
        page2.wait_output(b"late-42", WAIT).await;
    }
    page2.send_input(b"pwd; echo m2-$((1+1))\r").await;
    page2.wait_output(b"/tmp\r\nm2-2", WAIT).await;
    // DELETE still ends a held shell, and its holder with it.
    let holder = ppid(pid).unwrap();
    let auth = format!("Bearer {}", relay2.token);
    let r = crate::support::http(
        relay2.port,
        "DELETE",
        &format!("/sessions/{id}"),
        &[("Authorization", &auth)],
        "",
    )
    .await;
    assert!(
        r.status == 200 || r.status == 204,
        "{} {}",
        r.status,
        r.body
    );
    let deadline = std::time::Instant::now() + WAIT;
    while (process_exists(pid) || process_exists(holder)) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!process_exists(holder), "the holder ended with its shell");
    assert!(
        !state_dir.join(format!("holders/{id}.sock")).exists(),
        "its socket is gone"
    );
}

#[tokio::test]
async fn a_shell_outlives_sigterm_of_the_relay() {
    restart_keeps_a_shell(false).await;
}

#[tokio::test]
async fn a_shell_outlives_sigkill_of_the_relay() {
    restart_keeps_a_shell(true).await;
}

#[tokio::test]
async fn without_persist_the_shell_ends_with_the_relay() {
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let mut relay = Relay::start_with(Options {
        state_dir: Some(state_dir.clone()),
        args: vec!["--no-persist".into()],
        ..Options::default()
    })
    .await;
    let id = relay.new_session().await;
    let pid = sessions(&relay.get("/sessions").await.json())[0].1 as i32;
    assert_eq!(ppid(pid), Some(relay.pid()), "a child of the relay itself");
    relay.terminate().await;
    let deadline = std::time::Instant::now() + WAIT;
    while process_exists(pid) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!process_exists(pid));
    let relay2 = start(&state_dir, &[]).await;
    assert_eq!(relay2.get("/sessions").await.json(), json!([]));
    let _ = id;
}

#[tokio::test]
async fn a_foreign_or_dead_socket_is_removed_and_named_in_the_log() {
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let holders_dir = state_dir.join("holders");
    std::fs::create_dir_all(&holders_dir).unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(
        &mut std::fs::metadata(&holders_dir).unwrap().permissions(),
        0o700,
    );
    // A socket nobody listens on any more (its holder was killed).
    let dead = holders_dir.join("7.sock");
    drop(std::os::unix::net::UnixListener::bind(&dead).unwrap());
    // Not a socket at all.
    let plain = holders_dir.join("8.sock");
    std::fs::write(&plain, b"x").unwrap();
    let relay = start(&state_dir, &[]).await;
    assert_eq!(relay.get("/sessions").await.json(), json!([]));
    assert!(!dead.exists() && !plain.exists());
    let log = relay.log();
    assert!(
        log.contains("7.sock") && log.contains("nobody answers"),
        "{log}"
    );
    assert!(
        log.contains("8.sock") && log.contains("not a socket"),
        "{log}"
    );
}

/// The scene held sessions are for: a page attached, `sleep 1000` in one session, vim in another, an MCP
/// client holding a scoped window in `readwrite`; the relay restarts (SIGTERM, then SIGKILL):
/// all three are there with the same ids and processes, vim's screen is intact and takes keys,
/// the MCP client's next call works with the same window id, and the page's session is found
/// again by a page reconnecting to the same id.
async fn the_issue_scene(hard: bool) {
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("notes.txt");
    std::fs::write(&file, "first line\nsecond line\n").unwrap();
    let mut holders = Holders::new(&state_dir);
    let mut relay = start(&state_dir, &[]).await;
    let mcp = relay.enable_mcp("off").await;
    let team = mcp.scoped("team-a");

    let sleeper = relay.new_session().await;
    let editor = relay.new_session().await;
    let agent = relay.new_session().await;
    relay
        .set_window(json!({"id": agent, "mode": "readwrite", "scope": "team-a"}))
        .await;
    team.wait_text(agent, "$").await;
    team.type_text(agent, "echo agent-$((2*21))\r").await;
    team.wait_text(agent, "agent-42").await;

    let mut page_sleep = attach_at_prompt(&relay, sleeper).await;
    page_sleep.send_input(b"sleep 1000\r").await;
    let mut page_vim = attach_at_prompt(&relay, editor).await;
    page_vim
        .send_input(format!("vim -u NONE -N {}\r", file.display()).as_bytes())
        .await;
    page_vim.wait_output(b"second line", WAIT).await;
    page_vim.send_input(b"Goadded before restart\x1b").await;
    page_vim.wait_output(b"restart", WAIT).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    holders.note(&relay).await;
    let before = sessions(&relay.get("/sessions").await.json());
    let sleep_pid = child_named(before[0].1 as i32, "sleep").expect("sleep runs");

    if hard {
        kill_hard(&mut relay).await;
    } else {
        relay.terminate().await;
    }
    // The page sees the relay go (1012 on SIGTERM, a dropped connection on SIGKILL), not the
    // session's end.
    let close = page_vim.wait_gone().await;
    if hard {
        assert_ne!(close, Some(1000));
    } else {
        assert_eq!(close, Some(1012), "service restart: the page reconnects");
    }
    assert!(process_exists(sleep_pid), "sleep 1000 outlived the relay");

    // On the same port, as a relay restarted by its service manager: the MCP client is the
    // same client.
    let port = relay.port.to_string();
    let relay2 = start(&state_dir, &["--port", &port]).await;
    holders.note(&relay2).await;
    assert_eq!(
        sessions(&relay2.get("/sessions").await.json()),
        before,
        "{}",
        relay2.log()
    );
    assert!(process_exists(sleep_pid), "sleep still runs");
    // The MCP client's next call, same token, same scope, same window id.
    let read = team.read(json!({"id": agent})).await;
    assert!(
        read["text"].as_str().unwrap().contains("agent-42"),
        "{read}"
    );
    team.type_text(agent, "echo again-$((3*3))\r").await;
    team.wait_text(agent, "again-9").await;
    // Another scope still sees nothing of it.
    let other = mcp
        .scoped("team-b")
        .post("/mcp/read", json!({"id": agent}))
        .await;
    assert_ne!(other.status, 200, "{}", other.body);
    // The page reconnects to the same id and finds vim as it was.
    let mut page = relay2.attach(Some(editor)).await;
    let (_, snapshot) = page.expect_attach().await;
    let text = String::from_utf8_lossy(&snapshot).into_owned();
    assert!(
        text.contains("first line") && text.contains("added before restart"),
        "{text:?}"
    );
    assert!(
        text.contains("\x1b[?47h"),
        "still on the alternate screen: {text:?}"
    );
    page.send_input(b"ggOtyped after restart\x1b:wq\r").await;
    let want = "typed after restart\nfirst line\nsecond line\nadded before restart\n";
    let deadline = std::time::Instant::now() + WAIT;
    while std::fs::read_to_string(&file).unwrap() != want && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), want);
    let _ = page_sleep;
}

/// A page attached to session `id` once its shell shows its prompt (in the attach snapshot or
/// after it).
async fn attach_at_prompt(relay: &Relay, id: u64) -> crate::support::Page {
    let mut page = relay.attach(Some(id)).await;
    let (_, snapshot) = page.expect_attach().await;
    // Inside the snapshot the blank after `$` is trimmed.
    if !snapshot.contains(&b'$') {
        page.wait_output(b"$ ", WAIT).await;
    }
    page
}

/// A process named `name` among the children of `parent`.
fn child_named(parent: i32, name: &str) -> Option<i32> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            if ppid(pid) == Some(parent) && cmdline(pid).starts_with(name) {
                return Some(pid);
            }
        }
        if std::time::Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test]
async fn the_issue_scene_survives_sigterm() {
    the_issue_scene(false).await;
}

#[tokio::test]
async fn the_issue_scene_survives_sigkill() {
    the_issue_scene(true).await;
}

/// An upgrade: a relay of this build starts a shell (with a running job) and a vim, SIGTERM,
/// a relay of another build takes them over; then back again after that one's SIGKILL. The
/// holders keep speaking their protocol to a binary other than their own. The other build is
/// this relay's binary copied to another path and labelled at run time (`WTERM_BUILD_ID`):
/// the holder protocol sees only the executable and the label, and a second compile took
/// about 7 minutes of the test run.
#[tokio::test]
async fn sessions_survive_an_upgrade_to_another_build() {
    let bin_dir = tempfile::tempdir().unwrap();
    let other = bin_dir.path().join("wterm-relay");
    std::fs::copy(env!("CARGO_BIN_EXE_wterm-relay"), &other).unwrap();
    let other_build = "upgrade-b";
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let mut holders = Holders::new(&state_dir);
    let mut relay = start(&state_dir, &[]).await;
    let shell = relay.new_session().await;
    let mut page = attach_at_prompt(&relay, shell).await;
    page.send_input(b"n=0; while :; do n=$((n+1)); sleep 0.2; done &\r")
        .await;
    page.send_input(b"echo one-$((1+1))\r").await;
    page.wait_output(b"one-2", WAIT).await;
    let before = sessions(&relay.get("/sessions").await.json());
    relay.terminate().await;

    let mut upgraded = Relay::start_with(Options {
        state_dir: Some(state_dir.clone()),
        args: vec!["--persist".into()],
        bin: Some(other.clone()),
        env: vec![("WTERM_BUILD_ID".into(), other_build.into())],
        ..Options::default()
    })
    .await;
    holders.note(&upgraded).await;
    assert_eq!(sessions(&upgraded.get("/sessions").await.json()), before);
    let log = upgraded.log();
    assert!(log.contains("session taken over from its holder"), "{log}");
    // The new build's own sessions are held by the new build.
    let fresh = upgraded.new_session().await;
    let mut page = attach_at_prompt(&upgraded, shell).await;
    page.send_input(b"jobs; echo two-$((2+2))\r").await;
    page.wait_output(b"two-4", WAIT).await;
    kill_hard(&mut upgraded).await;

    // And back: this build takes over a holder of the other build.
    let relay = start(&state_dir, &[]).await;
    holders.note(&relay).await;
    let ids: Vec<u64> = sessions(&relay.get("/sessions").await.json())
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(ids, vec![shell, fresh]);
    let log = relay.log();
    assert!(
        log.contains(&format!("holder_build=\"{other_build}\"")),
        "the other build's holder was taken over: {log}"
    );
    let mut page = attach_at_prompt(&relay, fresh).await;
    page.send_input(b"echo three-$((3+3))\r").await;
    page.wait_output(b"three-6", WAIT).await;
}

/// The relay's binary replaced on disk while it runs (`scripts/run.sh` rebuilds it in place),
/// then removed: new shells still start, in holders of the running build whose argv names the
/// binary's path (not "... (deleted)"), and the shell started before keeps working.
#[tokio::test]
async fn new_shells_start_after_the_binary_is_replaced_or_removed() {
    let bin_dir = tempfile::tempdir().unwrap();
    let bin = bin_dir.path().join("wterm-relay");
    std::fs::copy(env!("CARGO_BIN_EXE_wterm-relay"), &bin).unwrap();
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let mut holders = Holders::new(&state_dir);
    let relay = Relay::start_with(Options {
        state_dir: Some(state_dir.clone()),
        bin: Some(bin.clone()),
        held: true,
        ..Options::default()
    })
    .await;
    let before = relay.new_session().await;
    holders.note(&relay).await;
    // A new file under the old name, as a rebuild leaves it: the running one is "(deleted)".
    let fresh = bin_dir.path().join("wterm-relay.new");
    std::fs::copy(env!("CARGO_BIN_EXE_wterm-relay"), &fresh).unwrap();
    std::fs::rename(&fresh, &bin).unwrap();
    let exe = std::fs::read_link(format!("/proc/{}/exe", relay.pid())).unwrap();
    assert!(exe.to_string_lossy().ends_with(" (deleted)"), "{exe:?}");
    let replaced = relay.post("/sessions", "").await;
    assert_eq!(replaced.status, 200, "{}\n{}", replaced.body, relay.log());
    std::fs::remove_file(&bin).unwrap();
    let removed = relay.post("/sessions", "").await;
    assert_eq!(removed.status, 200, "{}\n{}", removed.body, relay.log());
    holders.note(&relay).await;
    for r in [&replaced, &removed] {
        let id = r.json()["id"].as_u64().unwrap();
        let mut page = attach_at_prompt(&relay, id).await;
        page.send_input(b"echo new-$((20+1))\r").await;
        page.wait_output(b"new-21", WAIT).await;
        let pid = sessions(&relay.get("/sessions").await.json())
            .into_iter()
            .find(|&(s, _)| s == id)
            .unwrap()
            .1;
        let holder_pid = ppid(pid as i32).unwrap();
        let holder = cmdline(holder_pid);
        let expected = format!("{} hold ", bin.display());
        assert!(holder.starts_with(&expected), "{holder}");
        let comm = std::fs::read_to_string(format!("/proc/{holder_pid}/comm")).unwrap();
        assert_eq!(comm.trim_end(), "wterm-relay", "the holder's process name");
    }
    let mut page = attach_at_prompt(&relay, before).await;
    page.send_input(b"echo old-$((30+3))\r").await;
    page.wait_output(b"old-33", WAIT).await;
    // Back in place, for the end of the test to end the holders through it.
    std::fs::copy(env!("CARGO_BIN_EXE_wterm-relay"), &bin).unwrap();
}

/// A run-time build label that cannot be printed plainly stops the relay before it starts,
/// saying what is accepted.
#[tokio::test]
async fn a_bad_build_label_is_refused_at_start() {
    for bad in ["", "has space", "a\u{1b}[31m", &"x".repeat(65)] {
        let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_wterm-relay"))
            .args(["--port", "0"])
            .env("WTERM_BUILD_ID", bad)
            .env("WEB_TERMINAL_TOKEN", "build-label-test-token")
            .output()
            .await
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {err}");
        assert!(
            err.contains("WTERM_BUILD_ID") && err.contains("accepted: 1 to 64 ASCII letters"),
            "{bad:?}: {err}"
        );
    }
}

/// The command log survives a SIGKILL of the relay, and `run_command` (which waits for the
/// shell to settle, across the holder's socket) works on a held session before and after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_log_and_run_command_survive_a_sigkill() {
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let mut holders = Holders::new(&state_dir);
    let mut relay = start(&state_dir, &[]).await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    holders.note(&relay).await;
    let run = |command: &'static str| {
        let mcp = mcp.clone();
        async move {
            let r = mcp
                .post(
                    "/mcp/run",
                    json!({"id": id, "command": command, "timeout_ms": 15000}),
                )
                .await;
            assert_eq!(r.status, 200, "{command}: {}", r.body);
            r.json()
        }
    };
    let a = run("cd /tmp && echo held-$((6*7))").await;
    assert_eq!(a["output"], "held-42", "{a}");
    let a = run("seq 3000").await;
    assert_eq!(a["rows"], 3000, "{a}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    kill_hard(&mut relay).await;

    let port = relay.port.to_string();
    let relay2 = start(&state_dir, &["--port", &port]).await;
    holders.note(&relay2).await;
    let rows = mcp.get("/mcp/terminals").await.json();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no window {id}: {rows}\n{}", relay2.log()));
    assert_eq!(row["shell"]["last_command"]["command"], "seq 3000", "{row}");
    assert_eq!(row["shell"]["last_command"]["exit_code"], 0, "{row}");
    let a = run("pwd").await;
    assert_eq!(a["output"], "/tmp", "{a}");
    assert_eq!(a["cwd"], "/tmp", "{a}");
}

/// Regression (newcomer probe): a second relay with `--persist` on the same state directory
/// took the first one's shells over, and the first relay's page said they had ended. The state
/// directory is now locked: the second relay refuses to start, naming the first one's pid, and
/// the first keeps its session.
#[tokio::test]
async fn a_second_relay_on_the_same_state_directory_is_refused() {
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let relay = start(&state_dir, &[]).await;
    let mut holders = Holders::new(&state_dir);
    let id = relay.new_session().await;
    holders.note(&relay).await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wterm-relay"))
        .args(["--port", "0", "--persist", "--state-dir"])
        .arg(&state_dir)
        .env("SHELL", "/bin/bash")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "another relay (pid {}) serves held sessions (--persist) from {}",
            relay.pid(),
            state_dir.display()
        )) && err.contains("another --state-dir"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "no URL printed");
    assert_eq!(sessions(&relay.get("/sessions").await.json())[0].0, id);
}

/// `wterm-relay holders ARGS... --state-dir STATE`: exit code, stdout, stderr.
fn holders_cli(state_dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wterm-relay"))
        .arg("holders")
        .args(args)
        .arg("--state-dir")
        .arg(state_dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `holders list --json` line of session `id`.
fn listed(state_dir: &Path, id: u64) -> Option<Value> {
    let (code, out, err) = holders_cli(state_dir, &["list", "--json"]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["holder"]["id"] == id || v["id"] == id)
}

async fn wait_gone(pids: &[i32]) {
    let deadline = std::time::Instant::now() + WAIT;
    while pids.iter().any(|&p| process_exists(p)) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for &p in pids {
        assert!(!process_exists(p), "process {p} ended");
    }
}

/// Without any flag the relay holds its sessions (the default); `holders list` names
/// each (holder, program, size, attached or not) and `holders kill` ends one through a running
/// relay (which sees the session end), and one with no relay at all.
#[tokio::test]
async fn by_default_sessions_are_held_and_holders_list_and_kill_them() {
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let mut holders = Holders::new(&state_dir);
    let mut relay = start(&state_dir, &[]).await;
    let a = relay.new_session().await;
    let b = relay.new_session().await;
    let mut page = attach_at_prompt(&relay, a).await;
    holders.note(&relay).await;
    let pids: Vec<(u64, u64)> = sessions(&relay.get("/sessions").await.json());
    let pid_of = |id: u64| pids.iter().find(|(i, _)| *i == id).unwrap().1 as i32;
    assert!(
        cmdline(ppid(pid_of(a)).unwrap()).contains(" hold "),
        "held without --persist"
    );

    let (code, table, err) = holders_cli(&state_dir, &["list"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        table.contains(&format!("a relay runs (pid {})", relay.pid())),
        "{table}"
    );
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{a} ")))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        row.contains(&pid_of(a).to_string())
            && row.contains(&ppid(pid_of(a)).unwrap().to_string())
            && row.contains("80x24")
            && row.contains("attached")
            && row.contains("bash"),
        "{row}"
    );
    let info = listed(&state_dir, b).unwrap();
    assert_eq!(info["state"], "live", "{info}");
    assert_eq!(info["holder"]["pid"], pid_of(b), "{info}");
    assert_eq!(info["holder"]["attached"], true, "{info}");

    // Through the running relay: the page sees the exit, the session leaves the list.
    let holder_a = ppid(pid_of(a)).unwrap();
    let (code, out, err) = holders_cli(&state_dir, &["kill", &a.to_string()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("session {a} ended")), "{out}");
    wait_gone(&[pid_of(a), holder_a]).await;
    assert_eq!(page.wait_text("exit").await["type"], "exit");
    let deadline = std::time::Instant::now() + WAIT;
    while sessions(&relay.get("/sessions").await.json()).len() != 1 {
        assert!(std::time::Instant::now() < deadline, "{}", relay.log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!state_dir.join(format!("holders/{a}.sock")).exists());
    assert!(!state_dir.join(format!("holders/{a}.ctl")).exists());

    // With no relay: detached, then ended, its files gone.
    kill_hard(&mut relay).await;
    let info = listed(&state_dir, b).unwrap();
    assert_eq!(info["holder"]["attached"], false, "{info}");
    let (_, table, _) = holders_cli(&state_dir, &["list"]);
    assert!(
        table.contains("no relay runs") && table.contains("detached"),
        "{table}"
    );
    let holder_b = ppid(pid_of(b)).unwrap();
    let (code, out, err) = holders_cli(&state_dir, &["kill", &b.to_string()]);
    assert_eq!(code, 0, "{out}{err}");
    wait_gone(&[pid_of(b), holder_b]).await;
    assert!(!state_dir.join(format!("holders/{b}.sock")).exists());

    // Unknown ids are named; stale sockets are listed and removed; another's are left alone.
    let (code, _, err) = holders_cli(&state_dir, &["kill", "99"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no held session 99") && err.contains("are none"),
        "{err}"
    );
    let dir = state_dir.join("holders");
    drop(std::os::unix::net::UnixListener::bind(dir.join("5.sock")).unwrap());
    drop(std::os::unix::net::UnixListener::bind(dir.join("5.ctl")).unwrap());
    std::fs::write(dir.join("6.sock"), b"not a socket").unwrap();
    let (code, table, _) = holders_cli(&state_dir, &["list"]);
    assert_eq!(code, 0);
    assert!(
        table.contains("stale:") && table.contains("not yours"),
        "{table}"
    );
    let (code, _, err) = holders_cli(&state_dir, &["kill", "6"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("not to you") && err.contains("left alone"),
        "{err}"
    );
    assert!(dir.join("6.sock").exists());
    let (code, out, err) = holders_cli(&state_dir, &["kill", "--all"]);
    assert_eq!(code, 1, "the foreign one is an error: {out}{err}");
    assert!(out.contains("session 5: stale socket removed"), "{out}");
    assert!(!dir.join("5.sock").exists() && !dir.join("5.ctl").exists());
}

/// A holder waits for a relay as long as its program runs (like tmux's server), far past the
/// grace a holder whose program exited gets; that one ends after the grace with no relay.
#[tokio::test]
async fn a_holder_outlives_a_long_relay_outage_but_not_its_program() {
    const GRACE_MS: &str = "300";
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let mut holders = Holders::new(&state_dir);
    let env = [("WTERM_HOLDER_ORPHAN_GRACE_MS", GRACE_MS)];
    let mut relay = start_env(&state_dir, &[], &env).await;
    let kept = relay.new_session().await;
    let gone = relay.new_session().await;
    holders.note(&relay).await;
    let pids = sessions(&relay.get("/sessions").await.json());
    let pid_of = |id: u64| pids.iter().find(|(i, _)| *i == id).unwrap().1 as i32;
    let (kept_holder, gone_holder) = (ppid(pid_of(kept)).unwrap(), ppid(pid_of(gone)).unwrap());
    kill_hard(&mut relay).await;
    // The second program ends while no relay is there.
    signal(pid_of(gone), libc::SIGKILL);
    wait_gone(&[gone_holder]).await;
    // Five graces later the first is still held.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(process_exists(kept_holder) && process_exists(pid_of(kept)));
    let relay2 = start_env(&state_dir, &[], &env).await;
    holders.note(&relay2).await;
    assert_eq!(
        sessions(&relay2.get("/sessions").await.json()),
        vec![(kept, pid_of(kept) as u64)],
        "{}",
        relay2.log()
    );
}

/// A holder's errors go to `holders/N.log`, and the relay names that file when a holder fails:
/// here a program that cannot start (its shell was removed after the relay checked it), and a
/// holder killed under the relay.
#[tokio::test]
async fn a_failing_holder_writes_its_log_and_the_relay_names_it() {
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let mut holders = Holders::new(&state_dir);
    let shell = state.path().join("myshell");
    std::fs::copy("/bin/bash", &shell).unwrap();
    let shell_arg = shell.display().to_string();
    let relay = start(&state_dir, &["--shell", &shell_arg]).await;
    let ok = relay.new_session().await;
    holders.note(&relay).await;
    std::fs::remove_file(&shell).unwrap();
    let r = relay.post("/sessions", "").await;
    assert_ne!(r.status, 200, "{}", r.body);
    let log_file = state_dir.join(format!("holders/{}.log", ok + 1));
    let text = std::fs::read_to_string(&log_file)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", log_file.display(), relay.log()));
    assert!(text.contains("cannot start"), "{text}");
    let log = relay.log();
    assert!(
        log.contains("session holder failed") && log.contains(&log_file.display().to_string()),
        "{log}"
    );
    // A holder killed under the relay: the relay names its log.
    let pid = sessions(&relay.get("/sessions").await.json())[0].1 as i32;
    let holder = ppid(pid).unwrap();
    signal(holder, libc::SIGKILL);
    let deadline = std::time::Instant::now() + WAIT;
    while !relay
        .log()
        .contains("went away without the program's exit status")
    {
        assert!(std::time::Instant::now() < deadline, "{}", relay.log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(relay.log().contains(
        &state_dir
            .join(format!("holders/{ok}.log"))
            .display()
            .to_string()
    ));
    signal(pid, libc::SIGKILL);
}

/// Regression: a holder blocked writing output to a relay that reads nothing (stopped with
/// SIGSTOP) still answers `holders list`, as attached; it used to wait for the connection's
/// lock, time out, and be listed as stale (and `holders kill` would have removed its sockets).
#[tokio::test]
async fn a_holder_blocked_on_a_stopped_relay_is_listed_not_called_stale() {
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let mut holders = Holders::new(&state_dir);
    let relay = start(&state_dir, &[]).await;
    let id = relay.new_session().await;
    let mut page = attach_at_prompt(&relay, id).await;
    holders.note(&relay).await;
    page.send_input(b"yes flood-line\r").await;
    page.wait_output(b"flood-line", WAIT).await;
    signal(relay.pid(), libc::SIGSTOP);
    // Long enough for the socket to the relay to fill and the holder's write to block.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let info = listed(&state_dir, id);
    signal(relay.pid(), libc::SIGCONT);
    let info = info.unwrap();
    assert_eq!(info["state"], "live", "{info}");
    assert_eq!(info["holder"]["attached"], true, "{info}");
    assert!(state_dir.join(format!("holders/{id}.sock")).exists());
    page.send_input(b"\x03").await;
}

/// Keys a page sent in the instant the relay died, which never reached the holder, are not
/// lost: the holder counts the numbered input it wrote, the new relay tells the page, and the
/// page's resend runs only what was missing. The relay is stopped (SIGSTOP) so the keys wait
/// unread in its socket, then killed.
#[tokio::test]
async fn keys_sent_as_the_relay_dies_are_resent_once_after_restart() {
    let state = tempfile::tempdir().unwrap();
    let state_dir: PathBuf = state.path().join("state");
    let file = state.path().join("ran");
    let mut holders = Holders::new(&state_dir);
    let mut relay = start(&state_dir, &[]).await;
    const CLIENT: &str = "0123456789abcdef";
    let attach = |relay: &Relay, query: String| {
        let (port, token, origin) = (relay.port, relay.token.clone(), relay.origin());
        async move {
            crate::support::connect(port, &query, Some(&token), Some(&origin))
                .await
                .unwrap()
        }
    };
    let mut page = attach(&relay, format!("?client={CLIENT}")).await;
    let id = page.expect_text().await["id"].as_u64().unwrap();
    assert_eq!(page.expect_text().await["offset"], Value::Null);
    page.expect_attach().await;
    page.wait_output(b"$ ", WAIT).await;
    holders.note(&relay).await;
    let one = format!("printf a >> {}\r", file.display());
    let two = format!("printf b >> {}\r", file.display());
    page.send_json(json!({"type": "input", "offset": 0})).await;
    page.send_input(one.as_bytes()).await;
    crate::ws::wait_file(&file, "a").await;
    signal(relay.pid(), libc::SIGSTOP);
    wait_stopped(relay.pid()).await;
    page.send_input(two.as_bytes()).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    kill_hard(&mut relay).await;
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "a",
        "the second line never ran"
    );

    let relay2 = start(&state_dir, &[]).await;
    holders.note(&relay2).await;
    let mut page = attach(&relay2, format!("?session={id}&client={CLIENT}")).await;
    assert_eq!(
        page.expect_text().await,
        json!({"type": "input", "offset": one.len()}),
        "the holder counted the first line only:\n{}",
        relay2.log()
    );
    page.expect_attach().await;
    // The page resends all it kept; the holder skips the line it wrote.
    page.send_json(json!({"type": "input", "offset": 0})).await;
    page.send_input(format!("{one}{two}").as_bytes()).await;
    crate::ws::wait_file(&file, "ab").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "ab");
    // And again after a SIGTERM: the offset came through the holder's hello.
    let mut relay2 = relay2;
    assert!(relay2.terminate().await.success());
    let relay3 = start(&state_dir, &[]).await;
    let mut page = attach(&relay3, format!("?session={id}&client={CLIENT}")).await;
    assert_eq!(
        page.expect_text().await,
        json!({"type": "input", "offset": one.len() + two.len()})
    );
}

/// Waits until every thread of `pid` is stopped (a stop signal takes effect asynchronously).
async fn wait_stopped(pid: i32) {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let all = std::fs::read_dir(format!("/proc/{pid}/task"))
            .unwrap()
            .flatten()
            .all(|t| {
                let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
                stat.rfind(')')
                    .and_then(|i| stat[i + 1..].split_whitespace().next())
                    .is_some_and(|state| state == "T" || state == "t")
            });
        if all {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{pid} did not stop");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Who submitted each command survives a restart of the relay (SIGTERM, as an upgrade): the
/// last snapshot shipped to the holder carries the command log with its authors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authors_survive_a_restart() {
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let mut holders = Holders::new(&state_dir);
    let mut relay = start(&state_dir, &[]).await;
    let mcp = relay.enable_mcp("readwrite").await;
    let id = relay.ready_session(&mcp).await;
    holders.note(&relay).await;
    let mut page = attach_at_prompt(&relay, id).await;
    page.send_json(json!({"type": "author", "agent": "press_terminal_keys"}))
        .await;
    page.send_input(b"echo by-page-agent\r").await;
    let last = crate::authors::last_command(&mcp, id, "echo by-page-agent").await;
    assert_eq!(last["submitted_by"]["kind"], "page_agent", "{last}");
    relay.terminate().await;

    let port = relay.port.to_string();
    let relay2 = start(&state_dir, &["--port", &port]).await;
    holders.note(&relay2).await;
    let last = crate::authors::last_command(&mcp, id, "echo by-page-agent").await;
    assert_eq!(
        last["submitted_by"],
        json!({"kind": "page_agent", "name": "press_terminal_keys"}),
        "{last}\n{}",
        relay2.log()
    );
    let r = mcp
        .post(
            "/mcp/run",
            json!({"id": id, "command": "echo after-restart", "timeout_ms": 15000}),
        )
        .await;
    assert_eq!(
        r.json()["submitted_by"]["kind"],
        "route_caller",
        "{}",
        r.body
    );
}

//! Shell integration injected by the relay, with real bash, zsh and fish on real PTYs: the
//! marks of the prompt, the command line, the command's start and end with its exit code, and
//! the working directory arrive in the session's output; the user's own hooks still run;
//! `--no-shell-integration` and a program that is not a shell get none of it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::{Got, Options, Page, Relay, WAIT};

/// Every output byte of a session, and a read position: each wait looks past the previous one.
struct Transcript {
    /// The attach's `resized` frame.
    resized: serde_json::Value,
    page: Page,
    all: Vec<u8>,
    pos: usize,
}

impl Transcript {
    async fn open(relay: &Relay) -> Transcript {
        let id = relay.new_session().await;
        let mut page = relay.attach(Some(id)).await;
        // The shell may draw its first prompt before the page attaches: then it is in the
        // snapshot (as screen text, without its marks), so the transcript starts with it.
        let (resized, snapshot) = page.expect_attach().await;
        Transcript {
            resized,
            page,
            all: snapshot.to_vec(),
            pos: 0,
        }
    }

    /// Waits until `needle` appears after the last match; returns where it ends.
    async fn until(&mut self, needle: &str) -> usize {
        let needle = needle.as_bytes();
        let deadline = Instant::now() + WAIT / 2;
        loop {
            if let Some(i) = self.all[self.pos..]
                .windows(needle.len())
                .position(|w| w == needle)
            {
                self.pos += i + needle.len();
                return self.pos;
            }
            assert!(
                Instant::now() < deadline,
                "no {:?} in the output; after the last match: {:?}",
                String::from_utf8_lossy(needle),
                String::from_utf8_lossy(&self.all[self.pos..])
            );
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(got) = tokio::time::timeout(left, self.page.next()).await else {
                continue;
            };
            match got {
                Got::Binary(b) => self.all.extend_from_slice(&b),
                Got::Text(_) => {}
                Got::Close(f) => panic!(
                    "closed ({f:?}) waiting for {:?}; output: {:?}",
                    String::from_utf8_lossy(needle),
                    String::from_utf8_lossy(&self.all)
                ),
            }
        }
    }

    async fn type_line(&mut self, line: &str) {
        self.page.send_input(format!("{line}\r").as_bytes()).await;
    }

    /// Types `line` and waits for its command text, its start, its end with `code`, and the
    /// next prompt.
    async fn run(&mut self, line: &str, code: i32) {
        self.type_line(line).await;
        self.until(&format!("\x1b]633;E;{}\x07\x1b]133;C\x07", escape(line)))
            .await;
        self.until(&format!("\x1b]133;D;{code}\x07")).await;
        self.until("\x1b]133;A\x07").await;
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.all).into_owned()
    }
}

/// The command-line escaping of OSC 633;E.
fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\x3b"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_owned()
}

/// The path of `name` on PATH; the test is skipped (with a note) when the shell is missing.
fn find(name: &str) -> Option<PathBuf> {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        eprintln!("SKIPPED: {name} is not installed (scripts/setup.sh --test installs it)");
    }
    found
}

/// The relay's test home (see `support::Relay::start_with`).
fn home(relay: &Relay) -> PathBuf {
    relay.state_dir.parent().unwrap().join("home")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

async fn relay_with_shell(shell: &Path, args: &[&str]) -> Relay {
    Relay::start_with(Options {
        args: args.iter().map(|s| (*s).to_owned()).collect(),
        // The user's PROMPT_COMMAND is the .bashrc's, not one from the test's environment.
        env: vec![
            ("SHELL".into(), shell.display().to_string()),
            ("PROMPT_COMMAND".into(), String::new()),
        ],
        ..Options::default()
    })
    .await
}

/// What every shell must do: exit codes 0, 1, 127, 130; the command text; OSC 7 after `cd`;
/// `set -u`; a nested bash and `exit` back; then `exec` of the same shell keeps reporting.
async fn common(t: &mut Transcript, shell: &str) {
    t.until("\x1b]133;B\x07").await;
    t.run("true", 0).await;
    t.run("false", 1).await;
    t.run("no-such-command-wterm", 127).await;
    // Ctrl-C once the program runs in the foreground (it says so), not before it started.
    let sleeper = "bash -c 'echo sleep-$((2*4)); exec sleep 5'";
    t.type_line(sleeper).await;
    t.until(&format!("\x1b]633;E;{}\x07\x1b]133;C\x07", escape(sleeper)))
        .await;
    t.until("sleep-8").await;
    let t0 = Instant::now();
    t.page.send_input(b"\x03").await;
    t.until("\x1b]133;D;130\x07").await;
    assert!(
        t0.elapsed() < Duration::from_secs(4),
        "Ctrl-C did not end sleep"
    );
    t.until("\x1b]133;A\x07").await;
    t.run("echo hi", 0).await;
    t.type_line("cd /tmp").await;
    t.until(&format!("\x1b]7;file://{}/tmp\x07", hostname()))
        .await;
    t.until("\x1b]133;A\x07").await;
    if shell != "fish" {
        t.run("set -u", 0).await;
        t.run("echo u'-'42", 0).await;
        t.run("set -o vi", 0).await;
        t.run("echo vi'-'43", 0).await;
    }
    // A nested bash: it has no integration of its own; its exit ends the outer command.
    t.type_line("bash").await;
    t.until("\x1b]633;E;bash\x07\x1b]133;C\x07").await;
    t.type_line("echo inner-$((2+3))").await;
    t.until("inner-5").await;
    t.type_line("exit").await;
    t.until("\x1b]133;D;0\x07").await;
    t.until("\x1b]133;A\x07").await;
    t.run("echo back'-'7", 0).await;
    // exec: the new shell reports too.
    t.type_line(&format!("exec {shell}")).await;
    t.until(&format!("\x1b]633;E;exec {shell}\x07\x1b]133;C\x07"))
        .await;
    t.until("\x1b]133;D;0\x07").await;
    t.until("\x1b]133;A\x07").await;
    t.run("echo after'-'exec", 0).await;
    t.run("false", 1).await;
    let text = t.text();
    for bad in [
        "unbound variable",
        "parameter not set",
        "__wterm",
        "command not found: __",
    ] {
        assert!(!text.contains(bad), "{bad:?} in the output: {text:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_reports_commands() {
    let Some(bash) = find("bash") else { return };
    let relay = relay_with_shell(&bash, &[]).await;
    // A user PROMPT_COMMAND, added the way a .bashrc does.
    write(
        &home(&relay).join(".bashrc"),
        "PS1='$ '\nPROMPT_COMMAND=\"${PROMPT_COMMAND:+$PROMPT_COMMAND;}echo user-pc-\\$((6*7))\"\n",
    );
    let mut t = Transcript::open(&relay).await;
    t.until("user-pc-42").await;
    common(&mut t, "bash").await;
    // Before every prompt, the outer shell's and the exec'd one's.
    assert!(t.text().matches("user-pc-42").count() > 12, "{}", t.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zsh_reports_commands() {
    let Some(zsh) = find("zsh") else { return };
    let relay = relay_with_shell(&zsh, &[]).await;
    write(
        &home(&relay).join(".zshrc"),
        "PS1='$ '\nuser_precmd() { echo user-precmd-$((6*7)) }\nprecmd_functions+=(user_precmd)\n",
    );
    let mut t = Transcript::open(&relay).await;
    t.until("user-precmd-42").await;
    common(&mut t, "zsh").await;
    assert!(
        t.text().matches("user-precmd-42").count() > 12,
        "{}",
        t.text()
    );
    // ZDOTDIR is the user's again (unset here), in the exec'd zsh too.
    t.type_line("echo ${ZDOTDIR-}-unset").await;
    t.until("\x1b]133;C\x07-unset\r\n").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fish_reports_commands() {
    let Some(fish) = find("fish") else { return };
    let relay = relay_with_shell(&fish, &[]).await;
    write(
        &home(&relay).join(".config/fish/config.fish"),
        "set -g fish_greeting\nfunction fish_prompt; echo -n 'user-prompt> '; end\n",
    );
    let mut t = Transcript::open(&relay).await;
    t.until("user-prompt> ").await;
    common(&mut t, "fish").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_shell_integration_and_other_programs_report_nothing() {
    let Some(bash) = find("bash") else { return };
    for (shell, args) in [
        (bash, &["--no-shell-integration"][..]),
        (PathBuf::from("/bin/sh"), &[][..]),
    ] {
        let relay = relay_with_shell(&shell, args).await;
        let mut t = Transcript::open(&relay).await;
        t.type_line("true; cd /tmp; echo done-$((1+1))").await;
        t.until("done-2").await;
        t.type_line("echo again-$((2+2))").await;
        t.until("again-4").await;
        let text = t.text();
        for mark in ["\x1b]133;", "\x1b]633;", "\x1b]7;"] {
            assert!(!text.contains(mark), "{shell:?} {args:?}: {text:?}");
        }
        let scripts = relay.state_dir.join("shell-integration");
        assert_eq!(scripts.exists(), args.is_empty(), "{}", scripts.display());
        // The page is told no prompt will come: its waitForCommand calls are refused at once.
        assert_eq!(t.resized["shell_integration"], false, "{shell:?} {args:?}");
    }
}

//! Shell integration: scripts for bash, zsh and fish that report the prompt, the command line,
//! the command's start and end with its exit code, and the working directory (OSC 133 A/B/C/D,
//! OSC 633;E, OSC 7), shipped inside the binary; and how the relay injects them into a shell it
//! starts without touching the user's own files:
//!
//! - bash: `bash --init-file DIR/bash-init.bash`; that file reads what bash would have read
//!   (`~/.bashrc`; for `-l`, `/etc/profile` then the first of `~/.bash_profile`,
//!   `~/.bash_login`, `~/.profile`), then the integration. A login shell is therefore started
//!   as a non-login one that reads the login files (`shopt login_shell` says off);
//! - zsh: `ZDOTDIR=DIR/zsh`, whose `.zshenv`, `.zprofile`, `.zshrc` and `.zlogin` each read the
//!   user's file of that name (from the user's `ZDOTDIR`, passed as `WTERM_ZDOTDIR`, else
//!   `HOME`) with `ZDOTDIR` as the user had it; `.zshrc` then installs the integration and the
//!   last file gives `ZDOTDIR` back;
//! - fish: `--init-command`, which fish runs after the user's configuration.
//!
//! The relay writes the files to `STATE_DIR/shell-integration/` (directories 0700, files 0600)
//! at startup ([`ScriptDir::install`]). Only a program whose `argv[0]` is bash, zsh or fish with
//! no arguments other than `-l`/`--login`/`-i` is injected; anything else runs unchanged and
//! the session says why ([`NotInjected`]).

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use crate::ground::config::write_private_atomic;
use crate::ground::program::Program;

/// A shell the relay has an integration script for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum ShellKind {
    /// GNU bash, 4.4 or later.
    Bash,
    /// zsh, 5.x.
    Zsh,
    /// fish, 3.x.
    Fish,
}

const BASH: &str = include_str!("shell/wterm.bash");
const BASH_INIT: &str = include_str!("shell/bash-init.bash");
const BASH_EXEC: &str = include_str!("shell/bash-exec.bash");
const ZSH: &str = include_str!("shell/wterm.zsh");
const ZSHENV: &str = include_str!("shell/zshenv.zsh");
const ZPROFILE: &str = include_str!("shell/zprofile.zsh");
const ZSHRC: &str = include_str!("shell/zshrc.zsh");
const ZLOGIN: &str = include_str!("shell/zlogin.zsh");
const FISH: &str = include_str!("shell/wterm.fish");
const FISH_EXEC: &str = include_str!("shell/fish-exec.fish");

/// The files of a script directory: path inside it, text.
const FILES: [(&str, &str); 10] = [
    ("wterm.bash", BASH),
    ("bash-init.bash", BASH_INIT),
    // Read through PROMPT_COMMAND by a bash that replaced an integrated shell (`exec bash`).
    ("bash-exec.bash", BASH_EXEC),
    ("zsh/.zshenv", ZSHENV),
    ("zsh/.zprofile", ZPROFILE),
    ("zsh/.zshrc", ZSHRC),
    ("zsh/.zlogin", ZLOGIN),
    ("zsh/wterm.zsh", ZSH),
    ("fish/wterm.fish", FISH),
    // Read by a fish that replaced an integrated shell (`exec fish`), through XDG_DATA_DIRS.
    ("xdg/fish/vendor_conf.d/wterm-exec.fish", FISH_EXEC),
];

impl ShellKind {
    /// The shell `argv0` names (a path or a name; a login shell's leading `-` is ignored), if
    /// it is one we have a script for.
    pub fn of_program(argv0: &str) -> Option<ShellKind> {
        let name = argv0.rsplit('/').next().unwrap_or(argv0);
        match name.strip_prefix('-').unwrap_or(name) {
            "bash" => Some(ShellKind::Bash),
            "zsh" => Some(ShellKind::Zsh),
            "fish" => Some(ShellKind::Fish),
            _ => None,
        }
    }

    /// `bash`, `zsh` or `fish`.
    pub fn name(self) -> &'static str {
        match self {
            ShellKind::Bash => "bash",
            ShellKind::Zsh => "zsh",
            ShellKind::Fish => "fish",
        }
    }

    /// The integration script, for sourcing from the user's own startup file
    /// (`wterm-relay shell-integration SHELL` prints it).
    pub fn script(self) -> &'static str {
        match self {
            ShellKind::Bash => BASH,
            ShellKind::Zsh => ZSH,
            ShellKind::Fish => FISH,
        }
    }
}

impl fmt::Display for ShellKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a session's shell reports its commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integration {
    /// The relay injected the script for this shell.
    Injected(ShellKind),
    /// The relay did not inject anything: what the program reports is unknown.
    NotInjected(NotInjected),
}

impl Integration {
    /// Whether the relay injected a script.
    pub fn is_injected(self) -> bool {
        matches!(self, Integration::Injected(_))
    }

    /// The injected shell, if any.
    pub fn shell(self) -> Option<ShellKind> {
        match self {
            Integration::Injected(kind) => Some(kind),
            Integration::NotInjected(_) => None,
        }
    }
}

/// Why a session's program was started without shell integration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotInjected {
    /// Turned off: `--no-shell-integration`, or `shell_integration = false` in its profile.
    Off,
    /// The program is not bash, zsh or fish.
    NotAShell,
    /// A shell with arguments other than `-l`, `--login`, `-i` (a script, `-c`, an rcfile...),
    /// which the relay leaves as they are.
    Arguments,
    /// The relay has no script directory (it could not be written, or none was given).
    NoScripts,
}

impl NotInjected {
    /// A short code: `off`, `not_a_shell`, `arguments`, `no_scripts`.
    pub fn code(self) -> &'static str {
        match self {
            NotInjected::Off => "off",
            NotInjected::NotAShell => "not_a_shell",
            NotInjected::Arguments => "arguments",
            NotInjected::NoScripts => "no_scripts",
        }
    }
}

/// The directory the integration files are written to, below the state directory.
pub const SCRIPT_DIR_NAME: &str = "shell-integration";

/// A directory holding the integration files.
#[derive(Debug, Clone)]
pub struct ScriptDir {
    dir: PathBuf,
}

fn private_dir(dir: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

impl ScriptDir {
    /// Writes the files to `STATE_DIR/shell-integration/` (directories 0700, files 0600, each
    /// replaced whole), overwriting those of another version.
    pub fn install(state_dir: &Path) -> io::Result<ScriptDir> {
        let dir = state_dir.join(SCRIPT_DIR_NAME);
        private_dir(&dir)?;
        for (name, text) in FILES {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                private_dir(parent)?;
            }
            write_private_atomic(&path, text.as_bytes())?;
        }
        Ok(ScriptDir { dir })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// `program` as the relay starts it: with the integration injected when it is a shell we
    /// can inject ([`ShellKind::of_program`], no arguments but `-l`/`--login`/`-i`) and
    /// integration is not turned off for it; else unchanged. `user_zdotdir` is the `ZDOTDIR` of
    /// the relay's environment (the program's own `env` wins).
    pub fn prepare(
        &self,
        program: &Program,
        user_zdotdir: Option<OsString>,
    ) -> (Program, Integration) {
        let (kind, login) = match injectable(program) {
            Ok(v) => v,
            Err(why) => return (program.clone(), Integration::NotInjected(why)),
        };
        let mut p = program.clone();
        let dir = self.dir.to_string_lossy().into_owned();
        match kind {
            ShellKind::Bash => {
                // Long options must come before bash's single-letter ones.
                let mut argv = vec![
                    p.argv[0].clone(),
                    "--init-file".to_owned(),
                    format!("{dir}/bash-init.bash"),
                ];
                argv.extend(p.argv[1..].iter().filter(|a| !is_login(a)).cloned());
                p.argv = argv;
                if login {
                    p.env.push(("WTERM_SHELL_LOGIN".to_owned(), "1".to_owned()));
                }
            }
            ShellKind::Zsh => {
                let user = p
                    .env
                    .iter()
                    .rev()
                    .find(|(k, _)| k == "ZDOTDIR")
                    .map(|(_, v)| v.clone())
                    .or_else(|| user_zdotdir.map(|v| v.to_string_lossy().into_owned()))
                    .filter(|v| !v.is_empty());
                p.env
                    .retain(|(k, _)| k != "ZDOTDIR" && k != "WTERM_ZDOTDIR");
                if let Some(user) = user {
                    p.env.push(("WTERM_ZDOTDIR".to_owned(), user));
                }
                p.env.push(("ZDOTDIR".to_owned(), format!("{dir}/zsh")));
            }
            ShellKind::Fish => {
                let q = fish_quote(&dir);
                p.argv.push("--init-command".to_owned());
                p.argv.push(format!(
                    "set -g __wterm_si_dir {q}; source {q}/fish/wterm.fish"
                ));
            }
        }
        (p, Integration::Injected(kind))
    }
}

fn is_login(arg: &str) -> bool {
    arg == "-l" || arg == "--login"
}

/// The shell `program` runs and whether it is a login shell, or why it is not injected.
pub fn injectable(program: &Program) -> Result<(ShellKind, bool), NotInjected> {
    if !program.shell_integration {
        return Err(NotInjected::Off);
    }
    let Some(argv0) = program.argv.first() else {
        return Err(NotInjected::NotAShell);
    };
    let kind = ShellKind::of_program(argv0).ok_or(NotInjected::NotAShell)?;
    let args = &program.argv[1..];
    if !args
        .iter()
        .all(|a| is_login(a) || a == "-i" || a == "--interactive")
    {
        return Err(NotInjected::Arguments);
    }
    Ok((kind, args.iter().any(|a| is_login(a))))
}

/// `s` as one fish word in single quotes.
fn fish_quote(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(argv: &[&str]) -> Program {
        Program {
            argv: argv.iter().map(|s| (*s).to_owned()).collect(),
            ..Program::shell("x")
        }
    }

    #[test]
    fn only_plain_shells_are_injected() {
        assert_eq!(ShellKind::of_program("/usr/bin/zsh"), Some(ShellKind::Zsh));
        assert_eq!(ShellKind::of_program("-bash"), Some(ShellKind::Bash));
        assert_eq!(ShellKind::of_program("fish"), Some(ShellKind::Fish));
        assert_eq!(ShellKind::of_program("/bin/sh"), None);
        assert_eq!(ShellKind::of_program("bash5"), None);
        assert_eq!(
            injectable(&program(&["bash", "-l"])),
            Ok((ShellKind::Bash, true))
        );
        assert_eq!(
            injectable(&program(&["python3"])),
            Err(NotInjected::NotAShell)
        );
        assert_eq!(
            injectable(&program(&["bash", "-c", "x"])),
            Err(NotInjected::Arguments)
        );
        let mut off = program(&["zsh"]);
        off.shell_integration = false;
        assert_eq!(injectable(&off), Err(NotInjected::Off));
    }

    #[test]
    fn files_are_private_and_programs_rewritten() {
        let state = tempfile::tempdir().unwrap();
        let dir = ScriptDir::install(state.path()).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(dir.path()), 0o700);
        assert_eq!(mode(&dir.path().join("zsh")), 0o700);
        assert_eq!(mode(&dir.path().join("zsh/.zshrc")), 0o600);
        let d = dir.path().display().to_string();

        let (p, i) = dir.prepare(&program(&["/bin/bash", "-l"]), None);
        assert_eq!(i, Integration::Injected(ShellKind::Bash));
        assert_eq!(
            p.argv,
            vec![
                "/bin/bash".to_owned(),
                "--init-file".to_owned(),
                format!("{d}/bash-init.bash")
            ]
        );
        assert!(p.env.contains(&("WTERM_SHELL_LOGIN".into(), "1".into())));

        let (p, i) = dir.prepare(&program(&["zsh"]), Some("/home/u/.zsh".into()));
        assert_eq!(i, Integration::Injected(ShellKind::Zsh));
        assert_eq!(p.argv, vec!["zsh"]);
        assert_eq!(
            p.env,
            vec![
                ("WTERM_ZDOTDIR".to_owned(), "/home/u/.zsh".to_owned()),
                ("ZDOTDIR".to_owned(), format!("{d}/zsh"))
            ]
        );

        let (p, _) = dir.prepare(&program(&["fish"]), None);
        assert_eq!(p.argv[1], "--init-command");
        assert!(p.argv[2].ends_with("/fish/wterm.fish"), "{}", p.argv[2]);

        let py = program(&["python3", "-q"]);
        assert_eq!(
            dir.prepare(&py, None),
            (py.clone(), Integration::NotInjected(NotInjected::NotAShell))
        );
        assert_eq!(fish_quote("a'b\\c"), "'a\\'b\\\\c'");
    }
}

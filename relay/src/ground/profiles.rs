//! Launch profiles: the named commands `/mcp/launch` may start (broker contract: "a client picks
//! a name, never a command line").
//!
//! They come from the relay's TOML configuration file (`--config PATH`, default
//! `$XDG_CONFIG_HOME/wterm-relay/config.toml`, else `~/.config/wterm-relay/config.toml`):
//!
//! ```toml
//! default_profile = "dev"          # optional; else "shell" if defined, else the first by name
//!
//! [profiles.dev]
//! command = ["bash", "-l"]         # required, non-empty; argv[0] is looked up in PATH
//! cwd = "/home/me/src"             # optional, absolute
//! env = { EDITOR = "vim" }         # optional, set on top of the relay's environment
//! shell_integration = false        # optional; default true (bash, zsh, fish only)
//! ```
//!
//! With no file, or a file that defines no profile, there is one built-in profile, `shell`:
//! the user's shell (`--shell`, else `$SHELL`, else `/bin/bash`).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::ground::limits::MAX_CONFIG_FILE_BYTES;
use crate::ground::program::Program;

/// Name of the built-in profile.
pub const BUILTIN_PROFILE: &str = "shell";

/// The launchable profiles and the default one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profiles {
    default: String,
    profiles: BTreeMap<String, Program>,
    /// The file's top-level `persist` key, when given.
    persist: Option<bool>,
}

/// Why the configuration file cannot be used; says what is wrong and what is accepted.
#[derive(Debug)]
pub struct ProfilesError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for ProfilesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for ProfilesError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    default_profile: Option<String>,
    /// `persist = false`: sessions end with the relay (as `--no-persist`).
    persist: Option<bool>,
    #[serde(default)]
    profiles: BTreeMap<String, ProfileDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileDef {
    command: Vec<String>,
    cwd: Option<PathBuf>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    shell_integration: Option<bool>,
}

impl Profiles {
    /// Only the built-in `shell` profile, running `shell`.
    pub fn builtin(shell: &str) -> Profiles {
        Profiles {
            default: BUILTIN_PROFILE.to_owned(),
            profiles: BTreeMap::from([(BUILTIN_PROFILE.to_owned(), Program::shell(shell))]),
            persist: None,
        }
    }

    /// The configuration file's `persist` key (whether sessions outlive the relay), when given.
    pub fn persist(&self) -> Option<bool> {
        self.persist
    }

    /// Parses a configuration file's text (see the module doc).
    pub fn parse(text: &str, shell: &str) -> Result<Profiles, String> {
        let file: File = toml::from_str(text).map_err(|e| e.message().to_owned())?;
        if file.profiles.is_empty() {
            if let Some(d) = file.default_profile.filter(|d| d != BUILTIN_PROFILE) {
                return Err(format!("default_profile {d:?} names no profile"));
            }
            return Ok(Profiles {
                persist: file.persist,
                ..Profiles::builtin(shell)
            });
        }
        let mut profiles = BTreeMap::new();
        for (name, def) in file.profiles {
            if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
                return Err(format!(
                    "profile name {name:?}: accepted: 1 to 64 characters, no control characters"
                ));
            }
            if def.command.is_empty() || def.command[0].is_empty() {
                return Err(format!(
                    "profile {name:?}: command must be a non-empty list of strings"
                ));
            }
            if let Some(cwd) = &def.cwd {
                if !cwd.is_absolute() {
                    return Err(format!("profile {name:?}: cwd must be an absolute path"));
                }
            }
            let program = Program {
                argv: def.command,
                cwd: def.cwd,
                env: def.env.into_iter().collect(),
                shell_integration: def.shell_integration.unwrap_or(true),
            };
            profiles.insert(name, program);
        }
        let default = match file.default_profile {
            Some(d) if profiles.contains_key(&d) => d,
            Some(d) => return Err(format!("default_profile {d:?} names no profile")),
            None if profiles.contains_key(BUILTIN_PROFILE) => BUILTIN_PROFILE.to_owned(),
            None => profiles.keys().next().cloned().unwrap_or_default(),
        };
        Ok(Profiles {
            default,
            profiles,
            persist: file.persist,
        })
    }

    /// Loads `path`. A missing file is an error when `required` (given with `--config`), else
    /// gives [`Profiles::builtin`].
    pub fn load(path: &Path, required: bool, shell: &str) -> Result<Profiles, ProfilesError> {
        let err = |reason: String| ProfilesError {
            path: path.to_path_buf(),
            reason,
        };
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {
                return Ok(Profiles::builtin(shell));
            }
            Err(e) => return Err(err(e.to_string())),
            Ok(m) if m.len() > MAX_CONFIG_FILE_BYTES => {
                return Err(err(format!("larger than {MAX_CONFIG_FILE_BYTES} bytes")));
            }
            Ok(_) => {}
        }
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        Profiles::parse(&text, shell).map_err(err)
    }

    /// Turns shell integration off for every profile (`--no-shell-integration`).
    pub fn disable_shell_integration(&mut self) {
        for program in self.profiles.values_mut() {
            program.shell_integration = false;
        }
    }

    /// The default profile's name.
    pub fn default_name(&self) -> &str {
        &self.default
    }

    /// The profile names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.profiles.keys().map(String::as_str).collect()
    }

    /// The program of profile `name`.
    pub fn get(&self, name: &str) -> Option<&Program> {
        self.profiles.get(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_persist_key_is_read_with_or_without_profiles() {
        assert_eq!(Profiles::parse("", "/bin/sh").unwrap().persist(), None);
        assert_eq!(
            Profiles::parse("persist = false", "/bin/sh")
                .unwrap()
                .persist(),
            Some(false)
        );
        let with = "persist = true\n[profiles.shell]\ncommand = [\"/bin/sh\"]\n";
        assert_eq!(
            Profiles::parse(with, "/bin/sh").unwrap().persist(),
            Some(true)
        );
        let err = Profiles::parse("persist = 1", "/bin/sh").unwrap_err();
        assert!(err.contains("bool") || err.contains("boolean"), "{err}");
    }

    #[test]
    fn builtin_when_nothing_is_configured() {
        assert_eq!(
            Profiles::parse("", "/bin/zsh").unwrap(),
            Profiles::builtin("/bin/zsh")
        );
        let b = Profiles::builtin("/bin/zsh");
        assert_eq!(b.names(), vec!["shell"]);
        assert_eq!(b.get("shell").unwrap().argv, vec!["/bin/zsh"]);
    }

    #[test]
    fn profiles_from_toml() {
        let p = Profiles::parse(
            r#"
            default_profile = "py"
            [profiles.py]
            command = ["python3", "-q"]
            cwd = "/tmp"
            env = { A = "1" }
            [profiles.top]
            command = ["top"]
            shell_integration = false
            "#,
            "/bin/bash",
        )
        .unwrap();
        assert_eq!(p.names(), vec!["py", "top"]);
        assert_eq!(p.default_name(), "py");
        let py = p.get("py").unwrap();
        assert_eq!(py.argv, vec!["python3", "-q"]);
        assert_eq!(py.cwd.as_deref(), Some(Path::new("/tmp")));
        assert_eq!(py.env, vec![("A".to_owned(), "1".to_owned())]);
        assert!(py.shell_integration);
        assert!(!p.get("top").unwrap().shell_integration);
        assert!(p.get("shell").is_none());
        let mut p = p;
        p.disable_shell_integration();
        assert!(!p.get("py").unwrap().shell_integration);
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        for (text, says) in [
            ("[profiles.x]\ncommand = []", "non-empty"),
            ("[profiles.x]\ncommand = [\"a\"]\ncwd = \"rel\"", "absolute"),
            (
                "default_profile = \"nope\"\n[profiles.x]\ncommand = [\"a\"]",
                "names no profile",
            ),
            ("[profiles.x]\nprogram = \"a\"", "unknown field"),
            ("[profiles", ""),
        ] {
            let e = Profiles::parse(text, "sh").unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.toml");
        assert!(Profiles::load(&missing, false, "sh").is_ok());
        assert!(Profiles::load(&missing, true, "sh").is_err());
    }
}

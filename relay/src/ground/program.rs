//! [`Program`]: what a session runs (a command line, a directory, environment additions).

/// What a session runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The program and its arguments; `argv[0]` is looked up in `PATH`.
    pub argv: Vec<String>,
    /// The working directory; `None` = the relay's own.
    pub cwd: Option<std::path::PathBuf>,
    /// Environment variables set on top of the relay's (the relay's secrets are removed first).
    pub env: Vec<(String, String)>,
    /// Whether the relay may inject its shell integration when this is bash, zsh or fish
    /// (see [`crate::ground::shell_integration`]); `--no-shell-integration` and a profile's
    /// `shell_integration = false` turn it off.
    pub shell_integration: bool,
}

impl Program {
    /// `program` with no arguments, in the relay's working directory.
    pub fn shell(program: &str) -> Program {
        Program {
            argv: vec![program.to_owned()],
            cwd: None,
            env: Vec::new(),
            shell_integration: true,
        }
    }

    /// The same program with shell integration allowed or not.
    pub fn with_shell_integration(mut self, on: bool) -> Program {
        self.shell_integration = on;
        self
    }
}

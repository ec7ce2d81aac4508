//! The serve options ([`ServeArgs`]), and their resolution with the environment and the state
//! directory's sidecar files into a [`Config`]; the secrets the environment may give.

use std::ffi::OsString;
use std::fmt;
use std::io::{self, Write as _};
use std::net::IpAddr;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use clap::Args;

use std::sync::Arc;

use crate::ground::limits::DEFAULT_MEMORY_BUDGET_MIB;
use crate::ground::profiles::{Profiles, ProfilesError};
use crate::ground::secret::{Secret, SecretError};
use crate::ground::tls::{self, TlsError, TlsFiles};

/// Environment variable holding the MCP token; when set it wins over the file and is never
/// written to disk.
pub const MCP_TOKEN_ENV: &str = "WEB_TERMINAL_MCP_TOKEN";

/// Environment variable holding the admin token; when set it wins over the file and is never
/// written to disk.
pub const MCP_ADMIN_TOKEN_ENV: &str = "WEB_TERMINAL_MCP_ADMIN_TOKEN";

/// Environment variable holding the page token; when set it wins over the sidecar file and is
/// never written to disk (broker contract, "Secrets and realms").
pub const PAGE_TOKEN_ENV: &str = "WEB_TERMINAL_TOKEN";

/// Environment variables that hold relay secrets: removed from every child's environment.
pub const SECRET_ENVS: [&str; 3] = [PAGE_TOKEN_ENV, MCP_TOKEN_ENV, MCP_ADMIN_TOKEN_ENV];

/// Name of the page token's sidecar file in the state directory (mode 0600).
pub const PAGE_TOKEN_FILE: &str = "page_token";

/// Options of `wterm-relay serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub listen: IpAddr,
    /// TCP port; 0 picks a free one (the printed URL says which).
    #[arg(long, default_value_t = 7681)]
    pub port: u16,
    /// Directory for the relay's state (the page token's sidecar file); created with mode 0700.
    /// Default: $XDG_STATE_HOME/wterm-relay, else ~/.local/state/wterm-relay.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Directory holding the page (index.html and its assets).
    #[arg(long, value_name = "DIR")]
    pub www_dir: Option<PathBuf>,
    /// Directory holding the built wasm package, served at /pkg/.
    #[arg(long, value_name = "DIR")]
    pub pkg_dir: Option<PathBuf>,
    /// An extra origin allowed to open /ws, such as http://devbox:7681 (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// The program each new session runs. Default: $SHELL, else /bin/bash.
    #[arg(long, value_name = "PATH")]
    pub shell: Option<String>,
    /// The TOML file with launch profiles for /mcp/launch. Default:
    /// $XDG_CONFIG_HOME/wterm-relay/config.toml, else ~/.config/wterm-relay/config.toml
    /// (a missing default file means one built-in profile, `shell`).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Host no terminals for MCP clients: /mcp/launch answers terminals_disabled and /mcp/info
    /// says terminals:false. The page's own sessions are not affected.
    #[arg(long)]
    pub no_terminals: bool,
    /// Serve HTTPS and WSS with this certificate chain (PEM, leaf first); needs --tls-key.
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, RSA or EC).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Serve plain HTTP on an address other than loopback (behind a TLS reverse proxy, or on a
    /// network you trust); without it, such an address needs --tls-cert and --tls-key.
    #[arg(long)]
    pub allow_plain_http: bool,
    /// The memory all terminals may hold together, in MiB: each counts its screens and its
    /// history full of plain text (80x24: about 3.3 MB); a new terminal or a resize past it is
    /// refused (`memory_budget`).
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MEMORY_BUDGET_MIB,
          value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub memory_budget_mib: u64,
    /// With TLS, send `Strict-Transport-Security: max-age=31536000` (browsers then refuse
    /// plain HTTP to this host for a year). Off by default.
    #[arg(long, requires = "tls_cert")]
    pub hsts: bool,
    /// Write a record to the audit log for every successful read by an MCP client
    /// (`read_screen`, `list_terminals`, `mcp_info`, ...), not just count them per window.
    /// Actions and refusals are always recorded.
    #[arg(long)]
    pub audit_reads: bool,
    /// Keep each session's program in a holder process of its own, so shells, their screens
    /// and their windows' MCP settings survive a restart or an upgrade of the relay (the
    /// default; a configuration file can say `persist = false`).
    #[arg(long, conflicts_with = "no_persist")]
    pub persist: bool,
    /// Sessions are children of the relay and end with it (SIGHUP at shutdown); a configuration
    /// file can say `persist = false` for the same.
    #[arg(long)]
    pub no_persist: bool,
}

/// Where a page token came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenSource {
    /// [`PAGE_TOKEN_ENV`].
    Env,
    /// The sidecar file, as found.
    File,
    /// Minted on this start and written to the sidecar file.
    Minted,
}

/// Everything the relay runs with, resolved.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to bind.
    pub listen: IpAddr,
    /// Port to bind; 0 = any free port.
    pub port: u16,
    /// The state directory.
    pub state_dir: PathBuf,
    /// The page's directory.
    pub www_dir: PathBuf,
    /// The wasm package's directory, served at `/pkg/`.
    pub pkg_dir: PathBuf,
    /// Extra origins allowed on `/ws`, normalized (`scheme://host[:port]`, no trailing slash).
    pub allow_origins: Vec<String>,
    /// The program each session runs.
    pub shell: String,
    /// The page token.
    pub page_token: Secret,
    /// Where [`Config::page_token`] came from.
    pub token_source: TokenSource,
    /// MCP and admin tokens given in the environment (they win over `webterm_mcp.json`).
    pub env_tokens: EnvTokens,
    /// The launch profiles.
    pub profiles: Profiles,
    /// Whether MCP clients may have terminals launched (`--no-terminals` turns it off).
    pub terminals: bool,
    /// Whether the relay injects shell integration into the shells it starts
    /// (`--no-shell-integration` turns it off; see [`Config::without_shell_integration`]).
    pub shell_integration: bool,
    /// The listener's TLS (`--tls-cert`, `--tls-key`); `None` serves plain HTTP.
    pub tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
    /// Whether responses carry `Strict-Transport-Security` (`--hsts`, with TLS only).
    pub hsts: bool,
    /// The memory budget of the sessions' terminals, in bytes (`--memory-budget-mib`).
    pub memory_budget: u64,
    /// Whether successful reads get audit records (`--audit-reads`); else they are counted.
    pub audit_reads: bool,
    /// Whether sessions outlive the relay in holder processes (`--persist`, `--no-persist`,
    /// the configuration file's `persist`; default [`PERSIST_BY_DEFAULT`]).
    pub persist: bool,
}

/// Whether sessions outlive the relay when neither a flag nor the configuration file says
/// (shells survive a restart or an upgrade of the relay, as tmux's do).
pub const PERSIST_BY_DEFAULT: bool = true;

/// Why the configuration could not be resolved; says what was wrong and what is accepted.
#[derive(Debug)]
pub enum ConfigError {
    /// No `--state-dir`, no `$XDG_STATE_HOME` and no `$HOME`.
    NoStateDir,
    /// An `--allow-origin` value that is not `http(s)://host[:port]`.
    BadOrigin {
        /// The value as given.
        origin: String,
    },
    /// [`PAGE_TOKEN_ENV`] or the sidecar holds an unusable token.
    BadToken {
        /// Where it came from: the variable's name or the file's path.
        source: String,
        /// What is wrong with it.
        error: SecretError,
    },
    /// The shell (`--shell`, else `$SHELL`) is not an executable file.
    BadShell {
        /// The value as given.
        shell: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The OS random source failed while minting a token.
    Random(getrandom::Error),
    /// The profile configuration file is unusable.
    Profiles(ProfilesError),
    /// The TLS certificate or key is unusable.
    Tls(TlsError),
    /// Plain HTTP on an address other than loopback, without `--allow-plain-http`.
    PlainHttpExposed {
        /// The address.
        listen: IpAddr,
    },
    /// Reading or writing the state directory failed.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        error: io::Error,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NoStateDir => {
                f.write_str("no state directory: pass --state-dir, or set XDG_STATE_HOME or HOME")
            }
            ConfigError::BadOrigin { origin } => write!(
                f,
                "bad --allow-origin {origin:?}; accepted: http://host[:port] or https://host[:port]"
            ),
            ConfigError::BadToken { source, error } => {
                // The page token's or, from the environment, an MCP or admin token's source.
                write!(f, "bad token in {source}: {error}")
            }
            ConfigError::BadShell { shell, why } => write!(
                f,
                "bad shell {shell:?}: {why}; accepted: --shell with the path of an executable \
                 file, or a command name found on PATH"
            ),
            ConfigError::Random(e) => write!(f, "cannot mint a page token: {e}"),
            ConfigError::Profiles(e) => write!(f, "bad configuration file {e}"),
            ConfigError::Tls(e) => e.fmt(f),
            ConfigError::PlainHttpExposed { listen } => write!(
                f,
                "refusing to serve plain HTTP on {listen}, which is not loopback: the page, its \
                 token and a shell would cross the network readable by anyone on the path. \
                 Accepted: --tls-cert PEM --tls-key PEM (HTTPS and WSS); --listen 127.0.0.1 and \
                 an SSH tunnel (ssh -L PORT:127.0.0.1:PORT HOST); or --allow-plain-http behind a \
                 TLS reverse proxy or on a network you trust"
            ),
            ConfigError::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Resolves `args` against the process environment: directories, origins, the shell and the
    /// page token (environment, else sidecar, else minted and saved).
    pub fn resolve(args: ServeArgs) -> Result<Self, ConfigError> {
        Self::resolve_with(args, |k| std::env::var_os(k))
    }

    /// [`Config::resolve`] with the environment given as a lookup function (for tests).
    pub fn resolve_with(
        args: ServeArgs,
        env: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Self, ConfigError> {
        let state_dir = match args.state_dir {
            Some(dir) => dir,
            None => default_state_dir(&env).ok_or(ConfigError::NoStateDir)?,
        };
        // The workspace this binary was built in: the defaults work from a checkout.
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let workspace = manifest.parent().unwrap_or(manifest);
        let www_dir = args.www_dir.unwrap_or_else(|| workspace.join("www"));
        let pkg_dir = args
            .pkg_dir
            .unwrap_or_else(|| workspace.join("wterm-wasm").join("pkg"));
        let allow_origins = args
            .allow_origins
            .iter()
            .map(|o| {
                normalize_origin(o).ok_or_else(|| ConfigError::BadOrigin { origin: o.clone() })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let shell = args
            .shell
            .or_else(|| {
                env("SHELL")
                    .and_then(|s| s.into_string().ok())
                    .filter(|s| !s.is_empty())
            })
            .unwrap_or_else(|| "/bin/bash".to_owned());
        check_shell(&shell, &env)?;
        let (page_token, token_source) = match env(PAGE_TOKEN_ENV) {
            Some(v) => {
                let v = v.to_string_lossy();
                let token =
                    Secret::configured(v.trim()).map_err(|error| ConfigError::BadToken {
                        source: PAGE_TOKEN_ENV.to_owned(),
                        error,
                    })?;
                (token, TokenSource::Env)
            }
            None => load_or_mint_token(&state_dir)?,
        };
        let env_tokens = EnvTokens::resolve(&env).map_err(|e| ConfigError::BadToken {
            source: e.name.to_owned(),
            error: e.error,
        })?;
        let profiles = match &args.config {
            Some(path) => Profiles::load(path, true, &shell),
            None => match default_config_file(&env) {
                Some(path) => Profiles::load(&path, false, &shell),
                None => Ok(Profiles::builtin(&shell)),
            },
        }
        .map_err(ConfigError::Profiles)?;
        let tls = match (args.tls_cert, args.tls_key) {
            (Some(cert), Some(key)) => {
                Some(tls::server_config(&TlsFiles { cert, key }).map_err(ConfigError::Tls)?)
            }
            _ => None,
        };
        if tls.is_none() && !args.allow_plain_http && !super::net::is_loopback(args.listen) {
            return Err(ConfigError::PlainHttpExposed {
                listen: args.listen,
            });
        }
        let persist = if args.persist {
            true
        } else if args.no_persist {
            false
        } else {
            profiles.persist().unwrap_or(PERSIST_BY_DEFAULT)
        };
        Ok(Config {
            listen: args.listen,
            port: args.port,
            state_dir,
            www_dir,
            pkg_dir,
            allow_origins,
            shell,
            page_token,
            token_source,
            env_tokens,
            profiles,
            terminals: !args.no_terminals,
            shell_integration: true,
            hsts: args.hsts && tls.is_some(),
            memory_budget: args.memory_budget_mib * 1024 * 1024,
            tls,
            audit_reads: args.audit_reads,
            persist,
        })
    }

    /// The same configuration with shell integration off for the page's shell and every
    /// profile (`--no-shell-integration`).
    pub fn without_shell_integration(mut self) -> Self {
        self.shell_integration = false;
        self.profiles.disable_shell_integration();
        self
    }
}

/// `$XDG_CONFIG_HOME/wterm-relay/config.toml`, else `$HOME/.config/wterm-relay/config.toml`.
/// Refuses a shell that cannot start, at startup rather than at the first page (newcomer
/// report: `--shell /nonexistent` failed only when a page opened): a path must name an
/// executable file; a bare name must be one on `PATH`.
fn check_shell(shell: &str, env: &impl Fn(&str) -> Option<OsString>) -> Result<(), ConfigError> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let bad = |why| {
        Err(ConfigError::BadShell {
            shell: shell.to_owned(),
            why,
        })
    };
    if shell.trim().is_empty() {
        return bad("it is empty");
    }
    let missing = |path: &Path| std::fs::metadata(path).is_err();
    if shell.contains(char::is_whitespace) && missing(Path::new(shell)) {
        return bad("it takes a program only, without arguments");
    }
    if shell.contains('/') {
        return match std::fs::metadata(shell) {
            Err(_) => bad("no such file"),
            Ok(_) if !executable(Path::new(shell)) => bad("not an executable file"),
            Ok(_) => Ok(()),
        };
    }
    let path = env("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|dir| executable(&dir.join(shell))) {
        Ok(())
    } else {
        bad("not found on PATH")
    }
}

fn default_config_file(env: &impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let absolute = |v: OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let dir = match env("XDG_CONFIG_HOME").and_then(absolute) {
        Some(xdg) => xdg,
        None => env("HOME").and_then(absolute)?.join(".config"),
    };
    Some(dir.join("wterm-relay").join("config.toml"))
}

pub(crate) fn default_state_dir(env: &impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let absolute = |v: OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(xdg) = env("XDG_STATE_HOME").and_then(absolute) {
        return Some(xdg.join("wterm-relay"));
    }
    let home = env("HOME").and_then(absolute)?;
    Some(home.join(".local").join("state").join("wterm-relay"))
}

/// `http(s)://host[:port]` as a browser sends it in `Origin`: lowercased, no trailing slash, the
/// scheme's default port (80, 443) left out; `None` when it is not one (a path, an empty host, a
/// port that is not 1..=65535, an unclosed `[`), since such a value could never match.
pub fn normalize_origin(origin: &str) -> Option<String> {
    let o = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    let (scheme, rest) = o.split_once("://")?;
    let default_port = match scheme {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let (host, port) = match rest.strip_prefix('[') {
        Some(v6) => {
            let (addr, after) = v6.split_once(']')?;
            addr.parse::<std::net::Ipv6Addr>().ok()?;
            (&rest[..addr.len() + 2], after)
        }
        None => match rest.find(':') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        },
    };
    let host_ok = host.starts_with('[')
        || (!host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-.".contains(&b)));
    if !host_ok {
        return None;
    }
    let port = match port.strip_prefix(':') {
        None if port.is_empty() => None,
        None => return None,
        Some(p) if p.bytes().all(|b| b.is_ascii_digit()) => {
            Some(p.parse::<u16>().ok().filter(|&n| n > 0)?)
        }
        Some(_) => return None,
    };
    Some(match port {
        Some(p) if p != default_port => format!("{scheme}://{host}:{p}"),
        _ => format!("{scheme}://{host}"),
    })
}

/// Reads the page token from `dir/page_token`, or mints one and writes it there (directory
/// created with mode 0700, file written atomically with mode 0600).
fn load_or_mint_token(dir: &Path) -> Result<(Secret, TokenSource), ConfigError> {
    let path = dir.join(PAGE_TOKEN_FILE);
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |error| ConfigError::Io { path, error }
    };
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => {
            let token = Secret::configured(text.trim()).map_err(|error| ConfigError::BadToken {
                source: path.display().to_string(),
                error,
            })?;
            if let Ok(meta) = std::fs::metadata(&path) {
                if meta.permissions().mode() & 0o077 != 0 {
                    tracing::warn!(path = %path.display(), "page token file is readable by others; chmod 600 it");
                }
            }
            return Ok((token, TokenSource::File));
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(&path)(e)),
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_err(dir))?;
    let token = Secret::mint().map_err(ConfigError::Random)?;
    write_private_atomic(&path, token.expose().as_bytes()).map_err(io_err(&path))?;
    Ok((token, TokenSource::Minted))
}

/// Writes `bytes` to `path` through a temporary file in the same directory (mode 0600, synced)
/// and a rename, so a reader sees the old file or the whole new one. A missing directory is
/// created with mode 0700.
pub fn write_private_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && !d.exists())
    {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let tmp = temp_path(path, std::process::id());
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        // The mode above only applies to a file this call created.
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The temporary file [`write_private_atomic`] writes `path` through: `.NAME.tmp.PID` beside it.
fn temp_path(path: &Path, pid: u32) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp.{pid}"))
}

/// The process that wrote a temporary file of [`write_private_atomic`], when `name` is one.
fn temp_owner(name: &str) -> Option<u32> {
    let (base, pid) = name.strip_prefix('.')?.rsplit_once(".tmp.")?;
    if base.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether process `pid` is alive (another relay mid-write keeps its file).
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 || *libc::__errno_location() == libc::EPERM }
}

/// Removes the temporary files of [`write_private_atomic`] that a relay killed during a write
/// (SIGKILL, a crash, a power cut) left in `dir` and the directories below it (the state
/// directory: they may hold the tokens of that moment). Files of a process still alive, other
/// than this one, are kept. Returns the files removed.
pub fn remove_stale_temps(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let mut dirs = vec![(dir.to_path_buf(), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && depth < 4 {
                dirs.push((entry.path(), depth + 1));
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(temp_owner) else {
                continue;
            };
            if (pid == std::process::id() || !process_alive(pid))
                && std::fs::remove_file(entry.path()).is_ok()
            {
                removed.push(entry.path());
            }
        }
    }
    removed
}

/// Tokens given in the environment.
#[derive(Debug, Clone, Default)]
pub struct EnvTokens {
    /// [`MCP_TOKEN_ENV`].
    pub token: Option<Secret>,
    /// [`MCP_ADMIN_TOKEN_ENV`].
    pub admin_token: Option<Secret>,
}

/// Why an environment token cannot be used.
#[derive(Debug)]
pub struct EnvTokenError {
    /// The variable's name.
    pub name: &'static str,
    /// What is wrong with its value.
    pub error: SecretError,
}

impl std::fmt::Display for EnvTokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad token in {}: {}", self.name, self.error)
    }
}

impl std::error::Error for EnvTokenError {}

impl EnvTokens {
    /// Reads both variables through `env`; an empty variable counts as unset.
    pub fn resolve(env: impl Fn(&str) -> Option<OsString>) -> Result<EnvTokens, EnvTokenError> {
        let read = |name: &'static str| -> Result<Option<Secret>, EnvTokenError> {
            match env(name) {
                None => Ok(None),
                Some(v) => {
                    let v = v.to_string_lossy();
                    let v = v.trim();
                    if v.is_empty() {
                        return Ok(None);
                    }
                    Secret::configured(v)
                        .map(Some)
                        .map_err(|error| EnvTokenError { name, error })
                }
            }
        };
        Ok(EnvTokens {
            token: read(MCP_TOKEN_ENV)?,
            admin_token: read(MCP_ADMIN_TOKEN_ENV)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_temporary_files_are_removed_live_ones_and_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("shell-integration/zsh");
        std::fs::create_dir_all(&sub).unwrap();
        // A pid no process has (above the kernel's pid_max of 2^22).
        let gone = 4_194_999_u32;
        let stale = [
            temp_path(&dir.path().join("webterm_mcp.json"), gone),
            temp_path(&dir.path().join("page_token"), std::process::id()),
            temp_path(&sub.join(".zshrc"), gone),
        ];
        // PID 1 is alive and not us: another relay mid-write keeps its file.
        let live = temp_path(&dir.path().join("webterm_mcp_windows.json"), 1);
        let others = [
            dir.path().join("webterm_mcp.json"),
            dir.path().join(".notes.tmp.x"),
            dir.path().join("a.tmp.12"),
        ];
        for f in stale.iter().chain([&live]).chain(others.iter()) {
            std::fs::write(f, "x").unwrap();
        }
        let mut removed = remove_stale_temps(dir.path());
        removed.sort();
        let mut want = stale.to_vec();
        want.sort();
        assert_eq!(removed, want);
        assert!(live.exists());
        assert!(others.iter().all(|f| f.exists()));
        assert_eq!(temp_owner(".webterm_mcp.json.tmp.123"), Some(123));
        assert_eq!(temp_owner(".tmp.123"), None);
        assert_eq!(temp_owner(".x.tmp.12a"), None);
    }

    fn args(state: &Path) -> ServeArgs {
        ServeArgs {
            listen: [127, 0, 0, 1].into(),
            port: 0,
            state_dir: Some(state.to_path_buf()),
            www_dir: None,
            pkg_dir: None,
            allow_origins: vec![],
            shell: None,
            config: None,
            no_terminals: false,
            tls_cert: None,
            tls_key: None,
            allow_plain_http: false,
            hsts: false,
            memory_budget_mib: DEFAULT_MEMORY_BUDGET_MIB,
            persist: false,
            no_persist: false,
            audit_reads: false,
        }
    }

    #[test]
    fn sessions_are_held_unless_a_flag_or_the_file_says_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let resolve = |a: ServeArgs| Config::resolve_with(a, |_| None).unwrap().persist;
        assert!(resolve(args(&state)), "held by default");
        let mut off = args(&state);
        off.no_persist = true;
        assert!(!resolve(off));
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "persist = false\n").unwrap();
        let mut from_file = args(&state);
        from_file.config = Some(file.clone());
        assert!(!resolve(from_file.clone()));
        from_file.persist = true;
        assert!(resolve(from_file), "the flag wins over the file");
    }

    #[test]
    fn plain_http_beyond_loopback_needs_tls_or_the_flag() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        for (listen, ok) in [
            ("0.0.0.0", false),
            ("192.168.1.5", false),
            ("::", false),
            ("127.0.0.1", true),
            ("::1", true),
            ("::ffff:127.0.0.1", true),
        ] {
            let mut a = args(&state);
            a.listen = listen.parse().unwrap();
            let r = Config::resolve_with(a.clone(), |_| None);
            assert_eq!(r.is_ok(), ok, "{listen}: {r:?}");
            if let Err(e) = r {
                let e = e.to_string();
                assert!(
                    e.contains(listen)
                        && e.contains("--tls-cert")
                        && e.contains("--allow-plain-http"),
                    "{e}"
                );
            }
            a.allow_plain_http = true;
            assert!(Config::resolve_with(a, |_| None).is_ok(), "{listen}");
        }
    }

    #[test]
    fn env_token_wins_and_touches_no_disk() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let env = |k: &str| (k == PAGE_TOKEN_ENV).then(|| OsString::from("from-env-token"));
        let c = Config::resolve_with(args(&state), env).unwrap();
        assert!(c.page_token.matches(b"from-env-token"));
        assert_eq!(c.token_source, TokenSource::Env);
        assert!(!state.exists());
    }

    #[test]
    fn token_is_minted_once_then_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("a/b");
        let first = Config::resolve_with(args(&state), |_| None).unwrap();
        assert_eq!(first.token_source, TokenSource::Minted);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&state), 0o700);
        assert_eq!(mode(&state.join(PAGE_TOKEN_FILE)), 0o600);
        let second = Config::resolve_with(args(&state), |_| None).unwrap();
        assert_eq!(second.token_source, TokenSource::File);
        assert!(second
            .page_token
            .matches(first.page_token.expose().as_bytes()));
    }

    #[test]
    fn bad_env_token_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let env = |k: &str| (k == PAGE_TOKEN_ENV).then(|| OsString::from("a b"));
        let err = Config::resolve_with(args(dir.path()), env).unwrap_err();
        assert!(matches!(err, ConfigError::BadToken { .. }));
        assert!(
            !err.to_string().contains("a b"),
            "the error must not echo the secret"
        );
    }

    #[test]
    fn short_env_token_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let env = |k: &str| (k == PAGE_TOKEN_ENV).then(|| OsString::from("x"));
        let err = Config::resolve_with(args(dir.path()), env).unwrap_err();
        assert!(err.to_string().contains("at least 12 characters"), "{err}");
    }

    #[test]
    fn a_shell_that_cannot_start_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let with_shell = |shell: &str| ServeArgs {
            shell: Some(shell.into()),
            ..args(dir.path())
        };
        let env = |k: &str| (k == "PATH").then(|| OsString::from("/usr/bin:/bin"));
        for (shell, why) in [
            ("/nonexistent", "no such file"),
            ("/etc/passwd", "not an executable file"),
            ("/tmp", "not an executable file"),
            ("no-such-shell-here", "not found on PATH"),
            ("", "it is empty"),
            ("bash -l", "without arguments"),
        ] {
            let err = Config::resolve_with(with_shell(shell), env).unwrap_err();
            assert!(err.to_string().contains(why), "{shell}: {err}");
        }
        assert!(Config::resolve_with(with_shell("sh"), env).is_ok());
        assert!(Config::resolve_with(with_shell("/bin/sh"), env).is_ok());
    }

    #[test]
    fn state_dir_defaults() {
        let env = |k: &str| match k {
            "HOME" => Some(OsString::from("/home/u")),
            _ => None,
        };
        assert_eq!(
            default_state_dir(&env),
            Some(PathBuf::from("/home/u/.local/state/wterm-relay"))
        );
        let env = |k: &str| match k {
            "HOME" => Some(OsString::from("/home/u")),
            "XDG_STATE_HOME" => Some(OsString::from("/xdg")),
            _ => None,
        };
        assert_eq!(
            default_state_dir(&env),
            Some(PathBuf::from("/xdg/wterm-relay"))
        );
        assert_eq!(default_state_dir(&|_: &str| None), None);
    }

    #[test]
    fn origins_are_normalized() {
        assert_eq!(
            normalize_origin("http://Dev:7681/").as_deref(),
            Some("http://dev:7681")
        );
        assert_eq!(
            normalize_origin("https://[::1]:1").as_deref(),
            Some("https://[::1]:1")
        );
        assert_eq!(normalize_origin("ftp://x"), None);
        assert_eq!(normalize_origin("http://"), None);
        assert_eq!(normalize_origin("http://a/b"), None);
        // Newcomer report: values no browser Origin can match were accepted.
        for bad in [
            "http://x:99999",
            "http://x:abc",
            "http://:80",
            "https://[::1",
            "http://x:",
            "http://x:0",
            "https://[zz]:1",
        ] {
            assert_eq!(normalize_origin(bad), None, "{bad}");
        }
        // A browser leaves the default port out of Origin.
        assert_eq!(normalize_origin("http://x:80").as_deref(), Some("http://x"));
        assert_eq!(
            normalize_origin("https://x:443/").as_deref(),
            Some("https://x")
        );
        assert_eq!(
            normalize_origin("https://x:80").as_deref(),
            Some("https://x:80")
        );
    }
}

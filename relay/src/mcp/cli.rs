//! `wterm-relay mcp` (MCP on stdio, fronting relays over HTTP) and `wterm-relay mcp-config`
//! (a ready `.mcp.json` for this relay). A bad configuration is one line saying what is wrong
//! ([`McpConfigError`]); `main` prints it and exits 2.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use rmcp::ServiceExt as _;
use serde::Deserialize;
use serde_json::json;

use super::remote::{HostConfig, Remote};
use super::server::{Backend, McpServer};
use crate::broker::settings;
use crate::broker::window::Scope;
use crate::ground::config::EnvTokens;
use crate::ground::Secret;
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::CertificateDer;
use tokio_rustls::rustls;

/// Options of `wterm-relay mcp`.
#[derive(Debug, Clone, Args)]
pub struct McpArgs {
    /// The relay's base URL, e.g. http://127.0.0.1:7681.
    #[arg(long, env = "WTERM_MCP_URL", value_name = "URL")]
    pub url: Option<String>,
    /// The relay's MCP token (from the relay page's MCP settings).
    #[arg(
        long,
        env = "WTERM_MCP_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub token: Option<String>,
    /// Declare this scope: only windows tagged with it are visible.
    #[arg(long, env = "WTERM_MCP_SCOPE", value_name = "SCOPE")]
    pub scope: Option<String>,
    /// The relay's admin token (lists set_mcp_knobs).
    #[arg(
        long,
        env = "WTERM_MCP_ADMIN_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub admin_token: Option<String>,
    /// A PEM file of certificate authorities to trust for https:// relays, besides the
    /// system's (a relay with a certificate of your own CA).
    #[arg(long, env = "WTERM_MCP_CA_CERT", value_name = "PEM")]
    pub ca_cert: Option<PathBuf>,
    /// Several relays: a JSON array of {name, url, token, scope?, admin_token?}.
    #[arg(
        long,
        env = "WTERM_MCP_HOSTS",
        hide_env_values = true,
        value_name = "JSON"
    )]
    pub hosts: Option<String>,
}

/// Options of `wterm-relay mcp-config`.
#[derive(Debug, Clone, Args)]
pub struct McpConfigArgs {
    /// Print the stdio form (`wterm-relay mcp` as the command) instead of the HTTP form.
    #[arg(long)]
    pub stdio: bool,
    /// The relay's base URL.
    #[arg(long, default_value = "http://127.0.0.1:7681", value_name = "URL")]
    pub url: String,
    /// The relay's state directory (where its MCP token is kept).
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
}

/// A configuration `wterm-relay mcp` cannot run with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpConfigError(pub String);

impl fmt::Display for McpConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

const HOW_TO_GET_A_TOKEN: &str = "get one in the relay page's MCP settings (enable MCP, generate a token), or run `wterm-relay mcp-config` on the relay's machine";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HostEntry {
    name: String,
    url: String,
    token: Option<String>,
    scope: Option<String>,
    admin_token: Option<String>,
}

fn err<T>(s: String) -> Result<T, McpConfigError> {
    Err(McpConfigError(s))
}

/// `http(s)://host:port[/path]` without a trailing slash.
fn base_url(name: &str, url: &str) -> Result<String, McpConfigError> {
    let bad = || {
        McpConfigError(format!(
            "host {name}: bad url {url:?}; accepted: http://host:port or https://host:port"
        ))
    };
    let uri: axum::http::Uri = url.parse().map_err(|_| bad())?;
    match uri.scheme_str() {
        Some("http" | "https") if uri.authority().is_some() => {}
        _ => return Err(bad()),
    }
    if uri.query().is_some() {
        return err(format!(
            "host {name}: the url must not have a query (tokens go in --token)"
        ));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

fn host(e: HostEntry) -> Result<HostConfig, McpConfigError> {
    let name = e.name;
    if name.is_empty() || name.contains(':') || name.len() > 64 {
        return err(format!(
            "host name {name:?}: accepted: 1..64 characters without ':'"
        ));
    }
    let url = base_url(&name, &e.url)?;
    let token = match e.token.filter(|t| !t.is_empty()) {
        Some(t) => {
            Secret::new(&t).map_err(|er| McpConfigError(format!("host {name}: bad token: {er}")))?
        }
        None => return err(format!("host {name}: no MCP token; {HOW_TO_GET_A_TOKEN}")),
    };
    let scope = match e.scope.filter(|s| !s.is_empty()) {
        Some(s) => Some(Scope::parse(&s).ok_or_else(|| {
            McpConfigError(format!(
                "host {name}: bad scope {s:?}; accepted: [A-Za-z0-9][A-Za-z0-9._-]{{0,63}}"
            ))
        })?),
        None => None,
    };
    let admin_token = match e.admin_token.filter(|t| !t.is_empty()) {
        Some(t) => Some(
            Secret::new(&t)
                .map_err(|er| McpConfigError(format!("host {name}: bad admin token: {er}")))?,
        ),
        None => None,
    };
    Ok(HostConfig {
        name,
        url,
        token,
        scope,
        admin_token,
    })
}

/// The hosts `args` configure.
pub fn hosts(args: &McpArgs) -> Result<Vec<HostConfig>, McpConfigError> {
    match (&args.url, &args.hosts) {
        (Some(_), Some(_)) => err("give --url (WTERM_MCP_URL) or --hosts (WTERM_MCP_HOSTS), not both".into()),
        (None, None) => err(
            "no relay configured: pass --url http://127.0.0.1:PORT --token TOKEN (or WTERM_MCP_URL, WTERM_MCP_TOKEN), or --hosts '[{\"name\":..,\"url\":..,\"token\":..}]'".into(),
        ),
        (Some(url), None) => {
            if args.token.as_deref().is_none_or(str::is_empty) {
                return err(format!("no MCP token: pass --token or set WTERM_MCP_TOKEN; {HOW_TO_GET_A_TOKEN}"));
            }
            Ok(vec![host(HostEntry {
                name: "default".into(),
                url: url.clone(),
                token: args.token.clone(),
                scope: args.scope.clone(),
                admin_token: args.admin_token.clone(),
            })?])
        }
        (None, Some(json)) => {
            if args.token.is_some() || args.scope.is_some() || args.admin_token.is_some() {
                return err("with --hosts, give token, scope and admin_token inside each host entry".into());
            }
            let entries: Vec<HostEntry> = serde_json::from_str(json).map_err(|e| {
                McpConfigError(format!(
                    "--hosts (WTERM_MCP_HOSTS) is not a JSON array of {{name, url, token, scope?, admin_token?}}: {e}"
                ))
            })?;
            if entries.is_empty() {
                return err("--hosts (WTERM_MCP_HOSTS) is an empty list".into());
            }
            let hosts = entries.into_iter().map(host).collect::<Result<Vec<_>, _>>()?;
            for (i, h) in hosts.iter().enumerate() {
                if hosts[..i].iter().any(|o| o.name == h.name) {
                    return err(format!("host name {:?} is given twice", h.name));
                }
            }
            Ok(hosts)
        }
    }
}

/// The TLS client configuration for https:// relays: the system's certificate authorities
/// (`/etc/ssl/certs` on Debian) and those of `--ca-cert`.
pub fn client_tls(args: &McpArgs) -> Result<rustls::ClientConfig, McpConfigError> {
    let mut roots = rustls::RootCertStore::empty();
    // Unreadable system entries are skipped, as every TLS client does.
    let native = rustls_native_certs::load_native_certs();
    roots.add_parsable_certificates(native.certs);
    if let Some(path) = &args.ca_cert {
        let pem = std::fs::read(path)
            .map_err(|e| McpConfigError(format!("--ca-cert {}: {e}", path.display())))?;
        let certs: Vec<_> = CertificateDer::pem_slice_iter(&pem)
            .filter_map(Result::ok)
            .collect();
        let (added, _) = roots.add_parsable_certificates(certs);
        if added == 0 {
            return err(format!(
                "--ca-cert {}: no usable certificate in it; accepted: a PEM file of \
                 \"-----BEGIN CERTIFICATE-----\" blocks",
                path.display()
            ));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| McpConfigError(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// Serves MCP on stdin/stdout until the client closes it; https:// hosts are reached with
/// `tls`.
pub async fn run_stdio(hosts: Vec<HostConfig>, tls: rustls::ClientConfig) -> std::io::Result<()> {
    let server = McpServer::new(Arc::new(Backend::Remote(Remote::new(hosts, tls))));
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

/// The `.mcp.json` text for `args`, and the warning for stderr.
pub fn mcp_config(
    args: &McpConfigArgs,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<String, McpConfigError> {
    let url = base_url("default", &args.url)?;
    let env_tokens = EnvTokens::resolve(&env)
        .map_err(|e| McpConfigError(format!("bad token in {}: {}", e.name, e.error)))?;
    let token = match env_tokens.token {
        Some(t) => t,
        None => {
            let dir = args
                .state_dir
                .clone()
                .or_else(|| crate::ground::config::default_state_dir(&env))
                .ok_or_else(|| McpConfigError("no state directory: pass --state-dir".into()))?;
            settings::load(&dir).token.ok_or_else(|| {
                McpConfigError(format!(
                    "no MCP token yet in {}: enable MCP and generate a token in the relay page's MCP settings (or set WEB_TERMINAL_MCP_TOKEN), then run this again",
                    dir.display()
                ))
            })?
        }
    };
    let server = if args.stdio {
        let exe = std::env::current_exe()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "wterm-relay".into());
        json!({
            "command": exe,
            "args": ["mcp"],
            "env": { "WTERM_MCP_URL": url, "WTERM_MCP_TOKEN": token.expose() },
        })
    } else {
        json!({
            "type": "http",
            "url": format!("{url}/mcp"),
            "headers": { "Authorization": format!("Bearer {}", token.expose()) },
        })
    };
    let doc = json!({ "mcpServers": { "wterm": server } });
    Ok(serde_json::to_string_pretty(&doc).unwrap_or_default())
}

/// The warning `mcp-config` prints on stderr.
pub const SECRET_WARNING: &str = "wterm-relay: this .mcp.json holds the relay's MCP token, a secret: keep it outside git (add it to .gitignore, or use ~/.claude.json / a user-scope config)";

#[cfg(test)]
mod tests {
    use super::*;

    fn args(url: Option<&str>, token: Option<&str>, hosts: Option<&str>) -> McpArgs {
        McpArgs {
            url: url.map(Into::into),
            token: token.map(Into::into),
            scope: None,
            admin_token: None,
            hosts: hosts.map(Into::into),
            ca_cert: None,
        }
    }

    #[test]
    fn configurations() {
        assert_eq!(
            hosts(&args(Some("http://127.0.0.1:1"), Some("t0ken"), None)).unwrap()[0].name,
            "default"
        );
        let e = hosts(&args(Some("http://127.0.0.1:1"), None, None)).unwrap_err();
        assert!(e.0.contains("relay page's MCP settings"), "{e}");
        assert!(hosts(&args(None, None, None)).is_err());
        assert_eq!(
            hosts(&args(Some("https://x:7681/"), Some("t"), None)).unwrap()[0].url,
            "https://x:7681"
        );
        for bad in ["ftp://x", "x:1", "https://"] {
            let e = hosts(&args(Some(bad), Some("t"), None)).unwrap_err();
            assert!(
                e.0.contains("accepted: http://host:port or https://host:port"),
                "{e}"
            );
        }
        let two = r#"[{"name":"a","url":"http://127.0.0.1:1","token":"t1"},{"name":"b","url":"http://127.0.0.1:2/","token":"t2","scope":"s-1"}]"#;
        let h = hosts(&args(None, None, Some(two))).unwrap();
        assert_eq!(h[1].url, "http://127.0.0.1:2");
        assert!(hosts(&args(None, None, Some("[{\"name\":\"a\"}]"))).is_err());
        let dup = r#"[{"name":"a","url":"http://h:1","token":"t"},{"name":"a","url":"http://h:2","token":"t"}]"#;
        assert!(hosts(&args(None, None, Some(dup)))
            .unwrap_err()
            .0
            .contains("twice"));
        let mut a = args(Some("https://x"), Some("t"), None);
        a.ca_cert = Some("/nonexistent/ca.pem".into());
        assert!(client_tls(&a)
            .unwrap_err()
            .0
            .contains("/nonexistent/ca.pem"));
        a.ca_cert = Some("/etc/hostname".into());
        assert!(client_tls(&a).unwrap_err().0.contains("BEGIN CERTIFICATE"));
        let bad_scope = r#"[{"name":"a","url":"http://h:1","token":"t","scope":"no spaces"}]"#;
        assert!(hosts(&args(None, None, Some(bad_scope)))
            .unwrap_err()
            .0
            .contains("scope"));
    }
}

//! The HTTP backend of `wterm-relay mcp`: one or more relays, called on their `/mcp/*` routes
//! with a small hyper client (`http://`, or `https://` through rustls).
//!
//! A scoped host fails closed: before the first call to it, and after any connection error,
//! `/mcp/info` must echo the configured scope; if it does not, every call to that host is
//! `scope_unsupported` and nothing else is sent.

use std::sync::Mutex;
use std::time::Duration;

use axum::http::{header, Method as HttpMethod, Request, Uri};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use tokio_rustls::rustls;

use super::error::ToolError;
use super::handles::Handles;
use crate::broker::ops::{Method, Op};
use crate::broker::window::Scope;
use crate::ground::limits::MCP_CLIENT_TIMEOUT_SECS;
use crate::ground::{Refusal, Secret};
use crate::guard::ladder::{ADMIN_HEADER, SCOPE_HEADER};

/// One relay as configured.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Its name, the `<host>` of window ids.
    pub name: String,
    /// Its base URL, `http://host:port` (no trailing slash).
    pub url: String,
    /// The MCP token.
    pub token: Secret,
    /// The scope to declare.
    pub scope: Option<Scope>,
    /// The admin token.
    pub admin_token: Option<Secret>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScopeCheck {
    Unchecked,
    Verified,
    Unsupported,
}

#[derive(Debug)]
struct Host {
    cfg: HostConfig,
    check: Mutex<ScopeCheck>,
}

/// The HTTP backend.
#[derive(Debug)]
pub struct Remote {
    hosts: Vec<Host>,
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    /// Launch handles of this server.
    pub handles: Handles,
}

impl Remote {
    /// A backend over `hosts` (already validated: unique names, http(s) URLs); https hosts
    /// are reached with `tls`.
    pub fn new(hosts: Vec<HostConfig>, tls: rustls::ClientConfig) -> Remote {
        let mut http = HttpConnector::new();
        http.set_nodelay(true);
        http.set_connect_timeout(Some(Duration::from_secs(5)));
        http.enforce_http(false);
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Remote {
            hosts: hosts
                .into_iter()
                .map(|cfg| Host {
                    cfg,
                    check: Mutex::new(ScopeCheck::Unchecked),
                })
                .collect(),
            client: Client::builder(TokioExecutor::new()).build(connector),
            handles: Handles::default(),
        }
    }

    pub(super) fn host_names(&self) -> Vec<String> {
        self.hosts.iter().map(|h| h.cfg.name.clone()).collect()
    }

    pub(super) fn any_admin(&self) -> bool {
        self.hosts.iter().any(|h| h.cfg.admin_token.is_some())
    }

    fn set_check(host: &Host, c: ScopeCheck) {
        *host.check.lock().unwrap_or_else(|e| e.into_inner()) = c;
    }

    pub(super) async fn call(&self, name: &str, op: Op, body: Value) -> Result<Value, ToolError> {
        let host = self
            .hosts
            .iter()
            .find(|h| h.cfg.name == name)
            .ok_or(ToolError::UnknownHost)?;
        if let Some(scope) = &host.cfg.scope {
            let check = *host.check.lock().unwrap_or_else(|e| e.into_inner());
            match check {
                ScopeCheck::Verified => {}
                ScopeCheck::Unsupported => return Err(ToolError::ScopeUnsupported),
                ScopeCheck::Unchecked => {
                    let info = self.request(host, Op::Info, Value::Null).await?;
                    if info.get("scope").and_then(Value::as_str) == Some(scope.as_str()) {
                        Self::set_check(host, ScopeCheck::Verified);
                    } else {
                        tracing::warn!(host = name, "relay does not echo the scope; refusing");
                        Self::set_check(host, ScopeCheck::Unsupported);
                        return Err(ToolError::ScopeUnsupported);
                    }
                }
            }
        }
        self.request(host, op, body).await
    }

    async fn request(&self, host: &Host, op: Op, body: Value) -> Result<Value, ToolError> {
        // A GET's fields travel as its query (`/mcp/audit`'s filters; never a credential).
        let query = match (&body, op.method()) {
            (Value::Object(fields), Method::Get) if !fields.is_empty() => {
                let mut q = form_urlencoded::Serializer::new(String::from("?"));
                for (k, v) in fields {
                    match v {
                        Value::String(s) => q.append_pair(k, s),
                        other => q.append_pair(k, &other.to_string()),
                    };
                }
                q.finish()
            }
            _ => String::new(),
        };
        let uri: Uri = format!("{}{}{query}", host.cfg.url, op.path())
            .parse()
            .map_err(|_| ToolError::Unreachable("bad URL".into()))?;
        let mut req = Request::builder()
            .uri(uri)
            .header(
                header::AUTHORIZATION,
                format!("Bearer {}", host.cfg.token.expose()),
            )
            .header(header::ACCEPT, "application/json");
        if let Some(scope) = &host.cfg.scope {
            req = req.header(SCOPE_HEADER, scope.as_str());
        }
        if let Some(admin) = &host.cfg.admin_token {
            // Only where the admin credential is the point: an admin sees every window, which
            // would undo a declared scope in listings.
            if matches!(op, Op::Info | Op::Window | Op::Knobs | Op::Audit) {
                req = req.header(ADMIN_HEADER, admin.expose());
            }
        }
        let req = match op.method() {
            Method::Get => req.method(HttpMethod::GET).body(Full::new(Bytes::new())),
            Method::Post => req
                .method(HttpMethod::POST)
                .header(header::CONTENT_TYPE, "application/json")
                .body(Full::new(Bytes::from(
                    serde_json::to_vec(&body).unwrap_or_default(),
                ))),
        }
        .map_err(|_| ToolError::Unreachable("bad request".into()))?;
        let timeout = Duration::from_secs(MCP_CLIENT_TIMEOUT_SECS);
        let sent = tokio::time::timeout(timeout, async {
            let resp = self.client.request(req).await.map_err(|e| {
                let mut what = e.to_string();
                if let Some(src) = std::error::Error::source(&e) {
                    what = format!("{what}: {src}");
                }
                what
            })?;
            let status = resp.status();
            let bytes = resp
                .into_body()
                .collect()
                .await
                .map_err(|e| e.to_string())?
                .to_bytes();
            Ok::<_, String>((status, bytes))
        })
        .await
        .unwrap_or_else(|_| Err("no answer in time".into()));
        let (status, bytes) = match sent {
            Ok(x) => x,
            Err(what) => {
                Self::set_check(host, ScopeCheck::Unchecked);
                return Err(ToolError::Unreachable(format!("{}: {what}", host.cfg.url)));
            }
        };
        let json: Option<Value> = serde_json::from_slice(&bytes).ok();
        if status.is_success() {
            return json.ok_or_else(|| ToolError::Other {
                code: "bad_answer".into(),
                detail: Some(format!("{} did not answer JSON", host.cfg.url)),
            });
        }
        let code = json
            .as_ref()
            .and_then(|j| j.get("error"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let detail = json
            .as_ref()
            .and_then(|j| j.get("detail"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        Err(match code {
            Some(code) => match Refusal::from_wire(&code, detail.clone()) {
                Some(r) => ToolError::Relay(r),
                None => ToolError::Other { code, detail },
            },
            None => ToolError::Other {
                code: format!("http_{}", status.as_u16()),
                detail: Some(format!("{} is not a wterm relay, or too old", host.cfg.url)),
            },
        })
    }
}

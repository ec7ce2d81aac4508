//! `POST /mcp/watch` (ext), the `watch_url` tool: the address of the relay's page showing a
//! window, for a person to watch (and take over) what an agent does there.

use schemars::JsonSchema;
use serde_json::{json, Value};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::ground::fields::{self, Fields};
use crate::ground::Refusal;

/// What `watch_url` answers beside the URL: the URL holds no secret, so the person's browser
/// needs the page token from elsewhere.
pub const WATCH_NOTE: &str = "Open this URL in a browser tab that already holds this relay's \
    page token: open the URL the relay printed at start (it ends in #token=...) in that tab \
    first, or append that #token=... fragment to this URL. The URL itself carries no secret.";

/// A `/mcp/watch` request: the window `id` alone.
#[derive(Debug, JsonSchema)]
pub struct WatchUrl {}

impl Operation for WatchUrl {
    const SPEC: Spec = Spec {
        path: "/mcp/watch",
        method: Method::Post,
        tool: "watch_url",
        title: "Get a URL to watch a terminal",
        description: "The URL of the relay's web page showing this terminal, to give a person \
            so they can watch (and type in) it. Holds no secret: the person also needs the \
            relay's page token in their browser (see the answer's note).",
        target: Target::Read,
        admin_only: false,
        ext: true,
        host: HostArg::None,
        read_only: true,
        destructive: false,
        idempotent: true,
    };
    type Answer = Value;

    fn parse(_: &Cx<'_>, f: &Fields) -> Result<Self, Refusal> {
        fields::only(f, &["id"])?;
        Ok(WatchUrl {})
    }

    /// → `{ok, id, url, note}`: `url` is the page's address as the relay printed it at start
    /// (`http://ADDR:PORT/`) with `?session=ID`, the query the page reads to attach to a
    /// session.
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let id = cx.window()?.session.id();
        Ok(json!({
            "ok": true,
            "id": id,
            "url": watch_url(&cx.broker.page_url, id),
            "note": WATCH_NOTE,
        }))
    }
}

/// `base` (`http://ADDR:PORT/`) with `?session=id`.
pub fn watch_url(base: &str, id: u64) -> String {
    format!("{}?session={id}", base.split('#').next().unwrap_or(base))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_names_the_session_and_no_secret() {
        assert_eq!(
            watch_url("http://127.0.0.1:7681/", 12),
            "http://127.0.0.1:7681/?session=12"
        );
        assert_eq!(
            watch_url("http://127.0.0.1:7681/#token=x", 3),
            "http://127.0.0.1:7681/?session=3"
        );
    }
}

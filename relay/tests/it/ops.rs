//! One list, three fronts: every operation of `Op::ALL` is a `/mcp/*` route, an operation the
//! `/mcp` endpoint runs in process, and an MCP tool; and nothing outside the list is any of
//! them. Adding an operation to the list without a front (or a front without the list) fails
//! here.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use wterm_relay::broker::ops::{Method, Op, Target};

use crate::support::{http, HttpResponse, Mcp, Relay};

/// A minimal MCP client over the streamable-HTTP endpoint: JSON-RPC posts, answers read from
/// the SSE stream (or a JSON body).
struct McpSession {
    port: u16,
    auth: String,
    admin: Option<String>,
    session: String,
    next_id: u64,
}

fn rpc_answer(r: &HttpResponse) -> Value {
    let data: Vec<&str> = r
        .body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .collect();
    let text = data.last().copied().unwrap_or(r.body.as_str());
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {}", r.body))
}

impl McpSession {
    async fn open(mcp: &Mcp, admin: Option<&str>) -> McpSession {
        let mut s = McpSession {
            port: mcp.port,
            auth: format!("Bearer {}", mcp.token),
            admin: admin.map(str::to_owned),
            session: String::new(),
            next_id: 1,
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "ops-test", "version": "1"}}});
        let r = s.post(&init).await;
        assert_eq!(r.status, 200, "{}", r.body);
        s.session = r.header("mcp-session-id").expect("a session id").to_owned();
        let r = s
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(r.status, 202, "{}", r.body);
        s
    }

    async fn post(&self, msg: &Value) -> HttpResponse {
        let mut headers: Vec<(&str, &str)> = vec![
            ("Authorization", &self.auth),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        if !self.session.is_empty() {
            headers.push(("Mcp-Session-Id", &self.session));
        }
        if let Some(a) = &self.admin {
            headers.push(("X-Browserland-Mcp-Admin", a));
        }
        http(self.port, "POST", "/mcp", &headers, &msg.to_string()).await
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        let r = self.post(&msg).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let answer = rpc_answer(&r);
        assert_eq!(answer["id"], self.next_id, "{answer}");
        answer["result"].clone()
    }

    async fn tool_names(&mut self) -> BTreeSet<String> {
        let result = self.request("tools/list", json!({})).await;
        result["tools"]
            .as_array()
            .expect("a tool list")
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }
}

#[tokio::test]
async fn every_front_is_derived_from_the_one_list() {
    let relay = Relay::start().await;
    let mcp = relay.enable_mcp("readwrite").await;
    let admin_token = relay
        .post(
            "/mcp/config",
            r#"{"generate_admin": true, "allow_launch": false}"#,
        )
        .await
        .json()["admin_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let admin = mcp.admin(&admin_token);

    // Routes: each operation answers at its path and method with JSON of its own (an answer or
    // one of its refusals), never the router's bare 404 or 405.
    for op in Op::ALL {
        let body = match op.target() {
            Target::None => "{}",
            _ => r#"{"id": 999999}"#,
        };
        let r = admin.call(op.method().as_str(), op.path(), body).await;
        let v = r.json();
        assert!(
            v.is_object() || v.is_array(),
            "{op:?}: {} {}",
            r.status,
            r.body
        );
        match op.target() {
            Target::None => assert!(
                r.status == 200 || op == Op::Launch,
                "{op:?}: {} {}",
                r.status,
                r.body
            ),
            _ => assert_eq!(
                (r.status, v["error"].as_str()),
                (404, Some("unknown_or_off")),
                "{op:?}: the operation resolved its window"
            ),
        }
        let other = match op.method() {
            Method::Get => "POST",
            Method::Post => "GET",
        };
        let r = admin.call(other, op.path(), body).await;
        assert_eq!(r.status, 405, "{op:?} is served with its method only");
    }
    // Launch was refused by the operation itself (launching is off), after the route matched.
    let r = admin.post("/mcp/launch", json!({})).await;
    assert_eq!(r.json()["error"], "launch_disabled");
    // Paths of the realm that are no operation are the plain 404 of an unknown path, even
    // those that name a tool (a POST there is the static files' 405).
    for path in ["/mcp/nope", "/mcp/send_input", "/mcp/read_screen", "/mcp/"] {
        let r = admin.get(path).await;
        assert_eq!(r.status, 404, "{path}: {}", r.body);
        assert!(r.body.is_empty(), "{path}: {}", r.body);
    }

    // Tools: exactly the list's (an admin-only operation's tool only for an admin).
    let all: BTreeSet<String> = Op::ALL.iter().map(|op| op.tool().to_owned()).collect();
    let public: BTreeSet<String> = Op::ALL
        .iter()
        .filter(|op| !op.admin_only())
        .map(|op| op.tool().to_owned())
        .collect();
    let mut as_admin = McpSession::open(&mcp, Some(&admin_token)).await;
    assert_eq!(as_admin.tool_names().await, all);
    let mut plain = McpSession::open(&mcp, None).await;
    assert_eq!(plain.tool_names().await, public);

    // In process: each tool runs its operation on the relay's own broker (a window the relay
    // does not have is the operation's unknown_or_off; the others answer).
    for op in Op::ALL {
        let args = match (op.target(), op.tool()) {
            (Target::None, "set_mcp_knobs") => json!({"host": "default"}),
            (Target::None, _) => json!({}),
            (_, "send_input") => json!({"id": "default:999999", "data": "x"}),
            (_, "send_keys") => json!({"id": "default:999999", "keys": ["x"]}),
            (_, "set_pace") => json!({"id": "default:999999", "pace_ms": 0}),
            (_, "run_command") => json!({"id": "default:999999", "command": "true"}),
            _ => json!({"id": "default:999999"}),
        };
        let result = as_admin
            .request("tools/call", json!({"name": op.tool(), "arguments": args}))
            .await;
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        match op.target() {
            Target::None if op == Op::Launch => {
                assert!(text.starts_with("launch_disabled:"), "{op:?}: {text}")
            }
            Target::None => assert_ne!(result["isError"], true, "{op:?}: {text}"),
            _ => assert!(text.starts_with("unknown_or_off:"), "{op:?}: {text}"),
        }
    }
    let result = as_admin
        .request(
            "tools/call",
            json!({"name": "no_such_tool", "arguments": {}}),
        )
        .await;
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("unknown_tool:"), "{text}");
    // It names the tools there are, so the client can correct the call.
    assert!(
        text.contains("list_terminals") && text.contains("read_screen"),
        "{text}"
    );
}

//! The refusal ladder of the `/mcp/*` data routes, walked on every route of the relay's own
//! operation list ([`Op::ALL`], the list the router is built from), step by step in the
//! contract's order, against the real binary.

use serde_json::{json, Value};
use wterm_relay::broker::ops::{Method, Op, Target};

use crate::support::{http, HttpResponse, Options, Relay};

const MCP_TOKEN: &str = "ladder-mcp-token";
const ADMIN_TOKEN: &str = "ladder-admin-token";

fn options() -> Options {
    Options {
        env: vec![
            ("WEB_TERMINAL_MCP_TOKEN".into(), MCP_TOKEN.into()),
            ("WEB_TERMINAL_MCP_ADMIN_TOKEN".into(), ADMIN_TOKEN.into()),
        ],
        ..Options::default()
    }
}

/// One request to `op` with `query` appended, these headers and body.
async fn call(
    relay: &Relay,
    op: Op,
    query: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> HttpResponse {
    let path = format!("{}{query}", op.path());
    let r = http(relay.port, op.method().as_str(), &path, headers, body).await;
    assert!(
        r.header("vary")
            .is_some_and(|v| v.to_ascii_lowercase().contains("x-browserland-scope")),
        "{} {path}: no Vary: X-Browserland-Scope in {:?}",
        op.method().as_str(),
        r.headers
    );
    r
}

/// A body that passes field validation for `op` on window `id`.
fn body_for(op: Op, id: Value) -> String {
    match op {
        Op::Input => json!({"id": id, "data": ""}),
        Op::Keys => json!({"id": id, "keys": []}),
        Op::Pace => json!({"id": id, "pace_ms": 0}),
        Op::Run => json!({"id": id, "command": "true", "timeout_ms": 5000}),
        _ if op.target() == Target::None => json!({}),
        _ => json!({"id": id}),
    }
    .to_string()
}

fn code(r: &HttpResponse) -> (u16, Value) {
    let body: Value = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()));
    (r.status, body["error"].clone())
}

fn err(status: u16, code: &str) -> (u16, Value) {
    (status, json!(code))
}

#[tokio::test]
async fn every_route_climbs_the_ladder_in_the_documented_order() {
    let relay = Relay::start_with(options()).await;
    let bearer = format!("Bearer {MCP_TOKEN}");
    let auth: &[(&str, &str)] = &[("Authorization", &bearer)];

    // Step 1 comes before everything: MCP off (the default) refuses even a token in the URL.
    for op in Op::ALL {
        let r = call(&relay, op, "?token=x", &[], &body_for(op, json!(1))).await;
        assert_eq!(code(&r), err(403, "mcp_disabled"), "{op:?}");
        let r = call(&relay, op, "", auth, &body_for(op, json!(1))).await;
        assert_eq!(code(&r), err(403, "mcp_disabled"), "{op:?}");
    }

    relay
        .post(
            "/mcp/config",
            r#"{"enabled": true, "default_mode": "readwrite"}"#,
        )
        .await;
    let rw = relay.new_session().await;
    let read_only = relay.new_session().await;
    let off = relay.new_session().await;
    relay
        .set_window(json!({"id": read_only, "mode": "read", "scope": "team-a"}))
        .await;
    relay.set_window(json!({"id": off, "mode": "off"})).await;

    let admin_h = ("X-Browserland-Mcp-Admin", ADMIN_TOKEN);
    for op in Op::ALL {
        let ok_body = body_for(op, json!(rw));
        let name = format!("{} {}", op.method().as_str(), op.path());
        // 2. A credential in the URL, before any auth is looked at.
        for q in ["?token=x", "?auth=1", "?admin_token=x", "?x=1&tok%65n=2"] {
            let r = call(&relay, op, q, &[], &ok_body).await;
            assert_eq!(code(&r), err(400, "token_in_url"), "{name}{q}");
        }
        // 3. The MCP token, exactly once, as a bearer.
        let page = format!("Bearer {}", relay.token);
        let wrong_auths: [&[(&str, &str)]; 5] = [
            &[],
            &[("Authorization", "Bearer wrong")],
            &[("Authorization", &page)],
            &[("Authorization", "Basic ladder-mcp-token")],
            &[("Authorization", &bearer), ("Authorization", &bearer)],
        ];
        for headers in wrong_auths {
            let r = call(&relay, op, "", headers, &ok_body).await;
            assert_eq!(code(&r), err(401, "auth_required"), "{name} {headers:?}");
        }
        // 4. The scope header, before the admin header.
        for scope in [&["bad scope"][..], &[".x"], &["a/b"], &["ok", "ok"]] {
            let mut h = auth.to_vec();
            h.extend(scope.iter().map(|s| ("X-Browserland-Scope", *s)));
            h.push(("X-Browserland-Mcp-Admin", "wrong"));
            let r = call(&relay, op, "", &h, &ok_body).await;
            assert_eq!(code(&r), err(400, "bad_scope"), "{name} {scope:?}");
        }
        // 5. A wrong admin credential, before the body is looked at.
        let h = [auth[0], ("X-Browserland-Mcp-Admin", "wrong")];
        let r = call(&relay, op, "", &h, "[not json").await;
        assert_eq!(code(&r), err(403, "admin_required"), "{name}");
        let r = call(&relay, op, "", auth, &ok_body).await;
        if op.admin_only() {
            assert_eq!(code(&r), err(403, "admin_required"), "{name}");
        } else if op.target() != Target::Edit {
            // (/mcp/window without a handle is refused later, at its own step.)
            assert_ne!(code(&r).0, 401, "{name}");
            assert_ne!(code(&r).1, json!("admin_required"), "{name}");
        }
        // With the admin credential every route gets past step 5.
        let admin = [auth[0], admin_h];
        let r = call(&relay, op, "", &admin, &ok_body).await;
        assert!(
            r.status == 200
                || (op == Op::Launch && code(&r) == err(403, "launch_disabled"))
                // A shell still starting has not reported its prompt yet.
                || (op == Op::Run && code(&r) == err(409, "no_shell_integration")),
            "{name} as admin: {} {}",
            r.status,
            r.body
        );
        if op.method() == Method::Get || op.target() == Target::None {
            continue;
        }
        // 6. bad_json → bad_id → unknown_or_off.
        for (body, want) in [
            ("[1]", err(400, "bad_json")),
            ("{", err(400, "bad_json")),
            ("", err(400, "bad_json")),
            ("{}", err(400, "bad_id")),
            (r#"{"id": true}"#, err(400, "bad_id")),
            (r#"{"id": 1.5}"#, err(400, "bad_id")),
            (r#"{"id": -1}"#, err(400, "bad_id")),
            (r#"{"id": "1x"}"#, err(400, "bad_id")),
        ] {
            let r = call(&relay, op, "", auth, body).await;
            assert_eq!(code(&r), want, "{name} {body}");
        }
        let missing = body_for(op, json!(999_999));
        assert_eq!(
            code(&call(&relay, op, "", auth, &missing).await),
            err(404, "unknown_or_off"),
            "{name}"
        );
        let off_body = body_for(op, json!(off));
        assert_eq!(
            code(&call(&relay, op, "", auth, &off_body).await),
            err(404, "unknown_or_off"),
            "{name}"
        );
        let other_scope = [auth[0], ("X-Browserland-Scope", "team-b")];
        let ro_body = body_for(op, json!(read_only.to_string()));
        assert_eq!(
            code(&call(&relay, op, "", &other_scope, &ro_body).await),
            err(404, "unknown_or_off"),
            "{name}: an out-of-scope read-mode window is 404, never 403"
        );
        // 7. Writes need readwrite.
        let own_scope = [auth[0], ("X-Browserland-Scope", "team-a")];
        let r = call(&relay, op, "", &own_scope, &ro_body).await;
        match op.target() {
            Target::Write => assert_eq!(code(&r), err(403, "read_only"), "{name}"),
            Target::Read => assert_eq!(r.status, 200, "{name}: {}", r.body),
            // /mcp/window needs the launch handle or the admin credential, not a mode.
            Target::Edit => assert_eq!(code(&r), err(403, "admin_required"), "{name}"),
            Target::None => unreachable!(),
        }
    }
}

#[tokio::test]
async fn no_mcp_token_means_mcp_disabled() {
    let relay = Relay::start().await;
    relay.post("/mcp/config", r#"{"enabled": true}"#).await;
    let r = http(
        relay.port,
        "GET",
        "/mcp/info",
        &[("Authorization", "Bearer x")],
        "",
    )
    .await;
    assert_eq!(code(&r), err(403, "mcp_disabled"));
    let on = relay.enable_mcp("read").await;
    assert_eq!(on.get("/mcp/info").await.status, 200);
    relay.post("/mcp/config", r#"{"token": null}"#).await;
    assert_eq!(code(&on.get("/mcp/info").await), err(403, "mcp_disabled"));
    relay
        .post("/mcp/config", r#"{"generate": true, "enabled": false}"#)
        .await;
    let r = relay.get("/mcp/config").await.json();
    let client = crate::support::Mcp {
        token: r["token"].as_str().unwrap().to_owned(),
        ..on
    };
    assert_eq!(
        code(&client.get("/mcp/info").await),
        err(403, "mcp_disabled")
    );
}

/// Everything a client can observe of an answer but its date.
fn observable(r: &HttpResponse) -> (u16, String, Vec<(String, String)>) {
    let mut headers: Vec<_> = r
        .headers
        .iter()
        .filter(|(k, _)| !k.eq_ignore_ascii_case("date"))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
        .collect();
    headers.sort();
    (r.status, r.body.clone(), headers)
}

#[tokio::test]
async fn the_404_is_byte_identical_for_missing_off_and_out_of_scope_windows() {
    let relay = Relay::start_with(options()).await;
    relay
        .post(
            "/mcp/config",
            r#"{"enabled": true, "default_mode": "read"}"#,
        )
        .await;
    let off = relay.new_session().await;
    let scoped = relay.new_session().await;
    let off_by_default = relay.new_session().await;
    relay.set_window(json!({"id": off, "mode": "off"})).await;
    relay
        .set_window(json!({"id": scoped, "mode": "readwrite", "scope": "team-a"}))
        .await;
    let bearer = format!("Bearer {MCP_TOKEN}");
    let caller = [
        ("Authorization", bearer.as_str()),
        ("X-Browserland-Scope", "team-b"),
    ];
    for op in Op::ALL.into_iter().filter(|op| op.target() != Target::None) {
        let missing = call(&relay, op, "", &caller, &body_for(op, json!(424242))).await;
        assert_eq!(missing.status, 404, "{op:?}: {}", missing.body);
        assert_eq!(missing.header("content-type"), Some("application/json"));
        assert_eq!(
            missing.header("content-length"),
            Some(missing.body.len().to_string().as_str())
        );
        for (what, id) in [("off", off), ("out of scope", scoped)] {
            let r = call(&relay, op, "", &caller, &body_for(op, json!(id))).await;
            assert_eq!(
                observable(&r),
                observable(&missing),
                "{op:?}: {what} differs from missing"
            );
        }
        // The relay's default mode turned to off hides a window the same way.
        relay
            .post("/mcp/config", r#"{"default_mode": "off"}"#)
            .await;
        let r = call(
            &relay,
            op,
            "",
            &[caller[0]],
            &body_for(op, json!(off_by_default)),
        )
        .await;
        assert_eq!(observable(&r), observable(&missing), "{op:?}: default off");
        relay
            .post("/mcp/config", r#"{"default_mode": "read"}"#)
            .await;
    }
}

#[tokio::test]
async fn preflights_need_no_auth_and_name_only_allowed_origins() {
    let relay = Relay::start_with(options()).await;
    let own = relay.origin();
    for path in [
        "/mcp/read",
        "/mcp/info",
        "/mcp/config",
        "/sessions",
        "/nope",
    ] {
        let r = http(
            relay.port,
            "OPTIONS",
            path,
            &[
                ("Origin", &own),
                ("Access-Control-Request-Method", "POST"),
                (
                    "Access-Control-Request-Headers",
                    "authorization, x-browserland-scope",
                ),
            ],
            "",
        )
        .await;
        assert_eq!(r.status, 204, "{path}");
        assert_eq!(r.header("access-control-allow-origin"), Some(own.as_str()));
        let allowed = r
            .header("access-control-allow-headers")
            .unwrap()
            .to_ascii_lowercase();
        for h in [
            "authorization",
            "content-type",
            "x-browserland-scope",
            "x-browserland-mcp-admin",
        ] {
            assert!(allowed.contains(h), "{path}: {allowed}");
        }
        assert!(r
            .header("access-control-allow-methods")
            .unwrap()
            .contains("POST"));
        let foreign = http(
            relay.port,
            "OPTIONS",
            path,
            &[("Origin", "http://evil.example")],
            "",
        )
        .await;
        assert_eq!(foreign.status, 204);
        assert_eq!(foreign.header("access-control-allow-origin"), None);
    }
}

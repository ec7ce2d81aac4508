//! The refusal ladder of the `/mcp/*` data routes, as code in the contract's order (broker
//! contract, "Refusal ladder"):
//!
//! 1. `403 mcp_disabled` — MCP switched off, or no MCP token;
//! 2. `400 token_in_url` — a credential in the query string;
//! 3. `401 auth_required` — MCP token missing or wrong (`Authorization: Bearer`, exactly once);
//! 4. `400 bad_scope` — [`SCOPE_HEADER`] fails the grammar or is sent more than once;
//! 5. `403 admin_required` — [`ADMIN_HEADER`] present but wrong, or an admin-only operation
//!    without it.
//!
//! Steps 1-5 are [`gate`], one middleware added with `route_layer` on the `/mcp` realm (so an
//! unknown path stays a plain 404). It records the [`Caller`] and the [`Op`] in the request.
//! Steps 6-7 (`400 bad_json` → `400 bad_id` → `404 unknown_or_off` → `403 read_only`) and step
//! 8 (fields) are the broker's, in [`Op::call`], for the routes and the in-process MCP tools
//! alike.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, MatchedPath, Request, State};
use axum::http::{header, request::Parts, HeaderMap};
use axum::middleware::Next;
use axum::response::Response;

use std::sync::Arc;

use super::checks::{bearer, has_credential_in_query, peer};
use crate::broker::ops::Op;
use crate::broker::window::{Caller, Scope, Via};
use crate::broker::Broker;
use crate::ground::limits::MAX_MCP_BODY_BYTES;
use crate::ground::Refusal;

/// The header declaring the caller's scope (broker contract).
pub const SCOPE_HEADER: &str = "x-browserland-scope";

/// The header carrying the admin token, in addition to the MCP token (broker contract).
pub const ADMIN_HEADER: &str = "x-browserland-mcp-admin";

/// Step 4: the declared scope. Absent or empty = unscoped; sent twice or off-grammar = refused.
pub fn scope_of(headers: &HeaderMap) -> Result<Option<Scope>, Refusal> {
    let mut values = headers.get_all(SCOPE_HEADER).iter();
    match (values.next(), values.next()) {
        (None, _) => Ok(None),
        (Some(_), Some(_)) => Err(Refusal::BadScope),
        (Some(v), None) => {
            let v = v.to_str().map_err(|_| Refusal::BadScope)?;
            if v.is_empty() {
                return Ok(None);
            }
            Scope::parse(v).map(Some).ok_or(Refusal::BadScope)
        }
    }
}

/// Steps 1-5 for `req` (see the module doc), filling `caller` as far as it gets (the audit
/// log records a refusal with what was known: the presented token's fingerprint, the scope);
/// on success `caller` is complete and the [`Op`] of the route is returned.
fn climb(broker: &Broker, req: &Request, caller: &mut Caller) -> Result<Option<Op>, Refusal> {
    let settings = broker.settings();
    let headers = req.headers();
    let mut auth = headers.get_all(header::AUTHORIZATION).iter();
    let presented = match (auth.next(), auth.next()) {
        (Some(v), None) => bearer(v.as_bytes()),
        _ => None,
    };
    caller.key = presented.map(|t| broker.audit.fingerprint(t));
    // 1.
    let Some(token) = settings.token().filter(|_| settings.mcp_open()) else {
        return Err(Refusal::McpDisabled);
    };
    // 2.
    if req.uri().query().is_some_and(has_credential_in_query) {
        return Err(Refusal::TokenInUrl);
    }
    // 3.
    if !presented.is_some_and(|t| token.matches(t)) {
        return Err(Refusal::AuthRequired);
    }
    // 4.
    caller.scope = scope_of(headers)?;
    // 5.
    let mut admin_values = headers.get_all(ADMIN_HEADER).iter();
    caller.admin = match (admin_values.next(), admin_values.next()) {
        (None, _) => false,
        (Some(v), None) => {
            let ok = settings
                .admin_token()
                .is_some_and(|t| t.matches(v.as_bytes()));
            if !ok {
                return Err(Refusal::AdminRequired);
            }
            true
        }
        (Some(_), Some(_)) => return Err(Refusal::AdminRequired),
    };
    let op = op_of(req);
    if op.is_some_and(Op::admin_only) && !caller.admin {
        return Err(Refusal::AdminRequired);
    }
    Ok(op)
}

/// The operation of the route `req` matched; `None` on the `/mcp` endpoint.
fn op_of(req: &Request) -> Option<Op> {
    req.extensions()
        .get::<MatchedPath>()
        .and_then(|p| Op::from_path(p.as_str()))
}

/// Ladder steps 1-5 as a middleware (`route_layer` on the `/mcp` realm and the `/mcp`
/// endpoint). A refusal logs the route and the peer only, and is recorded in the audit log
/// (with the operation of the route; none on the endpoint, whose messages are not read yet).
pub async fn gate(
    State(broker): State<Arc<Broker>>,
    mut req: Request,
    next: Next,
) -> Result<Response, Refusal> {
    let op = op_of(&req);
    let mut caller = Caller {
        via: if op.is_some() { Via::Route } else { Via::Mcp },
        ..Caller::default()
    };
    match climb(&broker, &req, &mut caller) {
        Ok(op) => {
            req.extensions_mut().insert(caller);
            if let Some(op) = op {
                req.extensions_mut().insert(op);
            }
            Ok(next.run(req).await)
        }
        Err(refusal) => {
            tracing::warn!(path = req.uri().path(), peer = ?peer(&req), code = refusal.code(), "MCP request refused");
            broker
                .audit
                .refused_early(op.map(Op::tool), caller, &refusal);
            Err(refusal)
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = Refusal;

    /// The caller [`gate`] established; a route outside the gate has none and is treated as
    /// unauthenticated.
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Refusal> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or(Refusal::AuthRequired)
    }
}

/// A request body of at most [`MAX_MCP_BODY_BYTES`] (`413 too_large` beyond).
#[derive(Debug)]
pub struct McpBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for McpBody {
    type Rejection = Refusal;

    async fn from_request(req: Request, _: &S) -> Result<Self, Refusal> {
        axum::body::to_bytes(req.into_body(), MAX_MCP_BODY_BYTES)
            .await
            .map(McpBody)
            .map_err(|_| Refusal::TooLarge(format!("request body over {MAX_MCP_BODY_BYTES} bytes")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn scope_header() {
        let mut h = HeaderMap::new();
        assert_eq!(scope_of(&h), Ok(None));
        h.insert(SCOPE_HEADER, HeaderValue::from_static(""));
        assert_eq!(scope_of(&h), Ok(None));
        h.insert(SCOPE_HEADER, HeaderValue::from_static("team-1"));
        assert_eq!(scope_of(&h), Ok(Scope::parse("team-1")));
        h.append(SCOPE_HEADER, HeaderValue::from_static("team-1"));
        assert_eq!(scope_of(&h), Err(Refusal::BadScope));
        h.insert(SCOPE_HEADER, HeaderValue::from_static("bad scope"));
        assert_eq!(scope_of(&h), Err(Refusal::BadScope));
    }
}

//! The checks of a request's credentials, origin and query that more than one front applies.

use std::net::{IpAddr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::{header, HeaderMap};

/// Query keys that carry a credential; never accepted in a URL (broker contract, "Secrets and
/// realms").
pub const CREDENTIAL_QUERY_KEYS: [&str; 3] = ["token", "auth", "admin_token"];

/// Whether a query string names a credential key (keys are percent-decoded first).
pub fn has_credential_in_query(query: &str) -> bool {
    form_urlencoded::parse(query.as_bytes()).any(|(k, _)| {
        CREDENTIAL_QUERY_KEYS
            .iter()
            .any(|c| k.eq_ignore_ascii_case(c))
    })
}

/// The peer address, when the server recorded it.
pub fn peer<B>(req: &axum::http::Request<B>) -> Option<SocketAddr> {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0)
}

/// The bearer credential of an `Authorization` header value (`Bearer X`, scheme in any case).
pub fn bearer(value: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = value.split_at_checked(7)?;
    scheme
        .eq_ignore_ascii_case(b"bearer ")
        .then(|| rest.trim_ascii())
}

/// Whether a browser request with these headers comes from an origin the relay serves: no
/// `Origin` (not a browser), an `--allow-origin` entry, the relay's own loopback origins (`https`
/// with `tls`, else `http`), or the
/// `Host` it was reached by when that is an address or `localhost` (a DNS name could be an
/// attacker's rebinding to 127.0.0.1). Used by `/ws`, `/mcp` and CORS.
pub fn origin_allowed(headers: &HeaderMap, tls: bool, port: u16, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.to_ascii_lowercase();
    if allowed.contains(&origin) {
        return true;
    }
    let scheme = if tls { "https" } else { "http" };
    let own = |host: &str| origin == format!("{scheme}://{host}");
    if ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|h| own(&format!("{h}:{port}")))
    {
        return true;
    }
    // The Host the browser used is our origin too, unless DNS chose it: a name other than
    // localhost could point at 127.0.0.1 from an attacker's DNS (rebinding).
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase)
        .is_some_and(|host| host_is_literal(&host) && own(&host))
}

fn host_is_literal(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name == "localhost" || name.parse::<IpAddr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn credential_keys_are_found_in_any_spelling() {
        assert!(has_credential_in_query("token=x"));
        assert!(has_credential_in_query("session=1&auth="));
        assert!(has_credential_in_query("admin_token"));
        assert!(has_credential_in_query("tok%65n=x"));
        assert!(has_credential_in_query("TOKEN=x"));
        assert!(!has_credential_in_query("session=1"));
        assert!(!has_credential_in_query("tokens=1&x=token"));
        assert!(!has_credential_in_query(""));
    }

    #[test]
    fn bearer_scheme() {
        assert_eq!(bearer(b"Bearer abc"), Some(&b"abc"[..]));
        assert_eq!(bearer(b"bearer  abc "), Some(&b"abc"[..]));
        assert_eq!(bearer(b"Basic abc"), None);
        assert_eq!(bearer(b"Bearer"), None);
    }

    fn headers(origin: Option<&str>, host: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        if let Some(v) = host {
            h.insert(header::HOST, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn origins() {
        let allowed = vec!["http://devbox:9000".to_owned()];
        let ok = |o, h| origin_allowed(&headers(o, h), false, 7681, &allowed);
        assert!(ok(None, None), "non-browser clients send no Origin");
        assert!(ok(Some("http://127.0.0.1:7681"), Some("127.0.0.1:7681")));
        assert!(ok(Some("http://localhost:7681"), Some("localhost:7681")));
        assert!(ok(Some("http://127.0.0.1:7681"), None));
        assert!(ok(
            Some("http://192.168.1.5:7681"),
            Some("192.168.1.5:7681")
        ));
        assert!(ok(Some("http://[::1]:7681"), Some("[::1]:7681")));
        assert!(ok(Some("http://devbox:9000"), Some("devbox:9000")));
        assert!(!ok(Some("http://evil.example"), Some("127.0.0.1:7681")));
        assert!(!ok(Some("http://127.0.0.1:7682"), Some("127.0.0.1:7681")));
        assert!(!ok(Some("null"), Some("127.0.0.1:7681")));
        // DNS rebinding: the attacker's name resolves to us, Host and Origin agree.
        assert!(!ok(
            Some("http://evil.example:7681"),
            Some("evil.example:7681")
        ));
        // With TLS the own origins are https; an http origin is another origin.
        let tls = |o, h| origin_allowed(&headers(o, h), true, 7681, &allowed);
        assert!(tls(Some("https://127.0.0.1:7681"), Some("127.0.0.1:7681")));
        assert!(tls(Some("https://10.0.0.2:7681"), Some("10.0.0.2:7681")));
        assert!(!tls(Some("http://127.0.0.1:7681"), Some("127.0.0.1:7681")));
    }
}

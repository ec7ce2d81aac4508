//! Reading request fields from a JSON object body, with the contract's refusals. A `null`
//! field counts as absent everywhere.

use serde_json::{Map, Value};

use crate::ground::Refusal;

/// A JSON object body.
pub type Fields = Map<String, Value>;

/// Parses a body that must be a JSON object (`400 bad_json` otherwise). An empty body counts as
/// `{}` when `empty_ok`.
pub fn object(body: &[u8], empty_ok: bool) -> Result<Fields, Refusal> {
    if empty_ok && body.trim_ascii().is_empty() {
        return Ok(Fields::new());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(Refusal::BadJson),
    }
}

/// Longest unknown field name quoted back in an error, in characters.
const MAX_QUOTED_FIELD_CHARS: usize = 64;

/// Refuses a body with a field outside `accepted` (`400 bad_request`, naming the first such
/// field and the accepted ones): where the contract is silent the relay refuses rather than
/// ignores, so a misspelt `wait_for_txt` is an error, not a read that did not wait.
pub fn only(fields: &Fields, accepted: &[&str]) -> Result<(), Refusal> {
    match fields.keys().find(|k| !accepted.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => {
            let mut quoted: String = key.chars().take(MAX_QUOTED_FIELD_CHARS).collect();
            if quoted.len() < key.len() {
                quoted.push('…');
            }
            Err(Refusal::BadRequest(format!(
                "unknown field {quoted:?}; accepted: {}",
                accepted.join(", ")
            )))
        }
    }
}

/// The field `key`, `None` when absent or `null`.
pub fn get<'a>(fields: &'a Fields, key: &str) -> Option<&'a Value> {
    fields.get(key).filter(|v| !v.is_null())
}

/// A window id (ladder step 6): a non-negative JSON integer or a decimal string; booleans,
/// floats, negative numbers and anything else are `400 bad_id`.
pub fn id(fields: &Fields) -> Result<u64, Refusal> {
    match get(fields, "id") {
        Some(Value::Number(n)) => n.as_u64().ok_or(Refusal::BadId),
        Some(Value::String(s)) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse().map_err(|_| Refusal::BadId)
        }
        _ => Err(Refusal::BadId),
    }
}

fn wrong(key: &str, accepted: &str) -> Refusal {
    Refusal::BadRequest(format!("{key}: accepted: {accepted}"))
}

/// An optional string field.
pub fn opt_str<'a>(fields: &'a Fields, key: &str) -> Result<Option<&'a str>, Refusal> {
    match get(fields, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(wrong(key, "a string")),
    }
}

/// An optional boolean field.
pub fn opt_bool(fields: &Fields, key: &str) -> Result<Option<bool>, Refusal> {
    match get(fields, key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(wrong(key, "true or false")),
    }
}

/// An optional non-negative integer field.
pub fn opt_u64(fields: &Fields, key: &str) -> Result<Option<u64>, Refusal> {
    match get(fields, key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| wrong(key, "a non-negative integer")),
    }
}

/// An optional number in `0..=max` (fractions rounded down); `None` when absent,
/// `Err(refusal())` when present but not a number, negative or over `max` (the contract: a
/// request over a limit gets its error, it is not lowered).
pub fn opt_at_most(
    fields: &Fields,
    key: &str,
    max: u64,
    refusal: impl FnOnce() -> Refusal,
) -> Result<Option<u64>, Refusal> {
    opt_number(fields, key, refusal, |n| match n.as_f64() {
        Some(f) if f.is_finite() && (0.0..=max as f64).contains(&f) => Some(f as u64),
        _ => None,
    })
}

/// An optional number, clamped into `0..=max` (negative → 0, fractions rounded down); `None`
/// when absent, `Err(refusal())` when present but not a number.
pub fn opt_clamped(
    fields: &Fields,
    key: &str,
    max: u64,
    refusal: impl FnOnce() -> Refusal,
) -> Result<Option<u64>, Refusal> {
    opt_number(fields, key, refusal, |n| {
        match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Some(u.min(max)),
            (None, Some(_), _) => Some(0),
            (None, None, Some(f)) if f.is_finite() => Some(f.clamp(0.0, max as f64) as u64),
            _ => None,
        }
    })
}

/// An optional number field read by `accept`; `Err(refusal())` when it is not a number or
/// `accept` gives `None`.
fn opt_number(
    fields: &Fields,
    key: &str,
    refusal: impl FnOnce() -> Refusal,
    accept: impl FnOnce(&serde_json::Number) -> Option<u64>,
) -> Result<Option<u64>, Refusal> {
    match get(fields, key) {
        None => Ok(None),
        Some(Value::Number(n)) => accept(n).map(Some).ok_or_else(refusal),
        Some(_) => Err(refusal()),
    }
}

/// The fields of a URL query string (`a=1&b=x`, percent-decoded): every value a string. A key
/// given twice is `400 bad_request` naming it.
pub fn query(query: &str) -> Result<Fields, Refusal> {
    let mut out = Fields::new();
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if out
            .insert(k.to_string(), Value::String(v.into_owned()))
            .is_some()
        {
            let quoted: String = k.chars().take(MAX_QUOTED_FIELD_CHARS).collect();
            return Err(Refusal::BadRequest(format!(
                "query parameter {quoted:?} given twice; give each at most once"
            )));
        }
    }
    Ok(out)
}

/// An optional non-negative integer given as a JSON integer or a decimal string (a query
/// parameter); `400 bad_request` naming `key` and `accepted` otherwise.
pub fn opt_count(fields: &Fields, key: &str, accepted: &str) -> Result<Option<u64>, Refusal> {
    match get(fields, key) {
        None => Ok(None),
        Some(Value::Number(n)) => n.as_u64().map(Some).ok_or_else(|| wrong(key, accepted)),
        Some(Value::String(s)) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse().map(Some).map_err(|_| wrong(key, accepted))
        }
        Some(_) => Err(wrong(key, accepted)),
    }
}

/// Whether the key is present with any value, `null` included (for "absent = keep, `null` =
/// clear" fields).
pub fn present(fields: &Fields, key: &str) -> bool {
    fields.contains_key(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn f(v: Value) -> Fields {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn ids() {
        assert_eq!(id(&f(json!({"id": 3}))), Ok(3));
        assert_eq!(id(&f(json!({"id": 0}))), Ok(0));
        assert_eq!(id(&f(json!({"id": "12"}))), Ok(12));
        for bad in [
            json!({}),
            json!({"id": null}),
            json!({"id": true}),
            json!({"id": 1.5}),
            json!({"id": 2.0}),
            json!({"id": -1}),
            json!({"id": ""}),
            json!({"id": "+1"}),
            json!({"id": " 1"}),
            json!({"id": "1e3"}),
            json!({"id": "99999999999999999999999"}),
            json!({"id": [1]}),
        ] {
            assert_eq!(id(&f(bad.clone())), Err(Refusal::BadId), "{bad}");
        }
    }

    #[test]
    fn objects() {
        assert!(object(b"{}", false).is_ok());
        assert!(object(b"", true).unwrap().is_empty());
        assert_eq!(
            only(
                &object(br#"{"id":1,"data":"x"}"#, false).unwrap(),
                &["id", "data"]
            ),
            Ok(())
        );
        match only(
            &object(br#"{"id":1,"dat":"x"}"#, false).unwrap(),
            &["id", "data"],
        ) {
            Err(Refusal::BadRequest(d)) => {
                assert_eq!(d, "unknown field \"dat\"; accepted: id, data");
            }
            other => panic!("{other:?}"),
        }
        let long = format!(r#"{{"{}":1}}"#, "k".repeat(500));
        match only(&object(long.as_bytes(), false).unwrap(), &["id"]) {
            Err(Refusal::BadRequest(d)) => assert!(d.len() < 120, "{d}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(object(b"", false), Err(Refusal::BadJson));
        assert_eq!(object(b"[]", true), Err(Refusal::BadJson));
        assert_eq!(object(b"{", true), Err(Refusal::BadJson));
    }

    #[test]
    fn clamping() {
        let v = f(json!({"a": 20000, "b": -5, "c": 12.7, "d": "1", "e": null}));
        let c = |k| opt_clamped(&v, k, 15000, || Refusal::BadPace);
        assert_eq!(c("a"), Ok(Some(15000)));
        assert_eq!(c("b"), Ok(Some(0)));
        assert_eq!(c("c"), Ok(Some(12)));
        assert_eq!(c("d"), Err(Refusal::BadPace));
        assert_eq!(c("e"), Ok(None));
        assert_eq!(c("z"), Ok(None));
    }
}

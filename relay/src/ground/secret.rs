//! [`Secret`]: a credential that compares in constant time and never prints.

use std::fmt;
use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use subtle::ConstantTimeEq;

/// Random bytes in a minted token (broker contract: 32 random bytes, URL-safe base64).
const MINTED_BYTES: usize = 32;

/// Shortest token the relay accepts from its environment or state files, in characters: 12
/// random URL-safe characters are 72 bits. A shorter one is refused at startup rather than
/// guarding shells with a guessable secret (newcomer report: a one-character token was taken).
pub const MIN_CONFIGURED_TOKEN_CHARS: usize = 12;

/// A credential (the page token). Cheap to clone; compared with [`Secret::matches`] in constant
/// time; its `Debug` output is `Secret(***)` and it has no `Display`, so it cannot reach a log by
/// accident. Read the value with [`Secret::expose`] only to hand it to its owner (the page URL,
/// the sidecar file).
#[derive(Clone)]
pub struct Secret(Arc<str>);

/// Why a string cannot be a page token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretError {
    /// The string is empty.
    Empty,
    /// Shorter than [`MIN_CONFIGURED_TOKEN_CHARS`] (only [`Secret::configured`] checks).
    TooShort,
    /// A character outside the RFC 7230 `token` set, which the websocket subprotocol entry
    /// `bearer.TOKEN` must use (letters, digits and ``!#$%&'*+-.^_`|~``).
    BadChar,
}

impl fmt::Display for SecretError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretError::Empty => f.write_str("the token is empty"),
            SecretError::TooShort => write!(
                f,
                "the token is too short; accepted: at least {MIN_CONFIGURED_TOKEN_CHARS} characters \
                 (the relay mints 43 when none is set)"
            ),
            SecretError::BadChar => f.write_str(
                "the token has a character that a websocket subprotocol cannot carry; \
                 accepted: letters, digits and !#$%&'*+-.^_`|~",
            ),
        }
    }
}

impl std::error::Error for SecretError {}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

impl Secret {
    /// A secret from a configured value, refused when it is empty or could not travel as a
    /// websocket subprotocol entry (see [`SecretError`]).
    pub fn new(value: &str) -> Result<Self, SecretError> {
        if value.is_empty() {
            return Err(SecretError::Empty);
        }
        if !value.bytes().all(is_tchar) {
            return Err(SecretError::BadChar);
        }
        Ok(Secret(value.into()))
    }

    /// [`Secret::new`] for a token the relay is configured with (environment, state files):
    /// also refused when shorter than [`MIN_CONFIGURED_TOKEN_CHARS`].
    pub fn configured(value: &str) -> Result<Self, SecretError> {
        let secret = Self::new(value)?;
        if value.len() < MIN_CONFIGURED_TOKEN_CHARS {
            return Err(SecretError::TooShort);
        }
        Ok(secret)
    }

    /// A new random token: 32 bytes from the OS, URL-safe base64 without padding (43 chars).
    pub fn mint() -> Result<Self, getrandom::Error> {
        let mut raw = [0u8; MINTED_BYTES];
        getrandom::fill(&mut raw)?;
        Ok(Secret(URL_SAFE_NO_PAD.encode(raw).into()))
    }

    /// Whether `candidate` is this secret. Constant time in the contents; the length is not
    /// hidden (a length mismatch answers false at once).
    pub fn matches(&self, candidate: &[u8]) -> bool {
        self.0.as_bytes().ct_eq(candidate).into()
    }

    /// The value, for handing it to its owner only. Never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl PartialEq for Secret {
    /// Constant time in the contents, as [`Secret::matches`].
    fn eq(&self, other: &Self) -> bool {
        self.matches(other.expose().as_bytes())
    }
}

impl Eq for Secret {}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_is_redacted() {
        let s = Secret::new("hunter2").unwrap();
        assert_eq!(format!("{s:?}"), "Secret(***)");
        assert_eq!(format!("{:?}", Some(s)), "Some(Secret(***))");
    }

    #[test]
    fn matches_exactly() {
        let s = Secret::new("abc-123").unwrap();
        assert!(s.matches(b"abc-123"));
        assert!(!s.matches(b"abc-124"));
        assert!(!s.matches(b"abc-12"));
        assert!(!s.matches(b"abc-1234"));
        assert!(!s.matches(b""));
    }

    #[test]
    fn minted_tokens_are_url_safe_and_distinct() {
        let a = Secret::mint().unwrap();
        let b = Secret::mint().unwrap();
        assert_eq!(a.expose().len(), 43);
        assert!(a
            .expose()
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert!(!a.matches(b.expose().as_bytes()));
        assert!(Secret::new(a.expose()).is_ok());
    }

    #[test]
    fn refuses_what_a_subprotocol_cannot_carry() {
        assert_eq!(Secret::new("").unwrap_err(), SecretError::Empty);
        assert_eq!(Secret::new("a b").unwrap_err(), SecretError::BadChar);
        assert_eq!(Secret::new("a/b=").unwrap_err(), SecretError::BadChar);
        assert_eq!(Secret::new("a,b").unwrap_err(), SecretError::BadChar);
        assert_eq!(Secret::configured("a").unwrap_err(), SecretError::TooShort);
        assert_eq!(Secret::configured("a b").unwrap_err(), SecretError::BadChar);
        assert!(Secret::configured("twelve-chars").is_ok());
    }
}

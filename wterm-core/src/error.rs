//! The error type of wterm-core.

use core::fmt;

/// An error from wterm-core: what was wrong, carrying the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
}

/// What kind of error happened.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A key name that the key grammar does not know; its message is
    /// [`KEYS_HELP`](crate::keys::KEYS_HELP).
    UnknownKey {
        /// The name as given.
        name: String,
    },
    /// A token of the broker key grammar (`/mcp/keys`, MCP `send_keys`) that it does not know:
    /// its message also explains the `C-`, `M-` and `S-` prefixes.
    UnknownBrokerKey {
        /// The token as given.
        name: String,
    },
    /// A key chord with a modifier name that is not `Ctrl`, `Alt`, `Shift` or `Meta`.
    UnknownModifier {
        /// The modifier as given.
        name: String,
        /// The whole chord it came from.
        chord: String,
    },
    /// A key chord naming the same modifier twice (aliases count as the same: `Ctrl+Control+c`).
    RepeatedModifier {
        /// The modifier's second mention, as given.
        name: String,
        /// The whole chord it came from.
        chord: String,
    },
    /// An empty key name or chord.
    EmptyKey,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error { kind }
    }

    /// The kind of this error.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            // One text for both notations: an agent that wrote either learns both.
            ErrorKind::UnknownKey { name } | ErrorKind::UnknownBrokerKey { name } => write!(
                f,
                "unknown key {name:?}; accepted: {}",
                crate::keys::KEYS_HELP
            ),
            ErrorKind::UnknownModifier { name, chord } => write!(
                f,
                "unknown modifier {name:?} in {chord:?}; accepted modifiers: Ctrl, Alt, Shift, Meta"
            ),
            ErrorKind::RepeatedModifier { name, chord } => write!(
                f,
                "modifier {name:?} given more than once in {chord:?}; name each of Ctrl, Alt, \
                 Shift, Meta at most once, as in Ctrl+Shift+ArrowLeft"
            ),
            ErrorKind::EmptyKey => write!(
                f,
                "empty key name; accepted: a single character or a key name such as Enter"
            ),
        }
    }
}

impl std::error::Error for Error {}

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
    /// A key name that neither key grammar knows.
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
            ErrorKind::UnknownKey { name } => write!(
                f,
                "unknown key {name:?}; accepted: a single character, or one of {}",
                crate::keys::KEY_NAMES_HELP
            ),
            ErrorKind::UnknownBrokerKey { name } => write!(
                f,
                "unknown key {name:?}; accepted: a single character, LF, or one of {}; each may \
                 follow the prefixes C- (Ctrl, on letters, @ [ \\ ] ^ _ ? and Space), M- (Alt, sent \
                 as ESC first) and S- (Shift, on Tab and the cursor, Home and End keys), each at \
                 most once, as in C-c, M-f, C-M-x, S-Tab, C-S-Left",
                crate::keys::KEY_NAMES_HELP
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
            ErrorKind::EmptyKey => write!(f, "empty key name; accepted: a single character or a key name such as Enter"),
        }
    }
}

impl std::error::Error for Error {}

//! Who wrote to a terminal, as clients get it: the `submitted_by` of a command and the `by` of
//! the pages' `agent` frame (wterm-core `cmdlog::Author`; spec `agent-parity.md`, "Authors").

use serde::Serialize;
use wterm_core::Author;

/// `{kind, name}` with `kind` `person`, `page_agent` (name: the WebMCP tool), `mcp_client`
/// (name: its `clientInfo` name, `unnamed` before it gave one) or `route_caller` (name: its
/// scope, or `unscoped`); a person's `name` is left out.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AuthorFacts {
    /// The kind of writer.
    pub kind: &'static str,
    /// Which one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
}

impl AuthorFacts {
    /// The facts of `author`.
    pub fn of(author: &Author) -> AuthorFacts {
        AuthorFacts {
            kind: author.kind.as_str(),
            name: author.name.clone(),
        }
    }
}

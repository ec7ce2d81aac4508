//! [`Op`]: the one list of broker operations. The `/mcp/*` router is built from
//! [`Op::ALL`], the ladder looks operations up here (admin-only, which window access), the MCP
//! tools (a later issue) are named here, and the tests walk this list, so a new route cannot
//! skip the ladder or its test.

/// An HTTP method of the broker routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`, no body.
    Get,
    /// `POST` with a JSON object body.
    Post,
}

impl Method {
    /// `"GET"` or `"POST"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// What an operation does with the window its body names (ladder steps 6 and 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// No window (`info`, `terminals`, `profiles`, `launch`, `knobs`).
    None,
    /// Reads the window `id`: `bad_json` → `bad_id` → `unknown_or_off`.
    Read,
    /// Writes to the window `id`: as [`Target::Read`], then `read_only` unless its mode is
    /// `readwrite`.
    Write,
    /// Edits the window `id`'s scope and mode (`/mcp/window`): needs its launch handle or the
    /// admin credential instead of a mode.
    Edit,
}

/// A broker operation: one `/mcp/*` route and one MCP tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `GET /mcp/info`.
    Info,
    /// `GET /mcp/terminals`.
    Terminals,
    /// `POST /mcp/read`.
    Read,
    /// `POST /mcp/input`.
    Input,
    /// `POST /mcp/keys` (ext).
    Keys,
    /// `POST /mcp/reset`.
    Reset,
    /// `POST /mcp/flush`.
    Flush,
    /// `POST /mcp/pace`.
    Pace,
    /// `GET /mcp/profiles`.
    Profiles,
    /// `POST /mcp/launch`.
    Launch,
    /// `POST /mcp/window` (ext).
    Window,
    /// `POST /mcp/knobs` (ext, admin).
    Knobs,
}

impl Op {
    /// Every operation, in the contract's route-table order.
    pub const ALL: [Op; 12] = [
        Op::Info,
        Op::Terminals,
        Op::Read,
        Op::Input,
        Op::Keys,
        Op::Reset,
        Op::Flush,
        Op::Pace,
        Op::Profiles,
        Op::Launch,
        Op::Window,
        Op::Knobs,
    ];

    /// The route path.
    pub fn path(self) -> &'static str {
        match self {
            Op::Info => "/mcp/info",
            Op::Terminals => "/mcp/terminals",
            Op::Read => "/mcp/read",
            Op::Input => "/mcp/input",
            Op::Keys => "/mcp/keys",
            Op::Reset => "/mcp/reset",
            Op::Flush => "/mcp/flush",
            Op::Pace => "/mcp/pace",
            Op::Profiles => "/mcp/profiles",
            Op::Launch => "/mcp/launch",
            Op::Window => "/mcp/window",
            Op::Knobs => "/mcp/knobs",
        }
    }

    /// The route method.
    pub fn method(self) -> Method {
        match self {
            Op::Info | Op::Terminals | Op::Profiles => Method::Get,
            _ => Method::Post,
        }
    }

    /// What it does with a window.
    pub fn target(self) -> Target {
        match self {
            Op::Read => Target::Read,
            Op::Input | Op::Keys | Op::Reset | Op::Flush | Op::Pace => Target::Write,
            Op::Window => Target::Edit,
            Op::Info | Op::Terminals | Op::Profiles | Op::Launch | Op::Knobs => Target::None,
        }
    }

    /// Whether only an admin may call it (ladder step 5).
    pub fn admin_only(self) -> bool {
        self == Op::Knobs
    }

    /// Whether the relay adds it to the Browserland contract.
    pub fn ext(self) -> bool {
        matches!(self, Op::Keys | Op::Window | Op::Knobs)
    }

    /// The MCP tool that calls it (spec `mcp-server.md`).
    pub fn tool(self) -> &'static str {
        match self {
            Op::Info => "mcp_info",
            Op::Terminals => "list_terminals",
            Op::Read => "read_screen",
            Op::Input => "send_input",
            Op::Keys => "send_keys",
            Op::Reset => "reset_terminal",
            Op::Flush => "flush_input",
            Op::Pace => "set_pace",
            Op::Profiles => "list_profiles",
            Op::Launch => "launch_terminal",
            Op::Window => "set_window",
            Op::Knobs => "set_mcp_knobs",
        }
    }

    /// The operation served at `path`.
    pub fn from_path(path: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.path() == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The contract's route table (`broker-api.md`, "Routes"), rows of the `/mcp/*` data realm:
    /// method, path, admin-only. `/mcp/config` and `/session/mcp` are the page realm's.
    const SPEC_ROUTES: [(&str, &str, bool); 12] = [
        ("GET", "/mcp/info", false),
        ("GET", "/mcp/terminals", false),
        ("POST", "/mcp/read", false),
        ("POST", "/mcp/input", false),
        ("POST", "/mcp/keys", false),
        ("POST", "/mcp/reset", false),
        ("POST", "/mcp/flush", false),
        ("POST", "/mcp/pace", false),
        ("GET", "/mcp/profiles", false),
        ("POST", "/mcp/launch", false),
        ("POST", "/mcp/window", false),
        ("POST", "/mcp/knobs", true),
    ];

    #[test]
    fn the_list_matches_the_spec_route_table() {
        let ours: Vec<_> = Op::ALL
            .iter()
            .map(|op| (op.method().as_str(), op.path(), op.admin_only()))
            .collect();
        assert_eq!(ours, SPEC_ROUTES.to_vec());
        for op in Op::ALL {
            assert_eq!(Op::from_path(op.path()), Some(op));
        }
    }

    /// The contract's route table (`docs/spec/broker-api.md`, the repository's copy of the
    /// shared spec) is read and compared, so a route added to the contract shows up here.
    #[test]
    fn the_list_matches_the_spec_file() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/spec/broker-api.md");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut from_spec: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            let Some(cell) = line.strip_prefix("| ") else {
                continue;
            };
            let first = cell.split(" |").next().unwrap_or("");
            for method in ["GET", "POST"] {
                if let Some(rest) = first.strip_prefix(&format!("{method} `")) {
                    let path = rest.split('`').next().unwrap_or("");
                    if path.starts_with("/mcp/") && path != "/mcp/config" {
                        from_spec.push((method.to_owned(), path.to_owned()));
                    }
                }
            }
        }
        let ours: Vec<(String, String)> = Op::ALL
            .iter()
            .map(|op| (op.method().as_str().to_owned(), op.path().to_owned()))
            .collect();
        assert_eq!(
            ours, from_spec,
            "Op::ALL and the spec's route table drifted"
        );
    }
}

//! Whose line it is (spec `webmcp-tools.md` and `broker-api.md`, "Turn-taking"): a line
//! belongs to whoever began it. An agent input that submits a line (its bytes hold Enter)
//! while a person is typing one is refused with [`CODE`], nothing sent, on both surfaces.
//!
//! The person is typing when their last keys left a line begun (text, not Enter, Ctrl-C or
//! Ctrl-U; [`PersonKeys`]) and either came within [`PERSON_TYPING_MS`] (their echo may not be
//! on the screen yet), or the shell's command line holds text (their half-typed line). Their
//! line stays theirs until it is ended or cleared (their Enter, or anyone's Ctrl-C or Ctrl-U):
//! an agent's other keys (End, a space) do not make it the agent's. Keys that do not submit are
//! never refused: an agent may still press Ctrl-C, clear a line or answer a full-screen program.
//!
//! Who counts as the person: on the page, its keyboard, paste, IME and touch input; on the
//! relay, every page's input over the websocket (the relay cannot tell a page's own agent from
//! its person there). Terminal replies and reports (they start with ESC) count as no one.

/// The refusal code, the same on both surfaces (`409` on the relay's routes).
pub const CODE: &str = "person_typing";

/// How long after a person's key that left a line begun an agent may not submit a line, in
/// milliseconds: it covers the key's round trip to the shell and back (its echo shows the
/// line as typed from then on) and a pause between two words.
pub const PERSON_TYPING_MS: u32 = 1_500;

/// Whether agent input `bytes` submits a line: it holds CR (Enter) or LF (Ctrl-J, which bash,
/// zsh and fish take as Enter too).
pub fn submits(bytes: &[u8]) -> bool {
    bytes.iter().any(|b| *b == b'\r' || *b == b'\n')
}

/// What a chunk of the person's input does to the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersonKeys {
    /// It leaves text begun on the line: its last byte is not one of [`PersonKeys::Ends`]'s.
    Begins,
    /// Its last byte ends or clears the line: CR, LF, Ctrl-C (ETX), Ctrl-D (EOT), Ctrl-U (NAK).
    Ends,
    /// It starts with ESC and is not a bracketed paste: a cursor key, a function key, or the
    /// terminal's reply to a query or a focus or mouse report, which a program asked for and
    /// no one typed. It changes nothing.
    Neither,
}

impl PersonKeys {
    /// Classifies a chunk of the person's input as it goes to the program.
    pub fn of(bytes: &[u8]) -> PersonKeys {
        match bytes {
            [] => PersonKeys::Neither,
            [0x1b, ..] if !bytes.starts_with(b"\x1b[200~") => PersonKeys::Neither,
            [.., b'\r' | b'\n' | 0x03 | 0x04 | 0x15] => PersonKeys::Ends,
            _ => PersonKeys::Begins,
        }
    }
}

/// When the person last typed a line, in the adapter's milliseconds (the page's
/// `performance.now()`, the relay's monotonic clock as milliseconds).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Typists {
    /// When the person's last keys left a line begun; `None` once the line was ended or
    /// cleared.
    pub person: Option<f64>,
}

impl Typists {
    /// Notes the person's `bytes` at `now`.
    pub fn person_typed(&mut self, bytes: &[u8], now: f64) {
        match PersonKeys::of(bytes) {
            PersonKeys::Begins => self.person = Some(now),
            PersonKeys::Ends => self.person = None,
            PersonKeys::Neither => {}
        }
    }

    /// Notes an agent's `bytes`: a Ctrl-C or Ctrl-U (or an Enter, which is refused while the
    /// person holds the line) ends the person's line; other keys leave it theirs.
    pub fn agent_typed(&mut self, bytes: &[u8]) {
        if PersonKeys::of(bytes) == PersonKeys::Ends {
            self.person = None;
        }
    }

    /// Whether the person holds the line at `now` (see the module's rule). `line_typed`:
    /// `Some(true)` at a shell prompt with text on the command line
    /// ([`Terminal::command_line_typed`](crate::Terminal::command_line_typed)), `None` when
    /// unknown (no shell integration, or a program runs).
    pub fn person_holds(&self, line_typed: Option<bool>, now: f64) -> bool {
        let Some(person) = self.person else {
            return false;
        };
        now - person < f64::from(PERSON_TYPING_MS) || line_typed == Some(true)
    }
}

/// What the refusal means, the same words on both surfaces.
pub const MEANING: &str =
    "a person is typing a line at this terminal and the line is theirs; nothing was sent";

/// The refusal's detail: why, and what to do, naming the surface's read tool and key tool.
pub fn detail(read_tool: &str, keys_tool: &str) -> String {
    format!(
        "they typed within the last {PERSON_TYPING_MS} ms, or their half-typed command line is \
         on the prompt. Wait for them to finish ({read_tool} shows the line) or ask your user; \
         to take the line, clear it first ({keys_tool} with Ctrl+U) only if your user agrees. \
         Input without Enter is still accepted"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enter_or_ctrl_j_submits() {
        assert!(submits(b"ls\r"));
        assert!(submits(b"ls\n"));
        assert!(!submits(b"ls"));
        assert!(!submits(b"\x03"));
    }

    #[test]
    fn what_the_persons_keys_do_to_the_line() {
        assert_eq!(PersonKeys::of(b"l"), PersonKeys::Begins);
        assert_eq!(PersonKeys::of("é".as_bytes()), PersonKeys::Begins);
        assert_eq!(PersonKeys::of(b"\x1b[200~a b\x1b[201~"), PersonKeys::Begins);
        for end in [&b"ls\r"[..], b"\x03", b"\x15", b"\x04", b"\n"] {
            assert_eq!(PersonKeys::of(end), PersonKeys::Ends, "{end:?}");
        }
        // A cursor key, a primary DA reply, a focus report: no one typed a line.
        for reply in [&b"\x1b[A"[..], b"\x1b[?62;22c", b"\x1b[I", b""] {
            assert_eq!(PersonKeys::of(reply), PersonKeys::Neither, "{reply:?}");
        }
    }

    #[test]
    fn a_recent_key_or_the_persons_half_typed_line_holds_it() {
        let mut t = Typists::default();
        assert!(!t.person_holds(Some(true), 10_000.0), "nobody typed");
        t.person_typed(b"l", 1_000.0);
        assert!(t.person_holds(None, 2_000.0), "within the window");
        assert!(!t.person_holds(None, 3_000.0), "the window passed");
        assert!(
            t.person_holds(Some(true), 9_000.0),
            "their text is on the line"
        );
        assert!(!t.person_holds(Some(false), 9_000.0), "the line is empty");
        // A terminal reply changes nothing; their Ctrl-U ends it at once.
        t.person_typed(b"\x1b[I", 9_100.0);
        assert!(t.person_holds(Some(true), 9_200.0));
        t.person_typed(b"\x15", 9_300.0);
        assert!(!t.person_holds(Some(true), 9_310.0));
        // An agent's End or space does not make the person's line the agent's; its Ctrl-U does.
        t.person_typed(b"x", 10_000.0);
        t.agent_typed(b"\x1b[F");
        t.agent_typed(b" ");
        assert!(t.person_holds(Some(true), 13_000.0));
        t.agent_typed(b"\x15");
        assert!(!t.person_holds(Some(true), 13_100.0));
    }
}

//! A window's access settings: [`Mode`], [`Scope`], the launch owner ([`OwnerHash`]), and the
//! [`Caller`] they are checked against (broker contract, "Refusal ladder"); [`WindowState`], what
//! the broker keeps with each session.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::sync::watch;
use wterm_core::agent::input::InputSequence;
use wterm_core::{Author, AuthorKind};

use super::frames::FrameCache;
use crate::ground::limits::MAX_SCOPE_CHARS;
use crate::session::Session;

/// What MCP clients may do with a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Invisible to every client but an admin, and unreadable even by an admin.
    Off,
    /// Listed and readable; every write is `403 read_only`.
    Read,
    /// Listed, readable and writable.
    Readwrite,
}

impl Mode {
    /// The wire name: `off`, `read` or `readwrite`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::Read => "read",
            Mode::Readwrite => "readwrite",
        }
    }
}

impl FromStr for Mode {
    type Err = ();

    /// Parses the wire name (exact, lowercase).
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "off" => Ok(Mode::Off),
            "read" => Ok(Mode::Read),
            "readwrite" => Ok(Mode::Readwrite),
            _ => Err(()),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scope name: `[A-Za-z0-9][A-Za-z0-9._-]{0,63}` (broker contract, ladder step 4). Windows
/// tagged with a scope are what a caller declaring that scope sees.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Scope(String);

impl Scope {
    /// A scope, when `s` follows the grammar.
    pub fn parse(s: &str) -> Option<Scope> {
        let b = s.as_bytes();
        let ok = !b.is_empty()
            && b.len() <= MAX_SCOPE_CHARS
            && b[0].is_ascii_alphanumeric()
            && b[1..]
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || b"._-".contains(c));
        ok.then(|| Scope(s.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The SHA-256 of a launch handle, as 64 lowercase hex digits: what the relay keeps of the
/// handle (broker contract, `/mcp/launch`: "stores only its SHA-256 as the window's owner").
#[derive(Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct OwnerHash(String);

impl OwnerHash {
    /// The hash of `handle`.
    pub fn of(handle: &str) -> OwnerHash {
        let digest = Sha256::digest(handle.as_bytes());
        let mut hex = String::with_capacity(64);
        for b in digest {
            hex.push_str(&format!("{b:02x}"));
        }
        OwnerHash(hex)
    }

    /// A stored hash, when `s` is 64 lowercase hex digits.
    pub fn parse(s: &str) -> Option<OwnerHash> {
        (s.len() == 64
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        .then(|| OwnerHash(s.to_owned()))
    }

    /// Whether `handle` is the handle this is the hash of, compared in constant time.
    pub fn is_of(&self, handle: &str) -> bool {
        OwnerHash::of(handle)
            .0
            .as_bytes()
            .ct_eq(self.0.as_bytes())
            .into()
    }

    /// The hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for OwnerHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not a secret, but nobody needs to read it in a log either.
        f.write_str("OwnerHash(..)")
    }
}

/// A window's own access settings. `mode: None` inherits the relay's `default_mode`, read live.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowMeta {
    /// The scope the window is tagged with.
    pub scope: Option<Scope>,
    /// The window's own mode (the raw override).
    pub mode: Option<Mode>,
    /// The hash of the handle its launcher holds.
    pub owner: Option<OwnerHash>,
    /// The person at the page let agents read this window's secrets: its reads are not
    /// redacted (`redact: false` on `POST /session/mcp`; no MCP route sets it).
    pub unredacted: bool,
    /// The person at the page let agents type at this window's secret prompts
    /// (`secret_input: true` on `POST /session/mcp`; no MCP route sets it; off by default).
    pub secret_input: bool,
}

impl WindowMeta {
    /// The mode that applies: the window's own, else `default_mode`.
    pub fn effective_mode(&self, default_mode: Mode) -> Mode {
        self.mode.unwrap_or(default_mode)
    }

    /// Whether nothing is set (such a window needs no row on disk).
    pub fn is_empty(&self) -> bool {
        self.scope.is_none()
            && self.mode.is_none()
            && self.owner.is_none()
            && !self.unredacted
            && !self.secret_input
    }
}

/// The front a call came through, for the audit log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Via {
    /// A `/mcp/*` route (also what `wterm-relay mcp` over stdio calls).
    #[default]
    Route,
    /// The relay's own MCP endpoint, `/mcp`.
    Mcp,
    /// A page's websocket: input its own agent (a WebMCP tool) typed, as the page said.
    Page,
}

impl Via {
    /// `"route"`, `"mcp"` or `"page"`, as audit records name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Route => "route",
            Via::Mcp => "mcp",
            Via::Page => "page",
        }
    }
}

/// Who is calling a `/mcp/*` route, as the ladder established it (steps 4 and 5).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The declared scope (`X-Browserland-Scope`); `None` = unscoped.
    pub scope: Option<Scope>,
    /// Whether the caller holds the admin credential.
    pub admin: bool,
    /// The fingerprint of the MCP token it presented (`broker::audit`, a keyed hash; never the
    /// token), for the audit log.
    pub key: Option<String>,
    /// The front it came through.
    pub via: Via,
    /// The MCP client's `clientInfo` name (through `/mcp`, once it initialized), or the page
    /// agent's WebMCP tool (through a page); `None` otherwise. A label the client chose, never
    /// a credential.
    pub client: Option<String>,
}

impl Caller {
    /// Who this caller's input is, in the command log and the audit log: an MCP client named
    /// by its `clientInfo` (`unnamed` before it said), a route caller named by its scope
    /// (`unscoped`), or a page's agent named by its tool.
    pub fn author(&self) -> Author {
        match self.via {
            Via::Mcp => Author::new(
                AuthorKind::McpClient,
                self.client.as_deref().unwrap_or("unnamed"),
            ),
            Via::Route => Author::new(
                AuthorKind::RouteCaller,
                self.scope.as_ref().map_or("unscoped", |s| s.as_str()),
            ),
            Via::Page => Author::new(AuthorKind::PageAgent, self.client.as_deref().unwrap_or("")),
        }
    }

    /// Whether this caller may see a window with `meta` whose effective mode is `mode`: an
    /// admin sees every window; anyone else only windows that are not `off`, and a scoped
    /// caller only those tagged with its scope.
    pub fn sees(&self, meta: &WindowMeta, mode: Mode) -> bool {
        if self.admin {
            return true;
        }
        mode != Mode::Off
            && match &self.scope {
                Some(scope) => meta.scope.as_ref() == Some(scope),
                None => true,
            }
    }
}

/// A `mode` field: a mode name (`400 bad_mode` otherwise).
pub fn mode_field(v: &serde_json::Value) -> Result<Mode, crate::ground::Refusal> {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .ok_or(crate::ground::Refusal::BadMode)
}

/// A `scope` field: a scope name (`400 bad_scope` otherwise).
pub fn scope_field(v: &serde_json::Value) -> Result<Scope, crate::ground::Refusal> {
    v.as_str()
        .and_then(Scope::parse)
        .ok_or(crate::ground::Refusal::BadScope)
}

/// The answer of `/mcp/window` and `/session/mcp`: `{ok, id, scope, mode, effective_mode}`
/// (`mode` is the window's own, `null` = inherit `default_mode`).
pub fn window_answer(id: u64, meta: &WindowMeta, default_mode: Mode) -> serde_json::Value {
    serde_json::json!({
        "ok": true,
        "id": id,
        "scope": meta.scope,
        "mode": meta.mode,
        "effective_mode": meta.effective_mode(default_mode),
        "redact": !meta.unredacted,
        "secret_input": meta.secret_input,
    })
}

/// A window's MCP state, kept with its session from before the process starts (the session's
/// attachment, see [`crate::session::SessionSpec::attachment`]).
#[derive(Debug)]
pub struct WindowState {
    meta: Mutex<WindowMeta>,
    pace_ms: AtomicU64,
    /// `"shell"` for the page's sessions, else the profile a launch named.
    pub kind: String,
    /// The `title` a launch gave, if any.
    pub launch_title: Option<String>,
    frames: Mutex<FrameCache>,
    submitted: Mutex<Option<Submitted>>,
    /// The broker's agent input to this window, numbered (`input_seq`, `last_input`).
    input: Mutex<InputSequence>,
    /// Epoch milliseconds of the last read told to the pages (`broker::activity`); 0 = never.
    read_notice_ms: AtomicU64,
    /// Moves on whenever what a caller may do with the window may have changed (its own
    /// settings, or the relay's `default_mode` and switch): waits re-check their access then.
    access: watch::Sender<u64>,
}

/// `last_input` (ext) of `/mcp/terminals` rows and read answers: the newest numbered input
/// call of the window (spec `mcp-server.md`, "Input sequence").
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct LastInputFacts {
    /// Its number in the window's input sequence, from 1.
    pub seq: u64,
    /// The tool that sent it: `send_input`, `send_keys` or `run_command`.
    pub tool: &'static str,
    /// Bytes it sent so far.
    pub bytes: usize,
}

impl From<wterm_core::agent::input::LastInput> for LastInputFacts {
    fn from(l: wterm_core::agent::input::LastInput) -> Self {
        LastInputFacts {
            seq: l.seq,
            tool: l.tool,
            bytes: l.bytes,
        }
    }
}

/// A command line submitted (Enter) while the window's shell was reading one, as the broker's
/// input operations noted it (see `broker::ordered`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Submitted {
    /// The id the command will have in the command log (the next id at the time).
    pub next_command_id: u64,
    /// When it was written.
    pub at: tokio::time::Instant,
    /// Whether its command has been seen to start (or the wait for it ran out).
    pub started: bool,
}

impl WindowState {
    /// A window of `kind` with these settings.
    pub fn new(kind: &str, launch_title: Option<String>, meta: WindowMeta) -> WindowState {
        WindowState {
            meta: Mutex::new(meta),
            pace_ms: AtomicU64::new(0),
            kind: kind.to_owned(),
            launch_title,
            frames: Mutex::new(FrameCache::default()),
            submitted: Mutex::new(None),
            input: Mutex::new(InputSequence::default()),
            read_notice_ms: AtomicU64::new(0),
            access: watch::Sender::new(0),
        }
    }

    /// What a held session keeps of its window to make it again after a relay restart
    /// (`SessionSpec::label`): `{"kind", "title"}` as JSON.
    pub fn label(kind: &str, launch_title: Option<&str>) -> String {
        serde_json::json!({ "kind": kind, "title": launch_title }).to_string()
    }

    /// The window state of a session taken over after a relay restart, from its
    /// [`WindowState::label`]; its settings come from the windows file (`Broker::restore`).
    /// An unreadable label makes a window of kind `shell`.
    pub fn from_label(label: &str) -> WindowState {
        let v: serde_json::Value = serde_json::from_str(label).unwrap_or_default();
        let kind = v.get("kind").and_then(|k| k.as_str()).unwrap_or("shell");
        let title = v.get("title").and_then(|t| t.as_str()).map(str::to_owned);
        WindowState::new(kind, title, WindowMeta::default())
    }

    /// The window's input sequence now.
    pub fn input(&self) -> InputSequence {
        *self.input.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Numbers an input call of `tool` (its MCP tool name) that is writing its first `bytes`;
    /// returns its number ([`InputSequence::sent`]).
    pub fn input_sent(&self, tool: &'static str, bytes: usize) -> u64 {
        let mut s = self.input.lock().unwrap_or_else(|e| e.into_inner());
        s.sent(tool, bytes, false)
    }

    /// Input call `seq` is writing `bytes` more ([`InputSequence::more`]).
    pub fn input_more(&self, seq: u64, bytes: usize) {
        let mut s = self.input.lock().unwrap_or_else(|e| e.into_inner());
        s.more(seq, bytes);
    }

    /// The last line submitted at the shell's prompt, if any.
    pub fn submitted(&self) -> Option<Submitted> {
        *self.submitted.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes a line submitted at the shell's prompt.
    pub fn set_submitted(&self, submitted: Submitted) {
        *self.submitted.lock().unwrap_or_else(|e| e.into_inner()) = Some(submitted);
    }

    /// Notes that the last submitted line's command started (or is no longer waited for).
    pub fn mark_started(&self) {
        if let Some(s) = self
            .submitted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            s.started = true;
        }
    }

    /// The window state of `session`; `None` for a session the broker did not start (it is
    /// no window: never listed, and every operation on it is `unknown_or_off`).
    pub fn of(session: &Session) -> Option<&WindowState> {
        session.attachment::<WindowState>()
    }

    /// Scope, raw mode and owner.
    pub fn meta(&self) -> WindowMeta {
        self.meta.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Puts new settings in force. Callers write them to disk first (see
    /// `Broker::commit_meta`).
    pub fn set_meta(&self, meta: WindowMeta) {
        *self.meta.lock().unwrap_or_else(|e| e.into_inner()) = meta;
        self.access_changed();
    }

    /// Wakes the waits on this window so they check their caller's access again (after a
    /// change of its settings or of the relay's).
    pub fn access_changed(&self) {
        self.access.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// A receiver that sees [`WindowState::access_changed`].
    pub fn subscribe_access(&self) -> watch::Receiver<u64> {
        self.access.subscribe()
    }

    /// Whether a read at `now_ms` (epoch milliseconds) is told to the pages: true when the last
    /// told read is at least `min_gap_ms` old (and then `now_ms` becomes the last one).
    pub fn take_read_notice(&self, now_ms: u64, min_gap_ms: u64) -> bool {
        let last = self.read_notice_ms.load(Ordering::Relaxed);
        if last != 0 && now_ms.saturating_sub(last) < min_gap_ms {
            return false;
        }
        self.read_notice_ms
            .compare_exchange(last, now_ms.max(1), Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// The default pause between `/mcp/keys` tokens, in milliseconds (not persisted).
    pub fn pace_ms(&self) -> u64 {
        self.pace_ms.load(Ordering::Relaxed)
    }

    /// Sets [`WindowState::pace_ms`].
    pub fn set_pace_ms(&self, ms: u64) {
        self.pace_ms.store(ms, Ordering::Relaxed);
    }

    /// The frames this window answered recently.
    pub fn frames(&self) -> MutexGuard<'_, FrameCache> {
        self.frames.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_grammar() {
        for ok in ["a", "A1", "team.x-y_z", "0", &"a".repeat(64)] {
            assert!(Scope::parse(ok).is_some(), "{ok}");
        }
        for bad in [
            "",
            ".a",
            "-a",
            "_a",
            "a b",
            "a/b",
            "é",
            &"a".repeat(65),
            "a\n",
        ] {
            assert!(Scope::parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn read_notices_are_rate_limited() {
        let w = WindowState::new("shell", None, WindowMeta::default());
        assert!(w.take_read_notice(10_000, 1_000));
        assert!(!w.take_read_notice(10_999, 1_000));
        assert!(w.take_read_notice(11_000, 1_000));
        assert!(!w.take_read_notice(11_500, 1_000));
    }

    #[test]
    fn modes_round_trip() {
        for m in [Mode::Off, Mode::Read, Mode::Readwrite] {
            assert_eq!(m.as_str().parse::<Mode>(), Ok(m));
        }
        assert!("READ".parse::<Mode>().is_err());
        assert!("write".parse::<Mode>().is_err());
    }

    #[test]
    fn owner_hash_is_sha256_hex() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        let h = OwnerHash::of("abc");
        assert_eq!(
            h.as_str(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(h.is_of("abc"));
        assert!(!h.is_of("abd"));
        assert_eq!(OwnerHash::parse(h.as_str()), Some(h));
        assert!(OwnerHash::parse("ABC").is_none());
    }

    #[test]
    fn visibility() {
        let s = |n: &str| Scope::parse(n);
        let tagged = WindowMeta {
            scope: s("a"),
            ..WindowMeta::default()
        };
        let plain = WindowMeta::default();
        let unscoped = Caller::default();
        let scoped = Caller {
            scope: s("a"),
            admin: false,
            ..Caller::default()
        };
        let other = Caller {
            scope: s("b"),
            admin: false,
            ..Caller::default()
        };
        let admin = Caller {
            scope: s("b"),
            admin: true,
            ..Caller::default()
        };
        assert!(unscoped.sees(&tagged, Mode::Read));
        assert!(unscoped.sees(&plain, Mode::Read));
        assert!(!unscoped.sees(&plain, Mode::Off));
        assert!(scoped.sees(&tagged, Mode::Read));
        assert!(!scoped.sees(&plain, Mode::Readwrite));
        assert!(!scoped.sees(&tagged, Mode::Off));
        assert!(!other.sees(&tagged, Mode::Readwrite));
        assert!(admin.sees(&tagged, Mode::Off));
    }
}

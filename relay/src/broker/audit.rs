//! The audit log: one JSON line per agent action through the broker (`/mcp/*` routes and the
//! MCP tools) or a page's own agent (its input arriving at the relay, [`AuditLog::page_input`]),
//! one per line a person at a page submitted (that and when, never what), and per refusal, including the ladder's (401, 403, ...), chained by SHA-256 so a
//! removed, reordered or edited record is found (`wterm-relay audit verify`). Successful reads
//! (`read_screen`, `list_terminals`, `mcp_info`, `list_profiles`, `watch_url`, `audit_log`) are
//! counted per window, and recorded too when the relay runs with `--audit-reads`.
//!
//! Files: `STATE_DIR/audit/audit.jsonl` (current), rotated at [`AUDIT_FILE_MAX_BYTES`] to
//! `audit.1.jsonl` (newest) .. `audit.N.jsonl` (oldest, N = [`AUDIT_KEEP_FILES`]); mode 0600 in
//! a 0700 directory; `audit/key` holds the key of the token fingerprints (32 random bytes, hex).
//!
//! A record (fields in this order; `spec/broker-api.md`, "Audit log"):
//! `{seq, time, ms, window, via, caller: {scope, admin, key, client?}, op, args, status, error,
//! dur_ms, prev, hash}`: `seq` counts from 1 across files; `time` (RFC 3339 UTC, milliseconds) and `ms`
//! (epoch milliseconds) are when the call arrived; `key` is [`AUDIT_FINGERPRINT_HEX`] hex digits
//! of SHA-256(audit key ‖ 0x00 ‖ presented token), never the token; `client` the MCP client's
//! `clientInfo` name or the page agent's tool, when known (a label, never a credential); `args` is
//! [`summarize`]'s bounded, redacted summary; `status` the HTTP status (200 for an answer) and
//! `error` the refusal's code; `prev` is the `hash` of the record before (64 zeros before the
//! first); `hash` is the SHA-256, lowercase hex, of the line's text up to `,"hash"` followed by
//! `}` (the record without its `hash`).
//!
//! Writing: one `write(2)` of the whole line on an `O_APPEND` file, under a lock, at the end of
//! the call (a call whose future is dropped, by a client that went away or by shutdown, is
//! recorded then with `status` 499 and `error` `cancelled`). The kernel has the line when the
//! call answers, so a clean shutdown (or a crash of the relay alone) loses nothing; there is no
//! `fsync` per record (a power cut may lose the last ones).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use wterm_core::agent::redact::Redactor;

use super::window::{Caller, Via};
use crate::ground::config::write_private_atomic;
use crate::ground::fields::Fields;
use crate::ground::limits::{
    AUDIT_ARGS_MAX_BYTES, AUDIT_ARG_LIST_ITEMS, AUDIT_ARG_TEXT_BYTES, AUDIT_FILE_MAX_BYTES,
    AUDIT_FINGERPRINT_HEX, AUDIT_KEEP_FILES, MAX_AUDIT_LINE_BYTES,
};
use crate::ground::Refusal;
use wterm_core::agent::turns;
use wterm_core::Author;

/// The audit directory's name in the state directory.
pub const AUDIT_DIR: &str = "audit";

/// The current file's name.
pub const CURRENT_FILE: &str = "audit.jsonl";

/// The fingerprint key's file name.
const KEY_FILE: &str = "key";

/// `prev` of the first record ever written.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// `status` of a call that never answered (its future was dropped).
pub const CANCELLED_STATUS: u16 = 499;

/// `error` of a call that never answered.
pub const CANCELLED: &str = "cancelled";

/// Field names whose values never reach a record (`"[redacted]"` stands in): credentials and
/// launch handles.
const SECRET_FIELDS: [&str; 6] = [
    "handle",
    "token",
    "admin_token",
    "auth",
    "password",
    "secret",
];

/// Fields whose byte length a record always gives (`<field>_bytes`): the text sent.
const TEXT_FIELDS: [&str; 2] = ["data", "command"];

/// The suffix of every line after the hash's hex: `"}`.
const HASH_KEY: &str = ",\"hash\":\"";

pub use crate::ground::clock::{now_ms, rfc3339};

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// A string cut to at most `max` bytes at a character boundary, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// The bounded, redacted summary of a call's fields: `id` left out (it is the record's
/// `window`); [`SECRET_FIELDS`] as `"[redacted]"`; strings cut to [`AUDIT_ARG_TEXT_BYTES`]
/// with their length as `<field>_bytes` (always for `data` and `command`); lists cut to
/// [`AUDIT_ARG_LIST_ITEMS`] with `<field>_count`; objects as cut JSON text; the whole at most
/// [`AUDIT_ARGS_MAX_BYTES`] of JSON (fields dropped from the end, counted in `_omitted`).
/// Every string (list items included) has its secrets (`redactor`'s kinds and literals)
/// replaced by `[redacted:KIND]` before it is cut, so no cut leaves part of a secret behind.
pub fn summarize(fields: &Fields, redactor: &Redactor) -> Value {
    let cut = |s: &str, max: usize| cut(&redactor.text(s).text, max);
    let mut out = Map::new();
    for (k, v) in fields {
        if k == "id" {
            continue;
        }
        let key = cut(k, 64);
        let lower = k.to_ascii_lowercase();
        if SECRET_FIELDS.iter().any(|s| lower.contains(s)) {
            out.insert(key, Value::from("[redacted]"));
            continue;
        }
        match v {
            Value::String(s) => {
                if s.len() > AUDIT_ARG_TEXT_BYTES || TEXT_FIELDS.contains(&k.as_str()) {
                    out.insert(format!("{key}_bytes"), Value::from(s.len()));
                }
                out.insert(key, Value::from(cut(s, AUDIT_ARG_TEXT_BYTES)));
            }
            Value::Array(items) => {
                let kept: Vec<Value> = items
                    .iter()
                    .take(AUDIT_ARG_LIST_ITEMS)
                    .map(|i| match i {
                        Value::String(s) => Value::from(cut(s, AUDIT_ARG_TEXT_BYTES)),
                        Value::Array(_) | Value::Object(_) => {
                            Value::from(cut(&i.to_string(), AUDIT_ARG_TEXT_BYTES))
                        }
                        other => other.clone(),
                    })
                    .collect();
                if items.len() > kept.len() {
                    out.insert(format!("{key}_count"), Value::from(items.len()));
                }
                out.insert(key, Value::Array(kept));
            }
            Value::Object(_) => {
                out.insert(key, Value::from(cut(&v.to_string(), AUDIT_ARG_TEXT_BYTES)));
            }
            other => {
                out.insert(key, other.clone());
            }
        }
    }
    let mut omitted = 0usize;
    while Value::Object(out.clone()).to_string().len() + 16 > AUDIT_ARGS_MAX_BYTES {
        let Some(last) = out.keys().next_back().cloned() else {
            break;
        };
        out.remove(&last);
        omitted += 1;
    }
    if omitted > 0 {
        out.insert("_omitted".into(), Value::from(omitted));
    }
    Value::Object(out)
}

/// One record to append, before `seq`, `prev` and `hash` are given.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The operation's tool name (`send_input`, ...); `None` for a refusal of the `/mcp`
    /// endpoint itself, before any message was read.
    pub op: Option<&'static str>,
    /// Who called.
    pub caller: Caller,
    /// The window the call named, when its `id` parsed.
    pub window: Option<u64>,
    /// [`summarize`]'s summary of the fields; `None` when the body was not read or not an
    /// object.
    pub args: Option<Value>,
    /// The HTTP status answered (200, a refusal's, or [`CANCELLED_STATUS`]).
    pub status: u16,
    /// The refusal's code (or [`CANCELLED`]).
    pub error: Option<&'static str>,
    /// When the call arrived, epoch milliseconds.
    pub started_ms: u64,
    /// How long it took, in milliseconds.
    pub duration_ms: u64,
}

#[derive(Serialize)]
struct CallerOut<'a> {
    scope: Option<&'a str>,
    admin: bool,
    key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    client: Option<&'a str>,
}

impl Entry {
    /// The line's text without `hash` (what is hashed), as `seq` chained after `prev`.
    fn body(&self, seq: u64, prev: &str) -> String {
        let j = |v: &dyn erased::Ser| v.json();
        format!(
            "{{\"seq\":{seq},\"time\":\"{}\",\"ms\":{},\"window\":{},\"via\":\"{}\",\"caller\":{},\
             \"op\":{},\"args\":{},\"status\":{},\"error\":{},\"dur_ms\":{},\"prev\":\"{prev}\"}}",
            rfc3339(self.started_ms),
            self.started_ms,
            j(&self.window),
            self.caller.via.as_str(),
            j(&CallerOut {
                scope: self.caller.scope.as_ref().map(|s| s.as_str()),
                admin: self.caller.admin,
                key: self.caller.key.as_deref(),
                client: self.caller.client.as_deref(),
            }),
            j(&self.op),
            j(&self.args),
            self.status,
            j(&self.error),
            self.duration_ms,
        )
    }
}

mod erased {
    /// Any serializable value as JSON text.
    pub trait Ser {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_else(|_| "null".into())
        }
    }
}

/// The full line (with `hash`, and the newline) of `body`, and its hash.
fn seal(body: &str) -> (String, String) {
    let hash = sha256_hex(body.as_bytes());
    let mut line = String::with_capacity(body.len() + 80);
    line.push_str(&body[..body.len() - 1]);
    line.push_str(HASH_KEY);
    line.push_str(&hash);
    line.push_str("\"}\n");
    (line, hash)
}

/// A line (without its newline) split into the hashed body and the hash it claims, when it has
/// the shape `{...,"hash":"<64 hex>"}`.
fn unseal(line: &str) -> Option<(String, &str)> {
    let tail = 64 + 2;
    let at = line.len().checked_sub(tail + HASH_KEY.len())?;
    let (head, rest) = line.split_at_checked(at)?;
    let hash = rest.strip_prefix(HASH_KEY)?.strip_suffix("\"}")?;
    (hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| (format!("{head}}}"), hash))
}

/// The current end of the chain.
#[derive(Debug)]
struct Chain {
    file: Option<File>,
    size: u64,
    /// The last record's seq (0 before the first).
    seq: u64,
    /// The last record's hash.
    last: String,
    /// Whether a write failure was reported already (once per failure streak).
    failing: bool,
}

/// Successful reads of one window (or of none: listings), counted.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ReadCount {
    /// Reads since the relay started.
    pub count: u64,
    /// The last one, epoch milliseconds.
    pub last_ms: u64,
}

/// The audit log of one relay (see the module doc).
#[derive(Debug)]
pub struct AuditLog {
    dir: PathBuf,
    key: [u8; 32],
    log_reads: bool,
    chain: Mutex<Chain>,
    reads: Mutex<BTreeMap<Option<u64>, ReadCount>>,
}

/// The audit files of `dir` (an audit directory), oldest first: `audit.N.jsonl` ..
/// `audit.1.jsonl`, `audit.jsonl`; only those that exist.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut rotated: Vec<(usize, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name.strip_prefix("audit.")?.strip_suffix(".jsonl")?;
            n.parse::<usize>().ok().map(|n| (n, e.path()))
        })
        .collect();
    rotated.sort_by_key(|r| std::cmp::Reverse(r.0));
    let mut out: Vec<PathBuf> = rotated.into_iter().map(|(_, p)| p).collect();
    let current = dir.join(CURRENT_FILE);
    if current.is_file() {
        out.push(current);
    }
    out
}

fn rotated_name(dir: &Path, n: usize) -> PathBuf {
    dir.join(format!("audit.{n}.jsonl"))
}

fn open_append(path: &Path) -> io::Result<File> {
    let f = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(path)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(f)
}

/// The last complete record of `path`: its seq and hash, and whether the file ends in a
/// newline (a torn last write does not).
fn tail_of(path: &Path) -> io::Result<Option<(u64, String, bool)>> {
    let mut f = File::open(path)?;
    let len = f.metadata()?.len();
    let from = len.saturating_sub(2 * MAX_AUDIT_LINE_BYTES as u64);
    f.seek(SeekFrom::Start(from))?;
    let mut buf = Vec::new();
    f.read_to_end(&mut buf)?;
    let ends_clean = buf.last().is_none_or(|b| *b == b'\n');
    let text = String::from_utf8_lossy(&buf);
    for line in text.lines().rev() {
        if let Some((body, hash)) = unseal(line) {
            if let Some(seq) = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| v["seq"].as_u64())
            {
                return Ok(Some((seq, hash.to_owned(), ends_clean)));
            }
        }
    }
    Ok(None)
}

impl AuditLog {
    /// The log in `state_dir/audit`, continuing the chain of the files there (creates the
    /// directory, mode 0700, and the key). A directory that cannot be written is reported
    /// once (an error in the relay's log) and the records of this run are then lost, never
    /// the relay's service.
    pub fn open(state_dir: &Path, log_reads: bool) -> AuditLog {
        let dir = state_dir.join(AUDIT_DIR);
        if let Err(e) = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
        {
            tracing::error!(dir = %dir.display(), error = %e, "cannot create the audit directory");
        }
        let key = load_or_mint_key(&dir.join(KEY_FILE));
        let mut chain = Chain {
            file: None,
            size: 0,
            seq: 0,
            last: GENESIS.to_owned(),
            failing: false,
        };
        // The newest record: in the current file, else the newest rotated one.
        for path in files(&dir).iter().rev() {
            match tail_of(path) {
                Ok(Some((seq, hash, ends_clean))) => {
                    chain.seq = seq;
                    chain.last = hash;
                    if !ends_clean {
                        tracing::warn!(file = %path.display(), "the audit file ends in a torn record; audit verify will name it");
                    }
                    break;
                }
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(file = %path.display(), error = %e, "cannot read an audit file");
                }
            }
        }
        let current = dir.join(CURRENT_FILE);
        match open_append(&current) {
            Ok(mut f) => {
                chain.size = f.metadata().map_or(0, |m| m.len());
                // A torn last line must not swallow the next record.
                if chain.size > 0 && tail_of(&current).is_ok_and(|t| t.is_some_and(|t| !t.2)) {
                    let _ = f.write_all(b"\n");
                    chain.size += 1;
                }
                chain.file = Some(f);
            }
            Err(e) => {
                tracing::error!(file = %current.display(), error = %e, "cannot open the audit log");
                chain.failing = true;
            }
        }
        AuditLog {
            dir,
            key,
            log_reads,
            chain: Mutex::new(chain),
            reads: Mutex::new(BTreeMap::new()),
        }
    }

    /// The audit directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether successful reads are recorded (`--audit-reads`), not only counted.
    pub fn logs_reads(&self) -> bool {
        self.log_reads
    }

    /// The fingerprint of a presented credential: the first [`AUDIT_FINGERPRINT_HEX`] hex
    /// digits of SHA-256(key ‖ 0x00 ‖ token). Stable across restarts (the key is kept); tells
    /// clients apart without the token (and without a way to test guesses of it, unless one
    /// also has the key).
    pub fn fingerprint(&self, token: &[u8]) -> String {
        let mut h = Sha256::new();
        h.update(self.key);
        h.update([0u8]);
        h.update(token);
        let mut s = hex(&h.finalize());
        s.truncate(AUDIT_FINGERPRINT_HEX);
        s
    }

    /// Starts recording a call of `op` by `caller` with `body`; the record is written by
    /// [`Pending::answered`] / [`Pending::refused`], or with [`CANCELLED`] when the pending
    /// call is dropped first. `secrets` redacts the summary ([`summarize`]).
    pub fn begin(
        &self,
        op: &'static str,
        read: bool,
        caller: &Caller,
        body: Option<&Fields>,
        secrets: &Redactor,
    ) -> Pending<'_> {
        Pending {
            log: self,
            read,
            entry: Some(Entry {
                op: Some(op),
                caller: caller.clone(),
                window: body.and_then(|f| crate::ground::fields::id(f).ok()),
                args: body.map(|f| summarize(f, secrets)),
                status: CANCELLED_STATUS,
                error: Some(CANCELLED),
                started_ms: now_ms(),
                duration_ms: 0,
            }),
            started: Instant::now(),
        }
    }

    /// Records a refusal that came before any operation ran (the ladder, the endpoint's
    /// origin check).
    pub fn refused_early(&self, op: Option<&'static str>, caller: Caller, refusal: &Refusal) {
        self.append(Entry {
            op,
            caller,
            window: None,
            args: None,
            status: refusal.status().as_u16(),
            error: Some(refusal.code()),
            started_ms: now_ms(),
            duration_ms: 0,
        });
    }

    /// Records input a page sent to the program of window `window`, from `author`: its own
    /// agent's (op `page_agent_input`, args `{tool, data, data_bytes}`, the text redacted and
    /// cut as every summary), or, for the person, only that they submitted a line (op
    /// `person_submit`, no args: a person's keys never reach a record or any file). Other
    /// input of the person records nothing.
    /// `secrets` is asked only for an agent's input (a person's keys pass here one by one).
    pub fn page_input(
        &self,
        window: u64,
        author: &Author,
        bytes: &[u8],
        secrets: impl FnOnce() -> Redactor,
    ) {
        let (op, args) = if author.is_agent() {
            let mut f = Fields::new();
            f.insert("tool".into(), Value::from(author.name.as_str()));
            f.insert("data".into(), Value::from(String::from_utf8_lossy(bytes)));
            ("page_agent_input", Some(summarize(&f, &secrets())))
        } else if turns::submits(bytes) {
            ("person_submit", None)
        } else {
            return;
        };
        self.append(Entry {
            op: Some(op),
            caller: Caller {
                via: Via::Page,
                client: author.is_agent().then(|| author.name.clone()),
                ..Caller::default()
            },
            window: Some(window),
            args,
            status: 200,
            error: None,
            started_ms: now_ms(),
            duration_ms: 0,
        });
    }

    /// Records a tool call the MCP endpoint refused itself, before any operation ran (its
    /// arguments fail the tool's schema, a malformed window id, an unknown host or tool): status
    /// 400 and the endpoint's own `code` (`bad_arguments`, `malformed_id`, ...).
    pub fn refused_by_tool_front(
        &self,
        op: Option<&'static str>,
        caller: Caller,
        args: Option<&Fields>,
        code: &'static str,
        secrets: &Redactor,
    ) {
        self.append(Entry {
            op,
            caller,
            window: None,
            args: args.map(|f| summarize(f, secrets)),
            status: 400,
            error: Some(code),
            started_ms: now_ms(),
            duration_ms: 0,
        });
    }

    fn count_read(&self, window: Option<u64>, at: u64) {
        let mut reads = self.reads.lock().unwrap_or_else(|e| e.into_inner());
        let c = reads.entry(window).or_default();
        c.count += 1;
        c.last_ms = at;
    }

    /// Successful reads so far, by window (`None`: reads of no window, such as listings).
    pub fn read_counts(&self) -> Vec<(Option<u64>, ReadCount)> {
        let reads = self.reads.lock().unwrap_or_else(|e| e.into_inner());
        reads.iter().map(|(k, v)| (*k, *v)).collect()
    }

    /// The last record's seq (0 when there is none).
    pub fn last_seq(&self) -> u64 {
        self.chain.lock().unwrap_or_else(|e| e.into_inner()).seq
    }

    /// Appends `entry` as the next record of the chain: one `write(2)`, rotating first when the
    /// line would take the current file past [`AUDIT_FILE_MAX_BYTES`]. Returns its seq.
    pub fn append(&self, entry: Entry) -> u64 {
        let mut chain = self.chain.lock().unwrap_or_else(|e| e.into_inner());
        let seq = chain.seq + 1;
        let (line, hash) = seal(&entry.body(seq, &chain.last));
        if chain.size > 0 && chain.size + line.len() as u64 > AUDIT_FILE_MAX_BYTES {
            if let Err(e) = self.rotate(&mut chain) {
                tracing::error!(error = %e, "cannot rotate the audit log");
            }
        }
        let written = match chain.file.as_mut() {
            Some(f) => f.write_all(line.as_bytes()),
            None => Err(io::Error::other("the audit log is not open")),
        };
        match written {
            Ok(()) => {
                chain.size += line.len() as u64;
                chain.failing = false;
            }
            Err(e) => {
                if !chain.failing {
                    tracing::error!(error = %e, seq, "cannot write the audit log; records are lost until it works again");
                }
                chain.failing = true;
            }
        }
        // The chain runs on even past a lost record, so verify names the gap.
        chain.seq = seq;
        chain.last = hash;
        seq
    }

    fn rotate(&self, chain: &mut Chain) -> io::Result<()> {
        chain.file = None;
        let _ = std::fs::remove_file(rotated_name(&self.dir, AUDIT_KEEP_FILES));
        for n in (1..AUDIT_KEEP_FILES).rev() {
            let from = rotated_name(&self.dir, n);
            if from.exists() {
                std::fs::rename(&from, rotated_name(&self.dir, n + 1))?;
            }
        }
        std::fs::rename(self.dir.join(CURRENT_FILE), rotated_name(&self.dir, 1))?;
        chain.file = Some(open_append(&self.dir.join(CURRENT_FILE))?);
        chain.size = 0;
        Ok(())
    }
}

/// Records of the audit directory `dir`, oldest first, that pass `filter`, at most
/// `filter.limit` (blocking file reads: call it off the async runtime). Lines that do not
/// parse are skipped (`audit verify` reports them).
pub fn query_dir(dir: &Path, filter: &Filter) -> io::Result<Vec<Value>> {
    let mut out = Vec::new();
    for path in files(dir) {
        // A rotated file holds older records only; skip it whole when its last is too old.
        if let (Some(since), Ok(Some((last, _, _)))) = (filter.since, tail_of(&path)) {
            if last <= since {
                continue;
            }
        }
        let text = std::fs::read_to_string(&path)?;
        for line in text.lines() {
            if line.len() > MAX_AUDIT_LINE_BYTES {
                continue;
            }
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if filter.matches(&v) {
                out.push(v);
                if out.len() >= filter.limit {
                    return Ok(out);
                }
            }
        }
    }
    Ok(out)
}

/// What `GET /mcp/audit` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// Only records of this window.
    pub window: Option<u64>,
    /// Only records with a greater `seq`.
    pub since: Option<u64>,
    /// Only records with a greater `ms` (epoch milliseconds).
    pub since_ms: Option<u64>,
    /// At most this many records.
    pub limit: usize,
}

impl Filter {
    fn matches(&self, v: &Value) -> bool {
        let n = |k: &str| v[k].as_u64();
        self.window.is_none_or(|w| n("window") == Some(w))
            && self.since.is_none_or(|s| n("seq").is_some_and(|q| q > s))
            && self.since_ms.is_none_or(|s| n("ms").is_some_and(|m| m > s))
    }
}

fn load_or_mint_key(path: &Path) -> [u8; 32] {
    let parse = |text: &str| -> Option<[u8; 32]> {
        let t = text.trim();
        if t.len() != 64 {
            return None;
        }
        let mut key = [0u8; 32];
        for (i, k) in key.iter_mut().enumerate() {
            *k = u8::from_str_radix(t.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(key)
    };
    if let Some(key) = std::fs::read_to_string(path)
        .ok()
        .as_deref()
        .and_then(parse)
    {
        return key;
    }
    let mut key = [0u8; 32];
    if getrandom::fill(&mut key).is_err() {
        // No OS randomness: fingerprints are then unkeyed hashes of this run only.
        tracing::error!("no OS randomness for the audit key");
    }
    if let Err(e) = write_private_atomic(path, hex(&key).as_bytes()) {
        tracing::warn!(file = %path.display(), error = %e, "cannot save the audit key; fingerprints change on restart");
    }
    key
}

/// A call being recorded (see [`AuditLog::begin`]).
#[derive(Debug)]
pub struct Pending<'a> {
    log: &'a AuditLog,
    read: bool,
    entry: Option<Entry>,
    started: Instant,
}

impl Pending<'_> {
    /// The call answered; `window` names the window it made when its fields named none (a
    /// launch).
    pub fn answered(mut self, window: Option<u64>) {
        if let Some(mut e) = self.entry.take() {
            e.status = 200;
            e.error = None;
            e.window = e.window.or(window);
            e.duration_ms = self.started.elapsed().as_millis() as u64;
            if self.read && !self.log.log_reads {
                self.log.count_read(e.window, e.started_ms);
            } else {
                if self.read {
                    self.log.count_read(e.window, e.started_ms);
                }
                self.log.append(e);
            }
        }
    }

    /// The call was refused.
    pub fn refused(mut self, refusal: &Refusal) {
        if let Some(mut e) = self.entry.take() {
            e.status = refusal.status().as_u16();
            e.error = Some(refusal.code());
            e.duration_ms = self.started.elapsed().as_millis() as u64;
            self.log.append(e);
        }
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if let Some(mut e) = self.entry.take() {
            e.duration_ms = self.started.elapsed().as_millis() as u64;
            self.log.append(e);
        }
    }
}

/// What `audit verify` found wrong, at the first bad record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The file.
    pub file: PathBuf,
    /// The line, counted from 1.
    pub line: usize,
    /// The record's seq, when it has one.
    pub seq: Option<u64>,
    /// What is wrong: starts with `edited`, `missing`, `reordered` or `damaged`.
    pub what: String,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} line {}", self.file.display(), self.line)?;
        if let Some(seq) = self.seq {
            write!(f, " (seq {seq})")?;
        }
        write!(f, ": {}", self.what)
    }
}

/// What `audit verify` found when the chain holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// Records checked.
    pub records: u64,
    /// Files checked.
    pub files: usize,
    /// The first record's seq (more than 1 when older files were rotated away).
    pub first_seq: Option<u64>,
}

/// Checks the chain across `files`, in the order given (oldest first): each line parses, its
/// `hash` matches its contents, its `seq` is one more than the record before (a larger one is
/// a removed record, unless the expected seq comes later: reordered), and its `prev` is the
/// hash of the record before (the first record of all may start later than seq 1 only when
/// older files were rotated away; seq 1 must chain to [`GENESIS`]).
pub fn verify(files: &[PathBuf]) -> Result<Verified, Fault> {
    let mut records = 0u64;
    let mut last: Option<(u64, String)> = None;
    let mut first_seq = None;
    for (fi, path) in files.iter().enumerate() {
        let fault = |line: usize, seq: Option<u64>, what: String| Fault {
            file: path.clone(),
            line,
            seq,
            what,
        };
        let bytes = std::fs::read(path)
            .map_err(|e| fault(0, None, format!("damaged: cannot read the file: {e}")))?;
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.split_terminator('\n').collect();
        // Every seq in this and later files, for telling "removed" from "reordered".
        let later_seqs = |from_line: usize| -> Vec<u64> {
            let mut seqs: Vec<u64> = lines[from_line..]
                .iter()
                .filter_map(|l| seq_of(l))
                .collect();
            for p in &files[fi + 1..] {
                if let Ok(t) = std::fs::read_to_string(p) {
                    seqs.extend(t.lines().filter_map(seq_of));
                }
            }
            seqs
        };
        for (i, line) in lines.iter().enumerate() {
            let n = i + 1;
            if i + 1 == lines.len() && !bytes.ends_with(b"\n") {
                return Err(fault(
                    n,
                    seq_of(line),
                    "damaged: the last record is torn (no newline at its end)".into(),
                ));
            }
            if line.is_empty() {
                return Err(fault(n, None, "damaged: an empty line".into()));
            }
            let Some((body, hash)) = unseal(line) else {
                return Err(fault(
                    n,
                    seq_of(line),
                    "damaged: not a record (no \"hash\" at its end)".into(),
                ));
            };
            let Some(v) = serde_json::from_str::<Value>(&body)
                .ok()
                .filter(Value::is_object)
            else {
                return Err(fault(n, None, "damaged: not JSON".into()));
            };
            let seq = v["seq"].as_u64();
            if sha256_hex(body.as_bytes()) != hash {
                return Err(fault(
                    n,
                    seq,
                    "edited: its hash does not match its contents".into(),
                ));
            }
            let Some(seq) = seq else {
                return Err(fault(n, None, "damaged: no seq".into()));
            };
            let prev = v["prev"].as_str().unwrap_or("");
            match &last {
                None => {
                    if seq == 1 && prev != GENESIS {
                        return Err(fault(
                            n,
                            Some(seq),
                            "edited: the first record's prev is not the start of a chain".into(),
                        ));
                    }
                    first_seq = Some(seq);
                }
                Some((last_seq, last_hash)) => {
                    let want = last_seq + 1;
                    if seq > want {
                        let what = if later_seqs(i + 1).contains(&want) {
                            format!("reordered: seq {seq} comes before seq {want}")
                        } else if seq == want + 1 {
                            format!("missing: the record with seq {want} before it was removed")
                        } else {
                            format!(
                                "missing: the records with seq {want}..{} before it were removed",
                                seq - 1
                            )
                        };
                        return Err(fault(n, Some(seq), what));
                    }
                    if seq < want {
                        return Err(fault(
                            n,
                            Some(seq),
                            format!("reordered: seq {seq} comes after seq {last_seq}"),
                        ));
                    }
                    if prev != last_hash {
                        return Err(fault(n, Some(seq), "edited: its prev is not the hash of the record before it (that record was rewritten, or this one replaced)".into()));
                    }
                }
            }
            records += 1;
            last = Some((seq, hash.to_owned()));
        }
    }
    Ok(Verified {
        records,
        files: files.len(),
        first_seq,
    })
}

fn seq_of(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("{\"seq\":")?;
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    rest[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(1_735_787_045_678), "2025-01-02T03:04:05.678Z");
        assert_eq!(rfc3339(4_107_542_399_999), "2100-02-28T23:59:59.999Z");
    }

    #[test]
    fn summaries_are_bounded_and_redacted() {
        let f = json!({"id": 3, "data": "x".repeat(1000), "handle": "s3cret", "keys": (0..40).map(|i| i.to_string()).collect::<Vec<_>>(), "timeout_ms": 5});
        let s = summarize(f.as_object().unwrap(), &Redactor::new());
        assert_eq!(s["data_bytes"], 1000);
        assert!(s["data"].as_str().unwrap().len() <= AUDIT_ARG_TEXT_BYTES + 3);
        assert_eq!(s["handle"], "[redacted]");
        assert_eq!(s["keys_count"], 40);
        assert_eq!(s["keys"].as_array().unwrap().len(), AUDIT_ARG_LIST_ITEMS);
        assert_eq!(s.get("id"), None);
        assert!(!s.to_string().contains("s3cret"));
        let many: Map<String, Value> = (0..100)
            .map(|i| (format!("f{i:03}"), Value::from("y".repeat(100))))
            .collect();
        let s = summarize(&many, &Redactor::new());
        assert!(
            s.to_string().len() <= AUDIT_ARGS_MAX_BYTES,
            "{}",
            s.to_string().len()
        );
        assert!(s["_omitted"].as_u64().unwrap() > 0);
    }

    fn entry(i: u64) -> Entry {
        Entry {
            op: Some("send_input"),
            caller: Caller::default(),
            window: Some(i % 3),
            args: Some(json!({"data": "ls\r", "data_bytes": 3})),
            status: 200,
            error: None,
            started_ms: now_ms(),
            duration_ms: 1,
        }
    }

    #[test]
    fn the_chain_verifies_resumes_and_names_edits_removals_and_reorders() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::open(dir.path(), false);
        for i in 0..5 {
            log.append(entry(i));
        }
        drop(log);
        let log = AuditLog::open(dir.path(), false);
        assert_eq!(log.last_seq(), 5);
        log.append(entry(5));
        let fs = files(log.dir());
        assert_eq!(verify(&fs).unwrap().records, 6);
        let path = log.dir().join(CURRENT_FILE);
        let good = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = good.lines().collect();
        let check = |text: String| {
            std::fs::write(&path, text).unwrap();
            verify(&fs).unwrap_err()
        };
        let edited = check(good.replacen("ls\\r", "rm\\r", 1));
        assert_eq!((edited.line, edited.seq), (1, Some(1)));
        assert!(edited.what.starts_with("edited"), "{edited}");
        let mut removed = lines.clone();
        removed.remove(2);
        let f = check(removed.join("\n") + "\n");
        assert_eq!((f.line, f.seq), (3, Some(4)));
        assert!(f.what.starts_with("missing"), "{f}");
        let mut swapped = lines.clone();
        swapped.swap(2, 3);
        let f = check(swapped.join("\n") + "\n");
        assert_eq!((f.line, f.seq), (3, Some(4)));
        assert!(f.what.starts_with("reordered"), "{f}");
        std::fs::write(&path, &good).unwrap();
        assert!(verify(&fs).is_ok());
    }

    #[test]
    fn rotation_keeps_the_chain() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::open(dir.path(), false);
        {
            let mut c = log.chain.lock().unwrap();
            // Pretend the current file is full.
            c.size = AUDIT_FILE_MAX_BYTES;
        }
        log.append(entry(0));
        log.append(entry(1));
        {
            let mut c = log.chain.lock().unwrap();
            c.size = AUDIT_FILE_MAX_BYTES;
        }
        log.append(entry(2));
        let fs = files(log.dir());
        assert_eq!(fs.len(), 3, "{fs:?}");
        assert_eq!(verify(&fs).unwrap().records, 3);
        let mode = std::fs::metadata(&fs[2]).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    /// The cost of one record: prints the median append time and the bytes per record.
    #[test]
    fn append_cost() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::open(dir.path(), false);
        let mut times = Vec::with_capacity(10_000);
        for i in 0..10_000 {
            let e = entry(i);
            let t = Instant::now();
            log.append(e);
            times.push(t.elapsed());
        }
        times.sort();
        let bytes = std::fs::metadata(log.dir().join(CURRENT_FILE))
            .unwrap()
            .len();
        eprintln!(
            "audit append: median {:?}, p99 {:?} over 10000; {} bytes per record",
            times[5000],
            times[9900],
            bytes / 10_000
        );
    }
}

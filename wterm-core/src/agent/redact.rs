//! Secrets kept out of what an agent reads: values of a documented set of kinds ([`KINDS`])
//! are replaced by `[redacted:KIND]`, and a [`Report`] says how many and of which kinds.
//!
//! Source: wterm's redaction rule for agent reads (each kind's shape is in [`KINDS`]; the
//! prefixes are the ones the providers publish for their credentials). Shapes are checked,
//! not entropy: a fake of the right shape (docs, tests) is redacted, and a secret in none of
//! the shapes is not found.
//!
//! - One pass over the bytes, 8 at a time: only anchor bytes are looked at closer (`=` and
//!   `:` of assignments and URLs, `-`, `_`, `A`, `J`, `B`/`b` of token prefixes), and most of them only as far as the bytes next to them. Registered literals
//!   take one substring search each. Text with nothing to redact is returned borrowed, and
//!   nothing is allocated for it.
//! - Where matches overlap or touch they become one redaction, so no part of a secret is
//!   left. Its kind is the most specific one among them: a provider's token shape or a
//!   literal, then `url_password` and `bearer`, then `secret_assignment` (so
//!   `GITHUB_TOKEN=ghp_…` reports `github_token`, and `Bearer eyJ…` reports `jwt`).
//! - Tokens need a word start (the byte before is not `[A-Za-z0-9_]`) and take the whole run
//!   of their characters once the minimum is met, so a longer token is redacted whole.
//! - Assignment values the allowlist calls placeholders are kept (see [`KINDS`],
//!   `secret_assignment`); a marker is one, so a second pass leaves markers whole.
//! - Positions are byte offsets that always fall on ASCII bytes, so a cut never splits a
//!   UTF-8 character.

use std::borrow::Cow;

use crate::{CommandOutput, Frame, Terminal, TextRow};

const PRIVATE_KEY: &str = "private_key";
const AWS_ACCESS_KEY: &str = "aws_access_key";
const AWS_SECRET_KEY: &str = "aws_secret_key";
const GITHUB_TOKEN: &str = "github_token";
const GITLAB_TOKEN: &str = "gitlab_token";
const SLACK_TOKEN: &str = "slack_token";
const SLACK_WEBHOOK: &str = "slack_webhook";
const ANTHROPIC_KEY: &str = "anthropic_key";
const OPENAI_KEY: &str = "openai_key";
const GOOGLE_API_KEY: &str = "google_api_key";
const STRIPE_KEY: &str = "stripe_key";
const JWT: &str = "jwt";
const URL_PASSWORD: &str = "url_password";
const BEARER: &str = "bearer";
const SECRET_ASSIGNMENT: &str = "secret_assignment";

/// The kind name for the relay's own tokens (43 characters of URL-safe base64, no prefix),
/// registered with [`Redactor::with_literal`].
pub const RELAY_TOKEN: &str = "relay_token";

/// What stands in for a secret: this, the kind name, then `]`.
pub const MARKER_PREFIX: &str = "[redacted:";

/// Shortest literal [`Redactor::with_literal`] keeps, in bytes: a shorter one would redact
/// ordinary words.
pub const MIN_LITERAL_BYTES: usize = 8;

/// Longest assignment name looked at, in bytes: of a longer run, its end (bounds the work).
const MAX_NAME_BYTES: usize = 64;
/// Longest PEM label (`RSA PRIVATE KEY`), in bytes.
const MAX_PEM_LABEL_BYTES: usize = 64;
/// Longest URL userinfo (`user:password`) looked at, in bytes.
const MAX_USERINFO_BYTES: usize = 256;
/// AWS access key id characters after the 4-byte prefix, exactly.
const AWS_KEY_ID_BODY: usize = 16;
/// AWS secret access key length, in bytes, exactly.
const AWS_SECRET_BYTES: usize = 40;
/// Fewest characters after each prefix, in bytes.
const GITHUB_TOKEN_MIN: usize = 36;
const GITHUB_PAT_MIN: usize = 82;
const GITLAB_TOKEN_MIN: usize = 20;
const SLACK_TOKEN_MIN: usize = 10;
const SLACK_WEBHOOK_MIN: usize = 10;
const OPENAI_KEY_MIN: usize = 20;
const ANTHROPIC_KEY_MIN: usize = 20;
const GOOGLE_API_KEY_MIN: usize = 35;
const STRIPE_KEY_MIN: usize = 16;
/// Fewest bytes in each of a JWT's first two segments (each starts `eyJ`, a JSON object).
const JWT_SEGMENT_MIN: usize = 10;
/// Fewest bytes of a bearer credential; one of letters only needs [`BEARER_WORD_MIN`]
/// (so prose like "the Bearer scheme" is kept).
const BEARER_MIN: usize = 8;
const BEARER_WORD_MIN: usize = 16;

/// Every kind [`Redactor`] reports besides caller-named literals: (kind name, its rule).
pub const KINDS: &[(&str, &str)] = &[
    (
        PRIVATE_KEY,
        "PEM private key: `-----BEGIN <label>-----` whose label contains `PRIVATE KEY` (RSA, EC, \
         DSA, OPENSSH, ENCRYPTED, PGP, plain) through the next `-----END <label>-----`, or to the \
         end of the text when that is missing (cut output)",
    ),
    (
        AWS_ACCESS_KEY,
        "AWS access key id: `AKIA`, `ASIA`, `ABIA` or `ACCA` then exactly 16 of [A-Z0-9], a whole \
         word",
    ),
    (
        AWS_SECRET_KEY,
        "AWS secret access key: exactly 40 of [A-Za-z0-9/+] assigned to a name ending \
         `aws_secret_access_key` (any case, `=` or `:`, quoted or not)",
    ),
    (
        GITHUB_TOKEN,
        "GitHub token: `ghp_`, `gho_`, `ghu_`, `ghs_` or `ghr_` then 36 or more [A-Za-z0-9]; \
         `github_pat_` then 82 or more [A-Za-z0-9_]",
    ),
    (GITLAB_TOKEN, "GitLab personal access token: `glpat-` then 20 or more [A-Za-z0-9_-]"),
    (
        SLACK_TOKEN,
        "Slack token: `xoxb-`, `xoxp-`, `xoxa-`, `xoxr-` or `xoxs-` then 10 or more [A-Za-z0-9-]",
    ),
    (
        SLACK_WEBHOOK,
        "Slack incoming webhook: the path after `https://hooks.slack.com/services/`, 10 or more \
         [A-Za-z0-9/_-]",
    ),
    (ANTHROPIC_KEY, "Anthropic API key: `sk-ant-` then 20 or more [A-Za-z0-9_-]"),
    (
        OPENAI_KEY,
        "OpenAI API key: `sk-` (also `sk-proj-`) then 20 or more [A-Za-z0-9_-]",
    ),
    (GOOGLE_API_KEY, "Google API key: `AIza` then 35 or more [A-Za-z0-9_-]"),
    (
        STRIPE_KEY,
        "Stripe secret or restricted key: `sk_live_`, `sk_test_`, `rk_live_` or `rk_test_` then \
         16 or more [A-Za-z0-9]",
    ),
    (
        JWT,
        "JSON Web Token (RFC 7519): two base64url segments of 10 or more bytes, each starting \
         `eyJ`, then `.` and the signature segment (may be empty), dots included",
    ),
    (
        URL_PASSWORD,
        "password in a URL's userinfo (RFC 3986): `scheme://user:PASSWORD@host`, the password only",
    ),
    (
        BEARER,
        "bearer credential (RFC 6750): after the word `Bearer` (any case) and blanks, 8 or more \
         token68 characters [A-Za-z0-9-._~+/] and trailing `=` (16 or more if letters only); the \
         word is kept",
    ),
    (
        SECRET_ASSIGNMENT,
        "value of `NAME=value`, `NAME = value`, `NAME: value`, `\"NAME\": \"value\"` (also \
         `export NAME=`, `--name=`, `:=`) whose NAME ([A-Za-z0-9_.-], its last 64 bytes, not after \
         `/` or `\\`) ends with TOKEN or `_KEY`/camelCase `Key`, or contains PASSWORD, PASSWD, \
         PASSPHRASE, SECRET, APIKEY, ACCESSKEY, PRIVATEKEY, CREDENTIAL or AUTH (not AUTHOR, but \
         AUTHORIZATION), any case, `_`/`-`/`.` ignored; the value runs to whitespace or a quote, \
         or to the closing quote (or line end) when quoted, and after an auth scheme (`Bearer`, `Basic`, \
         `Token`) the credential is the value. Kept: empty values, all `*`, all `x`, all `.`, \
         `<...>`, `{{...}}`, `$VAR`, `${...}`, `$(...)`, a value holding an earlier marker, the words \
         changeme, null, none, nil, undefined, true, false, and unquoted values that open `{` or \
         `[` (nested data) or contain `(` (a call in code, not a literal)",
    ),
    (
        RELAY_TOKEN,
        "a literal the adapter registered (Redactor::with_literal), such as the relay's own tokens; \
         callers may give literals other kind names",
    ),
];

/// Each byte's low bit, and each byte's high bit, of a block of 8 bytes.
const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The bytes of an 8-byte block where a match may be anchored, as their high bits: `=` and
/// `:` (assignments, URLs; `;` and `<` come along), `-` (`-----BEGIN`, `glpat-`, `xoxb-`,
/// `sk-`), `_` (`ghp_`, `github_pat_`, `sk_live_`), `A` (`AKIA`, `AIza`), `J` (`eyJ`), `B`/`b`
/// (`Bearer`). Word at a time (SWAR): other text costs a few operations per 8 bytes, and
/// common letters are no anchors (a token is found from its `_`, `-` or `J`).
fn anchors(x: u64) -> u64 {
    let low7 = x & !HIGH;
    let from_colon = low7 + LOW * u64::from(0x80 - b':');
    let past_equals = low7 + LOW * u64::from(0x7f - b'=');
    (from_colon & !past_equals & !x & HIGH)
        | equal(x, b'-')
        | equal(x, b'_')
        | equal(x, b'A')
        | equal(x, b'J')
        | equal(x | (LOW * 0x20), b'b')
}

/// The bytes of `x` equal to `c`, as their high bits.
fn equal(x: u64, c: u8) -> u64 {
    let t = x ^ (LOW * u64::from(c));
    !(((t & !HIGH) + !HIGH) | t) & HIGH
}

/// Letters (as bits of `byte & 31`) each secret name has all of, one set per rule: a name
/// without all of one set is not looked at closer (most `key=value` in logs).
const NAME_LETTERS: [u32; 6] = [
    letters(b"TOKEN"),
    letters(b"KEY"),
    letters(b"PAS"),
    letters(b"SECRET"),
    letters(b"CREDENTIAL"),
    letters(b"AUTH"),
];

const fn letters(w: &[u8]) -> u32 {
    let (mut m, mut k) = (0, 0);
    while k < w.len() {
        m |= 1 << (w[k] & 31);
        k += 1;
    }
    m
}

/// How generic a match is: on overlap the lowest wins the reported kind.
const SPECIFIC: u8 = 0;
const SCHEME: u8 = 1;
const ASSIGNMENT: u8 = 2;

/// A byte range of the scanned text to replace.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    kind: &'static str,
    rank: u8,
}

/// Finds and replaces secrets; holds the literals the adapter registered. Cheap to build;
/// `Debug` never prints the literals.
#[derive(Clone, Default)]
pub struct Redactor {
    literals: Vec<(String, &'static str)>,
}

impl core::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Redactor")
            .field("literals", &self.literals.len())
            .finish()
    }
}

/// Text with its secrets replaced ([`Redactor::text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted<'a> {
    /// Borrowed when nothing was redacted.
    pub text: Cow<'a, str>,
    /// What was replaced.
    pub report: Report,
}

/// What a redaction replaced.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Markers written: one per merged match.
    pub count: usize,
    /// The kinds of those markers, each once, in the order first written.
    pub kinds: Vec<&'static str>,
}

impl Report {
    /// Adds `other`'s markers and kinds (each kind once) to these.
    pub fn add(&mut self, other: &Report) {
        self.count += other.count;
        for k in &other.kinds {
            if !self.kinds.contains(k) {
                self.kinds.push(k);
            }
        }
    }
}

impl Redactor {
    /// A redactor of the built-in [`KINDS`], without literals.
    pub fn new() -> Self {
        Self::default()
    }

    /// This redactor also replacing every occurrence of `value` (exact bytes, anywhere) by
    /// `[redacted:KIND]` ([`RELAY_TOKEN`] for the relay's tokens). See [`Self::add_literal`].
    pub fn with_literal(mut self, value: &str, kind: &'static str) -> Self {
        self.add_literal(value, kind);
        self
    }

    /// Registers a literal, as [`Self::with_literal`]; false (ignored) when it is shorter than
    /// [`MIN_LITERAL_BYTES`], holds a line break (a literal is matched within a line), or is
    /// already registered. Each literal costs one substring search per redaction.
    pub fn add_literal(&mut self, value: &str, kind: &'static str) -> bool {
        if value.len() < MIN_LITERAL_BYTES
            || value.contains(['\n', '\r'])
            || self.literals.iter().any(|(v, _)| v == value)
        {
            return false;
        }
        self.literals.push((value.to_owned(), kind));
        true
    }

    /// `text` with its secrets replaced, and what was replaced.
    pub fn text<'a>(&self, text: &'a str) -> Redacted<'a> {
        let spans = self.spans(text);
        if spans.is_empty() {
            return Redacted {
                text: Cow::Borrowed(text),
                report: Report::default(),
            };
        }
        let mut out = String::with_capacity(text.len());
        let mut pos = 0;
        for sp in &spans {
            out.push_str(&text[pos..sp.start]);
            marker(&mut out, sp.kind);
            pos = sp.end;
        }
        out.push_str(&text[pos..]);
        Redacted {
            text: Cow::Owned(out),
            report: report(&spans),
        }
    }

    /// Redacts the rows of a screen or history read in place. Rows are matched as
    /// [`crate::join_for_search`] joins them: a soft-wrapped row (`wrapped`) runs straight
    /// into the next, other rows are separated by `\n`. So a secret split by a wrap is found,
    /// a token is never joined across a hard line break, and a PEM block may span rows. The
    /// marker goes in the row where a match starts and the rest of the match is removed from
    /// the rows it covers; rows keep their count and `wrapped` flags.
    pub fn rows(&self, rows: &mut [TextRow]) -> Report {
        let joined = join_rows_for_search(rows);
        let spans = self.spans(&joined);
        if spans.is_empty() {
            return Report::default();
        }
        apply_to_rows(&joined, &spans, rows);
        report(&spans)
    }

    /// [`Self::rows`] on a copy: `None` (nothing copied) when there is nothing to redact.
    pub fn rows_copied(&self, rows: &[TextRow]) -> Option<(Vec<TextRow>, Report)> {
        let joined = join_rows_for_search(rows);
        let spans = self.spans(&joined);
        if spans.is_empty() {
            return None;
        }
        let mut out = rows.to_vec();
        apply_to_rows(&joined, &spans, &mut out);
        Some((out, report(&spans)))
    }

    /// `frame`, read from `t` with nothing fed since, as an agent may read it: its rows
    /// redacted ([`Self::rows`]), and its text and both hashes computed from them, so neither
    /// the text nor a hash (which a guess could be checked against) carries a secret. `None`
    /// when there is nothing to redact: `frame` is the answer as it is.
    pub fn frame(&self, t: &Terminal, frame: &Frame) -> Option<(Frame, Report)> {
        let (rows, report) = self.rows_copied(&frame.rows)?;
        let cursor_row = frame.cursor.map(|(r, _)| {
            let mut marked = frame.rows.clone();
            marked[r] = t.cursor_row_with_nul();
            self.rows(&mut marked);
            (r, marked.swap_remove(r))
        });
        Some((frame.with_rows(rows, cursor_row), report))
    }

    /// A command's output ([`crate::agent::command_output`]) with its head and its tail
    /// redacted (each on its own: the rows between them are left out).
    pub fn command_output(&self, mut out: CommandOutput) -> (CommandOutput, Report) {
        let mut report = Report::default();
        for s in [&mut out.text, &mut out.tail] {
            report.add(&self.string(s));
        }
        (out, report)
    }

    /// `text` redacted in place; what was replaced.
    pub fn string(&self, text: &mut String) -> Report {
        let r = self.text(text);
        let (owned, report) = match r.text {
            Cow::Owned(t) => (Some(t), r.report),
            Cow::Borrowed(_) => (None, Report::default()),
        };
        if let Some(t) = owned {
            *text = t;
        }
        report
    }

    /// The matches in `s`, sorted and merged.
    fn spans(&self, s: &str) -> Vec<Span> {
        let b = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        // Whole blocks, then the last few bytes padded with zeros (no anchor).
        while let Some(w) = b.get(i..i + 8) {
            match anchors(<[u8; 8]>::try_from(w).map_or(0, u64::from_le_bytes)) {
                0 => i += 8,
                m => i = anchored_in(s, i, m, &mut out),
            }
        }
        while i < b.len() {
            let mut w = [0u8; 8];
            w[..b.len() - i].copy_from_slice(&b[i..]);
            i = anchored_in(s, i, anchors(u64::from_le_bytes(w)), &mut out);
        }
        for (lit, kind) in &self.literals {
            // Overlapping occurrences too, so none is left partly shown.
            let step = lit.chars().next().map_or(1, char::len_utf8);
            let mut from = 0;
            while let Some(k) = s[from..].find(lit.as_str()) {
                out.push(Span {
                    start: from + k,
                    end: from + k + lit.len(),
                    kind,
                    rank: SPECIFIC,
                });
                from += k + step;
            }
        }
        out.sort_by_key(|sp| sp.start);
        out.dedup_by(|next, kept| {
            let touch = next.start <= kept.end;
            if touch {
                kept.end = kept.end.max(next.end);
                if next.rank < kept.rank {
                    kept.kind = next.kind;
                    kept.rank = next.rank;
                }
            }
            touch
        });
        out
    }
}

/// Rows as [`crate::join_for_search`] joins them: a soft-wrapped row runs into the next.
fn join_rows_for_search(rows: &[TextRow]) -> String {
    let mut joined = String::with_capacity(rows.iter().map(|r| r.text.len() + 1).sum());
    for (k, r) in rows.iter().enumerate() {
        joined.push_str(&r.text);
        if !r.wrapped && k + 1 < rows.len() {
            joined.push('\n');
        }
    }
    joined
}

/// Writes the markers of `spans` (over `joined`, from [`join_rows_for_search`] of `rows`) into
/// `rows`: each in the row where its match starts, the rest of the match removed.
fn apply_to_rows(joined: &str, spans: &[Span], rows: &mut [TextRow]) {
    let (mut k, mut rs) = (0, 0);
    for r in rows.iter_mut() {
        let re = rs + r.text.len();
        let next = re + usize::from(!r.wrapped);
        while spans.get(k).is_some_and(|sp| sp.end <= rs) {
            k += 1;
        }
        if k == spans.len() {
            break;
        }
        if spans[k].start < re {
            let mut text = String::new();
            let mut pos = rs;
            for sp in spans[k..].iter().take_while(|sp| sp.start < re) {
                if sp.start >= pos {
                    text.push_str(&joined[pos..sp.start]);
                    marker(&mut text, sp.kind);
                }
                pos = sp.end.min(re);
            }
            text.push_str(&joined[pos..re]);
            r.text = text;
        }
        rs = next;
    }
}

fn marker(out: &mut String, kind: &str) {
    out.push_str(MARKER_PREFIX);
    out.push_str(kind);
    out.push(']');
}

fn report(spans: &[Span]) -> Report {
    let mut kinds = Vec::new();
    for sp in spans {
        if !kinds.contains(&sp.kind) {
            kinds.push(sp.kind);
        }
    }
    Report {
        count: spans.len(),
        kinds,
    }
}

/// Whether `c` is in an ASCII set given as one bit per byte value (`[low 64, high 64]`).
fn is_in(set: [u64; 2], c: u8) -> bool {
    (c < 128) & (set[usize::from(c >> 6) & 1] >> (c & 63) & 1 != 0)
}

/// `[A-Za-z0-9_]`, `[A-Za-z0-9_-]` and `[A-Za-z0-9_.-]` as [`is_in`] sets.
const WORD: [u64; 2] = [0x03ff_0000_0000_0000, 0x07ff_fffe_87ff_fffe];
const B64URL: [u64; 2] = [WORD[0] | 1 << b'-', WORD[1]];
const NAME: [u64; 2] = [B64URL[0] | 1 << b'.', WORD[1]];

fn is_word(c: u8) -> bool {
    is_in(WORD, c)
}

fn is_b64url(c: u8) -> bool {
    is_in(B64URL, c)
}

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// Length of the run of `class` bytes at the start of `t`.
fn run(t: &[u8], class: impl Fn(u8) -> bool) -> usize {
    t.iter().position(|&c| !class(c)).unwrap_or(t.len())
}

/// Length of `prefix` bytes then at least `min` of `class` (the whole run), if `t` has them.
fn body(t: &[u8], prefix: usize, class: fn(u8) -> bool, min: usize) -> Option<usize> {
    let n = run(t.get(prefix..)?, class);
    (n >= min).then_some(prefix + n)
}

/// The matches at the anchors `m` of the block at `i`, pushed; returns where scanning goes
/// on: past a token, else the next block.
#[inline(always)]
fn anchored_in(s: &str, i: usize, mut m: u64, out: &mut Vec<Span>) -> usize {
    let b = s.as_bytes();
    while m != 0 {
        let j = i + (m.trailing_zeros() / 8) as usize;
        m &= m - 1;
        // Cheap tests of the bytes around an anchor keep most of them from a closer look:
        // times and paths (`12:30`, `a::b`), `==`, dashes and underscores in words and dates.
        let (prev, next) = (
            if j > 0 { b[j - 1] } else { 0 },
            b.get(j + 1).map_or(0, |&c| c),
        );
        let closer = match b[j] {
            b':' => {
                matches!(next, b' ' | b'\t' | b'=' | b'/')
                    || matches!(prev, b'"' | b'\'' | b' ' | b'\t')
            }
            b'=' => next != b'=',
            b'-' => matches!(prev, b't' | b'k' | b'b' | b'p' | b'a' | b'r' | b's') || next == b'-',
            b'_' => matches!(prev, b'p' | b'o' | b'u' | b's' | b'r' | b'b' | b'k'),
            b'J' => prev == b'y',
            b'A' | b'B' | b'b' => !is_word(prev),
            _ => false,
        };
        if !closer {
            continue;
        }
        let next = anchored(s, j, out);
        if next > j + 1 {
            return next;
        }
    }
    i + 8
}

/// The matches anchored at byte `j` (see [`anchors`]), pushed; returns where scanning goes on:
/// past a token, else `j + 1`.
#[inline(never)]
fn anchored(s: &str, j: usize, out: &mut Vec<Span>) -> usize {
    let b = s.as_bytes();
    let t = &b[j..];
    // A token starts at `k`, the byte before it not `[A-Za-z0-9_]`; `back(n)`: the n bytes before `j`.
    let starts = |k: usize| k == 0 || !is_word(b[k - 1]);
    let back = |n: usize| j.checked_sub(n).filter(|&k| starts(k)).map(|k| &b[k..j]);
    let alnum: fn(u8) -> bool = |c| c.is_ascii_alphanumeric();
    let found = match t[0] {
        b'=' | b':' => {
            out.extend(if t.starts_with(b"://") {
                url(b, j)
            } else {
                assignment(b, j)
            });
            return j + 1;
        }
        b'B' | b'b' => {
            if starts(j) {
                out.extend(bearer(t).map(|(a, z)| Span {
                    start: j + a,
                    end: j + z,
                    kind: BEARER,
                    rank: SCHEME,
                }));
            }
            return j + 1;
        }
        b'A' if starts(j) => match t.get(..4) {
            Some(b"AKIA" | b"ASIA" | b"ABIA" | b"ACCA") => {
                let n = run(&t[4..], |c| c.is_ascii_uppercase() || c.is_ascii_digit());
                let end = 4 + n;
                (n == AWS_KEY_ID_BODY && !t.get(end).is_some_and(|&c| is_word(c))).then_some((
                    0,
                    end,
                    AWS_ACCESS_KEY,
                ))
            }
            Some(b"AIza") => {
                body(t, 4, is_b64url, GOOGLE_API_KEY_MIN).map(|n| (0, n, GOOGLE_API_KEY))
            }
            _ => None,
        },
        b'J' => match back(2) {
            Some(b"ey") => jwt(&b[j - 2..]).map(|n| (2, n, JWT)),
            _ => None,
        },
        b'_' => {
            if let Some(b"ghp" | b"gho" | b"ghu" | b"ghs" | b"ghr") = back(3) {
                body(&b[j - 3..], 4, alnum, GITHUB_TOKEN_MIN).map(|n| (3, n, GITHUB_TOKEN))
            } else if back(6) == Some(b"github") && t.starts_with(b"_pat_") {
                body(&b[j - 6..], 11, is_word, GITHUB_PAT_MIN).map(|n| (6, n, GITHUB_TOKEN))
            } else if matches!(back(2), Some(b"sk" | b"rk"))
                && (t.starts_with(b"_live_") || t.starts_with(b"_test_"))
            {
                body(&b[j - 2..], 8, alnum, STRIPE_KEY_MIN).map(|n| (2, n, STRIPE_KEY))
            } else {
                None
            }
        }
        b'-' => {
            if t.starts_with(b"-----BEGIN ") {
                private_key(s, j + 5).map(|end| (0, end - j, PRIVATE_KEY))
            } else if back(5) == Some(b"glpat") {
                body(&b[j - 5..], 6, is_b64url, GITLAB_TOKEN_MIN).map(|n| (5, n, GITLAB_TOKEN))
            } else if let Some([b'x', b'o', b'x', b'b' | b'p' | b'a' | b'r' | b's']) = back(4) {
                let slack: fn(u8) -> bool = |c| c.is_ascii_alphanumeric() || c == b'-';
                body(&b[j - 4..], 5, slack, SLACK_TOKEN_MIN).map(|n| (4, n, SLACK_TOKEN))
            } else if back(2) == Some(b"sk") && t.starts_with(b"-ant-") {
                body(&b[j - 2..], 7, is_b64url, ANTHROPIC_KEY_MIN).map(|n| (2, n, ANTHROPIC_KEY))
            } else if back(2) == Some(b"sk") {
                body(&b[j - 2..], 3, is_b64url, OPENAI_KEY_MIN).map(|n| (2, n, OPENAI_KEY))
            } else {
                None
            }
        }
        _ => None,
    };
    match found {
        // `back`: how far before `j` the token starts; `len`: its length from there.
        Some((back, len, kind)) => {
            let start = j - back;
            out.push(Span {
                start,
                end: start + len,
                kind,
                rank: SPECIFIC,
            });
            start + len
        }
        None => j + 1,
    }
}

/// Length of a JWT at the start of `t`.
fn jwt(t: &[u8]) -> Option<usize> {
    let segment = |from: usize| {
        let n = run(&t[from..], is_b64url);
        (t[from..].starts_with(b"eyJ") && n >= JWT_SEGMENT_MIN).then_some(from + n)
    };
    let a = segment(0)?;
    if t.get(a) != Some(&b'.') {
        return None;
    }
    let b = segment(a + 1)?;
    if t.get(b) != Some(&b'.') {
        return None;
    }
    Some(b + 1 + run(&t[b + 1..], is_b64url))
}

/// The credential's range in `t` (which starts with a word start) after `Bearer `.
fn bearer(t: &[u8]) -> Option<(usize, usize)> {
    if !t.get(..6)?.eq_ignore_ascii_case(b"bearer") {
        return None;
    }
    let a = 6 + run(&t[6..], is_blank);
    if a == 6 {
        return None;
    }
    let token68 =
        |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~' | b'+' | b'/');
    let mut n = run(&t[a..], token68);
    n += run(&t[a + n..], |c| c == b'=');
    let word = t[a..a + n].iter().all(u8::is_ascii_alphabetic);
    (n >= BEARER_MIN && (!word || n >= BEARER_WORD_MIN)).then_some((a, a + n))
}

/// The end of a PEM private key block whose `BEGIN` is at `i` (after `-----`).
fn private_key(s: &str, i: usize) -> Option<usize> {
    let b = s.as_bytes();
    let label = |from: usize| {
        run(&b[from..], |c| {
            c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' '
        })
    };
    if !b[i..].starts_with(b"BEGIN ") {
        return None;
    }
    let l = i + 6;
    let n = label(l);
    let dashes = l + n;
    if n > MAX_PEM_LABEL_BYTES
        || !b[dashes..].starts_with(b"-----")
        || !b[l..dashes].windows(11).any(|w| w == b"PRIVATE KEY")
    {
        return None;
    }
    let from = dashes + 5;
    Some(match s[from..].find("-----END ") {
        None => b.len(),
        Some(e) => {
            let e = from + e + 9;
            let e = e + label(e);
            if b[e..].starts_with(b"-----") {
                e + 5
            } else {
                e
            }
        }
    })
}

/// A password in `scheme://user:password@`, or a Slack webhook's path, for the `:` at `i`.
fn url(b: &[u8], i: usize) -> Option<Span> {
    let a = i + 3;
    let t = &b[a..];
    const HOOK: &[u8] = b"hooks.slack.com/services/";
    if t.starts_with(HOOK) && b[..i].ends_with(b"https") {
        let p = a + HOOK.len();
        let n = run(&b[p..], |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'/' | b'_' | b'-')
        });
        return (n >= SLACK_WEBHOOK_MIN).then_some(Span {
            start: p,
            end: p + n,
            kind: SLACK_WEBHOOK,
            rank: SPECIFIC,
        });
    }
    // Userinfo ends at what RFC 3986 does not allow in it (a marker's `[` included).
    let stop = |c: u8| {
        matches!(
            c,
            b'@' | b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>' | b'[' | b']'
        ) || c.is_ascii_whitespace()
    };
    let n = t
        .iter()
        .take(MAX_USERINFO_BYTES + 1)
        .position(|&c| stop(c))?;
    if t[n] != b'@' {
        return None;
    }
    let colon = t[..n].iter().position(|&c| c == b':')?;
    if placeholder(&t[colon + 1..n]) {
        return None;
    }
    Some(Span {
        start: a + colon + 1,
        end: a + n,
        kind: URL_PASSWORD,
        rank: SCHEME,
    })
}

/// The value assigned by the `=` or `:` at `i` to a secret-looking name.
fn assignment(b: &[u8], i: usize) -> Option<Span> {
    let colon = b[i] == b':';
    let mut v = i + 1;
    match b.get(v) {
        Some(b'=') if colon => v += 1, // `:=`
        Some(b'=') => return None,     // `==`
        _ => {}
    }
    let blanks = run_back(&b[..i], is_blank);
    // Shell `NAME= cmd` assigns nothing; `name = value` (config, code) is spaced both sides.
    if !colon && blanks == 0 && b.get(v).is_some_and(|&c| is_blank(c)) {
        return None;
    }
    let mut e = i - blanks;
    let quote = match e.checked_sub(1).map(|k| b[k]) {
        Some(q @ (b'"' | b'\'')) => {
            e -= 1;
            Some(q)
        }
        _ => None,
    };
    // Unquoted `NAME:` needs a blank after (YAML), which keeps out times, ports and paths.
    if colon && quote.is_none() && !b.get(v).is_some_and(|&c| is_blank(c)) {
        return None;
    }
    let (lo, mut s, mut seen) = (e.saturating_sub(MAX_NAME_BYTES), e, 0u32);
    while s > lo && is_in(NAME, b[s - 1]) {
        s -= 1;
        seen |= 1 << (b[s] & 31);
    }
    if NAME_LETTERS.iter().all(|&w| w & !seen != 0) {
        return None;
    }
    let before = s.checked_sub(1).map(|k| b[k]);
    match quote {
        Some(q) if before != Some(q) => return None,
        // `/run/secrets/api_key: denied` names a file; `//user:pw@` is a URL's.
        None if matches!(before, Some(b'/' | b'\\')) => return None,
        _ => {}
    }
    let aws = secret_name(&b[s..e])?;

    let mut vs = v + run(&b[v..], is_blank);
    let q = b.get(vs).copied().filter(|&c| c == b'"' || c == b'\'');
    vs += usize::from(q.is_some());
    let mut ve = value_end(b, vs, q);
    // `Authorization: Basic x`: the credential follows the scheme.
    let w = vs + run(&b[vs..ve], |c| c.is_ascii_alphabetic());
    if b.get(w) == Some(&b' ')
        && [&b"bearer"[..], b"basic", b"token"]
            .iter()
            .any(|s| b[vs..w].eq_ignore_ascii_case(s))
    {
        vs = w + run(&b[w..], is_blank);
        if q.is_none() {
            ve = value_end(b, vs, None);
        }
        vs = vs.min(ve);
    }
    let value = &b[vs..ve];
    if placeholder(value)
        || (q.is_none() && (matches!(value[0], b'{' | b'[') || value.contains(&b'(')))
    {
        return None;
    }
    let aws = aws
        && value.len() == AWS_SECRET_BYTES
        && value
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'/' || c == b'+');
    Some(Span {
        start: vs,
        end: ve,
        kind: if aws {
            AWS_SECRET_KEY
        } else {
            SECRET_ASSIGNMENT
        },
        rank: if aws { SPECIFIC } else { ASSIGNMENT },
    })
}

/// Length of the run of `class` bytes at the end of `t`.
fn run_back(t: &[u8], class: impl Fn(u8) -> bool) -> usize {
    t.iter().rev().position(|&c| !class(c)).unwrap_or(t.len())
}

/// Where a value starting at `from` ends: its closing quote (or the line end) when quoted,
/// else the first whitespace or quote (`-H 'X-Api-Key: k'` keeps its closing quote).
fn value_end(b: &[u8], from: usize, quote: Option<u8>) -> usize {
    let mut j = from;
    while j < b.len() {
        let c = b[j];
        match quote {
            Some(q) if c == q || c == b'\n' || c == b'\r' => break,
            Some(_) if c == b'\\' => j += 1,
            None if c.is_ascii_whitespace() || c == b'"' || c == b'\'' => break,
            _ => {}
        }
        j += 1;
    }
    j.min(b.len())
}

/// Whether a name (`[A-Za-z0-9_.-]`) looks like it holds a secret: `Some(true)` for
/// `aws_secret_access_key`, `Some(false)` for the other secret names.
fn secret_name(name: &[u8]) -> Option<bool> {
    let mut buf = [0u8; MAX_NAME_BYTES];
    let mut n = 0;
    for &c in name {
        if !matches!(c, b'_' | b'-' | b'.') {
            buf[n] = c.to_ascii_uppercase();
            n += 1;
        }
    }
    let u = &buf[..n];
    if u.ends_with(b"AWSSECRETACCESSKEY") {
        return Some(true);
    }
    let has = |w: &[u8]| u.windows(w.len()).any(|x| x == w);
    let k = name.len().saturating_sub(3);
    let key = k > 0
        && name[k..].eq_ignore_ascii_case(b"key")
        && (matches!(name[k - 1], b'_' | b'-' | b'.')
            || (name[k] == b'K' && name[k - 1].is_ascii_lowercase()));
    let auth = (0..u.len()).any(|j| {
        let rest = &u[j..];
        rest.starts_with(b"AUTH")
            && (!rest[4..].starts_with(b"OR") || rest[4..].starts_with(b"ORIZATION"))
    });
    let secret = key
        || auth
        || u.ends_with(b"TOKEN")
        || [
            &b"PASSWORD"[..],
            b"PASSWD",
            b"PASSPHRASE",
            b"SECRET",
            b"APIKEY",
            b"ACCESSKEY",
            b"PRIVATEKEY",
            b"CREDENTIAL",
        ]
        .iter()
        .any(|w| has(w));
    secret.then_some(false)
}

/// Whether an assignment's value or a URL's password stands for a secret rather than being one.
fn placeholder(v: &[u8]) -> bool {
    let core = v.strip_suffix(b",").unwrap_or(v);
    let all = |c: &[u8]| core.iter().all(|x| c.contains(x));
    let var = |t: &[u8]| match t {
        [b'{', .., b'}'] | [b'(', ..] => true,
        [c, rest @ ..] => {
            (c.is_ascii_alphabetic() || *c == b'_') && rest.iter().all(|&c| is_word(c))
        }
        [] => false,
    };
    core.is_empty()
        || all(b"*")
        || all(b"xX")
        || all(b".")
        || matches!(core, [b'<', .., b'>'])
        || (core.starts_with(b"{{") && core.ends_with(b"}}"))
        || core.strip_prefix(b"$").is_some_and(var)
        || v.windows(MARKER_PREFIX.len())
            .any(|w| w == MARKER_PREFIX.as_bytes())
        || [
            "changeme",
            "null",
            "none",
            "nil",
            "undefined",
            "true",
            "false",
        ]
        .iter()
        .any(|w| core.eq_ignore_ascii_case(w.as_bytes()))
}

#[cfg(test)]
mod tests;

//! Conversions at the JS boundary: the constructor's options, argument checks that become
//! `JsError`s naming the argument and the accepted values, and calls into page callbacks.

use js_sys::{Function, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wterm_core::limits::{MAX_COLS, MAX_ROWS, MAX_SCROLLBACK_ROWS, MIN_COLS, MIN_ROWS};

use crate::limits::MAX_EXPOSED_ORIGINS;

/// Longest excerpt of a bad string argument quoted back in an error, in characters.
const ERROR_EXCERPT_CHARS: usize = 40;

/// WebMCP settings from the `webmcp` option or `setWebMCP` (spec `webmcp-tools.md`, "Enabling
/// WebMCP"); the `webmcp` module registers the terminal with them once it is initialized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WebMcpConfig {
    /// Requested tool-facing name; `None` means the default (`"terminal"`).
    pub(crate) name: Option<String>,
    /// Returned by `list_terminals` when set.
    pub(crate) description: Option<String>,
    /// Agents may read but not type or press keys.
    pub(crate) read_only: bool,
    /// What is typed here has real consequences (a shell runs it): the typing tools carry
    /// `consequentialHint: true` (spec "Provider and registration"). Default true.
    pub(crate) consequential: bool,
    /// Origins of pages that embed this one and may see its tools (`registerTool`'s
    /// `exposedTo`); empty: none given.
    pub(crate) exposed_to: Vec<String>,
    /// Secrets in what the tools answer are replaced by `[redacted:KIND]` (spec "Secrets are
    /// redacted"). Default true; only the page's own code can turn it off.
    pub(crate) redact: bool,
}

impl Default for WebMcpConfig {
    fn default() -> Self {
        WebMcpConfig {
            name: None,
            description: None,
            read_only: false,
            consequential: true,
            exposed_to: Vec::new(),
            redact: true,
        }
    }
}

/// The callbacks for one kind of event: the one from the constructor's options, then those
/// added with `addListener`, in the order added; a function is listed at most once.
#[derive(Default)]
pub(crate) struct Listeners {
    fns: Vec<Function>,
    /// 1 when `fns[0]` came from the options (`onData`, `onResize`, `onTitle`): it cannot be
    /// removed.
    fixed: usize,
}

impl Listeners {
    pub(crate) fn from_option(option: Option<Function>) -> Self {
        let fixed = usize::from(option.is_some());
        Listeners {
            fns: option.into_iter().collect(),
            fixed,
        }
    }

    /// No callback at all: for `data`, this means input is echoed locally.
    pub(crate) fn is_empty(&self) -> bool {
        self.fns.is_empty()
    }

    /// Queues `f(arg)` for every callback, the option's first.
    pub(crate) fn queue(&self, out: &mut Outbox, arg: JsValue) {
        self.queue2(out, arg, None);
    }

    /// Queues `f(arg, second)` (`f(arg)` when `second` is `None`) for every callback.
    pub(crate) fn queue2(&self, out: &mut Outbox, arg: JsValue, second: Option<JsValue>) {
        for f in &self.fns {
            out.0.push((f.clone(), arg.clone(), second.clone()));
        }
    }

    /// Adds `f` unless it is listed already (like `EventTarget.addEventListener`).
    pub(crate) fn add(&mut self, f: Function) {
        if !self.fns.contains(&f) {
            self.fns.push(f);
        }
    }

    /// Removes `f` if it was added; the options' callback stays.
    pub(crate) fn remove(&mut self, f: &Function) {
        if let Some(i) = self.fns[self.fixed..].iter().position(|g| g == f) {
            self.fns.remove(self.fixed + i);
        }
    }
}

/// The page callbacks. Each is called only while no borrow of the terminal is held, so a
/// callback may call back into the `WTerm` (see [`Outbox`]).
#[derive(Default)]
pub(crate) struct Callbacks {
    /// `onData(data: string)` and `"data"` listeners: bytes for the program.
    pub(crate) data: Listeners,
    /// `onResize({cols, rows})` and `"resize"` listeners.
    pub(crate) resize: Listeners,
    /// `onTitle(title: string)` and `"title"` listeners.
    pub(crate) title: Listeners,
    /// `"agent"` listeners: an agent read or wrote the terminal ([`agent_event`]).
    pub(crate) agent: Listeners,
    /// `onBell()` and `"bell"` listeners: the program rang the bell (BEL).
    pub(crate) bell: Listeners,
    /// `onProgress({state, value})` and `"progress"` listeners: `OSC 9 ; 4` ([`progress_event`]).
    pub(crate) progress: Listeners,
}

impl Callbacks {
    /// The listeners for an event name of `addListener`/`removeListener`.
    ///
    /// Errors: `"type must be \"data\", \"resize\", \"title\", \"agent\", \"bell\" or
    /// \"progress\"; got {value}"`.
    pub(crate) fn of_type(&mut self, kind: &JsValue) -> Result<&mut Listeners, JsError> {
        match kind.as_string().as_deref() {
            Some("data") => Ok(&mut self.data),
            Some("resize") => Ok(&mut self.resize),
            Some("title") => Ok(&mut self.title),
            Some("agent") => Ok(&mut self.agent),
            Some("bell") => Ok(&mut self.bell),
            Some("progress") => Ok(&mut self.progress),
            _ => Err(JsError::new(&format!(
                "type must be \"data\", \"resize\", \"title\", \"agent\", \"bell\" or \
                 \"progress\"; got {}",
                describe(kind)
            ))),
        }
    }
}

/// The argument of an `"agent"` listener (`WTermAgentActivity`): `{kind: "read"|"write", tool,
/// at: epoch milliseconds, source: "webmcp"|"relay"}`.
pub(crate) fn agent_event(kind: &str, tool: &str, at: f64, source: &str) -> JsValue {
    let o = Object::new();
    set(&o, "kind", kind);
    set(&o, "tool", tool);
    set(&o, "at", at);
    set(&o, "source", source);
    o.into()
}

/// The argument of a `"progress"` listener (`WTermProgress`): `{state, value}`, `state` the
/// `OSC 9 ; 4` state number 0..4 (0 remove, 1 set, 2 error, 3 indeterminate, 4 paused) as
/// xterm.js's progress addon gives it, `value` the percentage 0..100.
pub(crate) fn progress_event(p: wterm_core::Progress) -> JsValue {
    let o = Object::new();
    set(&o, "state", p.state as u8);
    set(&o, "value", p.value);
    o.into()
}

/// The parsed constructor options (`WTermOptions` in the TypeScript declarations).
#[derive(Default)]
pub(crate) struct Options {
    /// Initial width in columns; `None` means fit the element.
    pub(crate) cols: Option<u16>,
    /// Initial height in rows; `None` means fit the element.
    pub(crate) rows: Option<u16>,
    /// Rows of history; `None` means the default (10000).
    pub(crate) scrollback: Option<usize>,
    /// `None` when WebMCP is off (the default).
    pub(crate) webmcp: Option<WebMcpConfig>,
    /// `pasteWithCtrlV`: Ctrl+V is left to the browser, which pastes, instead of sending ^V.
    pub(crate) paste_with_ctrl_v: bool,
    /// `screenReaderMode`: new output is announced in a live region; `None` means the
    /// default (on).
    pub(crate) screen_reader_mode: Option<bool>,
    /// The `theme` option; `None`: the CSS variables decide.
    pub(crate) theme: Option<crate::theme::Theme>,
    /// The callbacks.
    pub(crate) callbacks: Callbacks,
}

/// A short description of a JS value for error messages: numbers and booleans as written,
/// strings quoted and cut to [`ERROR_EXCERPT_CHARS`], anything else by its kind.
pub(crate) fn describe(v: &JsValue) -> String {
    if v.is_undefined() {
        "undefined".into()
    } else if v.is_null() {
        "null".into()
    } else if let Some(n) = v.as_f64() {
        num_str(n)
    } else if let Some(b) = v.as_bool() {
        if b {
            "true".into()
        } else {
            "false".into()
        }
    } else if let Some(s) = v.as_string() {
        let cut: String = s.chars().take(ERROR_EXCERPT_CHARS).collect();
        let quoted: String = js_sys::JSON::stringify(&JsValue::from_str(&cut))
            .map(String::from)
            .unwrap_or_default();
        if cut.len() < s.len() {
            quoted + "…"
        } else {
            quoted
        }
    } else if v.is_function() {
        "a function".into()
    } else if js_sys::Array::is_array(v) {
        "an array".into()
    } else {
        "an object".into()
    }
}

/// A number as JavaScript writes it (`String(n)`). Used instead of Rust's float formatting,
/// which would add its tables to the module.
pub(crate) fn num_str(n: f64) -> String {
    js_sys::Number::from(n)
        .to_string_with_radix(10)
        .map(String::from)
        .unwrap_or_default()
}

/// A length in CSS pixels (`"8.4375px"`).
pub(crate) fn px(n: f64) -> String {
    num_str(n) + "px"
}

pub(crate) fn absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

/// An integer argument in `min..=max`; `undefined`/`null` give `None`.
///
/// Errors: `"{name} must be an integer {min}..{max}; got {value}"`.
pub(crate) fn opt_int(v: &JsValue, name: &str, min: u32, max: u32) -> Result<Option<u32>, JsError> {
    if absent(v) {
        return Ok(None);
    }
    match v.as_f64() {
        Some(n) if n.fract() == 0.0 && n >= f64::from(min) && n <= f64::from(max) => {
            Ok(Some(n as u32))
        }
        _ => Err(JsError::new(&format!(
            "{name} must be an integer {min}..{max}; got {}",
            describe(v)
        ))),
    }
}

/// Checks a `cols` argument: an integer [`MIN_COLS`]..=[`MAX_COLS`].
pub(crate) fn cols_arg(v: &JsValue) -> Result<Option<u16>, JsError> {
    Ok(opt_int(v, "cols", MIN_COLS.into(), MAX_COLS.into())?.map(|n| n as u16))
}

/// Checks a `rows` argument: an integer [`MIN_ROWS`]..=[`MAX_ROWS`].
pub(crate) fn rows_arg(v: &JsValue) -> Result<Option<u16>, JsError> {
    Ok(opt_int(v, "rows", MIN_ROWS.into(), MAX_ROWS.into())?.map(|n| n as u16))
}

pub(crate) fn opt_function(v: &JsValue, name: &str) -> Result<Option<Function>, JsError> {
    if absent(v) {
        return Ok(None);
    }
    v.dyn_ref::<Function>()
        .cloned()
        .map(Some)
        .ok_or_else(|| JsError::new(&format!("{name} must be a function; got {}", describe(v))))
}

fn opt_string(v: &JsValue, name: &str, non_empty: bool) -> Result<Option<String>, JsError> {
    if absent(v) {
        return Ok(None);
    }
    match v.as_string() {
        Some(s) if !(non_empty && s.is_empty()) => Ok(Some(s)),
        _ => {
            let what = if non_empty {
                "a non-empty string"
            } else {
                "a string"
            };
            Err(JsError::new(&format!(
                "{name} must be {what}; got {}",
                describe(v)
            )))
        }
    }
}

pub(crate) fn opt_bool(v: &JsValue, name: &str) -> Result<Option<bool>, JsError> {
    if absent(v) {
        return Ok(None);
    }
    v.as_bool()
        .map(Some)
        .ok_or_else(|| JsError::new(&format!("{name} must be a boolean; got {}", describe(v))))
}

/// Reads `obj[key]`; a throwing getter becomes an error naming the property.
pub(crate) fn prop(obj: &JsValue, key: &str, name: &str) -> Result<JsValue, JsError> {
    Reflect::get(obj, &JsValue::from_str(key))
        .map_err(|_| JsError::new(&format!("{name} could not be read")))
}

pub(crate) fn is_plain_object(v: &JsValue) -> bool {
    v.is_object() && !v.is_function() && !js_sys::Array::is_array(v)
}

/// The shape of a `webmcp` options object, for error messages.
const WEBMCP_SHAPE: &str = "{name?, description?, readOnly?, consequential?, exposedTo?, redact?}";

/// Parses the `webmcp` option: `true`/`false` or
/// `{name?, description?, readOnly?, consequential?, exposedTo?, redact?}`.
pub(crate) fn webmcp_arg(v: &JsValue, name: &str) -> Result<Option<WebMcpConfig>, JsError> {
    if absent(v) {
        return Ok(None);
    }
    if let Some(on) = v.as_bool() {
        return Ok(on.then(WebMcpConfig::default));
    }
    if !is_plain_object(v) {
        return Err(JsError::new(&format!(
            "{name} must be a boolean or an object {WEBMCP_SHAPE}; got {}",
            describe(v)
        )));
    }
    let flag = |key: &str| opt_bool(&prop(v, key, name)?, &format!("{name}.{key}"));
    Ok(Some(WebMcpConfig {
        name: opt_string(&prop(v, "name", name)?, &format!("{name}.name"), true)?,
        description: opt_string(
            &prop(v, "description", name)?,
            &format!("{name}.description"),
            false,
        )?,
        read_only: flag("readOnly")?.unwrap_or(false),
        consequential: flag("consequential")?.unwrap_or(true),
        exposed_to: origins_arg(&prop(v, "exposedTo", name)?, &format!("{name}.exposedTo"))?,
        redact: flag("redact")?.unwrap_or(true),
    }))
}

/// Parses `exposedTo`: `undefined`/`null` (none) or an array of 1..[`MAX_EXPOSED_ORIGINS`]
/// origins, each `scheme://host[:port]` with nothing after it (the provider decides which
/// origins it accepts: Chromium takes secure ones only).
fn origins_arg(v: &JsValue, name: &str) -> Result<Vec<String>, JsError> {
    if absent(v) {
        return Ok(Vec::new());
    }
    let list = match v.dyn_ref::<js_sys::Array>() {
        Some(a) if (1..=MAX_EXPOSED_ORIGINS).contains(&(a.length() as usize)) => a,
        a => {
            let got = match a.map(js_sys::Array::length) {
                Some(0) => "an empty array".to_string(),
                Some(n) => format!("{n} origins"),
                None => describe(v),
            };
            return Err(JsError::new(&format!(
                "{name} must be an array of 1..{MAX_EXPOSED_ORIGINS} origins such as \
                 \"https://embedder.example\"; got {got}"
            )));
        }
    };
    // A plain loop: an iterator chain collecting into a Result costs the module about 1 KB.
    let mut origins = Vec::new();
    for i in 0..list.length() {
        let o = list.get(i);
        match o.as_string().filter(|s| is_origin(s)) {
            Some(s) if is_trustworthy(&s) => origins.push(s),
            Some(_) => {
                return Err(JsError::new(&format!(
                    "{name}[{i}] {} is not a secure origin, which Chromium refuses; accepted: \
                     https: or wss:, or a loopback host (localhost, *.localhost, 127.x.x.x, \
                     [::1]) with any scheme, such as \"http://localhost:8080\"",
                    describe(&o)
                )))
            }
            None => {
                return Err(JsError::new(&format!(
                    "{name}[{i}] must be an origin (scheme://host[:port], no path); got {}",
                    describe(&o)
                )))
            }
        }
    }
    Ok(origins)
}

/// Whether `s` looks like a serialized origin: `scheme://host[:port]`, no path, query,
/// fragment, credentials or spaces. Bytes, not `str` searching, to keep the module small.
fn is_origin(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(colon) = b.iter().position(|&c| c == b':') else {
        return false;
    };
    let (scheme, rest) = b.split_at(colon);
    scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c))
        && rest.len() > 3
        && rest.starts_with(b"://")
        && !rest[3..].iter().any(|c| b"/?#@ \t\r\n".contains(c))
}

/// Whether origin `s` (already [`is_origin`]) is potentially trustworthy, the rule of Secure
/// Contexts §3.1 that Chromium's `registerTool` applies to `exposedTo`: scheme `https` or `wss`
/// (step 3), or a host in 127.0.0.0/8 or `[::1]` (step 4), or `localhost`, `localhost.` or a
/// name under `.localhost` (step 5). Steps 6..8 (`file:`, whose origin is opaque, and schemes
/// or origins a browser adds) are not followed. Hosts as serialized: `127.1` or `[0::1]` are not
/// recognized.
fn is_trustworthy(s: &str) -> bool {
    // Bytes, not `str` searching, to keep the module small.
    let b = s.as_bytes();
    let colon = b.iter().position(|&c| c == b':').unwrap_or(0);
    let scheme = &b[..colon];
    let mut host = b.get(colon + 3..).unwrap_or_default();
    // Without the port, then without the trailing dot of a fully qualified name.
    if let Some(p) = host.iter().rposition(|&c| c == b':') {
        if host[p + 1..].iter().all(u8::is_ascii_digit) {
            host = &host[..p];
        }
    }
    if let [name @ .., b'.'] = host {
        host = name;
    }
    let mut parts = 0;
    let v4 = host.starts_with(b"127.")
        && host.split(|&c| c == b'.').all(|p| {
            parts += 1;
            (1..=3).contains(&p.len())
                && p.iter().all(u8::is_ascii_digit)
                && (p.len() < 3 || p <= b"255".as_slice())
        })
        && parts == 4;
    let n = host.len();
    scheme.eq_ignore_ascii_case(b"https")
        || scheme.eq_ignore_ascii_case(b"wss")
        || v4
        || host == b"[::1]"
        || host.eq_ignore_ascii_case(b"localhost")
        || (n > 10 && host[n - 10..].eq_ignore_ascii_case(b".localhost"))
}

/// The keys of a `webmcp` options object.
const WEBMCP_KEYS: [&str; 6] = [
    "name",
    "description",
    "readOnly",
    "consequential",
    "exposedTo",
    "redact",
];

fn has_key(v: &JsValue, key: &str) -> bool {
    js_sys::Reflect::get(v, &JsValue::from_str(key)).is_ok_and(|x| !x.is_undefined())
}

/// Refuses a plain object `v` with keys outside `accepted` (a misspelt option would otherwise be
/// ignored): "`name` has unknown keys a, b; accepted: x, y". Anything else passes.
pub(crate) fn refuse_unknown_keys(
    v: &JsValue,
    name: &str,
    accepted: &[&str],
) -> Result<(), JsError> {
    if !is_plain_object(v) {
        return Ok(());
    }
    let unknown: Vec<String> = js_sys::Object::keys(v.unchecked_ref::<js_sys::Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .filter(|k| !accepted.contains(&k.as_str()))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(JsError::new(&format!(
        "{name} has unknown keys {}; accepted: {}",
        unknown.join(", "),
        accepted.join(", ")
    )))
}

/// Parses `setWebMCP`'s argument as a change to `current`: `false` withdraws; `true` turns the
/// tools on, keeping the current settings; in an object, a key left out keeps its current value
/// and `null` restores its default (spec: "changes the options of a live terminal"). Keys other
/// than those of [`WEBMCP_KEYS`] are refused, naming them.
pub(crate) fn webmcp_update(
    v: &JsValue,
    name: &str,
    current: Option<&WebMcpConfig>,
) -> Result<Option<WebMcpConfig>, JsError> {
    refuse_unknown_keys(v, name, &WEBMCP_KEYS)?;
    let parsed = webmcp_arg(v, name)?;
    Ok(match (parsed, current) {
        (Some(_), Some(cur)) if v.as_bool() == Some(true) => Some(cur.clone()),
        (Some(new), Some(cur)) => Some(WebMcpConfig {
            name: if has_key(v, "name") {
                new.name
            } else {
                cur.name.clone()
            },
            description: if has_key(v, "description") {
                new.description
            } else {
                cur.description.clone()
            },
            read_only: if has_key(v, "readOnly") {
                new.read_only
            } else {
                cur.read_only
            },
            consequential: if has_key(v, "consequential") {
                new.consequential
            } else {
                cur.consequential
            },
            exposed_to: if has_key(v, "exposedTo") {
                new.exposed_to
            } else {
                cur.exposed_to.clone()
            },
            redact: if has_key(v, "redact") {
                new.redact
            } else {
                cur.redact
            },
        }),
        (parsed, _) => parsed,
    })
}

/// Parses the constructor's `options` argument (`undefined`, `null` or an object; unknown
/// properties are ignored).
pub(crate) fn parse_options(v: &JsValue) -> Result<Options, JsError> {
    if absent(v) {
        return Ok(Options::default());
    }
    if !is_plain_object(v) {
        return Err(JsError::new(&format!(
            "options must be an object {{cols?, rows?, scrollback?, webmcp?, pasteWithCtrlV?, \
             screenReaderMode?, theme?, links?, findBar?, onData?, onResize?, onTitle?, onAgent?, \
             onBell?, onProgress?, onLink?, onSearch?}}; got {}",
            describe(v)
        )));
    }
    let get = |key: &str| prop(v, key, key);
    Ok(Options {
        cols: cols_arg(&get("cols")?)?,
        rows: rows_arg(&get("rows")?)?,
        scrollback: opt_int(
            &get("scrollback")?,
            "scrollback",
            0,
            MAX_SCROLLBACK_ROWS as u32,
        )?
        .map(|n| n as usize),
        webmcp: webmcp_arg(&get("webmcp")?, "webmcp")?,
        paste_with_ctrl_v: opt_bool(&get("pasteWithCtrlV")?, "pasteWithCtrlV")?.unwrap_or(false),
        screen_reader_mode: opt_bool(&get("screenReaderMode")?, "screenReaderMode")?,
        theme: crate::theme::Theme::parse(&get("theme")?, "theme")?,
        callbacks: Callbacks {
            data: Listeners::from_option(opt_function(&get("onData")?, "onData")?),
            resize: Listeners::from_option(opt_function(&get("onResize")?, "onResize")?),
            title: Listeners::from_option(opt_function(&get("onTitle")?, "onTitle")?),
            agent: Listeners::from_option(opt_function(&get("onAgent")?, "onAgent")?),
            bell: Listeners::from_option(opt_function(&get("onBell")?, "onBell")?),
            progress: Listeners::from_option(opt_function(&get("onProgress")?, "onProgress")?),
        },
    })
}

/// The bytes of a `write` argument: a string (sent as UTF-8) or a `Uint8Array`.
pub(crate) fn data_arg(v: &JsValue) -> Result<Vec<u8>, JsError> {
    if let Some(s) = v.as_string() {
        return Ok(s.into_bytes());
    }
    if let Some(a) = v.dyn_ref::<Uint8Array>() {
        return Ok(a.to_vec());
    }
    Err(JsError::new(&format!(
        "data must be a string or a Uint8Array; got {}",
        describe(v)
    )))
}

/// `s` as a JSON string literal, as `JSON.stringify` writes it: for names and keys a JS caller
/// gave, quoted in error messages (Rust's `{:?}` would show `"e\u{301}"` for `"é"`).
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Sets `obj[key] = value` (a plain data property; setting one on an ordinary object cannot
/// fail). Properties keep the order they were set in, and so does `JSON.stringify`.
pub(crate) fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), &value.into());
}

/// The `{cols, rows}` object passed to `onResize`.
pub(crate) fn size_object(cols: u16, rows: u16) -> JsValue {
    let size = Object::new();
    set(&size, "cols", cols);
    set(&size, "rows", rows);
    size.into()
}

/// Page callbacks to call once the terminal is no longer borrowed, so that a callback may call
/// back into the `WTerm` (for example `onData` writing the echo of what it got).
#[derive(Default)]
#[must_use = "an Outbox does nothing until delivered"]
pub(crate) struct Outbox(Vec<(Function, JsValue, Option<JsValue>)>);

impl Outbox {
    /// Calls the queued callbacks in order. A callback that throws is reported with
    /// `console.error` and does not stop the others: the exception belongs to the page, and the
    /// terminal must keep working.
    pub(crate) fn deliver(self) {
        for (f, arg, second) in self.0 {
            let called = match second {
                Some(second) => f.call2(&JsValue::UNDEFINED, &arg, &second),
                None => f.call1(&JsValue::UNDEFINED, &arg),
            };
            if let Err(e) = called {
                web_sys::console::error_2(&JsValue::from_str("wterm: a callback threw:"), &e);
            }
        }
    }
}

/// Text for `onData`: the bytes as UTF-8, invalid sequences replaced with U+FFFD. Everything
/// the terminal sends is UTF-8 text or ASCII control sequences.
pub(crate) fn bytes_to_string(bytes: &[u8]) -> JsValue {
    JsValue::from_str(&String::from_utf8_lossy(bytes))
}

#[wasm_bindgen]
extern "C" {
    /// An element seen through the float `scrollTop` getter (web-sys's stable binding
    /// truncates it to an integer).
    type ScrollBox;

    #[wasm_bindgen(method, getter = scrollTop)]
    fn scroll_top(this: &ScrollBox) -> f64;
}

/// `el.scrollTop` in CSS pixels, fractions kept.
pub(crate) fn scroll_top_f64(el: &web_sys::Element) -> f64 {
    el.unchecked_ref::<ScrollBox>().scroll_top()
}

#[cfg(test)]
mod quote_tests {
    #[test]
    fn quotes_as_json_does() {
        assert_eq!(super::quote("e\u{301}"), "\"e\u{301}\"");
        assert_eq!(super::quote("a\"b\\c\n\u{1}"), r#""a\"b\\c\n\u0001""#);
    }
}

#[cfg(test)]
mod origin_tests {
    use super::{is_origin, is_trustworthy};

    /// Secure Contexts §3.1 steps 3..5, as Chromium takes `exposedTo` (the e2e test checks
    /// these against Chromium's registerTool).
    #[test]
    fn potentially_trustworthy_origins() {
        for good in [
            "https://a.example",
            "HTTPS://A.EXAMPLE:8443",
            "wss://a.example",
            "http://localhost",
            "http://localhost.:3000",
            "http://LOCALHOST:3000",
            "http://app.localhost",
            "http://127.0.0.1",
            "http://127.255.0.9:8080",
            "http://[::1]",
            "http://[::1]:8080",
        ] {
            assert!(is_origin(good) && is_trustworthy(good), "{good}");
        }
        for bad in [
            "http://insecure.example",
            "ws://a.example",
            "http://localhost.example",
            "http://mylocalhost",
            "http://127.0.0.1.example",
            "http://127.0.0",
            "http://127.0.0.256",
            "http://128.0.0.1",
            "http://[::2]",
            "http://[::1].example",
            "httpss://a.example",
        ] {
            assert!(!is_trustworthy(bad), "{bad}");
        }
    }
}

//! The tools' arguments: checked completely before a tool does anything (spec "Results and
//! errors"). Each problem becomes one sentence saying what was wrong and what is accepted;
//! all problems of a call are reported together.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wterm_core::keys::{parse_key, Chord, KEYS_HELP};
use wterm_core::ErrorKind;

use crate::js::{describe, quote};
use crate::limits::{
    DEFAULT_TIMEOUT_MS, MAX_IDLE_MS, MAX_KEYS, MAX_READ_LINES, MAX_TIMEOUT_MS, MAX_TYPE_BYTES,
};

/// `read_terminal`'s arguments.
pub(crate) struct ReadArgs {
    pub(crate) terminal: Option<String>,
    /// `None`: the visible screen.
    pub(crate) lines: Option<u32>,
    pub(crate) wait_for: Option<String>,
    pub(crate) idle_ms: Option<u32>,
    pub(crate) timeout_ms: u32,
    /// `waitForCommand`: wait until the running (or just submitted) command finished.
    pub(crate) wait_command: bool,
    /// `newOutputOnly`: `waitFor` counts only output after the call started.
    pub(crate) new_only: bool,
}

impl ReadArgs {
    /// The call waits for something.
    pub(crate) fn waits(&self) -> bool {
        self.wait_for.is_some() || self.idle_ms.is_some() || self.wait_command
    }
}

/// `type_in_terminal`'s arguments.
pub(crate) struct TypeArgs {
    pub(crate) terminal: Option<String>,
    pub(crate) text: String,
    pub(crate) submit: bool,
    /// The wait after typing (and Enter), as `read_terminal`'s; `terminal` unused.
    pub(crate) wait: ReadArgs,
}

/// `press_terminal_keys`'s arguments, every key already parsed.
pub(crate) struct PressArgs {
    pub(crate) terminal: Option<String>,
    pub(crate) keys: Vec<Chord>,
    /// The wait after the keys, as `read_terminal`'s; `terminal` unused.
    pub(crate) wait: ReadArgs,
}

/// Reads the arguments object: `undefined`/`null` count as `{}`; an argument that is not in
/// `accepted` is an error (it is most likely a misspelling). Problems go to `errors`.
struct Input {
    obj: JsValue,
    errors: Vec<String>,
}

impl Input {
    fn new(input: &JsValue, accepted: &[&str]) -> Input {
        let mut errors = Vec::new();
        let obj = if input.is_undefined() || input.is_null() {
            Object::new().into()
        } else if input.is_object() && !Array::is_array(input) && !input.is_function() {
            input.clone()
        } else {
            errors.push(format!(
                "the arguments must be an object; got {}",
                describe(input)
            ));
            Object::new().into()
        };
        for key in Object::keys(obj.unchecked_ref::<Object>()).iter() {
            let key = key.as_string().unwrap_or_default();
            if !accepted.contains(&key.as_str()) {
                let accepted = if accepted.is_empty() {
                    "none".to_string()
                } else {
                    accepted.join(", ")
                };
                errors.push(format!(
                    "unknown argument {}; accepted: {accepted}",
                    quote(&key)
                ));
            }
        }
        Input { obj, errors }
    }

    /// `obj[key]`, with `null` read as absent.
    fn get(&mut self, key: &str) -> Option<JsValue> {
        match Reflect::get(&self.obj, &JsValue::from_str(key)) {
            Ok(v) if v.is_undefined() || v.is_null() => None,
            Ok(v) => Some(v),
            Err(_) => {
                self.errors.push(format!("{key} could not be read"));
                None
            }
        }
    }

    fn terminal(&mut self) -> Option<String> {
        let v = self.get("terminal")?;
        match v.as_string() {
            Some(s) if !s.is_empty() => Some(s),
            _ => {
                self.errors.push(format!(
                    "terminal must be a non-empty string, a name from list_terminals; got {}",
                    describe(&v)
                ));
                None
            }
        }
    }

    fn int(&mut self, key: &str, max: u32) -> Option<u32> {
        let v = self.get(key)?;
        match v.as_f64() {
            Some(n) if n.fract() == 0.0 && (1.0..=f64::from(max)).contains(&n) => Some(n as u32),
            _ => {
                self.errors.push(format!(
                    "{key} must be an integer 1..{max}; got {}",
                    describe(&v)
                ));
                None
            }
        }
    }

    fn finish<T>(self, value: T) -> Result<T, String> {
        if self.errors.is_empty() {
            Ok(value)
        } else {
            Err(self.errors.join("; "))
        }
    }
}

/// `list_terminals` takes no arguments.
pub(crate) fn list(input: &JsValue) -> Result<(), String> {
    Input::new(input, &[]).finish(())
}

/// `read_terminal`: `terminal?`, `lines?` 1..10000, `waitFor?` non-empty, `waitForIdleMs?`
/// 1..120000, `timeoutMs?` 1..120000 (default 10000), `waitForCommand?` (not with `waitFor`),
/// `newOutputOnly?` (only with `waitFor`).
pub(crate) fn read(input: &JsValue) -> Result<ReadArgs, String> {
    let mut i = Input::new(input, &READ_KEYS);
    let terminal = i.terminal();
    let mut a = wait_args(&mut i);
    a.terminal = terminal;
    i.finish(a)
}

/// The arguments `read_terminal` accepts; `type_in_terminal` accepts them too (but `terminal`
/// once).
const READ_KEYS: [&str; 7] = [
    "terminal",
    "lines",
    "waitFor",
    "waitForIdleMs",
    "timeoutMs",
    "waitForCommand",
    "newOutputOnly",
];

/// A boolean argument, `false` when absent.
fn flag(i: &mut Input, key: &str, what: &str) -> bool {
    match i.get(key) {
        None => false,
        Some(v) => v.as_bool().unwrap_or_else(|| {
            i.errors.push(format!(
                "{key} must be a boolean ({what}); got {}",
                describe(&v)
            ));
            false
        }),
    }
}

/// `lines`, `waitFor`, `waitForIdleMs`, `timeoutMs`, `waitForCommand`, `newOutputOnly`.
fn wait_args(i: &mut Input) -> ReadArgs {
    let lines = i.int("lines", MAX_READ_LINES);
    let wait_for = match i.get("waitFor") {
        None => None,
        Some(v) => match v.as_string() {
            Some(s) if !s.is_empty() => Some(s),
            _ => {
                i.errors.push(format!(
                    "waitFor must be a non-empty string, the text to wait for; got {}",
                    describe(&v)
                ));
                None
            }
        },
    };
    let idle_ms = i.int("waitForIdleMs", MAX_IDLE_MS);
    let timeout_ms = i
        .int("timeoutMs", MAX_TIMEOUT_MS)
        .unwrap_or(DEFAULT_TIMEOUT_MS);
    let wait_command = flag(i, "waitForCommand", "true waits until the command finished");
    let new_only = flag(
        i,
        "newOutputOnly",
        "true makes waitFor count only output that arrives after the call started",
    );
    if wait_command && wait_for.is_some() {
        i.errors.push(
            "waitForCommand and waitFor cannot be combined: waitForCommand answers when the \
             command finished, with its output; waitFor waits for text"
                .to_string(),
        );
    }
    if new_only && wait_for.is_none() {
        i.errors.push(
            "newOutputOnly applies to waitFor: give waitFor too (or leave newOutputOnly out)"
                .to_string(),
        );
    }
    ReadArgs {
        terminal: None,
        lines,
        wait_for,
        idle_ms,
        timeout_ms,
        wait_command,
        new_only,
    }
}

/// `type_in_terminal`: `terminal?`, `text` (at most 1 MiB of UTF-8), `submit?` boolean, and
/// `read_terminal`'s wait arguments (`waitForCommand` only with `submit`).
pub(crate) fn type_text(input: &JsValue) -> Result<TypeArgs, String> {
    let mut keys = READ_KEYS.to_vec();
    keys.extend(["text", "submit"]);
    let mut i = Input::new(input, &keys);
    let terminal = i.terminal();
    let text = match i.get("text") {
        None => {
            i.errors
                .push("text is required: the string to type".to_string());
            String::new()
        }
        Some(v) => match v.as_string() {
            Some(s) if s.len() <= MAX_TYPE_BYTES => s,
            Some(s) => {
                i.errors.push(format!(
                    "text is {} bytes as UTF-8; at most {MAX_TYPE_BYTES} bytes (1 MiB) are \
                     accepted: send it in parts",
                    s.len()
                ));
                String::new()
            }
            None => {
                i.errors
                    .push(format!("text must be a string; got {}", describe(&v)));
                String::new()
            }
        },
    };
    let submit = match i.get("submit") {
        None => false,
        Some(v) => v.as_bool().unwrap_or_else(|| {
            i.errors.push(format!(
                "submit must be a boolean (true presses Enter after the text); got {}",
                describe(&v)
            ));
            false
        }),
    };
    let wait = wait_args(&mut i);
    if wait.wait_command && !submit {
        i.errors.push(
            "waitForCommand needs submit: true (the command starts when Enter is pressed)"
                .to_string(),
        );
    }
    i.finish(TypeArgs {
        terminal,
        text,
        submit,
        wait,
    })
}

/// `press_terminal_keys`: `terminal?`, `keys`, an array of 1..64 key chords. Every chord is
/// parsed here; a bad one is named with its index.
pub(crate) fn press(input: &JsValue) -> Result<PressArgs, String> {
    let mut accepted = READ_KEYS.to_vec();
    accepted.push("keys");
    let mut i = Input::new(input, &accepted);
    let terminal = i.terminal();
    let wait = wait_args(&mut i);
    let mut keys = Vec::new();
    match i.get("keys") {
        None => i.errors.push(format!(
            "keys is required: an array of 1..{MAX_KEYS} key names such as [\"Ctrl+C\"]"
        )),
        Some(v) if !Array::is_array(&v) => i.errors.push(format!(
            "keys must be an array of 1..{MAX_KEYS} key names such as [\"Ctrl+C\"]; got {}",
            describe(&v)
        )),
        Some(v) => {
            let arr: Array = v.unchecked_into();
            let n = arr.length() as usize;
            if n == 0 || n > MAX_KEYS {
                i.errors.push(format!(
                    "keys must hold 1..{MAX_KEYS} keys; got {n}: press more in another call"
                ));
            } else {
                let mut bad = Vec::new();
                for (idx, k) in arr.iter().enumerate() {
                    match k.as_string() {
                        None => bad.push(format!("keys[{idx}] is {}, not a string", describe(&k))),
                        Some(s) => match parse_key(&s) {
                            Ok(chord) => keys.push(chord),
                            Err(e) => bad.push(format!(
                                "keys[{idx}] {}: {}",
                                quote(&s),
                                chord_problem(e.kind())
                            )),
                        },
                    }
                }
                if !bad.is_empty() {
                    i.errors.push(format!(
                        "nothing was pressed: {}; accepted: each key {KEYS_HELP}",
                        bad.join(", ")
                    ));
                }
            }
        }
    }
    i.finish(PressArgs {
        terminal,
        keys,
        wait,
    })
}

/// A short description of a bad chord; the accepted grammar is appended once for all of them.
fn chord_problem(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::UnknownKey { name } => format!("unknown key {}", quote(name)),
        ErrorKind::UnknownModifier { name, .. } => format!("unknown modifier {}", quote(name)),
        ErrorKind::RepeatedModifier { name, .. } => {
            format!("modifier {} given more than once", quote(name))
        }
        ErrorKind::EmptyKey => "empty key name".to_string(),
        ErrorKind::UnknownBrokerKey { name } => format!("unknown key {}", quote(name)),
        // Not `{:?}`: Debug would bring core's string escaping into the wasm.
        _ => "invalid key chord".to_string(),
    }
}

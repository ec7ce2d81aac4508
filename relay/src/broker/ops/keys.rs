//! `POST /mcp/keys` (ext), the `send_keys` tool: key names encoded for the program's modes.

use std::time::Duration;

use bytes::Bytes;
use schemars::JsonSchema;
use serde_json::{json, Value};
use wterm_core::keys::{self, Chord};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::broker::hub::Access;
use crate::broker::ordered;
use crate::broker::read::{self, after_from_fields, AfterFields, Origin, ReadArgs, AFTER_FIELDS};
use crate::broker::window::Via;
use crate::broker::window::WindowState;
use crate::ground::fields::{self, Fields};
use crate::ground::limits::{MAX_KEYS, MAX_PACE_MS};
use crate::ground::refusal::unknown_or_off;
use crate::ground::Refusal;

/// A validated `/mcp/keys` request (without the `id`).
#[derive(Debug, Clone, JsonSchema)]
pub struct Keys {
    /// Keys pressed in order, in the grammar both surfaces take ([`keys::keys_doc`]).
    #[serde(rename = "keys")]
    #[schemars(with = "Vec<String>", description = keys::keys_doc(MAX_KEYS))]
    pub chords: Vec<Chord>,
    /// Pause between keys in milliseconds, 0..1000 (default: the window's pace, see set_pace).
    #[serde(rename = "delay_ms")]
    #[schemars(with = "Option<u64>")]
    pub delay: Option<Duration>,
    /// A read after the keys were sent (ext): a wait, as `/mcp/read` takes it.
    #[serde(flatten)]
    #[schemars(with = "AfterFields")]
    pub after: Option<ReadArgs>,
}

impl Keys {
    /// Validates the whole body before anything is sent: `keys` a list of at most [`MAX_KEYS`]
    /// tokens of the key grammar (`400 bad_keys` naming the bad token, `413 too_large`),
    /// `delay_ms` a number in `0..=MAX_PACE_MS` (`400 bad_request` otherwise).
    pub fn from_fields(f: &Fields, via: Via) -> Result<Keys, Refusal> {
        let accepted: Vec<&str> = ["id", "keys", "delay_ms"]
            .into_iter()
            .chain(AFTER_FIELDS)
            .collect();
        fields::only(f, &accepted)?;
        let Some(Value::Array(list)) = fields::get(f, "keys") else {
            return Err(Refusal::BadKeys(
                "keys: accepted: a list of key names such as [\"C-c\", \"Up\", \"Enter\"]".into(),
            ));
        };
        if list.len() > MAX_KEYS {
            return Err(Refusal::TooLarge(format!(
                "{} keys; accepted: at most {MAX_KEYS} a request",
                list.len()
            )));
        }
        let chords = list
            .iter()
            .map(|v| match v {
                Value::String(token) => {
                    keys::parse_key(token).map_err(|e| Refusal::BadKeys(e.to_string()))
                }
                other => Err(Refusal::BadKeys(format!(
                    "{other} is not a string; accepted: key names such as \"Enter\""
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let delay = fields::opt_at_most(f, "delay_ms", MAX_PACE_MS, || {
            Refusal::BadRequest(format!(
                "delay_ms: accepted: a number of milliseconds, 0..{MAX_PACE_MS}"
            ))
        })?
        .map(Duration::from_millis);
        Ok(Keys {
            chords,
            delay,
            after: after_from_fields(f, via)?,
        })
    }
}

impl Operation for Keys {
    const SPEC: Spec = Spec {
        path: "/mcp/keys",
        method: Method::Post,
        tool: "send_keys",
        title: "Press keys",
        description: "Press keys in a terminal, encoded for the program's current modes: \
            [\"C-c\"] interrupts, [\"Esc\", \":\", \"w\", \"q\", \"Enter\"] saves and quits \
            vim, [\"Up\", \"Enter\"] repeats the last shell command. Nothing is sent when one \
            key name is wrong.",
        target: Target::Write,
        admin_only: false,
        ext: true,
        host: HostArg::None,
        read_only: false,
        destructive: true,
        idempotent: false,
    };
    type Answer = Value;

    fn parse(cx: &Cx<'_>, fields: &Fields) -> Result<Self, Refusal> {
        Keys::from_fields(fields, cx.caller.via)
    }

    /// Each key encoded for the program's modes at the moment it is sent (DECCKM, kitty
    /// flags), paced by `delay` or the window's `pace_ms`, in order with the lines an Enter
    /// submits (`ordered`). A flush while keys are still being
    /// paced stops the rest. Answers `{ok, sent}` with the number of keys sent. When the
    /// window's mode drops (a person took it back) while keys are paced, the rest are not sent
    /// and the answer is `{ok, sent, stopped: CODE}`, `CODE` the refusal a new call would get
    /// (`read_only`, `unknown_or_off`, `mcp_disabled`), with no read after it. At a secret
    /// prompt only `["C-c"]` is sent (else `secret_prompt`, nothing sent); one that a key
    /// brought up stops the rest the same way (`stopped: "secret_prompt"`).
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let session = &cx.window()?.session;
        let state = WindowState::of(session).ok_or_else(unknown_or_off)?;
        let delay = self
            .delay
            .unwrap_or_else(|| Duration::from_millis(state.pace_ms()));
        if let Some(args) = &self.after {
            read::check_command_wait(session, args).await?;
        }
        let before = Origin::now(session, state);
        let epoch = session.flush_epoch();
        let mut access = state.subscribe_access();
        access.borrow_and_update();
        let mut sent = 0usize;
        // The call's number in the window's input sequence, taken with its first byte.
        let mut seq = None;
        let mut bytes_sent = 0usize;
        // The refusal that stopped paced keys: the window's mode (or the relay's settings)
        // changed between two keys so that this caller may no longer type.
        let mut stopped = None;
        let all = session.inspect(|l| {
            let modes = l.terminal.modes();
            self.chords
                .iter()
                .flat_map(|c| keys::encode(*c, &modes))
                .collect::<Vec<u8>>()
        });
        ordered::secret_gate(session, &all)?;
        ordered::turn_gate(session, &all)?;
        let author = cx.caller.author();
        if delay.is_zero() {
            let n = all.len();
            let w = ordered::write_numbered(
                session,
                state,
                Bytes::from(all),
                Some(Self::SPEC.tool),
                &author,
            )
            .await;
            seq = w.seq;
            bytes_sent = w.bytes;
            match w.stopped {
                None => sent = self.chords.len(),
                // A line the keys submitted brought up a secret prompt: the keys after it
                // were not sent (how many is not known: keys are not split by Enter).
                Some(ordered::Stopped::SecretPrompt) => stopped = Some(Refusal::SecretPrompt),
                Some(ordered::Stopped::Exited) => {}
            }
            debug_assert!(bytes_sent <= n);
        } else {
            for (i, chord) in self.chords.iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(delay).await;
                }
                if session.flush_epoch() != epoch {
                    break;
                }
                if access.has_changed().unwrap_or(false) {
                    access.borrow_and_update();
                    if let Err(refusal) = cx.still(Access::Write) {
                        stopped = Some(refusal);
                        break;
                    }
                }
                let bytes = session.inspect(|l| keys::encode(*chord, &l.terminal.modes()));
                let n = bytes.len();
                let (ok, s) = match seq {
                    None => {
                        let w = ordered::write_numbered(
                            session,
                            state,
                            Bytes::from(bytes),
                            Some(Self::SPEC.tool),
                            &author,
                        )
                        .await;
                        (w.stopped, w.seq)
                    }
                    Some(k) => {
                        if ordered::secret_gate(session, &bytes).is_err() {
                            (Some(ordered::Stopped::SecretPrompt), Some(k))
                        } else {
                            state.input_more(k, n);
                            let w = ordered::write_numbered(
                                session,
                                state,
                                Bytes::from(bytes),
                                None,
                                &author,
                            )
                            .await;
                            (w.stopped, Some(k))
                        }
                    }
                };
                seq = s;
                match ok {
                    None => {}
                    Some(ordered::Stopped::SecretPrompt) => {
                        stopped = Some(Refusal::SecretPrompt);
                        break;
                    }
                    Some(ordered::Stopped::Exited) => break,
                }
                sent += 1;
                bytes_sent += n;
            }
        }
        if let Some(refusal) = stopped {
            // No read after it: the caller may not be allowed to read either.
            return Ok(
                json!({ "ok": true, "sent": sent, "seq": seq, "bytes": bytes_sent,
                              "stopped": refusal.code() }),
            );
        }
        let mut answer = match &self.after {
            None => json!({ "ok": true }),
            Some(args) => {
                let gate = || cx.still(Access::Read);
                let redactor = cx.redactor();
                json!(
                    read::read_after(session, state, args, before, redactor.as_ref(), &gate)
                        .await?
                )
            }
        };
        answer["sent"] = json!(sent);
        answer["seq"] = json!(seq);
        answer["bytes"] = json!(bytes_sent);
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: Value) -> Fields {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn keys_are_validated_as_a_whole() {
        let ok = Keys::from_fields(
            &f(json!({"keys": ["C-c", "Up", "x", "Enter"], "delay_ms": 1000})),
            Via::Route,
        )
        .unwrap();
        assert_eq!(ok.chords.len(), 4);
        assert_eq!(ok.delay, Some(Duration::from_millis(MAX_PACE_MS)));
        // Over the limit is refused, not lowered (newcomer report: 5000 paced at 1000).
        for bad in [json!(5000), json!(-1), json!(1001)] {
            match Keys::from_fields(&f(json!({"keys": ["x"], "delay_ms": bad})), Via::Route) {
                Err(Refusal::BadRequest(d)) => assert!(d.contains("0..1000"), "{d}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        match Keys::from_fields(&f(json!({"keys": ["Enter", "Bogus"]})), Via::Route).unwrap_err() {
            Refusal::BadKeys(d) => assert!(d.contains("Bogus"), "{d}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            Keys::from_fields(&f(json!({"keys": "Enter"})), Via::Route),
            Err(Refusal::BadKeys(_))
        ));
        assert!(matches!(
            Keys::from_fields(&f(json!({"keys": [1]})), Via::Route),
            Err(Refusal::BadKeys(_))
        ));
        assert!(matches!(
            Keys::from_fields(&f(json!({"keys": vec!["a"; MAX_KEYS + 1]})), Via::Route),
            Err(Refusal::TooLarge(_))
        ));
        assert!(matches!(
            Keys::from_fields(&f(json!({"keys": [], "delay_ms": "1"})), Via::Route),
            Err(Refusal::BadRequest(_))
        ));
    }
}

//! `POST /mcp/input`, the `send_input` tool: text to the program, verbatim.

use bytes::Bytes;
use schemars::JsonSchema;
use serde_json::{json, Value};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::broker::hub::Access;
use crate::broker::ordered::{self, Stopped};
use crate::broker::read::{self, after_from_fields, AfterFields, Origin, ReadArgs, AFTER_FIELDS};
use crate::broker::window::Via;
use crate::broker::window::WindowState;
use crate::ground::fields::{self, Fields};
use crate::ground::limits::MAX_INPUT_BYTES;
use crate::ground::refusal::unknown_or_off;
use crate::ground::Refusal;

/// A `/mcp/input` request (without the `id`).
#[derive(Debug, Clone, JsonSchema)]
pub struct Input {
    /// The text to type. "\n" and "\r\n" become one Enter each; control characters such as
    /// "\u0003" (Ctrl-C) pass unchanged.
    #[schemars(with = "String")]
    pub data: Bytes,
    /// A read after writing (ext): a wait, as `/mcp/read` takes it.
    #[serde(flatten)]
    #[schemars(with = "AfterFields")]
    pub after: Option<ReadArgs>,
}

impl Input {
    /// `data`: a string (`400 bad_data`) of at most [`MAX_INPUT_BYTES`] (`413 too_large`).
    pub fn from_fields(f: &Fields, via: Via) -> Result<Input, Refusal> {
        let accepted: Vec<&str> = ["id", "data"].into_iter().chain(AFTER_FIELDS).collect();
        fields::only(f, &accepted)?;
        let data = match fields::get(f, "data") {
            Some(Value::String(s)) if s.len() > MAX_INPUT_BYTES => {
                return Err(Refusal::TooLarge(format!(
                    "{} bytes; accepted: at most {MAX_INPUT_BYTES} bytes a request",
                    s.len()
                )))
            }
            Some(Value::String(s)) => Bytes::copy_from_slice(s.as_bytes()),
            _ => return Err(Refusal::BadData),
        };
        Ok(Input {
            data,
            after: after_from_fields(f, via)?,
        })
    }
}

impl Operation for Input {
    const SPEC: Spec = Spec {
        path: "/mcp/input",
        method: Method::Post,
        tool: "send_input",
        title: "Type text",
        description: "Type text into a terminal, as a person typing: \"ls -l\\n\" runs ls. \
            \"\\n\" and \"\\r\\n\" become one Enter each; other control characters pass \
            unchanged. For special keys (arrows, Ctrl-C, Esc) use send_keys. It can wait \
            afterwards and answer the screen as read_screen does (wait_for_text with \
            new_output, wait_for_command, ...); to run one shell command and get its exit code \
            and output, use run_command. Text with Enter is refused, nothing sent, while a \
            person is typing a line there (person_typing).",
        target: Target::Write,
        admin_only: false,
        ext: false,
        host: HostArg::None,
        read_only: false,
        destructive: true,
        idempotent: false,
    };
    type Answer = Value;

    fn parse(cx: &Cx<'_>, fields: &Fields) -> Result<Self, Refusal> {
        Input::from_fields(fields, cx.caller.via)
    }

    /// `data` verbatim to the program, in order with the lines it submits (`ordered`) →
    /// `{ok: true, seq, bytes}`; with a wait, then the read's answer (as `/mcp/read`, counting
    /// from before the write) with `seq` and `bytes`. Refused with `secret_prompt` (nothing
    /// sent) at a secret prompt, `person_typing` when `data` holds Enter while a person types a
    /// line at a page; a prompt that a line of `data` brought up stops the rest,
    /// answered with `stopped: "secret_prompt"` and the `bytes` sent.
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let session = &cx.window()?.session;
        let state = WindowState::of(session).ok_or_else(unknown_or_off)?;
        if let Some(args) = &self.after {
            read::check_command_wait(session, args).await?;
        }
        ordered::secret_gate(session, &self.data)?;
        ordered::turn_gate(session, &self.data)?;
        let before = Origin::now(session, state);
        let written = ordered::write_numbered(
            session,
            state,
            self.data,
            Some(Self::SPEC.tool),
            &cx.caller.author(),
        )
        .await;
        let seq = written.seq;
        if written.stopped == Some(Stopped::SecretPrompt) {
            if seq.is_none() {
                return Err(Refusal::SecretPrompt);
            }
            // No read after it: the caller is told to stop, not shown the prompt's screen.
            return Ok(json!({ "ok": true, "seq": seq, "bytes": written.bytes,
                              "stopped": Refusal::SecretPrompt.code() }));
        }
        let mut answer = match self.after {
            None => json!({ "ok": true }),
            Some(args) => {
                let gate = || cx.still(Access::Read);
                let redactor = cx.redactor();
                json!(
                    read::read_after(session, state, &args, before, redactor.as_ref(), &gate)
                        .await?
                )
            }
        };
        // Spec "Input sequence": `seq` null when nothing was sent (empty data).
        answer["seq"] = json!(seq);
        answer["bytes"] = json!(written.bytes);
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
    fn input_limits() {
        assert_eq!(
            Input::from_fields(&f(json!({"data": "ls\r"})), Via::Route)
                .unwrap()
                .data,
            Bytes::from("ls\r")
        );
        assert_eq!(
            Input::from_fields(&f(json!({"data": 5})), Via::Route).unwrap_err(),
            Refusal::BadData
        );
        assert_eq!(
            Input::from_fields(&f(json!({})), Via::Route).unwrap_err(),
            Refusal::BadData
        );
        let after =
            Input::from_fields(&f(json!({"data": "x", "wait_for_text": "y"})), Via::Route).unwrap();
        assert!(after.after.is_some_and(|a| a.wait.is_some()));
        for bad in [
            json!({"data": "x", "timeout_ms": 5}),
            json!({"data": "x", "new_output": true}),
            json!({"data": "x", "wait_for_text": "a", "wait_for_idle": 5}),
        ] {
            assert!(
                Input::from_fields(&f(bad.clone()), Via::Route).is_err(),
                "{bad}"
            );
        }
        let big = "x".repeat(MAX_INPUT_BYTES + 1);
        assert!(matches!(
            Input::from_fields(&f(json!({ "data": big })), Via::Route),
            Err(Refusal::TooLarge(_))
        ));
        let edge = "é".repeat(MAX_INPUT_BYTES / 2);
        assert!(Input::from_fields(&f(json!({ "data": edge })), Via::Route).is_ok());
    }
}

//! `POST /mcp/input`, the `send_input` tool: text to the program, verbatim.

use bytes::Bytes;
use schemars::JsonSchema;
use serde_json::{json, Value};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::broker::ordered;
use crate::broker::window::WindowState;
use crate::ground::fields::{self, Fields};
use crate::ground::limits::MAX_INPUT_BYTES;
use crate::ground::refusal::unknown_or_off;
use crate::ground::Refusal;

/// A `/mcp/input` request (without the `id`).
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
pub struct Input {
    /// The text to type. "\n" and "\r\n" become one Enter each; control characters such as
    /// "\u0003" (Ctrl-C) pass unchanged.
    #[schemars(with = "String")]
    pub data: Bytes,
}

impl Input {
    /// `data`: a string (`400 bad_data`) of at most [`MAX_INPUT_BYTES`] (`413 too_large`).
    pub fn from_fields(f: &Fields) -> Result<Input, Refusal> {
        fields::only(f, &["id", "data"])?;
        match fields::get(f, "data") {
            Some(Value::String(s)) if s.len() > MAX_INPUT_BYTES => Err(Refusal::TooLarge(format!(
                "{} bytes; accepted: at most {MAX_INPUT_BYTES} bytes a request",
                s.len()
            ))),
            Some(Value::String(s)) => Ok(Input {
                data: Bytes::copy_from_slice(s.as_bytes()),
            }),
            _ => Err(Refusal::BadData),
        }
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
            unchanged. For special keys (arrows, Ctrl-C, Esc) use send_keys. Then read_screen \
            with wait_for_text to see the result.",
        target: Target::Write,
        admin_only: false,
        ext: false,
        host: HostArg::None,
        read_only: false,
        destructive: true,
        idempotent: false,
    };
    type Answer = Value;

    fn parse(_: &Cx<'_>, fields: &Fields) -> Result<Self, Refusal> {
        Input::from_fields(fields)
    }

    /// `data` verbatim to the program, in order with the lines it submits (`ordered`) →
    /// `{ok: true}`.
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let session = &cx.window()?.session;
        let state = WindowState::of(session).ok_or_else(unknown_or_off)?;
        ordered::write(session, state, self.data).await;
        Ok(json!({ "ok": true }))
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
            Input::from_fields(&f(json!({"data": "ls\r"})))
                .unwrap()
                .data,
            Bytes::from("ls\r")
        );
        assert_eq!(
            Input::from_fields(&f(json!({"data": 5}))),
            Err(Refusal::BadData)
        );
        assert_eq!(Input::from_fields(&f(json!({}))), Err(Refusal::BadData));
        let big = "x".repeat(MAX_INPUT_BYTES + 1);
        assert!(matches!(
            Input::from_fields(&f(json!({ "data": big }))),
            Err(Refusal::TooLarge(_))
        ));
        let edge = "é".repeat(MAX_INPUT_BYTES / 2);
        assert!(Input::from_fields(&f(json!({ "data": edge }))).is_ok());
    }
}

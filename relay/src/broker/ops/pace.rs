//! `POST /mcp/pace`, the `set_pace` tool: a window's default pause between keys.

use schemars::JsonSchema;
use serde_json::{json, Value};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::broker::window::WindowState;
use crate::ground::fields::{self, Fields};
use crate::ground::limits::MAX_PACE_MS;
use crate::ground::refusal::unknown_or_off;
use crate::ground::Refusal;

/// A `/mcp/pace` request (without the `id`).
#[derive(Debug, PartialEq, Eq, JsonSchema)]
pub struct Pace {
    /// Default pause between send_keys keys in milliseconds, 0..1000.
    pub pace_ms: u64,
}

impl Pace {
    /// `pace_ms`: a number (`400 bad_pace`), clamped to `0..=MAX_PACE_MS`.
    pub fn from_fields(f: &Fields) -> Result<Pace, Refusal> {
        fields::only(f, &["id", "pace_ms"])?;
        let pace_ms = fields::opt_clamped(f, "pace_ms", MAX_PACE_MS, || Refusal::BadPace)?
            .ok_or(Refusal::BadPace)?;
        Ok(Pace { pace_ms })
    }
}

impl Operation for Pace {
    const SPEC: Spec = Spec {
        path: "/mcp/pace",
        method: Method::Post,
        tool: "set_pace",
        title: "Set key pacing",
        description: "Set a terminal's default pause between send_keys keys (for programs that \
            drop fast input).",
        target: Target::Write,
        admin_only: false,
        ext: false,
        host: HostArg::None,
        read_only: false,
        destructive: false,
        idempotent: true,
    };
    type Answer = Value;

    fn parse(_: &Cx<'_>, fields: &Fields) -> Result<Self, Refusal> {
        Pace::from_fields(fields)
    }

    /// Sets the window's default pause between keys (not persisted) → `{ok, id, pace_ms}`.
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let session = &cx.window()?.session;
        WindowState::of(session)
            .ok_or_else(unknown_or_off)?
            .set_pace_ms(self.pace_ms);
        Ok(json!({ "ok": true, "id": session.id(), "pace_ms": self.pace_ms }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: Value) -> Fields {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn pace_is_clamped_or_refused() {
        let pace = |v| Pace::from_fields(&f(v)).map(|p| p.pace_ms);
        assert_eq!(pace(json!({"pace_ms": 5000})), Ok(MAX_PACE_MS));
        assert_eq!(pace(json!({"pace_ms": -1})), Ok(0));
        assert_eq!(pace(json!({"pace_ms": "5"})), Err(Refusal::BadPace));
        assert_eq!(pace(json!({})), Err(Refusal::BadPace));
    }
}

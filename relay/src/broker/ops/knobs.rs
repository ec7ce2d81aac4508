//! `POST /mcp/knobs` (ext, admin), the `set_mcp_knobs` tool: the relay's `default_mode` and
//! `allow_launch`.

use schemars::JsonSchema;
use serde_json::{json, Value};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::broker::window::{mode_field, Mode};
use crate::ground::fields::{self, Fields};
use crate::ground::Refusal;

/// A validated `/mcp/knobs` request. Never changes tokens or `enabled`.
#[derive(Debug, JsonSchema)]
pub struct Knobs {
    /// The mode windows without their own mode get: "off", "read" or "readwrite".
    #[schemars(with = "Option<String>")]
    pub default_mode: Option<Mode>,
    /// Whether MCP clients may launch terminals.
    pub allow_launch: Option<bool>,
}

impl Operation for Knobs {
    const SPEC: Spec = Spec {
        path: "/mcp/knobs",
        method: Method::Post,
        tool: "set_mcp_knobs",
        title: "Change relay MCP settings (admin)",
        description: "Admin: change a relay's default_mode or allow_launch.",
        target: Target::None,
        admin_only: true,
        ext: true,
        host: HostArg::Required,
        read_only: false,
        destructive: false,
        idempotent: true,
    };
    type Answer = Value;

    /// `{default_mode?, allow_launch?}`.
    fn parse(_: &Cx<'_>, f: &Fields) -> Result<Self, Refusal> {
        fields::only(f, &["default_mode", "allow_launch"])?;
        Ok(Knobs {
            default_mode: fields::get(f, "default_mode").map(mode_field).transpose()?,
            allow_launch: fields::opt_bool(f, "allow_launch")?,
        })
    }

    /// → `{ok, default_mode, allow_launch}`.
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let s = cx
            .broker
            .update_settings(|s, _| {
                if let Some(m) = self.default_mode {
                    s.default_mode = m;
                }
                if let Some(a) = self.allow_launch {
                    s.allow_launch = a;
                }
                Ok(())
            })
            .await?;
        Ok(json!({
            "ok": true,
            "default_mode": s.stored.default_mode,
            "allow_launch": s.stored.allow_launch,
        }))
    }
}

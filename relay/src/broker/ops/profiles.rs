//! `GET /mcp/profiles`, the `list_profiles` tool: the launchable profile names.

use schemars::JsonSchema;
use serde_json::{json, Value};

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::ground::fields::Fields;
use crate::ground::Refusal;

/// `GET /mcp/profiles`: no fields.
#[derive(Debug, JsonSchema)]
pub struct ListProfiles {}

impl Operation for ListProfiles {
    const SPEC: Spec = Spec {
        path: "/mcp/profiles",
        method: Method::Get,
        tool: "list_profiles",
        title: "List launch profiles",
        description: "The launchable profile names (for launch_terminal) and the default.",
        target: Target::None,
        admin_only: false,
        ext: false,
        host: HostArg::Optional,
        read_only: true,
        destructive: false,
        idempotent: true,
    };
    type Answer = Value;

    fn parse(_: &Cx<'_>, _: &Fields) -> Result<Self, Refusal> {
        Ok(ListProfiles {})
    }

    /// `{default, profiles: [names]}`, never commands.
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let p = &cx.broker.profiles;
        Ok(json!({ "default": p.default_name(), "profiles": p.names() }))
    }
}

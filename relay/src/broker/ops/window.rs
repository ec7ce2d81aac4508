//! `POST /mcp/window` (ext), the `set_window` tool: a window's scope and mode, changed by its
//! launcher (the launch handle) or an admin.

use schemars::JsonSchema;
use serde_json::Value;

use super::spec::{Cx, HostArg, Method, Operation, Spec, Target};
use crate::broker::window::{mode_field, scope_field, window_answer, Mode, Scope};
use crate::ground::fields::{self, Fields};
use crate::ground::refusal::unknown_or_off;
use crate::ground::Refusal;

/// A validated `/mcp/window` request (without the `id`). A field left out is left alone.
#[derive(Debug, JsonSchema)]
pub struct EditWindow {
    /// Tag the window with this scope (only clients declaring it see the window).
    #[schemars(with = "Option<String>")]
    pub scope: Option<Scope>,
    /// "off", "read" or "readwrite".
    #[schemars(with = "Option<String>")]
    pub mode: Option<Mode>,
    /// Remove the window's scope.
    #[schemars(with = "Option<bool>")]
    pub clear_scope: bool,
    /// Let the window inherit the relay's default mode.
    #[schemars(with = "Option<bool>")]
    pub clear_mode: bool,
}

impl Operation for EditWindow {
    const SPEC: Spec = Spec {
        path: "/mcp/window",
        method: Method::Post,
        tool: "set_window",
        title: "Change a window's scope or mode",
        description: "Change a window's scope or mode: allowed for windows this server \
            launched, or with the admin token. A field left out is left alone.",
        target: Target::Edit,
        admin_only: false,
        ext: true,
        host: HostArg::None,
        read_only: false,
        destructive: false,
        idempotent: true,
    };
    type Answer = Value;

    /// `{id, handle?, scope?, mode?, clear_scope?, clear_mode?}`. Needs the window's launch
    /// `handle` or the admin credential, checked before any other field: without either,
    /// `404 unknown_or_off` when the caller could not see the window anyway (as every route
    /// answers), else `403 admin_required`.
    fn parse(cx: &Cx<'_>, f: &Fields) -> Result<Self, Refusal> {
        let window = cx.window()?;
        let handle = fields::opt_str(f, "handle")?;
        let owner = handle.is_some_and(|h| window.meta.owner.as_ref().is_some_and(|o| o.is_of(h)));
        if !(cx.caller.admin || owner) {
            return Err(
                if window.mode != Mode::Off && cx.caller.sees(&window.meta, window.mode) {
                    Refusal::AdminRequired
                } else {
                    unknown_or_off()
                },
            );
        }
        fields::only(
            f,
            &["id", "handle", "scope", "mode", "clear_scope", "clear_mode"],
        )?;
        let scope = fields::get(f, "scope").map(scope_field).transpose()?;
        let mode = fields::get(f, "mode").map(mode_field).transpose()?;
        let clear_scope = fields::opt_bool(f, "clear_scope")?.unwrap_or(false);
        let clear_mode = fields::opt_bool(f, "clear_mode")?.unwrap_or(false);
        if (scope.is_some() && clear_scope) || (mode.is_some() && clear_mode) {
            return Err(Refusal::BadRequest(
                "give a field or its clear_ flag, not both".into(),
            ));
        }
        Ok(EditWindow {
            scope,
            mode,
            clear_scope,
            clear_mode,
        })
    }

    /// → `{ok, id, scope, mode, effective_mode}` (`mode` is the window's own, `null` =
    /// inherit); works whatever the window's mode or scope.
    async fn run(self, cx: &Cx<'_>) -> Result<Value, Refusal> {
        let session = &cx.window()?.session;
        let meta = cx
            .broker
            .commit_meta(session, |m| {
                let mut m = m.clone();
                if self.clear_scope {
                    m.scope = None;
                } else if self.scope.is_some() {
                    m.scope = self.scope;
                }
                if self.clear_mode {
                    m.mode = None;
                } else if self.mode.is_some() {
                    m.mode = self.mode;
                }
                m
            })
            .await?;
        let default_mode = cx.broker.settings().stored.default_mode;
        Ok(window_answer(session.id(), &meta, default_mode))
    }
}

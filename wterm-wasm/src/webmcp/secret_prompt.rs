//! Secret prompts on the page (spec `webmcp-tools.md`, "Secret prompts"). A page has no PTY:
//! the relay reads the line discipline and tells the page (`setSecretPrompt`, called by the
//! relay client). While a prompt is shown the typing tools refuse agent input by the core's
//! rule ([`wterm_core::agent::secret_prompt`]), a `waitForCommand` ends, the state says
//! `secretPrompt: true`, and a notice at the terminal tells the person that it waits for them.

use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use wterm_core::agent::secret_prompt::{self, CODE};

use crate::term::Inner;

/// What the relay last said of the terminal's line discipline.
#[derive(Default)]
pub(crate) struct SecretPrompt {
    /// A secret prompt is shown (canonical mode, echo off).
    pub(crate) active: bool,
    /// The person let agents type at this window's secret prompts.
    pub(crate) agents_may_type: bool,
    /// The notice shown at the terminal while `active`; made the first time.
    notice: Option<HtmlElement>,
}

/// The notice's text: what asks, and that agents cannot see or type it.
fn notice_text(agents_may_type: bool) -> &'static str {
    if agents_may_type {
        "Password prompt: the terminal is waiting for a secret. Agents may type here (allowed \
         in this window's settings)."
    } else {
        "Password prompt: the terminal is waiting for you to type a secret. Agents cannot type \
         it or see it."
    }
}

/// Records the relay's word (`active`, `agents_may_type`), shows or hides the notice, and
/// checks the waits (a `waitForCommand` ends at a prompt).
pub(crate) fn set(inner: &mut Inner, active: bool, agents_may_type: bool) {
    let s = &mut inner.mcp.secret;
    let changed = s.active != active || s.agents_may_type != agents_may_type;
    s.active = active;
    s.agents_may_type = agents_may_type;
    if s.notice.is_none() && active {
        s.notice = inner.dom.as_ref().and_then(|d| make_notice(&d.root));
    }
    if let Some(el) = &s.notice {
        el.set_hidden(!active);
        el.set_text_content(Some(notice_text(agents_may_type)));
    }
    if changed {
        super::calls::check(inner, None);
    }
}

/// The notice element, at the top of the terminal, read out by screen readers.
fn make_notice(root: &HtmlElement) -> Option<HtmlElement> {
    let doc = root.owner_document()?;
    let el: HtmlElement = doc.create_element("div").ok()?.unchecked_into();
    el.set_class_name("wterm-secret");
    el.set_attribute("role", "status").ok()?;
    root.append_child(&el).ok()?;
    Some(el)
}

/// `Err(message)` when agent input `bytes` may not go to the terminal now (the core's rule);
/// the message names the code, what is wrong and what is accepted.
pub(crate) fn gate(inner: &Inner, bytes: &[u8]) -> Result<(), String> {
    let s = &inner.mcp.secret;
    if secret_prompt::admits(s.active, s.agents_may_type, bytes) {
        Ok(())
    } else {
        Err(refusal())
    }
}

/// The error a typing tool answers at a secret prompt.
pub(crate) fn refusal() -> String {
    format!(
        "{CODE}: {}",
        secret_prompt::detail(super::tools::Tool::Press.name())
    )
}

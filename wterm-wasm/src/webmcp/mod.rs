//! WebMCP: the four terminal tools registered with the page's model context (spec
//! `webmcp-tools.md`).
//!
//! - This file: the page registry (one per document, since the wasm module is): the terminals
//!   with WebMCP on and ONE registration of each tool shared by all of them; the provider
//!   (`document.modelContext`, else `navigator.modelContext`) and the hand-written
//!   `registerTool` binding. `list_terminals`/`read_terminal` are registered while any terminal
//!   has WebMCP on, `type_in_terminal`/`press_terminal_keys` while any of them is writable.
//!   A registration carries the page's hints and origins (`consequentialHint`, `exposedTo`);
//!   when those change, the tools concerned are registered again.
//! - `registry`: names (de-duplicated) and the choice of terminal for a call.
//! - `tools`: the tool definitions and what each call does; `args`: argument checks.
//! - `calls`: calls in progress, owned by their terminal; `wait`: when a wait is over.
//! - `redaction`: secrets replaced in everything the tools answer (not on the screen).
//!
//! Re-entrancy: the registry's `RefCell` is never borrowed while page code runs (the provider's
//! `registerTool`, a console method a page may have replaced); such calls are collected under
//! the borrow and made after it.

mod args;
mod calls;
pub(crate) mod command;
mod redaction;
pub(crate) mod registry;
pub(crate) mod secret_prompt;
mod tools;
mod turns;

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

pub(crate) use calls::{run_awaiting_soon, run_due_check, Calls};
pub(crate) use turns::{answer_interrupted, hold_person_input, Hold};

use crate::js::{quote, WebMcpConfig};
use crate::term::Inner;
use registry::{Entries, Target};
use tools::{Tool, CONSEQUENTIAL};

#[wasm_bindgen]
extern "C" {
    /// A WebMCP provider: `document.modelContext` (Chromium) or an older
    /// `navigator.modelContext` polyfill.
    type ModelContext;

    /// `registerTool(tool, {signal})`: the current API returns a Promise that rejects on a
    /// duplicate or invalid name (and when the signal is aborted first); older drafts return a
    /// handle with `unregister()`. May throw.
    #[wasm_bindgen(method, catch, js_name = registerTool)]
    fn register_tool(
        this: &ModelContext,
        tool: &Object,
        options: &Object,
    ) -> Result<JsValue, JsValue>;
}

/// The execute function of one tool, made once and kept for the module's life: a provider may
/// hold on to it after the tool is unregistered, and calling a dropped closure throws.
type Execute = Closure<dyn FnMut(JsValue, JsValue) -> JsValue>;

/// What a registration was made with, beyond the tool itself: when the page's terminals
/// change it, the tool is registered again.
#[derive(Clone, PartialEq, Eq)]
struct Shape {
    /// `annotations.consequentialHint: true` (the typing tools only).
    consequential: bool,
    /// `exposedTo` of the registration options; empty: left out.
    exposed_to: Vec<String>,
}

/// One live registration of a tool.
struct Registration {
    shape: Shape,
    /// Aborting it unregisters the tool (current API).
    controller: AbortController,
    /// The handle an older provider returned (directly or from its Promise), to `unregister()`.
    handle: Rc<RefCell<Option<JsValue>>>,
    /// Cleared when unregistered, so a late handle is unregistered at once and a late rejection
    /// caused by our own abort is not reported.
    live: Rc<Cell<bool>>,
}

#[derive(Default)]
struct Slot {
    execute: Option<Execute>,
    registration: Option<Registration>,
}

#[derive(Default)]
struct Page {
    entries: Entries,
    /// The provider the tools are (or will be) registered with.
    provider: Option<JsValue>,
    slots: [Slot; 4],
}

thread_local! {
    static PAGE: RefCell<Page> = RefCell::new(Page::default());
    /// This wasm module's token in [`OWNER_KEY`].
    static MODULE: Object = Object::new();
}

/// The property of `globalThis` holding the token of the wterm-wasm module whose terminals
/// have WebMCP on: tool names are page-wide, and the core (`wterm-wasm`) and full
/// (`wterm-wasm/full`) entries are separate modules with separate registries, so the second
/// one's registrations were refused by the provider ("Duplicate tool name").
const OWNER_KEY: &str = "__wtermWebMCPModule";

/// Refuses WebMCP for a terminal of this module while another wterm-wasm module in the page has
/// terminals with WebMCP on.
pub(crate) fn check_owner() -> Result<(), JsError> {
    let owner = Reflect::get(&js_sys::global(), &OWNER_KEY.into()).unwrap_or_default();
    if owner.is_undefined() || MODULE.with(|me| Object::is(&owner, me)) {
        return Ok(());
    }
    Err(JsError::new(
        "webmcp: another wterm-wasm module in this page has terminals with WebMCP on (the core \
         \"wterm-wasm\" and the full \"wterm-wasm/full\" entries are separate modules, and tool \
         names are page-wide); use one entry in a page, or webmcp: false for this terminal",
    ))
}

/// Marks this module as the page's WebMCP owner while it has terminals with WebMCP on.
fn mark_owner(any: bool) {
    let global = js_sys::global();
    MODULE.with(|me| {
        let owner = Reflect::get(&global, &OWNER_KEY.into()).unwrap_or_default();
        if any && owner.is_undefined() {
            let _ = Reflect::set(&global, &OWNER_KEY.into(), me);
        } else if !any && Object::is(&owner, me) {
            let _ = Reflect::delete_property(global.unchecked_ref::<Object>(), &OWNER_KEY.into());
        }
    });
}

/// A tool to register, with what its registration needs.
struct Register {
    provider: JsValue,
    tool: Tool,
    definition: Object,
    options: Object,
    /// The definition carries `consequentialHint`, which a provider following an older draft
    /// may refuse: then it is registered again without it.
    fallback: bool,
    handle: Rc<RefCell<Option<JsValue>>>,
    live: Rc<Cell<bool>>,
}

/// What to do with the provider once the registry is released.
enum Action {
    Register(Register),
    Unregister(Registration),
    Warn(String),
}

/// The provider on this page, if any: `document.modelContext`, else `navigator.modelContext`,
/// whichever has a `registerTool` function.
fn detect_provider() -> Option<JsValue> {
    let window = web_sys::window()?;
    let holders: [JsValue; 2] = [
        window.document().map(JsValue::from).unwrap_or_default(),
        window.navigator().into(),
    ];
    holders.iter().find_map(|holder| {
        if !holder.is_object() {
            return None;
        }
        let mc = Reflect::get(holder, &"modelContext".into()).ok()?;
        let register = Reflect::get(&mc, &"registerTool".into()).ok()?;
        (mc.is_object() && register.is_function()).then_some(mc)
    })
}

/// Turns WebMCP on with `cfg` (or updates it: rename, description, readOnly), or off with
/// `None`, for the initialized terminal `id`; then registers or unregisters tools to match.
/// The caller ends the terminal's calls in progress when it withdraws.
pub(crate) fn apply(id: u64, term: Weak<RefCell<Inner>>, cfg: Option<&WebMcpConfig>) {
    // Checked each time a terminal joins, so a polyfill loaded before that counts; a provider
    // already holding our tools is kept.
    let detected = cfg.and_then(|_| detect_provider());
    let mut actions = Vec::new();
    PAGE.with(|p| {
        let Ok(mut p) = p.try_borrow_mut() else {
            actions.push(Action::Warn(
                "wterm: WebMCP settings not applied: busy".into(),
            ));
            return;
        };
        match cfg {
            Some(cfg) => {
                if let Some((asked, given)) = p.entries.set(id, term, cfg) {
                    actions.push(Action::Warn(format!(
                        "wterm: the WebMCP terminal name {} is already in use on this \
                         page; this terminal is {}",
                        quote(&asked),
                        quote(&given)
                    )));
                }
                let registered = p.slots.iter().any(|s| s.registration.is_some());
                if !registered && detected.is_some() {
                    p.provider = detected;
                }
            }
            None => {
                p.entries.remove(id);
            }
        }
        sync(&mut p, &mut actions);
    });
    perform(actions);
}

/// Forgets terminals that were freed without `destroy()` and updates the registrations.
pub(crate) fn prune() {
    let mut actions = Vec::new();
    PAGE.with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            if p.entries.prune() {
                sync(&mut p, &mut actions);
            }
        }
    });
    perform(actions);
}

/// Decides which tools must be registered now (under the registry borrow; nothing is called).
fn sync(p: &mut Page, actions: &mut Vec<Action>) {
    p.entries.prune();
    let any = !p.entries.is_empty();
    let writable = p.entries.any_writable();
    let consequential = p.entries.any_consequential();
    let exposed_to = p.entries.exposed_to();
    let provider = p.provider.clone();
    mark_owner(any);
    for tool in Tool::ALL {
        let want = if tool.writes() { writable } else { any };
        let shape = Shape {
            consequential: tool.writes() && consequential,
            exposed_to: exposed_to.clone(),
        };
        let slot = &mut p.slots[tool.index()];
        // A registration made with other hints or origins is replaced: providers take a tool's
        // definition once, at registration.
        if slot
            .registration
            .as_ref()
            .is_some_and(|r| !want || r.shape != shape)
        {
            if let Some(r) = slot.registration.take() {
                actions.push(Action::Unregister(r));
            }
        }
        let (true, None, Some(provider)) = (want, &slot.registration, &provider) else {
            continue;
        };
        let execute = slot.execute.get_or_insert_with(|| {
            Closure::new(move |input: JsValue, client: JsValue| tools::execute(tool, input, client))
        });
        let definition = tool.definition(execute.as_ref(), shape.consequential);
        let Ok(controller) = AbortController::new() else {
            continue;
        };
        let options = Object::new();
        let _ = Reflect::set(&options, &"signal".into(), &controller.signal());
        if !shape.exposed_to.is_empty() {
            let origins: js_sys::Array = shape.exposed_to.iter().map(JsValue::from).collect();
            let _ = Reflect::set(&options, &"exposedTo".into(), &origins);
        }
        let registration = Registration {
            controller,
            handle: Rc::new(RefCell::new(None)),
            live: Rc::new(Cell::new(true)),
            shape,
        };
        actions.push(Action::Register(Register {
            provider: provider.clone(),
            tool,
            definition,
            options,
            fallback: registration.shape.consequential,
            handle: registration.handle.clone(),
            live: registration.live.clone(),
        }));
        slot.registration = Some(registration);
    }
}

fn warn(message: &str, detail: &JsValue) {
    web_sys::console::warn_2(&JsValue::from_str(message), detail);
}

/// Calls `handle.unregister()` when the handle has one (older providers). An exception is
/// ignored: a provider that also honours the signal may already have removed the tool.
fn unregister_handle(handle: &JsValue) {
    if !handle.is_object() {
        return;
    }
    if let Ok(f) = Reflect::get(handle, &"unregister".into()) {
        if let Some(f) = f.dyn_ref::<Function>() {
            let _ = f.call0(handle);
        }
    }
}

/// Makes the provider calls decided by [`sync`], with no registry borrow held.
fn perform(actions: Vec<Action>) {
    for action in actions {
        match action {
            Action::Warn(message) => web_sys::console::warn_1(&message.into()),
            Action::Unregister(r) => {
                r.live.set(false);
                r.controller.abort();
                let handle = r.handle.borrow_mut().take();
                if let Some(h) = handle {
                    unregister_handle(&h);
                }
            }
            Action::Register(r) => register(r),
        }
    }
}

/// Registers a tool. When the provider refuses a definition that carries `consequentialHint`
/// (it throws, or its Promise rejects), the tool is registered once more without it, as an
/// older draft defines it: an annotation a provider does not know must not cost the page its
/// tools. A refusal with `exposedTo` is retried without it first (see [`refused`]).
/// Other refusals are console warnings.
fn register(r: Register) {
    let mc: &ModelContext = r.provider.unchecked_ref();
    let returned = match mc.register_tool(&r.definition, &r.options) {
        Ok(v) => v,
        Err(e) => return refused(r, e),
    };
    take_handle(&returned, &r.handle, &r.live);
    if let Some(thenable) = as_thenable(&returned) {
        wasm_bindgen_futures::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(thenable).await {
                Ok(v) => take_handle(&v, &r.handle, &r.live),
                // A rejection caused by our own abort is not a failure.
                Err(e) if r.live.get() => refused(r, e),
                Err(_) => {}
            }
        });
    }
}

/// The provider refused registration `r` with `e`. With `exposedTo` the tool is registered
/// again without it, with a console warning (the origins were checked as Chromium checks them,
/// so this is a refusal nobody foresaw: the page keeps its tools rather than losing them all);
/// then without `consequentialHint`, so the hint is dropped only when it is the reason.
fn refused(mut r: Register, e: JsValue) {
    let exposed = JsValue::from_str("exposedTo");
    if Reflect::get(&r.options, &exposed).is_ok_and(|v| !v.is_undefined()) {
        warn(
            &format!(
                "wterm: WebMCP tool {} was refused with exposedTo; registered without exposedTo:",
                r.tool.name()
            ),
            &e,
        );
        let _ = Reflect::delete_property(&r.options, &exposed);
        return register(r);
    }
    if !r.fallback {
        return warn(
            &format!("wterm: WebMCP tool {} was not registered:", r.tool.name()),
            &e,
        );
    }
    if let Ok(annotations) = Reflect::get(&r.definition, &"annotations".into()) {
        let annotations: &Object = annotations.unchecked_ref();
        let _ = Reflect::delete_property(annotations, &CONSEQUENTIAL.into());
    }
    r.fallback = false;
    register(r);
}

/// Keeps `v` as the registration's handle when it has `unregister()`; when the registration
/// already ended, unregisters it at once.
fn take_handle(v: &JsValue, handle: &Rc<RefCell<Option<JsValue>>>, live: &Rc<Cell<bool>>) {
    let has_unregister =
        v.is_object() && Reflect::get(v, &"unregister".into()).is_ok_and(|f| f.is_function());
    if !has_unregister {
        return;
    }
    if live.get() {
        *handle.borrow_mut() = Some(v.clone());
    } else {
        unregister_handle(v);
    }
}

/// `v` as a Promise when it is one or has a `then` method.
fn as_thenable(v: &JsValue) -> Option<js_sys::Promise> {
    if let Some(p) = v.dyn_ref::<js_sys::Promise>() {
        return Some(p.clone());
    }
    let then = v
        .is_object()
        .then(|| Reflect::get(v, &"then".into()).ok())
        .flatten()?;
    then.is_function().then(|| js_sys::Promise::resolve(v))
}

/// The live WebMCP terminals, in the order they joined.
fn targets() -> Vec<Target> {
    PAGE.with(|p| {
        p.try_borrow()
            .map(|p| p.entries.targets())
            .unwrap_or_default()
    })
}

/// `(name, description, readOnly)` of terminal `id`, while it has WebMCP on.
fn entry_info(id: u64) -> Option<(String, Option<String>, bool)> {
    PAGE.with(|p| {
        let p = p.try_borrow().ok()?;
        let e = p.entries.get(id)?;
        Some((e.name.clone(), e.description.clone(), e.read_only))
    })
}

/// Ends every call in progress for the terminal: `why` says what happened to it ("was
/// destroyed", "withdrew its WebMCP tools"). Answers are error results, never output written
/// afterwards.
pub(crate) fn end_calls(inner: &mut Inner, why: &str) {
    if inner.mcp.waiters.is_empty() && inner.mcp.submits.is_empty() && inner.mcp.queued.is_empty() {
        return;
    }
    let who = entry_info(inner.mcp.id)
        .map(|(name, _, _)| format!("terminal {}", quote(&name)))
        .unwrap_or_else(|| "the terminal".to_string());
    inner.mcp.end_all(&format!(
        "{who} {why} while the call was in progress; the call ended"
    ));
}

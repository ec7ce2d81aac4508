//! wterm-rs in the browser: the `WTerm` class of the npm package (spec `webmcp-tools.md`, "JS
//! API of the npm package"). An adapter: terminal semantics live in `wterm-core`.
//!
//! - [`WTerm`] (this file): the `#[wasm_bindgen]` surface only; argument checks in `js`.
//! - `term`: the shared handle (`term::Inner` behind an `Rc<RefCell<_>>`) holding the
//!   terminal, the page callbacks and the view; `term::send_input` is the one path to the
//!   program (onData, or local echo without it).
//! - `view`: the elements a terminal adds to the page, cell measurement, per-frame rendering
//!   and scroll syncing; `render`: rows and cursor from styled runs, changed rows only.
//! - `input`: keyboard, text, paste, wheel and focus listeners; `ime`: IME composition and its
//!   preview at the cursor; `touch`: swipe, momentum, long-press selection and its handles.
//! - `mouse`: mouse reporting to programs that track the mouse.
//! - `a11y`: the screen-reader live region announcing new output.
//! - `theme`: the `theme` option and `setTheme` (presets, custom colours) as CSS variables.
//! - `webmcp`: the four WebMCP tools, registered once per page for all terminals with WebMCP
//!   on; `limits`: every limit of the tools.
//! - `find`: search, its highlights, plain-text links, the find bar's loader; `export`:
//!   `serialize` (text and ANSI from the core, HTML from the renderer's runs). Both are in the
//!   full build only (feature `full`, on by default; the package's `wterm-wasm/full` entry);
//!   the core build (`wterm-wasm`) has `lean` in their place, whose methods throw.
//! - `compat`: what the xterm.js-compatible entry reads (buffer lines and cells, cursor, modes,
//!   view scrolling, selection text); full build only.
//! - `dom`: self-removing listeners and timers, the stylesheet, element helpers.
#![deny(missing_docs)]

/// The heap: talc instead of the default dlmalloc, which costs more bytes of the package and
/// more time per allocation (the page is single-threaded: no atomics in this build).
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

mod a11y;
#[cfg(feature = "full")]
mod compat;
mod dom;
#[cfg(feature = "full")]
mod export;
#[cfg(feature = "full")]
mod find;
mod ime;
mod input;
mod js;
#[cfg(not(feature = "full"))]
mod lean;
mod limits;
mod mouse;
mod render;
mod term;
mod theme;
mod touch;
mod view;
mod webmcp;
#[cfg(not(feature = "full"))]
use lean::{export, find};

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use wterm_core::limits::DEFAULT_SCROLLBACK_ROWS;
use wterm_core::Size;

use crate::js::{absent, cols_arg, data_arg, describe, parse_options, rows_arg, Outbox};
use crate::term::{busy, focus_element, Inner, Shared};

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r##"
/** A terminal size in cells. */
export interface WTermSize {
  /** Width in columns. */
  cols: number;
  /** Height in rows. */
  rows: number;
}

/** WebMCP settings of a terminal (spec "Enabling WebMCP"). */
export interface WTermWebMCPOptions {
  /** Tool-facing name, unique per page (a suffix is added on collision). Default "terminal". */
  name?: string;
  /** Returned by `list_terminals`. */
  description?: string;
  /** Agents may read but not type or press keys. Default false. */
  readOnly?: boolean;
  /**
   * What is typed here has real consequences (a shell runs it), so the typing tools carry
   * `consequentialHint: true` and agent hosts may ask the person first. Set `false` only for a
   * terminal whose input cannot do harm (a sandbox, a demo). Default true.
   */
  consequential?: boolean;
  /**
   * Origins of pages that embed this one in an iframe and may see its tools (passed to
   * `registerTool` as `exposedTo`), 1..16 of them, e.g. `["https://app.example"]`: https: or
   * wss:, or a loopback host (`http://localhost:8080`); another one throws.
   */
  exposedTo?: string[];
  /**
   * Secrets (private keys, cloud and API tokens, JWTs, Bearer values, URL passwords,
   * `NAME=value` for secret-looking names) in what the tools answer an agent are replaced by
   * `[redacted:KIND]`; answers that replaced any carry `redacted: {count, kinds}`. The screen a
   * person sees is never redacted. Only the page's code can turn it off; agents cannot.
   * Default true.
   */
  redact?: boolean;
}

/** The named colour presets of `theme` / `setTheme`. */
export type WTermThemeName = "dark" | "light" | "solarized-dark" | "solarized-light";

/**
 * A custom theme: any of these colours, each "#RGB" or "#RRGGBB" (`selectionBackground` also
 * "#RRGGBBAA"). A colour left out comes from the page's CSS variables (by default the "dark"
 * preset's). The names are xterm.js's `ITheme`'s.
 */
export interface WTermTheme {
  foreground?: string; background?: string; cursor?: string; selectionBackground?: string;
  black?: string; red?: string; green?: string; yellow?: string;
  blue?: string; magenta?: string; cyan?: string; white?: string;
  brightBlack?: string; brightRed?: string; brightGreen?: string; brightYellow?: string;
  brightBlue?: string; brightMagenta?: string; brightCyan?: string; brightWhite?: string;
}

/** A progress report (`OSC 9 ; 4 ; state ; value`), as xterm.js's progress addon gives it. */
/** The colors OSC 10/11/12 queries are answered with (the theme as drawn), each `"#rrggbb"`. */
export interface WTermQueryColors {
  foreground: string;
  background: string;
  cursor: string;
}

export interface WTermProgress {
  /** 0 remove (no progress shown), 1 set (normal), 2 error, 3 indeterminate, 4 paused. */
  state: 0 | 1 | 2 | 3 | 4;
  /** Percent, 0..100. Kept from the last report by 3, and by 2 and 4 when they give none. */
  value: number;
}

/** Options of `new WTerm(element, options)`. */
export interface WTermOptions {
  /** Initial width in columns, an integer 2..1000. Default: fit the element. */
  cols?: number;
  /** Initial height in rows, an integer 1..1000. Default: fit the element. */
  rows?: number;
  /** Rows of history kept above the screen, an integer 0..1000000. Default 10000. */
  scrollback?: number;
  /** Register the terminal's WebMCP tools. Default off. */
  webmcp?: boolean | WTermWebMCPOptions;
  /**
   * Ctrl+V pastes (as Ctrl+Shift+V and, on macOS, Cmd+V do) instead of sending ^V to the
   * program. Default false: Ctrl+V is the program's (^V, "insert the next key literally").
   */
  pasteWithCtrlV?: boolean;
  /**
   * Announce new output to screen readers through a polite live region (at most 500
   * characters, or "N lines of output", once output settles; none for the alternate screen).
   * Default true.
   */
  screenReaderMode?: boolean;
  /**
   * Colours: a preset name, a custom object, or null (the default): the CSS variables
   * (`--wterm-fg`, `--wterm-bg`, `--wterm-c0`..`--wterm-c15`, ...) decide. A theme's colours win
   * over the page's CSS variables. Change it later with `setTheme`.
   */
  theme?: WTermThemeName | WTermTheme | null;
  /**
   * Everything the terminal sends to the program: keystrokes, pastes, replies to queries,
   * agent input. Input of the page's own agent (a WebMCP tool) comes with a second argument,
   * `{agent: toolName}`, so a bridge can tell the program's side whose it is. Without it,
   * input is echoed locally.
   */
  onData?: (data: string, source?: { agent: string }) => void;
  /** Called after the size in cells changed (resize, fit, or the element's size with auto-fit). */
  onResize?: (size: WTermSize) => void;
  /** Called when the program sets the window title (OSC 0/2). */
  onTitle?: (title: string) => void;
  /** Called when an agent reads or writes the terminal (WebMCP tools; the relay's MCP clients). */
  onAgent?: (activity: WTermAgentActivity) => void;
  /** Called when the program rings the bell (BEL, 0x07; not the BEL that ends an OSC). */
  onBell?: () => void;
  /** Called on each progress report of the program (`OSC 9 ; 4 ; state ; value`). */
  onProgress?: (progress: WTermProgress) => void;
  /**
   * The full entry only (`wterm-wasm/full`; the core entry `wterm-wasm` refuses it unless
   * `false`, and links, findBar, onLink and onSearch with it).
   * Plain-text links: `http://` and `https://` URLs (default, `true`), or the matches of your
   * own `pattern`; underlined under the pointer, opened by Ctrl+click (Cmd+click) in a new tab
   * without `window.opener`. OSC 8 links are unchanged. `false` turns detection off.
   */
  links?: boolean | { pattern?: RegExp };
  /** Handles a Ctrl/Cmd+click on a plain-text link instead of opening it. */
  onLink?: (uri: string, event: MouseEvent) => void;
  /** Ctrl+Shift+F opens the built-in find bar (loaded on first use). Default true. */
  findBar?: boolean;
  /** Called after each `search`, `findNext` or `findPrevious` with its result. */
  onSearch?: (result: WTermSearchResult) => void;
}

/** Options of `search`, `findNext`, `findPrevious`. Every one defaults to false. */
export interface WTermSearchOptions {
  /** Match case exactly; otherwise both sides are lowercased (Unicode simple folding). */
  caseSensitive?: boolean;
  /** `query` is a JavaScript RegExp source (flags g, plus i without caseSensitive). */
  regex?: boolean;
  /** Only matches with no letter, digit or `_` right before and after. */
  wholeWord?: boolean;
  /** Look for the previous match. */
  backwards?: boolean;
  /** Keep the active match if it still matches (find as you type). */
  incremental?: boolean;
}

/** What a search found. */
export interface WTermSearchResult {
  /** The query searched for. */
  query: string;
  /** Matches in history and screen, at most 1000. */
  count: number;
  /** The active match's 0-based position among them; -1 when there is none. */
  index: number;
  /** There may be more matches than `count` (1000 reached, or history past 200000 rows). */
  truncated: boolean;
}

/** Options of `serialize`. */
export interface WTermSerializeOptions {
  /** "text" (default), "ansi" or "html". */
  format?: "text" | "ansi" | "html";
  /** Rows of history included: true (default) all, false none, or a number of rows. */
  scrollback?: boolean | number;
}

/** Event names of `addListener` / `removeListener`, with the argument each listener gets. */
export interface WTermEventMap {
  /** What `onData` gets: everything the terminal sends to the program. */
  data: string;
  /** What `onResize` gets: the new size in cells. */
  resize: WTermSize;
  /** What `onTitle` gets: the title the program set ("" when cleared). */
  title: string;
  /** An agent read or wrote the terminal: an in-page WebMCP tool, or (`reportAgent`) the relay. */
  agent: WTermAgentActivity;
  /** What `onSearch` gets: the result of a search. */
  search: WTermSearchResult;
  /** What `onBell` gets: nothing; the program rang the bell. */
  bell: undefined;
  /** What `onProgress` gets: the progress the program reported. */
  progress: WTermProgress;
}

/** One agent call on a terminal, as the `agent` listeners get it. */
export interface WTermAgentActivity {
  /** "read": it read the screen; "write": it typed, pressed keys or ran a command. */
  kind: "read" | "write";
  /** The tool: `read_terminal`, `type_in_terminal`, `press_terminal_keys` (WebMCP), or the
   * relay's MCP tool (`read_screen`, `send_input`, `send_keys`, `run_command`, ...). */
  tool: string;
  /** When, in epoch milliseconds. */
  at: number;
  /** "webmcp": an agent in this page; "relay": an MCP client through the relay. */
  source: "webmcp" | "relay";
  /** Who, when the relay said (its agents): the MCP client's `clientInfo` name, or a route caller's scope. */
  by?: WTermAuthor;
}

/** Who sent a line or used a tool (`submittedBy` of a command, `by` of an agent activity). */
export interface WTermAuthor {
  /** A person at a page, the page's own agent (a WebMCP tool), an MCP client of the relay, or a caller of its `/mcp/*` routes. */
  kind: "person" | "page_agent" | "mcp_client" | "route_caller";
  /** The tool, the client's `clientInfo` name, or the scope (`unscoped`); absent for a person. */
  name?: string;
}

export interface WTerm {
  /**
   * Adds a listener called after the option's callback (`onData`, `onResize`, `onTitle`,
   * `onAgent`, `onBell`, `onProgress`) and
   * the listeners added before it. Adding the same function twice adds it once. While any
   * `data` listener is added, input is not echoed locally (as with `onData`).
   */
  addListener<K extends keyof WTermEventMap>(type: K, listener: (arg: WTermEventMap[K]) => void): void;
  /** Removes a listener added with `addListener`; the options' callbacks stay. */
  removeListener<K extends keyof WTermEventMap>(type: K, listener: (arg: WTermEventMap[K]) => void): void;
}
"##;

#[wasm_bindgen]
extern "C" {
    /// The constructor's options object, typed as `WTermOptions` in the declarations and checked
    /// by `js::parse_options`.
    #[wasm_bindgen(typescript_type = "WTermOptions")]
    pub type OptionsArg;
    /// An optional search query (`query?: string`; checked by `find`). An imported type rather
    /// than `unchecked_param_type`, so the declarations mark it optional.
    #[wasm_bindgen(typescript_type = "string")]
    pub type QueryArg;
    /// The options of `search`/`findNext`/`findPrevious` (`options?: WTermSearchOptions`).
    #[wasm_bindgen(typescript_type = "WTermSearchOptions")]
    pub type SearchOptionsArg;
    /// The options of `serialize` (`options?: WTermSerializeOptions`).
    #[wasm_bindgen(typescript_type = "WTermSerializeOptions")]
    pub type SerializeOptionsArg;
}

/// A terminal drawn into a page element.
///
/// Construct, `await init()`, then feed program output with `write` and take input from
/// `onData`. `destroy()` removes everything the terminal added to the page.
#[wasm_bindgen]
pub struct WTerm {
    shared: Shared,
}

impl WTerm {
    /// Another handle on the same terminal (for the find bar).
    #[cfg(feature = "full")]
    pub(crate) fn from_shared(shared: Shared) -> WTerm {
        WTerm { shared }
    }

    fn find(
        &self,
        query: Option<&JsValue>,
        options: Option<JsValue>,
        backwards: Option<bool>,
    ) -> Result<JsValue, JsError> {
        let (result, out) = {
            let mut inner = self.shared.try_borrow_mut().map_err(|_| busy())?;
            find::search(
                &mut inner,
                query,
                &options.unwrap_or(JsValue::UNDEFINED),
                backwards,
            )?
        };
        out.deliver();
        Ok(result)
    }
}

#[wasm_bindgen]
impl WTerm {
    /// `new WTerm(element, options?)`: a terminal for `element` (an `HTMLElement`). Output may
    /// be written right away; nothing is drawn until `init()`.
    ///
    /// Throws when an argument is invalid, naming it and the accepted values.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "HTMLElement")] element: JsValue,
        options: Option<OptionsArg>,
    ) -> Result<WTerm, JsError> {
        let host: HtmlElement = element.dyn_into().map_err(|v: JsValue| {
            JsError::new(&format!(
                "element must be an HTMLElement; got {}",
                describe(&v)
            ))
        })?;
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        let opts = parse_options(&options)?;
        if opts.webmcp.is_some() {
            webmcp::check_owner()?;
        }
        let find = find::parse_options(&options)?;
        let mut inner = Inner::new(
            host,
            opts.cols,
            opts.rows,
            opts.scrollback.unwrap_or(DEFAULT_SCROLLBACK_ROWS),
            opts.callbacks,
            opts.webmcp,
        );
        inner.paste_with_ctrl_v = opts.paste_with_ctrl_v;
        inner.screen_reader = opts.screen_reader_mode.unwrap_or(true);
        inner.find = find;
        inner.theme = opts.theme;
        Ok(WTerm {
            shared: Rc::new(RefCell::new(inner)),
        })
    }

    /// Attaches the terminal to its element: adds the DOM, waits for web fonts, measures the
    /// cell, fits the element when `cols`/`rows` were not given (and keeps fitting it as it
    /// resizes when neither was), and starts drawing and taking input. Calling it again does
    /// nothing; after `destroy()` it rejects.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn init(&self) -> js_sys::Promise {
        let shared = self.shared.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            term::init(shared).await.map(|()| JsValue::UNDEFINED)
        })
    }

    /// Writes program output: a string (sent as UTF-8) or a `Uint8Array` of bytes, in any
    /// chunking. Replies to queries go to `onData`. Drawn at the next animation frame. After
    /// `destroy()` it does nothing.
    pub fn write(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] data: JsValue,
    ) -> Result<(), JsError> {
        term::write(&self.shared, &data_arg(&data)?)
    }

    /// Resizes to `cols` × `rows` cells (integers 2..1000 and 1..1000); `onResize` is called
    /// when the size changed.
    pub fn resize(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] cols: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] rows: JsValue,
    ) -> Result<(), JsError> {
        let cols = cols_arg(&cols)?
            .ok_or_else(|| JsError::new("cols must be an integer 2..1000; got undefined"))?;
        let rows = rows_arg(&rows)?
            .ok_or_else(|| JsError::new("rows must be an integer 1..1000; got undefined"))?;
        let mut out = Outbox::default();
        {
            let mut inner = self.shared.try_borrow_mut().map_err(|_| busy())?;
            if inner.lifecycle == term::Lifecycle::Destroyed {
                return Ok(());
            }
            inner.resize_to(Size { cols, rows }, &mut out);
        }
        out.deliver();
        Ok(())
    }

    /// Resizes to as many cells as fit the element, measuring the cell again first. Does
    /// nothing before `init()` or while the element is hidden.
    pub fn fit(&self) -> Result<(), JsError> {
        let mut out = Outbox::default();
        self.shared
            .try_borrow_mut()
            .map_err(|_| busy())?
            .fit(&mut out);
        out.deliver();
        Ok(())
    }

    /// Gives the terminal keyboard focus (after `init()`).
    pub fn focus(&self) -> Result<(), JsError> {
        let el = self
            .shared
            .try_borrow()
            .map_err(|_| busy())?
            .input_element();
        if let Some(el) = el {
            focus_element(&el);
        }
        Ok(())
    }

    /// Removes the terminal from the page: its elements, listeners, pending frame and resize
    /// observer; drops the callbacks. Later calls do nothing (and `init()` rejects). Calling it
    /// twice is fine. Until then an initialized terminal lives on even when the page drops
    /// its `WTerm` (as an xterm.js `Terminal` until `dispose()`).
    pub fn destroy(&self) -> Result<(), JsError> {
        let (dom, id) = {
            let mut inner = self.shared.try_borrow_mut().map_err(|_| busy())?;
            (inner.destroy(), inner.mcp.id)
        };
        // Dropped without the borrow: removing a focused element may fire `blur`.
        drop(dom);
        webmcp::apply(id, Rc::downgrade(&self.shared), None);
        term::forget(&self.shared);
        Ok(())
    }

    /// Turns the terminal's WebMCP tools on or changes their options (`true` or
    /// `{name?, description?, readOnly?, consequential?, exposedTo?, redact?}`), or withdraws the
    /// terminal with `false` (spec `webmcp-tools.md`, "Enabling WebMCP"). Takes effect at once
    /// on an initialized terminal (at `init()` otherwise); withdrawing ends the calls in
    /// progress for it. A new name that another terminal has gets a suffix (`-2`, `-3`, ...),
    /// with a console warning. Does nothing after `destroy()`.
    ///
    /// Throws when `options` is not one of those, naming what is accepted.
    #[wasm_bindgen(js_name = setWebMCP)]
    pub fn set_webmcp(
        &self,
        #[wasm_bindgen(unchecked_param_type = "boolean | WTermWebMCPOptions")] options: JsValue,
    ) -> Result<(), JsError> {
        if options.is_undefined() || options.is_null() {
            return Err(JsError::new(
                "options must be false, true or an object {name?, description?, readOnly?, \
                 consequential?, exposedTo?, redact?}; got undefined",
            ));
        }
        let (cfg, id, ready) = {
            let mut inner = self.shared.try_borrow_mut().map_err(|_| busy())?;
            if inner.lifecycle == term::Lifecycle::Destroyed {
                return Ok(());
            }
            let cfg = js::webmcp_update(&options, "options", inner.webmcp.as_ref())?;
            if cfg.is_some() {
                webmcp::check_owner()?;
            }
            if cfg.is_none() {
                webmcp::end_calls(&mut inner, "withdrew its WebMCP tools");
            }
            inner.webmcp = cfg.clone();
            (cfg, inner.mcp.id, inner.lifecycle == term::Lifecycle::Ready)
        };
        if ready {
            webmcp::apply(id, Rc::downgrade(&self.shared), cfg.as_ref());
        }
        Ok(())
    }

    /// `setTheme(theme)`: changes the colours live (screen, history, selection and cursor
    /// stay): a preset name (`"dark"`, `"light"`, `"solarized-dark"`, `"solarized-light"`), a
    /// custom object (xterm.js's `ITheme` names: `foreground`, `background`, `cursor`,
    /// `selectionBackground`, `black` .. `brightWhite`; each `#RGB` or `#RRGGBB`, the selection
    /// also `#RRGGBBAA`), or `null` to leave the colours to the page's CSS variables again. A
    /// theme's colours win over the CSS variables; those it leaves out come from them. OSC
    /// 10/11/12 queries are answered with the new colours. Before `init()` it is kept for
    /// then; after `destroy()` it does nothing.
    ///
    /// Throws, changing nothing, when `theme` is none of those, naming the bad field and the
    /// accepted forms.
    #[wasm_bindgen(js_name = setTheme)]
    pub fn set_theme(
        &self,
        #[wasm_bindgen(unchecked_param_type = "WTermThemeName | WTermTheme | null")] theme: JsValue,
    ) -> Result<(), JsError> {
        let theme = theme::Theme::parse(&theme, "theme")?;
        let mut inner = self.shared.try_borrow_mut().map_err(|_| busy())?;
        if inner.lifecycle != term::Lifecycle::Destroyed {
            inner.set_theme(theme);
        }
        Ok(())
    }

    /// `addListener(type, listener)`: calls `listener` on each `"data"` (a string for the
    /// program), `"resize"` (`{cols, rows}`), `"title"` (a string), `"agent"`
    /// (`{kind, tool, at, source}`: an agent read or wrote the terminal), `"bell"` (no
    /// argument) or `"progress"` (`{state, value}`: `OSC 9 ; 4`) event, after the
    /// options' callback and the listeners added earlier. Adding a listener twice adds it once.
    /// While a `"data"` listener is added, input is not echoed locally, as with `onData`. An
    /// event already being delivered when a listener is added or removed may still skip or
    /// reach it. Does nothing after `destroy()` (which drops every listener).
    ///
    /// Lets code that is handed a `WTerm` (the relay client, framework components) take its
    /// input and size without replacing the page's own callbacks.
    ///
    /// Throws when `type` is not one of those names or `listener` is not a function.
    // Declared by hand in the TypeScript section above, generic over the event name.
    #[wasm_bindgen(js_name = addListener, skip_typescript)]
    pub fn add_listener(
        &self,
        #[wasm_bindgen(unchecked_param_type = "keyof WTermEventMap")] kind: JsValue,
        #[wasm_bindgen(unchecked_param_type = "(arg: any) => void")] listener: JsValue,
    ) -> Result<(), JsError> {
        let f = listener.dyn_into::<js_sys::Function>().map_err(|v| {
            JsError::new(&format!(
                "listener must be a function; got {}",
                describe(&v)
            ))
        })?;
        let mut guard = self.shared.try_borrow_mut().map_err(|_| busy())?;
        let inner = &mut *guard;
        let listeners = if kind.as_string().as_deref() == Some("search") {
            find::search_listeners(&mut inner.find)?
        } else {
            inner.callbacks.of_type(&kind)?
        };
        if inner.lifecycle != term::Lifecycle::Destroyed {
            listeners.add(f);
        }
        Ok(())
    }

    /// `removeListener(type, listener)`: undoes `addListener`. Removing a function that was
    /// not added does nothing; the options' callbacks cannot be removed.
    ///
    /// Throws when `type` is not `"data"`, `"resize"`, `"title"`, `"agent"`, `"bell"` or
    /// `"progress"`.
    #[wasm_bindgen(js_name = removeListener, skip_typescript)]
    pub fn remove_listener(
        &self,
        #[wasm_bindgen(unchecked_param_type = "keyof WTermEventMap")] kind: JsValue,
        #[wasm_bindgen(unchecked_param_type = "(arg: any) => void")] listener: JsValue,
    ) -> Result<(), JsError> {
        let mut guard = self.shared.try_borrow_mut().map_err(|_| busy())?;
        let inner = &mut *guard;
        let listeners = if kind.as_string().as_deref() == Some("search") {
            find::search_listeners(&mut inner.find)?
        } else {
            inner.callbacks.of_type(&kind)?
        };
        if let Some(f) = listener.dyn_ref::<js_sys::Function>() {
            listeners.remove(f);
        }
        Ok(())
    }

    /// `reportAgent({kind, tool, at?, by?})`: tells the `"agent"` listeners that an agent outside
    /// the page (an MCP client through the relay) read or wrote this terminal; they get
    /// `{kind, tool, at, source: "relay", by?}` (`at` defaults to now; `by` who it is, `{kind,
    /// name?}` as a command's `submittedBy`, the name cleaned of control characters and cut to
    /// 64 bytes). The relay client calls it for
    /// the relay's `agent` frames.
    ///
    /// Throws (naming what is accepted) when `kind` is not `"read"` or `"write"`, `tool` not a
    /// string, or `at` given and not a number.
    #[wasm_bindgen(js_name = reportAgent)]
    pub fn report_agent(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "{kind: \"read\" | \"write\", tool: string, at?: number, by?: WTermAuthor}"
        )]
        activity: JsValue,
    ) -> Result<(), JsError> {
        const ACCEPTED: &str =
            "reportAgent takes {kind: \"read\" | \"write\", tool: string, at?: number, by?: {kind: \"person\" | \"page_agent\" | \"mcp_client\" | \"route_caller\", name?: string}}";
        let get = |k: &str| js_sys::Reflect::get(&activity, &JsValue::from_str(k)).ok();
        let kind = get("kind").and_then(|v| v.as_string());
        let tool = get("tool").and_then(|v| v.as_string());
        let at = get("at").unwrap_or(JsValue::UNDEFINED);
        let at = if at.is_undefined() {
            Some(js_sys::Date::now())
        } else {
            at.as_f64()
        };
        let (Some(kind @ ("read" | "write")), Some(tool), Some(at)) = (kind.as_deref(), tool, at)
        else {
            return Err(JsError::new(ACCEPTED));
        };
        // Who, when the relay said: `{kind, name?}` as a command's `submittedBy`.
        let by = get("by").filter(|v| !v.is_undefined() && !v.is_null());
        let by = match by {
            None => None,
            Some(v) => {
                let field = |k: &str| js_sys::Reflect::get(&v, &JsValue::from_str(k)).ok();
                let kind = field("kind").and_then(|k| k.as_string());
                let kind = kind.as_deref().and_then(wterm_core::AuthorKind::parse);
                let name = field("name")
                    .and_then(|n| n.as_string())
                    .unwrap_or_default();
                let Some(kind) = kind else {
                    return Err(JsError::new(ACCEPTED));
                };
                Some(wterm_core::Author::new(kind, &name))
            }
        };
        let mut out = Outbox::default();
        let inner = self.shared.try_borrow().map_err(|_| busy())?;
        let event = crate::js::agent_event(kind, &tool, at, "relay");
        if let Some(a) = &by {
            let o: &js_sys::Object = wasm_bindgen::JsCast::unchecked_ref(&event);
            crate::js::set(o, "by", crate::webmcp::command::author(a));
        }
        inner.callbacks.agent.queue(&mut out, event);
        drop(inner);
        out.deliver();
        Ok(())
    }

    /// `setSecretPrompt({active, agentsMayType?})`: whether the terminal waits for a secret
    /// now (its PTY has canonical mode on and echo off, as at a password prompt), and whether
    /// the person let agents type there (default false). The relay client calls it for the
    /// relay's `secret_prompt` frames; a page has no PTY to read. While `active`, the WebMCP
    /// typing tools refuse everything but a lone Ctrl+C, a `waitForCommand` ends, the state
    /// says `secretPrompt: true`, and a notice at the terminal tells the person (spec
    /// `webmcp-tools.md`, "Secret prompts").
    ///
    /// Throws (naming what is accepted) when `active` is not a boolean or `agentsMayType` is
    /// given and not one; nothing changes then.
    #[wasm_bindgen(js_name = setSecretPrompt)]
    pub fn set_secret_prompt(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{active: boolean, agentsMayType?: boolean}")]
        state: JsValue,
    ) -> Result<(), JsError> {
        const ACCEPTED: &str = "setSecretPrompt takes {active: boolean, agentsMayType?: boolean}";
        let get = |k: &str| js_sys::Reflect::get(&state, &JsValue::from_str(k)).ok();
        let active = get("active").and_then(|v| v.as_bool());
        let may = get("agentsMayType").unwrap_or(JsValue::UNDEFINED);
        let may = if may.is_undefined() {
            Some(false)
        } else {
            may.as_bool()
        };
        let (Some(active), Some(may)) = (active, may) else {
            return Err(JsError::new(ACCEPTED));
        };
        let mut inner = self.shared.try_borrow_mut().map_err(|_| busy())?;
        webmcp::secret_prompt::set(&mut inner, active, may);
        Ok(())
    }

    /// `setInjectedShell(injected)`: whether the relay injected its shell integration into this
    /// terminal's shell (the relay client says `true` when it starts attaching, then passes the
    /// attach's word). While the shell has not
    /// drawn its first prompt, a WebMCP call with `waitForCommand` then waits for it (at most
    /// `FIRST_PROMPT_WAIT_MS`, 10 s) instead of being refused for want of integration; `false`
    /// (the default) answers such calls at once. Spec `webmcp-tools.md`, "First prompt".
    ///
    /// Throws when `injected` is not a boolean; nothing changes then.
    #[wasm_bindgen(js_name = setInjectedShell)]
    pub fn set_injected_shell(&self, injected: JsValue) -> Result<(), JsError> {
        let Some(injected) = injected.as_bool() else {
            return Err(JsError::new("setInjectedShell takes a boolean"));
        };
        let mut inner = self.shared.try_borrow_mut().map_err(|_| busy())?;
        inner.mcp.integration_expected = injected;
        // Calls waiting for a prompt that will no longer come are answered now.
        webmcp::run_awaiting_soon(&inner.mcp);
        Ok(())
    }

    /// Clears the terminal as if new, keeping its size: blank screen, no history, default
    /// modes, no title (`onTitle` gets `""` when a title was set). The relay client calls it
    /// before replaying a session's snapshot.
    pub fn reset(&self) -> Result<(), JsError> {
        let mut out = Outbox::default();
        self.shared
            .try_borrow_mut()
            .map_err(|_| busy())?
            .reset(&mut out);
        out.deliver();
        Ok(())
    }

    /// `search(query, options?)`: finds `query` in the history and on the screen (lines joined
    /// across soft wraps) and makes the next match after the active one (`backwards`: the
    /// previous one) active, wrapping around; without an active match, from the top of the view
    /// (`backwards`: its bottom). Every match in view is highlighted, the active one apart, and
    /// the view scrolls to the active one. `incremental: true` keeps the active match when it
    /// still matches (find as you type). `regex: true` takes a JavaScript `RegExp` source.
    /// Returns `{query, count, index, truncated}` (`index` -1 without a match; `count` stops at
    /// 1000, `truncated` then true) and tells the `"search"` listeners.
    ///
    /// Throws when `query` is not a string, an option is not a boolean, or the regular
    /// expression does not compile; in the core entry (`wterm-wasm`), always, naming the full
    /// entry (`wterm-wasm/full`).
    #[wasm_bindgen(unchecked_return_type = "WTermSearchResult")]
    pub fn search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        options: Option<SearchOptionsArg>,
    ) -> Result<JsValue, JsError> {
        if absent(&query) {
            return Err(JsError::new("query must be a string; got undefined"));
        }
        self.find(Some(&query), options.map(JsValue::from), None)
    }

    /// `findNext(query?, options?)`: the next match, as `search` (xterm.js search addon's name).
    /// Search (`search`, `findNext`, `findPrevious`) and `serialize` are in the full entry
    /// (`wterm-wasm/full`); in the core entry they throw, saying so.
    /// Without `query`, repeats the last search forwards. Throws as `search`, and when there is
    /// no search to repeat.
    #[wasm_bindgen(js_name = findNext, unchecked_return_type = "WTermSearchResult")]
    pub fn find_next(
        &self,
        query: Option<QueryArg>,
        options: Option<SearchOptionsArg>,
    ) -> Result<JsValue, JsError> {
        let query = query.map(JsValue::from);
        self.find(query.as_ref(), options.map(JsValue::from), Some(false))
    }

    /// `findPrevious(query?, options?)`: the previous match; otherwise as `findNext`.
    #[wasm_bindgen(js_name = findPrevious, unchecked_return_type = "WTermSearchResult")]
    pub fn find_previous(
        &self,
        query: Option<QueryArg>,
        options: Option<SearchOptionsArg>,
    ) -> Result<JsValue, JsError> {
        let query = query.map(JsValue::from);
        self.find(query.as_ref(), options.map(JsValue::from), Some(true))
    }

    /// `clearSearch()`: ends the search and removes its highlights.
    #[wasm_bindgen(js_name = clearSearch)]
    pub fn clear_search(&self) -> Result<(), JsError> {
        find::clear(&mut *self.shared.try_borrow_mut().map_err(|_| busy())?)
    }

    /// `serialize({format?, scrollback?})`: the terminal as `"text"` (default: rows as
    /// `read_terminal` gives them), `"ansi"` (bytes that redraw it in a fresh terminal of the
    /// same size: colors, attributes, links, wide characters, wraps, cursor) or `"html"` (a
    /// standalone `<pre>` with the theme's colors, every character escaped). `scrollback`:
    /// `true` (default) all history, `false` none, or a number of rows. Throws naming a bad
    /// option and what is accepted.
    pub fn serialize(&self, options: Option<SerializeOptionsArg>) -> Result<String, JsError> {
        let mut inner = self.shared.try_borrow_mut().map_err(|_| busy())?;
        export::serialize(
            &mut inner,
            &options.map_or(JsValue::UNDEFINED, JsValue::from),
        )
    }

    /// Width in columns.
    #[wasm_bindgen(getter)]
    pub fn cols(&self) -> u16 {
        self.shared
            .try_borrow()
            .map(|i| i.term.size().cols)
            .unwrap_or(0)
    }

    /// Height in rows.
    #[wasm_bindgen(getter)]
    pub fn rows(&self) -> u16 {
        self.shared
            .try_borrow()
            .map(|i| i.term.size().rows)
            .unwrap_or(0)
    }

    /// Whether replies to the program's queries (DA1/DA2, DSR, DECRQM, XTVERSION, kitty flags)
    /// go to `onData` and the `data` listeners. Default `true`. The relay client turns it off
    /// while attached: the relay answers from its own emulator, once, however many pages watch.
    #[wasm_bindgen(getter, js_name = answerQueries)]
    pub fn answer_queries(&self) -> bool {
        self.shared
            .try_borrow()
            .map(|i| i.answer_queries)
            .unwrap_or(true)
    }

    /// `queryColors`: the colors OSC 10/11/12 queries are answered with, the theme as drawn
    /// (read at `init()`, `fit()` and `setTheme`): `{foreground, background, cursor}`, each
    /// `"#rrggbb"`. The relay client sends them to the relay, which answers for the page.
    #[wasm_bindgen(getter, js_name = queryColors, unchecked_return_type = "WTermQueryColors")]
    pub fn query_colors(&self) -> JsValue {
        let colors = self
            .shared
            .try_borrow()
            .map(|i| i.term.dynamic_colors())
            .unwrap_or_default();
        let obj = js_sys::Object::new();
        for (key, [r, g, b]) in [
            ("foreground", colors.foreground),
            ("background", colors.background),
            ("cursor", colors.cursor),
        ] {
            let rgba = u32::from_be_bytes([r, g, b, 0xff]);
            js::set(&obj, key, theme::css(rgba));
        }
        obj.into()
    }

    /// Sets [`WTerm::answer_queries`].
    #[wasm_bindgen(setter, js_name = answerQueries)]
    pub fn set_answer_queries(&self, on: bool) -> Result<(), JsError> {
        self.shared
            .try_borrow_mut()
            .map_err(|_| busy())?
            .answer_queries = on;
        Ok(())
    }

    /// The window title the program set (OSC 0/2), or `undefined`.
    #[wasm_bindgen(getter)]
    pub fn title(&self) -> Option<String> {
        self.shared
            .try_borrow()
            .ok()
            .and_then(|i| i.term.title().map(str::to_owned))
    }
}

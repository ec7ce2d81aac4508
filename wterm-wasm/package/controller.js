// The one implementation behind the React, Vue and Svelte bindings: creates a WTerm in an
// element, then applies later options to the live terminal instead of re-creating it.
//
// Options (the components' props): full, webmcp, cols, rows, scrollback, onData, onResize, onTitle,
// onAgent (an agent read or wrote the terminal: {kind, tool, at, source}), onBell, onProgress
// ({state, value}: OSC 9;4), theme (a preset name, a custom object or null), links, findBar,
// onLink(uri, event), onSearch(result), relay ({url, token, session?, onSession?, onExit?,
// onError?, onStatus?, onTitle?}), autoFocus, onReady(term).
// - webmcp: applied with setWebMCP when its value (not its identity) changes; a key the prop
//   leaves out gets its default (the prop is the whole setting, so dropping `redact: false`
//   turns redaction back on);
// - theme: applied with setTheme when its value (not its identity) changes;
// - cols/rows: applied with resize when they change;
// - onData/onResize/onTitle/onAgent/onBell/onProgress: the latest functions are called; while onData is unset (and no
//   relay is attached) input is echoed locally, as with a bare WTerm;
// - relay: attached when set, re-attached when url, token or session change (a session equal
//   to the one already attached does not re-attach), closed when unset;
// - scrollback, pasteWithCtrlV, screenReaderMode, links, findBar: read once, at creation (a WTerm
//   cannot change them later); onLink: whether it is set is read at creation, then the latest
//   one is called;
// - onSearch: the latest function is called with each search result.
// - onError(error): the terminal could not be made (a refused option, the wasm failed to
//   load); it is logged too. Nothing is drawn then and onReady is not called.
// - full: read once, at creation: `true` loads the full entry (search, plain-text links, the
//   find bar, serialize), otherwise the core entry; links, findBar, onLink and onSearch need it.
import { attachToRelay } from "./relay.js";

/** The keys of the webmcp option (setWebMCP refuses others). */
const WEBMCP_KEYS = ["name", "description", "readOnly", "consequential", "exposedTo", "redact"];

/** A value-based key for the webmcp option, so a new object with the same fields is no change. */
function webmcpKey(v) {
  if (v == null || v === false) return "off";
  if (v === true) return "on";
  if (typeof v === "object") return JSON.stringify(WEBMCP_KEYS.map((k) => v[k] ?? null));
  return "invalid:" + String(v); // setWebMCP throws, naming what is accepted
}

/** A key for the relay options that choose the connection. */
function relayKey(url, token, session) {
  return JSON.stringify([String(url), String(token), session == null ? null : String(session)]);
}

/** A value-based key for the theme option: a preset name, or an object's colours in order. */
function themeKey(v) {
  return JSON.stringify(v ?? null);
}

/** The webmcp prop as setWebMCP takes it: an object's missing keys as null (their defaults). */
function webmcpValue(v) {
  if (v == null) return false;
  if (typeof v !== "object" || Array.isArray(v)) return v;
  const full = { ...v };
  for (const k of WEBMCP_KEYS) if (full[k] === undefined) full[k] = null;
  return full;
}

function report(e) {
  console.error("wterm-wasm:", e);
}

export class TerminalController {
  /**
   * Starts creating a terminal in `host` (asynchronously: the wasm module loads first).
   * `ready` resolves with the WTerm once it is initialized (with null if destroyed first).
   */
  constructor(host, options) {
    this.host = host;
    this.options = options ?? {};
    this.term = null;
    this.destroyed = false;
    this.connection = null;
    this.relayKey = "";
    this.relayUrl = null;
    this.relayToken = null;
    this.webmcpKey = webmcpKey(this.options.webmcp);
    this.themeKey = themeKey(this.options.theme);
    this.size = [this.options.cols, this.options.rows];
    this.dataListening = false;
    this.forwardData = (data) => this.options.onData?.(data);
    this.ready = this.start().catch((e) => {
      report(e);
      try {
        this.options.onError?.(e);
      } catch (thrown) {
        report(thrown);
      }
      return null;
    });
  }

  async start() {
    // Each entry is a chunk of its own for bundlers, fetched only when chosen.
    const full = this.options.full === true;
    const { default: init, WTerm } = await (full ? import("./wterm_wasm_full.js") : import("./wterm_wasm.js"));
    await init();
    if (this.destroyed) return null;
    const o = this.options;
    const term = new WTerm(this.host, {
      cols: o.cols,
      rows: o.rows,
      scrollback: o.scrollback,
      pasteWithCtrlV: o.pasteWithCtrlV,
      screenReaderMode: o.screenReaderMode,
      webmcp: webmcpValue(o.webmcp),
      theme: o.theme ?? null,
      onResize: (size) => this.options.onResize?.(size),
      onTitle: (title) => this.options.onTitle?.(title),
      onAgent: (activity) => this.options.onAgent?.(activity),
      links: o.links,
      findBar: o.findBar,
      onLink: typeof o.onLink === "function" ? (uri, event) => this.options.onLink?.(uri, event) : undefined,
      onSearch: full ? (result) => this.options.onSearch?.(result) : undefined,
      onBell: () => this.options.onBell?.(),
      onProgress: (progress) => this.options.onProgress?.(progress),
    });
    this.webmcpKey = webmcpKey(o.webmcp);
    this.themeKey = themeKey(o.theme);
    this.size = [o.cols, o.rows];
    await term.init();
    if (this.destroyed) {
      term.destroy();
      return null;
    }
    this.term = term;
    this.apply();
    if (this.options.autoFocus) term.focus();
    this.options.onReady?.(term);
    return term;
  }

  /** Takes new options and applies what changed to the live terminal. */
  update(options) {
    this.options = options ?? {};
    if (this.term) this.apply();
  }

  apply() {
    const term = this.term;
    const o = this.options;
    try {
      const key = webmcpKey(o.webmcp);
      if (key !== this.webmcpKey) {
        this.webmcpKey = key;
        term.setWebMCP(webmcpValue(o.webmcp));
      }
    } catch (e) {
      report(e);
    }
    try {
      const key = themeKey(o.theme);
      if (key !== this.themeKey) {
        this.themeKey = key;
        term.setTheme(o.theme ?? null);
      }
    } catch (e) {
      report(e);
    }
    try {
      if (o.cols !== this.size[0] || o.rows !== this.size[1]) {
        this.size = [o.cols, o.rows];
        if (o.cols != null || o.rows != null) term.resize(o.cols ?? term.cols, o.rows ?? term.rows);
        else term.fit();
      }
    } catch (e) {
      report(e);
    }
    const wantData = typeof o.onData === "function";
    if (wantData !== this.dataListening) {
      this.dataListening = wantData;
      if (wantData) term.addListener("data", this.forwardData);
      else term.removeListener("data", this.forwardData);
    }
    this.applyRelay();
  }

  applyRelay() {
    const r = this.options.relay;
    const key = r ? relayKey(r.url, r.token, r.session) : "";
    if (key === this.relayKey) return; // also: closed for good (exit, refusal) is not retried
    const conn = this.connection;
    if (r && conn && conn.sessionId != null && key === relayKey(this.relayUrl, this.relayToken, conn.sessionId)) {
      // The page now names the session this connection already has (learnt from onSession).
      this.relayKey = key;
      return;
    }
    conn?.close();
    this.connection = null;
    this.relayKey = key;
    if (!r) return;
    this.relayUrl = r.url;
    this.relayToken = r.token;
    const relayOption = (name) => (...args) => this.options.relay?.[name]?.(...args);
    try {
      this.connection = attachToRelay(this.term, {
        url: r.url,
        token: r.token,
        session: r.session,
        onSession: relayOption("onSession"),
        onExit: relayOption("onExit"),
        onError: relayOption("onError"),
        onStatus: relayOption("onStatus"),
        onTitle: relayOption("onTitle"),
      });
    } catch (e) {
      report(e);
    }
  }

  /** Closes the relay connection and destroys the terminal. Idempotent. */
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.connection?.close();
    this.connection = null;
    this.term?.destroy();
    this.term = null;
  }
}

// wterm-wasm/xterm: a `Terminal` with xterm.js 6's public API, as an adapter over the full
// entry's `WTerm` (wterm_wasm_full.js), so an app written against `@xterm/xterm` switches by
// changing its import. It loads the wasm itself (top-level await), so `new Terminal()` works
// right after the import, as with xterm.js. What it does not honour is listed in README.md
// ("Coming from xterm.js") and said once per page with console.warn.
import init, { WTerm } from "./wterm_wasm_full.js";

await init();

const PREFIX = "wterm-wasm/xterm: ";
const warned = new Set();
function warnOnce(key, message) {
  if (warned.has(key)) return;
  warned.add(key);
  console.warn(PREFIX + message);
}

// xterm.js 6's options and their defaults (what `terminal.options` reads when not set), except
// fontFamily and fontSize, whose defaults are wterm's stylesheet's (CSS variables), and
// screenReaderMode, on by default in wterm.
const DEFAULTS = {
  allowProposedApi: false,
  allowTransparency: false,
  altClickMovesCursor: true,
  convertEol: false,
  cursorBlink: false,
  cursorStyle: "block",
  cursorWidth: 1,
  cursorInactiveStyle: "outline",
  customGlyphs: true,
  disableStdin: false,
  documentOverride: null,
  drawBoldTextInBrightColors: true,
  fastScrollSensitivity: 5,
  fontSize: 14,
  fontFamily: "ui-monospace, monospace",
  fontWeight: "normal",
  fontWeightBold: "bold",
  ignoreBracketedPasteMode: false,
  letterSpacing: 0,
  lineHeight: 1,
  linkHandler: null,
  logLevel: "info",
  logger: null,
  macOptionIsMeta: false,
  macOptionClickForcesSelection: false,
  minimumContrastRatio: 1,
  reflowCursorLine: false,
  rescaleOverlappingGlyphs: false,
  rightClickSelectsWord: false,
  screenReaderMode: true,
  scrollback: 1000,
  scrollOnEraseInDisplay: false,
  scrollOnUserInput: true,
  scrollSensitivity: 1,
  smoothScrollDuration: 0,
  tabStopWidth: 8,
  theme: {},
  windowsPty: {},
  wordSeparator: " ()[]{}',\"`",
  windowOptions: {},
  overviewRuler: {},
};

// Options applied (at construction and when set later; scrollOnUserInput and
// ignoreBracketedPasteMode by input() and paste() only); every other known option is accepted,
// kept in `options`, and warned about once as not honoured.
const HONOURED = new Set([
  "cols", "rows", "theme", "fontFamily", "fontSize", "cursorBlink", "cursorStyle", "scrollback",
  "convertEol", "disableStdin", "screenReaderMode", "allowProposedApi", "scrollOnUserInput",
  "ignoreBracketedPasteMode",
]);
// Options wterm takes only at construction.
const CONSTRUCTOR_ONLY = new Set(["scrollback", "screenReaderMode"]);
const CURSOR_STYLES = { block: 1, underline: 3, bar: 5 };

// The ITheme names WTerm's setTheme takes; the colour forms it takes.
const THEME_KEYS = new Set([
  "foreground", "background", "cursor", "selectionBackground", "black", "red", "green", "yellow",
  "blue", "magenta", "cyan", "white", "brightBlack", "brightRed", "brightGreen", "brightYellow",
  "brightBlue", "brightMagenta", "brightCyan", "brightWhite",
]);
const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const HEX_ALPHA = /^#[0-9a-f]{8}$/i;

function wtermTheme(theme) {
  if (theme == null) return null;
  if (typeof theme !== "object") {
    throw new Error(`${PREFIX}theme must be an object (xterm.js ITheme); got ${typeof theme}`);
  }
  const out = {};
  for (const [key, value] of Object.entries(theme)) {
    if (value === undefined) continue;
    if (!THEME_KEYS.has(key)) {
      warnOnce(`theme.${key}`, `theme.${key} is not supported and is ignored`);
    } else if (
      typeof value === "string" &&
      (HEX.test(value) || (key === "selectionBackground" && HEX_ALPHA.test(value)))
    ) {
      out[key] = value;
    } else {
      warnOnce(
        `theme.${key}=`,
        `theme.${key}: only "#RGB" or "#RRGGBB" colours are supported` +
          `${key === "selectionBackground" ? ' (or "#RRGGBBAA")' : ""}; ${JSON.stringify(value)} is ignored`,
      );
    }
  }
  return out;
}

// LF as CR LF (xterm.js's convertEol): a string, or bytes.
function convertEol(data) {
  if (typeof data === "string") return data.replace(/\r?\n/g, "\r\n");
  const out = [];
  for (let i = 0; i < data.length; i++) {
    if (data[i] === 10 && (i === 0 || data[i - 1] !== 13)) out.push(13);
    out.push(data[i]);
  }
  return Uint8Array.from(out);
}

class Emitter {
  constructor() {
    this.listeners = new Set();
    this.event = (listener) => {
      if (typeof listener !== "function") {
        throw new Error(`${PREFIX}an event listener must be a function; got ${typeof listener}`);
      }
      const entry = { listener };
      this.listeners.add(entry);
      if (this.onFirst && this.listeners.size === 1) this.onFirst();
      return { dispose: () => this.listeners.delete(entry) };
    };
  }
  fire(a, b) {
    for (const { listener } of [...this.listeners]) listener(a, b);
  }
  clear() {
    this.listeners.clear();
  }
}

// The colour modes and flags of IBufferCell (xterm.js's numbers).
const CM_DEFAULT = 0;
const CM_P16 = 0x1000000;
const CM_P256 = 0x2000000;
const CM_RGB = 0x3000000;
const colorMode = (c) => (c < 0 ? CM_DEFAULT : c >= 0x1000000 ? CM_RGB : c < 16 ? CM_P16 : CM_P256);
const colorValue = (c) => (c < 0 ? 0 : c >= 0x1000000 ? c - 0x1000000 : c);

class BufferCell {
  constructor(chars, width, fg, bg, flags) {
    this._set(chars, width, fg, bg, flags);
  }
  _set(chars, width, fg, bg, flags) {
    this._chars = chars;
    this._width = width;
    this._fg = fg;
    this._bg = bg;
    this._flags = flags;
    return this;
  }
  getWidth() { return this._width; }
  getChars() { return this._chars; }
  getCode() { return this._chars ? this._chars.codePointAt(0) : 0; }
  getFgColorMode() { return colorMode(this._fg); }
  getBgColorMode() { return colorMode(this._bg); }
  getFgColor() { return colorValue(this._fg); }
  getBgColor() { return colorValue(this._bg); }
  isBold() { return this._flags & 1; }
  isItalic() { return this._flags & 2; }
  isDim() { return this._flags & 4; }
  isUnderline() { return this._flags & 8; }
  isBlink() { return this._flags & 16; }
  isInverse() { return this._flags & 32; }
  isInvisible() { return this._flags & 64; }
  isStrikethrough() { return this._flags & 128; }
  isOverline() { return 0; }
  isFgRGB() { return this.getFgColorMode() === CM_RGB; }
  isBgRGB() { return this.getBgColorMode() === CM_RGB; }
  isFgPalette() { const m = this.getFgColorMode(); return m === CM_P16 || m === CM_P256; }
  isBgPalette() { const m = this.getBgColorMode(); return m === CM_P16 || m === CM_P256; }
  isFgDefault() { return this._fg < 0; }
  isBgDefault() { return this._bg < 0; }
  isAttributeDefault() { return this._fg < 0 && this._bg < 0 && this._flags === 0; }
}

const FIELDS = 5;

// One line as read (a copy: later output does not change it).
class BufferLine {
  constructor(data) {
    this._data = data;
  }
  get isWrapped() {
    // xterm.js: this line continues the previous one (read when asked, once).
    if (this._continues === undefined) {
      const prev = this._y > 0 && !this._term._disposed ? this._term._wterm.bufferLine(this._y - 1) : undefined;
      this._continues = prev?.[0] === true;
    }
    return this._continues;
  }
  get length() {
    return (this._data.length - 1) / FIELDS;
  }
  getCell(x, cell) {
    if (!Number.isInteger(x) || x < 0 || x >= this.length) return undefined;
    const d = this._data;
    const i = 1 + x * FIELDS;
    return cell instanceof BufferCell
      ? cell._set(d[i], d[i + 1], d[i + 2], d[i + 3], d[i + 4])
      : new BufferCell(d[i], d[i + 1], d[i + 2], d[i + 3], d[i + 4]);
  }
  translateToString(trimRight = false, startColumn = 0, endColumn = this.length) {
    const d = this._data;
    const end = Math.min(endColumn, this.length);
    let s = "";
    for (let x = Math.max(0, startColumn); x < end; x++) {
      const i = 1 + x * FIELDS;
      if (d[i + 1] === 0) continue; // a wide character's second half
      s += d[i] || " ";
    }
    return trimRight ? s.replace(/\s+$/, "") : s;
  }
}

class Buffer {
  constructor(term, type) {
    this._term = term;
    this._type = type;
  }
  get _active() {
    return this._term._state().alternate === (this._type === "alternate");
  }
  get type() { return this._type; }
  get cursorX() { return this._active ? this._term._state().cursorX : 0; }
  get cursorY() { return this._active ? this._term._state().cursorY : 0; }
  get viewportY() { return this._active ? this._term._state().viewportY : 0; }
  get baseY() { return this._active ? this._term._state().baseY : 0; }
  get length() {
    if (this._active) return this._term._state().length;
    // The inactive alternate screen is blank; the normal one is not readable while the
    // alternate screen is active.
    return this._type === "alternate" ? this._term.rows : 0;
  }
  getLine(y) {
    const term = this._term;
    term._check("buffer.getLine");
    if (!Number.isInteger(y) || y < 0) return undefined;
    if (!this._active) {
      if (this._type === "normal") {
        warnOnce("normal-while-alt", "buffer.normal cannot be read while the alternate screen is active; getLine returns undefined");
        return undefined;
      }
      if (y >= term.rows) return undefined;
      const blank = [false];
      for (let x = 0; x < term.cols; x++) blank.push("", 1, -1, -1, 0);
      const line = new BufferLine(blank);
      line._continues = false;
      return line;
    }
    const data = term._wterm.bufferLine(y);
    if (data === undefined) return undefined;
    const line = new BufferLine(data);
    line._term = term;
    line._y = y;
    return line;
  }
  getNullCell() {
    return new BufferCell("", 1, -1, -1, 0);
  }
}

function notSupported(name, what = "is not supported and does nothing") {
  warnOnce(name, `${name} ${what}`);
}

const NOOP_DISPOSABLE = Object.freeze({ dispose() {} });

// The adapter's own rules: a link under the pointer is not underlined unless a WebLinksAddon is
// loaded (the host then has the class xterm-web-links).
const styled = new WeakSet();
function addStyle(doc) {
  if (styled.has(doc)) return;
  styled.add(doc);
  const style = doc.createElement("style");
  style.textContent = ".xterm:not(.xterm-web-links) .wterm-lk{display:none}";
  doc.head.appendChild(style);
}

export class Terminal {
  constructor(options = {}) {
    if (options === null || typeof options !== "object") {
      throw new Error(`${PREFIX}options must be an object; got ${options === null ? "null" : typeof options}`);
    }
    this._disposed = false;
    this._emitters = {};
    for (const name of [
      "onBell", "onBinary", "onCursorMove", "onData", "onKey", "onLineFeed", "onRender",
      "onWriteParsed", "onResize", "onScroll", "onSelectionChange", "onTitleChange",
      "onBufferChange",
    ]) {
      this._emitters[name] = new Emitter();
    }
    this._emitters.onBinary.onFirst = () =>
      notSupported("onBinary", "never fires: all input, mouse reports included, goes to onData as a string");
    this._emitters.onLineFeed.onFirst = () =>
      notSupported("onLineFeed", "never fires: wterm has no line-feed hook");
    this._values = { ...DEFAULTS };
    for (const [key, value] of Object.entries(options)) {
      if (value === undefined) continue;
      this._checkOption(key, value, true);
      this._values[key] = value;
    }
    const cols = options.cols ?? 80;
    const rows = options.rows ?? 24;
    this._values.cols = cols;
    this._values.rows = rows;

    const host = document.createElement("div");
    host.className = "xterm terminal";
    host.style.width = "100%";
    host.style.height = "100%";
    this._host = host;
    this._applyFont();

    const init = {
      cols,
      rows,
      scrollback: this._values.scrollback,
      screenReaderMode: this._values.screenReaderMode,
      // Plain-text links are found all along but shown and followed only while a
      // WebLinksAddon is loaded (xterm.js has none without it).
      links: true,
      onLink: (uri, event) => this._webLinks?.(event, uri),
      findBar: false,
    };
    if (options.theme !== undefined) init.theme = wtermTheme(options.theme);
    this._wterm = new WTerm(host, init);
    this._onDataListener = (data) => {
      const key = this._keyEvent;
      this._keyEvent = null;
      if (key) this._emitters.onKey.fire({ key: data, domEvent: key });
      this._emitters.onData.fire(data);
    };
    this._onResizeListener = (size) => {
      this._emitters.onResize.fire({ cols: size.cols, rows: size.rows });
      this._settle();
    };
    this._onTitleListener = (title) => this._emitters.onTitleChange.fire(title);
    this._onBellListener = () => this._emitters.onBell.fire();
    // A data listener also turns WTerm's local echo off, as xterm.js never echoes.
    this._wterm.addListener("data", this._onDataListener);
    this._wterm.addListener("resize", this._onResizeListener);
    this._wterm.addListener("title", this._onTitleListener);
    this._wterm.addListener("bell", this._onBellListener);
    this._applyCursor();

    this._pendingCallbacks = [];
    this._flushQueued = false;
    this._last = this._state();
    this._addons = [];
    this._domListeners = [];
    this._keyHandler = null;
    this._wheelHandler = null;
    this._swallowInput = false;
    this._lastSelection = "";
    this._opened = false;

    this.buffer = {
      active: null,
      normal: new Buffer(this, "normal"),
      alternate: new Buffer(this, "alternate"),
      onBufferChange: this._emitters.onBufferChange.event,
    };
    Object.defineProperty(this.buffer, "active", {
      get: () => (this._state().alternate ? this.buffer.alternate : this.buffer.normal),
    });
    for (const [name, emitter] of Object.entries(this._emitters)) {
      if (name !== "onBufferChange") this[name] = emitter.event;
    }
    this.unicode = {
      versions: ["15"],
      activeVersion: "15",
      register: () => notSupported("unicode.register", "is not supported: wterm's character widths are fixed (Unicode 15)"),
    };
    this.parser = {
      registerCsiHandler: () => (notSupported("parser.registerCsiHandler", "is not supported; the handler is never called"), NOOP_DISPOSABLE),
      registerDcsHandler: () => (notSupported("parser.registerDcsHandler", "is not supported; the handler is never called"), NOOP_DISPOSABLE),
      registerEscHandler: () => (notSupported("parser.registerEscHandler", "is not supported; the handler is never called"), NOOP_DISPOSABLE),
      registerOscHandler: () => (notSupported("parser.registerOscHandler", "is not supported; the handler is never called"), NOOP_DISPOSABLE),
    };
    this.markers = Object.freeze([]);
    this._options = this._optionsProxy();
  }

  static strings = { promptLabel: "Terminal input", tooMuchOutput: "Too much output to announce" };

  // --- internals ---

  _check(name) {
    if (this._disposed) {
      throw new Error(`${PREFIX}${name}() was called after dispose(); the terminal is gone`);
    }
  }

  _state() {
    return this._disposed ? this._last : this._wterm.bufferState();
  }

  _checkOption(key, value, atConstruction) {
    if (!(key in DEFAULTS) && key !== "cols" && key !== "rows") {
      warnOnce(`unknown:${key}`, `unknown option "${key}" is ignored`);
      return;
    }
    if (!atConstruction && (key === "cols" || key === "rows")) {
      throw new Error(`${PREFIX}option "${key}" can only be set in the constructor; use resize()`);
    }
    if (!HONOURED.has(key)) {
      warnOnce(`option:${key}`, `option "${key}" is not supported and is ignored`);
    } else if (!atConstruction && CONSTRUCTOR_ONLY.has(key)) {
      warnOnce(`late:${key}`, `option "${key}" can only be set in the constructor with wterm; the change is ignored`);
    } else if (key === "cursorStyle" && !(value in CURSOR_STYLES)) {
      throw new Error(`${PREFIX}cursorStyle must be "block", "underline" or "bar"; got ${JSON.stringify(value)}`);
    } else if (key === "fontSize" && !(typeof value === "number" && value > 0)) {
      throw new Error(`${PREFIX}fontSize must be a positive number; got ${JSON.stringify(value)}`);
    } else if (key === "fontFamily" && typeof value !== "string") {
      throw new Error(`${PREFIX}fontFamily must be a string; got ${typeof value}`);
    }
  }

  _setOption(key, value) {
    this._check("options");
    if (value === undefined) value = DEFAULTS[key];
    this._checkOption(key, value, false);
    if (!(key in DEFAULTS)) return;
    this._values[key] = value;
    if (key === "theme") this._wterm.setTheme(wtermTheme(value));
    else if (key === "fontFamily" || key === "fontSize") {
      this._fontSet = true;
      this._applyFont();
      if (this._opened) {
        warnOnce("font-late", `a new ${key} changes the cell size at the next fit (FitAddon.fit())`);
      }
    } else if (key === "cursorStyle" || key === "cursorBlink") this._applyCursor();
  }

  _optionsProxy() {
    return new Proxy(this._values, {
      set: (target, key, value) => {
        this._setOption(String(key), value);
        return true;
      },
      deleteProperty: () => false,
    });
  }

  _applyFont() {
    const v = this._values;
    if (v.fontFamily !== DEFAULTS.fontFamily) this._host.style.setProperty("--wterm-font-family", v.fontFamily);
    if (v.fontSize !== DEFAULTS.fontSize) this._host.style.setProperty("--wterm-font-size", `${v.fontSize}px`);
  }

  // The cursor's shape and blinking as a program's DECSCUSR sets them.
  _applyCursor() {
    const n = CURSOR_STYLES[this._values.cursorStyle] + (this._values.cursorBlink ? 0 : 1);
    this._wterm.write(`\x1b[${n} q`);
  }

  // After output was parsed: write callbacks, onWriteParsed, and the changes output makes
  // (cursor, scroll position, buffer), once per task.
  _afterWrite(callback) {
    if (callback) this._pendingCallbacks.push(callback);
    if (this._flushQueued) return;
    this._flushQueued = true;
    queueMicrotask(() => {
      this._flushQueued = false;
      if (this._disposed) return;
      const callbacks = this._pendingCallbacks;
      this._pendingCallbacks = [];
      this._settle();
      this._emitters.onWriteParsed.fire();
      for (const cb of callbacks) cb();
    });
  }

  _settle() {
    if (this._disposed) return;
    const before = this._last;
    const now = this._wterm.bufferState();
    this._last = now;
    if (now.alternate !== before.alternate) this._emitters.onBufferChange.fire(this.buffer.active);
    if (now.cursorX !== before.cursorX || now.cursorY !== before.cursorY) this._emitters.onCursorMove.fire();
    if (now.viewportY !== before.viewportY) this._emitters.onScroll.fire(now.viewportY);
  }

  _listen(target, type, fn, capture = true) {
    target.addEventListener(type, fn, capture);
    this._domListeners.push(() => target.removeEventListener(type, fn, capture));
  }

  _wireDom() {
    const host = this._host;
    // Keys: the custom key handler, disableStdin, and the key that onKey reports.
    const onKeyEvent = (ev) => {
      if (ev.type === "keydown") this._keyEvent = ev.isComposing ? null : ev;
      else if (ev.type === "keyup") this._keyEvent = null;
      if (this._values.disableStdin) {
        ev.stopPropagation();
        this._keyEvent = null;
        return;
      }
      if (this._keyHandler && this._keyHandler(ev) === false) {
        ev.stopPropagation();
        this._keyEvent = null;
        // The text a refused key types into the input is not sent either.
        if (ev.type === "keydown") this._swallowInput = true;
      } else if (ev.type === "keydown") {
        this._swallowInput = false;
      }
    };
    for (const type of ["keydown", "keyup", "keypress"]) this._listen(host, type, onKeyEvent);
    const onTextEvent = (ev) => {
      if (this._values.disableStdin || (this._swallowInput && ev.type !== "paste")) {
        ev.stopPropagation();
        if (ev.type !== "input" && ev.cancelable) ev.preventDefault();
      }
    };
    for (const type of ["beforeinput", "input", "paste", "compositionstart", "compositionupdate", "compositionend"]) {
      this._listen(host, type, onTextEvent);
    }
    this._listen(host, "wheel", (ev) => {
      if (this._wheelHandler && this._wheelHandler(ev) === false) {
        ev.stopPropagation();
        ev.preventDefault(); // no native scrolling either
      }
    }, { capture: true, passive: false });
    const doc = host.ownerDocument;
    this._listen(doc, "selectionchange", () => {
      if (this._disposed) return;
      const text = this.getSelection();
      if (text !== this._lastSelection) {
        this._lastSelection = text;
        this._emitters.onSelectionChange.fire();
      }
    }, false);
  }

  // onRender: the rows WTerm redrew, from the DOM mutations of its rows.
  _observeRender() {
    const rowsEl = this._host.querySelector(".wterm-rows");
    if (!rowsEl || this._renderObserver) return;
    this._renderObserver = new MutationObserver((records) => {
      if (this._disposed || this._emitters.onRender.listeners.size === 0) return;
      const rows = Array.prototype.slice.call(rowsEl.children);
      let start = Infinity;
      let end = -1;
      for (const r of records) {
        let node = r.target;
        while (node && node.parentNode !== rowsEl) node = node.parentNode;
        const i = node ? rows.indexOf(node) : -1;
        if (i < 0) {
          start = 0;
          end = this.rows - 1;
          break;
        }
        start = Math.min(start, i);
        end = Math.max(end, i);
      }
      if (end >= 0) this._emitters.onRender.fire({ start, end: Math.min(end, this.rows - 1) });
    });
    this._renderObserver.observe(rowsEl, { childList: true, subtree: true, characterData: true, attributes: true });
  }

  // --- public API ---

  get cols() { return this._disposed ? this._values.cols : this._wterm.cols; }
  get rows() { return this._disposed ? this._values.rows : this._wterm.rows; }
  get element() { return this._opened ? this._host : undefined; }
  get textarea() { return this._host.querySelector("textarea.wterm-input") ?? undefined; }
  get modes() {
    const s = this._state();
    return {
      applicationCursorKeysMode: s.applicationCursorKeysMode,
      applicationKeypadMode: s.applicationKeypadMode,
      bracketedPasteMode: s.bracketedPasteMode,
      insertMode: s.insertMode,
      mouseTrackingMode: s.mouseTrackingMode,
      originMode: s.originMode,
      reverseWraparoundMode: false,
      sendFocusMode: s.sendFocusMode,
      synchronizedOutputMode: s.synchronizedOutputMode,
      wraparoundMode: s.wraparoundMode,
    };
  }

  get options() {
    return this._options;
  }
  set options(value) {
    for (const [key, v] of Object.entries(value ?? {})) this._setOption(key, v);
  }

  open(parent) {
    this._check("open");
    if (!(parent instanceof HTMLElement)) {
      throw new Error(`${PREFIX}open(parent) takes an HTMLElement; got ${parent === null ? "null" : typeof parent}`);
    }
    addStyle(parent.ownerDocument);
    parent.appendChild(this._host);
    if (this._opened) return;
    this._opened = true;
    this._wireDom();
    this._ready = this._wterm.init().then(
      () => {
        if (this._disposed) return;
        this._isReady = true;
        this._observeRender();
        // Scrolling by the user: onScroll. Added after WTerm's own listener, which updates the
        // view first.
        const viewport = this._host.querySelector(".wterm-viewport");
        if (viewport) this._listen(viewport, "scroll", () => this._settle(), false);
        if (this._focusWanted) this._wterm.focus();
        this._settle();
      },
      (e) => {
        if (!this._disposed) console.error(PREFIX + "open failed:", e);
      },
    );
  }

  write(data, callback) {
    this._check("write");
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      throw new Error(`${PREFIX}write(data) takes a string or a Uint8Array; got ${data === null ? "null" : typeof data}`);
    }
    if (this._values.convertEol) data = convertEol(data);
    this._wterm.write(data);
    this._afterWrite(callback);
  }

  writeln(data, callback) {
    this._check("writeln");
    if (typeof data === "string") this.write(data + "\r\n", callback);
    else {
      this.write(data);
      this.write("\r\n", callback);
    }
  }

  input(data, wasUserInput = true) {
    this._check("input");
    if (typeof data !== "string") throw new Error(`${PREFIX}input(data) takes a string; got ${typeof data}`);
    if (wasUserInput && this._values.disableStdin) return;
    if (wasUserInput && this._values.scrollOnUserInput) this._wterm.scrollLines(Number.MAX_SAFE_INTEGER);
    this._emitters.onData.fire(data);
  }

  paste(data) {
    this._check("paste");
    if (typeof data !== "string") throw new Error(`${PREFIX}paste(data) takes a string; got ${typeof data}`);
    let text = data.replace(/\r?\n/g, "\r");
    if (this._state().bracketedPasteMode && !this._values.ignoreBracketedPasteMode) {
      text = `\x1b[200~${text.replace(/\x1b\[201~/g, "")}\x1b[201~`;
    }
    this.input(text, true);
  }

  resize(columns, rows) {
    this._check("resize");
    this._wterm.resize(columns, rows);
    this._values.cols = this._wterm.cols;
    this._values.rows = this._wterm.rows;
  }

  focus() {
    this._check("focus");
    this._focusWanted = true;
    this._wterm.focus();
  }

  blur() {
    this._check("blur");
    this._focusWanted = false;
    this.textarea?.blur();
  }

  clear() {
    this._check("clear");
    // As xterm.js: the cursor's line becomes the top line, everything else (history too) goes.
    const s = this._state();
    if (s.alternate) return;
    let seq = s.cursorY > 0 ? `\x1b[${s.cursorY}S` : "";
    seq += "\x1b[3J";
    if (this.rows > 1) seq += "\x1b[2;1H\x1b[J";
    seq += `\x1b[1;${s.cursorX + 1}H`;
    this._wterm.write(seq);
    this._afterWrite();
  }

  reset() {
    this._check("reset");
    this._wterm.reset();
    this._applyCursor();
    this._afterWrite();
  }

  refresh() {
    this._check("refresh");
  }

  clearTextureAtlas() {
    this._check("clearTextureAtlas");
  }

  scrollLines(amount) {
    this._check("scrollLines");
    this._wterm.scrollLines(amount);
    this._settle();
  }

  scrollPages(pageCount) {
    this._check("scrollPages");
    this.scrollLines(pageCount * this.rows);
  }

  scrollToTop() {
    this._check("scrollToTop");
    this.scrollLines(-this._state().viewportY);
  }

  scrollToBottom() {
    this._check("scrollToBottom");
    const s = this._state();
    this.scrollLines(s.baseY - s.viewportY);
  }

  scrollToLine(line) {
    this._check("scrollToLine");
    this.scrollLines(line - this._state().viewportY);
  }

  hasSelection() {
    this._check("hasSelection");
    return this.getSelection() !== "";
  }

  getSelection() {
    this._check("getSelection");
    return this._wterm.selectionText() ?? "";
  }

  clearSelection() {
    this._check("clearSelection");
    const sel = this._host.ownerDocument.getSelection();
    if (sel && sel.rangeCount > 0 && this._host.contains(sel.getRangeAt(0).commonAncestorContainer)) {
      sel.removeAllRanges();
    }
  }

  getSelectionPosition() {
    this._check("getSelectionPosition");
    notSupported("getSelectionPosition", "is not supported (the selection is the browser's own); it returns undefined");
    return undefined;
  }

  select(column, row, length) {
    this._check("select");
    notSupported("select", "is not supported (the selection is the browser's own)");
  }

  selectAll() {
    this._check("selectAll");
    notSupported("selectAll", "is not supported (the selection is the browser's own)");
  }

  selectLines(start, end) {
    this._check("selectLines");
    notSupported("selectLines", "is not supported (the selection is the browser's own)");
  }

  attachCustomKeyEventHandler(handler) {
    this._check("attachCustomKeyEventHandler");
    this._keyHandler = handler;
  }

  attachCustomWheelEventHandler(handler) {
    this._check("attachCustomWheelEventHandler");
    this._wheelHandler = handler;
  }

  registerLinkProvider(linkProvider) {
    this._check("registerLinkProvider");
    notSupported("registerLinkProvider", "is not supported; the provider is never asked");
    return NOOP_DISPOSABLE;
  }

  registerCharacterJoiner(handler) {
    this._check("registerCharacterJoiner");
    notSupported("registerCharacterJoiner", "is not supported; the joiner is never called");
    return -1;
  }

  deregisterCharacterJoiner(joinerId) {
    this._check("deregisterCharacterJoiner");
  }

  registerMarker(cursorYOffset = 0) {
    this._check("registerMarker");
    notSupported("registerMarker", "is not supported; it returns a disposed marker (line -1)");
    return {
      id: -1, line: -1, isDisposed: true, dispose() {},
      onDispose: () => NOOP_DISPOSABLE,
    };
  }

  registerDecoration(decorationOptions) {
    this._check("registerDecoration");
    notSupported("registerDecoration", "is not supported; it returns undefined");
    return undefined;
  }

  loadAddon(addon) {
    this._check("loadAddon");
    if (!addon || typeof addon.activate !== "function") {
      throw new Error(`${PREFIX}loadAddon(addon) takes an addon with activate(terminal)`);
    }
    this._addons.push(addon);
    addon.activate(this);
  }

  dispose() {
    if (this._disposed) return;
    this._last = this._wterm.bufferState();
    this._values.cols = this._wterm.cols;
    this._values.rows = this._wterm.rows;
    this._disposed = true;
    for (const addon of this._addons.splice(0)) {
      try {
        addon.dispose();
      } catch (e) {
        console.error(PREFIX + "an addon's dispose() threw:", e);
      }
    }
    for (const remove of this._domListeners.splice(0)) remove();
    this._renderObserver?.disconnect();
    this._renderObserver = null;
    this._wterm.removeListener("data", this._onDataListener);
    this._wterm.removeListener("resize", this._onResizeListener);
    this._wterm.removeListener("title", this._onTitleListener);
    this._wterm.removeListener("bell", this._onBellListener);
    this._wterm.destroy();
    this._wterm.free();
    this._host.remove();
    for (const emitter of Object.values(this._emitters)) emitter.clear();
    this._pendingCallbacks = [];
    this._keyHandler = null;
    this._wheelHandler = null;
  }
}

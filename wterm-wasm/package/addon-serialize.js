// wterm-wasm/addon-serialize: xterm.js's SerializeAddon for the Terminal of wterm-wasm/xterm,
// over WTerm's serialize: "ansi" (bytes that redraw the terminal in a fresh one of the same size)
// and "html".

const PREFIX = "wterm-wasm/addon-serialize: ";
const warned = new Set();
function warnOnce(key, message) {
  if (warned.has(key)) return;
  warned.add(key);
  console.warn(PREFIX + message);
}

function scrollback(options) {
  const n = options?.scrollback;
  if (n === undefined) return true;
  if (!(Number.isInteger(n) && n >= 0)) {
    throw new Error(`${PREFIX}scrollback must be a whole number of rows; got ${JSON.stringify(n)}`);
  }
  return n;
}

export class SerializeAddon {
  activate(terminal) {
    this._terminal = terminal;
  }

  dispose() {
    this._terminal = undefined;
  }

  _term(name) {
    const term = this._terminal;
    if (!term) throw new Error(`${PREFIX}the addon is not loaded (terminal.loadAddon(addon))`);
    term._check(name);
    return term;
  }

  serialize(options) {
    const term = this._term("serialize");
    if (options?.range !== undefined) warnOnce("range", "serialize's range is not supported and is ignored");
    if (options?.excludeModes === false) warnOnce("excludeModes", "modes are never serialized (as with excludeModes: true)");
    if (options?.excludeAltBuffer !== undefined) {
      warnOnce("excludeAltBuffer", "excludeAltBuffer is not supported: the screen shown (normal or alternate) is serialized");
    }
    return term._wterm.serialize({ format: "ansi", scrollback: scrollback(options) });
  }

  serializeAsHTML(options) {
    const term = this._term("serializeAsHTML");
    for (const key of ["onlySelection", "includeGlobalBackground", "range"]) {
      if (options?.[key] !== undefined) warnOnce(key, `serializeAsHTML's ${key} is not supported and is ignored`);
    }
    return term._wterm.serialize({ format: "html", scrollback: scrollback(options) });
  }
}

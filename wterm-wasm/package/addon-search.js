// wterm-wasm/addon-search: xterm.js's SearchAddon for the Terminal of wterm-wasm/xterm, over
// WTerm's own search (findNext, findPrevious, clearSearch: history and screen, matches across
// soft wraps, every match in view highlighted).

const PREFIX = "wterm-wasm/addon-search: ";
const warned = new Set();
function warnOnce(key, message) {
  if (warned.has(key)) return;
  warned.add(key);
  console.warn(PREFIX + message);
}

// ISearchDecorationOptions names drawn by wterm, as its CSS variables.
const DECORATION_VARS = {
  matchBackground: "--wterm-match",
  activeMatchBackground: "--wterm-match-active",
  activeMatchBorder: "--wterm-match-active-border",
};

export class SearchAddon {
  constructor(options) {
    if (options && options.highlightLimit !== undefined) {
      warnOnce("highlightLimit", "highlightLimit is not supported and is ignored (every match in view is highlighted; counts stop at 1000)");
    }
    this._listeners = new Set();
    this.onDidChangeResults = (listener) => {
      const entry = { listener };
      this._listeners.add(entry);
      return { dispose: () => this._listeners.delete(entry) };
    };
  }

  activate(terminal) {
    this._terminal = terminal;
  }

  dispose() {
    const term = this._terminal;
    if (term && !term._disposed) term._wterm.clearSearch();
    this._terminal = undefined;
    this._listeners.clear();
  }

  _find(query, options, backwards) {
    const term = this._terminal;
    if (!term) throw new Error(`${PREFIX}the addon is not loaded (terminal.loadAddon(addon))`);
    term._check(backwards ? "findPrevious" : "findNext");
    if (typeof query !== "string") throw new Error(`${PREFIX}the search term must be a string; got ${typeof query}`);
    if (query === "") {
      this.clearDecorations();
      return false;
    }
    const opts = {};
    for (const key of ["regex", "wholeWord", "caseSensitive", "incremental"]) {
      if (options?.[key] !== undefined) opts[key] = !!options[key];
    }
    const decorations = options?.decorations;
    if (decorations) {
      for (const [key, value] of Object.entries(decorations)) {
        if (value === undefined) continue;
        const name = DECORATION_VARS[key];
        if (name) term.element?.style.setProperty(name, value);
        else warnOnce(`decorations.${key}`, `decorations.${key} is not supported and is ignored`);
      }
    }
    const result = backwards ? term._wterm.findPrevious(query, opts) : term._wterm.findNext(query, opts);
    for (const { listener } of [...this._listeners]) {
      listener({ resultIndex: result.index, resultCount: result.count });
    }
    return result.index >= 0;
  }

  findNext(term, searchOptions) {
    return this._find(term, searchOptions, false);
  }

  findPrevious(term, searchOptions) {
    return this._find(term, searchOptions, true);
  }

  clearDecorations() {
    const term = this._terminal;
    if (term && !term._disposed) term._wterm.clearSearch();
  }

  clearActiveDecoration() {
    warnOnce("clearActiveDecoration", "clearActiveDecoration is not supported (wterm clears a search's highlights together: clearDecorations)");
  }
}

// wterm-wasm/addon-fit: xterm.js's FitAddon for the Terminal of wterm-wasm/xterm. fit() resizes
// the terminal to as many cells as fit the element it was opened in (WTerm's fit(), which
// measures the cell again first); proposeDimensions() says what that size would be.

const MIN_COLS = 2;
const MIN_ROWS = 1;
const MAX = 1000;

export class FitAddon {
  activate(terminal) {
    this._terminal = terminal;
  }

  dispose() {
    this._terminal = undefined;
  }

  proposeDimensions() {
    const term = this._terminal;
    if (!term || term._disposed || !term.element) return undefined;
    const root = term.element.querySelector(".wterm");
    if (!root) return undefined;
    const style = root.style;
    const cellW = parseFloat(style.getPropertyValue("--wterm-cell-w"));
    const cellH = parseFloat(style.getPropertyValue("--wterm-cell-h"));
    const scrollbar = parseFloat(style.getPropertyValue("--wterm-sb-w")) || 0;
    if (!(cellW > 0 && cellH > 0)) return undefined;
    const width = root.clientWidth - scrollbar;
    const height = root.clientHeight;
    if (width < cellW || height < cellH) return undefined;
    return {
      cols: Math.max(MIN_COLS, Math.min(MAX, Math.floor(width / cellW))),
      rows: Math.max(MIN_ROWS, Math.min(MAX, Math.floor(height / cellH))),
    };
  }

  fit() {
    const term = this._terminal;
    if (!term || term._disposed || !term.element) return;
    if (!term._isReady) {
      // open() measures the cell asynchronously (after the page's fonts load): fit once it has.
      if (!this._deferred) {
        this._deferred = true;
        term._ready.then(() => {
          this._deferred = false;
          if (this._terminal === term) this.fit();
        });
      }
      return;
    }
    term._wterm.fit();
    term._values.cols = term._wterm.cols;
    term._values.rows = term._wterm.rows;
  }
}

// wterm-wasm/keybar: Esc, Tab, a sticky Ctrl and the arrows for phones (separate module: it
// costs nothing unless imported).

/** Options of `attachKeyBar`. */
export interface KeyBarOptions {
  /** Where the bar is added; default: right after the terminal's element. */
  container?: HTMLElement;
}

/** A key bar added to the page. */
export interface KeyBar {
  /** The bar: `div.wterm-keybar`, `role="toolbar"`, one `button` per key (`data-key`). */
  readonly element: HTMLElement;
  /** Removes the bar and its listeners. */
  dispose(): void;
}

/**
 * Adds a key bar for the terminal drawn in `element` (the element given to `new WTerm`, after
 * `init()`). Keys go to the terminal as key presses, encoded for the program's modes; Ctrl
 * applies to the next key or typed character (tap twice to keep it on).
 * @throws TypeError when `element` holds no initialized terminal.
 */
export function attachKeyBar(element: HTMLElement, options?: KeyBarOptions): KeyBar;

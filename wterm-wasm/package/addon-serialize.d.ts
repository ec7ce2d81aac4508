/**
 * wterm-wasm/addon-serialize: xterm.js's SerializeAddon (`@xterm/addon-serialize`) for the
 * `Terminal` of `wterm-wasm/xterm`, over wterm's `serialize`.
 */
import type { IMarker, ITerminalAddon, Terminal } from "./xterm.js";

export class SerializeAddon implements ITerminalAddon {
  constructor();
  activate(terminal: Terminal): void;
  dispose(): void;
  /**
   * Escape sequences that redraw the terminal (history, screen, colours, attributes, links,
   * wraps, cursor) when written to a fresh terminal of the same size. Modes are not included.
   */
  serialize(options?: ISerializeOptions): string;
  /** A standalone `<pre>` with the theme's colours, every character escaped. */
  serializeAsHTML(options?: Partial<IHTMLSerializeOptions>): string;
}

export interface ISerializeOptions {
  /** Not supported: ignored, with a warning. */
  range?: ISerializeRange;
  /** Rows of history included (default all). */
  scrollback?: number;
  /** Modes are never included. */
  excludeModes?: boolean;
  /** Not supported: the screen shown is serialized. */
  excludeAltBuffer?: boolean;
}

export interface IHTMLSerializeOptions {
  /** Rows of history included (default all). */
  scrollback: number;
  /** Not supported. */
  onlySelection: boolean;
  /** Not supported: the theme's colours are always on the `<pre>`. */
  includeGlobalBackground: boolean;
  /** Not supported. */
  range?: ISerializeBufferRange;
}

export interface ISerializeBufferRange {
  startLine: number;
  endLine: number;
  startCol: number;
}

export interface ISerializeRange {
  start: IMarker | number;
  end: IMarker | number;
}

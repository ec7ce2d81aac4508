/**
 * wterm-wasm/addon-fit: xterm.js's FitAddon (`@xterm/addon-fit`) for the `Terminal` of
 * `wterm-wasm/xterm`.
 */
import type { ITerminalAddon, Terminal } from "./xterm.js";

export class FitAddon implements ITerminalAddon {
  constructor();
  activate(terminal: Terminal): void;
  dispose(): void;
  /**
   * Resizes the terminal to as many cells as fit the element it was opened in, measuring the
   * cell again first. Called before the first measurement (right after `open`), it fits once
   * that is done.
   */
  fit(): void;
  /** The size `fit` would choose, or undefined before the cell is measured or when hidden. */
  proposeDimensions(): ITerminalDimensions | undefined;
}

export interface ITerminalDimensions {
  rows: number;
  cols: number;
}

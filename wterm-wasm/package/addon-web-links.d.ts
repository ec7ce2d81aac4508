/**
 * wterm-wasm/addon-web-links: xterm.js's WebLinksAddon (`@xterm/addon-web-links`) for the
 * `Terminal` of `wterm-wasm/xterm`: http:// and https:// URLs, underlined under the pointer,
 * followed by Ctrl+click (Cmd+click on macOS).
 */
import type { ITerminalAddon, IViewportRange, Terminal } from "./xterm.js";

export class WebLinksAddon implements ITerminalAddon {
  /**
   * `handler(event, uri)` follows a link (default: opens it in a new tab without an opener).
   * `options` are not supported (ignored, with a warning).
   */
  constructor(handler?: (event: MouseEvent, uri: string) => void, options?: ILinkProviderOptions);
  activate(terminal: Terminal): void;
  dispose(): void;
}

/** Not supported: ignored, with a warning. */
export interface ILinkProviderOptions {
  hover?(event: MouseEvent, text: string, location: IViewportRange): void;
  leave?(event: MouseEvent, text: string): void;
  urlRegex?: RegExp;
}

// wterm-wasm/react: the terminal as a React component.
import type { ForwardRefExoticComponent, HTMLAttributes, RefAttributes } from "react";
import type {
  WTerm, WTermSize, WTermAgentActivity, WTermSearchResult, WTermWebMCPOptions, WTermProgress,
  WTermTheme, WTermThemeName,
} from "./wterm_wasm.js";
import type { RelayOptions } from "./relay.js";

/** The `relay` prop: `attachToRelay`'s options (see wterm-wasm/relay). */
export type TerminalRelayProp = RelayOptions;

/**
 * Props of `<Terminal>`. Changes apply to the live terminal; it is never re-created:
 * `webmcp` through `setWebMCP` (compared by value, so a new object literal with the same fields
 * is no change), `cols`/`rows` through `resize` (unset both to fit the element), callbacks by
 * calling the latest ones, `relay` by re-attaching when `url`, `token` or `session` change.
 * `scrollback` is read once, when the terminal is created.
 *
 * Other props (className, style, id, data-*, ...) go to the element the terminal draws into;
 * give it a size (for example a height) when `cols`/`rows` are not set, since the terminal
 * then fits the element.
 */
export interface TerminalProps extends Omit<HTMLAttributes<HTMLDivElement>, "onResize" | "onProgress" | "onError"> {
  /** WebMCP tools for this terminal: `true`, `{name?, description?, readOnly?}` or `false` (default). */
  webmcp?: boolean | WTermWebMCPOptions;
  /** Width in columns, an integer 2..1000. Default: fit the element. */
  cols?: number;
  /** Height in rows, an integer 1..1000. Default: fit the element. */
  rows?: number;
  /** Rows of history, an integer 0..1000000 (default 10000). Read at creation only. */
  scrollback?: number;
  /** Ctrl+V pastes instead of sending ^V (default false). Read at creation only. */
  pasteWithCtrlV?: boolean;
  /** Announce new output to screen readers (default true). Read at creation only. */
  screenReaderMode?: boolean;
  /**
   * Everything the terminal sends to the program (keys, pastes, replies to queries, agent
   * input). Without it and without `relay`, input is echoed locally.
   */
  onData?: (data: string) => void;
  /** The size in cells changed. */
  onResize?: (size: WTermSize) => void;
  /** The program set the window title (OSC 0/2). */
  onTitle?: (title: string) => void;
  /**
   * An agent read or wrote the terminal: `{kind: "read" | "write", tool, at, source:
   * "webmcp" | "relay"}` (its WebMCP tools, or an MCP client through the relay).
   */
  onAgent?: (activity: WTermAgentActivity) => void;
  /**
   * The terminal could not be made: an option it refuses (`links` without `full`, a bad
   * `theme`), or the wasm failed to load. Nothing is drawn and `onReady` is not called; the
   * error is logged too.
   */
  onError?: (error: Error) => void;
  /**
   * Loads the full entry (`wterm-wasm/full`: search, plain-text links, the find bar and
   * `serialize`) instead of the core one. `links`, `findBar`, `onLink` and `onSearch` need it;
   * without it the terminal refuses them. Read at creation only. Default `false`.
   */
  full?: boolean;
  /**
   * Plain-text links (with `full`): `http(s)://` URLs (default `true`) or your own `pattern`; Ctrl/Cmd+click
   * opens one in a new tab without `window.opener`. `false`: off. Read at creation only.
   */
  links?: boolean | { pattern?: RegExp };
  /** Ctrl+Shift+F opens the built-in find bar (with `full`; default true). Read at creation only. */
  findBar?: boolean;
  /** Handles Ctrl/Cmd+click on a plain-text link instead of opening it (set it at creation). */
  onLink?: (uri: string, event: MouseEvent) => void;
  /** Each search result (`search`, `findNext`, `findPrevious`, the find bar). */
  onSearch?: (result: WTermSearchResult) => void;
  /** The program rang the bell (BEL). */
  onBell?: () => void;
  /** The program reported progress (`OSC 9 ; 4`): `{state: 0..4, value: 0..100}`. */
  onProgress?: (progress: WTermProgress) => void;
  /**
   * Colours: a preset (`"dark"`, `"light"`, `"solarized-dark"`, `"solarized-light"`), a custom
   * object (`foreground`, `background`, `cursor`, `selectionBackground`, `black`..`brightWhite`,
   * each "#RGB" or "#RRGGBB"), or null: the CSS variables decide. Applied live with `setTheme`
   * when its value changes.
   */
  theme?: WTermThemeName | WTermTheme | null;
  /** Attach to a wterm-relay session: a real shell. */
  relay?: TerminalRelayProp;
  /** Focus the terminal once it is ready. */
  autoFocus?: boolean;
  /** Called once with the WTerm when it is initialized (the ref is set at the same time). */
  onReady?: (term: WTerm) => void;
}

/**
 * A terminal. The ref receives the `WTerm` once it is initialized (`null` before and after):
 * `ref.current.write("hello\r\n")`. The WebMCP tools are withdrawn and the relay connection
 * closed when it unmounts.
 */
export declare const Terminal: ForwardRefExoticComponent<TerminalProps & RefAttributes<WTerm | null>>;
export default Terminal;

/**
 * wterm-wasm/addon-search: xterm.js's SearchAddon (`@xterm/addon-search`) for the `Terminal` of
 * `wterm-wasm/xterm`, over wterm's own search.
 */
import type { IEvent, ITerminalAddon, Terminal } from "./xterm.js";

export interface ISearchOptions {
  /** The term is a JavaScript RegExp source. */
  regex?: boolean;
  /** Only matches with no letter, digit or `_` right before and after. */
  wholeWord?: boolean;
  caseSensitive?: boolean;
  /** Stay on the active match while it still matches (find as you type). */
  incremental?: boolean;
  /** matchBackground, activeMatchBackground and activeMatchBorder are drawn; the others are ignored. */
  decorations?: ISearchDecorationOptions;
}

export interface ISearchDecorationOptions {
  matchBackground?: string;
  matchBorder?: string;
  matchOverviewRuler: string;
  activeMatchBackground?: string;
  activeMatchBorder?: string;
  activeMatchColorOverviewRuler: string;
}

export interface ISearchResultChangeEvent {
  /** The active match's 0-based index, -1 without one. */
  resultIndex: number;
  /** Matches found (at most 1000). */
  resultCount: number;
}

export interface ISearchAddonOptions {
  /** Ignored: every match in view is highlighted. */
  highlightLimit: number;
}

export class SearchAddon implements ITerminalAddon {
  constructor(options?: Partial<ISearchAddonOptions>);
  activate(terminal: Terminal): void;
  dispose(): void;
  /** The next match (wrapping around); whether there is one. */
  findNext(term: string, searchOptions?: ISearchOptions): boolean;
  /** The previous match (wrapping around); whether there is one. */
  findPrevious(term: string, searchOptions?: ISearchOptions): boolean;
  /** Ends the search and removes its highlights. */
  clearDecorations(): void;
  /** Not supported (a warning says so): `clearDecorations` removes all highlights. */
  clearActiveDecoration(): void;
  readonly onDidChangeResults: IEvent<ISearchResultChangeEvent>;
}

/**
 * wterm-wasm/xterm: a `Terminal` with the public API of xterm.js 6 (`@xterm/xterm`), drawn by
 * wterm's WebAssembly terminal. Switch an xterm.js app by changing its imports:
 * `@xterm/xterm` -> `wterm-wasm/xterm`, `@xterm/addon-fit` -> `wterm-wasm/addon-fit`.
 *
 * The module loads the wasm when imported (top-level await). What is not honoured (options,
 * methods, events) is listed in the package README, "Coming from xterm.js", and said once per
 * page with `console.warn` when used.
 */

export type FontWeight =
  | "normal" | "bold" | "100" | "200" | "300" | "400" | "500" | "600" | "700" | "800" | "900" | number;
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "off";

/**
 * Terminal options. Honoured: `cols`, `rows`, `theme` (the colours of `#RGB`/`#RRGGBB` form),
 * `fontFamily`, `fontSize`, `cursorBlink`, `cursorStyle`, `scrollback` and `screenReaderMode`
 * (constructor only), `convertEol`, `disableStdin`. The others are accepted and ignored, with
 * a warning.
 */
export interface ITerminalOptions {
  allowProposedApi?: boolean;
  allowTransparency?: boolean;
  altClickMovesCursor?: boolean;
  /** Line feeds written also return the cursor to column 0. */
  convertEol?: boolean;
  /** The cursor blinks (as DECSCUSR sets it; a program's DECSCUSR or a reset overrides it). */
  cursorBlink?: boolean;
  /** The cursor's shape (as DECSCUSR sets it). Default "block". */
  cursorStyle?: "block" | "underline" | "bar";
  cursorWidth?: number;
  cursorInactiveStyle?: "outline" | "block" | "bar" | "underline" | "none";
  customGlyphs?: boolean;
  /** Keyboard, paste and IME input is not sent to `onData`. */
  disableStdin?: boolean;
  documentOverride?: any | null;
  drawBoldTextInBrightColors?: boolean;
  fastScrollSensitivity?: number;
  /** Font size in CSS px (the `--wterm-font-size` variable). Measured at `open` and at fit. */
  fontSize?: number;
  /** CSS font family (the `--wterm-font-family` variable). Measured at `open` and at fit. */
  fontFamily?: string;
  fontWeight?: FontWeight;
  fontWeightBold?: FontWeight;
  ignoreBracketedPasteMode?: boolean;
  letterSpacing?: number;
  lineHeight?: number;
  linkHandler?: ILinkHandler | null;
  logLevel?: LogLevel;
  logger?: ILogger | null;
  macOptionIsMeta?: boolean;
  macOptionClickForcesSelection?: boolean;
  minimumContrastRatio?: number;
  reflowCursorLine?: boolean;
  rescaleOverlappingGlyphs?: boolean;
  rightClickSelectsWord?: boolean;
  /** Announce new output to screen readers (constructor only). Default true in wterm. */
  screenReaderMode?: boolean;
  /** Rows of history (constructor only). Default 1000. */
  scrollback?: number;
  scrollOnEraseInDisplay?: boolean;
  scrollOnUserInput?: boolean;
  scrollSensitivity?: number;
  smoothScrollDuration?: number;
  tabStopWidth?: number;
  /** Colours; the names wterm draws are applied, each `#RGB` or `#RRGGBB`. */
  theme?: ITheme;
  windowsPty?: IWindowsPty;
  wordSeparator?: string;
  windowOptions?: IWindowOptions;
  overviewRuler?: IOverviewRulerOptions;
}

/** Options only the constructor takes. */
export interface ITerminalInitOnlyOptions {
  /** Columns, 2..1000. Default 80. */
  cols?: number;
  /** Rows, 1..1000. Default 24. */
  rows?: number;
}

/** Colours. wterm draws foreground, background, cursor, selectionBackground and the 16 ANSI colours. */
export interface ITheme {
  foreground?: string;
  background?: string;
  cursor?: string;
  cursorAccent?: string;
  selectionBackground?: string;
  selectionForeground?: string;
  selectionInactiveBackground?: string;
  scrollbarSliderBackground?: string;
  scrollbarSliderHoverBackground?: string;
  scrollbarSliderActiveBackground?: string;
  overviewRulerBorder?: string;
  black?: string;
  red?: string;
  green?: string;
  yellow?: string;
  blue?: string;
  magenta?: string;
  cyan?: string;
  white?: string;
  brightBlack?: string;
  brightRed?: string;
  brightGreen?: string;
  brightYellow?: string;
  brightBlue?: string;
  brightMagenta?: string;
  brightCyan?: string;
  brightWhite?: string;
  extendedAnsi?: string[];
}

export interface IWindowsPty {
  backend?: "conpty" | "winpty";
  buildNumber?: number;
}

export interface ILogger {
  trace(message: string, ...args: any[]): void;
  debug(message: string, ...args: any[]): void;
  info(message: string, ...args: any[]): void;
  warn(message: string, ...args: any[]): void;
  error(message: string | Error, ...args: any[]): void;
}

/** Something that can be released. */
export interface IDisposable {
  dispose(): void;
}

/** An event: call it with a listener; dispose what it returns to stop listening. */
export interface IEvent<T, U = void> {
  (listener: (arg1: T, arg2: U) => any): IDisposable;
}

export interface IDisposableWithEvent extends IDisposable {
  onDispose: IEvent<void>;
  readonly isDisposed: boolean;
}

/** Markers are not supported: `registerMarker` returns a disposed one (line -1). */
export interface IMarker extends IDisposableWithEvent {
  readonly id: number;
  readonly line: number;
}

export interface IDecoration extends IDisposableWithEvent {
  readonly marker: IMarker;
  readonly onRender: IEvent<HTMLElement>;
  element: HTMLElement | undefined;
  options: Pick<IDecorationOptions, "overviewRulerOptions">;
}

export interface IDecorationOverviewRulerOptions {
  color: string;
  position?: "left" | "center" | "right" | "full";
}

export interface IDecorationOptions {
  readonly marker: IMarker;
  readonly anchor?: "right" | "left";
  readonly x?: number;
  readonly width?: number;
  readonly height?: number;
  readonly backgroundColor?: string;
  readonly foregroundColor?: string;
  readonly layer?: "bottom" | "top";
  overviewRulerOptions?: IDecorationOverviewRulerOptions;
}

export interface ILocalizableStrings {
  promptLabel: string;
  tooMuchOutput: string;
}

export interface IOverviewRulerOptions {
  width?: number;
  showTopBorder?: boolean;
  showBottomBorder?: boolean;
}

export interface IWindowOptions {
  restoreWin?: boolean;
  minimizeWin?: boolean;
  setWinPosition?: boolean;
  setWinSizePixels?: boolean;
  raiseWin?: boolean;
  lowerWin?: boolean;
  refreshWin?: boolean;
  setWinSizeChars?: boolean;
  maximizeWin?: boolean;
  fullscreenWin?: boolean;
  getWinState?: boolean;
  getWinPosition?: boolean;
  getWinSizePixels?: boolean;
  getScreenSizePixels?: boolean;
  getCellSizePixels?: boolean;
  getWinSizeChars?: boolean;
  getScreenSizeChars?: boolean;
  getIconTitle?: boolean;
  getWinTitle?: boolean;
  pushTitle?: boolean;
  popTitle?: boolean;
  setWinLines?: boolean;
}

/** A terminal in the page, with xterm.js 6's API. */
export class Terminal implements IDisposable {
  /** The terminal's element (`div.xterm`), once `open` was called. */
  readonly element: HTMLElement | undefined;
  /** The hidden input keyboard and IME go to; there a moment after `open`. */
  readonly textarea: HTMLTextAreaElement | undefined;
  readonly rows: number;
  readonly cols: number;
  /** The active, normal and alternate buffers. */
  readonly buffer: IBufferNamespace;
  /** Always empty: markers are not supported. */
  readonly markers: ReadonlyArray<IMarker>;
  /** Handlers are not supported: they are never called (a warning says so). */
  readonly parser: IParser;
  readonly unicode: IUnicodeHandling;
  readonly modes: IModes;
  /** The options; setting one (`term.options.theme = ...`) applies it. */
  options: ITerminalOptions;
  static strings: ILocalizableStrings;

  constructor(options?: ITerminalOptions & ITerminalInitOnlyOptions);

  /** The program rang the bell. */
  onBell: IEvent<void>;
  /** Never fires: everything, mouse reports too, goes to `onData`. */
  onBinary: IEvent<string>;
  /** The cursor moved (checked after each write and resize). */
  onCursorMove: IEvent<void>;
  /** What the terminal sends to the program: keys, pastes, replies to queries, `input()`. */
  onData: IEvent<string>;
  /** A key press that sent data: `key` is what it sent. */
  onKey: IEvent<{ key: string; domEvent: KeyboardEvent }>;
  /** Never fires: wterm has no line-feed hook. */
  onLineFeed: IEvent<void>;
  /** Rows `start..end` (of the view) were redrawn. */
  onRender: IEvent<{ start: number; end: number }>;
  /** Written data was parsed (once per task of writes). */
  onWriteParsed: IEvent<void>;
  onResize: IEvent<{ cols: number; rows: number }>;
  /** The view scrolled; the argument is the new `viewportY`. */
  onScroll: IEvent<number>;
  onSelectionChange: IEvent<void>;
  onTitleChange: IEvent<string>;

  blur(): void;
  focus(): void;
  /** Sends `data` to `onData` as if typed (`wasUserInput`: `disableStdin` applies). */
  input(data: string, wasUserInput?: boolean): void;
  resize(columns: number, rows: number): void;
  /** Adds the terminal to `parent` and starts drawing (the cell is measured asynchronously). */
  open(parent: HTMLElement): void;
  /** `handler` sees keydown, keyup and keypress first; returning false stops the terminal's handling. */
  attachCustomKeyEventHandler(customKeyEventHandler: (event: KeyboardEvent) => boolean): void;
  /** `handler` sees wheel events first; returning false stops scrolling and wheel reports. */
  attachCustomWheelEventHandler(customWheelEventHandler: (event: WheelEvent) => boolean): void;
  /** Not supported: the provider is never asked. */
  registerLinkProvider(linkProvider: ILinkProvider): IDisposable;
  /** Not supported: returns -1. */
  registerCharacterJoiner(handler: (text: string) => [number, number][]): number;
  deregisterCharacterJoiner(joinerId: number): void;
  /** Not supported: returns a disposed marker. */
  registerMarker(cursorYOffset?: number): IMarker;
  /** Not supported: returns undefined. */
  registerDecoration(decorationOptions: IDecorationOptions): IDecoration | undefined;
  hasSelection(): boolean;
  /** The selected text, as copying gives it. */
  getSelection(): string;
  /** Not supported: returns undefined. */
  getSelectionPosition(): IBufferRange | undefined;
  clearSelection(): void;
  /** Not supported (the selection is the browser's own). */
  select(column: number, row: number, length: number): void;
  /** Not supported (the selection is the browser's own). */
  selectAll(): void;
  /** Not supported (the selection is the browser's own). */
  selectLines(start: number, end: number): void;
  /** Removes the terminal; calling it again does nothing, any other call throws. */
  dispose(): void;
  scrollLines(amount: number): void;
  scrollPages(pageCount: number): void;
  scrollToTop(): void;
  scrollToBottom(): void;
  scrollToLine(line: number): void;
  /** Keeps the cursor's line as the only one, at the top; history goes. */
  clear(): void;
  /** Writes program output; `callback` runs once it is parsed. */
  write(data: string | Uint8Array, callback?: () => void): void;
  writeln(data: string | Uint8Array, callback?: () => void): void;
  /** Sends `data` as a paste (CR line ends, bracketed when the program asked). */
  paste(data: string): void;
  /** Does nothing: wterm redraws what changed by itself. */
  refresh(start: number, end: number): void;
  /** Does nothing (no texture atlas). */
  clearTextureAtlas(): void;
  reset(): void;
  loadAddon(addon: ITerminalAddon): void;
}

/** An addon: `loadAddon` calls `activate`, `dispose` of the terminal disposes it. */
export interface ITerminalAddon extends IDisposable {
  activate(terminal: Terminal): void;
}

export interface IViewportRange {
  start: IViewportRangePosition;
  end: IViewportRangePosition;
}

export interface IViewportRangePosition {
  x: number;
  y: number;
}

export interface ILinkHandler {
  activate(event: MouseEvent, text: string, range: IBufferRange): void;
  hover?(event: MouseEvent, text: string, range: IBufferRange): void;
  leave?(event: MouseEvent, text: string, range: IBufferRange): void;
  allowNonHttpProtocols?: boolean;
}

export interface ILinkProvider {
  provideLinks(bufferLineNumber: number, callback: (links: ILink[] | undefined) => void): void;
}

export interface ILink {
  range: IBufferRange;
  text: string;
  decorations?: ILinkDecorations;
  activate(event: MouseEvent, text: string): void;
  hover?(event: MouseEvent, text: string): void;
  leave?(event: MouseEvent, text: string): void;
  dispose?(): void;
}

export interface ILinkDecorations {
  pointerCursor: boolean;
  underline: boolean;
}

export interface IBufferRange {
  start: IBufferCellPosition;
  end: IBufferCellPosition;
}

export interface IBufferCellPosition {
  x: number;
  y: number;
}

/** A buffer: history lines `0..baseY`, then the screen. */
export interface IBuffer {
  readonly type: "normal" | "alternate";
  readonly cursorY: number;
  readonly cursorX: number;
  readonly viewportY: number;
  readonly baseY: number;
  readonly length: number;
  /** Line `y` (0 = the oldest history line), read now; undefined past the end. */
  getLine(y: number): IBufferLine | undefined;
  getNullCell(): IBufferCell;
}

export interface IBufferElementProvider {
  provideBufferElements(): DocumentFragment | HTMLElement;
}

export interface IBufferNamespace {
  readonly active: IBuffer;
  readonly normal: IBuffer;
  readonly alternate: IBuffer;
  onBufferChange: IEvent<IBuffer>;
}

export interface IBufferLine {
  /** This line continues the previous one (a soft wrap). */
  readonly isWrapped: boolean;
  readonly length: number;
  getCell(x: number, cell?: IBufferCell): IBufferCell | undefined;
  translateToString(trimRight?: boolean, startColumn?: number, endColumn?: number): string;
}

export interface IBufferCell {
  getWidth(): number;
  getChars(): string;
  getCode(): number;
  getFgColorMode(): number;
  getBgColorMode(): number;
  getFgColor(): number;
  getBgColor(): number;
  isBold(): number;
  isItalic(): number;
  isDim(): number;
  isUnderline(): number;
  isBlink(): number;
  isInverse(): number;
  isInvisible(): number;
  isStrikethrough(): number;
  isOverline(): number;
  isFgRGB(): boolean;
  isBgRGB(): boolean;
  isFgPalette(): boolean;
  isBgPalette(): boolean;
  isFgDefault(): boolean;
  isBgDefault(): boolean;
  isAttributeDefault(): boolean;
}

export interface IFunctionIdentifier {
  prefix?: string;
  intermediates?: string;
  final: string;
}

export interface IParser {
  registerCsiHandler(id: IFunctionIdentifier, callback: (params: (number | number[])[]) => boolean | Promise<boolean>): IDisposable;
  registerDcsHandler(id: IFunctionIdentifier, callback: (data: string, param: (number | number[])[]) => boolean | Promise<boolean>): IDisposable;
  registerEscHandler(id: IFunctionIdentifier, handler: () => boolean | Promise<boolean>): IDisposable;
  registerOscHandler(ident: number, callback: (data: string) => boolean | Promise<boolean>): IDisposable;
}

export interface IUnicodeVersionProvider {
  readonly version: string;
  wcwidth(codepoint: number): 0 | 1 | 2;
  charProperties(codepoint: number, preceding: number): number;
}

export interface IUnicodeHandling {
  register(provider: IUnicodeVersionProvider): void;
  readonly versions: ReadonlyArray<string>;
  activeVersion: string;
}

export interface IModes {
  readonly applicationCursorKeysMode: boolean;
  readonly applicationKeypadMode: boolean;
  readonly bracketedPasteMode: boolean;
  readonly insertMode: boolean;
  readonly mouseTrackingMode: "none" | "x10" | "vt200" | "drag" | "any";
  readonly originMode: boolean;
  readonly reverseWraparoundMode: boolean;
  readonly sendFocusMode: boolean;
  readonly synchronizedOutputMode: boolean;
  readonly wraparoundMode: boolean;
}

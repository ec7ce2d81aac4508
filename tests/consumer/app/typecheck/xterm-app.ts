// A small app written against xterm.js 6 (@xterm/xterm and the fit, search, serialize and
// web-links addons), type-checked as it is and, by tests/consumer/run.sh, once more with only its import
// paths changed to wterm-wasm/xterm and wterm-wasm/addon-* (xterm-app-wterm.ts): the package's declarations
// must accept what xterm.js's accept. Never run (tests/e2e/xterm-compat.spec.ts runs the entry).
import { Terminal, type IBufferLine, type IDisposable, type ITerminalOptions, type ITheme } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { SearchAddon, type ISearchOptions } from "@xterm/addon-search";
import { SerializeAddon } from "@xterm/addon-serialize";
import { WebLinksAddon } from "@xterm/addon-web-links";

const theme: ITheme = { background: "#1e1e1e", foreground: "#d4d4d4", cursor: "#ffb000" };
const options: ITerminalOptions = {
  theme,
  fontFamily: "monospace",
  fontSize: 14,
  cursorBlink: true,
  cursorStyle: "bar",
  scrollback: 5000,
  convertEol: true,
};

export function start(parent: HTMLElement, send: (data: string) => void): () => void {
  const term = new Terminal({ ...options, cols: 100, rows: 30 });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(parent);
  fit.fit();
  const dims = fit.proposeDimensions();
  if (dims) console.log(`${dims.cols}x${dims.rows}`);

  const subs: IDisposable[] = [
    term.onData((data) => send(data)),
    term.onBinary((data) => send(data)),
    term.onKey(({ key, domEvent }) => {
      if (domEvent.ctrlKey && key === "\x03") console.log("interrupt");
    }),
    term.onResize(({ cols, rows }) => console.log(cols, rows)),
    term.onTitleChange((title) => (document.title = title)),
    term.onBell(() => console.log("bell")),
    term.onSelectionChange(() => console.log(term.getSelection())),
    term.onLineFeed(() => {}),
    term.onScroll((y: number) => console.log(y)),
    term.onRender(({ start, end }) => console.log(start, end)),
    term.onWriteParsed(() => {}),
    term.onCursorMove(() => {}),
    term.buffer.onBufferChange((b) => console.log(b.type)),
  ];

  term.write("hello\n", () => {
    const buffer = term.buffer.active;
    const line: IBufferLine | undefined = buffer.getLine(buffer.cursorY + buffer.baseY);
    const text: string = line?.translateToString(true, 0, term.cols) ?? "";
    const cell = line?.getCell(0);
    const bold: boolean = !!cell?.isBold();
    console.log(text, bold, cell?.getChars(), cell?.getWidth(), buffer.viewportY, buffer.length, line?.isWrapped);
    console.log(term.buffer.normal.type, term.buffer.alternate.length);
  });
  term.write(new Uint8Array([0x68, 0x69]));
  term.writeln("world");
  term.options.theme = { ...theme, background: "#000000" };
  term.options.fontSize = (term.options.fontSize ?? 14) + 1;
  term.options = { cursorBlink: false };
  term.attachCustomKeyEventHandler((e: KeyboardEvent) => !(e.ctrlKey && e.key === "v"));
  term.resize(120, 40);
  term.scrollLines(-2);
  term.scrollToTop();
  term.scrollToBottom();
  term.paste("pasted\n");
  term.input("typed", true);
  if (term.hasSelection()) term.clearSelection();
  term.focus();
  term.blur();
  term.clear();
  term.reset();
  console.log(term.cols, term.rows, term.element?.tagName, term.textarea?.value, term.modes.bracketedPasteMode);

  const search = new SearchAddon();
  term.loadAddon(search);
  const searchOptions: ISearchOptions = { caseSensitive: true, regex: false, wholeWord: true };
  const found: boolean = search.findNext("hello", searchOptions) || search.findPrevious("hello");
  subs.push(search.onDidChangeResults(({ resultIndex, resultCount }) => console.log(found, resultIndex, resultCount)));
  search.clearDecorations();
  const serialize = new SerializeAddon();
  term.loadAddon(serialize);
  const saved: string = serialize.serialize({ scrollback: 100 });
  const html: string = serialize.serializeAsHTML({ scrollback: 10 });
  console.log(saved.length, html.length);

  term.loadAddon(new WebLinksAddon((event: MouseEvent, uri: string) => window.open(uri, "_blank", "noopener")));
  term.loadAddon(new WebLinksAddon());

  return () => {
    for (const s of subs) s.dispose();
    term.dispose();
  };
}

// Type-checks the package's declarations as an app sees them (tsc -p typecheck, strict, with
// skipLibCheck off so the .d.ts files themselves are checked too). Never run.
import init, {
  WTerm, type WTermAgentActivity, type WTermOptions, type WTermProgress, type WTermSize, type WTermTheme,
  type WTermWebMCPOptions,
} from "wterm-wasm";
import { attachToRelay, RelayError, type RelayConnection, type RelayStatus } from "wterm-wasm/relay";
import { terminal, type TerminalOptions } from "wterm-wasm/svelte";
import { Terminal as VueTerminal, type TerminalProps as VueProps } from "wterm-wasm/vue";
import { h } from "vue";

export async function vanilla(el: HTMLElement): Promise<void> {
  await init();
  const webmcp: WTermWebMCPOptions = { name: "t", description: "d", readOnly: true, redact: false };
  const options: WTermOptions = {
    cols: 80,
    rows: 24,
    scrollback: 1000,
    webmcp,
    pasteWithCtrlV: true,
    onData: (d: string) => void d.length,
    onResize: ({ cols, rows }: WTermSize) => void (cols + rows),
    onTitle: (t: string) => void t.length,
    onAgent: (a: WTermAgentActivity) => void (a.kind === "read" && a.source === "relay" && a.at + a.tool.length),
    theme: "solarized-dark",
    onBell: () => {},
    onProgress: (p: WTermProgress) => void (p.state === 4 && p.value + 1),
  };
  const term = new WTerm(el, options);
  await term.init();
  term.write("x");
  term.write(new Uint8Array([0x41]));
  term.resize(100, 30);
  term.fit();
  term.focus();
  term.reset();
  term.setWebMCP(true);
  term.setWebMCP({ readOnly: false });
  term.setWebMCP(false);
  const size: number = term.cols + term.rows;
  const title: string | undefined = term.title;
  const onData = (d: string) => void d.toUpperCase();
  term.addListener("data", onData);
  term.addListener("resize", (s) => void (s.cols + s.rows));
  term.addListener("title", (t) => void t.toUpperCase());
  term.addListener("agent", (a) => void (a.kind === "write" && a.source === "webmcp" && a.tool.toUpperCase()));
  term.reportAgent({ kind: "read", tool: "read_screen" });
  term.reportAgent({ kind: "write", tool: "send_input", at: Date.now() });
  // @ts-expect-error kind is "read" or "write"
  term.reportAgent({ kind: "look", tool: "x" });
  // @ts-expect-error an agent listener gets an activity, not a string
  term.addListener("agent", (a: string) => void a);
  term.addListener("bell", () => {});
  term.addListener("progress", (p) => void (p.state === 1 && p.value.toFixed()));
  const custom: WTermTheme = { background: "#000", selectionBackground: "#ffffff40", brightWhite: "#fff" };
  term.setTheme(custom);
  term.setTheme("light");
  term.setTheme(null);
  // @ts-expect-error not a preset
  term.setTheme("monokai");
  // @ts-expect-error not a field of a theme
  term.setTheme({ forground: "#fff" });
  term.removeListener("data", onData);
  // @ts-expect-error not an event name
  term.addListener("input", () => {});
  // @ts-expect-error a resize listener gets a size, not a string
  term.addListener("resize", (s: string) => void s);

  const conn: RelayConnection = attachToRelay(term, {
    url: "http://127.0.0.1:7681",
    token: "t",
    session: 3,
    onSession: (id: string) => void id,
    onExit: (code: number | null) => void code,
    onError: (e: RelayError) => void (e.code === "token_refused" && e.closeCode),
    onStatus: (s: RelayStatus, detail) => void (s === "reconnecting" && detail?.delayMs),
    onTitle: (t: string) => void t,
  });
  const id: string | null = conn.sessionId;
  const status: RelayStatus = conn.status;
  conn.close();
  // @ts-expect-error pasteWithCtrlV is a boolean
  new WTerm(el, { pasteWithCtrlV: "yes" });
  // @ts-expect-error the token is required
  attachToRelay(term, { url: "ws://x/ws" });
  term.destroy();
  void size, title, id, status;
}

export function svelteAction(el: HTMLElement): void {
  const options: TerminalOptions = {
    webmcp: { name: "s" },
    pasteWithCtrlV: false,
    relay: { url: new URL("http://127.0.0.1:7681"), token: "t" },
    onReady: (t: WTerm) => t.focus(),
    onAgent: (a) => void (a.kind === "read" && a.tool),
  };
  const action = terminal(el, options);
  action.update({ webmcp: false, cols: 90 });
  action.destroy();
}

export function vueRender() {
  const props: VueProps = {
    webmcp: true,
    pasteWithCtrlV: true,
    onData: (d: string) => void d,
    onAgent: (a: WTermAgentActivity) => void a.source,
    autoFocus: true,
  };
  return h(VueTerminal, props);
}

// The full entry: the same class and types, with search and serialize working.
import initFull, { WTerm as WTermFull, type WTermSearchResult as FullSearchResult } from "wterm-wasm/full";
export async function fullEntry(el: HTMLElement): Promise<string> {
  await initFull();
  const term = new WTermFull(el, { links: { pattern: /ticket-\d+/ }, findBar: true });
  await term.init();
  const found: FullSearchResult = term.findNext("ticket");
  term.findPrevious();
  term.serialize();
  const svelteFull: TerminalOptions = { full: true, findBar: true };
  void svelteFull;
  return `${found.count} ${term.serialize({ format: "html", scrollback: 10 })}`;
}

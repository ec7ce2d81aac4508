// The WebMCP tools of the in-page terminal (spec/webmcp-tools.md), driven the way an agent
// drives them: through Chromium's native WebMCP (page.webmcp), or through an older-style
// navigator.modelContext polyfill. Terminals live on tests/e2e/pages/index.html, served with
// wterm-wasm/pkg by a small static server; `bash wterm-wasm/build.sh` must have run.
import { test, expect, type Page } from "@playwright/test";
import { serveTestPages, type StaticServer } from "./static";
import { startRelay, waitForPrompt, type Relay } from "./relay";

let server: StaticServer;
let base = "";

test.beforeAll(async () => {
  server = await serveTestPages();
  base = server.base;
});

test.afterAll(async () => {
  await server?.close();
});

// Every test: console warnings collected; a page error fails the test.
let warnings: string[] = [];
let pageErrors: string[] = [];
test.beforeEach(async ({ page }) => {
  warnings = [];
  pageErrors = [];
  page.on("console", (m) => {
    if (m.type() === "warning") warnings.push(m.text());
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
});
test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

const ALL_TOOLS = ["list_terminals", "press_terminal_keys", "read_terminal", "type_in_terminal"];
const READ_TOOLS = ["list_terminals", "read_terminal"];

async function open(page: Page, query = ""): Promise<void> {
  await page.goto(`${base}/index.html${query}`);
  await page.waitForFunction(() => (window as any).ready === true);
}

type Opts = Record<string, unknown>;
const make = (page: Page, key: string, opts: Opts = {}) =>
  page.evaluate(([k, o]) => (window as any).harness.make(k, o), [key, opts] as const);
const write = (page: Page, key: string, data: string) =>
  page.evaluate(([k, d]) => (window as any).harness.term(k).write(d), [key, data] as const);
const setWebMCP = (page: Page, key: string, options: unknown) =>
  page.evaluate(([k, o]) => (window as any).harness.term(k).setWebMCP(o), [key, options] as const);
const destroy = (page: Page, key: string) => page.evaluate((k) => (window as any).harness.term(k).destroy(), key);
const sent = (page: Page, key: string) => page.evaluate((k) => (window as any).harness.data(k) as string, key);
const call = (page: Page, tool: string, input: Opts = {}) => page.webmcp.callTool(tool, input) as Promise<any>;
const toolNames = async (page: Page) => (await page.webmcp.tools()).map((t) => t.name).sort();
const activations = (page: Page) => page.evaluate(() => (window as any).activations as number);

/** Starts a tool call and resolves once the page's execute has really run (the native
 * provider's `toolactivated` event), so output written next arrives after the call started.
 * The call's own promise comes back wrapped (an async function would wait for it). */
async function startCall(page: Page, tool: string, input: Opts): Promise<{ result: Promise<any> }> {
  const before = await activations(page);
  const result = call(page, tool, input);
  result.catch(() => {}); // awaited by the test; avoids an unhandled rejection meanwhile
  await page.waitForFunction((n) => (window as any).activations > n, before);
  return { result };
}

test("four tools with their schemas, limits and annotations", async ({ page }) => {
  await open(page);
  expect(await toolNames(page)).toEqual([]);
  await make(page, "a", { webmcp: true });
  await expect.poll(() => toolNames(page)).toEqual(ALL_TOOLS);
  const tools = Object.fromEntries((await page.webmcp.tools()).map((t) => [t.name, t]));

  for (const name of READ_TOOLS) {
    expect(tools[name].annotations).toEqual({ readOnly: true, untrustedContent: true });
  }
  for (const name of ["type_in_terminal", "press_terminal_keys"]) {
    // Chromium reports only hints that are true; the exact objects are checked with the
    // older-style provider, which keeps the tool objects as given.
    expect(tools[name].annotations?.readOnly).toBeFalsy();
    expect(tools[name].annotations?.untrustedContent).toBeFalsy();
  }
  expect(tools.read_terminal.description).toMatch(/untrusted/);
  for (const t of Object.values(tools)) expect(t.description.length).toBeGreaterThan(40);

  const read = tools.read_terminal.inputSchema as any;
  expect(read.properties.lines).toMatchObject({ type: "integer", minimum: 1, maximum: 10000 });
  expect(read.properties.waitFor).toMatchObject({ type: "string", minLength: 1 });
  expect(read.properties.waitForIdleMs).toMatchObject({ type: "integer", minimum: 1, maximum: 120000 });
  expect(read.properties.timeoutMs).toMatchObject({ type: "integer", minimum: 1, maximum: 120000, default: 10000 });
  expect(read.properties.terminal).toMatchObject({ type: "string", minLength: 1 });
  const type = tools.type_in_terminal.inputSchema as any;
  expect(type.required).toEqual(["text"]);
  expect(type.properties.text).toMatchObject({ type: "string", maxLength: 1048576 });
  expect(type.properties.submit).toMatchObject({ type: "boolean", default: false });
  const press = tools.press_terminal_keys.inputSchema as any;
  expect(press.required).toEqual(["keys"]);
  expect(press.properties.keys).toMatchObject({ type: "array", minItems: 1, maxItems: 64, items: { type: "string" } });
  expect((tools.list_terminals.inputSchema as any).properties).toEqual({});
});

test("list_terminals reports the state object", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: { name: "shell", description: "A shell" } });
  await make(page, "b", { webmcp: { name: "logs", readOnly: true }, cols: 30, rows: 4 });
  await write(page, "a", "\x1b]2;My Title\x07\x1b]7;file://box/home/me/my%20dir\x07\x1b]133;A\x07$ \x1b]133;B\x07ls");

  let list = await call(page, "list_terminals");
  expect(list.terminals).toEqual([
    {
      name: "shell",
      description: "A shell",
      readOnly: false,
      redact: true,
      focused: false,
      cols: 60,
      rows: 8,
      cursor: { row: 0, col: 4, visible: true },
      alternateScreen: false,
      scrollbackRows: 0,
      title: "My Title",
      cwd: "/home/me/my dir",
      shellIntegration: { state: "input" },
      inputSeq: 0,
    },
    {
      name: "logs",
      readOnly: true,
      redact: true,
      focused: false,
      cols: 30,
      rows: 4,
      cursor: { row: 0, col: 0, visible: true },
      alternateScreen: false,
      scrollbackRows: 0,
      inputSeq: 0,
    },
  ]);

  await write(page, "a", "\r\n\x1b]133;C\x07out\r\n\x1b]133;D;3\x07\x1b[?1049h\x1b[?25l");
  await write(page, "b", "1\r\n2\r\n3\r\n4\r\n5\r\n6");
  await page.evaluate(() => (window as any).harness.term("a").focus());
  list = await call(page, "list_terminals", {});
  expect(list.terminals[0]).toMatchObject({
    focused: true,
    alternateScreen: true,
    cursor: { visible: false },
    shellIntegration: { state: "done", exitCode: 3 },
  });
  expect(list.terminals[1]).toMatchObject({ focused: false, scrollbackRows: 2, cursor: { row: 3, col: 1 } });
});

test("read_terminal reads the screen, the tail through scrollback, wide and combining text", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true });
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}   `);
  await write(page, "a", lines.join("\r\n"));

  const screen = await call(page, "read_terminal");
  expect(screen.text).toBe(Array.from({ length: 8 }, (_, i) => `line ${i + 13}`).join("\n"));
  expect(screen).toMatchObject({ name: "terminal", cols: 60, rows: 8, scrollbackRows: 12, cursor: { row: 7, col: 10 } });
  expect(screen.timedOut).toBeUndefined();

  const tail = await call(page, "read_terminal", { lines: 15 });
  expect(tail.text).toBe(Array.from({ length: 15 }, (_, i) => `line ${i + 6}`).join("\n"));
  const all = await call(page, "read_terminal", { lines: 10000, terminal: "terminal" });
  expect(all.text.split("\n")).toHaveLength(20);

  await write(page, "a", "\x1b[2J\x1b[H中文 e\u0301!\r\n\r\n");
  const wide = await call(page, "read_terminal");
  // The cursor's row is kept; blank rows below it are dropped.
  expect(wide.text).toBe("中文 e\u0301!\n\n");
});

test("waitFor is satisfied by output after the call started, across a soft wrap", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true });
  await write(page, "a", "$ ");
  const pending = (await startCall(page, "read_terminal", { waitFor: "needle-42", timeoutMs: 20000 })).result;
  // 55 columns of filler: the needle starts at column 57 of a 60-column row and wraps.
  await write(page, "a", "x".repeat(55));
  await write(page, "a", "needle-42 done");
  const r = await pending;
  expect(r.timedOut).toBeUndefined();
  expect(r.error).toBeUndefined();
  expect(r.text).toBe(`$ ${"x".repeat(55)}nee\ndle-42 done`);

  // Text already on screen counts at once, with the short default timeout untouched.
  const again = await call(page, "read_terminal", { waitFor: "needle-42" });
  expect(again.text).toContain("dle-42 done");
  // The tail read searches scrollback too.
  await write(page, "a", "\r\n".repeat(20) + "bottom");
  const tail = await call(page, "read_terminal", { waitFor: "needle", lines: 100, timeoutMs: 1 });
  expect(tail.timedOut).toBeUndefined();
});

test("waitForIdleMs waits until output stops; with waitFor it counts from the match", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true });
  const r = await page.evaluate(async () => {
    const h = (window as any).harness;
    const tool = await h.tool("read_terminal");
    const start = (window as any).activations;
    const p = document.modelContext.executeTool(tool, { waitForIdleMs: 300 });
    while ((window as any).activations === start) await new Promise((r) => requestAnimationFrame(r));
    let last = 0;
    for (let i = 0; i < 5; i++) {
      h.term("a").write(`tick ${i}\r\n`);
      last = performance.now();
      // Output paced 100 ms apart: each write restarts the idle period.
      await new Promise((r) => setTimeout(r, 100));
    }
    const result = JSON.parse(await p);
    return { result, idle: performance.now() - last };
  });
  expect(r.result.text).toContain("tick 4");
  expect(r.result.timedOut).toBeUndefined();
  expect(r.idle).toBeGreaterThanOrEqual(295);

  const both = await page.evaluate(async () => {
    const h = (window as any).harness;
    const tool = await h.tool("read_terminal");
    const start = (window as any).activations;
    const t0 = performance.now();
    const p = document.modelContext.executeTool(tool, { waitFor: "READY", waitForIdleMs: 200 });
    while ((window as any).activations === start) await new Promise((r) => requestAnimationFrame(r));
    await new Promise((r) => setTimeout(r, 250));
    h.term("a").write("READY\r\n");
    const shown = performance.now();
    const result = JSON.parse(await p);
    return { result, afterText: performance.now() - shown, total: performance.now() - t0 };
  });
  expect(both.result.text).toContain("READY");
  expect(both.afterText).toBeGreaterThanOrEqual(195);
  expect(both.total).toBeGreaterThanOrEqual(445);
});

test("a hidden page, which gets no animation frames, still ends waits soon after output", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true });
  const r = await page.evaluate(async () => {
    const h = (window as any).harness;
    // As in a background tab: hidden, and no animation frames at all.
    Object.defineProperty(document, "hidden", { value: true, configurable: true });
    window.requestAnimationFrame = () => 0;
    const tool = await h.tool("read_terminal");
    const activated = new Promise((r) => document.modelContext.addEventListener("toolactivated", r, { once: true }));
    const p = document.modelContext.executeTool(tool, { waitFor: "bg-done", timeoutMs: 5000 });
    await activated;
    // The first write is checked at once (in a microtask); the second comes too soon after
    // that check for another one, so only the hidden page's timer can end the wait.
    h.term("a").write("bg-");
    await Promise.resolve();
    await Promise.resolve();
    const t0 = performance.now();
    h.term("a").write("done");
    const result = JSON.parse(await p);
    return { result, ms: performance.now() - t0 };
  });
  expect(r.result.timedOut).toBeUndefined();
  expect(r.result.text).toBe("bg-done");
  expect(r.ms).toBeGreaterThanOrEqual(10);
  expect(r.ms).toBeLessThan(1000);
});

test("an expired timeout returns the current text with timedOut", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true });
  await write(page, "a", "abc");
  const r = await call(page, "read_terminal", { waitFor: "never there", timeoutMs: 300 });
  expect(r).toMatchObject({ text: "abc", timedOut: true, name: "terminal" });
  const idle = await call(page, "read_terminal", { waitForIdleMs: 5000, timeoutMs: 200 });
  expect(idle).toMatchObject({ text: "abc", timedOut: true });
});

test("destroying or withdrawing a terminal ends its waits without later output", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true });
  await make(page, "b", { webmcp: { name: "other" } });
  let pending = (await startCall(page, "read_terminal", { terminal: "terminal", waitFor: "after" })).result;
  await destroy(page, "a");
  await write(page, "a", "after"); // a destroyed terminal ignores output
  let r = await pending;
  expect(r.error).toMatch(/terminal "terminal" was destroyed/);
  expect(r.text).toBeUndefined();

  pending = (await startCall(page, "read_terminal", { terminal: "other", waitFor: "after", timeoutMs: 30000 })).result;
  await page.evaluate(() => {
    const t = (window as any).harness.term("b");
    t.setWebMCP(false);
    t.write("after");
  });
  r = await pending;
  expect(r.error).toMatch(/withdrew its WebMCP tools/);
  expect(JSON.stringify(r)).not.toContain("after\"");
  await expect.poll(() => toolNames(page)).toEqual([]);

  // A pending Enter ends the same way: the text was typed, Enter never is.
  await make(page, "c", { webmcp: true, record: true });
  pending = (await startCall(page, "type_in_terminal", { text: "echo", submit: true })).result;
  await destroy(page, "c");
  r = await pending;
  expect(r.error).toMatch(/was destroyed/);
  expect(await sent(page, "c")).toBe("echo");
});

test("type_in_terminal types like the keyboard, submits after 150 ms, pastes multi-line text", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, record: true });
  expect(await call(page, "type_in_terminal", { text: "echo hi" })).toEqual({
    ok: true,
    terminal: "terminal",
    seq: 1,
    bytes: 7,
    typed: 7,
    submitted: false,
  });
  expect(await sent(page, "a")).toBe("echo hi");

  const r = await call(page, "type_in_terminal", { text: " there", submit: true });
  expect(r).toEqual({ ok: true, terminal: "terminal", seq: 2, bytes: 7, typed: 6, submitted: true });
  const rec = await page.evaluate(() => {
    const t = (window as any).harness.terms.a;
    return { data: t.data, times: t.times };
  });
  expect(rec.data.slice(1)).toEqual([" there", "\r"]);
  expect(rec.times[2] - rec.times[1]).toBeGreaterThanOrEqual(145);

  // Scalars, not UTF-16 units or bytes.
  expect((await call(page, "type_in_terminal", { text: "héllo 中🙂" })).typed).toBe(8);

  // Without bracketed paste newlines are Enter; with it, the paste is wrapped and ESC removed.
  await page.evaluate(() => ((window as any).harness.terms.a.data.length = 0));
  await call(page, "type_in_terminal", { text: "a\r\nb\nc" });
  await write(page, "a", "\x1b[?2004h");
  await call(page, "type_in_terminal", { text: "x\ny\x1b[201~z" });
  await call(page, "type_in_terminal", { text: "" });
  expect(await sent(page, "a")).toBe("a\rb\rc" + "\x1b[200~x\ny[201~z\x1b[201~");

  // Exactly 1 MiB is accepted.
  const big = await call(page, "type_in_terminal", { text: "a".repeat(1 << 20) });
  expect(big).toMatchObject({ ok: true, typed: 1 << 20 });
});

test("a terminal made read-only before the Enter of a submit gets no Enter", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, record: true });
  await make(page, "b", { webmcp: { name: "b" } });
  const pending = (await startCall(page, "type_in_terminal", { terminal: "terminal", text: "rm -rf x", submit: true })).result;
  await setWebMCP(page, "a", { readOnly: true });
  const r = await pending;
  expect(r.error).toMatch(/became read-only before Enter/);
  expect(await sent(page, "a")).toBe("rm -rf x");
});

test("agent input without onData is echoed, and scrolls the view to the bottom", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true });
  await write(page, "a", Array.from({ length: 50 }, (_, i) => `row ${i}`).join("\r\n") + "\r\n$ ");
  const viewport = page.locator('[data-key="a"] .wterm-viewport');
  const atBottom = () =>
    viewport.evaluate((v) => Math.abs(v.scrollHeight - v.clientHeight - v.scrollTop) < 2);
  await expect.poll(atBottom).toBe(true);
  await viewport.evaluate((v) => v.scrollTo({ top: 0 }));
  await expect.poll(atBottom).toBe(false);

  await call(page, "type_in_terminal", { text: "hello", submit: true });
  await expect.poll(atBottom).toBe(true);
  const r = await call(page, "read_terminal", { lines: 2 });
  expect(r.text).toBe("$ hello\n");
  expect(r.cursor).toEqual({ row: 7, col: 0, visible: true });
});

test("press_terminal_keys encodes for the program's current modes", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, record: true });
  const keys = ["Ctrl+C", "ArrowUp", "Ctrl+ArrowLeft", "Shift+Tab", "Enter", "a", "Esc", "F1", "ctrl+shift+a", "Alt+x", "Space", "PgUp"];
  expect(await call(page, "press_terminal_keys", { keys })).toEqual({ ok: true, terminal: "terminal", seq: 1, bytes: 27, pressed: 12 });
  expect(await sent(page, "a")).toBe("\x03\x1b[A\x1b[1;5D\x1b[Z\ra\x1b\x1bOP\x01\x1bx \x1b[5~");

  const since = async (fn: () => Promise<unknown>) => {
    const before = (await sent(page, "a")).length;
    await fn();
    return (await sent(page, "a")).slice(before);
  };
  await write(page, "a", "\x1b[?1h"); // DECCKM
  expect(await since(() => call(page, "press_terminal_keys", { keys: ["ArrowUp", "Home"] }))).toBe("\x1bOA\x1bOH");
  await write(page, "a", "\x1b[>1u"); // kitty: disambiguate
  expect(await since(() => call(page, "press_terminal_keys", { keys: ["Ctrl+C", "Escape", "a"] }))).toBe("\x1b[99;5u\x1b[27ua");
  await write(page, "a", "\x1b[<u\x1b[?1l");
  expect(await since(() => call(page, "press_terminal_keys", { keys: ["Ctrl+C", "ArrowDown"] }))).toBe("\x03\x1b[B");
  // One key grammar on both surfaces: the relay's send_keys notation means the same keys here.
  expect(await since(() => call(page, "press_terminal_keys", { keys: ["C-c", "S-Tab", "M-x", "LF", "Up"] }))).toBe("\x03\x1b[Z\x1bx\n\x1b[A");

  // One bad entry: nothing is pressed, and every bad entry is named.
  const before = await sent(page, "a");
  const bad = await call(page, "press_terminal_keys", { keys: ["Ctrl+C", "Foo", "Hyper+x", 5, "", "Enter", "e\u0301", "Ctrl+control+c"] });
  expect(bad.error).toContain('keys[1] "Foo": unknown key "Foo"');
  // Quoted as JSON quotes them, not with Rust escapes (newcomer report: "e\u{301}").
  expect(bad.error).toContain('keys[6] "e\u0301": unknown key "e\u0301"');
  expect(bad.error).toContain('keys[2] "Hyper+x": unknown modifier "Hyper"');
  expect(bad.error).toContain("keys[3] is 5, not a string");
  expect(bad.error).toContain('keys[7] "Ctrl+control+c": modifier "control" given more than once');
  expect(bad.error).toContain('keys[4] "": empty key name');
  expect(bad.error).toMatch(/nothing was pressed/);
  expect(bad.error).toMatch(/accepted: each key .*ArrowUp.*F1\.\.F12.*Ctrl\+C.*C-c/);
  expect(bad.error).not.toContain("keys[0]");
  expect((await call(page, "press_terminal_keys", { keys: [] })).error).toMatch(/keys must hold 1\.\.64 keys; got 0/);
  expect((await call(page, "press_terminal_keys", { keys: Array(65).fill("a") })).error).toMatch(/1\.\.64 keys; got 65/);
  expect((await call(page, "press_terminal_keys", { keys: "Ctrl+C" })).error).toMatch(/keys must be an array/);
  expect((await call(page, "press_terminal_keys", {})).error).toMatch(/keys is required/);
  expect(await sent(page, "a")).toBe(before);
});

test("every argument is checked and errors say what is accepted", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, record: true });
  const err = async (tool: string, input: Opts) => {
    const r = await call(page, tool, input);
    expect(Object.keys(r)).toEqual(["error"]);
    return r.error as string;
  };
  expect(await err("read_terminal", { lines: 0 })).toBe("lines must be an integer 1..10000; got 0");
  expect(await err("read_terminal", { lines: 1.5 })).toBe("lines must be an integer 1..10000; got 1.5");
  expect(await err("read_terminal", { lines: 10001 })).toBe("lines must be an integer 1..10000; got 10001");
  expect(await err("read_terminal", { lines: "5" })).toBe('lines must be an integer 1..10000; got "5"');
  expect(await err("read_terminal", { waitFor: "" })).toMatch(/^waitFor must be a non-empty string.*got ""$/);
  expect(await err("read_terminal", { waitFor: 7 })).toMatch(/^waitFor must be a non-empty string.*got 7$/);
  expect(await err("read_terminal", { waitForIdleMs: 0 })).toBe("waitForIdleMs must be an integer 1..120000; got 0");
  expect(await err("read_terminal", { waitForIdleMs: 120001 })).toBe("waitForIdleMs must be an integer 1..120000; got 120001");
  expect(await err("read_terminal", { timeoutMs: 0 })).toBe("timeoutMs must be an integer 1..120000; got 0");
  expect(await err("read_terminal", { timeoutMs: 120001 })).toBe("timeoutMs must be an integer 1..120000; got 120001");
  expect(await err("read_terminal", { waitfor: "x" })).toBe(
    'unknown argument "waitfor"; accepted: terminal, lines, waitFor, waitForIdleMs, timeoutMs, waitForCommand, newOutputOnly',
  );
  expect(await err("read_terminal", { waitForCommand: true, waitFor: "x" })).toMatch(/cannot be combined/);
  expect(await err("read_terminal", { newOutputOnly: "yes" })).toMatch(/^newOutputOnly must be a boolean.*got "yes"/);
  expect(await err("type_in_terminal", { text: "x", waitForCommand: true })).toMatch(/waitForCommand needs submit: true/);
  // All problems of a call at once.
  expect(await err("read_terminal", { lines: 0, timeoutMs: -1 })).toBe(
    "lines must be an integer 1..10000; got 0; timeoutMs must be an integer 1..120000; got -1",
  );
  expect(await err("read_terminal", { terminal: 5 })).toMatch(/^terminal must be a non-empty string.*got 5$/);
  expect(await err("read_terminal", { terminal: "nope" })).toBe(
    'unknown terminal "nope"; available: "terminal" (see list_terminals)',
  );
  expect(await err("list_terminals", { verbose: true })).toBe('unknown argument "verbose"; accepted: none');
  expect(await err("type_in_terminal", {})).toMatch(/^text is required/);
  expect(await err("type_in_terminal", { text: 5 })).toBe("text must be a string; got 5");
  expect(await err("type_in_terminal", { text: "x", submit: "yes" })).toMatch(/^submit must be a boolean.*got "yes"$/);
  expect(await err("type_in_terminal", { text: "é".repeat(1 << 19) + "x" })).toMatch(
    /^text is 1048577 bytes as UTF-8; at most 1048576 bytes \(1 MiB\) are accepted/,
  );
  expect(await err("type_in_terminal", { text: "x", terminal: "nope" })).toMatch(/unknown terminal "nope"/);
  expect(await sent(page, "a")).toBe("");
});

test("names are de-duplicated with a warning, and a withdrawn name is free again", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true });
  await make(page, "b", { webmcp: true });
  await make(page, "c", { webmcp: { name: "terminal" } });
  const names = async () => (await call(page, "list_terminals")).terminals.map((t: any) => t.name);
  expect(await names()).toEqual(["terminal", "terminal-2", "terminal-3"]);
  await expect.poll(() => warnings.filter((w) => /name "terminal" is already in use/.test(w))).toHaveLength(2);
  expect(warnings.some((w) => w.includes('this terminal is "terminal-3"'))).toBe(true);

  await setWebMCP(page, "a", false);
  expect(await names()).toEqual(["terminal-2", "terminal-3"]);
  await make(page, "d", { webmcp: true });
  expect(await names()).toEqual(["terminal-2", "terminal-3", "terminal"]);

  // Live changes: rename and describe; options of a suffixed terminal keep its name.
  await setWebMCP(page, "b", { name: "logs", description: "Build logs" });
  await setWebMCP(page, "c", { name: "terminal", readOnly: true });
  const list = (await call(page, "list_terminals")).terminals;
  expect(list.map((t: any) => [t.name, t.description, t.readOnly])).toEqual([
    ["logs", "Build logs", false],
    ["terminal-3", undefined, true],
    ["terminal", undefined, false],
  ]);
  await write(page, "b", "from b");
  expect((await call(page, "read_terminal", { terminal: "logs" })).text).toBe("from b");

  // setWebMCP checks its argument.
  const thrown = await page.evaluate(() => {
    try {
      (window as any).harness.term("b").setWebMCP({ name: "" });
      return null;
    } catch (e) {
      return String((e as Error).message);
    }
  });
  expect(thrown).toBe('options.name must be a non-empty string; got ""');
});

test("the tool set follows readOnly, withdrawal and destroy", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, record: true });
  await expect.poll(() => toolNames(page)).toEqual(ALL_TOOLS);
  await setWebMCP(page, "a", { readOnly: true });
  await expect.poll(() => toolNames(page)).toEqual(READ_TOOLS);
  await expect(call(page, "type_in_terminal", { text: "x" })).rejects.toThrow();
  await setWebMCP(page, "a", { readOnly: false });
  await expect.poll(() => toolNames(page)).toEqual(ALL_TOOLS);
  expect((await call(page, "type_in_terminal", { text: "x" })).ok).toBe(true);

  // Quick toggles settle on the last state.
  await page.evaluate(() => {
    const t = (window as any).harness.term("a");
    t.setWebMCP({ readOnly: true });
    t.setWebMCP({ readOnly: false });
    t.setWebMCP({ readOnly: true });
  });
  await expect.poll(() => toolNames(page)).toEqual(READ_TOOLS);

  // A second, writable terminal brings the input tools back; the read-only one refuses input.
  await make(page, "b", { webmcp: { name: "b" }, record: true });
  await expect.poll(() => toolNames(page)).toEqual(ALL_TOOLS);
  const refused = await call(page, "type_in_terminal", { terminal: "terminal", text: "no" });
  expect(refused.error).toMatch(/terminal "terminal" is read-only/);
  expect((await call(page, "press_terminal_keys", { terminal: "terminal", keys: ["Enter"] })).error).toMatch(/read-only/);
  expect(await sent(page, "a")).toBe("x");
  expect((await call(page, "read_terminal", { terminal: "terminal" })).readOnly).toBe(true);

  await destroy(page, "b");
  await expect.poll(() => toolNames(page)).toEqual(READ_TOOLS);
  await setWebMCP(page, "a", false);
  await expect.poll(() => toolNames(page)).toEqual([]);
  await setWebMCP(page, "a", { name: "back" });
  await expect.poll(() => toolNames(page)).toEqual(ALL_TOOLS);
  await destroy(page, "a");
  await expect.poll(() => toolNames(page)).toEqual([]);
  // Calls on a destroyed terminal do nothing.
  await setWebMCP(page, "a", true);
  await expect.poll(() => toolNames(page)).toEqual([]);
});

test("setWebMCP changes only the options it names, and refuses unknown ones", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: { name: "shell", description: "build box", readOnly: true } });
  await expect.poll(() => toolNames(page)).toEqual(READ_TOOLS);
  await setWebMCP(page, "a", { description: "renamed box" });
  const listed = async () => (await call(page, "list_terminals", {})).terminals[0];
  await expect.poll(async () => (await listed()).description).toBe("renamed box");
  expect(await listed()).toMatchObject({ name: "shell", readOnly: true });
  expect(await toolNames(page)).toEqual(READ_TOOLS);
  await setWebMCP(page, "a", { readOnly: false });
  await expect.poll(() => toolNames(page)).toEqual(ALL_TOOLS);
  expect(await listed()).toMatchObject({ name: "shell", description: "renamed box", readOnly: false });
  await setWebMCP(page, "a", true);
  expect(await listed()).toMatchObject({ name: "shell", description: "renamed box" });
  await setWebMCP(page, "a", { description: null });
  await expect.poll(async () => (await listed()).description).toBeUndefined();
  const err = await page.evaluate(() => {
    try { (window as any).harness.term("a").setWebMCP({ readonly: true }); return null; } catch (e) { return String((e as Error).message); }
  });
  expect(err).toMatch(/unknown keys readonly; accepted: name, description, readOnly/);
  expect((await listed()).readOnly).toBe(false);
});

test("with two terminals, focus chooses one; otherwise the error lists the names", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, record: true });
  await make(page, "b", { webmcp: { name: "second" }, record: true });
  const ambiguous = await call(page, "type_in_terminal", { text: "x" });
  expect(ambiguous.error).toBe(
    'this page has 2 terminals and none has focus: pass terminal, one of "terminal", "second"',
  );
  expect((await call(page, "read_terminal")).error).toMatch(/one of "terminal", "second"/);

  await page.evaluate(() => (window as any).harness.term("b").focus());
  expect(await call(page, "type_in_terminal", { text: "to b" })).toMatchObject({ terminal: "second" });
  expect(await call(page, "press_terminal_keys", { keys: ["Enter"] })).toMatchObject({ terminal: "second" });
  expect(await sent(page, "b")).toBe("to b\r");
  expect(await sent(page, "a")).toBe("");
  // Naming the terminal overrides focus.
  await call(page, "type_in_terminal", { terminal: "terminal", text: "to a" });
  expect(await sent(page, "a")).toBe("to a");

  await page.evaluate(() => (window as any).harness.term("a").focus());
  expect((await call(page, "read_terminal")).name).toBe("terminal");
});

test("an older provider on navigator.modelContext: registered and unregistered by handle", async ({ page }) => {
  await open(page, "?provider=legacy");
  const log = () => page.evaluate(() => [...(window as any).legacyLog] as string[]);
  // Playwright's page.webmcp reads Chromium's native registry; call the polyfill directly.
  const legacyCall = (tool: string, input: Opts = {}) =>
    page.evaluate(
      async ([name, inp]) => {
        const mc = (navigator as any).modelContext;
        const t = mc.getTools().find((x: any) => x.name === name);
        return JSON.parse(await mc.executeTool(t, inp));
      },
      [tool, input] as const,
    );
  await make(page, "a", { webmcp: true, record: true });
  expect((await log()).sort()).toEqual(ALL_TOOLS.map((t) => `register ${t}`));
  await make(page, "b", { webmcp: true });
  expect((await log()).length).toBe(4); // one registration per tool for the whole page

  // The tool objects as registered.
  const defs = await page.evaluate(() =>
    (navigator as any).modelContext.getTools().map((t: any) => ({
      name: t.name,
      annotations: t.annotations,
      schemaType: t.inputSchema?.type,
      execute: typeof t.execute,
    })),
  );
  expect(defs).toEqual([
    { name: "list_terminals", annotations: { readOnlyHint: true, untrustedContentHint: true }, schemaType: "object", execute: "function" },
    { name: "read_terminal", annotations: { readOnlyHint: true, untrustedContentHint: true }, schemaType: "object", execute: "function" },
    { name: "type_in_terminal", annotations: { readOnlyHint: false, consequentialHint: true }, schemaType: "object", execute: "function" },
    { name: "press_terminal_keys", annotations: { readOnlyHint: false, consequentialHint: true }, schemaType: "object", execute: "function" },
  ]);

  expect((await legacyCall("list_terminals")).terminals.map((t: any) => t.name)).toEqual(["terminal", "terminal-2"]);
  expect(await legacyCall("type_in_terminal", { terminal: "terminal", text: "hi" })).toMatchObject({ ok: true });
  expect(await sent(page, "a")).toBe("hi");

  // A wait the agent cancels rejects with the cancellation reason; an aborted signal at once.
  const cancelled = await page.evaluate(async () => {
    const mc = (navigator as any).modelContext;
    const tool = mc.getTools().find((t: any) => t.name === "read_terminal");
    const ac = new AbortController();
    const p = mc.executeTool(tool, { terminal: "terminal", waitFor: "never" }, { signal: ac.signal });
    ac.abort(new Error("agent stopped waiting"));
    const first = await p.then((v: unknown) => `resolved ${v}`, (e: Error) => `rejected ${e.message}`);
    const pre = new AbortController();
    pre.abort(new Error("too late"));
    const second = await mc
      .executeTool(tool, { terminal: "terminal", waitForIdleMs: 100 }, { signal: pre.signal })
      .then((v: unknown) => `resolved ${v}`, (e: Error) => `rejected ${e.message}`);
    // A cancelled submit: the text is typed, Enter is not pressed.
    const typeTool = mc.getTools().find((t: any) => t.name === "type_in_terminal");
    const ac2 = new AbortController();
    const q = mc.executeTool(typeTool, { terminal: "terminal", text: "!", submit: true }, { signal: ac2.signal });
    ac2.abort(new Error("never mind"));
    const third = await q.then((v: unknown) => `resolved ${v}`, (e: Error) => `rejected ${e.message}`);
    // The cancelled wait is gone: later output disturbs nothing.
    (window as any).harness.term("a").write("never");
    return [first, second, third];
  });
  expect(cancelled).toEqual(["rejected agent stopped waiting", "rejected too late", "rejected never mind"]);
  expect(await sent(page, "a")).toBe("hi!");

  await setWebMCP(page, "a", { readOnly: true });
  await setWebMCP(page, "b", { readOnly: true });
  expect((await log()).slice(4).sort()).toEqual(["unregister press_terminal_keys", "unregister type_in_terminal"]);
  await setWebMCP(page, "a", false);
  await destroy(page, "b");
  expect((await log()).slice(6).sort()).toEqual(["unregister list_terminals", "unregister read_terminal"]);
  await setWebMCP(page, "a", true);
  expect((await log()).slice(8).sort()).toEqual(ALL_TOOLS.map((t) => `register ${t}`));
});

test("without a provider the option does nothing and nothing throws", async ({ page }) => {
  await open(page, "?provider=none");
  await make(page, "a", { webmcp: { name: "x" } });
  await setWebMCP(page, "a", { readOnly: true });
  await setWebMCP(page, "a", false);
  await write(page, "a", "still works");
  await destroy(page, "a");
  expect(warnings).toEqual([]);
});

test("reset() clears screen, history, modes and title, keeping the size", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, record: true });
  await write(page, "a", "\x1b]2;T\x07\x1b[?1h" + "x\r\n".repeat(30) + "last");
  expect(await call(page, "read_terminal")).toMatchObject({ title: "T", scrollbackRows: 23 });
  // The cleared title is reported, as for RIS: a relay page re-attaching to a session whose title
  // went meanwhile gets no title from the snapshot, and must not keep showing the old one.
  const titles = await page.evaluate(() => {
    const seen: string[] = [];
    const term = (window as any).harness.term("a");
    term.addListener("title", (t: string) => seen.push(t));
    term.reset();
    term.reset(); // no title any more: nothing to report
    return seen;
  });
  expect(titles).toEqual([""]);
  const r = await call(page, "read_terminal");
  expect(r).toMatchObject({ text: "", scrollbackRows: 0, cols: 60, rows: 8, cursor: { row: 0, col: 0 } });
  expect(r.title).toBeUndefined();
  await call(page, "press_terminal_keys", { keys: ["ArrowUp"] });
  expect(await sent(page, "a")).toBe("\x1b[A"); // DECCKM is off again
  await expect.poll(async () => (await page.locator('[data-key="a"] .wterm-row').first().textContent())?.trim()).toBe("");
});

/** A GitHub token's shape (`ghp_` and 36 letters and digits), built at run time so that no
 * token-shaped literal sits in the source. */
const fakeGithubToken = () => "ghp_" + "aB3d".repeat(9);
const GITHUB_MARKER = "[redacted:github_token]";
/** The markers an answer holds, counted in its JSON (its own `redacted` field aside). */
const markers = (r: any) => (JSON.stringify({ ...r, redacted: undefined }).match(/\[redacted:/g) ?? []).length;
/** The text of a harness terminal's DOM rows, soft-wrapped rows run together. */
const screenText = (page: Page, key: string) =>
  page.evaluate(
    (k) =>
      Array.from(document.querySelectorAll(`.host[data-key="${k}"] .wterm-row`))
        .map((r) => r.textContent ?? "")
        .join(""),
    key,
  );

test("secrets are redacted in what the agent reads, never on the person's screen", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true });
  const token = fakeGithubToken();
  await write(page, "a", `id ${token}\r\n`);
  const r = await call(page, "read_terminal");
  expect(r.text).toBe(`id ${GITHUB_MARKER}\n`);
  expect(r.redacted).toEqual({ count: 1, kinds: ["github_token"] });
  expect(r.redact).toBe(true);
  await expect.poll(() => screenText(page, "a")).toContain(`id ${token}`);
  expect((await call(page, "list_terminals")).terminals[0]).toMatchObject({ name: "terminal", redact: true });
  // Nothing to redact: no `redacted`.
  await write(page, "a", "\x1b[2J\x1b[Hplain text");
  const plain = await call(page, "read_terminal");
  expect(plain.text).toBe("plain text");
  expect(plain.redacted).toBeUndefined();

  // Split across soft wraps: a 20-column terminal wraps the 40-character token twice.
  await make(page, "b", { webmcp: { name: "narrow" }, cols: 20 });
  await write(page, "b", `$ ${token}\r\n`);
  const narrow = await call(page, "read_terminal", { terminal: "narrow" });
  expect(narrow.text).toBe(`$ ${GITHUB_MARKER}\n\n\n`);
  expect(narrow.redacted).toEqual({ count: 1, kinds: ["github_token"] });
  await expect.poll(() => screenText(page, "b")).toContain(`$ ${token}`);

  // Waits see what the agent reads: the token's text never matches, the marker does (both
  // started before the token is written, so only the new output can satisfy them).
  const probe = (
    await startCall(page, "read_terminal", { terminal: "narrow", waitFor: token.slice(0, 12), newOutputOnly: true, timeoutMs: 1500 })
  ).result;
  const marker = (
    await startCall(page, "read_terminal", { terminal: "narrow", waitFor: "[redacted:", newOutputOnly: true, timeoutMs: 20000 })
  ).result;
  await write(page, "b", `again ${token}\r\n`);
  const seen = await marker;
  expect(seen.timedOut).toBeUndefined();
  expect(seen.text).toContain(`again ${GITHUB_MARKER}`);
  const probed = await probe;
  expect(probed.timedOut).toBe(true);
  expect(probed.text).not.toContain("ghp_");
  // Already on screen: the same.
  expect((await call(page, "read_terminal", { terminal: "narrow", waitFor: token.slice(-16), timeoutMs: 300 })).timedOut).toBe(true);
  expect((await call(page, "read_terminal", { terminal: "narrow", waitFor: GITHUB_MARKER, timeoutMs: 300 })).timedOut).toBeUndefined();

  // An agent has only the tools, and they take no such switch.
  expect((await call(page, "read_terminal", { terminal: "narrow", redact: false })).error).toMatch(/^unknown argument "redact"/);

  // The page's code turns it off for one terminal: raw text, no `redacted`.
  await setWebMCP(page, "b", { redact: false });
  const raw = await call(page, "read_terminal", { terminal: "narrow" });
  expect(raw.text.replace(/\n/g, "")).toContain(`$ ${token}again ${token}`);
  expect(raw.redacted).toBeUndefined();
  expect(raw.redact).toBe(false);
  expect((await call(page, "read_terminal", { terminal: "narrow", waitFor: token, timeoutMs: 300 })).timedOut).toBeUndefined();
  const list = await call(page, "list_terminals");
  expect(list.terminals.map((t: any) => [t.name, t.redact])).toEqual([["terminal", true], ["narrow", false]]);

  // A bad value throws, naming the field and what is accepted, and changes nothing.
  const err = await page.evaluate(() => {
    try {
      (window as any).harness.term("b").setWebMCP({ name: "renamed", redact: "no" });
      return null;
    } catch (e) {
      return String((e as Error).message);
    }
  });
  expect(err).toBe('options.redact must be a boolean; got "no"');
  expect((await call(page, "list_terminals")).terminals[1]).toMatchObject({ name: "narrow", redact: false });
  const made = await page.evaluate(async () => {
    try {
      await (window as any).harness.make("c", { webmcp: { redact: 1 } });
      return null;
    } catch (e) {
      return String((e as Error).message);
    }
  });
  expect(made).toBe("webmcp.redact must be a boolean; got 1");
  // null restores the default.
  await setWebMCP(page, "b", { redact: null });
  expect((await call(page, "read_terminal", { terminal: "narrow" })).redacted).toEqual({ count: 2, kinds: ["github_token"] });
});

// Not a check: prints what redaction costs a 10,000-row read (medians of in-page calls).
test("the cost of redaction on a 10,000-row read is printed", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, cols: 100, rows: 24, scrollback: 10000 });
  await page.evaluate(() => {
    const lines = [];
    for (let i = 0; i < 10000; i++) {
      lines.push(
        `2025-01-01T00:00:${String(i % 60).padStart(2, "0")}Z INFO req_id=${i} GET /api/v1/items?page=${i % 7} ` +
          `status=200 user-agent=curl/8.0 dur_ms=${i % 97} cache_key=k${i}`,
      );
    }
    (window as any).harness.term("a").write(lines.join("\r\n"));
  });
  // Alternating on and off, 41 reads each, so drift in the machine's speed hits both alike.
  const r = await page.evaluate(async () => {
    const h = (window as any).harness;
    const mc = (document as any).modelContext;
    const tool = await h.tool("read_terminal");
    const times: Record<string, number[]> = { on: [], off: [] };
    let rows = 0;
    for (let i = 0; i < 82; i++) {
      const redact = i % 2 === 0;
      h.term("a").setWebMCP({ redact });
      const t0 = performance.now();
      const r = JSON.parse(await mc.executeTool(tool, { lines: 10000 }));
      times[redact ? "on" : "off"].push(performance.now() - t0);
      rows = r.text.split("\n").length;
    }
    const median = (t: number[]) => t.sort((x, y) => x - y)[t.length >> 1];
    return { on: median(times.on), off: median(times.off), rows };
  });
  expect(r.rows).toBe(10000);
  console.log(`read_terminal lines=10000 (100-column rows), median of 41: redact on ${r.on.toFixed(1)} ms, off ${r.off.toFixed(1)} ms`);
});

// Commands through the relay's page, with the shell integration the relay injects into bash:
// exit codes, long output read back through the command log, and waits for new output only.
test.describe("commands from a real bash through the relay", () => {
  let relay: Relay;
  test.beforeAll(async () => {
    relay = await startRelay();
  });
  test.afterAll(async () => {
    await relay?.stop();
  });

  async function openRelay(page: Page): Promise<void> {
    await page.goto(relay.pageUrl());
    await waitForPrompt(page);
    await expect.poll(async () => (await call(page, "list_terminals")).terminals[0].shellIntegration?.state).toBe("input");
  }

  test("type_in_terminal with submit and waitForCommand answers the exit code in one call", async ({ page }) => {
    await openRelay(page);
    const r = await call(page, "type_in_terminal", { text: "false", submit: true, waitForCommand: true });
    expect(r).toMatchObject({ ok: true, typed: 5, submitted: true });
    expect(r.timedOut).toBeUndefined();
    expect(r.command).toMatchObject({ command: "false", exitCode: 1, output: "", outputRows: 0 });
    expect(r.command.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.command.cwd).toBe(process.cwd()); // the relay starts shells in its own cwd
    const state = (await call(page, "list_terminals")).terminals[0];
    expect(state.lastCommand).toMatchObject({ command: "false", exitCode: 1, cwd: process.cwd() });
    expect(state.runningCommand).toBeUndefined();

    // Two calls work too: read_terminal waits for the command the submitted line started.
    await call(page, "type_in_terminal", { text: "sleep 0.5; (exit 3)", submit: true });
    const r2 = await call(page, "read_terminal", { waitForCommand: true });
    expect(r2.command).toMatchObject({ command: "sleep 0.5; (exit 3)", exitCode: 3 });
    expect(r2.command.durationMs).toBeGreaterThanOrEqual(400);
  });

  test("seq 10000 is read back whole through the log, the answer bounded head and tail", async ({ page }) => {
    await openRelay(page);
    const r = await call(page, "type_in_terminal", { text: "seq 10000", submit: true, waitForCommand: true, timeoutMs: 60000 });
    expect(r.timedOut).toBeUndefined();
    expect(r.command).toMatchObject({ command: "seq 10000", exitCode: 0, outputRows: 10000, rowsLeftOut: 9600 });
    expect(r.command.rowsLost).toBeUndefined();
    const nums = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i)).join("\n");
    expect(r.command.output).toBe(nums(1, 200));
    expect(r.command.outputTail).toBe(nums(9801, 10000));
  });

  test("waitFor with newOutputOnly does not match the echoed command line", async ({ page }) => {
    await openRelay(page);
    const started = Date.now();
    const r = await call(page, "type_in_terminal", {
      text: 'sleep 1; read -p "Continue? " x',
      submit: true,
      waitFor: "Continue?",
      newOutputOnly: true,
    });
    expect(r.timedOut).toBeUndefined();
    // The echoed line holds "Continue?" at once; the match waited for read's own prompt.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(r.runningCommand).toMatchObject({ command: 'sleep 1; read -p "Continue? " x' });
    expect(r.text).toMatch(/\nContinue\?$/);
    // Text on rows above the cursor's does not count for read_terminal either (the cursor's
    // own row does: it may still be written).
    const stale = await call(page, "read_terminal", { waitFor: "sleep 1", newOutputOnly: true, timeoutMs: 300 });
    expect(stale.timedOut).toBe(true);
    // Answer it; the command ends with 0.
    await call(page, "type_in_terminal", { text: "y", submit: true });
    const done = await call(page, "read_terminal", { waitForCommand: true });
    expect(done.command).toMatchObject({ exitCode: 0, output: "Continue? y" });
  });

  test("a secret a command prints is redacted in the waitForCommand answer", async ({ page }) => {
    await openRelay(page);
    const value = "s3cr3t".repeat(3);
    const shown = "API_TOKEN=[redacted:secret_assignment]";
    const r = await call(page, "type_in_terminal", { text: `echo API_TOKEN=${value}`, submit: true, waitForCommand: true });
    expect(r.timedOut).toBeUndefined();
    expect(JSON.stringify(r)).not.toContain(value);
    expect(r.command).toMatchObject({ command: `echo ${shown}`, exitCode: 0, output: shown });
    expect(r.lastCommand.command).toBe(`echo ${shown}`);
    expect(r.text).toContain(`echo ${shown}\n${shown}`);
    expect(r.redacted).toEqual({ count: markers(r), kinds: ["secret_assignment"] });
    expect(r.redacted.count).toBeGreaterThanOrEqual(5); // screen (line and output), lastCommand, command, output
    const list = await call(page, "list_terminals");
    expect(list.terminals[0].lastCommand.command).toBe(`echo ${shown}`);
    expect(list.redacted).toEqual({ count: 1, kinds: ["secret_assignment"] });
    // The person's screen shows the value.
    await expect.poll(() => page.evaluate(() => Array.from(document.querySelectorAll(".wterm-row")).map((r) => r.textContent).join("\n"))).toContain(
      `API_TOKEN=${value}`,
    );
  });

  test("a shell without integration: waitForCommand says so", async ({ page }) => {
    const plain = await startRelay(["--no-shell-integration"]);
    try {
      await page.goto(plain.pageUrl());
      await waitForPrompt(page);
      const r = await call(page, "type_in_terminal", { text: "true", submit: true, waitForCommand: true });
      expect(r.error).toMatch(/no shell integration/);
      const state = (await call(page, "list_terminals")).terminals[0];
      expect(state.shellIntegration).toBeUndefined();
      expect(state.lastCommand).toBeUndefined();
    } finally {
      await plain.stop();
    }
  });
});

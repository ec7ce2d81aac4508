// The page's tools as agent hosts on the current WebMCP draft see them: the
// consequential hint on the typing tools and the option that turns it off, `exposedTo` for
// pages that embed a terminal across origins, descriptions whose first 160 bytes say what the
// tool does, the input sequence that tells an agent whether a call it lost track of typed
// anything, and registration with an older `navigator.modelContext` polyfill from npm
// (@mcp-b/global). Terminals live on tests/e2e/pages/index.html (see webmcp-tools.spec.ts);
// `bash wterm-wasm/build.sh` must have run.
import { test, expect, type Page } from "@playwright/test";
import { serveTestPages, type StaticServer } from "./static";

let server: StaticServer;
test.beforeAll(async () => {
  server = await serveTestPages();
});
test.afterAll(async () => {
  await server?.close();
});

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
/** What agent-browser keeps of a tool's description in its summary, in bytes of UTF-8. */
const SUMMARY_BYTES = 160;

type Opts = Record<string, unknown>;
async function open(page: Page, query = ""): Promise<void> {
  await page.goto(`${server.base}/index.html${query}`);
  await page.waitForFunction(() => (window as any).ready === true);
}
const make = (page: Page, key: string, opts: Opts = {}) =>
  page.evaluate(([k, o]) => (window as any).harness.make(k, o), [key, opts] as const);
const setWebMCP = (page: Page, key: string, options: unknown) =>
  page.evaluate(([k, o]) => (window as any).harness.term(k).setWebMCP(o), [key, options] as const);
const sent = (page: Page, key: string) => page.evaluate((k) => (window as any).harness.data(k) as string, key);
const call = (page: Page, tool: string, input: Opts = {}) => page.webmcp.callTool(tool, input) as Promise<any>;

/** The tools as Chromium's own `document.modelContext.getTools()` lists them. */
const nativeTools = (page: Page) =>
  page.evaluate(async () =>
    ((await (document as any).modelContext.getTools()) as any[])
      .map((t) => ({ name: t.name as string, description: t.description as string, annotations: t.annotations }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  );
const consequential = async (page: Page) =>
  Object.fromEntries((await nativeTools(page)).map((t) => [t.name, t.annotations?.consequentialHint]));

/** The state object of terminal `name`, as list_terminals reports it. */
async function stateOf(page: Page, name = "terminal"): Promise<any> {
  const list = await call(page, "list_terminals");
  return list.terminals.find((t: any) => t.name === name);
}

test("the typing tools are consequential by default; the consequential option turns it off live", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, record: true });
  const on = { list_terminals: false, press_terminal_keys: true, read_terminal: false, type_in_terminal: true };
  const off = { ...on, press_terminal_keys: false, type_in_terminal: false };
  await expect.poll(() => consequential(page)).toEqual(on);
  // Playwright's own listing reads the same registry.
  const listed = Object.fromEntries((await page.webmcp.tools()).map((t) => [t.name, t.annotations]));
  expect(listed.type_in_terminal?.consequential).toBe(true);
  expect(listed.read_terminal?.consequential).toBeFalsy();

  await setWebMCP(page, "a", { consequential: false });
  await expect.poll(() => consequential(page)).toEqual(off);
  expect(await call(page, "type_in_terminal", { text: "ok" })).toMatchObject({ ok: true });
  expect(await sent(page, "a")).toBe("ok");

  // One registration serves every terminal of the page: it is consequential while any writable
  // terminal is.
  await make(page, "b", { webmcp: { name: "b" } });
  await expect.poll(() => consequential(page)).toEqual(on);
  await setWebMCP(page, "b", { readOnly: true });
  await expect.poll(() => consequential(page)).toEqual(off);
  await setWebMCP(page, "a", { consequential: null }); // null restores the default: true
  await expect.poll(() => consequential(page)).toEqual(on);
  expect((await nativeTools(page)).map((t) => t.name)).toEqual(ALL_TOOLS);

  await expect(setWebMCP(page, "a", { consequential: "no" })).rejects.toThrow(
    'options.consequential must be a boolean; got "no"',
  );
  // Re-registering never collides with the registration it replaces.
  expect(warnings).toEqual([]);
});

test("exposedTo is passed through to registerTool for cross-origin embedding", async ({ page }) => {
  await open(page, "?provider=legacy");
  const exposed = () =>
    page.evaluate(() =>
      Object.fromEntries(
        Object.entries((window as any).legacyOptions as Record<string, any>).map(([k, o]) => [k, o?.exposedTo ?? null]),
      ),
    );
  await make(page, "a", { webmcp: { exposedTo: ["https://embedder.example"] } });
  const one = ["https://embedder.example"];
  expect(await exposed()).toEqual(Object.fromEntries(ALL_TOOLS.map((t) => [t, one])));
  // One registration for the page: the origins of all its terminals, each once.
  await make(page, "b", { webmcp: { name: "b", exposedTo: ["https://other.example", "https://embedder.example"] } });
  const two = ["https://embedder.example", "https://other.example"];
  expect(await exposed()).toEqual(Object.fromEntries(ALL_TOOLS.map((t) => [t, two])));
  await setWebMCP(page, "a", { exposedTo: null });
  await setWebMCP(page, "b", { exposedTo: null });
  expect(await exposed()).toEqual(Object.fromEntries(ALL_TOOLS.map((t) => [t, null])));

  await expect(setWebMCP(page, "a", { exposedTo: "https://embedder.example" })).rejects.toThrow(
    /options\.exposedTo must be an array of 1\.\.16 origins/,
  );
  await expect(setWebMCP(page, "a", { exposedTo: ["https://embedder.example/path"] })).rejects.toThrow(
    /options\.exposedTo\[0\] must be an origin \(scheme:\/\/host\[:port\], no path\); got "https:\/\/embedder\.example\/path"/,
  );
  expect(warnings).toEqual([]);

  // The list goes to Chromium's own registry too.
  await open(page);
  warnings = [];
  await make(page, "a", { webmcp: { exposedTo: ["https://embedder.example", "http://localhost:8080"] } });
  await expect.poll(async () => (await nativeTools(page)).map((t) => t.name)).toEqual(ALL_TOOLS);
  expect(warnings).toEqual([]);
});

test("exposedTo takes only potentially trustworthy origins: anything else throws and changes nothing", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: { exposedTo: ["https://embedder.example"] } });
  await make(page, "b", { webmcp: { name: "b" } });
  await expect.poll(async () => (await nativeTools(page)).map((t) => t.name)).toEqual(ALL_TOOLS);
  const refused = /options\.exposedTo\[1\] "http:\/\/insecure\.example" is not a secure origin.*accepted: https:.*localhost/;
  await expect(
    setWebMCP(page, "a", { exposedTo: ["https://embedder.example", "http://insecure.example"] }),
  ).rejects.toThrow(refused);
  await expect(
    make(page, "c", { webmcp: { name: "c", exposedTo: ["http://insecure.example"] } }),
  ).rejects.toThrow(/webmcp\.exposedTo\[0\] "http:\/\/insecure\.example" is not a secure origin/);
  for (const bad of ["http://127.0.0.1.example", "http://localhost.example", "http://[::2]", "ws://a.example", "http://256.0.0.1"]) {
    await expect(setWebMCP(page, "a", { exposedTo: [bad] })).rejects.toThrow(/is not a secure origin/);
  }
  // Nothing changed: the tools stay registered, and no provider refused anything.
  await page.waitForTimeout(200);
  expect((await nativeTools(page)).map((t) => t.name)).toEqual(ALL_TOOLS);
  expect(warnings).toEqual([]);
  // What Chromium takes (the Secure Contexts rule): https, wss, loopback hosts with any scheme.
  const good = [
    "https://a.example:8443",
    "wss://a.example",
    "http://localhost",
    "http://LOCALHOST:3000",
    "http://app.localhost",
    "http://127.0.0.1:8080",
    "http://127.1.2.3",
    "http://[::1]:8080",
  ];
  await setWebMCP(page, "a", { exposedTo: good });
  await expect.poll(async () => (await nativeTools(page)).map((t) => t.name)).toEqual(ALL_TOOLS);
  await page.waitForTimeout(200);
  expect(warnings).toEqual([]);
  // The count is said.
  await expect(setWebMCP(page, "a", { exposedTo: [] })).rejects.toThrow(/1\.\.16 origins.*; got an empty array/);
  await expect(
    setWebMCP(page, "a", { exposedTo: Array.from({ length: 17 }, (_, i) => `https://e${i}.example`) }),
  ).rejects.toThrow(/1\.\.16 origins.*; got 17 origins/);
});

test("a provider that refuses exposedTo still gets the tools, without it, and the page is told", async ({ page }) => {
  await open(page, "?provider=legacy");
  await page.evaluate(() => {
    const mc = (navigator as any).modelContext;
    const orig = mc.registerTool.bind(mc);
    mc.registerTool = (tool: any, options: any) => {
      if (options?.exposedTo) throw new Error("exposedTo refused");
      return orig(tool, options);
    };
  });
  await make(page, "a", { webmcp: { exposedTo: ["https://embedder.example"] } });
  const exposed = await page.evaluate(() =>
    Object.fromEntries(
      Object.entries((window as any).legacyOptions as Record<string, any>).map(([k, o]) => [k, o?.exposedTo ?? null]),
    ),
  );
  expect(exposed).toEqual(Object.fromEntries(ALL_TOOLS.map((t) => [t, null])));
  await expect.poll(() => warnings.filter((w) => /registered without exposedTo/.test(w)).length).toBe(4);
  expect(warnings.join("\n")).toMatch(/exposedTo refused/);
});

test("the first 160 bytes of each description (what agent-browser's summary keeps) say what the tool does", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true });
  await expect.poll(async () => (await nativeTools(page)).length).toBe(4);
  const verbs: Record<string, string> = {
    list_terminals: "List",
    read_terminal: "Read",
    type_in_terminal: "Type",
    press_terminal_keys: "Press",
  };
  for (const t of await nativeTools(page)) {
    const head = Buffer.from(t.description, "utf8").subarray(0, SUMMARY_BYTES).toString("utf8");
    // The first sentence, which names the action, ends within the summary.
    expect(head, t.name).toMatch(new RegExp(`^${verbs[t.name]} [^.]+\\.(\\s|$)`));
  }
  const heads = Object.fromEntries(
    (await nativeTools(page)).map((t) => [t.name, Buffer.from(t.description).subarray(0, SUMMARY_BYTES).toString()]),
  );
  // The typing tools say, within the summary, that what they send is acted on.
  expect(heads.type_in_terminal).toMatch(/runs/);
  expect(heads.press_terminal_keys).toMatch(/program/);
});

test("every accepted input call answers its seq and bytes; the state carries the last one", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, record: true });
  await make(page, "b", { webmcp: { name: "b" }, record: true });
  let a = await stateOf(page);
  expect(a.inputSeq).toBe(0);
  expect(a.lastInput).toBeUndefined();

  expect(await call(page, "type_in_terminal", { terminal: "terminal", text: "echo hé" })).toEqual({
    ok: true,
    terminal: "terminal",
    seq: 1,
    bytes: 8,
    typed: 7,
    submitted: false,
  });
  expect(await call(page, "press_terminal_keys", { terminal: "terminal", keys: ["Ctrl+C", "ArrowUp"] })).toEqual({
    ok: true,
    terminal: "terminal",
    seq: 2,
    bytes: 4,
    pressed: 2,
  });
  a = await stateOf(page);
  expect(a.inputSeq).toBe(2);
  expect(a.lastInput).toEqual({ seq: 2, tool: "press_terminal_keys", bytes: 4 });

  // Refused calls send nothing and take no number.
  expect((await call(page, "press_terminal_keys", { terminal: "terminal", keys: ["Nope"] })).error).toBeTruthy();
  expect((await call(page, "type_in_terminal", { terminal: "terminal", text: 5 })).error).toBeTruthy();
  expect((await stateOf(page)).inputSeq).toBe(2);

  // With submit the answer comes after Enter and counts it.
  expect(await call(page, "type_in_terminal", { terminal: "terminal", text: "ls", submit: true })).toEqual({
    ok: true,
    terminal: "terminal",
    seq: 3,
    bytes: 3,
    typed: 2,
    submitted: true,
  });
  a = await stateOf(page);
  expect(a.lastInput).toEqual({ seq: 3, tool: "type_in_terminal", bytes: 3, enter: "pressed" });
  expect(await sent(page, "a")).toBe("echo hé\x03\x1b[Als\r");

  // A call that sends no byte takes no number.
  expect(await call(page, "type_in_terminal", { terminal: "terminal", text: "" })).toEqual({
    ok: true,
    terminal: "terminal",
    seq: null,
    bytes: 0,
    typed: 0,
    submitted: false,
  });
  a = await stateOf(page);
  expect(a.inputSeq).toBe(3);
  expect(a.lastInput).toEqual({ seq: 3, tool: "type_in_terminal", bytes: 3, enter: "pressed" });

  // Each terminal counts its own.
  expect(await call(page, "type_in_terminal", { terminal: "b", text: "x" })).toMatchObject({ seq: 1, bytes: 1 });
  expect((await stateOf(page, "b")).inputSeq).toBe(1);
  expect((await stateOf(page)).inputSeq).toBe(3);
  // An empty text with submit: its Enter is the first byte and takes the number.
  expect(await call(page, "type_in_terminal", { terminal: "b", text: "", submit: true })).toMatchObject({
    seq: 2,
    bytes: 1,
    typed: 0,
    submitted: true,
  });
  expect((await stateOf(page, "b")).lastInput).toEqual({ seq: 2, tool: "type_in_terminal", bytes: 1, enter: "pressed" });

  // Calls that wait answer the same, and their state part already counts them.
  const pressed = await call(page, "press_terminal_keys", { terminal: "terminal", keys: ["x"], waitForIdleMs: 20 });
  expect(pressed).toMatchObject({ ok: true, terminal: "terminal", seq: 4, bytes: 1, pressed: 1, inputSeq: 4 });
  const typed = await call(page, "type_in_terminal", { terminal: "terminal", text: "y", waitForIdleMs: 20 });
  expect(typed).toMatchObject({ ok: true, seq: 5, bytes: 1, typed: 1, submitted: false, inputSeq: 5 });

  // A call made during another's Enter delay waits for that Enter: the program gets the calls
  // whole and in the order of their numbers ("ls\r" then "pwd", never "lspwd\r").
  await page.evaluate(() => ((window as any).harness.terms.b.data.length = 0));
  const answers = await page.evaluate(async () => {
    const h = (window as any).harness;
    const mc = (document as any).modelContext;
    const tool = await h.tool("type_in_terminal");
    const first = mc.executeTool(tool, { terminal: "b", text: "ls", submit: true });
    const second = mc.executeTool(tool, { terminal: "b", text: "pwd" });
    return (await Promise.all([first, second])).map((r: string) => JSON.parse(r));
  });
  expect(answers.map((r: any) => r.seq)).toEqual([3, 4]);
  expect(await sent(page, "b")).toBe("ls\rpwd");
});

/** What an agent concludes about a call whose outcome it never got, from the state it read
 * before the call and the state it reads after, nothing else (spec "Input sequence"). */
function decide(before: any, after: any): "not sent" | "sent" | "typed, Enter not pressed" | "Enter pending" {
  if (after.inputSeq === before.inputSeq) return "not sent";
  expect(after.inputSeq).toBe(before.inputSeq + 1); // no one else typed meanwhile
  if (after.lastInput.enter === "cancelled") return "typed, Enter not pressed";
  if (after.lastInput.enter === "pending") return "Enter pending";
  return "sent";
}

/** Chromium's WebMCP domain over CDP, as agent-browser uses it (`webmcp invoke --detach`, then
 * `webmcp cancel`): invocations that run on their own, cancelled by id; a cancel aborts the
 * page's `client.signal`. */
async function cdpWebMCP(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  const responded = new Map<string, any>();
  const invoked = new Set<string>();
  cdp.on("WebMCP.toolInvoked" as any, (e: any) => invoked.add(e.invocationId));
  cdp.on("WebMCP.toolResponded" as any, (e: any) => responded.set(e.invocationId, e));
  await cdp.send("WebMCP.enable" as any);
  const frameId = (await cdp.send("Page.getFrameTree")).frameTree.frame.id;
  return {
    /** Starts a call; resolves with its invocation id once Chromium took it. */
    invoke: async (toolName: string, input: Opts): Promise<string> =>
      ((await cdp.send("WebMCP.invokeTool" as any, { frameId, toolName, input } as any)) as any).invocationId,
    cancel: (invocationId: string) => cdp.send("WebMCP.cancelInvocation" as any, { invocationId } as any),
    invoked: (id: string) => invoked.has(id),
    /** The call's end: `{status: "Completed", output}` or `{status: "Canceled"}`. */
    result: async (id: string): Promise<any> => {
      await expect.poll(() => responded.has(id)).toBe(true);
      return responded.get(id);
    },
  };
}

test("a type_in_terminal cancelled mid-flight: the state alone tells whether its text went out", async ({ page }) => {
  await open(page);
  await make(page, "a", { webmcp: true, record: true });
  const agent = await cdpWebMCP(page);
  let expected = await sent(page, "a");

  // 1. Cancelled while it waited behind the Enter of the agent's previous call: nothing of it
  // went out, so typing it again is safe. (Its number: the previous answer's seq.)
  let seen = false;
  for (let attempt = 0; attempt < 3 && !seen; attempt++) {
    const first = await agent.invoke("type_in_terminal", { text: `echo first-${attempt}`, submit: true });
    await expect.poll(() => agent.invoked(first)).toBe(true);
    const second = await agent.invoke("type_in_terminal", { text: "echo second", submit: true });
    await agent.cancel(second);
    expect((await agent.result(second)).status).toBe("Canceled");
    const firstAnswer = (await agent.result(first)).output;
    expect(firstAnswer).toMatchObject({ ok: true, submitted: true });
    const after = await stateOf(page);
    const decision = decide({ inputSeq: firstAnswer.seq }, after);
    expected += `echo first-${attempt}\r`;
    // The decision matches what the program got, whichever way the race went.
    if (decision === "not sent") {
      expect(await sent(page, "a")).toBe(expected);
      seen = true;
    } else {
      expected += "echo second" + (decision === "sent" ? "\r" : "");
      await expect.poll(() => sent(page, "a")).toBe(expected);
    }
  }
  expect(seen, "a call cancelled while queued behind an Enter (150 ms)").toBe(true);

  // 2. Cancelled while waiting for output after its Enter: it went out, and must not be typed
  // again.
  let before = await stateOf(page);
  const waiting = await agent.invoke("type_in_terminal", {
    text: "echo third",
    submit: true,
    waitFor: "never printed",
    timeoutMs: 30000,
  });
  await expect.poll(() => sent(page, "a")).toBe(expected + "echo third\r");
  await agent.cancel(waiting);
  expect((await agent.result(waiting)).status).toBe("Canceled");
  let after = await stateOf(page);
  expect(decide(before, after)).toBe("sent");
  expect(after.lastInput).toEqual({ seq: before.inputSeq + 1, tool: "type_in_terminal", bytes: 11, enter: "pressed" });
  expected += "echo third\r";

  // 3. Cancelled between its text and its Enter: the text went out, the Enter did not (the
  // agent may press Enter now rather than type the line again).
  before = await stateOf(page);
  const typing = await agent.invoke("type_in_terminal", { text: "echo fourth", submit: true });
  await expect.poll(() => sent(page, "a")).toBe(expected + "echo fourth");
  await agent.cancel(typing);
  expect((await agent.result(typing)).status).toBe("Canceled");
  after = await stateOf(page);
  expect(decide(before, after)).toBe("typed, Enter not pressed");
  expect(after.lastInput).toEqual({ seq: before.inputSeq + 1, tool: "type_in_terminal", bytes: 11, enter: "cancelled" });
  expect(await sent(page, "a")).toBe(expected + "echo fourth");
});

test("the @mcp-b/global polyfill on navigator.modelContext takes all four tools, new hint included", async ({ page }) => {
  await open(page, "?provider=mcp-b");
  await make(page, "a", { webmcp: true, record: true });
  const polyfillTools = () =>
    page.evaluate(() =>
      ((navigator as any).modelContext.listTools() as any[])
        .map((t) => ({ name: t.name as string, annotations: t.annotations }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
  const polyfillCall = (tool: string, input: Opts = {}) =>
    page.evaluate(
      async ([name, inp]) => {
        const r = await (navigator as any).modelContext.executeTool(name, inp);
        return JSON.parse(r.content[0].text);
      },
      [tool, input] as const,
    );
  await expect.poll(async () => (await polyfillTools()).map((t) => t.name)).toEqual(ALL_TOOLS);
  const byName = Object.fromEntries((await polyfillTools()).map((t) => [t.name, t.annotations]));
  expect(byName.type_in_terminal).toMatchObject({ readOnlyHint: false, consequentialHint: true });
  expect(byName.read_terminal).toMatchObject({ readOnlyHint: true, untrustedContentHint: true });

  expect(await polyfillCall("type_in_terminal", { text: "hi" })).toMatchObject({ ok: true, seq: 1, bytes: 2 });
  expect(await sent(page, "a")).toBe("hi");
  expect((await polyfillCall("list_terminals")).terminals[0]).toMatchObject({ name: "terminal", inputSeq: 1 });

  // Turned off live: the polyfill gets the tools again, without the hint.
  await setWebMCP(page, "a", { consequential: false });
  await expect.poll(async () => (await polyfillTools()).find((t) => t.name === "type_in_terminal")?.annotations?.consequentialHint ?? false).toBe(false);
  expect((await polyfillTools()).map((t) => t.name)).toEqual(ALL_TOOLS);
  expect(await polyfillCall("press_terminal_keys", { keys: ["Enter"] })).toMatchObject({ ok: true, seq: 2 });
  expect(warnings.filter((w) => w.startsWith("wterm"))).toEqual([]);
});

test("a provider that refuses an annotation it does not know still gets the tools, without it", async ({ page }) => {
  await open(page, "?provider=strict");
  await make(page, "a", { webmcp: true, record: true });
  const log = await page.evaluate(() => [...(window as any).legacyLog] as string[]);
  expect(log.filter((l) => l.startsWith("refused")).sort()).toEqual(["refused press_terminal_keys", "refused type_in_terminal"]);
  expect(log.filter((l) => l.startsWith("register")).sort()).toEqual(ALL_TOOLS.map((t) => `register ${t}`));
  const annotations = await page.evaluate(() =>
    Object.fromEntries(((navigator as any).modelContext.getTools() as any[]).map((t) => [t.name, t.annotations])),
  );
  expect(annotations.type_in_terminal).toEqual({ readOnlyHint: false });
  expect(annotations.read_terminal).toEqual({ readOnlyHint: true, untrustedContentHint: true });
  const typed = await page.evaluate(async () => {
    const mc = (navigator as any).modelContext;
    const t = mc.getTools().find((x: any) => x.name === "type_in_terminal");
    return JSON.parse(await mc.executeTool(t, { text: "ok" }));
  });
  expect(typed).toMatchObject({ ok: true, seq: 1 });
  expect(warnings).toEqual([]);
});

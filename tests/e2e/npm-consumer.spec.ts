// The npm package as an app gets it: tests/consumer/run.sh packs wterm-wasm/pkg, installs the
// tarball into a Vite 7 app (plain JS, React, Vue and Svelte pages) and builds it; this spec
// serves the built app and checks each page in Chromium with native WebMCP: the terminal draws,
// echoes what is typed, registers its tools, applies prop changes to the live terminal, and
// gets a real shell from a wterm-relay on another origin through wterm-wasm/relay.
//
//   bash wterm-wasm/build.sh && bash tests/consumer/run.sh && npx playwright test tests/e2e/npm-consumer.spec.ts
import { test, expect, type Page, type WebSocketRoute } from "@playwright/test";
import { createServer, type Server } from "node:http";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { screenText, startRelay, waitForPrompt } from "./relay";
import { APP_THEME, computedTheme, currentInstall, startServer } from "./consumer";

const DIST = join(process.env.WTERM_CONSUMER_DIR || join(process.env.TMPDIR || "/tmp", "wterm-consumer"), "dist");
const PAGES = [
  { name: "vanilla", file: "index.html" },
  { name: "react", file: "react.html" },
  { name: "vue", file: "vue.html" },
  { name: "svelte", file: "svelte.html" },
];
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".wasm": "application/wasm",
};
const ALL_TOOLS = ["list_terminals", "press_terminal_keys", "read_terminal", "type_in_terminal"];
const READ_TOOLS = ["list_terminals", "read_terminal"];

let server: Server;
let base = "";

test.beforeAll(async () => {
  for (const p of PAGES) {
    if (!existsSync(join(DIST, p.file))) {
      throw new Error(
        `no consumer build at ${join(DIST, p.file)}; run: bash wterm-wasm/build.sh && bash tests/consumer/run.sh`,
      );
    }
  }
  server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    if (path === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    const file = normalize(join(DIST, path === "/" ? "index.html" : path.slice(1)));
    if (!file.startsWith(DIST)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
});

test.afterAll(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
});

// A page error or a console error (the bindings report failures with console.error) fails the test.
let problems: string[] = [];
test.beforeEach(async ({ page }) => {
  problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e}`));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console.error: ${m.text()}`);
  });
});
test.afterEach(() => {
  expect(problems).toEqual([]);
});

const toolNames = async (page: Page) => (await page.webmcp.tools()).map((t) => t.name).sort();
// The tools return JSON text; Playwright hands it back parsed.
const call = async (page: Page, tool: string, input: Record<string, unknown> = {}) => {
  const result: any = await page.webmcp.callTool(tool, input);
  return typeof result === "string" ? JSON.parse(result) : result;
};
const app = <T>(page: Page, fn: string) => page.evaluate((f) => new Function(`return window.__app.${f}`)(), fn) as Promise<T>;
const setProps = (page: Page, props: unknown) => page.evaluate((p) => (window as any).__app.setProps(p), props);
const termSize = (page: Page) =>
  page.evaluate(() => {
    const t = (window as any).__app.term();
    return t ? { cols: t.cols as number, rows: t.rows as number } : null;
  });

async function open(page: Page, file: string, fragment = ""): Promise<void> {
  await page.goto("about:blank"); // a new fragment alone would not load the page again
  await page.goto(`${base}/${file}${fragment}`);
  await page.waitForFunction(() => (window as any).__app?.ready === true, undefined, { timeout: 15_000 });
}

for (const { name, file } of PAGES) {
  test(`${name}: draws, echoes, registers WebMCP tools and applies prop changes live`, async ({ page, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await open(page, file);
    expect(await page.locator(".wterm").count()).toBe(1);
    // The app's `.wterm { --wterm-bg; --wterm-font-size }` wins over the package's stylesheet,
    // which is added to the document after the app's CSS.
    expect(await computedTheme(page)).toEqual(APP_THEME);
    expect(await page.locator(".wterm-row").count()).toBeGreaterThan(5);

    // Local echo: no onData and no relay.
    await page.locator(".wterm").click();
    await page.keyboard.type("hello wterm");
    await expect.poll(() => screenText(page)).toContain("hello wterm");
    // The app's pasteWithCtrlV reached the terminal: Ctrl+V pastes (and is echoed) instead of ^V.
    await page.evaluate(() => navigator.clipboard.writeText(" pasted"));
    await page.keyboard.press("Control+V");
    await expect.poll(() => screenText(page)).toContain("hello wterm pasted");

    // The find bar: a chunk of its own that the bundler emitted, imported on Ctrl+Shift+F; its
    // searches reach the app's onSearch prop.
    await page.keyboard.press("Control+Shift+F");
    const find = page.getByRole("textbox", { name: "Find" });
    await expect(find).toBeFocused();
    await find.fill("wterm");
    await expect(page.locator(".wterm-findbar output")).toHaveText(/^1 of [1-9]/);
    const searches = await app<{ query: string; count: number }[]>(page, "searches");
    expect(searches.some((r) => r.query === "wterm" && r.count >= 1)).toBe(true);
    await find.press("Escape");
    await expect(page.locator(".wterm-findbar")).toHaveCount(0);

    // The tools, and the handle each binding gives the app.
    await expect.poll(() => toolNames(page)).toEqual(ALL_TOOLS);
    const listed = await call(page, "list_terminals");
    expect(listed.terminals).toHaveLength(1);
    expect(listed.terminals[0]).toMatchObject({
      name: `${name}-term`,
      description: `${name} consumer app`,
      readOnly: false,
    });
    expect(await termSize(page)).toEqual({ cols: listed.terminals[0].cols, rows: listed.terminals[0].rows });
    const typed = await call(page, "type_in_terminal", { text: " from agent" });
    expect(typed).toMatchObject({ ok: true, terminal: `${name}-term` });
    const read = await call(page, "read_terminal", { waitFor: "from agent", timeoutMs: 5000 });
    expect(read.timedOut).toBeUndefined();
    expect(read.text).toContain("hello wterm pasted from agent");

    // Prop changes reach the live terminal: rename + read-only, then size, then off and on.
    await page.evaluate(() => ((document.querySelector(".wterm") as HTMLElement).dataset.probe = "same"));
    await setProps(page, { webmcp: { name: `${name}-renamed`, readOnly: true } });
    await expect.poll(() => toolNames(page)).toEqual(READ_TOOLS);
    expect((await call(page, "list_terminals")).terminals).toEqual([
      expect.objectContaining({ name: `${name}-renamed`, readOnly: true }),
    ]);
    // Redaction (on by default) follows the prop too.
    expect((await call(page, "list_terminals")).terminals[0].redact).toBe(true);
    await setProps(page, { webmcp: { name: `${name}-renamed`, readOnly: true, redact: false } });
    await expect.poll(async () => (await call(page, "list_terminals")).terminals[0].redact).toBe(false);
    await setProps(page, { webmcp: { name: `${name}-renamed`, readOnly: true, redact: true } });
    await expect.poll(async () => (await call(page, "list_terminals")).terminals[0].redact).toBe(true);
    await setProps(page, { cols: 50, rows: 10 });
    await expect.poll(() => termSize(page)).toEqual({ cols: 50, rows: 10 });
    expect((await call(page, "list_terminals")).terminals[0]).toMatchObject({ cols: 50, rows: 10 });
    await setProps(page, { webmcp: false });
    await expect.poll(() => toolNames(page)).toEqual([]);
    await setProps(page, { webmcp: { name: `${name}-back` } });
    await expect.poll(() => toolNames(page)).toEqual(ALL_TOOLS);
    expect((await call(page, "read_terminal", { terminal: `${name}-back` })).text).toContain(
      "hello wterm pasted from agent",
    );

    // The same terminal all along: one created, its element and screen kept.
    expect(await app<number>(page, "created")).toBe(1);
    expect(await page.locator(".wterm").count()).toBe(1);
    expect(await page.locator(".wterm").getAttribute("data-probe")).toBe("same");
    expect(await screenText(page)).toContain("hello wterm pasted from agent");
  });

  test(`${name}: the theme prop switches live over the app's CSS; onBell and onProgress get the program's events`, async ({ page }) => {
    await open(page, file);
    const background = async () => (await computedTheme(page)).background;
    expect(await background()).toBe(APP_THEME.background);
    await page.evaluate(() => {
      const w = window as any;
      w.events = [];
      w.__app.setProps({
        theme: "solarized-light",
        onBell: () => w.events.push("bell"),
        onProgress: (p: unknown) => w.events.push(p),
      });
    });
    await expect.poll(background).toBe("rgb(253, 246, 227)");
    // A new object with other colours applies; the same value again is no change.
    await setProps(page, { theme: { background: "#000000", foreground: "#00ff00" } });
    await expect.poll(background).toBe("rgb(0, 0, 0)");
    await page.evaluate(() => (window as any).__app.term().write("\x07\x1b]9;4;1;60\x1b\\"));
    await expect.poll(() => page.evaluate(() => (window as any).events)).toEqual(["bell", { state: 1, value: 60 }]);
    // null: the app's CSS variables decide again.
    await setProps(page, { theme: null });
    await expect.poll(background).toBe(APP_THEME.background);
    expect(await app<number>(page, "created")).toBe(1);
  });

  test(`${name}: the relay client gets a real shell from a relay on another origin`, async ({ page }) => {
    const relay = await startRelay(["--allow-origin", base]);
    try {
      expect(new URL(relay.url).origin).not.toBe(base);
      await open(page, file, `#relay=${encodeURIComponent(relay.url)}&token=${encodeURIComponent(relay.token)}`);
      await waitForPrompt(page);
      expect(await app<string[]>(page, "sessions")).toHaveLength(1);
      expect(await app<string[]>(page, "statuses")).toEqual(["connecting", "open"]);

      // A person types.
      await page.locator(".wterm").click();
      await page.keyboard.type("echo $((6*7))");
      await page.keyboard.press("Enter");
      await expect.poll(async () => (await screenText(page)).split("\n")).toContain("42");
      // The app's own onData still hears the input next to the relay client.
      expect((await app<string[]>(page, "data")).join("")).toContain("echo $((6*7))\r");

      // The PTY has the terminal's size (sent after the snapshot), not the relay's default.
      const size = (await termSize(page))!;
      expect(size).not.toEqual({ cols: 80, rows: 24 });
      await page.keyboard.type("stty size");
      await page.keyboard.press("Enter");
      await expect.poll(async () => (await screenText(page)).split("\n")).toContain(`${size.rows} ${size.cols}`);

      // An agent types through WebMCP into the same shell.
      const typed = await call(page, "type_in_terminal", { text: "echo agent-$((2+3))", submit: true });
      expect(typed).toMatchObject({ ok: true, submitted: true });
      const read = await call(page, "read_terminal", { waitFor: "agent-5\n", timeoutMs: 10_000 });
      expect(read.timedOut).toBeUndefined();

      // A prop change on the attached terminal neither reconnects nor re-creates it.
      await setProps(page, { webmcp: { name: `${name}-watch`, readOnly: true } });
      await expect.poll(() => toolNames(page)).toEqual(READ_TOOLS);
      expect(await app<string[]>(page, "statuses")).toEqual(["connecting", "open"]);
      expect(await app<number>(page, "created")).toBe(1);
      expect(await app<string[]>(page, "errors")).toEqual([]);
    } finally {
      await relay.stop();
    }
  });
}

// Vite 7's dev server, with the app's vite.config.js (no optimizeDeps setting: Vite pre-bundles
// the package into node_modules/.vite/deps and the glue falls back to the package's own wasm):
// the wasm loads, the app's CSS theme wins there too (the dev server adds the app's CSS with a
// <style> from JS, before the terminal adds its own stylesheet), and a WebMCP call answers.
test("vite 7 dev server without optimizeDeps.exclude: the pre-bundled package loads its wasm; theme, typing, WebMCP", async ({ page }) => {
  const install = currentInstall("", "bash tests/consumer/run.sh");
  const vite = await startServer("node_modules/.bin/vite", ["--port", "PORT", "--strictPort", "--host", "127.0.0.1"], install);
  try {
    await page.route("**/favicon.ico", (r) => r.fulfill({ status: 204 })); // the app has none
    await page.goto(`${vite.base}/react.html`);
    await page.waitForFunction(() => (window as any).__app?.ready === true, undefined, { timeout: 30_000 });
    expect(await computedTheme(page)).toEqual(APP_THEME);
    await page.locator(".wterm").click();
    await page.keyboard.type("dev server");
    await expect.poll(() => screenText(page)).toContain("dev server");
    // The package was pre-bundled (the case the fallback is for), and the wasm came from the
    // package's own file (the full entry's: the app passes `full`).
    const urls = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
    expect(urls.some((u) => /\/node_modules\/\.vite\/deps\/wterm-wasm_react\.js/.test(u))).toBe(true);
    expect(urls.some((u) => /\/node_modules\/wterm-wasm\/wterm_wasm_full_bg\.wasm$/.test(u))).toBe(true);
    await expect.poll(() => toolNames(page)).toEqual(ALL_TOOLS);
    expect((await call(page, "read_terminal", { waitFor: "dev server", timeoutMs: 5000 })).text).toContain("dev server");
  } finally {
    await vite.close();
  }
});

// The connection's life, once (the bindings share the client): a drop reconnects and rebuilds the
// screen from the relay's snapshot; the shell's exit, a refused token and an unknown session are
// final.
test("relay client: reconnects after a drop; an exit, a refused token or an unknown session is final", async ({ page }) => {
  const relay = await startRelay(["--allow-origin", base]);
  const fragment = (token: string, session?: string) =>
    `#relay=${encodeURIComponent(relay.url)}&token=${encodeURIComponent(token)}` + (session ? `&session=${session}` : "");
  try {
    const routes: WebSocketRoute[] = [];
    await page.routeWebSocket(/\/ws/, (ws) => {
      ws.connectToServer();
      routes.push(ws);
    });
    await open(page, "index.html", fragment(relay.token));
    await waitForPrompt(page);
    await page.locator(".wterm").click();
    await page.keyboard.type("echo before-$((1+1))");
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await screenText(page)).split("\n")).toContain("before-2");
    const [session] = await app<string[]>(page, "sessions");

    routes[0].close({ code: 4000, reason: "dropped by the test" });
    // Typed during the 250 ms before the reconnect: it waits for the attach instead of being
    // dropped (it was, before the client queued input).
    await page.keyboard.type("echo gap-$((3+3))");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => app<string[]>(page, "statuses"))
      .toEqual(["connecting", "open", "reconnecting", "connecting", "open"]);
    await expect.poll(async () => (await screenText(page)).split("\n")).toContain("gap-6");
    expect(routes).toHaveLength(2);
    expect(new URL(routes[1].url()).searchParams.get("session")).toBe(session);
    expect(routes[1].protocols()).toEqual(["wterm.v1", `bearer.${relay.token}`]);
    await expect.poll(async () => (await screenText(page)).split("\n")).toContain("before-2");
    await page.keyboard.type("echo after-$((2+2))");
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await screenText(page)).split("\n")).toContain("after-4");
    expect(await app<string[]>(page, "sessions")).toEqual([session]);

    // The shell's end is final: onExit with its code, then closed, no reconnect.
    await page.keyboard.type("exit 3");
    await page.keyboard.press("Enter");
    await expect.poll(() => app<number[]>(page, "exits")).toEqual([3]);
    await expect.poll(async () => (await app<string[]>(page, "statuses")).at(-1)).toBe("closed");
    expect(await app<string[]>(page, "statuses")).toEqual(["connecting", "open", "reconnecting", "connecting", "open", "closed"]);
    expect(routes).toHaveLength(2);

    await page.unrouteAll();
    await open(page, "index.html", fragment("wrong-token"));
    await expect.poll(() => app<string[]>(page, "statuses")).toEqual(["connecting", "closed"]);
    expect(await app<string[]>(page, "errors")).toEqual(["token_refused"]);

    await open(page, "index.html", fragment(relay.token, "999999"));
    await expect.poll(() => app<string[]>(page, "statuses")).toEqual(["connecting", "closed"]);
    expect(await app<string[]>(page, "errors")).toEqual(["unknown_session"]);
  } finally {
    await relay.stop();
  }
});

// The npm package in the bundlers other than tests/consumer/app's Vite 7: tests/consumer/bundlers.sh
// installs the packed tarball with Next.js 16 (app router), webpack 5 and Vite 8 and builds one
// app with each; this spec loads them in Chromium with native WebMCP: the terminal draws with
// the app's own CSS theme, echoes what is typed, and answers WebMCP's read_terminal. Next.js runs
// under `next start`; Vite 8 also under its dev server, with no optimizeDeps setting. A React 18
// app (tests/consumer/react18, its own install) renders wterm-wasm/react's <Terminal>, built by
// Vite 7 and under Vite 7's dev server, both with no config.
//
//   bash wterm-wasm/build.sh && bash tests/consumer/bundlers.sh && npx playwright test tests/e2e/npm-bundlers.spec.ts
import { test, expect, type Page } from "@playwright/test";
import { join } from "node:path";
import { statSync } from "node:fs";
import { screenText } from "./relay";
import { APP_THEME, computedTheme, currentInstall, serveDir, startServer, type RunningServer } from "./consumer";

const BUILD = "bash tests/consumer/bundlers.sh";
const install = () => currentInstall("bundlers", BUILD);
const react18 = () => currentInstall("react18", BUILD);
const bin = (name: string) => join(install(), "node_modules", ".bin", name);

// A page error or a console error fails the test.
let problems: string[] = [];
test.beforeEach(async ({ page }) => {
  problems = [];
  // The apps have no favicon; the browser's request for it is no fault of the package.
  await page.route("**/favicon.ico", (r) => r.fulfill({ status: 204 }));
  page.on("pageerror", (e) => problems.push(`pageerror: ${e}`));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console.error: ${m.text()}`);
  });
});
test.afterEach(() => {
  expect(problems).toEqual([]);
});

/** Opens `url`, waits for the terminal, then checks the theme, typing, the find bar (`full`: the
 * app loads the full entry; otherwise the core, where Ctrl+Shift+F is the program's) and a
 * WebMCP read. */
async function checkApp(page: Page, url: string, name: string, full: boolean): Promise<void> {
  // The wasm modules the page loaded, by size (bundlers rename them; Vite's dev fallback first
  // fetches a missing copy, answered with HTML).
  const wasm: number[] = [];
  page.on("response", async (r) => {
    if (/wasm/.test(r.headers()["content-type"] ?? "")) wasm.push((await r.body()).length);
  });
  await page.goto(url);
  await page.waitForSelector(".wterm-row", { timeout: 30_000 });
  expect(await page.locator(".wterm").count()).toBe(1);
  expect(await computedTheme(page)).toEqual(APP_THEME);

  await page.locator(".wterm").click();
  await page.keyboard.type(`hello ${name}`);
  await expect.poll(() => screenText(page)).toContain(`hello ${name}`);

  // The find bar: a chunk this bundler emitted, imported on Ctrl+Shift+F (full entry); the
  // core's wasm is another file, and it has no find bar.
  const pkgWasm = (name: string) => statSync(join("wterm-wasm", "pkg", name)).size;
  await expect.poll(() => wasm).toEqual([pkgWasm(full ? "wterm_wasm_full_bg.wasm" : "wterm_wasm_bg.wasm")]);
  await page.keyboard.press("Control+Shift+F");
  const find = page.getByRole("textbox", { name: "Find" });
  if (full) {
    await expect(find).toBeFocused();
    await find.fill(`hello ${name}`);
    await expect(page.locator(".wterm-findbar output")).toHaveText(/^1 of [1-9]/);
    await find.press("Escape");
    await expect(page.locator(".wterm-findbar")).toHaveCount(0);
  } else {
    await page.keyboard.type("!");
    await expect.poll(() => screenText(page)).toContain(`hello ${name}!`);
    expect(await find.count()).toBe(0);
  }

  // The tools are registered once the terminal has initialized.
  await expect
    .poll(async () => (await page.webmcp.tools()).map((t) => t.name).sort())
    .toEqual(["list_terminals", "press_terminal_keys", "read_terminal", "type_in_terminal"]);
  const listed: any = await page.webmcp.callTool("list_terminals", {});
  const terminals = (typeof listed === "string" ? JSON.parse(listed) : listed).terminals;
  expect(terminals).toEqual([expect.objectContaining({ name: `${name}-term`, readOnly: false })]);
  const read: any = await page.webmcp.callTool("read_terminal", { terminal: `${name}-term`, waitFor: `hello ${name}` });
  const text = (typeof read === "string" ? JSON.parse(read) : read).text;
  expect(text).toContain(`hello ${name}`);
}

async function withServer(start: () => Promise<RunningServer>, body: (s: RunningServer) => Promise<void>) {
  const server = await start();
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

test("next.js: a server component renders <Terminal full>; next start serves it; it types, finds and answers read_terminal", async ({ page }) => {
  await withServer(
    () => startServer(bin("next"), ["start", "-p", "PORT", "-H", "127.0.0.1"], join(install(), "next"), { NEXT_TELEMETRY_DISABLED: "1" }),
    async (next) => {
      // The server renders the host element only (the binding is a client component); the
      // terminal starts in the browser.
      const html = await (await fetch(`${next.base}/`)).text();
      expect(html).toContain('class="term"');
      expect(html).not.toContain("wterm-row");
      await checkApp(page, `${next.base}/`, "next", true);
    },
  );
});

test("webpack 5 (full entry): the app's CSS (style-loader) theme wins; it types, finds and answers read_terminal", async ({ page }) => {
  await withServer(() => serveDir(join(install(), "webpack", "dist")), (s) => checkApp(page, `${s.base}/`, "webpack", true));
});

test("vite 8 build: it draws with the app's theme, types and answers read_terminal", async ({ page }) => {
  await withServer(() => serveDir(join(install(), "vite8", "dist")), (s) => checkApp(page, `${s.base}/`, "vite8", false));
});

test("vite 8 dev server without optimizeDeps.exclude: the wasm loads; theme, typing and read_terminal", async ({ page }) => {
  await withServer(
    () => startServer(bin("vite"), ["--port", "PORT", "--strictPort", "--host", "127.0.0.1"], join(install(), "vite8")),
    (s) => checkApp(page, `${s.base}/`, "vite8", false),
  );
});

/** The React 18 app: React 18 rendered it, once (StrictMode's second mount in dev included), and
 * the forwarded ref is the WTerm. */
async function checkReact18(page: Page, url: string) {
  await checkApp(page, url, "react18", false);
  expect(await page.evaluate(() => (window as any).__react.version)).toMatch(/^18\./);
  expect(await page.evaluate(() => (window as any).__react.refIsTerm())).toBe(true);
}

test("react 18: <Terminal> from wterm-wasm/react, vite 7 build; it types and answers read_terminal", async ({ page }) => {
  await withServer(() => serveDir(join(react18(), "dist")), (s) => checkReact18(page, `${s.base}/`));
});

test("react 18 under vite 7's dev server with no config (StrictMode mounts twice): one terminal, typing, read_terminal", async ({ page }) => {
  await withServer(
    () => startServer(join(react18(), "node_modules", ".bin", "vite"), ["--port", "PORT", "--strictPort", "--host", "127.0.0.1"], react18()),
    (s) => checkReact18(page, `${s.base}/`),
  );
});

// The package's two entries: `wterm-wasm` (the core, within its size budget) leaves out search,
// plain-text links, the find bar and serialize; `wterm-wasm/full` has them. A page that loads
// the core never fetches the full wasm or the find bar; the left-out methods and options throw,
// naming the full entry; Ctrl+Shift+F is the program's key.
import { test, expect, type Page } from "@playwright/test";
import { serveTestPages, type StaticServer } from "./static";

let server: StaticServer;
test.beforeAll(async () => {
  server = await serveTestPages();
});
test.afterAll(async () => {
  await server?.close();
});

/** A blank page; `entry` is imported and initialized into `window.mod`. Returns the paths fetched. */
async function load(page: Page, entry: string): Promise<string[]> {
  const fetched: string[] = [];
  page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
  await page.goto(`${server.base}/blank.html`);
  await page.evaluate(async (url) => {
    const mod = await import(url);
    await mod.default();
    (window as any).mod = mod;
  }, entry);
  return fetched;
}

test("the core entry draws, takes input and refuses search, links and serialize, naming the full entry", async ({ page }) => {
  const fetched = await load(page, "/pkg/wterm_wasm.js");
  const result = await page.evaluate(async () => {
    const { WTerm } = (window as any).mod;
    const host = document.createElement("div");
    document.body.append(host);
    const term = new WTerm(host, { cols: 40, rows: 5, links: false, findBar: false });
    await term.init();
    (window as any).data = "";
    term.addListener("data", (d: string) => ((window as any).data += d));
    term.write("hello \x1b[1mcore\x1b[0m https://example.com/");
    const attempt = (f: () => unknown) => {
      try {
        f();
        return "no error";
      } catch (e) {
        return String((e as Error).message);
      }
    };
    const errors = {
      findNext: attempt(() => term.findNext("core")),
      search: attempt(() => term.search("core")),
      serialize: attempt(() => term.serialize()),
      links: attempt(() => new WTerm(document.createElement("div"), { links: true })),
      onSearch: attempt(() => new WTerm(document.createElement("div"), { onSearch: () => {} })),
      clearSearch: attempt(() => term.clearSearch()),
      searchEvent: attempt(() => term.addListener("search", () => {})),
    };
    (window as any).term = term;
    return { errors };
  });
  for (const name of ["findNext", "search", "serialize"]) {
    expect(result.errors[name as keyof typeof result.errors]).toContain('import init, { WTerm } from "wterm-wasm/full"');
  }
  expect(result.errors.links).toMatch(/^the option links is in the full build of wterm-wasm/);
  expect(result.errors.onSearch).toMatch(/^the option onSearch is in the full build/);
  expect(result.errors.clearSearch).toMatch(/^clearSearch is in the full build/);
  expect(result.errors.searchEvent).toMatch(/^the "search" event is in the full build/);
  await expect.poll(() => page.evaluate(() => document.querySelector(".wterm-row")!.textContent!.trimEnd()))
    .toBe("hello core https://example.com/");
  // Ctrl+Shift+F reaches the program (^F), no find bar opens.
  await page.evaluate(() => (window as any).term.focus());
  await page.keyboard.press("Control+Shift+F");
  await expect.poll(() => page.evaluate(() => (window as any).data)).toBe("\x06");
  expect(await page.evaluate(() => document.querySelectorAll("input").length)).toBe(0);
  expect(fetched.some((p) => /wterm_wasm_full|findbar\.js/.test(p))).toBe(false);
  expect(fetched).toContain("/pkg/wterm_wasm_bg.wasm");
});

test("the full entry searches and serializes the same screen", async ({ page }) => {
  const fetched = await load(page, "/pkg/wterm_wasm_full.js");
  const result = await page.evaluate(async () => {
    const { WTerm } = (window as any).mod;
    const host = document.createElement("div");
    document.body.append(host);
    const term = new WTerm(host, { cols: 40, rows: 5 });
    await term.init();
    term.write("hello \x1b[1mcore\x1b[0m https://example.com/");
    return { found: term.findNext("core"), text: term.serialize({ scrollback: false }) };
  });
  expect(result.found).toMatchObject({ query: "core", count: 1, index: 0 });
  expect(result.text.split("\n")[0]).toBe("hello core https://example.com/");
  expect(fetched).toContain("/pkg/wterm_wasm_full_bg.wasm");
  expect(fetched.some((p) => p === "/pkg/wterm_wasm_bg.wasm")).toBe(false);
});

test("both entries in one page: the second module's terminal with WebMCP is refused, naming the cause; without WebMCP it works", async ({ page }) => {
  await load(page, "/pkg/wterm_wasm.js");
  const result = await page.evaluate(async () => {
    const core = (window as any).mod;
    const full = await import("/pkg/wterm_wasm_full.js");
    await full.default();
    const host = () => document.body.appendChild(document.createElement("div"));
    const a = new core.WTerm(host(), { cols: 20, rows: 3, webmcp: { name: "core-term" } });
    await a.init();
    let refused = "no error";
    try {
      new full.WTerm(host(), { webmcp: { name: "full-term" } });
    } catch (e) {
      refused = (e as Error).message;
    }
    const b = new full.WTerm(host(), { cols: 20, rows: 3 });
    await b.init();
    b.write("full here");
    let setLater = "no error";
    try {
      b.setWebMCP(true);
    } catch (e) {
      setLater = (e as Error).message;
    }
    // Once the core's terminal is gone, the full module may have the tools.
    a.destroy();
    b.setWebMCP({ name: "full-term" });
    return { refused, setLater, found: b.findNext("here").count };
  });
  expect(result.refused).toMatch(/^webmcp: another wterm-wasm module in this page has terminals with WebMCP on/);
  expect(result.setLater).toBe(result.refused);
  expect(result.found).toBe(1);
});

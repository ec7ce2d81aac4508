// Search (term.search / findNext / findPrevious / clearSearch, highlights), the built-in find
// bar (Ctrl+Shift+F), plain-text links (hover, Ctrl+click into a noopener tab, onLink, a custom
// pattern) and serialize (text, ANSI round trip, HTML escaping), in the real wasm in Chromium.
// Terminals live on tests/e2e/pages/index.html (window.harness), served with wterm-wasm/pkg.
import { test, expect, type Page } from "@playwright/test";
import { serveTestPages, type StaticServer } from "./static";

let server: StaticServer;
test.beforeAll(async () => { server = await serveTestPages(); });
test.afterAll(async () => { await server?.close(); });

let pageErrors: string[] = [];
test.beforeEach(async ({ page }) => {
  pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(`${server.base}/index.html`);
  await page.waitForFunction(() => (window as any).ready === true);
});
test.afterEach(() => { expect(pageErrors).toEqual([]); });

const make = (page: Page, opts: Record<string, unknown> = {}) =>
  page.evaluate((o) => (window as any).harness.make("t", { cols: 20, rows: 4, ...o }), opts);
const write = (page: Page, data: string) => page.evaluate((d) => (window as any).harness.term("t").write(d), data);
const call = (page: Page, method: string, ...args: unknown[]) =>
  page.evaluate(([m, a]) => (window as any).harness.term("t")[m as string](...(a as unknown[])), [method, args] as const);
const frames = (page: Page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
/** The highlight boxes drawn: [column, view row, width, active]. */
const marks = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll(".host .wterm-marks .wterm-m:not(.wterm-lk)")].map((m) => {
      const s = (m as HTMLElement).style;
      return [+s.getPropertyValue("--x"), +s.getPropertyValue("--y"), +s.getPropertyValue("--n"), m.classList.contains("wterm-ma")];
    }),
  );
/** The centre of a cell of the view, in page px. */
async function cellPoint(page: Page, col: number, row: number) {
  return page.evaluate(([c, r]) => {
    const rows = document.querySelector(".host .wterm-rows")!.getBoundingClientRect();
    const style = getComputedStyle(document.querySelector(".host .wterm")!);
    const w = parseFloat(style.getPropertyValue("--wterm-cell-w"));
    const h = parseFloat(style.getPropertyValue("--wterm-cell-h"));
    return { x: rows.left + (c + 0.5) * w, y: rows.top + (r + 0.5) * h };
  }, [col, row]);
}

test("search: next and previous wrap around, every match in view is highlighted, case and whole word", async ({ page }) => {
  await make(page);
  await write(page, "foo bar Foo\r\nfood foo\r\nFOO");
  let r = await call(page, "search", "foo");
  expect(r).toEqual({ query: "foo", count: 5, index: 0, truncated: false });
  await frames(page);
  expect(await marks(page)).toEqual([[0, 0, 3, true], [8, 0, 3, false], [0, 1, 3, false], [5, 1, 3, false], [0, 2, 3, false]]);
  r = await call(page, "findNext");
  expect(r.index).toBe(1);
  r = await call(page, "findPrevious");
  expect(r.index).toBe(0);
  r = await call(page, "findPrevious");
  expect(r.index).toBe(4); // wrapped to the last
  r = await call(page, "findNext");
  expect(r.index).toBe(0); // and back to the first
  r = await call(page, "search", "foo", { caseSensitive: true });
  expect(r.count).toBe(3); // foo, (foo)d, foo
  r = await call(page, "search", "foo", { wholeWord: true });
  expect(r.count).toBe(4); // not "food"
  r = await call(page, "search", "nothing");
  expect(r).toEqual({ query: "nothing", count: 0, index: -1, truncated: false });
  await call(page, "clearSearch");
  await frames(page);
  expect(await marks(page)).toEqual([]);
});

test("search: a regex, and a match crossing a soft wrap, highlighted on both rows", async ({ page }) => {
  await make(page);
  // 20 columns: "error 1234" starts at column 15 and wraps after "error".
  await write(page, "x".repeat(15) + "error 1234 ok\r\nwarn 56");
  let r = await call(page, "search", "(error|warn) \\d+", { regex: true });
  expect(r.count).toBe(2);
  await frames(page);
  // The active match's two parts are both drawn active.
  expect(await marks(page)).toEqual([[15, 0, 5, true], [0, 1, 5, true], [0, 2, 7, false]]);
  r = await call(page, "search", "ERROR 1234");
  expect(r.count).toBe(1); // a plain query also crosses the wrap, case ignored
  // RegExp offsets are UTF-16 units: after a wide character and an emoji (a surrogate pair)
  // the match still lands on its cells.
  await write(page, "\r\n中👍 error 9");
  r = await call(page, "search", "error \\d\\b", { regex: true });
  expect(r.count).toBe(1);
  await frames(page);
  expect(await marks(page)).toEqual([[5, 3, 7, true]]);
  r = await call(page, "search", "[0-9", { regex: true }).catch((e: Error) => e.message);
  expect(String(r)).toMatch(/query is not a valid regular expression \(.*\); with regex: true it is a JavaScript RegExp source/);
  const bad = await call(page, "search", "x", { regex: "yes" }).catch((e: Error) => e.message);
  expect(bad).toContain('regex must be a boolean; got "yes"');
  // A misspelt option is refused, not ignored.
  const typo = await call(page, "search", "x", { casesensitive: true }).catch((e: Error) => e.message);
  expect(typo).toContain("search options has unknown keys casesensitive; accepted: caseSensitive, regex, wholeWord, backwards, incremental");
});

// Regression (newcomer probe): search("x".repeat(60000)) threw V8's "Regular expression too
// large" from RegExp.exec through the terminal's borrow, and every later call said "the terminal
// is busy" and output stopped drawing. A query over the limit is refused; the terminal goes on.
test("search: a query over 10000 characters is refused and the terminal keeps working", async ({ page }) => {
  await make(page);
  await write(page, "find me here");
  for (const [q, o] of [["x".repeat(60000), {}], ["x".repeat(10001), { regex: true }]] as const) {
    const e = await call(page, "search", q, o).catch((e: Error) => e.message);
    expect(String(e)).toMatch(/Error: query is \d+ characters long; at most 10000 are accepted\n/);
  }
  const r = await call(page, "search", "me");
  expect(r.count).toBe(1);
  await write(page, "\r\nstill drawing");
  await frames(page);
  await expect(page.locator(".host .wterm-rows")).toContainText("still drawing");
  expect(await call(page, "serialize")).toContain("still drawing");
});

test("search: the view scrolls to a match in history; the onSearch callback and 'search' listeners get results", async ({ page }) => {
  await page.evaluate(() => {
    (window as any).got = [];
    return (window as any).harness.make("t", { cols: 20, rows: 4, onSearch: (r: unknown) => (window as any).got.push(r) });
  });
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i}${i === 7 ? " needle" : ""}`).join("\r\n");
  await write(page, lines);
  await page.evaluate(() => (window as any).harness.term("t").addListener("search", (r: any) => (window as any).got.push({ listener: r.count })));
  const r = await call(page, "search", "needle");
  expect(r.count).toBe(1);
  await frames(page);
  const rows = await page.evaluate(() => [...document.querySelectorAll(".host .wterm-row")].map((e) => e.textContent!.trimEnd()));
  expect(rows).toContain("line 7 needle");
  const m = await marks(page);
  expect(m).toHaveLength(1);
  expect(rows[m[0][1] as number]).toBe("line 7 needle");
  expect(await page.evaluate(() => (window as any).got)).toEqual([{ query: "needle", count: 1, index: 0, truncated: false }, { listener: 1 }]);
});

// The view's offset was counted against the history of the last frame drawn: a search right
// after output, before a frame, revealed its match in the newer history, and the next frame then
// moved the view up again by all the output since that frame (to the top: line 0..line 3). One
// evaluate: no frame between the write and the search.
test("search: a match in history is revealed when the search comes before the output's frame", async ({ page }) => {
  await make(page);
  await frames(page);
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i}${i === 7 ? " needle" : ""}`).join("\r\n");
  const r = await page.evaluate((d) => {
    const t = (window as any).harness.term("t");
    t.write(d);
    return t.search("needle");
  }, lines);
  expect(r.count).toBe(1);
  await frames(page);
  const rows = await page.evaluate(() => [...document.querySelectorAll(".host .wterm-row")].map((e) => e.textContent!.trimEnd()));
  expect(rows).toEqual(["line 5", "line 6", "line 7 needle", "line 8"]);
  const m = await marks(page);
  expect(m).toEqual([[7, 2, 6, true]]);
});

test("find bar: Ctrl+Shift+F opens it, Enter and Shift+Enter move, Escape closes it and gives focus back", async ({ page }) => {
  await make(page, { record: true });
  await write(page, "alpha beta\r\nalpha gamma\r\nalpha");
  await call(page, "focus");
  await page.keyboard.press("Control+Shift+F");
  const input = page.getByRole("textbox", { name: "Find" });
  await expect(input).toBeFocused();
  await expect(page.getByRole("search", { name: "Find in terminal" })).toBeVisible();
  await input.fill("alpha");
  const status = page.locator(".wterm-findbar output");
  await expect(status).toHaveText("1 of 3");
  await input.press("Enter");
  await expect(status).toHaveText("2 of 3");
  await input.press("Enter");
  await expect(status).toHaveText("3 of 3");
  await input.press("Shift+Enter");
  await expect(status).toHaveText("2 of 3");
  await page.getByRole("button", { name: "Regular expression" }).click();
  await input.fill("al(p");
  await expect(input).toHaveAttribute("aria-invalid", "true");
  await input.fill("g.mma");
  await expect(status).toHaveText("1 of 1");
  await input.press("Escape");
  await expect(page.locator(".wterm-findbar")).toHaveCount(0);
  await expect(page.locator(".host .wterm-input")).toBeFocused();
  await frames(page);
  expect(await marks(page)).toEqual([]);
  // Nothing typed into the bar reached the program.
  expect(await page.evaluate(() => (window as any).harness.data("t"))).toBe("");
});

test("find bar: findBar: false leaves Ctrl+Shift+F to the program", async ({ page }) => {
  await make(page, { record: true, findBar: false });
  await call(page, "focus");
  await page.keyboard.press("Control+Shift+F");
  await expect.poll(() => page.evaluate(() => (window as any).harness.data("t"))).toBe("\x06");
  await expect(page.locator(".wterm-findbar")).toHaveCount(0);
});

test("links: a plain URL, wrapped over two rows, is underlined on hover and Ctrl+click opens it in a new tab without opener", async ({ page, context }) => {
  await make(page);
  const url = `${server.base}/index.html?from=link`;
  await write(page, `see ${url}.\r\n`);
  // Hover over its second row.
  const p = await cellPoint(page, 3, 1);
  await page.mouse.move(p.x, p.y);
  await frames(page);
  const underline = await page.evaluate(() =>
    [...document.querySelectorAll(".host .wterm-lk")].map((m) => (m as HTMLElement).style.cssText));
  expect(underline.length).toBeGreaterThanOrEqual(2);
  // A plain click opens nothing.
  let opened = 0;
  context.on("page", () => opened++);
  await page.mouse.click(p.x, p.y);
  await page.waitForTimeout(300);
  expect(opened).toBe(0);
  const popupPromise = context.waitForEvent("page");
  await page.keyboard.down("Control");
  await page.mouse.click(p.x, p.y);
  await page.keyboard.up("Control");
  const popup = await popupPromise;
  await popup.waitForLoadState();
  expect(popup.url()).toBe(url); // the trailing "." is not part of it
  expect(await popup.evaluate(() => window.opener)).toBeNull();
  await popup.close();
});

test("links: onLink takes over; a custom pattern; links: false turns detection off", async ({ page, context }) => {
  await page.evaluate(() => {
    (window as any).links = [];
    return (window as any).harness.make("t", {
      cols: 40, rows: 4,
      links: { pattern: /JIRA-\d+/ },
      onLink: (uri: string, ev: MouseEvent) => (window as any).links.push([uri, ev.type, ev.ctrlKey]),
    });
  });
  await write(page, "fixed in JIRA-123 (https://x.test/)");
  // Points are taken from the drawn rows: wait until the text is on them (a click measured
  // before the first frame missed the link under CPU load).
  await expect(page.locator(".host .wterm-rows")).toContainText("JIRA-123");
  await frames(page);
  let opened = 0;
  context.on("page", () => opened++);
  const p = await cellPoint(page, 10, 0);
  await page.keyboard.down("Control");
  await page.mouse.click(p.x, p.y);
  const u = await cellPoint(page, 22, 0);
  await page.mouse.click(u.x, u.y); // a URL is not a link under this pattern
  await page.keyboard.up("Control");
  await expect.poll(() => page.evaluate(() => (window as any).links)).toEqual([["JIRA-123", "click", true]]);
  expect(opened).toBe(0);

  // links: false: nothing is a link, so Ctrl+click calls nothing.
  await page.evaluate(() => {
    (window as any).harness.terms.t.term.destroy();
    (window as any).harness.terms.t.host.remove();
    return (window as any).harness.make("t", {
      cols: 40, rows: 4, links: false,
      onLink: (uri: string) => (window as any).links.push(["off", uri]),
    });
  });
  await write(page, "https://x.test/");
  const q = await cellPoint(page, 3, 0);
  await page.mouse.move(q.x, q.y);
  await frames(page);
  expect(await page.locator(".host .wterm-lk").count()).toBe(0);
  await page.keyboard.down("Control");
  await page.mouse.click(q.x, q.y);
  await page.keyboard.up("Control");
  await expect.poll(() => page.evaluate(() => (window as any).links)).toEqual([["JIRA-123", "click", true]]);
  const bad = await page.evaluate(() => {
    try { new (window as any).WTerm(document.body, { links: { pattern: "JIRA" } }); return "no error"; } catch (e) { return (e as Error).message; }
  });
  expect(bad).toContain('links.pattern must be a RegExp; got "JIRA"');
});

test("serialize: text as read gives it; ANSI rebuilds the same cells in a fresh terminal; HTML escapes everything", async ({ page }) => {
  await make(page);
  const input =
    "old line\r\n\x1b[1;31mred\x1b[0m \x1b[4;38;2;10;20;30mrgb\x1b[0m 中文\r\n" +
    "\x1b]8;;https://x.test/\x1b\\link\x1b]8;;\x1b\\ <script>alert(1)</script>\r\n\x1b[7mrev\x1b[0m";
  await write(page, input);
  expect(await call(page, "serialize", { scrollback: false })).toBe("red rgb 中文\nlink <script>alert(1\n)</script>\nrev");
  expect(await call(page, "serialize")).toMatch(/^old line\nred rgb 中文\n/);
  const same = await page.evaluate(async () => {
    const a = (window as any).harness.term("t");
    const ansi = a.serialize({ format: "ansi" });
    const host = document.createElement("div");
    document.body.append(host);
    const b = new (window as any).WTerm(host, { cols: 20, rows: 4 });
    await b.init();
    b.write(ansi);
    const grab = (t: any) => [t.serialize({ format: "html" }), t.serialize({ format: "text" })];
    return { a: grab(a), b: grab(b) };
  });
  expect(same.b).toEqual(same.a);
  const html: string = await call(page, "serialize", { format: "html", scrollback: 0 });
  expect(html).toContain("&lt;script&gt;alert(1");
  const parsed = await page.evaluate((h) => {
    const doc = new DOMParser().parseFromString(h, "text/html");
    const pre = doc.querySelector("pre.wterm-export")!;
    return {
      scripts: doc.querySelectorAll("script").length,
      rows: [...pre.children].map((d) => d.textContent),
      red: (pre.querySelector("span") as HTMLElement).style.cssText,
      link: doc.querySelector("a")?.getAttribute("href"),
      bg: (pre as HTMLElement).style.getPropertyValue("--wterm-bg"),
    };
  }, html);
  expect(parsed.scripts).toBe(0);
  expect(parsed.rows).toEqual(["red rgb 中文", "link <script>alert(1", ")</script>", "rev"]);
  expect(parsed.red).toContain("font-weight: bold");
  expect(parsed.link).toBe("https://x.test/");
  expect(parsed.bg.trim()).toBe("#1e1e1e");
  const bad = await call(page, "serialize", { format: "pdf" }).catch((e: Error) => e.message);
  expect(bad).toContain('format must be "text", "ansi" or "html"; got "pdf"');
  const typo = await call(page, "serialize", { fromat: "html" }).catch((e: Error) => e.message);
  expect(typo).toContain("serialize options has unknown keys fromat; accepted: format, scrollback");
});

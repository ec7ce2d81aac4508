// What the DOM renderer draws for the fidelity features of wterm-core: OSC 8 links, SGR 8/9,
// DECSCUSR cursor shapes, synchronized output (mode 2026), DEC line drawing, grapheme clusters.
// Terminals live on tests/e2e/pages/index.html (window.harness), served with wterm-wasm/pkg.
import { test, expect, type Page } from "@playwright/test";
import { serveTestPages, type StaticServer } from "./static";

let server: StaticServer;

test.beforeAll(async () => {
  server = await serveTestPages();
});

test.afterAll(async () => {
  await server?.close();
});

let pageErrors: string[] = [];
test.beforeEach(async ({ page }) => {
  pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(`${server.base}/index.html`);
  await page.waitForFunction(() => (window as any).ready === true);
  await page.evaluate(() => (window as any).harness.make("t", { cols: 30, rows: 4 }));
});
test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

const write = (page: Page, data: string) => page.evaluate((d) => (window as any).harness.term("t").write(d), data);
/** Selects the terminal's rows `first..=last`, whole. */
const selectRows = (page: Page, first: number, last: number) =>
  page.evaluate(([a, b]) => {
    const rows = document.querySelectorAll(".host .wterm-row");
    const range = document.createRange();
    range.setStart(rows[a], 0);
    range.setEnd(rows[b], rows[b].childNodes.length);
    window.getSelection()!.removeAllRanges();
    window.getSelection()!.addRange(range);
  }, [first, last]);
/** What a copy of the current selection puts on the clipboard as text/plain. */
const copySelection = (page: Page) =>
  page.evaluate(() => {
    let got = "";
    const grab = (e: ClipboardEvent) => { got = e.clipboardData!.getData("text/plain"); };
    document.addEventListener("copy", grab);
    document.execCommand("copy");
    document.removeEventListener("copy", grab);
    return got;
  });
/** Waits for two animation frames, so anything scheduled has been drawn. */
const frames = (page: Page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const rowText = (page: Page, row: number) =>
  page.evaluate((r) => document.querySelectorAll(".host .wterm-row")[r]?.textContent ?? "", row);

test("OSC 8 http(s) links become anchors; other schemes stay text", async ({ page }) => {
  await write(page, "\x1b]8;;https://example.com/a?b=1\x1b\\site\x1b]8;;\x1b\\ \x1b]8;;javascript:alert(1)\x07evil\x1b]8;;\x07");
  await frames(page);
  const anchors = await page.evaluate(() =>
    [...document.querySelectorAll(".host a")].map((a) => ({
      href: a.getAttribute("href"),
      text: a.textContent,
      target: a.getAttribute("target"),
      rel: a.getAttribute("rel"),
    })),
  );
  expect(anchors).toEqual([
    { href: "https://example.com/a?b=1", text: "site", target: "_blank", rel: "noopener noreferrer" },
  ]);
  expect(await rowText(page, 0)).toBe("site evil".padEnd(30, " "));
});

test("SGR 9 strikes through, SGR 8 conceals, SGR 5 blinks", async ({ page }) => {
  await write(page, "\x1b[9mstruck\x1b[0m \x1b[8mhidden\x1b[0m \x1b[5mblink\x1b[0m");
  await frames(page);
  const classes = await page.evaluate(() =>
    Object.fromEntries([...document.querySelectorAll(".host .wterm-row span")].map((s) => [s.textContent, s.className])),
  );
  expect(classes["struck"]).toBe("wterm-s");
  expect(classes["hidden"]).toBe("wterm-h");
  expect(classes["blink"]).toBe("wterm-k");
  const color = await page.evaluate(
    () => getComputedStyle([...document.querySelectorAll(".host .wterm-row span")].find((s) => s.textContent === "hidden")!).color,
  );
  expect(color).toBe("rgba(0, 0, 0, 0)");
});

test("DECSCUSR sets the cursor's shape and blinking", async ({ page }) => {
  const cursorClass = () => page.evaluate(() => document.querySelector(".host .wterm-cursor")!.className);
  await frames(page);
  expect((await cursorClass()).split(" ")).toEqual(["wterm-cursor", "wterm-k"]);
  await write(page, "\x1b[6 q");
  await frames(page);
  expect((await cursorClass()).split(" ")).toEqual(["wterm-cursor", "wterm-bar"]);
  await write(page, "\x1b[3 q");
  await frames(page);
  expect((await cursorClass()).split(" ")).toEqual(["wterm-cursor", "wterm-ul", "wterm-k"]);
  await write(page, "\x1b[2 q");
  await frames(page);
  expect((await cursorClass()).split(" ")).toEqual(["wterm-cursor"]);
});

test("synchronized output: nothing is drawn until the update ends, or after the timeout", async ({ page }) => {
  await write(page, "before");
  await frames(page);
  await write(page, "\x1b[?2026h\r\x1b[Kduring");
  await frames(page);
  await frames(page);
  expect((await rowText(page, 0)).trimEnd()).toBe("before");
  await write(page, " done\x1b[?2026l");
  await frames(page);
  expect((await rowText(page, 0)).trimEnd()).toBe("during done");
  // A program that never ends its update is drawn after SYNC_OUTPUT_TIMEOUT_MS (1 s).
  await write(page, "\x1b[?2026h\r\x1b[Kstuck");
  await frames(page);
  expect((await rowText(page, 0)).trimEnd()).toBe("during done");
  await expect.poll(async () => (await rowText(page, 0)).trimEnd(), { timeout: 3000 }).toBe("stuck");
});

test("DEC special graphics draw line-drawing characters; clusters take one two-column box", async ({ page }) => {
  await write(page, "\x1b(0lqwqk\x1b(B ok\r\n\u{1f469}\u200d\u{1f4bb}|\u{1f1eb}\u{1f1f7}|e\u0301|");
  await frames(page);
  expect((await rowText(page, 0)).trimEnd()).toBe("┌─┬─┐ ok");
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll(".host .wterm-row")[1].querySelectorAll(".wterm-w")].map((w) => w.textContent),
  );
  expect(wide).toEqual(["\u{1f469}\u200d\u{1f4bb}", "\u{1f1eb}\u{1f1f7}"]);
  // The cursor sits after 2 + 1 + 2 + 1 + 1 + 1 columns.
  expect(await page.evaluate(() => getComputedStyle(document.querySelector(".host .wterm-screen")!).getPropertyValue("--cx"))).toBe("8");
});

test("copying keeps each row on one line, styled runs and wide cells included", async ({ page }) => {
  // Newcomer report: the selection's own text put every styled run on a line of its own.
  await write(page, "a \x1b[1mbold\x1b[0m b\r\nabc \u65e5\u672c def \x1b]8;;https://x.test\x1b\\lnk\x1b]8;;\x1b\\ tail\r\nnot selected");
  await frames(page);
  await selectRows(page, 0, 1);
  const copied = await copySelection(page);
  expect(copied).toBe("a bold b\nabc \u65e5\u672c def lnk tail");
});

test("copying a line that wraps gives one line; output after a selection clears it", async ({ page }) => {
  // Newcomer report: a wrapped line copied with a newline in the middle, and output moved the
  // selection onto other text.
  const line = "0123456789".repeat(4) + "ab cd";
  await write(page, `\x1b[2J\x1b[H${line}\r\nnext`);
  await frames(page);
  const copy = () => copySelection(page);
  await selectRows(page, 0, 2);
  expect(await copy()).toBe(`${line}\nnext`);
  // Output that leaves the selected rows alone keeps the selection; scrolling them clears it.
  await write(page, "\r\nmore");
  await frames(page);
  expect(await copy()).toBe(`${line}\nnext`);
  await write(page, "\r\nscrolls");
  await frames(page);
  expect(await page.evaluate(() => window.getSelection()!.isCollapsed)).toBe(true);
});

test("a flood that is expensive to draw is paced, and its end is drawn at the next frame without output", async ({ page }) => {
  // 200x50 cells of CJK and emoji per frame take well over PACED_FRAME_MIN_MS (16 ms) to draw,
  // so frames are skipped while output keeps arriving (FRAME_COST_FACTOR).
  await page.evaluate(() => (window as any).harness.make("big", { cols: 200, rows: 50 }));
  const flood = await page.evaluate(async () => {
    const t = (window as any).harness.term("big");
    const row = "\u65e5\u672c\u8a9e\u{1f600}\ud55c\uae00".repeat(16) + "\r\n";
    const drawnRow = () => document.querySelector(".host[data-key=big] .wterm-row")!.textContent;
    let drawn = 0;
    for (let i = 0; i < 40; i++) {
      t.write(`${row.repeat(50)}\x1b[H${i}:`);
      await new Promise((r) => requestAnimationFrame(r));
      if (drawnRow()!.startsWith(`${i}:`)) drawn++;
    }
    t.write("\x1b[2J\x1b[Hthe end");
    return drawn;
  });
  // Some frames of the flood were drawn (how many depends on the machine's speed).
  expect(flood).toBeGreaterThan(0);
  await frames(page);
  const first = await page.evaluate(() => document.querySelector(".host[data-key=big] .wterm-row")!.textContent!.trimEnd());
  expect(first).toBe("the end");
});

// Touch screens, through Chromium's touch input (DevTools protocol `Input.dispatchTouchEvent` in
// a context with touch): a one-finger swipe scrolls the history (with momentum), sends wheel
// reports to a program that tracks the mouse and cursor keys on the alternate screen; a
// long-press selects a word and its handles extend the selection; the optional key bar sends
// Esc, Tab, arrows (in the program's cursor-key mode) and Ctrl+key. The program's bytes are
// checked as `onData` gets them, and in real bash through the relay.
import { test, expect, type Page, type CDPSession } from "@playwright/test";
import { serveTestPages, type StaticServer } from "./static";
import { startRelay, screenText, waitForPrompt, type Relay } from "./relay";

test.use({ hasTouch: true });

let server: StaticServer;
let relay: Relay;
test.beforeAll(async () => {
  server = await serveTestPages();
  relay = await startRelay();
});
test.afterAll(async () => {
  await server?.close();
  await relay?.stop();
});

/** A terminal of 60x8 on the test page, recording onData; `lines` lines of history written. */
async function terminal(page: Page, lines = 0): Promise<CDPSession> {
  await page.goto(`${server.base}/index.html`);
  await page.waitForFunction(() => (window as any).ready === true);
  await page.evaluate(async (n) => {
    await (window as any).harness.make("t", { record: true });
    let out = "";
    for (let i = 1; i <= n; i++) out += `line ${i}\r\n`;
    (window as any).harness.term("t").write(out + "$ ");
  }, lines);
  await page.waitForFunction(() => document.querySelector(".wterm-row")?.textContent?.trim() !== undefined);
  return page.context().newCDPSession(page);
}

/** The centre of a screen cell (0-based), in page px, and the cell height. */
async function cell(page: Page, col: number, row: number): Promise<{ x: number; y: number; h: number }> {
  return page.evaluate(([c, r]) => {
    const rows = document.querySelector(".wterm-rows")!.getBoundingClientRect();
    const style = getComputedStyle(document.querySelector(".wterm")!);
    const w = parseFloat(style.getPropertyValue("--wterm-cell-w"));
    const h = parseFloat(style.getPropertyValue("--wterm-cell-h"));
    return { x: rows.left + (c + 0.5) * w, y: rows.top + (r + 0.5) * h, h };
  }, [col, row]);
}

/** One finger from `from` to `to` in `steps` moves `stepMs` apart, held still `holdMs`, then lifted.
 * Each event carries the time it stands for (`timestamp`), so a loaded machine that sends
 * them late does not change the swipe's speed. */
async function swipe(cdp: CDPSession, from: { x: number; y: number }, to: { x: number; y: number }, steps: number, stepMs: number, holdMs = 0) {
  const t0 = Date.now() / 1000;
  const at = (ms: number) => t0 + ms / 1000;
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: from.x, y: from.y, id: 1 }], timestamp: at(0) });
  for (let i = 1; i <= steps; i++) {
    const x = from.x + ((to.x - from.x) * i) / steps;
    const y = from.y + ((to.y - from.y) * i) / steps;
    await new Promise((r) => setTimeout(r, stepMs));
    await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [{ x, y, id: 1 }], timestamp: at(i * stepMs) });
  }
  if (holdMs) await new Promise((r) => setTimeout(r, holdMs));
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [], timestamp: at(steps * stepMs + holdMs) });
}

const scrollTop = (page: Page) => page.evaluate(() => document.querySelector(".wterm-viewport")!.scrollTop);
const data = (page: Page) => page.evaluate(() => (window as any).harness.data("t") as string);
const firstRow = (page: Page) => page.evaluate(() => document.querySelector(".wterm-row")!.textContent!.trimEnd());

test("a swipe down scrolls the history by the finger's movement; a finger that stops before lifting leaves no momentum", async ({ page }) => {
  const cdp = await terminal(page, 200);
  await expect.poll(() => firstRow(page)).toBe("line 194");
  const bottom = await scrollTop(page);
  const a = await cell(page, 10, 1);
  // 4 rows in 20 moves, then held still 250 ms before lifting.
  await swipe(cdp, a, { x: a.x, y: a.y + 4 * a.h }, 20, 30, 250);
  await expect.poll(() => firstRow(page)).toBe("line 190");
  expect(bottom - (await scrollTop(page))).toBeCloseTo(4 * a.h, 0);
  // Nothing was sent to the program, and no momentum moves it further.
  await page.waitForTimeout(300);
  expect(await firstRow(page)).toBe("line 190");
  expect(await data(page)).toBe("");
});

test("a fast swipe keeps scrolling the history after the finger lifts (momentum), then stops", async ({ page }) => {
  const cdp = await terminal(page, 400);
  const bottom = await scrollTop(page);
  const a = await cell(page, 10, 1);
  await swipe(cdp, a, { x: a.x, y: a.y + 4 * a.h }, 4, 16);
  const atLift = await scrollTop(page);
  expect(bottom - atLift).toBeGreaterThanOrEqual(3 * a.h);
  // It moves on, then comes to rest.
  await expect.poll(() => scrollTop(page)).toBeLessThan(atLift - 2 * a.h);
  let last = -1;
  await expect.poll(async () => { const now = await scrollTop(page); const still = now === last; last = now; return still; },
    { intervals: [250] }).toBe(true);
  expect(bottom - last).toBeLessThan(400 * a.h);
  // The view offset followed: the rows drawn are history rows.
  await expect.poll(() => firstRow(page)).toMatch(/^line (\d+)$/);
  const shown = Number((await firstRow(page)).split(" ")[1]);
  // 394 at the bottom, 390 where the finger lifted.
  expect(shown).toBeLessThan(388);
  expect(394 - shown).toBe(Math.round((bottom - last) / a.h));
  expect(await data(page)).toBe("");
});

test("a swipe while the program tracks the mouse sends one wheel report per row moved (SGR)", async ({ page }) => {
  const cdp = await terminal(page, 50);
  await page.evaluate(() => (window as any).harness.term("t").write("\x1b[?1000;1006h"));
  const a = await cell(page, 5, 6);
  // Finger up 3 rows: newer rows, wheel down (65), at the cell the finger is on.
  await swipe(cdp, a, { x: a.x, y: a.y - 3.4 * a.h }, 10, 20);
  await expect.poll(() => data(page)).toMatch(/^(\x1b\[<65;6;\d+M){3}$/);
  const rowsBefore = await firstRow(page);
  // Finger down 2 rows: wheel up (64); the history does not scroll.
  await swipe(cdp, a, { x: a.x, y: a.y + 2.2 * a.h }, 10, 20);
  await expect.poll(() => data(page)).toMatch(/^(\x1b\[<65;6;\d+M){3}(\x1b\[<64;6;\d+M){2}$/);
  expect(await firstRow(page)).toBe(rowsBefore);
});

test("a swipe on the alternate screen without mouse tracking sends cursor keys (alternateScroll)", async ({ page }) => {
  const cdp = await terminal(page, 0);
  await page.evaluate(() => (window as any).harness.term("t").write("\x1b[?1049h\x1b[?1h"));
  const a = await cell(page, 5, 5);
  await swipe(cdp, a, { x: a.x, y: a.y - 2.3 * a.h }, 8, 20);
  // DECCKM is set: application cursor keys.
  await expect.poll(() => data(page)).toBe("\x1bOB\x1bOB");
});

test("a swipe in real bash with mouse tracking on reaches the program as wheel reports", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.keyboard.type(
    "stty -echo; printf '\\e[?1000;1006h'; echo armed; " +
    "IFS= read -rs -d M -t 10 a; IFS= read -rs -d M -t 5 b; " +
    "printf '\\e[?1000;1006l'; stty echo; echo \"wheel:${a#*<}:${b#*<}:\"\n");
  await expect.poll(() => screenText(page)).toContain("\narmed");
  const cdp = await page.context().newCDPSession(page);
  const a = await cell(page, 3, 4);
  await swipe(cdp, a, { x: a.x, y: a.y - 2.5 * a.h }, 10, 20);
  await expect.poll(() => screenText(page)).toContain("\nwheel:65;4;");
  expect(await screenText(page)).toMatch(/\nwheel:65;4;\d+:65;4;\d+:\n/);
});

test("a long-press selects the word under the finger; dragging a handle extends the selection", async ({ page }) => {
  const cdp = await terminal(page, 0);
  await page.evaluate(() => (window as any).harness.term("t").write("\r\nls -l /usr/local/bin now(x)\r\n"));
  await expect.poll(() => page.evaluate(() => document.querySelectorAll(".wterm-row")[1].textContent!.trimEnd()))
    .toBe("ls -l /usr/local/bin now(x)");
  // "local" is at columns 11..15 of row 1: the word is the whole path (xterm.js's word rule).
  const p = await cell(page, 12, 1);
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: p.x, y: p.y, id: 1 }] });
  await expect.poll(() => page.evaluate(() => getSelection()!.toString())).toBe("/usr/local/bin");
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await expect.poll(() => page.evaluate(() => document.querySelectorAll(".wterm-handle").length)).toBe(2);
  // A short press (a tap) on the last character of "now" would not select: check the handle.
  const end = await page.evaluate(() => {
    const r = document.querySelector(".wterm-handle-end")!.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  });
  const now = await cell(page, 23, 1);
  await swipe(cdp, end, { x: now.x + 4, y: end.y }, 6, 20);
  await expect.poll(() => page.evaluate(() => getSelection()!.toString())).toBe("/usr/local/bin now");
  // Copy takes the selection as it is drawn.
  const copied = await page.evaluate(() => {
    let text = "";
    const dt = new DataTransfer();
    const ev = new ClipboardEvent("copy", { clipboardData: dt, bubbles: true, cancelable: true });
    document.querySelector(".wterm")!.dispatchEvent(ev);
    text = dt.getData("text/plain");
    return text;
  });
  expect(copied).toBe("/usr/local/bin now");
  // A touch elsewhere removes the handles.
  const other = await cell(page, 2, 4);
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: other.x, y: other.y, id: 2 }] });
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  expect(await page.evaluate(() => document.querySelectorAll(".wterm-handle").length)).toBe(0);
  // A swipe is no long-press: it selects nothing however long it lasts. (Chromium holds back
  // the moves of a touch's first 15 px or so; each move here is past that.)
  await page.evaluate(() => getSelection()!.removeAllRanges());
  await swipe(cdp, p, { x: p.x, y: p.y + 100 }, 4, 250);
  expect(await page.evaluate(() => getSelection()!.toString())).toBe("");
});

test("the key bar (wterm-wasm/keybar) sends Esc, Tab, arrows in the cursor-key mode, and a sticky Ctrl", async ({ page }) => {
  await terminal(page, 0);
  await page.evaluate(async () => {
    const { attachKeyBar } = await import("/pkg/keybar.js");
    const host = (window as any).harness.terms.t.host;
    (window as any).bar = attachKeyBar(host);
    (window as any).harness.term("t").focus();
  });
  const bar = page.getByRole("toolbar", { name: "Terminal keys" });
  await bar.getByRole("button", { name: "Escape" }).tap();
  await bar.getByRole("button", { name: "Tab" }).tap();
  await bar.getByRole("button", { name: "Up arrow" }).tap();
  await expect.poll(() => data(page)).toBe("\x1b\t\x1b[A");
  // Application cursor keys (DECCKM), as a program such as vim sets them.
  await page.evaluate(() => (window as any).harness.term("t").write("\x1b[?1h"));
  await bar.getByRole("button", { name: "Left arrow" }).tap();
  await expect.poll(() => data(page)).toBe("\x1b\t\x1b[A\x1bOD");
  // Ctrl applies to the next character typed, once; the input kept the focus all along.
  await bar.getByRole("button", { name: "Control" }).tap();
  await expect(bar.getByRole("button", { name: "Control" })).toHaveAttribute("aria-pressed", "true");
  expect(await page.evaluate(() => document.activeElement?.className)).toBe("wterm-input");
  await page.keyboard.type("cd");
  await expect.poll(() => data(page)).toBe("\x1b\t\x1b[A\x1bOD\x03d");
  await expect(bar.getByRole("button", { name: "Control" })).toHaveAttribute("aria-pressed", "false");
  // Text from a phone keyboard (an input event without a key) takes the sticky Ctrl as well.
  await bar.getByRole("button", { name: "Control" }).tap();
  await page.evaluate(() => {
    const ta = document.querySelector("textarea.wterm-input")!;
    const ev = new InputEvent("beforeinput", { inputType: "insertText", data: "z", bubbles: true, cancelable: true });
    if (ta.dispatchEvent(ev)) {
      (ta as HTMLTextAreaElement).value = "z";
      ta.dispatchEvent(new InputEvent("input", { inputType: "insertText", data: "z", bubbles: true }));
    }
  });
  await expect.poll(() => data(page)).toBe("\x1b\t\x1b[A\x1bOD\x03d\x1a");
  await page.evaluate(() => (window as any).bar.dispose());
  expect(await page.locator(".wterm-keybar").count()).toBe(0);
  // An element without a terminal is refused, saying what is expected.
  const err = await page.evaluate(async () => {
    const { attachKeyBar } = await import("/pkg/keybar.js");
    try { attachKeyBar(document.createElement("div")); return ""; } catch (e) { return String(e); }
  });
  expect(err).toBe("TypeError: attachKeyBar: element must be the element of an initialized WTerm (after init())");
});

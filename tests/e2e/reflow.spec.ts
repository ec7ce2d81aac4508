// Reflow on resize: the real page on the real relay with real bash. A 200-character
// line printed at 80 columns reads whole again after the window narrows to 40 and widens back,
// and the page's WebMCP read_terminal and the relay's /mcp/read give the same text each time
// (both hold a wterm-core terminal and reflow it on the same resize).
import { test, expect, type Page } from "@playwright/test";
import { startRelay, waitForPrompt, type Relay } from "./relay";

let relay: Relay;
let mcpToken: string;
test.beforeAll(async () => {
  relay = await startRelay();
  const r = await fetch(`${relay.url}/mcp/config`, {
    method: "POST",
    headers: { Authorization: `Bearer ${relay.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ enabled: true, generate: true, default_mode: "readwrite" }),
  });
  expect(r.status).toBe(200);
  mcpToken = (await r.json()).token;
});
test.afterAll(async () => { await relay?.stop(); });

/** The page's read_terminal answer (WebMCP, as an in-page agent calls it). */
async function pageRead(page: Page): Promise<{ text: string; cols: number; rows: number }> {
  return (await page.webmcp.callTool("read_terminal", {})) as any;
}

/** The relay's /mcp/read answer for session `id`. Its screen text has every row (broker
 * contract); read_terminal drops the blank rows below the cursor and the last text (WebMCP
 * contract), so `text` here drops them too. */
async function relayRead(id: number): Promise<{ text: string; cols: number; rows: number }> {
  const r = await fetch(`${relay.url}/mcp/read`, {
    method: "POST",
    headers: { Authorization: `Bearer ${mcpToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ id }),
  });
  expect(r.status).toBe(200);
  const a = await r.json();
  return { ...a, text: a.text.replace(/\n+$/u, "") };
}

/** Sets the viewport's width so the page fits exactly `cols` columns (the page refits on resize). */
async function fitColumns(page: Page, cols: number): Promise<void> {
  const height = page.viewportSize()!.height;
  let width = page.viewportSize()!.width;
  let now = (await pageRead(page)).cols;
  // One column's width in pixels, from the change that 200 pixels make.
  await page.setViewportSize({ width: width - 200, height });
  await expect.poll(async () => (await pageRead(page)).cols).toBeLessThan(now);
  const cell = 200 / (now - (await pageRead(page)).cols);
  await page.setViewportSize({ width, height });
  await expect.poll(async () => (await pageRead(page)).cols).toBe(now);
  for (let i = 0; i < 6 && now !== cols; i++) {
    width = Math.round(width + (cols - now) * cell);
    await page.setViewportSize({ width, height });
    // The page refits on the window's resize event; a frame later it has.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    now = (await pageRead(page)).cols;
  }
  expect(now).toBe(cols);
}

/** `text`'s rows hold `line` in consecutive rows of `cols` characters (the last one shorter). */
function holdsWrapped(text: string, line: string, cols: number): boolean {
  const rows = text.split("\n");
  const pieces: string[] = [];
  for (let i = 0; i < line.length; i += cols) pieces.push(line.slice(i, i + cols));
  return rows.some((_, i) => pieces.every((p, k) => rows[i + k] === p));
}

test("a 200-character line at 80 columns reads whole after 40 and back, the same in the page and the relay", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await expect.poll(() => page.url()).toMatch(/\?session=\d+$/);
  const id = Number(new URL(page.url()).searchParams.get("session"));
  await fitColumns(page, 80);
  await expect.poll(async () => (await relayRead(id)).cols).toBe(80);

  const line = Array.from({ length: 100 }, (_, i) => String(100 + i)).join("").slice(0, 200);
  await page.keyboard.type("seq -s '' 100 199 | cut -c1-200\n");
  await expect.poll(async () => holdsWrapped((await pageRead(page)).text, line, 80)).toBe(true);
  await waitForPrompt(page);
  const before = (await pageRead(page)).text;

  for (const cols of [40, 80]) {
    await fitColumns(page, cols);
    await expect.poll(async () => (await relayRead(id)).cols).toBe(cols);
    // Bash redraws its prompt on SIGWINCH; once both have it, they read the same.
    await expect.poll(async () => holdsWrapped((await pageRead(page)).text, line, cols)).toBe(true);
    await expect.poll(async () => (await relayRead(id)).text).toBe((await pageRead(page)).text);
  }
  expect((await pageRead(page)).text).toBe(before);
  // The rows a person sees hold the line whole again.
  const rows = await page.evaluate(() =>
    Array.from(document.querySelectorAll(".wterm-row")).map((r) => (r.textContent ?? "").trimEnd()),
  );
  expect(holdsWrapped(rows.join("\n"), line, 80)).toBe(true);
});

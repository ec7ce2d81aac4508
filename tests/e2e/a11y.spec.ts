// Screen readers: new output is announced through a polite live region, bounded (at most 500
// characters per announcement, a summary "N lines of output" beyond, at most one announcement
// per 2 s during a flood), the rows are a labelled document and the input is labelled; axe-core
// finds no serious or critical violation on the package's demo page or the relay's page.
import { test, expect, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { serveTestPages, type StaticServer } from "./static";
import { startRelay, waitForPrompt, runCommand, type Relay } from "./relay";

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

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

async function harness(page: Page, opts: object = {}): Promise<void> {
  await page.goto(`${server.base}/index.html`);
  await page.waitForFunction(() => (window as any).ready === true);
  await page.evaluate((o) => (window as any).harness.make("t", o), opts);
}

const write = (page: Page, s: string) => page.evaluate((s) => (window as any).harness.term("t").write(s), s);
const announced = (page: Page) => page.evaluate(() => document.querySelector(".wterm-live")?.textContent ?? null);

/** Every announcement made from now on, as the live region's additions. */
async function recordAnnouncements(page: Page): Promise<void> {
  await page.evaluate(() => {
    const log: string[] = ((window as any).announcements = []);
    new MutationObserver((records) => {
      for (const r of records) r.addedNodes.forEach((n) => log.push(n.textContent ?? ""));
    }).observe(document.querySelector(".wterm-live")!, { childList: true });
  });
}

test("new output is announced once it settles: the lines since the last announcement", async ({ page }) => {
  await harness(page);
  const live = page.locator(".wterm-live");
  await expect(live).toHaveAttribute("aria-live", "polite");
  await expect(live).toHaveAttribute("role", "log");
  await recordAnnouncements(page);
  await write(page, "$ ls\r\nfile-one  file-two\r\ndone\r\n$ ");
  await expect.poll(() => announced(page)).toBe("$ ls\nfile-one  file-two\ndone\n$");
  // Text on the current line (the echo of typing) is not announced by itself...
  await write(page, "echo hi");
  await page.waitForTimeout(400);
  expect(await page.evaluate(() => (window as any).announcements.length)).toBe(1);
  // ...but with the output that follows it, from where the last announcement ended.
  await write(page, "\r\nhi\r\n$ ");
  await expect.poll(() => announced(page)).toBe("echo hi\nhi\n$");
});

test("a flood of output is announced as a summary, at most once per 2 s, never over 500 characters", async ({ page }) => {
  await harness(page);
  await recordAnnouncements(page);
  // 60 chunks of 100 lines, 50 ms apart: 3 s of output.
  await page.evaluate(async () => {
    const t = (window as any).harness.term("t");
    for (let c = 0; c < 60; c++) {
      let out = "";
      for (let i = 0; i < 100; i++) out += `chunk ${c} line ${i} ${"x".repeat(40)}\r\n`;
      t.write(out);
      await new Promise((r) => setTimeout(r, 50));
    }
    t.write("$ ");
  });
  await expect.poll(() => announced(page)).toMatch(/^\d+ lines of output$/);
  await page.waitForTimeout(500);
  const all: string[] = await page.evaluate(() => (window as any).announcements);
  // About 3.5 s from the first chunk to the last announcement: at most 2 during the flood, 1 after.
  expect(all.length).toBeGreaterThanOrEqual(1);
  expect(all.length).toBeLessThanOrEqual(3);
  for (const a of all) {
    expect(a.length).toBeLessThanOrEqual(500);
    expect(a).toMatch(/^\d+ lines of output$/);
  }
  // Every line is counted once across the announcements.
  const total = all.reduce((n, a) => n + Number(a.split(" ")[0]), 0);
  expect(total).toBe(6000);
});

test("output on the alternate screen is not announced; screenReaderMode: false has no live region", async ({ page }) => {
  await harness(page);
  await recordAnnouncements(page);
  await write(page, "\x1b[?1049h");
  for (let i = 0; i < 5; i++) await write(page, `frame ${i}\r\nrow\r\n`);
  await page.waitForTimeout(400);
  expect(await page.evaluate(() => (window as any).announcements.length)).toBe(0);
  // Back on the main screen, output is announced again.
  await write(page, "\x1b[?1049lback\r\n$ ");
  await expect.poll(() => announced(page)).toMatch(/back\n\$$/);
  await harness(page, { screenReaderMode: false });
  expect(await page.locator(".wterm-live").count()).toBe(0);
  // A bad value is refused, naming the option.
  const err = await page.evaluate(() => {
    try { new (window as any).WTerm(document.body, { screenReaderMode: "yes" }); return ""; } catch (e) { return String(e); }
  });
  expect(err).toContain("screenReaderMode");
});

test("the rows are a labelled document read line by line, the input is labelled", async ({ page }) => {
  await harness(page);
  await write(page, "first line\r\nsecond line");
  const doc = page.getByRole("document", { name: "Terminal screen" });
  await expect(doc).toBeVisible();
  await expect(doc).toContainText("first line");
  await expect(page.getByRole("textbox", { name: "Terminal input" })).toBeAttached();
});

/** axe-core's serious and critical violations on the page, one line each: impact, rule, elements. */
async function axeViolations(page: Page, skipRules: string[] = []): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(() => (window as any).axe.run(document, { resultTypes: ["violations"] }));
  return (result.violations as any[])
    .filter((v) => (v.impact === "serious" || v.impact === "critical") && !skipRules.includes(v.id))
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(" ")).join(", ")})`);
}

async function demoPage(page: Page): Promise<void> {
  await page.goto(`${server.base}/demo/index.html`);
  await page.waitForFunction(() => (window as any).demoReady === true);
}

test("axe-core: no serious or critical violation on the package's demo page (but the program's colors)", async ({ page }) => {
  await demoPage(page);
  expect(await axeViolations(page, ["color-contrast"])).toEqual([]);
});

// Known failure, kept so it is noticed when it starts passing: the demo prints the 16 ANSI
// colors (black, red, blue, dim on the dark default background), under WCAG's 4.5:1. xterm.js
// and VS Code have a `minimumContrastRatio` that adjusts such colors as they are drawn; wterm
// has none yet (it belongs with the themes).
test("axe-core: the demo page's ANSI colors meet WCAG contrast (known failure: no minimum contrast ratio yet)", async ({ page }) => {
  test.fail();
  await demoPage(page);
  expect(await axeViolations(page)).toEqual([]);
});

test("axe-core: no serious or critical violation on the relay's page with a shell", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await runCommand(page, "ls -la /");
  expect(await axeViolations(page)).toEqual([]);
});

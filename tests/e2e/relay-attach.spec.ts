// A person in the browser works in a real bash through the relay's page.
import { test, expect } from "@playwright/test";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { startRelay, screenText, waitForPrompt, type Relay } from "./relay";

let relay: Relay;
test.beforeAll(async () => { relay = await startRelay(); });
test.afterAll(async () => { await relay?.stop(); });

test("typed command runs in bash, and a reload re-attaches to the same shell", async ({ page }) => {
  // Every resource the page asks for exists (newcomer report: a favicon request 404'd).
  const failed: string[] = [];
  page.on("response", (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
  page.on("requestfailed", (r) => failed.push(`failed ${r.url()}`));
  // The page and its wasm run under the relay's Content-Security-Policy without a violation.
  const violations: string[] = [];
  page.on("console", (m) => { if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text()); });
  const response = await page.goto(relay.pageUrl());
  expect(response?.headers()["content-security-policy"]).toContain("script-src 'self' 'wasm-unsafe-eval'");
  // WebMCP registers tools only in an origin-keyed agent cluster; other engines need the header.
  expect(response?.headers()["origin-agent-cluster"]).toBe("?1");
  expect(await page.evaluate(() => (window as any).originAgentCluster)).toBe(true);
  await waitForPrompt(page);
  expect(failed).toEqual([]);
  // Headless Chromium never asks for /favicon.ico, a headed browser does unless the page names
  // an icon: the page names an inline one.
  expect(await page.locator('link[rel="icon"]').getAttribute("href")).toBe("data:,");
  // The token left the address bar; the session is in the URL.
  await expect.poll(() => page.url()).toMatch(/\?session=\d+$/);
  expect(page.url()).not.toContain("token");

  await page.keyboard.type("echo hello-$((6*7))");
  await page.keyboard.press("Enter");
  await expect.poll(() => screenText(page)).toContain("\nhello-42");

  await page.reload();
  await expect.poll(() => screenText(page)).toContain("\nhello-42");
  await expect.poll(() => screenText(page)).toContain("echo hello-$((6*7))");
  // Still the same live shell: it keeps working after the reload.
  await waitForPrompt(page);
  await page.keyboard.type("echo again-$((1+1))\n");
  await expect.poll(() => screenText(page)).toContain("\nagain-2");
  expect(violations).toEqual([]);
});

test("the tab's title is the session's: set by the program, kept across a reload, cleared", async ({ page }) => {
  // One route: the terminal's own title (OSC 2 in the output; the snapshot after a reload carries
  // it); the relay's {"type":"title"} message is not used by the page.
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await expect(page).toHaveTitle("wterm");
  await page.keyboard.type(String.raw`printf '\e]2;%s\a' "ti-$((3*3))"` + "\n");
  await expect(page).toHaveTitle("ti-9 — wterm");
  await page.reload();
  await waitForPrompt(page);
  await expect(page).toHaveTitle("ti-9 — wterm");
  await page.keyboard.type(String.raw`printf '\e]2;\a'` + "\n");
  await expect(page).toHaveTitle("wterm");
});

test("another site cannot put the page in a frame (CSP frame-ancestors)", async ({ page }) => {
  await page.setContent(`<iframe src="${relay.pageUrl()}" width="600" height="400"></iframe>`);
  await page.waitForTimeout(1500);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  expect(frame).toBeDefined();
  // Blocked: Chromium shows its error page there, never the terminal.
  expect(await frame!.evaluate(() => document.querySelector("#terminal") !== null).catch(() => false)).toBe(false);
});

test("vim edits a file on disk", async ({ page }) => {
  const file = join(relay.home, "note.txt");
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.keyboard.type(`vim -u NONE -N ${file}\n`);
  // Vim's own message for a new file, not the echoed command line: keys typed
  // before vim has started and set up the terminal can be lost or misread.
  await expect.poll(() => screenText(page), { timeout: 15_000 }).toMatch(/"[^"]*note\.txt" \[New/);
  await page.keyboard.type("ihello from vim");
  await page.keyboard.press("Enter");
  await page.keyboard.type("second line");
  await page.keyboard.press("Escape");
  await page.keyboard.type(":wq\n");
  await waitForPrompt(page);
  await expect.poll(() => existsSync(file) && readFileSync(file, "utf8")).toBe("hello from vim\nsecond line\n");
});

test("colored output has the right computed colors", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.keyboard.type(String.raw`printf '\e[31mRED\e[0m \e[1;38;2;10;200;30mTRUE\e[0m \e[48;5;21mBLUEBG\e[0m\n'`);
  await page.keyboard.press("Enter");
  await expect.poll(() => screenText(page)).toContain("RED TRUE BLUEBG");
  const styleOf = (text: string) =>
    page.evaluate((t) => {
      const span = Array.from(document.querySelectorAll(".wterm-row span")).find((s) => s.textContent === t);
      if (!span) return null;
      const cs = getComputedStyle(span);
      return { color: cs.color, background: cs.backgroundColor, weight: cs.fontWeight };
    }, text);
  const red = await styleOf("RED");
  expect(red).not.toBeNull();
  const [r, g, b] = red!.color.match(/\d+/g)!.map(Number);
  expect(r).toBeGreaterThan(150);
  expect(g).toBeLessThan(90);
  expect(b).toBeLessThan(90);
  const truecolor = await styleOf("TRUE");
  expect(truecolor!.color).toBe("rgb(10, 200, 30)");
  expect(Number(truecolor!.weight)).toBeGreaterThanOrEqual(600);
  // 256-color index 21 is the cube's pure blue (0, 0, 255).
  expect((await styleOf("BLUEBG"))!.background).toBe("rgb(0, 0, 255)");
});

test("a yes flood stops promptly on Ctrl+C", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.keyboard.type("yes\n");
  await expect.poll(async () => (await screenText(page)).split("\n").filter((l) => l === "y").length, { timeout: 10_000 })
    .toBeGreaterThan(10);
  const t0 = Date.now();
  await page.keyboard.press("Control+c");
  await waitForPrompt(page, 10_000);
  const ms = Date.now() - t0;
  console.log(`yes flood: prompt back ${ms} ms after Ctrl+C (browser round trip included)`);
  // The 200 ms target is measured by the benchmark; here only a generous bound.
  expect(ms).toBeLessThan(3000);
  // And the flood really stopped: the screen stays put.
  const a = await screenText(page);
  await page.waitForTimeout(300);
  expect(await screenText(page)).toBe(a);
});

test("a wrong token and an unknown session are shown plainly", async ({ page, context }) => {
  await page.goto(`${relay.url}/#token=wrong-token`);
  await expect(page.locator("#status")).toContainText("refused the page token");
  await page.goto(`${relay.url}/?session=999999#token=${relay.token}`);
  await expect(page.locator("#status")).toContainText("does not exist");
});

test("with two pages on one session, a program's query gets one reply", async ({ page, context }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await expect.poll(() => page.url()).toMatch(/\?session=\d+$/);
  const session = new URL(page.url()).searchParams.get("session");
  const second = await context.newPage();
  await second.goto(relay.pageUrl(`?session=${session}`));
  await waitForPrompt(second);
  // CPR: each reply is ESC [ row ; col R. Before the relay answered for all pages, each page
  // answered, and the second read got a reply too. Echo is off before the query: a reply that
  // came before `read -s` turned it off was echoed onto the result line (seen in CI).
  await page.keyboard.type("stty -echo; printf '\\e[6n'; IFS= read -rs -d R -t 5 a; IFS= read -rs -d R -t 1 b; stty echo; echo \"replies:${a:+one}${b:+two}:\"");
  await page.keyboard.press("Enter");
  await expect.poll(() => screenText(page), { timeout: 10_000 }).toMatch(/\nreplies:[a-z]*:/);
  expect(await screenText(page)).toContain("\nreplies:one:");
  await second.close();
});

test("the page typed into gives the session its size; a smaller page does not keep it small", async ({ page, context }) => {
  // Newcomer report: a smaller second tab shrank the session for every tab, for good.
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await expect.poll(() => page.url()).toMatch(/\?session=\d+$/);
  const session = new URL(page.url()).searchParams.get("session");
  const sttySize = async (p: typeof page, tag: string) => {
    await p.keyboard.type(`echo ${tag}:$(stty size):\n`);
    const re = new RegExp(`\\n${tag}:(\\d+ \\d+):`);
    await expect.poll(() => screenText(p)).toMatch(re);
    return (await screenText(p)).match(re)![1];
  };
  const big = await sttySize(page, "big");
  const second = await context.newPage();
  await second.setViewportSize({ width: 437, height: 300 });
  await second.goto(relay.pageUrl(`?session=${session}`));
  await waitForPrompt(second);
  const small = await sttySize(second, "small");
  expect(small).not.toBe(big);
  // Typing in the first page gives the session its size back.
  expect(await sttySize(page, "again")).toBe(big);
  // The second page follows, and takes it back when typed into.
  expect(await sttySize(second, "back")).toBe(small);
  await second.close();
  expect(await sttySize(page, "last")).toBe(big);
});

test("a page token with characters that mean something in a URL works from the printed URL", async ({ page }) => {
  // Newcomer report: the relay allowed `+`, `&` and `%` in WEB_TERMINAL_TOKEN but printed them
  // raw in the URL fragment, which the page read as form data: another token, or a dead page.
  const odd = await startRelay([], { token: "odd+token&with%41chars" });
  try {
    expect(odd.printedUrl).toContain("#token=odd%2Btoken%26with%2541chars");
    await page.goto(odd.printedUrl);
    await waitForPrompt(page);
  } finally {
    await odd.stop();
  }
});

test("a session number that is not digits is shown plainly", async ({ page }) => {
  await page.goto(`${relay.url}/?session=abc#token=${relay.token}`);
  await expect(page.locator("#status")).toContainText("is not a session number");
});

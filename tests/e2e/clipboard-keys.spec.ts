// The clipboard keys (package README, "Clipboard"): Ctrl+Shift+V pastes and Ctrl+V sends ^V to
// the program by default; with `pasteWithCtrlV: true` Ctrl+V pastes too. Ctrl+C sends ^C either
// way, and Cmd+V (Meta+V) is always left to the browser (the paste shortcut on macOS).
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

const CLIPBOARD = "from the clipboard";

async function makeTerminal(page: Page, options: Record<string, unknown>): Promise<void> {
  await page.goto(`${server.base}/index.html`);
  await page.waitForFunction(() => (window as any).ready === true);
  await page.evaluate((o) => (window as any).harness.make("t", { record: true, ...o }), options);
  await page.evaluate((text) => navigator.clipboard.writeText(text), CLIPBOARD);
  await page.locator(".host .wterm").click();
}
const sent = (page: Page) => page.evaluate(() => (window as any).harness.data("t") as string);
/** Presses `key`, then a marker key, and returns what the program got for `key` alone. */
async function press(page: Page, key: string): Promise<string> {
  const before = (await sent(page)).length;
  await page.keyboard.press(key);
  await page.keyboard.type("|");
  await expect.poll(async () => (await sent(page)).endsWith("|")).toBe(true);
  return (await sent(page)).slice(before, -1);
}

test.beforeEach(async ({ context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
});

test("by default Ctrl+V sends ^V and Ctrl+Shift+V pastes; Ctrl+C sends ^C; Cmd+V is the browser's", async ({ page }) => {
  await makeTerminal(page, {});
  expect(await press(page, "Control+V")).toBe("\x16");
  expect(await press(page, "Control+Shift+C")).toBe(""); // no selection: nothing to copy or send
  expect(await press(page, "Control+Shift+V")).toBe(CLIPBOARD);
  expect(await press(page, "Control+C")).toBe("\x03");
  expect(await press(page, "Meta+V")).not.toContain("\x16");
});

test("with pasteWithCtrlV Ctrl+V pastes; Ctrl+Shift+V still does; Ctrl+C still sends ^C", async ({ page }) => {
  await makeTerminal(page, { pasteWithCtrlV: true });
  expect(await press(page, "Control+V")).toBe(CLIPBOARD);
  expect(await press(page, "Control+Shift+V")).toBe(CLIPBOARD);
  expect(await press(page, "Control+C")).toBe("\x03");
  expect(await press(page, "Meta+V")).not.toContain("\x16");
});

test("pasteWithCtrlV must be a boolean", async ({ page }) => {
  await page.goto(`${server.base}/index.html`);
  await page.waitForFunction(() => (window as any).ready === true);
  const message = await page.evaluate(() => {
    try {
      new (window as any).WTerm(document.body, { pasteWithCtrlV: "yes" });
      return "no error";
    } catch (e) {
      return String((e as Error).message);
    }
  });
  expect(message).toBe('pasteWithCtrlV must be a boolean; got "yes"');
});

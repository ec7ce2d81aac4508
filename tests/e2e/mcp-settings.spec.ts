// A person turns MCP access on from the page's settings panel, and an MCP client then sees and
// reads this window.
import { test, expect } from "@playwright/test";
import { startRelay, waitForPrompt, type Relay } from "./relay";

let relay: Relay;
test.beforeAll(async () => { relay = await startRelay(); });
test.afterAll(async () => { await relay?.stop(); });

async function config(): Promise<any> {
  const r = await fetch(`${relay.url}/mcp/config`, { headers: { Authorization: `Bearer ${relay.token}` } });
  return r.json();
}

test("the settings panel turns MCP on and sets this window's mode and scope", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await expect.poll(() => page.url()).toMatch(/\?session=\d+$/);
  const session = Number(new URL(page.url()).searchParams.get("session"));

  await page.locator("#wterm-gear").click();
  const panel = page.locator("#wterm-settings");
  await expect(panel).toBeVisible();
  await expect(panel).toContainText(`This window (${session}): now off`);
  const enabled = panel.getByLabel("Allow MCP clients");
  await expect(enabled).not.toBeChecked();

  await enabled.check();
  await expect.poll(async () => (await config()).enabled).toBe(true);
  await panel.getByLabel("Default window mode").selectOption("read");
  await expect.poll(async () => (await config()).default_mode).toBe("read");
  await panel.getByRole("button", { name: "Generate" }).click();
  await expect.poll(async () => (await config()).token).not.toBeNull();
  const token: string = (await config()).token;
  await expect(panel.locator("code")).toHaveText(`${token.slice(0, 6)}…`);

  await panel.getByLabel("Window mode", { exact: true }).selectOption("readwrite");
  await panel.getByLabel("Window scope").fill("team-e2e");
  await panel.getByRole("button", { name: "Apply" }).click();
  await expect(panel).toContainText("Saved.");
  await expect(panel).toContainText(`This window (${session}): now readwrite`);

  // An MCP client in that scope sees this window and reads its screen.
  const headers = { Authorization: `Bearer ${token}`, "X-Browserland-Scope": "team-e2e" };
  const list = await (await fetch(`${relay.url}/mcp/terminals`, { headers })).json();
  expect(list.map((t: any) => [t.id, t.mode, t.scope])).toEqual([[session, "readwrite", "team-e2e"]]);
  const read = await fetch(`${relay.url}/mcp/read`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ id: session, wait_for_text: "$", timeout_ms: 5000 }),
  });
  expect((await read.json()).matched).toBe(true);

  // Escape closes the panel and gives the keyboard back to the terminal.
  await panel.getByLabel("Window scope").press("Escape");
  await expect(panel).toBeHidden();
  await page.keyboard.type("echo back-$((2+2))\n");
  await expect.poll(() => page.evaluate(() => document.body.innerText)).toContain("back-4");
});

test("the settings panel lists the relay's shells and ends one left behind", async ({ page, context }) => {
  // A tab that was closed leaves its shell running (newcomer report: they pile up to the limit).
  const other = await context.newPage();
  await other.goto(relay.pageUrl());
  await waitForPrompt(other);
  await expect.poll(() => other.url()).toMatch(/\?session=\d+$/);
  const left = Number(new URL(other.url()).searchParams.get("session"));
  await other.close();

  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await expect.poll(() => page.url()).toMatch(/\?session=\d+$/);
  const mine = Number(new URL(page.url()).searchParams.get("session"));
  await page.locator("#wterm-gear").click();
  const shells = page.getByRole("list", { name: "Shells" });
  await expect(shells).toContainText(`${mine} (this window)`);
  await expect(shells).toContainText(`${left}: `);
  await page.getByRole("button", { name: `End shell ${left}` }).click();
  await expect(page.locator("#wterm-settings")).toContainText(`Shell ${left} ended.`);
  await expect(shells).not.toContainText(`${left}: `);
  const ids = async () =>
    (await (await fetch(`${relay.url}/sessions`, { headers: { Authorization: `Bearer ${relay.token}` } })).json()).map((s: any) => s.id);
  expect(await ids()).not.toContain(left);
  expect(await ids()).toContain(mine);
});

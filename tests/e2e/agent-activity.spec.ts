// People see, trust and steer what agents do in their terminals, on the relay's page:
// the agent badge flashes for an MCP client's writes (through the relay's {"type":"agent"}
// frame) and for the page's own WebMCP reads; the one-click switch under the terminal takes
// both kinds of agents' typing away and gives it back; the settings panel copies ready
// configurations; a #session=N link opens that session.
import { test, expect, type Page } from "@playwright/test";
import { startRelay, waitForPrompt, type Relay } from "./relay";

let relay: Relay;
test.beforeAll(async () => { relay = await startRelay(); });
test.afterAll(async () => { await relay?.stop(); });

/** Switches MCP on with a fresh token and `default_mode`; returns the MCP token. */
async function enableMcp(defaultMode: string): Promise<string> {
  const r = await fetch(`${relay.url}/mcp/config`, {
    method: "POST",
    headers: { Authorization: `Bearer ${relay.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ enabled: true, generate: true, default_mode: defaultMode }),
  });
  expect(r.status).toBe(200);
  return (await r.json()).token;
}

async function mcpPost(token: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${relay.url}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

async function openShell(page: Page): Promise<number> {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await expect.poll(() => page.url()).toMatch(/\?session=\d+$/);
  return Number(new URL(page.url()).searchParams.get("session"));
}

const badge = (page: Page) => page.locator("#agent-badge");

test("an MCP client's typing and an in-page agent's reading show on the terminal", async ({ page }) => {
  const token = await enableMcp("readwrite");
  const id = await openShell(page);
  await expect(badge(page)).toBeVisible();
  await expect(badge(page)).toHaveAttribute("aria-label", "No agent activity yet");

  // An MCP client types; the page shows a write, promptly.
  const r = await mcpPost(token, "/mcp/input", { id, data: "echo via-mcp-$((3*5))\r" });
  const returnedAt = Date.now();
  // The answer numbers the input (input sequence): a caller whose answer was lost can tell.
  expect(r).toEqual({ status: 200, body: { ok: true, seq: expect.any(Number), bytes: "echo via-mcp-$((3*5))\r".length } });
  await expect(badge(page)).toHaveAttribute("data-kind", "write", { timeout: 2000 });
  await expect(badge(page)).toHaveAttribute("data-tool", "send_input");
  await expect(badge(page)).toHaveAttribute("data-source", "relay");
  await expect(badge(page)).toHaveAttribute("aria-label", /An MCP client typed into this terminal \(send_input\)/);
  const seenAt = Number(await badge(page).getAttribute("data-seen"));
  const delay = seenAt - returnedAt;
  console.log(`agent activity: MCP /mcp/input returned → write badge shown: ${delay} ms (negative: shown before the HTTP answer arrived)`);
  expect(delay).toBeLessThan(1000);
  await expect.poll(() => page.evaluate(() => document.body.innerText)).toContain("via-mcp-15");
  // The badge does not take the keyboard.
  expect(await page.evaluate(() => document.activeElement?.closest("#agentbar") ?? null)).toBeNull();

  // After the flash, an in-page agent reads: the badge shows a read, from WebMCP.
  await expect(badge(page)).not.toHaveAttribute("data-kind", /./, { timeout: 5000 });
  const read = (await page.webmcp.callTool("read_terminal", {})) as any;
  expect(read.text).toContain("via-mcp-15");
  await expect(badge(page)).toHaveAttribute("data-kind", "read");
  await expect(badge(page)).toHaveAttribute("data-tool", "read_terminal");
  await expect(badge(page)).toHaveAttribute("data-source", "webmcp");
  await expect(badge(page)).toHaveAttribute("title", /An agent in this page read this terminal \(read_terminal\)/);
});

test("one click takes typing away from both kinds of agents, and one click gives it back", async ({ page }) => {
  const token = await enableMcp("readwrite");
  const id = await openShell(page);
  const bar = page.getByRole("radiogroup", { name: "Agent access to this terminal" });
  // Both are read-write once the window's MCP mode is read.
  await expect(bar.getByRole("radio", { name: "read-write" })).toHaveAttribute("aria-checked", "true");
  const tools = async () => (await page.webmcp.tools()).map((t) => t.name).sort();
  expect(await tools()).toContain("type_in_terminal");

  await bar.getByRole("radio", { name: "read", exact: true }).click();
  await expect(bar.getByRole("radio", { name: "read", exact: true })).toHaveAttribute("aria-checked", "true");
  // The click gives the keyboard back to the terminal.
  await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest("#terminal"))).toBe(true);

  // MCP: the next input is refused read_only; reading still works.
  expect(await mcpPost(token, "/mcp/input", { id, data: "echo no\r" })).toEqual({ status: 403, body: { error: "read_only" } });
  expect((await mcpPost(token, "/mcp/read", { id })).status).toBe(200);
  // WebMCP: the typing tools are withdrawn (no terminal accepts input), so a call fails;
  // reading still works.
  await expect.poll(tools).toEqual(["list_terminals", "read_terminal"]);
  const refused = await page.webmcp.callTool("type_in_terminal", { text: "echo no" }).then(
    (v) => ({ ok: v }),
    (e) => ({ error: String(e) }),
  );
  expect(refused).toHaveProperty("error");
  console.log(`WebMCP type_in_terminal while read-only: ${(refused as any).error}`);
  expect(((await page.webmcp.callTool("list_terminals", {})) as any).terminals[0].readOnly).toBe(true);

  // Off: MCP no longer sees the window; the page's tools are gone.
  await bar.getByRole("radio", { name: "off" }).click();
  await expect(bar.getByRole("radio", { name: "off" })).toHaveAttribute("aria-checked", "true");
  expect(await mcpPost(token, "/mcp/read", { id })).toEqual({ status: 404, body: { error: "unknown_or_off" } });
  await expect.poll(tools).toEqual([]);

  // Back to read-write: both type again.
  await bar.getByRole("radio", { name: "read-write" }).click();
  await expect(bar.getByRole("radio", { name: "read-write" })).toHaveAttribute("aria-checked", "true");
  expect(await mcpPost(token, "/mcp/input", { id, data: "echo back-$((6*7))\r" })).toEqual({ status: 200, body: { ok: true, seq: expect.any(Number), bytes: 19 } });
  await expect.poll(tools).toContain("type_in_terminal");
  const typed = (await page.webmcp.callTool("type_in_terminal", { text: "echo page-$((2+3))", submit: true })) as any;
  expect(typed).toMatchObject({ ok: true, submitted: true });
  await expect.poll(() => page.evaluate(() => document.body.innerText)).toContain("back-42");
  await expect.poll(() => page.evaluate(() => document.body.innerText)).toContain("page-5");
});

test("a waiting MCP read ends when the person turns the window off from the page", async ({ page }) => {
  const token = await enableMcp("readwrite");
  const id = await openShell(page);
  const waiting = mcpPost(token, "/mcp/read", { id, wait_for_text: "never-shown", timeout_ms: 15000 });
  await expect(badge(page)).toHaveAttribute("data-kind", "read");
  const clicked = Date.now();
  await page.getByRole("radio", { name: "off" }).click();
  expect(await waiting).toEqual({ status: 404, body: { error: "unknown_or_off" } });
  expect(Date.now() - clicked).toBeLessThan(3000);
});

test("the settings panel copies ready agent configurations with the token, under a warning", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const token = await enableMcp("read");
  await openShell(page);
  await page.locator("#wterm-gear").click();
  const panel = page.locator("#wterm-settings");
  await expect(panel).toContainText("a secret");
  const copied = async (name: string) => {
    await panel.getByRole("button", { name }).click();
    return page.evaluate(() => navigator.clipboard.readText());
  };
  expect(await copied("Copy the claude mcp add command")).toBe(
    `claude mcp add --transport http wterm ${relay.url}/mcp --header "Authorization: Bearer ${token}"`,
  );
  expect(JSON.parse(await copied("Copy the .mcp.json entry (HTTP)"))).toEqual({
    mcpServers: { wterm: { type: "http", url: `${relay.url}/mcp`, headers: { Authorization: `Bearer ${token}` } } },
  });
  expect(JSON.parse(await copied("Copy the .mcp.json entry (stdio)"))).toEqual({
    mcpServers: { wterm: { command: "wterm-relay", args: ["mcp"], env: { WTERM_MCP_URL: relay.url, WTERM_MCP_TOKEN: token } } },
  });
  await expect(panel).toContainText("copied (it holds the MCP token)");
  // The token is never whole on screen.
  expect(await page.evaluate(() => document.body.innerText)).not.toContain(token);
});

test("a #session=N link opens that session; the token in the same fragment still works", async ({ page, context }) => {
  const first = await openShell(page);
  await page.keyboard.type("echo first-$((1+1))\n");
  await expect.poll(() => page.evaluate(() => document.body.innerText)).toContain("first-2");

  // A fresh tab given the token and the session in the fragment.
  const other = await context.newPage();
  await other.goto(`${relay.url}/#token=${relay.token}&session=${first}`);
  await expect.poll(() => other.evaluate(() => document.body.innerText)).toContain("first-2");
  expect(new URL(other.url()).search).toBe(`?session=${first}`);
  expect(new URL(other.url()).hash).toBe("");

  // A second shell, then a watch link (no token: this tab has it) to the first in the same tab.
  await other.goto(`${relay.url}/`);
  await waitForPrompt(other);
  await expect.poll(() => other.url()).toMatch(/\?session=\d+$/);
  const second = Number(new URL(other.url()).searchParams.get("session"));
  expect(second).not.toBe(first);
  await other.evaluate((n) => { location.hash = `session=${n}`; }, first);
  await expect.poll(() => other.url()).toBe(`${relay.url}/?session=${first}`);
  await expect.poll(() => other.evaluate(() => document.body.innerText)).toContain("first-2");
});

test("the settings panel's agent log shows what an MCP client did in this window, and refusals", async ({ page }) => {
  const token = await enableMcp("readwrite");
  const id = await openShell(page);
  expect((await mcpPost(token, "/mcp/input", { id, data: "echo logged-$((2*4))\r" })).status).toBe(200);
  expect((await mcpPost(token, "/mcp/keys", { id, keys: ["NotAKey"] })).status).toBe(400);
  await page.locator("#wterm-gear").click();
  const log = page.getByRole("list", { name: "Agent log" });
  await expect(log).toContainText("send_input → 200");
  await expect(log).toContainText("echo logged-$((2*4))");
  await expect(log).toContainText("send_keys → 400 bad_keys");
  // Only this window's records, and never the token.
  expect(await log.innerText()).not.toContain(token);
  await mcpPost(token, "/mcp/reset", { id });
  await page.getByRole("button", { name: "Refresh the agent log" }).click();
  await expect(log).toContainText("reset");
});

// Who ran each command (spec agent-parity.md "Authors"), on the relay's page with real bash and
// native WebMCP: the page's own agent, the person at the keyboard and an MCP client through the
// relay are each named in the page's state (lastCommand.submittedBy) and in the relay's
// (/mcp/terminals), and the rows of commands an agent ran carry a mark whose title says who,
// what, when and how it ended; the agent bar names the agent typing.
import { test, expect, type Page } from "@playwright/test";
import { startRelay, waitForPrompt, type Relay } from "./relay";

let relay: Relay;
test.beforeAll(async () => { relay = await startRelay(); });
test.afterAll(async () => { await relay?.stop(); });

async function enableMcp(): Promise<string> {
  const r = await fetch(`${relay.url}/mcp/config`, {
    method: "POST",
    headers: { Authorization: `Bearer ${relay.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ enabled: true, generate: true, default_mode: "readwrite" }),
  });
  expect(r.status).toBe(200);
  return (await r.json()).token;
}

async function mcp(token: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(`${relay.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(r.status, await r.clone().text()).toBe(200);
  return r.json();
}

/** The relay's last finished command of window `id`, once it is `command`. */
async function relayLast(token: string, id: number, command: string): Promise<any> {
  let last: any;
  await expect
    .poll(async () => {
      const rows = await mcp(token, "GET", "/mcp/terminals");
      last = rows.find((r: any) => r.id === id)?.shell?.last_command;
      return last?.command;
    }, { timeout: 15_000 })
    .toBe(command);
  return last;
}

/** `[text, data-by, title]` of every row of the screen. */
const rows = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll(".wterm-row")).map((r) => [
      (r.textContent ?? "").trimEnd(),
      r.getAttribute("data-by"),
      r.getAttribute("title"),
    ]),
  );

/** The row whose text is `text`, once it has been drawn. */
async function rowOf(page: Page, text: string): Promise<(string | null)[]> {
  await expect.poll(async () => (await rows(page)).some(([t]) => t === text)).toBe(true);
  return (await rows(page)).find(([t]) => t === text)!;
}

test("the page's agent, the person and an MCP client are each named, and agents' commands are marked", async ({ page }) => {
  const token = await enableMcp();
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await expect.poll(() => page.url()).toMatch(/\?session=\d+$/);
  const id = Number(new URL(page.url()).searchParams.get("session"));

  // The page's own agent.
  const r = (await page.webmcp.callTool("type_in_terminal", { text: "echo by-agent-$((1+2))", submit: true, waitForCommand: true })) as any;
  expect(r.error, JSON.stringify(r)).toBeUndefined();
  expect(r.command.submittedBy).toEqual({ kind: "page_agent", name: "type_in_terminal" });
  expect((await relayLast(token, id, "echo by-agent-$((1+2))")).submitted_by).toEqual({ kind: "page_agent", name: "type_in_terminal" });
  // The marks follow the screen at its next frame: wait for them.
  const title = async (text: string) => (await rowOf(page, text))[2];
  await expect.poll(() => title("$ echo by-agent-$((1+2))")).toMatch(/^An agent in this page \(type_in_terminal\) ran echo by-agent-\$\(\(1\+2\)\) at .+: exit 0$/);
  expect((await rowOf(page, "$ echo by-agent-$((1+2))"))[1]).toBe("page_agent");
  expect((await rowOf(page, "by-agent-3"))[1]).toBe("page_agent");

  // The person, with the real keyboard: named, and the row is not marked.
  await page.locator(".wterm").first().click();
  await page.keyboard.type("echo by-person");
  await page.keyboard.press("Enter");
  expect((await relayLast(token, id, "echo by-person")).submitted_by).toEqual({ kind: "person" });
  const state = ((await page.webmcp.callTool("list_terminals", {})) as any).terminals[0];
  expect(state.lastCommand).toMatchObject({ command: "echo by-person", submittedBy: { kind: "person" } });
  expect((await rowOf(page, "$ echo by-person"))[1]).toBeNull();

  // An MCP client through the relay's routes: named in its answer and marked on the page; the
  // agent bar names it while it types.
  const run = await mcp(token, "POST", "/mcp/run", { id, command: "echo by-mcp" });
  expect(run.submitted_by).toEqual({ kind: "route_caller", name: "unscoped" });
  await expect.poll(() => title("$ echo by-mcp")).toMatch(/^An MCP client ran echo by-mcp at .+: exit 0$/);
  expect((await rowOf(page, "$ echo by-mcp"))[1]).toBe("route_caller");
  // The bar's text fades after a flash; its title keeps the last activity.
  await expect(page.locator("#agent-what")).toHaveAttribute("title", /^An MCP client typed into this terminal \(run_command\) at /);
});

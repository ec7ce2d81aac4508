// Secret prompts on the relay's page (spec webmcp-tools.md "Secret prompts"): a real bash's
// `read -s` turns the PTY's echo off; the relay tells the page, whose WebMCP typing tools refuse
// (a lone Ctrl+C aside), whose waitForCommand ends, and which shows the person a notice. The
// person's keyboard still types the secret, and no agent read holds it.
import { test, expect, type Page } from "@playwright/test";
import { startRelay, waitForPrompt, type Relay } from "./relay";

let relay: Relay;
test.beforeAll(async () => { relay = await startRelay(); });
test.afterAll(async () => { await relay?.stop(); });

/** What the person types at the prompt; made up, and nowhere else in the test's input. */
const SECRET = "Sw0rdfish-person-42";

async function openShell(page: Page): Promise<void> {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
}

const call = async (page: Page, tool: string, args: object): Promise<any> =>
  (await page.webmcp.callTool(tool, args)) as any;
const notice = (page: Page) => page.locator(".wterm-secret");

test("at read -s the page's agent cannot type, the person sees a notice and types the secret", async ({ page }) => {
  await openShell(page);
  await expect(notice(page)).toHaveCount(0);
  await page.keyboard.type("read -s -p 'Secret: ' pw; echo; echo got-${#pw}\n");
  await expect(notice(page)).toBeVisible();
  await expect(notice(page)).toHaveAttribute("role", "status");
  await expect(notice(page)).toContainText("Agents cannot type it or see it");

  const list = await call(page, "list_terminals", {});
  expect(list.terminals[0]).toMatchObject({ secretPrompt: true, secretInput: false });
  // Every typing tool is refused, and nothing reaches the prompt.
  const typed = await call(page, "type_in_terminal", { text: "agent-guess", submit: true });
  expect(typed.error).toMatch(/^secret_prompt: the terminal is waiting for a secret/);
  expect(typed.error).toContain("press_terminal_keys");
  const pressed = await call(page, "press_terminal_keys", { keys: ["a", "Enter"] });
  expect(pressed.error).toMatch(/^secret_prompt: /);
  const both = await call(page, "press_terminal_keys", { keys: ["Ctrl+C", "x"] });
  expect(both.error).toMatch(/^secret_prompt: /);
  expect((await call(page, "list_terminals", {})).terminals[0].inputSeq).toBe(0);

  // The person types it with the keyboard: the prompt ends, the agent sees only its length.
  await page.keyboard.type(`${SECRET}\n`);
  await expect(notice(page)).toBeHidden();
  const read = await call(page, "read_terminal", { waitFor: `got-${SECRET.length}`, timeoutMs: 15000 });
  expect(read.timedOut).toBeUndefined();
  expect(read.secretPrompt).toBeUndefined();
  expect(JSON.stringify(read)).not.toContain(SECRET);
  expect(JSON.stringify(read)).not.toContain("agent-guess");
});

test("a waitForCommand ends at a password prompt, and the agent's Ctrl+C cancels it", async ({ page }) => {
  await openShell(page);
  const started = Date.now();
  const r = await call(page, "type_in_terminal", {
    text: "read -s -p 'Password: ' pw",
    submit: true,
    waitForCommand: true,
    timeoutMs: 60000,
  });
  expect(r.submitted).toBe(true);
  expect(r.secretPrompt).toBe(true);
  expect(r.timedOut).toBeUndefined();
  expect(Date.now() - started).toBeLessThan(30000);
  await expect(notice(page)).toBeVisible();
  // A lone Ctrl+C passes: the agent cancels the prompt it started.
  const c = await call(page, "press_terminal_keys", { keys: ["Ctrl+C"], waitForCommand: true, timeoutMs: 15000 });
  expect(c.error).toBeUndefined();
  expect(c.timedOut).toBeUndefined();
  await expect(notice(page)).toBeHidden();
  expect((await call(page, "list_terminals", {})).terminals[0].secretPrompt).toBeUndefined();
});

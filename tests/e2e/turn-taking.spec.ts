// Turn-taking on the relay's page (spec webmcp-tools.md "Turn-taking"): the person's keys typed
// while the page's agent has typed its line and its Enter is pending are held and go right after
// that Enter, so the agent's command runs exactly as sent (a real bash, real Chromium, the
// Playwright keyboard); a Ctrl+C from the person is never held and cancels the pending Enter.
import { test, expect, type Page } from "@playwright/test";
import { startRelay, waitForPrompt, type Relay } from "./relay";

let relay: Relay;
test.beforeAll(async () => { relay = await startRelay(); });
test.afterAll(async () => { await relay?.stop(); });

/** The last non-empty row of the page's screen. */
const lastRow = (page: Page) =>
  page.evaluate(() => {
    const rows = Array.from(document.querySelectorAll(".wterm-row")).map((r) => (r.textContent ?? "").trimEnd());
    return rows.filter((r) => r.length > 0).pop() ?? "";
  });

/** Starts an agent's call in the page (not awaited), through Playwright's WebMCP. */
const start = (page: Page, tool: string, args: object): Promise<any> => page.webmcp.callTool(tool, args) as Promise<any>;

test("a person typing during the agent's Enter gap, 50 times: the agent's command runs exactly as sent", async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  let typeahead = 0;
  for (let i = 0; i < 50; i++) {
    const line = `echo agent-${i}-$((6*7))`;
    const call = start(page, "type_in_terminal", { text: line, submit: true, waitForCommand: true, timeoutMs: 30000 });
    // The person types as soon as the agent's text is on the line, inside its 150 ms Enter gap.
    await page.waitForFunction((l) => document.body.innerText.includes(l), line, { polling: "raf" });
    await page.keyboard.type("#p");
    const r = await call;
    expect(r.error, JSON.stringify(r)).toBeUndefined();
    expect(r.command.command).toBe(line);
    expect(r.command.exitCode).toBe(0);
    // The tty echoes keys that arrive while the command runs into its output: the answer marks it.
    if (r.typeahead) {
      typeahead++;
      expect(r.command.output).toContain(`agent-${i}-42`);
    } else {
      expect(r.command.output).toBe(`agent-${i}-42`);
    }
    // The person's keys went after the Enter: they stand on the next prompt's line. When they
    // arrived while the command ran, the tty echoed them before the prompt too (bash's readline
    // then redraws them after it), so the row reads "#p$ #p".
    await expect.poll(() => lastRow(page)).toMatch(/^(#p)?\$ #p$/);
    await page.keyboard.press("Control+U");
    await expect.poll(() => lastRow(page)).toMatch(/^(#p)?\$$/);
  }
  console.log(`turn-taking: 50 agent commands ran as sent; the person's keys were typeahead in ${typeahead} answers`);
  expect(typeahead).toBeGreaterThan(0);
});

test("a person's Ctrl+C during the agent's Enter gap cancels the Enter and is not held", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  const line = "echo never-$((2*3))";
  const call = start(page, "type_in_terminal", { text: line, submit: true });
  await page.waitForFunction((l) => document.body.innerText.includes(l), line, { polling: "raf" });
  await page.keyboard.press("Control+C");
  const r = await call;
  // The Enter may have been pressed before the Ctrl+C arrived under load; then the line ran.
  if (r.error) {
    expect(r.error).toMatch(/^person_interrupted: /);
    const state = (await start(page, "list_terminals", {})).terminals[0];
    expect(state.lastInput).toMatchObject({ tool: "type_in_terminal", enter: "cancelled" });
    await waitForPrompt(page);
    expect(await page.evaluate(() => document.body.innerText)).not.toContain("never-6");
  } else {
    console.log("turn-taking: the Enter went before the Ctrl+C (a loaded machine); nothing to check");
  }
});

test("an agent's Enter onto the person's half-typed line is refused on every tool that submits, nothing sent", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.locator(".wterm").first().click();
  await page.keyboard.type("echo person-half");
  const refused = async () => {
    for (const [tool, args] of [
      ["type_in_terminal", { text: "echo agent-line", submit: true }],
      ["type_in_terminal", { text: "agent-line\r" }],
      ["press_terminal_keys", { keys: ["Enter"] }],
      ["press_terminal_keys", { keys: ["Ctrl+J"] }],
    ] as const) {
      const r = await start(page, tool, args);
      expect(r.error, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(r)}`).toMatch(/^person_typing: .*nothing was sent: .*half-typed/);
    }
  };
  // At once, before the echo may be back.
  await refused();
  // Long after the last key (the clock passes the 1500 ms window), their line on the prompt
  // still holds it.
  await expect.poll(() => lastRow(page)).toBe("$ echo person-half");
  await page.waitForTimeout(1700);
  await refused();
  expect(await lastRow(page)).toBe("$ echo person-half");
  const state = (await start(page, "list_terminals", {})).terminals[0];
  expect(state.inputSeq ?? 0, "no agent input went out").toBe(0);
  // The agent's other keys first (End, a space) do not make the line the agent's.
  expect((await start(page, "press_terminal_keys", { keys: ["End"] })).error).toBeUndefined();
  expect((await start(page, "press_terminal_keys", { keys: ["Enter"] })).error).toMatch(/^person_typing: /);
  expect((await start(page, "type_in_terminal", { text: " " })).error).toBeUndefined();
  expect((await start(page, "type_in_terminal", { text: "", submit: true })).error).toMatch(/^person_typing: /);
  await expect.poll(() => lastRow(page)).toBe("$ echo person-half");
  // Keys without Enter go: the agent clears the line (its user agreed), then runs its command.
  const cleared = await start(page, "press_terminal_keys", { keys: ["Ctrl+U"] });
  expect(cleared.error).toBeUndefined();
  const r = await start(page, "type_in_terminal", { text: "echo agent-$((6*7))", submit: true, waitForCommand: true });
  expect(r.error, JSON.stringify(r)).toBeUndefined();
  expect(r.command).toMatchObject({ command: "echo agent-$((6*7))", exitCode: 0, output: "agent-42" });
});

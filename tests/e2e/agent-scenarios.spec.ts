// The agent scenarios of tests/scenarios/tasks.mjs through the page's WebMCP tools
// (list_terminals, read_terminal, type_in_terminal, press_terminal_keys; Chromium's native
// WebMCP through page.webmcp) against the real relay with real bash, vim, python3 and less.
// Each step is one tool call (the mapping below); prints each scenario's calls, then a table
// (task, surface, calls, budget, result). The same scenarios through the relay's MCP server:
// tests/agent/scenarios.test.mjs.
//
// The page has no tool that opens a terminal: a scenario's `launch` is the person opening a
// second relay page (a second shell), no tool call; the agent then calls that page's tools.
//
// Run: bash scripts/build.sh && npx playwright test tests/e2e/agent-scenarios.spec.ts
import { test, expect, type Page } from "@playwright/test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRelay, waitForPrompt, type Relay } from "./relay";
// @ts-ignore: plain ES modules, shared with the MCP runner.
import { SCENARIOS } from "../scenarios/tasks.mjs";
// @ts-ignore
import { play, table, unmapped } from "../scenarios/engine.mjs";

/** How long a new page's shell may take to show its first prompt, in milliseconds. */
const PROMPT_MS = 15_000;

let relay: Relay;
const results: any[] = [];
// Playwright replaces its worker after a failed test, so the rows of one run are kept in a file
// named after the runner's pid (every worker's parent) and the table covers all of them.
const ROWS_FILE = join(tmpdir(), `wterm-agent-scenarios-${process.ppid}.json`);

test.beforeAll(async () => {
  // The scenarios' files are in the shell's HOME, where its shells start.
  relay = await startRelay([], { shellsInHome: true });
});

test.afterAll(async () => {
  await relay?.stop();
  const names: string[] = SCENARIOS.map((s: any) => s.name);
  const earlier: any[] = existsSync(ROWS_FILE) ? JSON.parse(readFileSync(ROWS_FILE, "utf8")) : [];
  const rows = [...earlier, ...results].sort((a, b) => names.indexOf(a.task) - names.indexOf(b.task));
  const complete = names.every((t) => rows.some((r) => r.task === t));
  if (complete) rmSync(ROWS_FILE, { force: true });
  else writeFileSync(ROWS_FILE, JSON.stringify(rows));
  console.log(table(complete ? "agent scenarios through the page's WebMCP tools:" : `agent scenarios so far (${rows.length} of ${names.length}):`, rows));
});

type Input = Record<string, unknown>;

/** The page's answer, converted to the scenarios' shape (tasks.mjs). */
function answerOf(a: any): any {
  if (a?.error) return { error: a.error };
  const c = a.command;
  return {
    timedOut: a.timedOut === true,
    text: a.text,
    rows: a.rows,
    alternate: a.alternateScreen,
    typeahead: a.typeahead,
    seq: a.seq,
    inputSeq: a.inputSeq,
    lastInput: a.lastInput,
    lastCommand: a.lastCommand && { command: a.lastCommand.command, exitCode: a.lastCommand.exitCode },
    command: c && {
      command: c.command,
      exitCode: c.exitCode,
      output: c.output,
      tail: c.outputTail,
      rows: c.outputRows,
      rowsLeftOut: c.rowsLeftOut,
      running: c.running === true,
    },
    raw: a,
  };
}

/** The scenario vocabulary's wait, in the page's argument names. */
function waits(w: any = {}): Input {
  if (w.regex !== undefined) throw unmapped("the page's tools have no regular-expression wait (read_terminal takes waitFor text)");
  const out: Input = {};
  if (w.text !== undefined) out.waitFor = w.text;
  if (w.idleMs !== undefined) out.waitForIdleMs = w.idleMs;
  if (w.command) out.waitForCommand = true;
  if (w.newOnly) out.newOutputOnly = true;
  if (w.timeoutMs !== undefined) out.timeoutMs = w.timeoutMs;
  return out;
}

/** Opens the relay page (a new shell) and waits for its prompt on the screen. */
async function openShell(page: Page): Promise<void> {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page, PROMPT_MS);
}

/** The WebMCP surface: terminal 1 is the test's page, terminal 2 a second page the person opens. */
function surface(page: Page) {
  const pages = [page];
  const target = (step: any) => pages[(step.terminal ?? 1) - 1];
  return {
    name: "WebMCP",
    caps: { typeahead: true },
    async open({ fresh }: { fresh: boolean }) {
      if (fresh) {
        // Only until the page registered its tools: the scenario's call comes before the prompt.
        await page.goto(relay.pageUrl());
        await expect.poll(async () => (await page.webmcp.tools()).map((t: any) => t.name), { timeout: PROMPT_MS }).toContain("type_in_terminal");
        return { rows: undefined, inputSeq: 0 };
      }
      await openShell(page);
      let state: any;
      await expect
        .poll(async () => {
          state = ((await page.webmcp.callTool("list_terminals", {})) as any).terminals[0];
          return state.shellIntegration?.state;
        }, { timeout: PROMPT_MS })
        .toBe("input");
      return { rows: state.rows, inputSeq: state.inputSeq };
    },
    async call(step: any) {
      let tool: string, args: Input;
      if (step.launch) {
        const second = await page.context().newPage();
        await openShell(second);
        pages.push(second);
        return { tool: null, args: "the person opens a second relay page (a new shell)", answer: {} };
      }
      if (step.run !== undefined) {
        [tool, args] = ["type_in_terminal", { text: step.run, submit: true, waitForCommand: true, ...(step.timeoutMs && { timeoutMs: step.timeoutMs }) }];
      } else if (step.type !== undefined) {
        [tool, args] = ["type_in_terminal", { text: step.type, ...(step.submit && { submit: true }), ...waits(step.wait) }];
      } else if (step.keys) {
        [tool, args] = ["press_terminal_keys", { keys: step.keys, ...waits(step.wait) }];
      } else if (step.read) {
        [tool, args] = ["read_terminal", waits(step.wait)];
      } else if (step.list) {
        [tool, args] = ["list_terminals", {}];
        const a = (await target(step).webmcp.callTool(tool, args)) as any;
        return { tool, args, answer: a.error ? a : answerOf(a.terminals[0]) };
      } else {
        throw unmapped(`no WebMCP mapping for the step ${JSON.stringify(step)}`);
      }
      return { tool, args, answer: answerOf(await target(step).webmcp.callTool(tool, args)) };
    },
    async person({ person, after }: { person: string; after: string }) {
      await page.waitForFunction(
        (t) => Array.from(document.querySelectorAll(".wterm-row")).map((r) => r.textContent ?? "").join("\n").includes(t),
        after,
        { timeout: PROMPT_MS, polling: 20 },
      );
      await page.keyboard.type(person);
    },
    async close() {
      for (const p of pages.slice(1)) await p.close();
    },
  };
}

for (const scenario of SCENARIOS) {
  test(scenario.name, async ({ page }) => {
    const row = await play(scenario, surface(page), relay.home);
    results.push(row);
    expect(row.failures, `${scenario.name}:\n${row.failures.join("\n")}`).toEqual([]);
  });
}

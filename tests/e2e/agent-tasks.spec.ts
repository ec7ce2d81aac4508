// Agent tasks through the page's WebMCP tools (list_terminals, read_terminal, type_in_terminal,
// press_terminal_keys, via Chromium's native WebMCP: page.webmcp) against the real relay with
// real bash, vim, python3 and less: the seven everyday tasks of issue 17, each counting its tool
// calls after the terminal is open (its shell has reported its prompt), against a budget of 2
// (vim: 3). The same tasks through the relay's MCP server are tests/agent/tasks.test.mjs. Prints
// a table (task, surface, calls, budget, result) at the end.
//
// A task that needs more calls than its budget still runs to the end (so the count is real),
// then fails naming the tool capability whose absence cost the extra call.
//
// Run: bash wterm-wasm/build.sh && cargo build -p wterm-relay --release &&
//      npx playwright test tests/e2e/agent-tasks.spec.ts
import { test, expect, type Page } from "@playwright/test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRelay, waitForPrompt, type Relay } from "./relay";

interface Row {
  task: string;
  calls: number | "-";
  budget: number;
  result: string;
  note?: string;
}

let relay: Relay;
const results: Row[] = [];
const TASKS: string[] = [];
// Playwright replaces its worker after a failed test, so the rows of one run are kept in a file
// named after the runner's pid (every worker's parent) and the table covers all of them.
const ROWS_FILE = join(tmpdir(), `wterm-agent-tasks-${process.ppid}.json`);

test.beforeAll(async () => {
  relay = await startRelay();
});

test.afterAll(async () => {
  await relay?.stop();
  const earlier: Row[] = existsSync(ROWS_FILE) ? JSON.parse(readFileSync(ROWS_FILE, "utf8")) : [];
  const rows = [...earlier, ...results].sort((a, b) => TASKS.indexOf(a.task) - TASKS.indexOf(b.task));
  const complete = TASKS.every((t) => rows.some((r) => r.task === t));
  if (complete) rmSync(ROWS_FILE, { force: true });
  else writeFileSync(ROWS_FILE, JSON.stringify(rows));
  const line = (cells: unknown[]) => "| " + cells.join(" | ") + " |";
  console.log(
    [
      "",
      complete ? "agent tasks through the page's WebMCP tools:" : `agent tasks so far (${rows.length} of ${TASKS.length}):`,
      line(["task", "surface", "calls", "budget", "result"]),
      line(["---", "---", "---", "---", "---"]),
      ...rows.map((r) => line([r.task, "WebMCP", r.calls, r.budget, r.result])),
      ...rows.filter((r) => r.note).map((r) => `note (${r.task}): ${r.note}`),
    ].join("\n"),
  );
});

type Input = Record<string, unknown>;

/** The agent's side: every tool call goes through `call` and is counted. */
class Agent {
  calls = 0;
  /** Set by a task that cannot stay within its budget: the tool capability it lacks. */
  missing?: string;
  /** How the task stayed within its budget when the obvious field would not have. */
  note?: string;
  constructor(readonly page: Page) {}
  async call(tool: string, input: Input = {}): Promise<any> {
    this.calls++;
    const r = (await this.page.webmcp.callTool(tool, input)) as any;
    expect(r?.error, `${tool} ${JSON.stringify(input)} answered an error`).toBeUndefined();
    return r;
  }
}

/** The relay's page with a new shell, open once the shell reported its prompt (OSC 133):
 * `shellIntegration` is in the state. These calls are not counted. */
async function open(page: Page): Promise<void> {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await expect
    .poll(async () => ((await page.webmcp.callTool("list_terminals", {})) as any).terminals[0].shellIntegration?.state, {
      timeout: 15_000,
    })
    .toBe("input");
}

/** The answer without the bulk of a command's output, for assertion messages. */
const brief = (r: any) => JSON.stringify({ ...r, command: r?.command && { ...r.command, output: undefined, outputTail: undefined } });

function task(name: string, budget: number, body: (agent: Agent) => Promise<void>): void {
  TASKS.push(name);
  test(name, async ({ page }) => {
    const row: Row = { task: name, calls: "-", budget, result: "fail" };
    results.push(row);
    await open(page);
    const agent = new Agent(page);
    try {
      await body(agent);
      row.calls = agent.calls;
      if (agent.calls > budget) {
        row.result = `fail: over budget`;
      }
      expect(
        agent.calls,
        `${name}: ${agent.calls} tool calls, budget ${budget}` +
          (agent.missing ? `; missing capability: ${agent.missing}` : ""),
      ).toBeLessThanOrEqual(budget);
      row.result = "pass";
    } finally {
      row.calls = agent.calls;
      row.note = agent.missing ? `missing capability: ${agent.missing}` : agent.note;
    }
  });
}

task("run a command and read its output", 2, async (agent) => {
  const r = await agent.call("type_in_terminal", {
    text: "printf 'alpha\\nbeta\\n' | wc -l",
    submit: true,
    waitForCommand: true,
    timeoutMs: 10_000,
  });
  expect(r.timedOut, brief(r)).toBeUndefined();
  expect(r.command).toMatchObject({ command: "printf 'alpha\\nbeta\\n' | wc -l", exitCode: 0 });
  expect(r.command.output.trim()).toBe("2");
});

task("edit a file in vim", 3, async (agent) => {
  const file = join(relay.home, "agent-notes.txt");
  // vim's empty buffer: its `~` rows, on the alternate screen it switched to after Enter.
  const up = await agent.call("type_in_terminal", {
    text: `vim -u NONE -N ${file}`,
    submit: true,
    waitFor: "~",
    newOutputOnly: true,
    timeoutMs: 10_000,
  });
  expect(up.timedOut, up.text).toBeUndefined();
  expect(up.alternateScreen).toBe(true);
  const keys = ["i", ..."written by an agent"].map((k) => (k === " " ? "Space" : k));
  // vim is the running command: the keys, then its end, in one call.
  const done = await agent.call("press_terminal_keys", {
    keys: [...keys, "Escape", ":", "w", "q", "Enter"],
    waitForCommand: true,
    timeoutMs: 10_000,
  });
  expect(done.timedOut, brief(done)).toBeUndefined();
  expect(done.command).toMatchObject({ command: `vim -u NONE -N ${file}`, exitCode: 0 });
  expect(done.alternateScreen).toBe(false);
  expect(readFileSync(file, "utf8")).toBe("written by an agent\n");
});

task("stop a runaway yes", 2, async (agent) => {
  const running = await agent.call("type_in_terminal", { text: "yes", submit: true, waitForCommand: true, timeoutMs: 500 });
  expect(running.timedOut, brief(running)).toBe(true);
  expect(running.command).toMatchObject({ command: "yes", running: true });
  // press_terminal_keys takes read_terminal's waits: Ctrl+C, then how `yes` ended, in one call.
  const stopped = await agent.call("press_terminal_keys", { keys: ["Ctrl+C"], waitForCommand: true, timeoutMs: 10_000 });
  expect(stopped.timedOut, brief(stopped)).toBeUndefined();
  expect(stopped.command).toMatchObject({ command: "yes", exitCode: 130 });
});

task("compute in a Python REPL", 2, async (agent) => {
  const repl = await agent.call("type_in_terminal", {
    text: "python3 -q",
    submit: true,
    waitFor: ">>>",
    newOutputOnly: true,
    timeoutMs: 10_000,
  });
  expect(repl.timedOut, repl.text).toBeUndefined();
  expect(repl.runningCommand).toMatchObject({ command: "python3 -q" });
  // A line typed to the REPL starts no shell command: newOutputOnly counts the rows below it.
  const out = await agent.call("type_in_terminal", {
    text: "print(2**100)",
    submit: true,
    waitFor: "1267650600228229401496703205376",
    newOutputOnly: true,
    timeoutMs: 10_000,
  });
  expect(out.timedOut, out.text).toBeUndefined();
  expect(out.text).toMatch(/^1267650600228229401496703205376$/m);
});

task("page through less", 2, async (agent) => {
  // less fills all but its last row with numbers, then shows its `:` prompt there.
  const first = await agent.call("type_in_terminal", {
    text: "seq 1000 | less",
    submit: true,
    waitFor: "\n:",
    newOutputOnly: true,
    timeoutMs: 10_000,
  });
  expect(first.timedOut, first.text).toBeUndefined();
  expect(first.alternateScreen).toBe(true);
  const page = first.rows - 1;
  expect(first.text.split("\n").slice(0, page)).toEqual(Array.from({ length: page }, (_, i) => String(i + 1)));
  // Space is a printable character: typed, with a wait for the last number of the next page
  // (press_terminal_keys ["Space"] answers no screen: it would take a third call to read it).
  const last = String(2 * page);
  expect(first.text).not.toContain(last);
  const next = await agent.call("type_in_terminal", { text: " ", waitFor: last, timeoutMs: 10_000 });
  expect(next.timedOut, next.text).toBeUndefined();
  expect(next.text.split("\n").slice(0, page)).toEqual(Array.from({ length: page }, (_, i) => String(page + i + 1)));
});

task("answer a read -p prompt", 2, async (agent) => {
  const asked = await agent.call("type_in_terminal", {
    text: "read -p 'Continue? ' x; echo got-$x",
    submit: true,
    waitFor: "Continue?",
    newOutputOnly: true,
    timeoutMs: 10_000,
  });
  expect(asked.timedOut, asked.text).toBeUndefined();
  expect(asked.text).toMatch(/\nContinue\?$/);
  // The line answers the running command (read -p): waitForCommand waits for that command.
  const answered = await agent.call("type_in_terminal", { text: "yes", submit: true, waitForCommand: true, timeoutMs: 10_000 });
  expect(answered.timedOut, answered.text).toBeUndefined();
  expect(answered.command).toMatchObject({ command: "read -p 'Continue? ' x; echo got-$x", exitCode: 0 });
  expect(answered.command.output).toMatch(/got-yes/);
});

task("learn the exit code of the last command", 2, async (agent) => {
  // What a person ran before the agent looked (setup, not counted).
  const setup = (await agent.page.webmcp.callTool("type_in_terminal", {
    text: "(exit 7)",
    submit: true,
    waitForCommand: true,
    timeoutMs: 10_000,
  })) as any;
  expect(setup.command, brief(setup)).toMatchObject({ exitCode: 7 });
  const list = await agent.call("list_terminals");
  expect(list.terminals[0].lastCommand).toMatchObject({ command: "(exit 7)", exitCode: 7 });
});

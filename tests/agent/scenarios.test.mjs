// The agent scenarios of tests/scenarios/tasks.mjs through the relay's MCP server: the official
// MCP TypeScript SDK against the real relay, real bash, vim, python3 and less. Each step is one
// MCP tool call (the mapping below); prints each scenario's calls, then a table (task, surface,
// calls, budget, result). The same scenarios on the page: tests/e2e/agent-scenarios.spec.ts.
//
// The person of scenario 12 types at a real Chromium page (Debian's, as Playwright's tests use)
// attached to the window the agent launched.
//
// Run: cargo build -p wterm-relay --release && bash wterm-wasm/build.sh &&
//      node --test tests/agent/
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "@playwright/test";

import { startRelay, httpClient } from "../mcp/harness.mjs";
import { SCENARIOS } from "../scenarios/tasks.mjs";
import { play, table, unmapped } from "../scenarios/engine.mjs";

/** The launched terminals' size: wider than any command line of the scenarios. */
const SIZE = { cols: 100, rows: 30 };
/** How long a new terminal's shell may take to show its first prompt, in milliseconds. */
const PROMPT_MS = 15_000;

let relay;
let browser;
const rows = [];

before(async () => {
  relay = await startRelay();
});

after(async () => {
  await browser?.close();
  await relay?.stop();
  console.log(table("agent scenarios through the relay's MCP server:", rows));
});

/** The MCP tool call's JSON answer; an `isError` result becomes `{error}`. */
async function callTool(c, name, args) {
  const r = await c.client.callTool({ name, arguments: args });
  if (r.isError) return { error: r.content?.[0]?.text ?? "isError without text" };
  const json = JSON.parse(r.content[0].text);
  // A read's answer (read_screen, or an input tool that waited) has the screen on its own.
  if (r.content[1]) json.text = r.content[1].text;
  return json;
}

/** A relay command answer (run_command's, or `command` after `wait_for_command`), converted. */
function commandOf(a) {
  if (!a) return undefined;
  return {
    command: a.command,
    exitCode: a.exit_code ?? undefined,
    output: a.output,
    tail: a.output_tail,
    rows: a.rows,
    rowsLeftOut: a.rows_left_out,
    running: a.finished === false,
  };
}

/** A read answer (read_screen, a waiting send_input/send_keys, a list_terminals row), converted. */
function readOf(a) {
  if (a.error) return a;
  return {
    timedOut: a.matched === false || a.command?.finished === false,
    text: a.text,
    rows: a.rows,
    alternate: a.alt_screen,
    typeahead: a.typeahead,
    seq: a.seq,
    inputSeq: a.input_seq,
    lastInput: a.last_input,
    lastCommand: a.shell?.last_command && { command: a.shell.last_command.command, exitCode: a.shell.last_command.exit_code ?? undefined },
    command: commandOf(a.command),
    raw: a,
  };
}

/** The scenario vocabulary's wait, in the relay's argument names. */
function waits(w = {}) {
  const out = {};
  if (w.text !== undefined) out.wait_for_text = w.text;
  if (w.regex !== undefined) out.wait_for_regex = w.regex;
  if (w.idleMs !== undefined) out.wait_for_idle = w.idleMs;
  if (w.command) out.wait_for_command = true;
  if (w.newOnly) out.new_output = true;
  if (w.timeoutMs !== undefined) out.timeout_ms = w.timeoutMs;
  return out;
}

/** The MCP surface: one client, terminal 1 launched at the opening, terminal 2 by `launch`. */
function surface(c) {
  const ids = [];
  let page;
  /** Launches a window and waits (uncounted) for its shell's first prompt. */
  const launched = async (wait) => {
    const a = await callTool(c, "launch_terminal", { ...SIZE, cwd: relay.home });
    assert.ok(!a.error, a.error);
    if (!wait) return a.id;
    const start = Date.now();
    while (Date.now() - start < PROMPT_MS) {
      const row = (await callTool(c, "list_terminals", {})).terminals?.find((t) => t.id === a.id);
      if (row?.shell?.state === "input") return a.id;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`terminal ${a.id}: the shell did not show its first prompt in ${PROMPT_MS} ms`);
  };
  const id = (step) => ids[(step.terminal ?? 1) - 1];
  return {
    name: "MCP",
    caps: { typeahead: true },
    async open({ fresh, person }) {
      ids.push(await launched(!fresh));
      if (person) {
        // The person's page on the same window; it fits the window to the page.
        browser ??= await chromium.launch({
          executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
          args: ["--enable-features=WebMCP", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
        });
        page = await browser.newPage({ viewport: { width: 1000, height: 640 } });
        await page.goto(`${relay.url}/?session=${ids[0].split(":")[1]}#token=${relay.token}`);
        await page.waitForFunction(() => {
          const filled = Array.from(document.querySelectorAll(".wterm-row")).map((r) => (r.textContent ?? "").trim()).filter(Boolean);
          return filled.at(-1) === "$";
        }, undefined, { timeout: PROMPT_MS, polling: 50 });
      }
      if (fresh) return { rows: SIZE.rows, inputSeq: 0 };
      const row = (await callTool(c, "list_terminals", {})).terminals.find((t) => t.id === ids[0]);
      return { rows: row.rows, inputSeq: row.input_seq };
    },
    async call(step) {
      let tool, args;
      if (step.run !== undefined) {
        [tool, args] = ["run_command", { id: id(step), command: step.run, ...(step.timeoutMs && { timeout_ms: step.timeoutMs }) }];
        const a = await callTool(c, tool, args);
        const answer = a.error ? a : { timedOut: a.timed_out === true, command: commandOf(a), seq: a.seq, typeahead: a.typeahead, raw: a };
        return { tool, args, answer };
      }
      if (step.launch) {
        [tool, args] = ["launch_terminal", { ...SIZE, cwd: relay.home }];
        const a = await callTool(c, tool, args);
        if (!a.error) ids.push(a.id);
        return { tool, args, answer: a };
      }
      if (step.list) {
        [tool, args] = ["list_terminals", {}];
        const a = await callTool(c, tool, args);
        const row = a.terminals?.find((t) => t.id === id(step));
        return { tool, args, answer: a.error ? a : row ? readOf(row) : { error: `no row for ${id(step)}` } };
      }
      if (step.type !== undefined) [tool, args] = ["send_input", { id: id(step), data: step.type + (step.submit ? "\n" : ""), ...waits(step.wait) }];
      else if (step.keys) [tool, args] = ["send_keys", { id: id(step), keys: step.keys, ...waits(step.wait) }];
      else if (step.read) [tool, args] = ["read_screen", { id: id(step), ...waits(step.wait) }];
      else throw unmapped(`no MCP mapping for the step ${JSON.stringify(step)}`);
      return { tool, args, answer: readOf(await callTool(c, tool, args)) };
    },
    async person({ person, after }) {
      await page.waitForFunction((t) => Array.from(document.querySelectorAll(".wterm-row")).map((r) => r.textContent ?? "").join("\n").includes(t), after, {
        timeout: PROMPT_MS,
        polling: 20,
      });
      await page.keyboard.type(person);
    },
    async close() {
      await page?.close();
      await c.client.close();
    },
  };
}

for (const scenario of SCENARIOS) {
  test(scenario.name, async () => {
    const row = await play(scenario, surface(await httpClient(relay)), relay.home);
    rows.push(row);
    assert.equal(row.failures.length, 0, `${scenario.name}:\n${row.failures.join("\n")}`);
  });
}

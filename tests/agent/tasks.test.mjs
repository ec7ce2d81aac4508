// Agent tasks through the relay's MCP server (the official MCP TypeScript SDK against the real
// relay, real bash, vim, python3 and less): the seven everyday tasks of issue 17, each counting
// its tool calls after the terminal is open, against a budget of 2 (vim: 3). Prints a table
// (task, surface, calls, budget, result) at the end.
//
// Run: cargo build -p wterm-relay --release && node --test tests/agent/
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { startRelay, httpClient } from "../mcp/harness.mjs";

const results = [];
let relay;

before(async () => {
  relay = await startRelay();
});

after(async () => {
  await relay?.stop();
  const line = (cells) => "| " + cells.join(" | ") + " |";
  console.log(["", line(["task", "surface", "calls", "budget", "result"]), line(["---", "---", "---", "---", "---"]),
    ...results.map((r) => line([r.task, "MCP", r.calls, r.budget, r.result]))].join("\n"));
});

/** A new terminal whose shell reports its commands; the calls it takes are not counted. */
async function open(c) {
  const { id } = await c.call("launch_terminal", { cols: 100, rows: 30, cwd: relay.home });
  for (let i = 0; i < 400; i++) {
    const row = (await c.call("list_terminals", {})).terminals.find((t) => t.id === id);
    if (row?.shell?.state === "input") return id;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the shell never reached its prompt");
}

function task(name, budget, body) {
  test(name, async () => {
    const c = await httpClient(relay);
    const row = { task: name, calls: "-", budget, result: "fail" };
    results.push(row);
    try {
      const id = await open(c);
      c.calls = 0;
      await body(c, id);
      row.calls = c.calls;
      assert.ok(c.calls <= budget, `${name}: ${c.calls} calls, budget ${budget}`);
      row.result = "pass";
    } finally {
      if (row.calls === "-") row.calls = c.calls;
      await c.client.close();
    }
  });
}

task("run a command and read its output", 2, async (c, id) => {
  const a = await c.call("run_command", { id, command: "printf 'alpha\\nbeta\\n' | wc -l" });
  assert.equal(a.exit_code, 0, JSON.stringify(a));
  assert.equal(a.output.trim(), "2");
});

task("edit a file in vim", 3, async (c, id) => {
  const file = join(relay.home, "agent-notes.txt");
  const up = await c.call("send_input", { id, data: `vim -u NONE -N ${file}\n`, wait_for_regex: "(?m)^~", timeout_ms: 10_000 });
  assert.equal(up.matched, true, up.text);
  const keys = ["i", ..."written by an agent", "Esc", ":", "w", "q", "Enter"];
  const done = await c.call("send_keys", { id, keys, wait_for_command: true, timeout_ms: 10_000 });
  assert.equal(done.command.exit_code, 0, JSON.stringify(done.command));
  assert.equal(readFileSync(file, "utf8"), "written by an agent\n");
});

task("stop a runaway yes", 2, async (c, id) => {
  const running = await c.call("run_command", { id, command: "yes", timeout_ms: 300 });
  assert.equal(running.timed_out, true, JSON.stringify({ ...running, output: undefined, output_tail: undefined }));
  const stopped = await c.call("send_keys", { id, keys: ["C-c"], wait_for_command: true, timeout_ms: 10_000 });
  assert.equal(stopped.command.exit_code, 130, JSON.stringify(stopped.shell));
});

task("compute in a Python REPL", 2, async (c, id) => {
  const repl = await c.call("send_input", { id, data: "python3 -q\n", wait_for_text: ">>>", new_output: true, timeout_ms: 10_000 });
  assert.equal(repl.matched, true, repl.text);
  const out = await c.call("send_input", { id, data: "print(2**100)\n", wait_for_text: "1267650600228229401496703205376", new_output: true, timeout_ms: 10_000 });
  assert.equal(out.matched, true, out.text);
});

task("page through less", 2, async (c, id) => {
  const first = await c.call("send_input", { id, data: "seq 1000 | less\n", wait_for_regex: "(?m)^29$", timeout_ms: 10_000 });
  assert.equal(first.matched, true, first.text);
  const next = await c.call("send_keys", { id, keys: ["Space"], wait_for_regex: "(?m)^58$", timeout_ms: 10_000 });
  assert.equal(next.matched, true, next.text);
  assert.ok(!/^1$/m.test(next.text), next.text);
});

task("answer a read -p prompt", 2, async (c, id) => {
  const asked = await c.call("send_input", { id, data: "read -p 'Continue? ' x; echo got-$x\n", wait_for_text: "Continue?", new_output: true, timeout_ms: 10_000 });
  assert.equal(asked.matched, true, asked.text);
  const answered = await c.call("send_input", { id, data: "yes\n", wait_for_command: true, timeout_ms: 10_000 });
  assert.equal(answered.command.exit_code, 0, JSON.stringify(answered.command));
  assert.match(answered.command.output, /got-yes/);
});

task("learn the exit code of the last command", 2, async (c, id) => {
  // What a person ran before the agent looked (setup, not counted).
  await c.call("send_input", { id, data: "(exit 7)\n", wait_for_command: true, timeout_ms: 10_000 });
  c.calls = 0;
  const row = (await c.call("list_terminals", {})).terminals.find((t) => t.id === id);
  assert.equal(row.shell.last_command.exit_code, 7, JSON.stringify(row.shell));
  assert.equal(row.shell.last_command.command, "(exit 7)");
});

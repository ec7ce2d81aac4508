// Agent scenarios, written once as data and run on both agent surfaces: the page's WebMCP tools
// (tests/e2e/agent-scenarios.spec.ts, Chromium's native WebMCP through Playwright) and the
// relay's MCP server (tests/agent/scenarios.test.mjs, the official MCP TypeScript SDK). Both
// run against the real relay with real PTYs and bash.
//
// A scenario says what the agent does, in a vocabulary neither surface owns; each runner maps
// every step to exactly ONE tool call of its surface (`launch` on the page, which has no tool to
// open a terminal, is the person opening a second page: no call). A step with `again` is called
// once more while `again(answer)` holds, as an agent keeps waiting after a timed-out wait; each
// call counts. A scenario fails when its calls exceed its budget (it still runs to the end, so
// the count is real). Calls are counted once the terminal is open and its shell has shown its
// first prompt, except in a scenario with `fresh: true`, which starts right after the opening.
//
// Step kinds (every kind takes `terminal`: 1, the default, or 2 after a `launch`):
// - `run`: `{run: COMMAND, timeoutMs?}`: type one command line at the prompt and wait for its
//   end; the answer's `command` has its exit code and bounded output.
// - `type`: `{type: TEXT, submit?, wait?}`: type text, Enter after it with `submit`.
// - `keys`: `{keys: [NAME, ...], wait?}`: press keys (the grammar both surfaces share:
//   wterm_core::keys, `Ctrl+C`, `Escape`, `Space`, single characters).
// - `read`: `{read: true, wait?}`: read the screen.
// - `list`: `{list: true}`: the terminal's state (inputs seen, last command) without its text.
// - `launch`: `{launch: true}`: a second terminal, addressed afterwards as `terminal: 2`.
// `wait`: `{text, regex, idleMs, command, newOnly, timeoutMs}`: until `text` (or `regex`)
// appears (`newOnly`: in output that arrived after the call began), output has been quiet for
// `idleMs`, or the command running (or the one this call's Enter starts) has ended; at most
// `timeoutMs` (the relay's reads wait 15 s at most).
// Step extras: `check(answer, ctx)` asserts on the answer; `lost: true` throws the answer away
// (the agent never sees it); `meanwhile: {person: TEXT, after: SCREEN_TEXT}`: once the page
// shows SCREEN_TEXT, the person types TEXT there with the real keyboard while the call runs.
//
// The answer a check sees is the same shape on both surfaces (each runner converts its own):
// `{error?, timedOut, text?, rows?, alternate?, typeahead?, seq?, inputSeq?, lastInput?,
//   lastCommand?, command?: {command, exitCode, output, tail, rows, rowsLeftOut, running}}`;
// `typeahead` is `undefined` on a surface that does not report it (`ctx.caps.typeahead`).
// Scenario extras: `person: true` (a person's page is attached to the terminal, for
// `meanwhile`); `setup(ctx)` before the terminal opens (files in `ctx.home`); `verify(ctx)`
// after the steps, for the truth outside the tools (on disk, by subprocess, by HTTP).
// `ctx`: `{home, surface, caps, rows (the screen's rows at the opening), inputSeq (at the
// opening), port (a free TCP port), note(text) (shown under the table)}`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The longest wait a scenario asks of a step, in milliseconds (the relay's reads take at most
 * 15 s; 10 s is far above what every step needs on an idle machine). */
export const WAIT_MS = 10_000;

/** The answer without the bulk of a command's output or screen text, for assertion messages. */
export const brief = (a) => {
  const cut = (s) => (typeof s === "string" && s.length > 120 ? `${JSON.stringify(s.slice(0, 120)).slice(0, -1)}..." (${s.length} chars)` : JSON.stringify(s));
  if (!a || typeof a !== "object") return JSON.stringify(a);
  const { raw, text, command, ...rest } = a;
  const parts = [JSON.stringify(rest).slice(1, -1)];
  if (command) parts.push(`"command":{${Object.entries(command).filter(([, v]) => v !== undefined).map(([k, v]) => `"${k}":${cut(v)}`).join(",")}}`);
  if (text !== undefined) parts.push(`"text":${cut(text)}`);
  return `{${parts.filter(Boolean).join(",")}}`;
};

/** The command ended with `code`, the answer not timed out. */
function ended(a, code) {
  assert.ok(!a.error, `answered an error: ${a.error}`);
  assert.ok(!a.timedOut, `timed out: ${brief(a)}`);
  assert.equal(a.command?.exitCode, code, `exit code: ${brief(a)}`);
}

/** The answer waited for text and got it. */
function matched(a) {
  assert.ok(!a.error, `answered an error: ${a.error}`);
  assert.ok(!a.timedOut, `timed out: ${brief(a)}`);
}

/** What `sh -c script` prints and exits with, run here (not through the tools). */
function shell(script) {
  const r = spawnSync("sh", ["-c", script], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Scenario 0: a file in HOME that makes the next shell's ~/.bashrc take `LATE_PROMPT_S`
 * seconds (and removes the file). */
const LATE_FLAG = "first-prompt-late";
const LATE_PROMPT_S = 1;

/** Scenario 12: how long the screen stays unchanged before the agent takes it as settled, in
 * milliseconds (the shell redraws the person's typeahead after its prompt). */
const SETTLE_MS = 500;

const pad = (n) => String(n).padStart(4, "0");

/** Keys that type `text` (a space is the key `Space`). */
const spell = (text) => [...text].map((c) => (c === " " ? "Space" : c));

/** Stop `yes` with Ctrl-C: two calls, exit 130 known from the second. */
const stopYes = [
  {
    run: "yes",
    timeoutMs: 500,
    check(a) {
      assert.ok(!a.error, a.error);
      assert.equal(a.timedOut, true, `yes should still run: ${brief(a)}`);
      assert.equal(a.command?.running, true, brief(a));
    },
  },
  { keys: ["Ctrl+C"], wait: { command: true, timeoutMs: WAIT_MS }, again: (a) => a.timedOut, check: (a) => ended(a, 130) },
];

export const SCENARIOS = [
  {
    name: "0. a run right after the terminal opens",
    fresh: true,
    budget: 1,
    // The new shell's first prompt comes a second late (a slow ~/.bashrc, as nvm or conda
    // make), so the call surely starts before it.
    setup(ctx) {
      const bashrc = join(ctx.home, ".bashrc");
      const late = `[ -e ~/${LATE_FLAG} ] && { rm -f ~/${LATE_FLAG}; sleep ${LATE_PROMPT_S}; }\n`;
      if (!readFileSync(bashrc, "utf8").includes(late)) appendFileSync(bashrc, late);
      writeFileSync(join(ctx.home, LATE_FLAG), "");
    },
    steps: [{ run: "echo fresh-$((20+3))", timeoutMs: WAIT_MS, check: (a) => (ended(a, 0), assert.equal(a.command.output.trim(), "fresh-23")) }],
  },
  {
    name: "1. count the files in /usr/bin",
    budget: 1,
    steps: [
      {
        run: "ls /usr/bin | wc -l",
        timeoutMs: WAIT_MS,
        check(a) {
          ended(a, 0);
          assert.equal(a.command.output.trim(), shell("ls /usr/bin | wc -l").stdout.trim());
        },
      },
    ],
  },
  {
    name: "2. edit a file in vim",
    budget: 3,
    steps: [
      // vim's empty buffer shows `~` rows on the screen it switched to after Enter.
      { type: "vim -u NONE -N notes.txt", submit: true, wait: { text: "~", newOnly: true, timeoutMs: WAIT_MS }, check: (a) => (matched(a), assert.equal(a.alternate, true, brief(a))) },
      { keys: ["i", ...spell("written by an agent"), "Escape", ":", "w", "q", "Enter"], wait: { command: true, timeoutMs: WAIT_MS }, again: (a) => a.timedOut, check: (a) => ended(a, 0) },
    ],
    verify: (ctx) => assert.equal(readFileSync(join(ctx.home, "notes.txt"), "utf8"), "written by an agent\n"),
  },
  {
    name: "3. stop a runaway yes with Ctrl-C, 5 times",
    budget: 10,
    steps: [...stopYes, ...stopYes, ...stopYes, ...stopYes, ...stopYes],
  },
  {
    name: "4. compute 2**100 in a Python REPL and exit",
    budget: 3,
    steps: [
      { type: "python3 -q", submit: true, wait: { text: ">>>", newOnly: true, timeoutMs: WAIT_MS }, check: matched },
      {
        // The REPL's next prompt says the answer is complete; the number is read from the text.
        type: "2**100",
        submit: true,
        wait: { text: ">>>", newOnly: true, timeoutMs: WAIT_MS },
        check(a) {
          matched(a);
          const numbers = a.text.match(/^\d{20,}$/gm) ?? [];
          assert.deepEqual(numbers, [String(2n ** 100n)], a.text);
        },
      },
      { type: "exit()", submit: true, wait: { command: true, timeoutMs: WAIT_MS }, again: (a) => a.timedOut, check: (a) => (ended(a, 0), assert.equal(a.command.command, "python3 -q")) },
    ],
  },
  {
    name: "5. page through a long file in less, two pages down, and quit",
    budget: 3,
    setup: (ctx) => writeFileSync(join(ctx.home, "long.txt"), Array.from({ length: 1000 }, (_, i) => `line ${pad(i + 1)}\n`).join("")),
    steps: (ctx) => {
      // less shows rows-1 lines a page (its prompt takes the last row); the agent knows the
      // rows from any answer.
      const page = ctx.rows - 1;
      return [
        { type: "less long.txt", submit: true, wait: { text: `line ${pad(page)}`, newOnly: true, timeoutMs: WAIT_MS }, check: (a) => (matched(a), assert.equal(a.alternate, true, brief(a))) },
        {
          keys: ["Space", "Space"],
          wait: { text: `line ${pad(3 * page)}`, timeoutMs: WAIT_MS },
          check(a) {
            matched(a);
            const want = Array.from({ length: page }, (_, i) => `line ${pad(2 * page + i + 1)}`);
            assert.deepEqual(a.text.split("\n").slice(0, page), want, a.text);
          },
        },
        { keys: ["q"], wait: { command: true, timeoutMs: WAIT_MS }, again: (a) => a.timedOut, check: (a) => (ended(a, 0), assert.equal(a.command.command, "less long.txt")) },
      ];
    },
  },
  {
    name: "6. answer a read -p prompt",
    budget: 2,
    steps: [
      { type: "read -p 'Continue? ' x; echo \"$x\" > answer.txt", submit: true, wait: { text: "Continue?", newOnly: true, timeoutMs: WAIT_MS }, check: matched },
      { type: "yes", submit: true, wait: { command: true, timeoutMs: WAIT_MS }, again: (a) => a.timedOut, check: (a) => ended(a, 0) },
    ],
    verify: (ctx) => assert.equal(readFileSync(join(ctx.home, "answer.txt"), "utf8"), "yes\n"),
  },
  {
    name: "7. exit codes of false and sh -c 'exit 7'",
    budget: 2,
    steps: [
      { run: "false", timeoutMs: WAIT_MS, check: (a) => ended(a, shell("false").code) },
      { run: "sh -c 'exit 7'", timeoutMs: WAIT_MS, check: (a) => ended(a, 7) },
    ],
  },
  {
    name: "8. last line and row count of seq 1 5000",
    budget: 1,
    steps: [
      {
        run: "seq 1 5000",
        timeoutMs: WAIT_MS,
        check(a) {
          ended(a, 0);
          // Past the bound (400 rows): the first rows in `output`, the last in `tail`.
          const last = (a.command.tail ?? a.command.output).trimEnd().split("\n").pop();
          assert.equal(last, "5000", brief(a));
          assert.equal(a.command.rows, 5000, brief(a));
          assert.equal(a.command.rowsLeftOut, 4600, brief(a));
        },
      },
    ],
  },
  {
    name: "9. sleep 12 with a 5 s wait, then its end",
    budget: 2,
    steps: [
      {
        run: "sleep 12",
        timeoutMs: 5_000,
        check(a) {
          assert.ok(!a.error, a.error);
          assert.equal(a.timedOut, true, brief(a));
          assert.equal(a.command?.running, true, brief(a));
        },
      },
      { read: true, wait: { command: true, timeoutMs: 15_000 }, again: (a) => a.timedOut, check: (a) => (ended(a, 0), assert.equal(a.command.command, "sleep 12")) },
    ],
  },
  {
    name: "10. a server in one terminal, curl from a second, stop the server",
    budget: 5,
    setup: (ctx) => writeFileSync(join(ctx.home, "served.txt"), `served-${ctx.port}\n`),
    steps: (ctx) => [
      { type: `python3 -m http.server ${ctx.port} --bind 127.0.0.1`, submit: true, wait: { text: "Serving HTTP", newOnly: true, timeoutMs: WAIT_MS }, check: matched },
      { launch: true },
      {
        terminal: 2,
        run: `curl -sS http://127.0.0.1:${ctx.port}/served.txt`,
        timeoutMs: WAIT_MS,
        check: (a) => (ended(a, 0), assert.equal(a.command.output.trim(), `served-${ctx.port}`)),
      },
      {
        keys: ["Ctrl+C"],
        wait: { command: true, timeoutMs: WAIT_MS },
        again: (a) => a.timedOut,
        // http.server catches the interrupt and exits 0.
        check: (a) => (ended(a, 0), assert.match(a.command.command, /^python3 -m http\.server/)),
      },
    ],
    async verify(ctx) {
      const refused = await fetch(`http://127.0.0.1:${ctx.port}/served.txt`).then(
        (r) => `answered ${r.status}`,
        () => "refused",
      );
      assert.equal(refused, "refused", "the server should be stopped");
    },
  },
  {
    name: "11. exit code and stderr of ls /nonexistent",
    budget: 1,
    steps: [
      {
        run: "ls /nonexistent",
        timeoutMs: WAIT_MS,
        check(a) {
          const truth = shell("ls /nonexistent");
          ended(a, truth.code);
          assert.equal(a.command.output.trim(), truth.stderr.trim());
        },
      },
    ],
  },
  {
    name: "12. the person types during the agent's wait",
    budget: 2,
    person: true,
    steps: (ctx) => [
      {
        run: "sleep 2; echo agent-$((6*7))",
        timeoutMs: WAIT_MS,
        // Once the command line is on the screen, the person types (no Enter) at the page.
        meanwhile: { person: "person-typed", after: "sleep 2; echo agent-$((6*7))" },
        check(a) {
          ended(a, 0);
          assert.equal(a.command.command, "sleep 2; echo agent-$((6*7))", "the command ran as sent");
          // The person's keys echo into the output (the tty's typeahead echo): the last line
          // ends with the agent's answer.
          assert.match(a.command.output, /agent-42$/, brief(a));
          if (ctx.caps.typeahead) assert.equal(a.typeahead, true, `typeahead: ${brief(a)}`);
          else ctx.note("no typeahead field in the answer: the agent is not told the person typed during its wait");
        },
      },
      {
        // The person's keys landed on the next command line, not in the agent's. The shell
        // draws that line after the command's end: the screen settles first.
        read: true,
        wait: { idleMs: SETTLE_MS, timeoutMs: WAIT_MS },
        check(a) {
          matched(a);
          const filled = a.text.split("\n").filter((r) => r.trim());
          assert.equal(filled.at(-1), "$ person-typed", a.text);
          assert.equal(a.lastCommand?.command, "sleep 2; echo agent-$((6*7))", brief(a));
        },
      },
    ],
  },
  {
    name: "13. a submit whose answer was lost is not typed again",
    budget: 3,
    steps: (ctx) => [
      { type: "echo once >> once.txt", submit: true, lost: true },
      {
        // The input sequence moved one past what the agent knew: its call went out.
        list: true,
        check(a) {
          assert.ok(!a.error, a.error);
          assert.equal(a.inputSeq, ctx.inputSeq + 1, brief(a));
          assert.equal(a.lastInput?.seq, ctx.inputSeq + 1, brief(a));
          assert.notEqual(a.lastInput?.enter, "cancelled", brief(a));
        },
      },
      { read: true, wait: { command: true, timeoutMs: WAIT_MS }, again: (a) => a.timedOut, check: (a) => (ended(a, 0), assert.equal(a.command.command, "echo once >> once.txt")) },
    ],
    verify: (ctx) => assert.equal(readFileSync(join(ctx.home, "once.txt"), "utf8"), "once\n"),
  },
];

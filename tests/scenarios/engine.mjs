// Plays a scenario of tasks.mjs on one agent surface: counts the tool calls, runs the checks,
// prints each call, and keeps the row of the runner's table. A surface (each runner has one)
// maps a step to exactly one tool call of its own and converts the answer to the shape the
// checks read (tasks.mjs says both):
//   { name, caps, open({fresh, person}) -> {rows, inputSeq}, call(step) -> {tool, args, answer},
//     person({person, after}) (types at the page once it shows `after`), close() }
// `call` answers `tool: null` for a step its surface does without a tool call (the page's
// `launch`: the person opens a second page), and throws `unmapped(...)` for a step it has no
// tool call for.
import { createServer } from "node:net";
import { brief } from "./tasks.mjs";

/** How many times a step with `again` is called after its first call, at most. */
export const AGAIN_MAX = 5;

/** What a surface throws for a step it has no tool call for (no call was made). */
export function unmapped(message) {
  return Object.assign(new Error(message), { unmapped: true });
}

/** A TCP port free on 127.0.0.1 now (the OS picks it). */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** One line: a call's tool, arguments (long strings cut) and answer summary. */
function callLine(n, tool, args, answer) {
  const cut = (s, max) => (s.length > max ? s.slice(0, max) + "..." : s);
  const shown = JSON.stringify(args, (k, v) => (typeof v === "string" ? cut(v, 120) : v));
  return `  [${n}] ${tool} ${shown}\n      -> ${cut(answer === undefined ? "(answer thrown away)" : brief(answer), 400)}`;
}

/**
 * Plays `scenario` on `surface`; `home` is the shell's HOME. Returns the table's row
 * `{task, surface, calls, budget, result, notes, failures}`; never throws for a failed check
 * (they are in `failures`), so the count is always the real one.
 */
export async function play(scenario, surface, home) {
  const notes = [];
  const failures = [];
  const lines = [`${scenario.name} (${surface.name}, budget ${scenario.budget}):`];
  const ctx = { home, surface: surface.name, caps: surface.caps, port: await freePort(), note: (t) => notes.includes(t) || notes.push(t) };
  let calls = 0;
  try {
    scenario.setup?.(ctx);
    Object.assign(ctx, await surface.open({ fresh: !!scenario.fresh, person: !!scenario.person }));
    const steps = typeof scenario.steps === "function" ? scenario.steps(ctx) : scenario.steps;
    for (const [i, step] of steps.entries()) {
      for (let round = 0; round <= AGAIN_MAX; round++) {
        let done;
        try {
          const calling = surface.call(step);
          const [made] = await Promise.all([calling, step.meanwhile && surface.person(step.meanwhile)]);
          done = made;
        } catch (e) {
          // A step the surface cannot map made no call; any other throw came from the call.
          if (!e.unmapped) calls++;
          failures.push(`step ${i + 1} (${Object.keys(step)[0]}): ${e.unmapped ? "" : "the call failed: "}${e.message}`);
          lines.push(`  [${e.unmapped ? "-" : calls}] step ${i + 1} failed: ${e.message}`);
          break;
        }
        if (done.tool) calls++;
        const shown = step.lost ? undefined : done.answer;
        lines.push(done.tool ? callLine(calls, done.tool, done.args, shown) : `  [-] ${done.args} (no tool call)`);
        if (step.lost) break;
        if (done.answer?.error && !step.check) failures.push(`step ${i + 1} (${done.tool}): ${done.answer.error}`);
        if (step.again && done.answer && !done.answer.error && step.again(done.answer) && round < AGAIN_MAX) continue;
        try {
          step.check?.(done.answer, ctx);
        } catch (e) {
          failures.push(`step ${i + 1} (${done.tool} ${JSON.stringify(done.args).slice(0, 100)}): ${e.message}`);
        }
        break;
      }
    }
    await scenario.verify?.(ctx);
  } catch (e) {
    failures.push(`${e.message}`);
  } finally {
    await surface.close?.();
  }
  if (calls > scenario.budget) failures.push(`over budget: ${calls} tool calls, budget ${scenario.budget}`);
  for (const n of notes) lines.push(`  note: ${n}`);
  for (const f of failures) lines.push(`  FAIL: ${f}`);
  console.log(lines.join("\n"));
  return {
    task: scenario.name,
    surface: surface.name,
    calls,
    budget: scenario.budget,
    result: failures.length ? (calls > scenario.budget ? "fail (over budget)" : "fail") : "pass",
    notes,
    failures,
  };
}

/** The runner's table: task, surface, calls, budget, result; then notes and failures. */
export function table(title, rows) {
  const line = (cells) => "| " + cells.join(" | ") + " |";
  return [
    "",
    title,
    line(["task", "surface", "calls", "budget", "result"]),
    line(["---", "---", "---", "---", "---"]),
    ...rows.map((r) => line([r.task, r.surface, r.calls, r.budget, r.result])),
    ...rows.flatMap((r) => r.notes.map((n) => `note (${r.task}): ${n}`)),
    ...rows.flatMap((r) => r.failures.map((f) => `failure (${r.task}): ${f}`)),
  ].join("\n");
}

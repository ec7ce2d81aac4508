// Command end → a waiting MCP call returning, through the relay (the MCP surface's
// figure): `send_input "sleep 0.05\n"`, then `read_screen {wait_for_command: true}` waits; the
// latency is the client's clock when the answer arrives minus `ended_at_ms`, the relay's clock
// when the command's end mark (OSC 133;D) arrived from the PTY (same machine, same clock).
// Prints median and p99 of N samples (default 200), and the same for `run_command`.
//
// Run: cargo build -p wterm-relay --release && node bench/command-latency.mjs [samples]
import { startRelay, httpClient } from "../tests/mcp/harness.mjs";

const samples = Number(process.argv[2] ?? 200);
const relay = await startRelay();
const c = await httpClient(relay);
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
try {
  const { id } = await c.call("launch_terminal", { cols: 100, rows: 30, cwd: relay.home });
  for (let i = 0; i < 400; i++) {
    const row = (await c.call("list_terminals", {})).terminals.find((t) => t.id === id);
    if (row?.shell?.state === "input") break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const waited = [];
  const ran = [];
  for (let i = 0; i < samples; i++) {
    await c.call("send_input", { id, data: "sleep 0.05\n" });
    const a = await c.call("read_screen", { id, wait_for_command: true, timeout_ms: 10_000 });
    const now = Date.now();
    if (a.command?.ended_at_ms) waited.push(now - a.command.ended_at_ms);
    const r = await c.call("run_command", { id, command: "sleep 0.05" });
    const now2 = Date.now();
    if (r.ended_at_ms) ran.push(now2 - r.ended_at_ms);
  }
  const line = (name, xs) =>
    console.log(`${name}: median ${pct(xs, 50)} ms, p99 ${pct(xs, 99)} ms (${xs.length} samples)`);
  line("command end -> read_screen(wait_for_command) returns", waited);
  line("command end -> run_command returns", ran);
} finally {
  await c.client.close();
  await relay.stop();
}

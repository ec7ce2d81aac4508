// An agent outside Playwright drives a real bash through the relay's page with nothing but the
// WebMCP tools, using the agent-browser CLI (node_modules/.bin/agent-browser, which launches
// Chromium with WebMCP on). Needs `bash wterm-wasm/build.sh` and
// `cargo build --release -p wterm-relay`.
//
// agent-browser reports a tool that failed as success:true with data.status "failed", so every
// call checks data.status === "completed" and the tool's own output. Its daemon outlives the
// command, so the browser is always closed at the end.
import { test, expect } from "@playwright/test";
import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startRelay, type Relay } from "./relay";

const run = promisify(execFile);
const AGENT_BROWSER = resolve("node_modules/.bin/agent-browser");
const SESSION = `wterm-e2e-${process.pid}`;
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
/** One CLI call; generous, since the first one launches the browser. */
const CLI_TIMEOUT_MS = 60_000;

// Pushes kitty keyboard flags (CSI > 1 u), reads one key in raw mode, prints its bytes in hex.
const KITTY_KEY_PY = String.raw`import os, select, sys, termios, tty
fd = sys.stdin.fileno()
saved = termios.tcgetattr(fd)
os.write(1, b"\x1b[>1u")
tty.setraw(fd)
try:
    os.write(1, b"kitty-ready\r\n")
    data = os.read(fd, 64)
    while select.select([fd], [], [], 0.2)[0]:
        data += os.read(fd, 64)
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    os.write(1, b"\x1b[<u")
print("key-bytes=" + data.hex())
`;

/** Runs `agent-browser --session S --json ARGS` and returns its `data`. */
async function agentBrowser(args: string[]): Promise<any> {
  const { stdout } = await run(AGENT_BROWSER, ["--session", SESSION, "--json", ...args], {
    timeout: CLI_TIMEOUT_MS,
    maxBuffer: 16 << 20,
  });
  const line = stdout.trim().split("\n").reverse().find((l) => l.startsWith("{"));
  const out = JSON.parse(line ?? "null");
  expect(out?.success, `agent-browser ${args.join(" ")}: ${stdout}`).toBe(true);
  return out.data;
}

/** Invokes a page tool; the call and the tool must both succeed. Returns the tool's output. */
async function invoke(tool: string, params: Record<string, unknown>): Promise<any> {
  const data = await agentBrowser(["webmcp", "invoke", tool, "--params", JSON.stringify(params)]);
  expect(data.status, `${tool} ${JSON.stringify(params)}: ${JSON.stringify(data)}`).toBe("completed");
  const output = typeof data.output === "string" ? JSON.parse(data.output) : data.output;
  expect(output.error, `${tool} ${JSON.stringify(params)}`).toBeUndefined();
  return output;
}

let relay: Relay;
test.beforeAll(async () => {
  relay = await startRelay();
});
test.afterAll(async () => {
  await relay?.stop();
});

test("an agent drives bash, vim and a kitty-protocol program through agent-browser", async () => {
  test.setTimeout(180_000);
  try {
    const opened = await agentBrowser([
      "--args",
      "--no-sandbox,--disable-gpu,--disable-background-networking",
      "--idle-timeout",
      "10m",
      ...(process.env.CHROMIUM_PATH ? ["--executable-path", process.env.CHROMIUM_PATH] : []),
      "open",
      relay.pageUrl(),
    ]);
    expect(opened.url).toContain(relay.url);

    await test.step("the page offers the four tools", async () => {
      await expect
        .poll(async () => ((await agentBrowser(["webmcp", "list"])).tools ?? []).map((t: any) => t.name).sort(), {
          timeout: 20_000,
        })
        .toEqual(["list_terminals", "press_terminal_keys", "read_terminal", "type_in_terminal"]);
      const list = await invoke("list_terminals", {});
      expect(list.terminals).toHaveLength(1);
      expect(list.terminals[0]).toMatchObject({ name: "terminal", readOnly: false });
      await invoke("read_terminal", { waitFor: "$", timeoutMs: 15_000 });
    });

    await test.step("type a command with submit, wait for its output", async () => {
      const typed = await invoke("type_in_terminal", { text: "echo $((6*7))", submit: true });
      expect(typed).toEqual({ ok: true, terminal: "terminal", seq: 1, bytes: 14, typed: 13, submitted: true });
      const r = await invoke("read_terminal", { waitFor: "\n42\n" });
      expect(r.timedOut).toBeUndefined();
      expect(r.text).toContain("$ echo $((6*7))\n42\n");
    });

    await test.step("vim writes a file with keys pressed through press_terminal_keys", async () => {
      const file = join(relay.home, "note.txt");
      await invoke("type_in_terminal", { text: `vim -u NONE -N ${file}`, submit: true });
      const vim = await invoke("read_terminal", { waitFor: "[New]" });
      expect(vim.alternateScreen).toBe(true);
      await invoke("press_terminal_keys", { keys: ["i", "h", "i", "Space", "v", "i", "m", "Enter", "2"] });
      await invoke("type_in_terminal", { text: " typed line" });
      const pressed = await invoke("press_terminal_keys", { keys: ["Escape", ":", "w", "q", "Enter"] });
      expect(pressed.pressed).toBe(5);
      await expect.poll(() => existsSync(file) && readFileSync(file, "utf8")).toBe("hi vim\n2 typed line\n");
      await expect.poll(async () => (await invoke("read_terminal", {})).alternateScreen).toBe(false);
    });

    await test.step("Ctrl+C stops sleep 100", async () => {
      // The marker is printed by the command line itself, so Ctrl+C comes once sleep runs.
      await invoke("type_in_terminal", { text: "echo sleep-$((1+1)); sleep 100", submit: true });
      await invoke("read_terminal", { waitFor: "\nsleep-2" });
      expect(await invoke("press_terminal_keys", { keys: ["Ctrl+C"] })).toMatchObject({ pressed: 1 });
      await invoke("type_in_terminal", { text: "echo exit=$?", submit: true });
      const r = await invoke("read_terminal", { waitFor: "\nexit=130", timeoutMs: 5_000 });
      expect(r.timedOut).toBeUndefined();
    });

    await test.step("commands: exit code and output in one call, the last command in the state", async () => {
      const ran = await invoke("type_in_terminal", { text: "echo one; false", submit: true, waitForCommand: true, timeoutMs: 15_000 });
      expect(ran.command).toMatchObject({ command: "echo one; false", exitCode: 1, output: "one" });
      await invoke("type_in_terminal", { text: "yes", submit: true, waitForCommand: true, timeoutMs: 300 });
      const stopped = await invoke("press_terminal_keys", { keys: ["Ctrl+C"], waitForCommand: true, timeoutMs: 15_000 });
      expect(stopped.command).toMatchObject({ command: "yes", exitCode: 130 });
      const list = await invoke("list_terminals", {});
      expect(list.terminals[0].lastCommand).toMatchObject({ command: "yes", exitCode: 130 });
      expect(list.terminals[0].shellIntegration).toMatchObject({ state: expect.any(String) });
    });

    await test.step("a detached type_in_terminal cancelled mid-flight: the state says it ran, so it is not typed twice", async () => {
      const before = (await invoke("list_terminals", {})).terminals[0];
      // Detached, waiting for text that never comes; the agent gives up on it once the command
      // ran, without ever seeing its answer.
      const detached = await agentBrowser([
        "webmcp",
        "invoke",
        "type_in_terminal",
        "--detach",
        "--params",
        JSON.stringify({ text: "echo ran-$((40+2))", submit: true, waitFor: "never printed", timeoutMs: 30_000 }),
      ]);
      const id = detached.invocationId ?? detached.id;
      expect(id, JSON.stringify(detached)).toBeTruthy();
      await invoke("read_terminal", { waitFor: "\nran-42", timeoutMs: 15_000 });
      await agentBrowser(["webmcp", "cancel", id]);
      // The state alone: one more input than before, its Enter pressed: it went out.
      const after = (await invoke("list_terminals", {})).terminals[0];
      expect(after.inputSeq).toBe(before.inputSeq + 1);
      expect(after.lastInput).toMatchObject({ seq: before.inputSeq + 1, tool: "type_in_terminal", enter: "pressed" });
      const screen = await invoke("read_terminal", { lines: 50 });
      expect(screen.text.match(/\nran-42\n/g)).toHaveLength(1);
    });

    await test.step("with kitty flags pushed, Ctrl+C arrives as CSI 99;5u", async () => {
      const script = join(relay.home, "kitty_key.py");
      writeFileSync(script, KITTY_KEY_PY);
      await invoke("type_in_terminal", { text: `${PYTHON} ${script}`, submit: true });
      await invoke("read_terminal", { waitFor: "\nkitty-ready" });
      await invoke("press_terminal_keys", { keys: ["Ctrl+C"] });
      const r = await invoke("read_terminal", { waitFor: "key-bytes=", waitForIdleMs: 100 });
      expect(r.text).toContain("key-bytes=1b5b39393b3575\n");
      // The program popped its flags: Ctrl+C is ^C again for the shell.
      await invoke("type_in_terminal", { text: "echo slept-$((2+3)); sleep 100", submit: true });
      await invoke("read_terminal", { waitFor: "\nslept-5" });
      await invoke("press_terminal_keys", { keys: ["Ctrl+C"] });
      await invoke("type_in_terminal", { text: "echo again=$?", submit: true });
      await invoke("read_terminal", { waitFor: "\nagain=130", timeoutMs: 5_000 });
    });
  } finally {
    await run(AGENT_BROWSER, ["close", "--all"], { timeout: CLI_TIMEOUT_MS }).catch(() => {});
  }
});

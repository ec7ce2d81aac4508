// Starting a real relay and talking to it with the official MCP TypeScript SDK, for the MCP
// client tests and the agent-task suite.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export const BIN = resolve(process.env.WTERM_RELAY_BIN ?? "target/release/wterm-relay");

export const rand = () => Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);

/** Starts a relay with MCP on (readwrite by default, launching allowed); `knobs: null` leaves
 * MCP as the relay starts it; `args` go to `serve`. */
export async function startRelay({ knobs = { enabled: true, default_mode: "readwrite", allow_launch: true }, args = [] } = {}) {
  const home = mkdtempSync(join(tmpdir(), "wterm-mcp-"));
  const token = "page-" + rand();
  const mcpToken = "mcp-" + rand();
  writeFileSync(join(home, ".bashrc"), "PS1='$ '\nunset PROMPT_COMMAND\n");
  // Sessions held past the relay (its default) only for a test that asks with
  // --persist; its held sessions are then ended when it stops the relay.
  const held = args.includes("--persist");
  const persistence = held || args.includes("--no-persist") ? [] : ["--no-persist"];
  const state = join(home, "state");
  const child = spawn(BIN, ["serve", "--port", "0", "--state-dir", state, ...persistence, ...args], {
    env: {
      ...process.env, HOME: home, SHELL: "/bin/bash", WEB_TERMINAL_TOKEN: token,
      WEB_TERMINAL_MCP_TOKEN: mcpToken, RUST_LOG: process.env.RUST_LOG ?? "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr.on("data", (d) => (out += d));
  const url = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error("relay did not start:\n" + out)), 15_000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (https?:\/\/[^/\s]+)\//);
      if (m) { clearTimeout(timer); res(m[1]); }
    });
    child.on("exit", (code) => rej(new Error(`relay exited with ${code}:\n${out}`)));
  });
  const relay = {
    url, token, mcpToken, home, child, log: () => out,
    config: async (body) => {
      const r = await fetch(`${url}/mcp/config`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(r.status, 200, await r.text());
    },
    stop: async () => {
      if (held) spawnSync(BIN, ["holders", "kill", "--all", "--state-dir", state], { stdio: "ignore" });
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
  if (knobs) await relay.config(knobs);
  return relay;
}

/** A client that counts its tool calls; `call` parses the JSON answer. */
export function wrap(client) {
  const c = {
    client,
    calls: 0,
    async raw(name, args = {}) {
      c.calls++;
      return client.callTool({ name, arguments: args });
    },
    async call(name, args = {}) {
      const r = await c.raw(name, args);
      assert.ok(!r.isError, `${name} failed: ${r.content?.[0]?.text}`);
      const json = JSON.parse(r.content[0].text);
      // A read's answer (read_screen, or an input tool that waited) has the screen on its own.
      if (r.content[1]) json.text = r.content[1].text;
      return json;
    },
    async refused(name, args = {}) {
      const r = await c.raw(name, args);
      assert.equal(r.isError, true, `${name} should be refused: ${JSON.stringify(r.content)}`);
      return r.content[0].text;
    },
  };
  return c;
}

export async function httpClient(relay, headers = {}) {
  const client = new Client({ name: "wterm-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${relay.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${relay.mcpToken}`, ...headers } },
  });
  await client.connect(transport);
  const c = wrap(client);
  c.transport = transport;
  return c;
}


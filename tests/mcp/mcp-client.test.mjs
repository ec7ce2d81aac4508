// The relay's MCP server driven by the official MCP TypeScript SDK (@modelcontextprotocol/sdk),
// against the real `wterm-relay` binary: the streamable-HTTP endpoint `/mcp` and
// `wterm-relay mcp` on stdio (one relay, a scoped client against a relay that does not echo
// its scope, two relays with one down), the HTTP refusals that come before any MCP message,
// `mcp-config`, and an agent-style scenario (vim, python3, a runaway `yes`).
//
// Run: cargo build -p wterm-relay --release && node --test tests/mcp/
// (WTERM_RELAY_BIN overrides the binary.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync, readFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CallToolResultSchema, EmptyResultSchema, ErrorCode, McpError,
} from "@modelcontextprotocol/sdk/types.js";

import { BIN, startRelay, wrap, httpClient, rand } from "./harness.mjs";
const TOOLS = [
  "mcp_info", "list_terminals", "read_screen", "send_input", "send_keys", "reset_terminal",
  "flush_input", "set_pace", "list_profiles", "launch_terminal", "set_window", "run_command",
  "watch_url",
];
const READ_ONLY = ["mcp_info", "list_terminals", "list_profiles", "read_screen", "watch_url"];
const PROMPT = "(?m)^\\$ ?$"; // a bare prompt line (bash with PS1='$ '; rows are right-trimmed)

async function stdioClient(args, env = {}) {
  const client = new Client({ name: "wterm-test", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: BIN, args: ["mcp", ...args], env: { PATH: process.env.PATH, ...env }, stderr: "pipe",
  });
  await client.connect(transport);
  const c = wrap(client);
  c.transport = transport;
  return c;
}

/** launch → type → read the computed value → Ctrl-C during a sleep: the prompt comes back. */
async function drive(c, launchArgs = {}) {
  const launched = await c.call("launch_terminal", { cols: 100, rows: 30, ...launchArgs });
  assert.match(launched.id, /^[a-z]+:\d+$/);
  assert.equal(launched.handle, undefined, "the launch handle stays in the server");
  const id = launched.id;
  await c.call("read_screen", { id, wait_for_regex: PROMPT, timeout_ms: 10_000 });
  await c.call("send_input", { id, data: "echo $((6*7))\n" });
  const read = await c.call("read_screen", { id, wait_for_text: "42", timeout_ms: 10_000 });
  assert.equal(read.matched, true, read.text);
  assert.match(read.text, /^42$/m);
  // Wait for output of the command line, not its echo, so Ctrl-C reaches `sleep`.
  // The process that prints is the one that sleeps (exec), so the key cannot land between them.
  await c.call("send_input", { id, data: "clear; bash -c 'echo sleep-$((1+1)); exec sleep 100'\n" });
  await c.call("read_screen", { id, wait_for_regex: "(?m)^sleep-2$", timeout_ms: 10_000 });
  const sent = await c.call("send_keys", { id, keys: ["C-c"] });
  assert.equal(sent.sent, 1);
  const back = await c.call("read_screen", { id, wait_for_regex: PROMPT, timeout_ms: 10_000 });
  assert.equal(back.matched, true, back.text);
  assert.match(back.text, /\^C/);
  return id;
}

let relay;
before(async () => { relay = await startRelay(); });
after(async () => { await relay?.stop(); });

test("HTTP: initialize, tools with schemas and annotations", async () => {
  const c = await httpClient(relay);
  try {
    console.log(`  negotiated protocol version (HTTP): ${c.transport.protocolVersion}`);
    assert.equal(c.client.getServerVersion().name, "wterm-relay");
    const { tools } = await c.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort(), "set_mcp_knobs is listed only for admin");
    for (const t of tools) {
      assert.equal(t.inputSchema.type, "object", t.name);
      assert.ok(t.description.length > 30, t.name);
      assert.equal(t.annotations.readOnlyHint, READ_ONLY.includes(t.name), t.name);
    }
    const read = tools.find((t) => t.name === "read_screen");
    assert.deepEqual(read.inputSchema.required, ["id"]);
    assert.match(read.description, /data, never as instructions/);
    assert.deepEqual(tools.find((t) => t.name === "send_keys").inputSchema.required.sort(), ["id", "keys"]);
  } finally {
    await c.client.close();
  }
});

test("HTTP: launch, type, read, interrupt; refusals are isError results", async () => {
  const c = await httpClient(relay);
  try {
    const id = await drive(c);
    assert.match(id, /^default:\d+$/);
    const { terminals, errors } = await c.call("list_terminals");
    assert.deepEqual(errors, []);
    const row = terminals.find((t) => t.id === id);
    assert.equal(row.owned, true);
    assert.equal(row.mode, "readwrite");
    // Refusals: the relay's code, meaning and who acts, one line.
    assert.match(await c.refused("read_screen", { id: "12" }), /^malformed_id: /);
    assert.match(await c.refused("read_screen", { id: "elsewhere:1" }), /^unknown_host: /);
    assert.match(await c.refused("read_screen", { id: "default:99999" }), /^unknown_or_off: .*list_terminals/);
    assert.match(await c.refused("send_keys", { id, keys: ["Bogus"] }), /^bad_keys: .*Bogus/);
    assert.match(await c.refused("read_screen", { id, wait_for_text: "a", wait_for_regex: "b" }), /^conflicting_wait: /);
    assert.match(await c.refused("set_mcp_knobs", { host: "default", allow_launch: true }), /^admin_required: /);
    assert.match(await c.refused("send_input", { id }), /^bad_arguments: /);
    // A misspelt argument is refused naming it, not ignored (a wait that never waited).
    assert.match(await c.refused("read_screen", { id, wait_for_txt: "zzz" }), /^bad_arguments: .*wait_for_txt/);
    assert.match(await c.refused("read_screen", { id, wait_for_text: "" }), /^bad_request: .*non-empty/);
    // A long scrollback is cut from the top, and the answer says how many rows were left out.
    await c.call("send_input", { id, data: "seq 100000 130000; echo seq-$((2+3))\n" });
    await c.call("read_screen", { id, wait_for_regex: "(?m)^seq-5$", timeout_ms: 15_000 });
    const long = await c.call("read_screen", { id, view: "scrollback", lines: 10000 });
    assert.ok(long.text.length <= 40_000, `${long.text.length} characters`);
    assert.ok(long.rows_omitted > 0, JSON.stringify({ ...long, text: undefined }));
    assert.match(long.text, /seq-5/);
    // The held launch handle lets this server change its window; read-only then refuses typing.
    const w = await c.call("set_window", { id, mode: "read" });
    assert.equal(w.mode, "read");
    assert.match(await c.refused("send_input", { id, data: "x" }), /^read_only: .*relay page/);
    // The same gate as the routes, live: switching MCP off refuses the next call.
    await relay.config({ enabled: false });
    let off;
    try {
      off = await c.raw("list_terminals");
    } catch (e) {
      off = { transportError: String(e) };
    }
    await relay.config({ enabled: true });
    // The gate answers before any MCP message is read: an HTTP 403 the transport reports.
    assert.match(off.transportError ?? "", /mcp_disabled/, JSON.stringify(off));
  } finally {
    await c.client.close();
  }
});

test("HTTP: refused before any MCP message (token, scope, origin, host)", async () => {
  const init = JSON.stringify({
    jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
  });
  const post = (headers) => fetch(`${relay.url}/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: init,
  });
  let r = await post({});
  assert.equal(r.status, 401);
  assert.deepEqual(await r.json(), { error: "auth_required" });
  r = await post({ Authorization: "Bearer wrong" });
  assert.equal(r.status, 401);
  r = await post({ Authorization: `Bearer ${relay.mcpToken}`, "X-Browserland-Scope": "bad scope" });
  assert.equal(r.status, 400);
  const scopeRefusal = await r.json();
  assert.equal(scopeRefusal.error, "bad_scope");
  assert.match(scopeRefusal.detail, /\[A-Za-z0-9\]/, "the detail gives the scope grammar");
  r = await post({ Authorization: `Bearer ${relay.mcpToken}`, Origin: "https://evil.example" });
  assert.equal(r.status, 403);
  assert.deepEqual(await r.json(), { error: "bad_origin" });
  r = await post({ Authorization: `Bearer ${relay.mcpToken}`, Origin: relay.url });
  assert.equal(r.status, 200, "the relay's own origin is allowed");
  // DNS rebinding: a Host the relay does not serve.
  const port = new URL(relay.url).port;
  const status = await new Promise((res, rej) => {
    const req = httpRequest({
      host: "127.0.0.1", port, path: "/mcp", method: "POST",
      headers: {
        Host: `rebind.example:${port}`, Authorization: `Bearer ${relay.mcpToken}`,
        "Content-Type": "application/json", Accept: "application/json, text/event-stream",
      },
    }, (resp) => { resp.resume(); res(resp.statusCode); });
    req.on("error", rej);
    req.end(init);
  });
  assert.equal(status, 403);
  // MCP off: 403 mcp_disabled first.
  await relay.config({ enabled: false });
  r = await post({ Authorization: `Bearer ${relay.mcpToken}` });
  await relay.config({ enabled: true });
  assert.equal(r.status, 403);
  assert.deepEqual(await r.json(), { error: "mcp_disabled" });
});

test("HTTP: protocol revisions the endpoint negotiates", async () => {
  const agreed = {};
  for (const v of ["2025-06-18", "2025-11-25", "2026-07-28"]) {
    const r = await fetch(`${relay.url}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${relay.mcpToken}`, "Content-Type": "application/json",
        Accept: "application/json, text/event-stream", "MCP-Protocol-Version": v,
      },
      body: JSON.stringify({
        jsonrpc: "2.0", id: 1, method: "initialize",
        params: { protocolVersion: v, capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
    });
    const text = await r.text();
    const json = text.trim().startsWith("{") ? text : text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5)).find((l) => l.trim().startsWith("{"));
    let got;
    try { got = JSON.parse(json ?? "null"); } catch { got = null; }
    agreed[v] = got?.result?.protocolVersion ?? `HTTP ${r.status} ${text.slice(0, 120)}`;
  }
  console.log(`  initialize → protocolVersion: ${JSON.stringify(agreed)}`);
  assert.equal(agreed["2025-06-18"], "2025-06-18");
  assert.equal(agreed["2025-11-25"], "2025-11-25");
});

test("HTTP: JSON-RPC errors by the spec; DELETE ends the session (200, no body), 404 after", async () => {
  const c = await httpClient(relay);
  const session = c.transport.sessionId;
  assert.ok(session, "a session id");
  const headers = {
    Authorization: `Bearer ${relay.mcpToken}`, "Content-Type": "application/json",
    Accept: "application/json, text/event-stream", "MCP-Protocol-Version": c.transport.protocolVersion,
    "Mcp-Session-Id": session,
  };
  // An unknown method: -32601, saying what is accepted.
  await assert.rejects(
    c.client.request({ method: "foo/bar", params: {} }, EmptyResultSchema),
    (e) => e instanceof McpError && e.code === ErrorCode.MethodNotFound && /foo\/bar.*tools\/call/.test(e.message),
  );
  // tools/call whose arguments are not an object: -32602.
  await assert.rejects(
    c.client.request({ method: "tools/call", params: { name: "mcp_info", arguments: 5 } }, CallToolResultSchema),
    (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams && /arguments must be an object/.test(e.message),
  );
  // The session still works.
  assert.notEqual((await c.raw("mcp_info")).isError, true);
  // Malformed JSON (no SDK sends it): 400 and -32700.
  const bad = await fetch(`${relay.url}/mcp`, { method: "POST", headers, body: '{"jsonrpc":' });
  assert.equal(bad.status, 400);
  const parsed = await bad.json();
  assert.equal(parsed.error.code, ErrorCode.ParseError, JSON.stringify(parsed));
  assert.equal(parsed.id, null);
  // The SDK ends the session: DELETE answers 200 with no body.
  const seen = [];
  const fetchSpy = async (url, init) => {
    const r = await fetch(url, init);
    if (init?.method === "DELETE") seen.push({ status: r.status, body: await r.clone().text() });
    return r;
  };
  c.transport._fetch = fetchSpy;
  await c.transport.terminateSession();
  assert.deepEqual(seen, [{ status: 200, body: "" }]);
  assert.equal(c.transport.sessionId, undefined);
  // Ended: a second DELETE, and any request of it, get 404.
  const again = await fetch(`${relay.url}/mcp`, { method: "DELETE", headers });
  assert.equal(again.status, 404);
  const ping = await fetch(`${relay.url}/mcp`, {
    method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping" }),
  });
  assert.equal(ping.status, 404);
  await c.client.close();
});

test("HTTP: a scoped client sees only its scope's windows", async () => {
  const a = await httpClient(relay, { "X-Browserland-Scope": "team-a" });
  const b = await httpClient(relay, { "X-Browserland-Scope": "team-b" });
  try {
    const { id } = await a.call("launch_terminal", {});
    assert.equal((await a.call("mcp_info", { host: "default" })).scope, "team-a");
    const all = await a.call("mcp_info");
    assert.deepEqual(all.hosts.map((h) => [h.host, h.scope]), [["default", "team-a"]]);
    assert.ok((await a.call("list_terminals")).terminals.some((t) => t.id === id && t.scope === "team-a"));
    assert.ok(!(await b.call("list_terminals")).terminals.some((t) => t.id === id));
    assert.match(await b.refused("read_screen", { id }), /^unknown_or_off: /);
  } finally {
    await a.client.close();
    await b.client.close();
  }
});

test("stdio: one relay, the same tools", async () => {
  const c = await stdioClient(["--url", relay.url, "--token", relay.mcpToken]);
  try {
    const { tools } = await c.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
    await drive(c);
    assert.match(await c.refused("read_screen", { id: "default:99999" }), /^unknown_or_off: /);
  } finally {
    await c.client.close();
  }
});

test("stdio: the admin token lists set_mcp_knobs and it works", async () => {
  const admin = "admin-" + rand();
  await relay.config({ admin_token: admin });
  const c = await stdioClient(["--url", relay.url], { WTERM_MCP_TOKEN: relay.mcpToken, WTERM_MCP_ADMIN_TOKEN: admin });
  try {
    const { tools } = await c.client.listTools();
    assert.ok(tools.some((t) => t.name === "set_mcp_knobs"));
    assert.ok(tools.some((t) => t.name === "audit_log"));
    assert.equal((await c.call("mcp_info")).hosts[0].admin, true);
    const k = await c.call("set_mcp_knobs", { host: "default", allow_launch: true, default_mode: "readwrite" });
    assert.equal(k.allow_launch, true);
    // The audit log through stdio: its filters travel as the route's query.
    const log = await c.call("audit_log", { limit: 2 });
    assert.ok(log.records.length >= 1 && log.records.length <= 2, JSON.stringify(log));
    const knobs = (await c.call("audit_log", { since: 0, limit: 500 })).records.filter((r) => r.op === "set_mcp_knobs");
    assert.ok(knobs.length >= 1 && knobs.at(-1).caller.admin === true, JSON.stringify(knobs));
    assert.ok(!JSON.stringify(knobs).includes(admin) && !JSON.stringify(knobs).includes(relay.mcpToken));
  } finally {
    await c.client.close();
    await relay.config({ admin_token: null });
  }
});

test("stdio: a scoped client fails closed against a relay that does not echo its scope", async () => {
  const seen = [];
  const fake = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.setHeader("Content-Type", "application/json");
    if (req.url === "/mcp/info") {
      res.end(JSON.stringify({ ok: true, allow_launch: true, default_mode: "readwrite", version: "0", scope: null, terminals: true, admin: false }));
    } else {
      res.end("[]");
    }
  });
  await new Promise((r) => fake.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${fake.address().port}`;
  const c = await stdioClient(["--url", url, "--token", "t0ken", "--scope", "team-a"]);
  try {
    assert.match(await c.refused("list_terminals"), /^scope_unsupported: /);
    assert.match(await c.refused("launch_terminal", {}), /^scope_unsupported: /);
    assert.match(await c.refused("read_screen", { id: "default:1" }), /^scope_unsupported: /);
    assert.deepEqual(seen, ["GET /mcp/info"], "nothing but the check was sent");
  } finally {
    await c.client.close();
    fake.close();
  }
  // The real relay echoes the scope: the same client works.
  const ok = await stdioClient(["--url", relay.url, "--token", relay.mcpToken, "--scope", "team-a"]);
  try {
    assert.equal((await ok.call("mcp_info", { host: "default" })).scope, "team-a");
    await ok.call("list_terminals");
  } finally {
    await ok.client.close();
  }
});

test("stdio: two relays list together; one down leaves the other usable", async () => {
  const second = await startRelay();
  const hosts = JSON.stringify([
    { name: "one", url: relay.url, token: relay.mcpToken },
    { name: "two", url: second.url, token: second.mcpToken },
  ]);
  const c = await stdioClient([], { WTERM_MCP_HOSTS: hosts });
  try {
    assert.match(await c.refused("launch_terminal", {}), /^host_required: /);
    const a = await c.call("launch_terminal", { host: "one" });
    const b = await c.call("launch_terminal", { host: "two" });
    assert.match(a.id, /^one:\d+$/);
    assert.match(b.id, /^two:\d+$/);
    let list = await c.call("list_terminals");
    assert.deepEqual(list.errors, []);
    assert.ok(list.terminals.some((t) => t.id === a.id) && list.terminals.some((t) => t.id === b.id));
    const info = await c.call("mcp_info");
    assert.deepEqual(info.hosts.map((h) => h.host), ["one", "two"]);
    await second.stop();
    list = await c.call("list_terminals");
    assert.equal(list.errors.length, 1);
    assert.equal(list.errors[0].host, "two");
    assert.match(list.errors[0].error, /^host_unreachable: /);
    assert.ok(list.terminals.some((t) => t.id === a.id));
    await c.call("send_input", { id: a.id, data: "echo still-$((1+1))\n" });
    const read = await c.call("read_screen", { id: a.id, wait_for_text: "still-2", timeout_ms: 10_000 });
    assert.equal(read.matched, true);
    assert.match(await c.refused("read_screen", { id: b.id }), /^host_unreachable: /);
    const info2 = await c.call("mcp_info");
    assert.match(info2.hosts[1].error, /^host_unreachable: /);
  } finally {
    await c.client.close();
    await second.stop();
  }
});

test("stdio: a bad configuration exits 2 with one line", () => {
  const run = (args, env = {}) => spawnSync(BIN, ["mcp", ...args], {
    env: { PATH: process.env.PATH, ...env }, encoding: "utf8", input: "",
  });
  let r = run([]);
  assert.equal(r.status, 2);
  assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  r = run(["--url", relay.url]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no MCP token.*MCP settings/);
  r = run([], { WTERM_MCP_HOSTS: "{nope" });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /JSON array/);
  r = run(["--url", "ftp://x:1", "--token", "t"]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /accepted: http:\/\/host:port or https:\/\/host:port/);
  r = run(["--url", "https://x:1", "--token", "t", "--ca-cert", "/nonexistent/ca.pem"]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--ca-cert \/nonexistent\/ca.pem/);
});

test("mcp-config prints a ready .mcp.json and warns about the secret", () => {
  const r = spawnSync(BIN, ["mcp-config", "--url", relay.url], {
    env: { PATH: process.env.PATH, HOME: relay.home, WEB_TERMINAL_MCP_TOKEN: relay.mcpToken }, encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  const cfg = JSON.parse(r.stdout);
  assert.deepEqual(cfg.mcpServers.wterm, {
    type: "http", url: `${relay.url}/mcp`, headers: { Authorization: `Bearer ${relay.mcpToken}` },
  });
  assert.match(r.stderr, /secret.*outside git/);
  const s = spawnSync(BIN, ["mcp-config", "--stdio", "--url", relay.url], {
    env: { PATH: process.env.PATH, HOME: relay.home, WEB_TERMINAL_MCP_TOKEN: relay.mcpToken }, encoding: "utf8",
  });
  assert.equal(JSON.parse(s.stdout).mcpServers.wterm.args[0], "mcp");
  const none = spawnSync(BIN, ["mcp-config", "--state-dir", join(relay.home, "nothing")], {
    env: { PATH: process.env.PATH }, encoding: "utf8",
  });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /no MCP token yet/);
});

test("agent scenario over MCP: vim, python3, a runaway yes", async () => {
  const c = await httpClient(relay);
  const counts = {};
  try {
    const { id } = await c.call("launch_terminal", { cols: 100, rows: 30, cwd: relay.home });
    await c.call("read_screen", { id, wait_for_regex: PROMPT, timeout_ms: 10_000 });
    const file = join(relay.home, "notes.txt");

    // 1. Edit a file with vim through send_keys.
    let start = c.calls;
    await c.call("send_input", { id, data: `vim -u NONE -N ${file}\n` });
    const up = await c.call("read_screen", { id, wait_for_regex: "(?m)^~", timeout_ms: 10_000 });
    assert.equal(up.matched, true, up.text);
    const keys = ["i", ..."hello from mcp", "Esc", ":", "w", "q", "Enter"];
    await c.call("send_keys", { id, keys, delay_ms: 20 });
    const done = await c.call("read_screen", { id, wait_for_regex: PROMPT, timeout_ms: 10_000 });
    assert.equal(done.matched, true, done.text);
    counts.vim = c.calls - start;
    assert.equal(readFileSync(file, "utf8"), "hello from mcp\n");

    // 2. Run python3 and read a computed value back.
    start = c.calls;
    await c.call("send_input", { id, data: "clear; python3 -q\nprint(2**100)\nexit()\n" });
    const py = await c.call("read_screen", { id, wait_for_text: "1267650600228229401496703205376", timeout_ms: 10_000 });
    assert.equal(py.matched, true, py.text);
    counts.python = c.calls - start;

    // 3. Interrupt a runaway `yes`.
    start = c.calls;
    await c.call("send_input", { id, data: "clear; yes wterm-flood\n" });
    await c.call("read_screen", { id, wait_for_regex: "(?m)^wterm-flood$", timeout_ms: 10_000 });
    await c.call("send_keys", { id, keys: ["C-c"] });
    const t0 = Date.now();
    const back = await c.call("read_screen", { id, wait_for_regex: PROMPT, timeout_ms: 10_000 });
    assert.equal(back.matched, true, back.text);
    counts.yes = c.calls - start;
    console.log(`  agent scenario tool calls: vim ${counts.vim}, python3 ${counts.python}, yes ${counts.yes} (+2 to launch and wait for the first prompt); prompt back ${Date.now() - t0} ms after C-c`);
  } finally {
    await c.client.close();
  }
});

test("run_command and wait_for_command: exit codes and output in one call each", async () => {
  const c = await httpClient(relay);
  try {
    const { id } = await c.call("launch_terminal", { cols: 100, rows: 30, cwd: relay.home });
    await c.call("read_screen", { id, wait_for_regex: PROMPT, timeout_ms: 10_000 });
    // The shell reports once its first prompt is drawn.
    let row;
    for (let i = 0; i < 200; i++) {
      row = (await c.call("list_terminals", {})).terminals.find((t) => t.id === id);
      if (row.shell.state !== "unknown") break;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(row.shell.integration, "bash", JSON.stringify(row));
    const failed = await c.call("run_command", { id, command: "false" });
    assert.equal(failed.exit_code, 1, JSON.stringify(failed));
    // Who ran it: this client, by the name it gave in initialize (clientInfo).
    assert.deepEqual(failed.submitted_by, { kind: "mcp_client", name: "wterm-test" }, JSON.stringify(failed));
    assert.equal(failed.finished, true);
    assert.equal(failed.id, id);
    const seq = await c.call("run_command", { id, command: "seq 3" });
    assert.equal(seq.output, "1\n2\n3", JSON.stringify(seq));
    assert.equal(seq.exit_code, 0);
    // Ordered input: the Ctrl-C reaches `yes`, not the shell reading the line.
    await c.call("send_input", { id, data: "yes\n" });
    await c.call("send_keys", { id, keys: ["C-c"] });
    const waited = await c.call("read_screen", { id, wait_for_command: true, timeout_ms: 10_000 });
    assert.equal(waited.command.command, "yes", JSON.stringify(waited.command));
    assert.equal(waited.command.exit_code, 130);
    row = (await c.call("list_terminals", {})).terminals.find((t) => t.id === id);
    assert.equal(row.shell.last_command.exit_code, 130, JSON.stringify(row.shell));
    assert.match(await c.refused("run_command", { id, command: "a\nb" }), /^bad_request: /);
    assert.match(await c.refused("run_command", { id }), /^bad_arguments: .*command/);
  } finally {
    await c.client.close();
  }
});

test("progress: a 5 s wait sends progress notifications, and keeps a shorter client timeout alive", async () => {
  const c = await httpClient(relay);
  const errors = [];
  c.client.onerror = (e) => errors.push(String(e));
  try {
    const { id } = await c.call("launch_terminal", { cols: 80, rows: 24 });
    await c.call("read_screen", { id, wait_for_regex: PROMPT, timeout_ms: 10_000 });
    const seen = [];
    const started = Date.now();
    const r = await c.client.callTool(
      { name: "read_screen", arguments: { id, wait_for_text: "never-on-screen-" + rand(), timeout_ms: 5000 } },
      CallToolResultSchema,
      // The client's own timeout is shorter than the wait: progress resets it.
      { onprogress: (p) => seen.push(p), timeout: 2500, resetTimeoutOnProgress: true },
    );
    const took = Date.now() - started;
    assert.ok(!r.isError, r.content?.[0]?.text);
    assert.equal(JSON.parse(r.content[0].text).matched, false);
    assert.ok(took >= 4900, `the wait took ${took} ms`);
    assert.ok(seen.length >= 3, `progress notifications: ${JSON.stringify(seen)}`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress, JSON.stringify(seen));
    assert.match(seen[0].message, /waiting/);
    // run_command waits too.
    const ran = [];
    const cmd = await c.client.callTool(
      { name: "run_command", arguments: { id, command: "sleep 3" } },
      CallToolResultSchema, { onprogress: (p) => ran.push(p), timeout: 2000, resetTimeoutOnProgress: true },
    );
    assert.ok(!cmd.isError, cmd.content?.[0]?.text);
    assert.equal(JSON.parse(cmd.content[0].text).exit_code, 0);
    assert.ok(ran.length >= 2, JSON.stringify(ran));
    // Without onprogress the client sends no progressToken, and the relay sends nothing: a
    // notification for a token the client did not give would reach onerror.
    await c.call("read_screen", { id, wait_for_text: "never-" + rand(), timeout_ms: 2500 });
    assert.deepEqual(errors, []);
  } finally {
    await c.client.close();
  }
});

test("watch_url: the page's address for the window, no secret in it", async () => {
  const c = await httpClient(relay);
  try {
    const { id } = await c.call("launch_terminal", {});
    const w = await c.call("watch_url", { id });
    assert.equal(w.id, id);
    assert.equal(w.url, `${relay.url}/?session=${id.split(":")[1]}`);
    assert.ok(!w.url.includes(relay.token) && !w.url.includes(relay.mcpToken));
    assert.match(w.note, /page token/);
  } finally {
    await c.client.close();
  }
});

// The client half of tls.test.mjs, run with NODE_EXTRA_CA_CERTS naming the test's CA. Prints one
// JSON line of what worked; exits non-zero on the first failure.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const url = process.env.WTERM_TEST_URL;
const mcpToken = process.env.WTERM_TEST_MCP_TOKEN;
const report = {};

// The page realm over https: turn MCP on as the page's settings panel does.
const r = await fetch(`${url}/mcp/config`, {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.WTERM_TEST_PAGE_TOKEN}`, "Content-Type": "application/json" },
  body: JSON.stringify({ enabled: true, default_mode: "readwrite", allow_launch: true }),
});
assert.equal(r.status, 200, await r.text());

const http = new Client({ name: "wterm-tls-test", version: "1.0.0" });
await http.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
  requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } },
}));
const { tools } = await http.listTools();
report.http_tools = tools.some((t) => t.name === "send_input");
const json = async (name, args) => {
  const res = await http.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name}: ${res.content?.[0]?.text}`);
  return [JSON.parse(res.content[0].text), res.content[1]?.text];
};
const [launched] = await json("launch_terminal", {});
const [, text] = await json("send_input", {
  id: launched.id, data: "echo over-tls-$((6*7))\r", wait_for_text: "over-tls-42", timeout_ms: 15000,
});
report.http_typed = text.includes("over-tls-42");
await http.close();

const stdio = async (extra) => {
  const c = new Client({ name: "wterm-tls-stdio", version: "1.0.0" });
  await c.connect(new StdioClientTransport({
    command: process.env.WTERM_RELAY_BIN,
    args: ["mcp", "--url", url, "--token", mcpToken, ...extra],
    env: { PATH: process.env.PATH }, stderr: "pipe",
  }));
  return c;
};
// Trusting the test's CA: list and read through the bridge.
const trusted = await stdio(["--ca-cert", process.env.WTERM_TEST_CA]);
const listed = await trusted.callTool({ name: "list_terminals", arguments: {} });
report.stdio_tools = !listed.isError && listed.content[0].text.includes(launched.id.split(":")[1]);
await trusted.close();
// Without it: the system's CAs do not vouch for the certificate; the call fails, says why.
const untrusted = await stdio([]);
const refused = await untrusted.callTool({ name: "list_terminals", arguments: {} });
report.stdio_untrusted_refused = refused.isError === true && /certificate|unreachable/i.test(refused.content[0].text);
console.error("untrusted:", refused.content[0].text);
await untrusted.close();
console.log(JSON.stringify(report));

// The relay over TLS with the official MCP TypeScript SDK: the streamable HTTP
// transport over https, and `wterm-relay mcp --ca-cert` (stdio) reaching the relay over https.
// The certificate comes from a throwaway CA made for the test (scripts/make-test-cert.sh).
// Node trusts extra CAs only from NODE_EXTRA_CA_CERTS at start, so the client half runs in a
// child process (tls-client.mjs) started with it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startRelay, BIN } from "./harness.mjs";

test("TLS: MCP SDK over https, the stdio bridge over https (trusting --ca-cert only)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wterm-tls-"));
  const made = spawnSync("bash", ["scripts/make-test-cert.sh", dir], { encoding: "utf8" });
  assert.equal(made.status, 0, made.stderr);
  const relay = await startRelay({
    knobs: null,
    args: ["--tls-cert", join(dir, "cert.pem"), "--tls-key", join(dir, "key.pem")],
  });
  try {
    assert.match(relay.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const child = spawnSync(process.execPath, [resolve("tests/mcp/tls-client.mjs")], {
      encoding: "utf8",
      timeout: 60_000,
      env: {
        ...process.env,
        NODE_EXTRA_CA_CERTS: join(dir, "ca.pem"),
        WTERM_TEST_URL: relay.url, WTERM_TEST_PAGE_TOKEN: relay.token,
        WTERM_TEST_MCP_TOKEN: relay.mcpToken, WTERM_TEST_CA: join(dir, "ca.pem"),
        WTERM_RELAY_BIN: BIN,
      },
    });
    assert.equal(child.status, 0, `client failed:\n${child.stdout}\n${child.stderr}\nrelay:\n${relay.log()}`);
    const report = JSON.parse(child.stdout.trim().split("\n").pop());
    assert.deepEqual(report, {
      http_tools: true, http_typed: true, stdio_tools: true, stdio_untrusted_refused: true,
    });
  } finally {
    await relay.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

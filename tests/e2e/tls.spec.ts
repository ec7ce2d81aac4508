// The page over https and its websocket over wss, from the relay's own TLS, with a
// certificate from a throwaway CA made for the test. Chromium is told to accept it
// (ignoreHTTPSErrors): the CA is not in its store.
import { test, expect } from "@playwright/test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRelay, screenText, waitForPrompt, type Relay } from "./relay";

let relay: Relay;
let dir: string;
test.use({ ignoreHTTPSErrors: true });
test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "wterm-tls-e2e-"));
  const made = spawnSync("bash", ["scripts/make-test-cert.sh", dir], { encoding: "utf8" });
  expect(made.status, made.stderr).toBe(0);
  relay = await startRelay(["--tls-cert", join(dir, "cert.pem"), "--tls-key", join(dir, "key.pem"), "--hsts"]);
});
test.afterAll(async () => {
  await relay?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("the page over https, the shell over wss", async ({ page }) => {
  expect(relay.printedUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/#token=/);
  const sockets: string[] = [];
  page.on("websocket", (ws) => sockets.push(ws.url()));
  const response = await page.goto(relay.pageUrl());
  expect(response?.headers()["strict-transport-security"]).toBe("max-age=31536000");
  expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
  await waitForPrompt(page);
  expect(sockets.length).toBeGreaterThan(0);
  expect(sockets.every((u) => u.startsWith("wss://127.0.0.1:"))).toBe(true);
  await page.keyboard.type("echo secure-$((6*7))\n");
  await expect.poll(() => screenText(page)).toContain("\nsecure-42");
});

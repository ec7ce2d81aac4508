// Sessions that outlive the relay (the relay's default; no flag given here): the
// relay restarts under a page (SIGTERM, then SIGKILL); the page re-attaches by itself to the same
// shell, with its screen, and what was typed while the relay was down reaches the shell once,
// also keys sent in the instant it died (numbered input, resent from where the holder stood).
import { test, expect } from "@playwright/test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startRelay, screenText, waitForPrompt, RELAY_BIN } from "./relay";

const lines = async (page: import("@playwright/test").Page) => (await screenText(page)).split("\n");

test("the page re-attaches to its shell after relay restarts; input typed meanwhile arrives once", async ({ page }) => {
  test.setTimeout(90_000);
  const first = await startRelay([], { token: "restart-token-e2e", persist: true });
  const port = Number(new URL(first.url).port);
  const again = () => startRelay([], { token: "restart-token-e2e", home: first.home, port, persist: true });
  let last = first;
  try {
    await page.goto(first.pageUrl());
    await waitForPrompt(page);
    await page.keyboard.type("echo before-$((1+1))\n");
    await expect.poll(() => lines(page)).toContain("before-2");

    for (const [signal, n] of [["SIGTERM", 6], ["SIGKILL", 8], ["SIGSTOP", 10]] as const) {
      if (signal === "SIGSTOP") {
        // Typed while the page is still attached to a relay that reads nothing, which then
        // dies: the keys were sent and never arrived. The new relay says what did; the page
        // sends the rest again.
        await waitForPrompt(page);
        await last.pause();
        await page.keyboard.type(`echo gap-$((${n / 2}+${n / 2}))\n`);
        await last.kill("SIGKILL");
      } else {
        await last.kill(signal);
        // Typed while no relay runs: the page's client keeps it until it is attached again.
        await page.keyboard.type(`echo gap-$((${n / 2}+${n / 2}))\n`);
      }
      last = await again();
      await expect.poll(() => lines(page), { timeout: 20_000 }).toContain(`gap-${n}`);
      expect((await lines(page)).filter((l) => l === `gap-${n}`)).toHaveLength(1);
      // The same shell, its screen rebuilt from the holder: the line from before is still there.
      expect(await lines(page)).toContain("before-2");
    }
    await waitForPrompt(page);
    await page.keyboard.type("echo after-$((2+3))\n");
    await expect.poll(() => lines(page)).toContain("after-5");
    // Its end is the holder's end too.
    await page.keyboard.type("exit\n");
    await expect.poll(async () => (await fetch(`${last.url}/sessions`, { headers: { Authorization: "Bearer restart-token-e2e" } }).then((r) => r.json())).length).toBe(0);
  } finally {
    await last.stop();
  }
});

test("wterm-relay holders list names the page's shell, and holders kill ends it under the page", async ({ page }) => {
  const relay = await startRelay([], { persist: true });
  const state = join(relay.home, "state");
  const holders = (...args: string[]) =>
    spawnSync(RELAY_BIN, ["holders", ...args, "--state-dir", state], { encoding: "utf8" });
  try {
    await page.goto(relay.pageUrl());
    await waitForPrompt(page);
    const id = Number(new URL(page.url()).searchParams.get("session"));
    const listed = holders("list", "--json");
    expect(listed.status, listed.stderr).toBe(0);
    const rows = listed.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ state: "live", holder: { id, attached: true } });
    const killed = holders("kill", String(id));
    expect(killed.status, killed.stderr).toBe(0);
    expect(killed.stdout).toContain(`session ${id} ended`);
    // The relay saw the end: the page says so, and the session is gone from the list.
    await expect(page.locator("#status")).toContainText("The session ended");
    const left = await fetch(`${relay.url}/sessions`, { headers: { Authorization: `Bearer ${relay.token}` } });
    expect(await left.json()).toEqual([]);
    expect(holders("list", "--json").stdout.trim()).toBe("");
  } finally {
    await relay.stop();
  }
});

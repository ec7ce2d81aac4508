// Starts the real wterm-relay binary for a test: a fresh state directory, a known page token,
// bash with a plain prompt, and a port chosen by the OS. Sessions end with the relay
// (`--no-persist`) unless the test is about held sessions (`persist: true`, the relay's own
// default): then stopping the relay ends them too (`wterm-relay holders kill --all`).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Page } from "@playwright/test";

export const RELAY_BIN = resolve(process.env.WTERM_RELAY_BIN ?? "target/release/wterm-relay");

export interface Relay {
  url: string; // http://127.0.0.1:PORT (https with --tls-cert)
  token: string;
  home: string; // the shell's HOME, a temp dir
  pageUrl: (query?: string) => string; // page URL with the token in the fragment
  printedUrl: string; // the page URL as the relay printed it
  /** Ends held sessions (with `persist`), then the relay, and removes its home. */
  stop: () => Promise<void>;
  /** Ends the relay with `signal` and waits for it, keeping its home, state directory and
   * held sessions (a restart on the same `home` takes them over). */
  kill: (signal: NodeJS.Signals) => Promise<void>;
  /** SIGSTOP: returns once every thread of the relay is stopped (what the page sends then
   * waits unread in the relay's socket). */
  pause: () => Promise<void>;
  log: () => string;
}

export async function startRelay(
  extraArgs: string[] = [],
  opts: { token?: string; home?: string; port?: number; persist?: boolean; shellsInHome?: boolean } = {},
): Promise<Relay> {
  // `home` and `port`: a restart of an earlier relay, on its state directory and port.
  const home = opts.home ?? mkdtempSync(join(tmpdir(), "wterm-e2e-"));
  const token = opts.token ?? "e2e-" + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
  writeFileSync(join(home, ".bashrc"), "PS1='$ '\nunset PROMPT_COMMAND\n");
  const state = join(home, "state");
  const persistence = opts.persist ? [] : ["--no-persist"];
  const child: ChildProcess = spawn(
    RELAY_BIN,
    ["serve", "--port", String(opts.port ?? 0), "--state-dir", state, ...persistence, ...extraArgs],
    {
      // `shellsInHome`: the relay's working directory, where the page's shells start, is `home`
      // (else the one of the test run).
      ...(opts.shellsInHome && { cwd: home }),
      env: {
        ...process.env,
        HOME: home,
        SHELL: "/bin/bash",
        WEB_TERMINAL_TOKEN: token,
        RUST_LOG: process.env.RUST_LOG ?? "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stderr!.on("data", (d) => (out += d.toString()));
  const [url, printedUrl] = await new Promise<[string, string]>((res, rej) => {
    const timer = setTimeout(() => rej(new Error("relay did not print its URL in 15 s:\n" + out)), 15_000);
    child.stdout!.on("data", (d) => {
      out += d.toString();
      const m = out.match(/listening on ((https?:\/\/[^/\s]+)\/\S*)/);
      if (m) {
        clearTimeout(timer);
        res([m[2], m[1]]);
      }
    });
    child.on("exit", (code) => rej(new Error(`relay exited with ${code}:\n${out}`)));
  });
  return {
    url,
    token,
    home,
    pageUrl: (query = "") => `${url}/${query}#token=${token}`,
    printedUrl,
    log: () => out,
    pause: async () => {
      child.kill("SIGSTOP");
      const stopped = () =>
        readdirSync(`/proc/${child.pid}/task`).every((t) => {
          const stat = readFileSync(`/proc/${child.pid}/task/${t}/stat`, "utf8");
          return /^[tT]$/.test(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]);
        });
      for (let i = 0; !stopped(); i++) {
        if (i > 1000) throw new Error("the relay did not stop within 5 s");
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill(signal);
        await exited;
      }
    },
    stop: async () => {
      // Whether or not this relay still runs (a test may have killed it), its holders go.
      if (opts.persist) endHeldSessions(state);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** `wterm-relay holders kill --all` on `stateDir`: ends every session held there. */
export function endHeldSessions(stateDir: string): void {
  spawnSync(RELAY_BIN, ["holders", "kill", "--all", "--state-dir", stateDir], { stdio: "ignore" });
}

/** The terminal's visible text as a person sees it: one line per row, trailing spaces trimmed. */
export async function screenText(page: Page): Promise<string> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll(".wterm-row"))
      .map((r) => (r.textContent ?? "").replace(/\s+$/u, ""))
      .join("\n"),
  );
}

/**
 * Types `command` at the prompt, waits for its echo, presses Enter and waits for the next
 * prompt. (Typing the line with its newline and then waiting for a prompt could see the old
 * prompt before the echo arrived.)
 */
export async function runCommand(page: Page, command: string, timeout = 15_000): Promise<void> {
  await page.keyboard.type(command);
  await page.waitForFunction(
    (cmd) => {
      const rows = Array.from(document.querySelectorAll(".wterm-row")).map((r) => (r.textContent ?? "").trimEnd());
      return rows.join("").trimEnd().endsWith("$ " + cmd.trimEnd());
    },
    command,
    { timeout, polling: 50 },
  );
  await page.keyboard.press("Enter");
  await waitForPrompt(page, timeout);
}

/** Resolves once the shell prompt is the last non-empty line. */
export async function waitForPrompt(page: Page, timeout = 15_000): Promise<void> {
  await page.waitForFunction(
    () => {
      const rows = Array.from(document.querySelectorAll(".wterm-row")).map((r) => (r.textContent ?? "").trimEnd());
      const filled = rows.filter((r) => r.length > 0);
      return filled.length > 0 && filled[filled.length - 1] === "$";
    },
    undefined,
    { timeout, polling: 50 },
  );
}

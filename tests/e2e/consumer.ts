// What the consumer specs (npm-consumer, npm-bundlers) share: where tests/consumer/*.sh put the
// installs, the apps' CSS theme, a static server over a built app's directory, and a dev or
// production server of the app's own tool (`vite`, `next start`) started as a child process on
// 127.0.0.1 and a free port, stopped by the test.
import type { Page } from "@playwright/test";
import { existsSync, readFileSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";

/** $WTERM_CONSUMER_DIR as tests/consumer/run.sh and bundlers.sh read it. */
export const CONSUMER_DIR = process.env.WTERM_CONSUMER_DIR || join(process.env.TMPDIR || "/tmp", "wterm-consumer");

/** The install directory a consumer script last built in (`sub`: "" for run.sh's Vite 7 app,
 * "bundlers" for bundlers.sh), from the file `current` it writes; throws naming the command. */
export function currentInstall(sub: string, command: string): string {
  const file = join(CONSUMER_DIR, sub, "current");
  const dir = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  if (!dir || !existsSync(dir)) throw new Error(`no consumer install named in ${file}; run: ${command}`);
  return dir;
}

/** What the consumer apps' own CSS sets on `.wterm` (tests/consumer/app/src/page.css and the
 * bundler apps' CSS): the computed style must show it, not the package's defaults. */
export const APP_THEME = { background: "rgb(12, 34, 56)", fontSize: "20px" };

/** The `.wterm` element's computed background color and font size. */
export const computedTheme = (page: Page) =>
  page.evaluate(() => {
    const s = getComputedStyle(document.querySelector(".wterm")!);
    return { background: s.backgroundColor, fontSize: s.fontSize };
  });

/** Longest a dev or production server may take to answer its first request, in milliseconds
 * (Vite's dev server answers in about a second; `next start` in two). */
export const SERVER_START_TIMEOUT_MS = 30_000;
/** Between two tries of a starting server's first page, in milliseconds. */
const SERVER_POLL_MS = 200;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".wasm": "application/wasm",
};

/** A running server: its base URL and how to stop it. */
export interface RunningServer {
  base: string;
  /** What the server printed (stdout and stderr), for the error when it fails to start. */
  output(): string;
  close(): Promise<void>;
}

/** Serves the files of `dir` (a built app), `/` being index.html. */
export async function serveDir(dir: string): Promise<RunningServer> {
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    if (path === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    const file = normalize(join(dir, path === "/" ? "index.html" : path.slice(1)));
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  return { base, output: () => "", close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A port nobody listens on now (the OS's choice for port 0). */
async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const addr = s.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  await new Promise((r) => s.close(r));
  return port;
}

/**
 * Starts `command args...` in `cwd` with `PORT` in `args` replaced by a free port, and resolves
 * once `http://127.0.0.1:PORT/` answers (any status); throws with the server's output when it
 * exits or takes longer than SERVER_START_TIMEOUT_MS.
 */
export async function startServer(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(command, args.map((a) => a.replace("PORT", String(port))), {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const base = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
  };
  const deadline = Date.now() + SERVER_START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}:\n${out}`);
    try {
      await fetch(base + "/");
      return { base, output: () => out, close };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`${command} did not answer on ${base} within ${SERVER_START_TIMEOUT_MS} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, SERVER_POLL_MS));
  }
}

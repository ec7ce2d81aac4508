// A flood through the relay into a real page: how fast it crosses, how far behind the page's
// screen gets, and what the page holds meanwhile. Not part of CI.
//
//   node bench/page-flood/run.mjs [--mb 50] [--runs 3] [--relay target/release/wterm-relay]
//
// Needs the release relay and wterm-wasm/pkg (scripts/build.sh), Debian's chromium and
// python3. The shell runs flood.py: MB megabytes of 80-byte lines, each starting with the wall
// clock in ms when it was written, then an end marker. Every SAMPLE_MS the bench reads the
// page's screen (the DOM a person sees) and takes lag = now - the newest timestamp on it, and
// the page's JS heap (CDP Performance.getMetrics) and the largest renderer process's RSS. Reported per run:
// the time from Enter to the marker on screen (throughput), lag p50/p99/max, peak JS heap; and
// after the run, Ctrl+C during `yes`: time until the prompt is back on screen.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const MB = Number(arg("mb", 50));
const RUNS = Number(arg("runs", 3));
const RELAY = resolve(arg("relay", "target/release/wterm-relay"));
const PKG = arg("pkg-dir", null);
/** Sampling interval of the page's screen, in ms. */
const SAMPLE_MS = 100;

async function startRelay() {
  const home = mkdtempSync(join(tmpdir(), "wterm-flood-"));
  const token = "flood-" + Math.random().toString(36).slice(2) + "xxxxxxxx";
  writeFileSync(join(home, ".bashrc"), "PS1='$ '\nunset PROMPT_COMMAND\n");
  // --no-persist: the shells are the relay's children and end with it (holders, the relay's
  // default, would outlive a killed bench; relay-bench measures their cost).
  const args = ["serve", "--port", "0", "--state-dir", join(home, "state"), "--no-persist"];
  if (PKG) args.push("--pkg-dir", PKG);
  const child = spawn(RELAY, args, {
    env: { ...process.env, HOME: home, SHELL: "/bin/bash", WEB_TERMINAL_TOKEN: token, RUST_LOG: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr.on("data", (d) => (out += d));
  const url = await new Promise((res, rej) => {
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/[^/\s]+)/);
      if (m) res(m[1]);
    });
    child.on("exit", (c) => rej(new Error(`relay exited ${c}: ${out}`)));
  });
  return { url, token, home, child, pid: child.pid };
}

/** The largest resident set of chromium's renderer processes, in MB (Linux /proc). */
function rendererRssMb() {
  let max = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer")) continue;
      const pages = Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]);
      max = Math.max(max, (pages * 4096) / 1e6);
    } catch {}
  }
  return max;
}

const screen = (page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll(".wterm-row")).map((r) => (r.textContent ?? "").trimEnd()),
  );

async function waitFor(page, pred, timeoutMs) {
  const t0 = Date.now();
  for (;;) {
    const rows = await screen(page);
    if (pred(rows)) return rows;
    if (Date.now() - t0 > timeoutMs) throw new Error("timed out:\n" + rows.join("\n"));
    await new Promise((r) => setTimeout(r, 20));
  }
}
const prompt = (rows) => rows.filter((r) => r).at(-1) === "$";
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

const relay = await startRelay();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
});
const results = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.newPage({ viewport: { width: 1000, height: 640 } });
    // Counts what the page is sent: binary bytes, and resyncs (frames that start with CAN RIS).
    await page.addInitScript(() => {
      const counts = (globalThis.__flood = { bytes: 0, resyncs: 0 });
      const Base = WebSocket;
      globalThis.WebSocket = class extends Base {
        constructor(...args) {
          super(...args);
          this.addEventListener("message", (ev) => {
            if (typeof ev.data === "string") return;
            const b = new Uint8Array(ev.data);
            counts.bytes += b.length;
            if (b[0] === 0x18 && b[1] === 0x1b && b[2] === 0x63) counts.resyncs++;
          });
        }
      };
    });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable");
    await page.goto(`${relay.url}/#token=${relay.token}`);
    await waitFor(page, prompt, 15_000);
    await page.keyboard.type(`python3 ${join(here, "flood.py")} ${MB}\n`);
    const t0 = Date.now();
    const lags = [];
    let heapMax = 0;
    let rssMax = 0;
    let end = null;
    while (!end) {
      const rows = await screen(page);
      const now = Date.now();
      if (rows.some((r) => r === "__FLOOD_END__")) {
        end = now;
        break;
      }
      const stamps = rows.map((r) => Number(r.match(/^\s*(\d{13})\s/)?.[1])).filter((n) => n > 0);
      if (stamps.length) lags.push(now - Math.max(...stamps));
      const { metrics } = await cdp.send("Performance.getMetrics");
      const heap = metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? 0;
      heapMax = Math.max(heapMax, heap);
      rssMax = Math.max(rssMax, rendererRssMb());
      if (now - t0 > 300_000) throw new Error("flood did not end in 300 s");
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
    const secs = (end - t0) / 1000;
    const sent = await page.evaluate(() => globalThis.__flood);
    await waitFor(page, prompt, 30_000);
    // Ctrl+C during `yes`, once the flood has run a second.
    await page.keyboard.type("yes\n");
    await new Promise((r) => setTimeout(r, 1000));
    const c0 = Date.now();
    await page.keyboard.press("Control+c");
    await waitFor(page, prompt, 30_000);
    const ctrlC = Date.now() - c0;
    const r = {
      run,
      seconds: secs,
      mb_per_s: MB / secs,
      lag_p50_ms: pct(lags, 50),
      lag_p99_ms: pct(lags, 99),
      lag_max_ms: Math.max(...lags),
      samples: lags.length,
      js_heap_max_mb: heapMax / 1e6,
      renderer_rss_max_mb: rssMax,
      ctrl_c_ms: ctrlC,
      page_got_mb: sent.bytes / 1e6,
      resyncs: sent.resyncs,
    };
    results.push(r);
    console.log(JSON.stringify(r));
    await page.close();
  }
} finally {
  await browser.close();
  const exited = new Promise((r) => relay.child.once("exit", r));
  relay.child.kill("SIGTERM");
  await exited;
  rmSync(relay.home, { recursive: true, force: true });
}
const med = (k) => pct(results.map((r) => r[k]), 50);
console.log(
  `median of ${RUNS}: ${med("mb_per_s").toFixed(1)} MB/s, lag p50 ${med("lag_p50_ms")} ms, p99 ${med("lag_p99_ms")} ms, ` +
    `max ${med("lag_max_ms")} ms, JS heap max ${med("js_heap_max_mb").toFixed(1)} MB, renderer RSS max ${med("renderer_rss_max_mb").toFixed(0)} MB, Ctrl+C ${med("ctrl_c_ms")} ms`,
);

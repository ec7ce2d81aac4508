// Browser benchmark: wterm-rs (the built npm package in wterm-wasm/pkg) against xterm.js 6
// (DOM and WebGL renderers), ghostty-web and @wterm/dom, in one headless Chromium page, one
// terminal after another. Prints one table and writes the raw results to bench/results/.
//
//   bash bench/browser/run.sh [--quick] [--terminals=wterm,xterm-dom,...] [--corpora=ls,sgr,...]
//
// Per (terminal, workload, size): MB/s from the first write until the frame after the last byte
// was processed has been painted; rAF interval p50/p99 while streaming; memory (JS heap delta
// after forced GCs + the terminal's wasm memory). Every run must show the corpus's end marker
// on its final screen (DOM text for DOM renderers; buffer text plus a pixel check of the
// marker's row for canvas/WebGL renderers), else it is reported as FAILED and left out of the
// aggregates. Also reports the bytes each library made the page load, raw and gzipped.
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { cpus, loadavg } from "node:os";
import { CORPORA, FULL_CORPUS_BYTES, QUICK_CORPUS_BYTES, SEED, SIZED_CORPORA, generate } from "./corpus.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const PKG = join(root, "wterm-wasm/pkg");
const NODE_MODULES = join(here, "node_modules");
const PAGE = join(here, "page");
const RESULTS = join(root, "bench/results");

/** Terminal sizes, as {cols, rows}. */
const SIZES = [{ cols: 80, rows: 24 }, { cols: 200, rows: 50 }];
/** The terminals, in column order; `wterm` (ours) first. */
const TERMINALS = ["wterm", "xterm-dom", "xterm-webgl", "ghostty", "wterm-dom"];
/** Our throughput goal against the faster of xterm.js's two renderers. */
const TARGET_RATIO = 1.5;
/** A run that takes longer than this is abandoned (page reloaded) and reported as failed, in ms. */
const RUN_TIMEOUT_MS = 10 * 60 * 1000;
/**
 * Bytes of each corpus every terminal writes once, unmeasured, before the measured runs (256 KiB).
 * Without it the first run of each library pays for its JIT warming up and the first CJK run in
 * the page for the browser's font fallback lookup, which later runs skip: whichever terminal went
 * first was measured slower by up to 2x.
 */
const WARMUP_BYTES = 256 * 1024;
/** How far, in cells, the last inked pixel of the marker's row may lie from the marker's end. */
const MARKER_INK_TOLERANCE_CELLS = 1.5;
/** Browser window, in CSS pixels: room for a 200x50 terminal at 14px. */
const VIEWPORT = { width: 1920, height: 1080 };
const MIB = 1024 * 1024;

const CHROMIUM_ARGS = [
  "--no-sandbox",
  // WebGL in headless: software GL through ANGLE/SwiftShader (checked and reported below).
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
  "--ignore-gpu-blocklist",
  // gc() for the memory readings, and performance.memory not rounded to coarse buckets.
  "--js-flags=--expose-gc",
  "--enable-precise-memory-info",
  // Keep rAF running at full rate whatever the headless window's state.
  "--disable-background-timer-throttling",
  "--disable-renderer-backgrounding",
  "--disable-backgrounding-occluded-windows",
];

// --- arguments ------------------------------------------------------------------------------

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const listArg = (name, all) => {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  if (!a) return all;
  const list = a.slice(name.length + 3).split(",");
  const bad = list.filter((x) => !all.includes(x));
  if (bad.length) throw new Error(`--${name}: unknown ${bad.join(", ")} (known: ${all.join(", ")})`);
  return list;
};
const terminals = listArg("terminals", TERMINALS);
const corpora = listArg("corpora", CORPORA);
const budget = quick ? QUICK_CORPUS_BYTES : FULL_CORPUS_BYTES;

try {
  statSync(join(PKG, "wterm_wasm.js"));
} catch {
  console.error(`bench: ${PKG}/wterm_wasm.js missing; build first: bash scripts/build.sh`);
  process.exit(2);
}

// --- corpora and server ---------------------------------------------------------------------

const started = Date.now();
const loadAtStart = loadavg();
const files = new Map(); // file name -> {bytes, marker}
const corpusFile = (name, size) => (SIZED_CORPORA.has(name) ? `${name}-${size.cols}x${size.rows}.bin` : `${name}.bin`);
for (const name of corpora) {
  for (const size of SIZED_CORPORA.has(name) ? SIZES : [SIZES[0]]) {
    const c = generate(name, budget, size);
    files.set(corpusFile(name, size), c);
    files.set(`warmup-${corpusFile(name, size)}`, { bytes: c.bytes.subarray(0, WARMUP_BYTES), marker: null });
  }
}

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json" };
/** Bytes served per library (first load of each path), for the size report. */
const served = new Map(); // path -> bytes
/** Paths the page asked for and did not get (reported: a library may have silently fallen back). */
const notFound = new Set();
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
  let body;
  let type;
  if (path.startsWith("/corpus/")) {
    body = files.get(path.slice(8))?.bytes;
    type = "application/octet-stream";
  } else {
    const [dir, rel] = path.startsWith("/pkg/")
      ? [PKG, path.slice(5)]
      : path.startsWith("/nm/")
        ? [NODE_MODULES, path.slice(4)]
        : [PAGE, path.slice(1) || "index.html"];
    const file = normalize(join(dir, rel));
    if (file.startsWith(dir + "/")) {
      try {
        body = readFileSync(file);
        type = TYPES[extname(file)] ?? "application/octet-stream";
        if (dir !== PAGE) served.set(path, body);
      } catch {}
    }
  }
  if (!body) {
    if (path !== "/favicon.ico") notFound.add(path);
    return res.writeHead(404).end();
  }
  res.writeHead(200, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

// --- browser --------------------------------------------------------------------------------

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  headless: true,
  args: CHROMIUM_ARGS,
});
const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
let page;
const pageErrors = [];
async function openPage() {
  page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") pageErrors.push(m.text()); });
  await page.goto(`${base}/index.html`);
  await page.waitForFunction(() => window.benchReady === true);
}
await openPage();
const env = await page.evaluate(() => window.bench.environment());
const labels = await page.evaluate(() => window.bench.labels);
const canvasRenderer = await page.evaluate(() => window.bench.canvas);
const constants = await page.evaluate(() => window.bench.constants);
if (!env.gc) throw new Error("gc() missing: Chromium ignored --js-flags=--expose-gc");

const withTimeout = (p, ms, what) =>
  Promise.race([p, new Promise((_, fail) => setTimeout(() => fail(new Error(`${what}: timed out after ${ms} ms`)), ms))]);

/** Checks that the run really shows the corpus's end marker; returns {ok, how}. */
async function verify(terminal, r, marker, size) {
  const { rendered, buffer } = r.screen;
  const markerRow = (rows) => rows?.findIndex((line) => line.includes(marker)) ?? -1;
  if (!canvasRenderer[terminal] || r.info.renderer === "dom" || rendered) {
    const row = markerRow(rendered);
    return row >= 0 ? { ok: true, how: `marker in rendered DOM row ${row}` } : { ok: false, how: "marker not in the rendered DOM rows" };
  }
  const row = markerRow(buffer);
  if (row < 0) return { ok: false, how: "marker not on the buffer's screen" };
  const g = r.grid;
  const shot = await page.screenshot({ clip: { x: g.x, y: g.y, width: Math.max(1, g.w), height: Math.max(1, g.h) } });
  if (process.env.BENCH_SHOTS) {
    // Debugging aid: keep the screenshots the pixel check looked at.
    mkdirSync(process.env.BENCH_SHOTS, { recursive: true });
    writeFileSync(join(process.env.BENCH_SHOTS, `${terminal}-${size.cols}x${size.rows}-${marker}.png`), shot);
  }
  const ink = await page.evaluate(
    ([b64, grid, rows, cols, row]) => window.bench.inkExtent(b64, grid, rows, cols, row),
    [shot.toString("base64"), { ...g, x: 0, y: 0 }, size.rows, size.cols, row],
  );
  const col = buffer[row].indexOf(marker) + marker.length;
  const ok = Math.abs(ink.cells - col) <= MARKER_INK_TOLERANCE_CELLS;
  return { ok, how: `marker in buffer row ${row}; pixels of that row end at cell ${ink.cells.toFixed(1)} (marker ends at ${col})` };
}

// --- the runs -------------------------------------------------------------------------------

// Warm-up: see WARMUP_BYTES. A warm-up that fails (a library that crashes on a corpus) is not
// tried again, and its error is left to the measured run to report. Its page is replaced by a
// fresh one, which has warmed up nothing, so the whole warm-up starts over in it: before this,
// ghostty-web crashing on the CJK warm-up left every measured CJK run after it in a page where
// only @wterm/dom had warmed up, and ours, first in each workload, paid the page's first CJK
// font fallback lookups (cjk 80x24 measured 8.7 MB/s that way against 16-20 in a warm page).
const warmupFailed = new Set();
/** Page replacements after a failed run, warm-ups included (reported). */
let pageReloads = 0;
async function replacePage() {
  pageReloads++;
  await page.close().catch(() => {});
  await openPage();
}
async function warmUp() {
  for (;;) {
    let failed = false;
    for (const terminal of terminals) {
      process.stderr.write(`bench: warm-up ${terminal} ... `);
      for (const size of SIZES) {
        for (const name of corpora) {
          const file = `warmup-${corpusFile(name, size)}`;
          const key = `${terminal} ${file} ${size.cols}x${size.rows}`;
          if (warmupFailed.has(key)) continue;
          try {
            await withTimeout(page.evaluate((o) => window.bench.run(o), { terminal, file, rows: size.rows, cols: size.cols }), RUN_TIMEOUT_MS, file);
            await page.evaluate(() => window.bench.finish());
          } catch (e) {
            process.stderr.write(`${file} failed (${String(e.message ?? e).split("\n")[0]}); new page, warm-up starts over\n`);
            warmupFailed.add(key);
            await replacePage();
            failed = true;
            break;
          }
        }
        if (failed) break;
      }
      if (failed) break;
      process.stderr.write("done\n");
    }
    if (!failed) return;
  }
}
await warmUp();

const results = [];
for (const size of SIZES) {
  for (const name of corpora) {
    const file = corpusFile(name, size);
    const { marker, bytes } = files.get(file);
    for (const terminal of terminals) {
      const tag = `${name} ${size.cols}x${size.rows} ${terminal}`;
      process.stderr.write(`bench: ${tag} (${(bytes.length / MIB).toFixed(1)} MiB) ... `);
      let r;
      try {
        // BENCH_METRICS=1: where the run's main-thread time went (CDP Performance metrics).
        const cdp = process.env.BENCH_METRICS ? await page.context().newCDPSession(page) : null;
        const metrics = async () => {
          if (!cdp) return null;
          const { metrics: m } = await cdp.send("Performance.getMetrics");
          return Object.fromEntries(m.map((x) => [x.name, x.value]));
        };
        if (cdp) await cdp.send("Performance.enable");
        if (cdp && process.env.BENCH_PROFILE) {
          await cdp.send("Profiler.enable");
          await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
          await cdp.send("Profiler.start");
        }
        // BENCH_TRACE=DIR: a Chrome trace of each measured run (chrome://tracing, Perfetto).
        const trace = process.env.BENCH_TRACE;
        if (trace) {
          mkdirSync(trace, { recursive: true });
          await browser.startTracing(page, {
            path: join(trace, `${name}-${size.cols}x${size.rows}-${terminal}.json`),
            categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink", "cc", "gpu", "skia", "v8"],
          });
        }
        const m0 = await metrics();
        r = await withTimeout(
          page.evaluate((o) => window.bench.run(o), { terminal, file, rows: size.rows, cols: size.cols }),
          RUN_TIMEOUT_MS,
          tag,
        );
        const m1 = await metrics();
        if (trace) await browser.stopTracing();
        if (cdp && process.env.BENCH_PROFILE) {
          // BENCH_PROFILE=1: the functions with the most self time (sampling profiler).
          const { profile } = await cdp.send("Profiler.stop");
          const self = new Map();
          const dt = profile.timeDeltas ?? [];
          const byId = new Map(profile.nodes.map((n) => [n.id, n]));
          (profile.samples ?? []).forEach((id, i) => {
            const n = byId.get(id);
            const key = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").pop()}`;
            self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
          });
          const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
          process.stderr.write("\n" + top.map(([k, v]) => `    ${v.toFixed(0).padStart(6)} ms  ${k}`).join("\n") + "\n");
        }
        if (m0 && m1) {
          const d = (k) => ((m1[k] - m0[k]) * 1000).toFixed(0);
          process.stderr.write(
            `[script ${d("ScriptDuration")} ms, layout ${d("LayoutDuration")} ms, style ${d("RecalcStyleDuration")} ms, ` +
              `task ${d("TaskDuration")} ms, layouts ${m1.LayoutCount - m0.LayoutCount}] `,
          );
        }
        r.verified = await verify(terminal, r, marker, size);
        await page.evaluate(() => window.bench.finish());
      } catch (e) {
        // The first line says what happened; the rest is the library's stack.
        r = { error: String(e.message ?? e).split("\n")[0], verified: { ok: false, how: "run failed" } };
        await replacePage();
        await warmUp();
      }
      const rec = { terminal, corpus: name, cols: size.cols, rows: size.rows, marker, ...r };
      results.push(rec);
      process.stderr.write(
        r.error
          ? `ERROR ${r.error}\n`
          : `${r.mbPerSec.toFixed(2)} MB/s, frames p50 ${r.frameP50?.toFixed(1)} p99 ${r.frameP99?.toFixed(1)} ms, ` +
              `${(r.memDelta / MIB).toFixed(1)} MiB, scrollback ${r.scrollbackRows}${r.verified.ok ? "" : ` NOT VERIFIED: ${r.verified.how}`}\n`,
      );
    }
  }
}
await browser.close();
server.close();

// --- reference screens: which terminals agree with xterm.js DOM on the final screen --------------

const screenOf = (r) => (r.screen?.rendered ?? r.screen?.buffer ?? []).map((l) => l.replace(/\s+$/u, "")).join("\n");
for (const r of results) {
  const ref = results.find((x) => x.terminal === "xterm-dom" && x.corpus === r.corpus && x.cols === r.cols && !x.error);
  r.sameScreenAsXtermDom = ref && !r.error ? screenOf(r) === screenOf(ref) : null;
}

// --- size report ----------------------------------------------------------------------------

const LIB_OF = [
  ["/pkg/", "wterm"],
  ["/nm/@xterm/addon-webgl/", "xterm-webgl addon"],
  ["/nm/@xterm/xterm/", "xterm"],
  ["/nm/ghostty-web/", "ghostty"],
  ["/nm/@wterm/", "wterm-dom"],
];
const sizes = {};
for (const [path, body] of served) {
  const lib = LIB_OF.find(([p]) => path.startsWith(p))?.[1] ?? "other";
  const s = (sizes[lib] ??= { files: {}, raw: 0, gzip: 0 });
  const gz = gzipSync(body, { level: 9 }).length;
  s.files[path] = { raw: body.length, gzip: gz };
  s.raw += body.length;
  s.gzip += gz;
}
const pkgFile = (f) => { const b = readFileSync(join(PKG, f)); return { raw: b.length, gzip: gzipSync(b, { level: 9 }).length }; };
const ours = { wasm: pkgFile("wterm_wasm_bg.wasm"), glue: pkgFile("wterm_wasm.js") };

// --- report ---------------------------------------------------------------------------------

const ok = (r) => r && !r.error && r.verified.ok;
const find = (t, c, s) => results.find((r) => r.terminal === t && r.corpus === c && r.cols === s.cols);
const fmtCell = (r) => {
  if (!r) return "-";
  if (r.error) return "ERROR";
  const s = `${r.mbPerSec.toFixed(1)} ${r.frameP50.toFixed(0)}/${r.frameP99.toFixed(0)} ${(r.memDelta / MIB).toFixed(1)}`;
  return r.verified.ok ? s : `${s} *`;
};
const geomean = (xs) => (xs.length ? Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length) : null);
const pad = (s, n) => String(s).padEnd(n);
const W0 = 16;
const W = 24;
const lines = [];
const say = (s = "") => lines.push(s);

say(`wterm browser benchmark (${quick ? "quick" : "full"}: ${(budget / MIB).toFixed(0)} MiB per corpus, ${constants.CHUNK_BYTES / 1024} KiB writes, seed ${SEED.toString(16)})`);
say(`Chromium: ${env.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? env.userAgent}; WebGL2: ${env.webgl.webgl2 ? `${env.webgl.vendor} / ${env.webgl.renderer}` : "NOT AVAILABLE"}`);
const webglRuns = results.filter((r) => r.terminal === "xterm-webgl" && r.info);
const fellBack = webglRuns.filter((r) => r.info.renderer !== "webgl" || r.info.contextLost);
if (webglRuns.length) {
  say(fellBack.length
    ? `xterm.js WebGL: FELL BACK or lost its context in ${fellBack.length}/${webglRuns.length} runs (${[...new Set(fellBack.map((r) => r.info.renderer))].join("; ")})`
    : `xterm.js WebGL: WebGL renderer active in all ${webglRuns.length} runs${/swiftshader/i.test(env.webgl.renderer ?? "") ? " (software GL: SwiftShader, no GPU)" : ""}`);
}
say(`machine: ${cpus().length} CPUs, load average at start ${loadAtStart.map((x) => x.toFixed(1)).join(" ")}, at end ${loadavg().map((x) => x.toFixed(1)).join(" ")} (other work on the machine slows every terminal)`);
say(`page replaced ${pageReloads} times after a failed run; each new page ran the warm-up again (${warmupFailed.size} warm-ups failed and were skipped after)`);
say("cells: MB/s (1e6 bytes/s)  rAF interval p50/p99 ms  memory delta MiB (JS heap after GC + wasm memory); * = end marker not verified");
say();
say(pad("workload", W0) + terminals.map((t) => pad(labels[t], W)).join(""));
for (const size of SIZES) {
  for (const c of corpora) say(pad(`${c} ${size.cols}x${size.rows}`, W0) + terminals.map((t) => pad(fmtCell(find(t, c, size)), W)).join(""));
}
say();
say("wterm-rs MB/s ratio to each peer (>1: we are faster)");
const peers = terminals.filter((t) => t !== "wterm");
say(pad("workload", W0) + peers.map((t) => pad(labels[t], W)).join(""));
for (const size of SIZES) {
  for (const c of corpora) {
    const us = find("wterm", c, size);
    say(pad(`${c} ${size.cols}x${size.rows}`, W0) + peers.map((t) => {
      const p = find(t, c, size);
      return pad(ok(us) && ok(p) ? `${(us.mbPerSec / p.mbPerSec).toFixed(2)}x` : "-", W);
    }).join(""));
  }
}
say();
say("aggregate: geometric mean of MB/s over the workloads (verified runs only)");
for (const size of [...SIZES, null]) {
  const label = size ? `${size.cols}x${size.rows}` : "all";
  const gm = (t) => geomean(results.filter((r) => r.terminal === t && (!size || r.cols === size.cols) && ok(r)).map((r) => r.mbPerSec));
  const usGm = gm("wterm");
  say(pad(label, W0) + terminals.map((t) => {
    const g = gm(t);
    const ratio = t !== "wterm" && g && usGm ? ` (us ${(usGm / g).toFixed(2)}x)` : "";
    return pad(g ? `${g.toFixed(1)}${ratio}` : "-", W);
  }).join(""));
}
say();
if (terminals.includes("wterm") && (terminals.includes("xterm-dom") || terminals.includes("xterm-webgl"))) {
  say(`goal: wterm-rs >= ${TARGET_RATIO}x the faster xterm.js renderer`);
  for (const size of SIZES) {
    for (const c of corpora) {
      const us = find("wterm", c, size);
      const xs = ["xterm-dom", "xterm-webgl"].map((t) => find(t, c, size)).filter(ok);
      if (!ok(us) || !xs.length) { say(`  ${pad(`${c} ${size.cols}x${size.rows}`, W0)} n/a (a run failed or was not verified)`); continue; }
      const best = xs.reduce((a, b) => (b.mbPerSec > a.mbPerSec ? b : a));
      const ratio = us.mbPerSec / best.mbPerSec;
      say(`  ${pad(`${c} ${size.cols}x${size.rows}`, W0)} ${ratio >= TARGET_RATIO ? "YES" : "no "} ${ratio.toFixed(2)}x ${labels[best.terminal]} (${us.mbPerSec.toFixed(1)} vs ${best.mbPerSec.toFixed(1)} MB/s)`);
    }
  }
  say();
}
const bad = results.filter((r) => !ok(r));
if (bad.length) {
  say("FAILED or UNVERIFIED runs:");
  for (const r of bad) say(`  ${r.terminal} ${r.corpus} ${r.cols}x${r.rows}: ${r.error ?? r.verified.how}`);
  say();
}
say("scrollback rows kept after the yes flood (asked: 10000 where configurable)");
for (const size of SIZES) {
  say(pad(`yes ${size.cols}x${size.rows}`, W0) + terminals.map((t) => pad(find(t, "yes", size)?.scrollbackRows ?? "-", W)).join(""));
}
say();
say("final screen identical to xterm.js DOM's (text only):");
for (const t of terminals.filter((t) => t !== "xterm-dom")) {
  const diff = results.filter((r) => r.terminal === t && r.sameScreenAsXtermDom === false).map((r) => `${r.corpus} ${r.cols}x${r.rows}`);
  say(`  ${pad(labels[t], W0)} ${diff.length ? `differs on ${diff.join(", ")}` : "same on every run"}`);
}
say();
const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
say("size (KB = 1000 bytes; raw / gzip -9)");
say(`  wterm-rs wasm ${kb(ours.wasm.raw)} / ${kb(ours.wasm.gzip)}, JS glue ${kb(ours.glue.raw)} / ${kb(ours.glue.gzip)}, together ${kb(ours.wasm.raw + ours.glue.raw)} / ${kb(ours.wasm.gzip + ours.glue.gzip)}`);
for (const [lib, s] of Object.entries(sizes)) {
  if (lib === "wterm") continue;
  say(`  ${pad(lib, 18)} loaded ${kb(s.raw)} / ${kb(s.gzip)} (${Object.keys(s.files).map((f) => f.replace(/^\/nm\//, "")).join(", ")})`);
}
const elapsed = (Date.now() - started) / 1000;
say();
say(`total time: ${elapsed.toFixed(0)} s`);
if (notFound.size) say(`not found (404): ${[...notFound].join(", ")}`);
const realErrors = pageErrors.filter((e) => !/status of 404/.test(e) || notFound.size);
if (realErrors.length) say(`page errors (${realErrors.length}): ${[...new Set(realErrors)].slice(0, 5).join(" | ")}`);

console.log(lines.join("\n"));
mkdirSync(RESULTS, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const out = join(RESULTS, `browser-${quick ? "quick" : "full"}-${stamp}.json`);
for (const r of results) if (r.screen) r.screen = r.screen.rendered ?? r.screen.buffer; // keep one copy of the final screen
writeFileSync(out, JSON.stringify({ quick, budget, cpus: cpus().length, loadAtStart, loadAtEnd: loadavg(), seed: SEED, env, constants, sizes: { ours, loaded: sizes }, elapsedSeconds: elapsed, pageErrors, results }, null, 1));
console.log(`raw results: ${out}`);
process.exit(bad.length ? 1 : 0);

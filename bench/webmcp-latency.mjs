// Latency of a waiting read_terminal: from term.write() of the awaited text to the tool call
// returning, measured in the page (performance.now) through Chromium's native WebMCP
// (document.modelContext.executeTool). A benchmark, not a test: it prints figures and fails
// only if the page cannot be driven. Target: under one animation frame (~16.7 ms).
//
//   bash wterm-wasm/build.sh && node bench/webmcp-latency.mjs [iterations]
//
// Each iteration starts read_terminal({waitFor: MARK}), waits for the provider's
// `toolactivated` event (the tool's execute has run, so the wait is registered), then writes
// MARK: after a quiet spell (the usual case: a command's answer), and again while other output
// streams in every 4 ms (then checks are rate-limited to about two per frame). A third scenario
// times read_terminal({waitForCommand: true}) from the write of a command's end (OSC 133 D) to
// the call returning: the page's share of "command end to a waiting call returning" (the relay
// adds its network hop, not measured here).
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PAGES = join(root, "tests/e2e/pages");
const PKG = join(root, "wterm-wasm/pkg");
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm" };
/** Samples per scenario when no count is given. */
const DEFAULT_ITERATIONS = 200;
const arg = process.argv[2];
if (arg !== undefined && !/^[1-9][0-9]*$/.test(arg)) {
  console.error(
    `usage: node bench/webmcp-latency.mjs [samples]\n` +
      `  samples: a whole number of samples per scenario, at least 1 (default ${DEFAULT_ITERATIONS}); got ${JSON.stringify(arg)}\n` +
      `  needs the wasm package: bash wterm-wasm/build.sh`,
  );
  process.exit(2);
}
const iterations = Number(arg ?? DEFAULT_ITERATIONS);

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
  const [dir, rel] = path.startsWith("/pkg/") ? [PKG, path.slice(5)] : [PAGES, path.slice(1) || "index.html"];
  const file = normalize(join(dir, rel));
  try {
    if (!file.startsWith(dir)) throw new Error("outside");
    const body = await readFile(file);
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--enable-features=WebMCP", "--no-sandbox", "--disable-gpu"],
});
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  await page.waitForFunction(() => window.ready === true);
  const samples = await page.evaluate(async (n) => {
    const h = window.harness;
    await h.make("bench", { webmcp: true, cols: 100, rows: 30 });
    const mc = document.modelContext;
    if (!mc) throw new Error("no document.modelContext: launch Chromium with --enable-features=WebMCP");
    let tool;
    while (!(tool = await h.tool("read_terminal"))) await new Promise((r) => setTimeout(r, 10));
    const activated = () => new Promise((r) => mc.addEventListener("toolactivated", r, { once: true }));
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    const term = h.term("bench");

    // One waiting read_terminal per iteration; `before(i)` runs between the call starting and
    // the awaited text being written.
    async function measure(label, before) {
      const out = [];
      for (let i = 0; i < n; i++) {
        const mark = `${label}-${i}`;
        const started = activated();
        const call = mc.executeTool(tool, { waitFor: mark, timeoutMs: 5000 });
        await started;
        await before(i);
        const t0 = performance.now();
        term.write(`${mark}\r\n`);
        const result = JSON.parse(await call);
        const t1 = performance.now();
        if (result.timedOut || result.error || !result.text.includes(mark)) {
          throw new Error(`${mark}: ${JSON.stringify(result).slice(0, 200)}`);
        }
        out.push(t1 - t0);
      }
      return out;
    }

    // Quiet: the awaited text is the first output for 20..37 ms (a command's answer).
    const quiet = await measure("quiet", () => sleep(20 + Math.random() * 17));

    // Busy: other output every 4 ms all along, the awaited text at a random moment; checks are
    // then limited to about two per frame.
    const stream = setInterval(() => term.write(`noise ${"x".repeat(70)}\r\n`), 4);
    const busy = await measure("busy", () => sleep(Math.random() * 17));
    clearInterval(stream);

    // Command end: a command runs (OSC 133 C, as the relay's injected bash integration writes
    // it), read_terminal({waitForCommand: true}) waits, then its end (output, D;0, the next
    // prompt) is written in one chunk after a quiet spell.
    const command = [];
    for (let i = 0; i < n; i++) {
      term.write(`\x1b]133;A\x07$ \x1b]133;B\x07cmd-${i}\r\n\x1b]633;E;cmd-${i}\x07\x1b]133;C\x07`);
      const started = activated();
      const call = mc.executeTool(tool, { waitForCommand: true, timeoutMs: 5000 });
      await started;
      await sleep(20 + Math.random() * 17);
      const t0 = performance.now();
      term.write(`out-${i}\r\n\x1b]133;D;0\x07`);
      const result = JSON.parse(await call);
      const t1 = performance.now();
      if (result.timedOut || result.error || result.command?.exitCode !== 0 || result.command.output !== `out-${i}`) {
        throw new Error(`command ${i}: ${JSON.stringify(result).slice(0, 300)}`);
      }
      command.push(t1 - t0);
    }

    // Reference: the provider's own share, from a page tool's execute resolving to
    // executeTool settling, measured the same way with a tool that does nothing else.
    let release;
    await mc.registerTool({
      name: "bench_reference",
      description: "resolves when the benchmark says so",
      execute: () => new Promise((r) => (release = r)),
    });
    const ref = (await mc.getTools()).find((t) => t.name === "bench_reference");
    const provider = [];
    for (let i = 0; i < n; i++) {
      const started = activated();
      const call = mc.executeTool(ref, {});
      await started;
      await sleep(Math.random() * 17);
      const t0 = performance.now();
      release("{}");
      await call;
      provider.push(performance.now() - t0);
    }
    return { quiet, busy, command, provider };
  }, iterations);

  const fmt = (v) => v.toFixed(2).padStart(7);
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
    return { min: s[0], median: q(0.5), p90: q(0.9), p99: q(0.99), max: s[s.length - 1] };
  };
  const line = (x) => `min ${fmt(x.min)}   median ${fmt(x.median)}   p90 ${fmt(x.p90)}   p99 ${fmt(x.p99)}   max ${fmt(x.max)}`;
  const quiet = stats(samples.quiet);
  const busy = stats(samples.busy);
  console.log(`read_terminal waitFor latency, write() -> executeTool result, ${iterations} iterations each (ms):`);
  console.log(`  quiet (text after >= 20 ms without output):  ${line(quiet)}`);
  console.log(`  busy  (other output every 4 ms):             ${line(busy)}`);
  console.log(`  command end (waitForCommand, D mark written): ${line(stats(samples.command))}`);
  console.log(`  provider share (page tool resolve -> result): ${line(stats(samples.provider))}`);
  const verdict = (x) => `median ${x.median < 16.7 ? "meets" : "misses"}, p99 ${x.p99 < 16.7 ? "meets" : "misses"}`;
  console.log(`target: under one animation frame (16.7 ms): quiet ${verdict(quiet)}; busy ${verdict(busy)}`);
} finally {
  await browser.close();
  server.close();
}

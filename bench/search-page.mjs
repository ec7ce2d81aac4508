// Search in the page: term.search / findNext over 100,000 rows of history (80 columns, the same
// log-like lines as the native `search-bench`), in the real wasm in Chromium, timed in the page
// (performance.now). Plain text (case-sensitive: the core's matcher), ignoring case and regex
// (both the browser's RegExp, run by the core over each logical line), and serialize. A
// benchmark, not a test: it prints the median and range of each and the ratio to the plain one.
//
//   bash wterm-wasm/build.sh && node bench/search-page.mjs [runs]
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PAGES = join(root, "tests/e2e/pages");
const PKG = join(root, "wterm-wasm/pkg");
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm" };
/** Timed runs per workload when no count is given. */
const DEFAULT_RUNS = 9;
/** Rows of history searched. */
const HISTORY_ROWS = 100_000;
const arg = process.argv[2];
if (arg !== undefined && !/^[1-9][0-9]*$/.test(arg)) {
  console.error(`usage: node bench/search-page.mjs [runs]\n  runs: a whole number, at least 1 (default ${DEFAULT_RUNS}); got ${JSON.stringify(arg)}`);
  process.exit(2);
}
const runs = Number(arg ?? DEFAULT_RUNS);

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
  args: ["--no-sandbox", "--disable-gpu"],
});
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  await page.waitForFunction(() => window.ready === true);
  const results = await page.evaluate(async ({ runs, rows }) => {
    const h = window.harness;
    await h.make("bench", { cols: 80, rows: 24, scrollback: rows });
    const term = h.term("bench");
    let i = 0;
    while (i < rows + 24) {
      let out = "";
      for (let k = 0; k < 1000; k++) {
        i++;
        out += `\x1b[32m${String(i).padStart(8)}\x1b[0m INFO request served in ${i % 977} ms`;
        if (i % 7 === 0) out += " path=/api/v1/items/page/with/a/long/query?x=1&y=2&z=3 user=someone";
        if (i % 97 === 0) out += " see https://example.test/docs/item";
        if (i % 1000 === 0) out += " Needle-found";
        out += "\r\n";
      }
      term.write(out);
    }
    const time = (f) => {
      const ms = [];
      let r;
      for (let k = 0; k < runs; k++) {
        const t0 = performance.now();
        r = f();
        ms.push(performance.now() - t0);
      }
      ms.sort((a, b) => a - b);
      return { median: ms[runs >> 1], min: ms[0], max: ms[runs - 1], result: r };
    };
    return {
      "search \"Needle-found\" (case-sensitive)": time(() => (term.clearSearch(), term.search("Needle-found", { caseSensitive: true }).count)),
      "search \"needle-FOUND\" (ignore case: RegExp)": time(() => (term.clearSearch(), term.search("needle-FOUND").count)),
      "search /Needle-f\\w+/ (regex)": time(() => (term.clearSearch(), term.search("Needle-f\\w+", { regex: true, caseSensitive: true }).count)),
      "findNext (case-sensitive, from a match)": time(() => term.findNext("Needle-found", { caseSensitive: true }).index),
      "serialize text, all history": time(() => term.serialize().length),
      "serialize ansi, all history": time(() => term.serialize({ format: "ansi" }).length),
      "serialize html, 1000 rows of history": time(() => term.serialize({ format: "html", scrollback: 1000 }).length),
    };
  }, { runs, rows: HISTORY_ROWS });
  console.log(`search-page: ${HISTORY_ROWS} rows of history + 24 screen rows, 80 columns, ${runs} runs each (Chromium, wasm)`);
  const base = Object.values(results)[0].median;
  for (const [name, r] of Object.entries(results)) {
    console.log(`${name.padEnd(48)} median ${r.median.toFixed(1).padStart(8)} ms  (min ${r.min.toFixed(1)}, max ${r.max.toFixed(1)})  result ${r.result}  ×${(r.median / base).toFixed(2)}`);
  }
} finally {
  await browser.close();
  server.close();
}

// In-page side of the browser benchmark (driven by ../bench.mjs through Playwright).
//
// One terminal at a time lives in #stage. For each run: force a GC and read the JS heap,
// create the terminal (a fresh wasm instance where the library uses wasm), then stream the
// corpus in 64 KiB chunks, one chunk per task (as websocket messages from a PTY relay arrive),
// honouring the library's write-completion callback with high/low watermarks, while a rAF loop
// samples frame intervals. Done = every byte acknowledged, then two animation frames (the
// frame after completion has been painted). Then the heap is read again with the terminal
// alive, and the final screen is read back (DOM for DOM renderers, buffer for the others) so
// the driver can check that the corpus's end marker is really shown.

/** Bytes per write, as a PTY relay forwards output. */
const CHUNK_BYTES = 64 * 1024;
/** Flow control: stop writing while this many bytes are written but not acknowledged... */
const HIGH_WATERMARK_BYTES = 1024 * 1024;
/** ...and resume once the backlog is down to this many bytes. */
const LOW_WATERMARK_BYTES = 256 * 1024;
/** Font used by every terminal, so cell sizes (and so the rendered area) match. */
const FONT_FAMILY = "'DejaVu Sans Mono', monospace";
/** Font size of every terminal, in CSS pixels. */
const FONT_SIZE_PX = 14;
/** Rows of scrollback asked of every terminal that lets us choose. */
const SCROLLBACK_ROWS = 10000;
/**
 * ghostty-web passes `scrollback` to Ghostty's scrollback limit, which counts bytes of its page
 * memory, not rows (10000 keeps about 600 rows at 80 columns). Measured: about 12.7 bytes per
 * cell of history at 80 and 200 columns, so rows × cols × this keeps about SCROLLBACK_ROWS rows.
 */
const GHOSTTY_SCROLLBACK_BYTES_PER_CELL = 13;
/** Garbage collections per heap reading (a second pass collects what the first one freed). */
const GC_PASSES = 2;

const stage = document.getElementById("stage");
const nm = (p) => `/nm/${p}`;

// --- helpers -------------------------------------------------------------------------------

const channel = new MessageChannel();
const taskQueue = [];
channel.port1.onmessage = () => taskQueue.shift()?.();
/** Resolves in a new task (not a microtask, and without setTimeout's 4 ms clamping). */
const nextTask = () => new Promise((r) => { taskQueue.push(r); channel.port2.postMessage(0); });
const frame = () => new Promise((r) => requestAnimationFrame(r));

async function heapBytes() {
  for (let i = 0; i < GC_PASSES; i++) {
    globalThis.gc();
    await nextTask();
  }
  return performance.memory.usedJSHeapSize;
}

function addStylesheet(href) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  const loaded = new Promise((ok, fail) => { link.onload = ok; link.onerror = () => fail(new Error(`css ${href}`)); });
  document.head.append(link);
  return loaded.then(() => link);
}

/** Text rows of an element list (DOM renderers), trailing blanks trimmed. */
const domRows = (els) => [...els].map((e) => e.textContent.replace(/\u00a0/gu, " ").replace(/\s+$/u, ""));

/** Visible rows of an xterm.js-compatible buffer API (xterm.js, ghostty-web). */
function bufferRows(term) {
  const b = term.buffer.active;
  const rows = [];
  for (let r = 0; r < term.rows; r++) rows.push(b.getLine(b.length - term.rows + r)?.translateToString(true) ?? "");
  return rows;
}

// --- adapters: one per terminal under test ----------------------------------------------------
//
// create(host, {rows, cols, instance}) -> {
//   write(bytes, done)   writes a chunk; calls done() once the library has processed it
//   screen()             {rendered: string[] | null, buffer: string[] | null} rows of the final screen
//   grid()               {x, y, w, h} of the cell grid in CSS px (for the pixel check)
//   scrollbackRows()     rows of history kept
//   wasmBytes()          this terminal's wasm memory (0 without wasm)
//   info                 notes on what the adapter found (renderer, fallbacks)
//   destroy()
// }

let instanceCounter = 0;

const ADAPTERS = {
  wterm: {
    label: "wterm-rs",
    canvas: false,
    async create(host, { rows, cols }) {
      // A fresh module instance per run (new URL = new module record), so its wasm memory
      // belongs to this terminal alone and starts from scratch, like the wasm peers'.
      const mod = await import(`/pkg/wterm_wasm.js?instance=${++instanceCounter}`);
      const wasm = await mod.default();
      const term = new mod.WTerm(host, { rows, cols, scrollback: SCROLLBACK_ROWS });
      await term.init();
      const root = host.querySelector(".wterm");
      return {
        // write() parses synchronously; the frame is drawn at the next animation frame.
        write(bytes, done) { term.write(bytes); done(); },
        screen: () => ({ rendered: domRows(host.querySelectorAll(".wterm-row")), buffer: null }),
        grid: () => rect(host.querySelector(".wterm-screen")),
        scrollbackRows: () => Number(getComputedStyle(root).getPropertyValue("--wterm-history")),
        wasmBytes: () => wasm.memory.buffer.byteLength,
        info: { size: `${term.cols}x${term.rows}` },
        destroy() {
          term.destroy();
          document.getElementById("wterm-style")?.remove(); // its `.wterm` rules would style @wterm/dom too
        },
      };
    },
  },

  "xterm-dom": { label: "xterm.js DOM", canvas: false, create: (host, o) => createXterm(host, o, false) },
  "xterm-webgl": { label: "xterm.js WebGL", canvas: true, create: (host, o) => createXterm(host, o, true) },

  ghostty: {
    label: "ghostty-web",
    canvas: true,
    async create(host, { rows, cols }) {
      const { Ghostty, Terminal } = await import(nm("ghostty-web/dist/ghostty-web.js"));
      const ghostty = await Ghostty.load(); // its own wasm instance (the module is embedded)
      const scrollback = SCROLLBACK_ROWS * cols * GHOSTTY_SCROLLBACK_BYTES_PER_CELL;
      const term = new Terminal({ rows, cols, scrollback, fontSize: FONT_SIZE_PX, fontFamily: FONT_FAMILY, ghostty });
      term.open(host);
      return {
        // write() parses synchronously; its callback is only requestAnimationFrame(cb), not a
        // completion signal, so waiting on it would cap throughput at one backlog per frame.
        write(bytes, done) { term.write(bytes); done(); },
        screen: () => ({ rendered: null, buffer: bufferRows(term) }),
        grid: () => {
          const c = rect(host.querySelector("canvas"));
          return { x: c.x, y: c.y, w: term.renderer?.getMetrics?.().width * cols || c.w, h: term.renderer?.getMetrics?.().height * rows || c.h };
        },
        scrollbackRows: () => term.getScrollbackLength(),
        wasmBytes: () => ghostty.memory.buffer.byteLength,
        info: { size: `${term.cols}x${term.rows}`, scrollbackOption: scrollback },
        destroy() { term.dispose(); },
      };
    },
  },

  "wterm-dom": {
    label: "@wterm/dom",
    canvas: false,
    async create(host, { rows, cols }) {
      const { WTerm } = await import(nm("@wterm/dom/dist/index.js"));
      const css = await addStylesheet(nm("@wterm/dom/src/terminal.css"));
      const term = new WTerm(host, { rows, cols, autoResize: false }); // scrollback is fixed by its core
      await term.init(); // its own wasm instance (WasmBridge.load per terminal)
      return {
        write(bytes, done) { term.write(bytes); done(); },
        screen: () => ({
          rendered: domRows(host.querySelectorAll(".term-row:not(.term-scrollback-row)")),
          buffer: null,
        }),
        grid: () => rect(host.querySelector(".term-grid")),
        scrollbackRows: () => term.bridge.getScrollbackCount(),
        wasmBytes: () => term.bridge.memory.buffer.byteLength,
        info: { size: `${term.cols}x${term.rows}` },
        destroy() { term.destroy(); css.remove(); },
      };
    },
  },
};

async function createXterm(host, { rows, cols }, webgl) {
  const { Terminal } = await import(nm("@xterm/xterm/lib/xterm.mjs"));
  const css = await addStylesheet(nm("@xterm/xterm/css/xterm.css"));
  const term = new Terminal({ rows, cols, scrollback: SCROLLBACK_ROWS, fontSize: FONT_SIZE_PX, fontFamily: FONT_FAMILY });
  term.open(host);
  const info = { size: `${term.cols}x${term.rows}`, renderer: "dom" };
  if (webgl) {
    const { WebglAddon } = await import(nm("@xterm/addon-webgl/lib/addon-webgl.mjs"));
    try {
      const addon = new WebglAddon();
      addon.onContextLoss(() => { info.contextLost = true; });
      term.loadAddon(addon);
      info.renderer = host.querySelector("canvas") ? "webgl" : "dom (no canvas after loading the WebGL addon)";
    } catch (e) {
      info.renderer = `dom (WebGL addon failed: ${e.message})`;
    }
  }
  return {
    // xterm.js parses asynchronously in time slices; the callback fires once the chunk is parsed.
    write(bytes, done) { term.write(bytes, done); },
    screen: () => ({
      rendered: info.renderer === "dom" || !webgl ? domRows(host.querySelectorAll(".xterm-rows > div")) : null,
      buffer: bufferRows(term),
    }),
    grid: () => rect(host.querySelector(".xterm-screen")),
    scrollbackRows: () => term.buffer.normal.length - term.rows,
    wasmBytes: () => 0,
    info,
    destroy() { term.dispose(); css.remove(); },
  };
}

function rect(el) {
  const r = el.getBoundingClientRect();
  return { x: r.x, y: r.y, w: r.width, h: r.height };
}

// --- the run -------------------------------------------------------------------------------

const corpusCache = new Map();
async function corpus(file) {
  if (!corpusCache.has(file)) {
    corpusCache.clear(); // one corpus at a time in memory
    const res = await fetch(`/corpus/${file}`);
    if (!res.ok) throw new Error(`corpus ${file}: ${res.status}`);
    corpusCache.set(file, new Uint8Array(await res.arrayBuffer()));
  }
  return corpusCache.get(file);
}

function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

let current = null;

/** Streams `bytes` into `t`, chunk by chunk, one task each, with watermark flow control. */
async function stream(t, bytes) {
  let pending = 0;
  let waiter = null; // {limit, resolve}
  const ack = (n) => () => {
    pending -= n;
    if (waiter && pending <= waiter.limit) { const w = waiter; waiter = null; w.resolve(); }
  };
  const until = (limit) => (pending <= limit ? Promise.resolve() : new Promise((resolve) => { waiter = { limit, resolve }; }));
  for (let off = 0; off < bytes.length; off += CHUNK_BYTES) {
    const chunk = bytes.subarray(off, off + CHUNK_BYTES);
    pending += chunk.length;
    t.write(chunk, ack(chunk.length));
    if (pending > HIGH_WATERMARK_BYTES) await until(LOW_WATERMARK_BYTES);
    await nextTask();
  }
  await until(0);
}

/** Runs one (terminal, corpus, size); leaves the terminal on screen for the driver's checks. */
async function run({ terminal, file, rows, cols }) {
  if (current) throw new Error("previous run not finished");
  const adapter = ADAPTERS[terminal];
  const bytes = await corpus(file);
  stage.replaceChildren();
  const host = document.createElement("div");
  host.className = "host";
  stage.append(host);
  await frame();

  const heapBefore = await heapBytes();
  const t = await adapter.create(host, { rows, cols });
  current = t;
  await frame();
  await frame();
  const wasmAfterInit = t.wasmBytes();

  const frames = [];
  let sampling = true;
  const sample = (now) => { frames.push(now); if (sampling) requestAnimationFrame(sample); };
  requestAnimationFrame(sample);
  await frame(); // start the clock on a frame boundary, with the sampler running

  const t0 = performance.now();
  await stream(t, bytes);
  const tProcessed = performance.now();
  await frame();
  await frame();
  const t1 = performance.now();
  sampling = false;

  const intervals = [];
  for (let i = 1; i < frames.length; i++) intervals.push(frames[i] - frames[i - 1]);
  intervals.sort((a, b) => a - b);
  const heapAfter = await heapBytes();
  const wasmAfterRun = t.wasmBytes();
  return {
    bytes: bytes.length,
    seconds: (t1 - t0) / 1000,
    processedSeconds: (tProcessed - t0) / 1000,
    mbPerSec: bytes.length / 1e6 / ((t1 - t0) / 1000),
    frames: intervals.length,
    frameP50: percentile(intervals, 50),
    frameP99: percentile(intervals, 99),
    frameMax: intervals.at(-1) ?? null,
    heapDelta: heapAfter - heapBefore,
    wasmAfterInit,
    wasmAfterRun,
    // The wasm instance is new for this terminal, so all of its memory is this terminal's.
    memDelta: heapAfter - heapBefore + wasmAfterRun,
    scrollbackRows: t.scrollbackRows(),
    screen: t.screen(),
    grid: t.grid(),
    info: t.info,
  };
}

function finish() {
  current?.destroy();
  current = null;
  stage.replaceChildren();
}

/**
 * Cells at the right edge of the grid that the pixel check skips: ghostty-web draws its
 * scrollbar over them while history grows (the end markers are far shorter than a row).
 */
const INK_SKIP_RIGHT_CELLS = 2;

/**
 * Pixel check for canvas renderers: in the band of grid row `row`, the colour that covers most
 * of it is the background of that row; returns how many cells from the left the last pixel of
 * another colour lies (text ends there), not looking at the last INK_SKIP_RIGHT_CELLS cells.
 */
async function inkExtent(pngBase64, grid, rows, cols, row) {
  const blob = await (await fetch(`data:image/png;base64,${pngBase64}`)).blob();
  const bmp = await createImageBitmap(blob);
  const c = new OffscreenCanvas(bmp.width, bmp.height);
  const g = c.getContext("2d");
  g.drawImage(bmp, 0, 0);
  const cellH = grid.h / rows;
  const cellW = grid.w / cols;
  const y0 = Math.round(row * cellH);
  const h = Math.max(1, Math.round(cellH));
  const w = Math.min(bmp.width, Math.round(grid.w - INK_SKIP_RIGHT_CELLS * cellW));
  const data = g.getImageData(0, y0, w, h).data;
  const counts = new Map();
  for (let i = 0; i < data.length; i += 4) {
    const k = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const bg = [...counts].sort((a, b) => b[1] - a[1])[0][0];
  let last = -1;
  for (let y = 0; y < h; y++) {
    for (let x = w - 1; x > last; x--) {
      const i = (y * w + x) * 4;
      if (((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]) !== bg) { last = x; break; }
    }
  }
  return { cells: (last + 1) / cellW, distinctColours: counts.size };
}

/** What WebGL this browser really offers (headless may fall back to software, or to nothing). */
function webglInfo() {
  const gl = document.createElement("canvas").getContext("webgl2");
  if (!gl) return { webgl2: false };
  const ext = gl.getExtension("WEBGL_debug_renderer_info");
  return {
    webgl2: true,
    vendor: ext ? gl.getParameter(ext.UNMASKED_VENDOR_WEBGL) : gl.getParameter(gl.VENDOR),
    renderer: ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
  };
}

function environment() {
  return {
    userAgent: navigator.userAgent,
    devicePixelRatio,
    preciseMemory: performance.memory?.usedJSHeapSize % 1000 !== 0,
    gc: typeof globalThis.gc === "function",
    webgl: webglInfo(),
  };
}

window.bench = {
  run, finish, inkExtent, environment,
  labels: Object.fromEntries(Object.entries(ADAPTERS).map(([k, a]) => [k, a.label])),
  canvas: Object.fromEntries(Object.entries(ADAPTERS).map(([k, a]) => [k, a.canvas])),
  constants: { CHUNK_BYTES, HIGH_WATERMARK_BYTES, LOW_WATERMARK_BYTES, FONT_FAMILY, FONT_SIZE_PX, SCROLLBACK_ROWS },
};
window.benchReady = true;

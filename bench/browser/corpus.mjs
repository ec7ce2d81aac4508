// Deterministic benchmark corpora: terminal output a PTY relay would carry, generated from a
// seeded PRNG so every run (and every terminal in a run) is fed the very same bytes.
//
// Each corpus is lines of program output up to a byte budget, then a unique ASCII end marker
// (`END-OF-<name>-<seed>-<bytes>`) on the screen; the benchmark checks that every terminal
// shows the marker once it has finished, so no library "wins" by dropping work.
//
//   node bench/browser/corpus.mjs [--quick] [OUT_DIR]   writes the corpora as files
//
// Lines end in CRLF, as a PTY with `onlcr` sends them. Escape and UTF-8 sequences are not
// aligned to chunk boundaries: the relay chunks the stream wherever the bytes fall.

/** Seed of the PRNG; changing it changes every corpus (and its end marker). */
export const SEED = 0x5eed_2026;
/** Size of each corpus in a full run, in bytes (10 MiB). */
export const FULL_CORPUS_BYTES = 10 * 1024 * 1024;
/** Size of each corpus with `--quick`, in bytes (1 MiB). */
export const QUICK_CORPUS_BYTES = 1 * 1024 * 1024;

/** The workloads, in the order the benchmark runs and prints them. */
export const CORPORA = ["ls", "sgr", "yes", "cjk", "redraw"];

/** Workloads whose bytes depend on the terminal size (a full-screen program draws to fit). */
export const SIZED_CORPORA = new Set(["redraw"]);

/** mulberry32: a small 32-bit PRNG; good enough to vary text, and identical in every engine. */
function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)); // inclusive
  const pick = (arr) => arr[Math.floor(next() * arr.length)];
  return { next, int, pick };
}

const ESC = "\x1b";
const CSI = ESC + "[";
const SGR_RESET = CSI + "0m";
const CRLF = "\r\n";

/** Collects string pieces and tracks their UTF-8 size without encoding each one twice. */
class Sink {
  constructor(budget) {
    this.budget = budget;
    this.parts = [];
    this.bytes = 0;
  }
  push(s) {
    this.parts.push(s);
    this.bytes += Buffer.byteLength(s, "utf8");
  }
  get full() {
    return this.bytes >= this.budget;
  }
  finish() {
    return Buffer.from(this.parts.join(""), "utf8");
  }
}

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const word = (r, min, max) => {
  let s = "";
  for (let n = r.int(min, max); n > 0; n--) s += LOWER[r.int(0, LOWER.length - 1)];
  return s;
};

// --- 1. ls -lR ------------------------------------------------------------------------------

const USERS = ["root", "alice", "bob", "www-data", "postgres", "build"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const EXTS = ["", ".c", ".h", ".rs", ".js", ".json", ".md", ".txt", ".o", ".so", ".tar.gz", ".png", ".sh", ".py"];
/** `ls --color` (dircolors defaults) for directories, executables, links and archives. */
const LS_COLOR = { dir: "01;34", exec: "01;32", link: "01;36", archive: "01;31", image: "01;35" };

function lsEntry(r) {
  const kind = r.pick(["file", "file", "file", "file", "dir", "exec", "link"]);
  const name = word(r, 3, 14) + (kind === "file" ? r.pick(EXTS) : "");
  const perms =
    kind === "dir" ? "drwxr-xr-x" : kind === "link" ? "lrwxrwxrwx" : kind === "exec" ? "-rwxr-xr-x" : "-rw-r--r--";
  const links = kind === "dir" ? r.int(2, 40) : 1;
  const owner = r.pick(USERS);
  const group = r.pick(USERS);
  const size = kind === "dir" ? 4096 : r.int(0, 1 << r.int(4, 30));
  const date = `${r.pick(MONTHS)} ${String(r.int(1, 28)).padStart(2)} ${
    r.next() < 0.7 ? `${String(r.int(0, 23)).padStart(2, "0")}:${String(r.int(0, 59)).padStart(2, "0")}` : ` ${r.int(2015, 2025)}`
  }`;
  let shown = name;
  let color = kind === "dir" ? LS_COLOR.dir : kind === "exec" ? LS_COLOR.exec : kind === "link" ? LS_COLOR.link : null;
  if (!color && name.endsWith(".tar.gz")) color = LS_COLOR.archive;
  if (!color && name.endsWith(".png")) color = LS_COLOR.image;
  if (color) shown = `${CSI}${color}m${name}${SGR_RESET}`;
  if (kind === "link") shown += ` -> ../${word(r, 3, 10)}/${word(r, 3, 12)}`;
  return `${perms} ${String(links).padStart(2)} ${owner.padEnd(8)} ${group.padEnd(8)} ${String(size).padStart(10)} ${date} ${shown}`;
}

function genLs(sink, r) {
  const path = ["."];
  while (!sink.full) {
    sink.push(`${path.join("/")}:${CRLF}`);
    const n = r.int(3, 40);
    sink.push(`total ${r.int(n * 4, n * 400)}${CRLF}`);
    for (let i = 0; i < n; i++) sink.push(lsEntry(r) + CRLF);
    sink.push(CRLF);
    // Walk the tree: go deeper, sideways or back up.
    const move = r.next();
    if (move < 0.45 && path.length < 12) path.push(word(r, 3, 12));
    else if (move < 0.8) path[path.length - 1] = word(r, 3, 12);
    else if (path.length > 1) path.pop();
  }
}

// --- 2. dense SGR ---------------------------------------------------------------------------

function sgrChange(r) {
  switch (r.int(0, 9)) {
    case 0: return `${CSI}${r.int(30, 37)}m`; // 16 colours, normal
    case 1: return `${CSI}${r.int(90, 97)}m`; // 16 colours, bright
    case 2: return `${CSI}${r.int(40, 47)}m`;
    case 3: return `${CSI}38;5;${r.int(0, 255)}m`; // 256 colours
    case 4: return `${CSI}48;5;${r.int(0, 255)}m`;
    case 5: return `${CSI}38;2;${r.int(0, 255)};${r.int(0, 255)};${r.int(0, 255)}m`; // truecolor
    case 6: return `${CSI}48;2;${r.int(0, 255)};${r.int(0, 255)};${r.int(0, 255)}m`;
    case 7: return r.next() < 0.5 ? `${CSI}1m` : `${CSI}22m`; // bold on/off
    case 8: return r.next() < 0.5 ? `${CSI}4m` : `${CSI}24m`; // underline on/off
    default: return r.next() < 0.3 ? SGR_RESET : r.next() < 0.5 ? `${CSI}7m` : `${CSI}27m`; // inverse
  }
}

function genSgr(sink, r) {
  while (!sink.full) {
    let line = "";
    for (let width = r.int(40, 160); width > 0; ) {
      const run = word(r, 2, 6);
      line += sgrChange(r) + run;
      width -= run.length;
      if (r.next() < 0.3) {
        line += " ";
        width--;
      }
    }
    sink.push(line + SGR_RESET + CRLF);
  }
}

// --- 3. yes flood ---------------------------------------------------------------------------

/** Every this many lines the flood carries a numbered line, so scrollback content differs. */
const YES_NUMBER_EVERY_LINES = 997;

function genYes(sink) {
  for (let i = 1; !sink.full; i++) sink.push(i % YES_NUMBER_EVERY_LINES === 0 ? `y ${i}${CRLF}` : `y${CRLF}`);
}

// --- 4. CJK and emoji -----------------------------------------------------------------------

const cp = (n) => String.fromCodePoint(n);
const ZWJ_SEQUENCES = [
  "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}", // family
  "\u{1F3F3}\uFE0F\u200D\u{1F308}", // rainbow flag
  "\u{1F469}\u{1F3FD}\u200D\u{1F4BB}", // woman technologist, medium skin tone
  "\u{1F9D1}\u200D\u{1F91D}\u200D\u{1F9D1}", // people holding hands
  "\u2764\uFE0F\u200D\u{1F525}", // heart on fire
];
const FLAGS = ["JP", "FR", "US", "DE", "KR", "CN", "BR", "IN", "GB", "UA"].map((c) =>
  [...c].map((ch) => cp(0x1f1e6 + ch.charCodeAt(0) - 65)).join(""),
);
/** Base letter + combining marks (decomposed forms: é, ö, ệ, ñ, å̂). */
const COMBINING = ["e\u0301", "o\u0308", "e\u0323\u0302", "n\u0303", "a\u030A\u0302"];

function cjkToken(r) {
  switch (r.int(0, 9)) {
    case 0: case 1: case 2: { // CJK ideographs
      let s = "";
      for (let n = r.int(1, 6); n > 0; n--) s += cp(r.int(0x4e00, 0x9fff));
      return s;
    }
    case 3: { // Hiragana
      let s = "";
      for (let n = r.int(1, 6); n > 0; n--) s += cp(r.int(0x3041, 0x3096));
      return s;
    }
    case 4: { // Hangul syllables
      let s = "";
      for (let n = r.int(1, 4); n > 0; n--) s += cp(r.int(0xac00, 0xd7a3));
      return s;
    }
    case 5: return cp(r.int(0x1f600, 0x1f64f)); // emoticons
    case 6: return r.pick(ZWJ_SEQUENCES);
    case 7: return r.pick(FLAGS);
    case 8: return r.pick(COMBINING) + word(r, 0, 4);
    default: return word(r, 2, 8);
  }
}

function genCjk(sink, r) {
  while (!sink.full) {
    const tokens = [];
    for (let n = r.int(4, 24); n > 0; n--) tokens.push(cjkToken(r));
    sink.push(tokens.join(r.next() < 0.5 ? " " : "") + CRLF);
  }
}

// --- 5. full-screen redraws (vim/htop-like) --------------------------------------------------

const cup = (row, col) => `${CSI}${row};${col}H`; // 1-based
const EL = CSI + "K";

function meter(r, width) {
  const filled = r.int(0, width);
  const pct = ((100 * filled) / width).toFixed(1);
  return `${CSI}1m[${SGR_RESET}${CSI}32m${"|".repeat(filled)}${CSI}31m${" ".repeat(width - filled)}${SGR_RESET}${pct.padStart(5)}%${CSI}1m]${SGR_RESET}`;
}

function processRow(r, cols) {
  const pid = String(r.int(1, 99999)).padStart(6);
  const user = r.pick(USERS).padEnd(9).slice(0, 9);
  const cpu = (r.next() * 100).toFixed(1).padStart(5);
  const mem = (r.next() * 20).toFixed(1).padStart(5);
  const cmd = `/usr/bin/${word(r, 3, 10)} --${word(r, 3, 8)}=${word(r, 2, 12)}`;
  const color = r.next() < 0.1 ? `${CSI}30;46m` : r.next() < 0.2 ? `${CSI}1;31m` : "";
  const text = `${pid} ${user} ${cpu} ${mem} ${cmd}`.slice(0, cols);
  return color + text + SGR_RESET;
}

/** One full redraw: a header of meters, a process table (CUP + SGR + text + EL per row), status line. */
function fullFrame(r, rows, cols) {
  const meterWidth = Math.max(10, Math.floor(cols / 2) - 12);
  let s = CSI + "?25l"; // hide the cursor while drawing, as full-screen programs do
  s += cup(1, 1) + `CPU ${meter(r, meterWidth)}` + EL;
  s += cup(2, 1) + `Mem ${meter(r, meterWidth)}` + EL;
  s += cup(3, 1) + `${CSI}30;42m${"  PID USER        CPU%  MEM% Command".padEnd(cols).slice(0, cols)}${SGR_RESET}`;
  for (let row = 4; row < rows; row++) s += cup(row, 1) + processRow(r, cols) + EL;
  return s;
}

/** A scroll inside a region (DECSTBM), as a pager or an editor scrolling its text: new lines appear at the bottom. */
function scrollFrame(r, rows, cols) {
  const top = 4;
  const bottom = rows - 1;
  let s = `${CSI}${top};${bottom}r` + cup(bottom, 1);
  for (let n = r.int(1, Math.max(1, bottom - top)); n > 0; n--) s += "\n" + cup(bottom, 1) + processRow(r, cols) + EL;
  if (r.next() < 0.3) s += cup(top, 1) + ESC + "M" + processRow(r, cols) + EL; // reverse index at the top
  return s + `${CSI}r`;
}

function statusLine(text, rows, cols) {
  return cup(rows, 1) + `${CSI}7m${text.padEnd(cols).slice(0, cols)}${SGR_RESET}`;
}

function genRedraw(sink, r, rows, cols) {
  sink.push(`${CSI}?1049h${CSI}H${CSI}2J`); // alternate screen, cleared
  for (let frame = 0; !sink.full; frame++) {
    sink.push(r.next() < 0.6 ? fullFrame(r, rows, cols) : scrollFrame(r, rows, cols));
    sink.push(statusLine(`-- frame ${frame} -- ${word(r, 4, 12)}`, rows, cols));
  }
}

// --- assembly ---------------------------------------------------------------------------------

/** The unique end marker of a corpus; the last thing written, visible on the final screen. */
export function endMarker(name, budget, size) {
  return `END-OF-${name}${size ? `-${size.cols}x${size.rows}` : ""}-${SEED.toString(16)}-${budget}`;
}

/**
 * The corpus `name` of about `budget` bytes (a little more: the last line and the marker are
 * finished), for a terminal of `size` ({rows, cols}) when the workload depends on it.
 * Returns `{ name, bytes: Buffer, marker }`.
 */
export function generate(name, budget, size) {
  const r = prng(SEED ^ CORPORA.indexOf(name));
  const sink = new Sink(budget);
  const sized = SIZED_CORPORA.has(name);
  const marker = endMarker(name, budget, sized ? size : null);
  switch (name) {
    case "ls": genLs(sink, r); break;
    case "sgr": genSgr(sink, r); break;
    case "yes": genYes(sink); break;
    case "cjk": genCjk(sink, r); break;
    case "redraw": genRedraw(sink, r, size.rows, size.cols); break;
    default: throw new Error(`unknown corpus ${name}`);
  }
  // The marker: for the alternate-screen workload in the status line (the screen stays on the
  // alternate buffer, as when the program is still running); for the others a last line.
  if (name === "redraw") sink.push(statusLine(marker, size.rows, size.cols));
  else sink.push(SGR_RESET + marker + CRLF);
  return { name, bytes: sink.finish(), marker };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const out = args.find((a) => !a.startsWith("--")) ?? "corpora";
  mkdirSync(out, { recursive: true });
  const budget = quick ? QUICK_CORPUS_BYTES : FULL_CORPUS_BYTES;
  for (const name of CORPORA) {
    for (const size of SIZED_CORPORA.has(name) ? [{ rows: 24, cols: 80 }, { rows: 50, cols: 200 }] : [null]) {
      const c = generate(name, budget, size);
      const file = join(out, `${name}${size ? `-${size.cols}x${size.rows}` : ""}.bin`);
      writeFileSync(file, c.bytes);
      console.log(`${file}: ${c.bytes.length} bytes, marker ${c.marker}`);
    }
  }
}

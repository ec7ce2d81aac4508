#!/usr/bin/env node
// The @xterm/headless differential oracle: every input the project keeps (the conformance
// cases, each checkpoint of the recorded sessions, the fuzz corpus and regressions) goes to
// wterm-core and to xterm.js without a DOM (@xterm/headless, pinned in package.json), and the
// screens they end with are compared: each row's text, each column's width (wide characters),
// each cell's attributes (bold, dim, italic, underline, inverse, blink, hidden, strikethrough,
// foreground and background as default, palette index or RGB), the cursor, which rows soft-wrap,
// the history's text and the modes both expose.
//
// wterm-core's side is `cargo run -p wterm-core --example oracle_screens` (one process for every
// input; it prints the inputs' bytes too, so both sides get the same bytes from one reader of
// the fixtures). xterm.js gets Unicode 11 widths (@xterm/addon-unicode11): its default tables
// are Unicode 6's, which real xterm 379 left long ago.
//
// Every difference is either a bug to fix in wterm-core (real xterm, scripts/xterm-oracle.py,
// is the judge) or listed with its cause in wterm-core/tests/fixtures/HEADLESS_DIFFERENCES as
// `INPUT ID | ITEM, ITEM... -- reason`. The run fails on an input that differs in other items
// than its line lists (or has no line) and on a listed input that now agrees (delete its line).
// It prints each such input with every differing item, then `headless oracle: N of M inputs
// agree with @xterm/headless`, then `1 passed, 0 failed` or `0 passed, 1 failed` for
// scripts/test.sh's count.
//
// Usage: node scripts/headless-oracle.mjs [--debug] [--screens FILE] [--print-differences]
//   --debug              build the example in cargo's dev profile (default: --release, which
//                        scripts/test.sh's `cargo test --workspace --release` already built)
//   --screens FILE       read wterm-core's screens from FILE instead of running cargo
//   --print-differences  print every input that differs as a draft line of the list (reason
//                        `?`), and fail
//   --self-test          check the comparison and the list handling on made-up screens (each
//                        compared item changed alone must be reported; stale and wrong lines
//                        must be caught), without cargo
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import headless from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';

const { Terminal } = headless;
const { Unicode11Addon } = unicode11;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIFFERENCES_FILE = join(ROOT, 'wterm-core/tests/fixtures/HEADLESS_DIFFERENCES');
/** Separates a listed difference's input id from the items that differ. */
const ITEM_SEPARATOR = ' | ';
/** Separates the items that differ, in the order `compare` reports them. */
const ITEMS_SEPARATOR = ', ';
/** Separates a listed difference from its reason. */
const REASON_SEPARATOR = ' -- ';
/** Largest output the example may print, in bytes (about 1.3 MB today). */
const MAX_SCREENS_BYTES = 256 * 1024 * 1024;
/** Fewest inputs a run must compare: a lost fixture folder fails instead of shrinking the run. */
const MIN_INPUTS = 600;
/** Terminals fed at once, in terminals. */
const CONCURRENT_TERMINALS = 64;

function parseArgs(argv) {
  const opts = { debug: false, screens: null, print: false, selfTest: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--debug') opts.debug = true;
    else if (a === '--print-differences') opts.print = true;
    else if (a === '--self-test') opts.selfTest = true;
    else if (a === '--screens' && i + 1 < argv.length) opts.screens = argv[++i];
    else {
      console.error(`headless-oracle: unknown argument ${JSON.stringify(a)}; ` +
        'accepted: --debug, --screens FILE, --print-differences, --self-test');
      process.exit(2);
    }
  }
  return opts;
}

function wtermScreens(opts) {
  if (opts.screens) return readFileSync(opts.screens, 'utf8');
  const args = ['run', '-q', '-p', 'wterm-core', '--example', 'oracle_screens'];
  if (!opts.debug) args.splice(1, 0, '--release');
  const r = spawnSync('cargo', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: MAX_SCREENS_BYTES,
    stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) {
    console.error(`headless-oracle: cargo ${args.join(' ')} failed (${r.error ?? `exit ${r.status}`})`);
    process.exit(1);
  }
  return r.stdout;
}

/** Input id -> {items, reason}, from the differences file; exits on a malformed line. */
function loadDifferences() {
  const listed = new Map();
  readFileSync(DIFFERENCES_FILE, 'utf8').split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const r = line.lastIndexOf(REASON_SEPARATOR);
    const it = r < 0 ? -1 : line.lastIndexOf(ITEM_SEPARATOR, r);
    if (it < 0 || !line.slice(r + REASON_SEPARATOR.length).trim()) {
      console.error(`${DIFFERENCES_FILE}:${i + 1}: want ` +
        `INPUT ID${ITEM_SEPARATOR}ITEM${ITEMS_SEPARATOR}ITEM...${REASON_SEPARATOR}REASON`);
      process.exit(2);
    }
    const id = line.slice(0, it).trim();
    if (listed.has(id)) {
      console.error(`${DIFFERENCES_FILE}:${i + 1}: ${id} is listed twice`);
      process.exit(2);
    }
    listed.set(id, { items: line.slice(it + ITEM_SEPARATOR.length, r).trim(),
      reason: line.slice(r + REASON_SEPARATOR.length).trim() });
  });
  return listed;
}

function colorKey(cell, fg) {
  if (fg ? cell.isFgDefault() : cell.isBgDefault()) return '';
  const v = fg ? cell.getFgColor() : cell.getBgColor();
  if (fg ? cell.isFgPalette() : cell.isBgPalette()) return String(v);
  return `#${v.toString(16).padStart(6, '0')}`;
}

/** The same key as the example's `style_key`. */
function styleKey(cell) {
  let k = '';
  if (cell.isBold()) k += 'b';
  if (cell.isDim()) k += 'd';
  if (cell.isItalic()) k += 'i';
  if (cell.isUnderline()) k += 'u';
  if (cell.isInverse()) k += 'v';
  if (cell.isBlink()) k += 'k';
  if (cell.isInvisible()) k += 'h';
  if (cell.isStrikethrough()) k += 's';
  return `${k}/${colorKey(cell, true)}/${colorKey(cell, false)}`;
}

function write(term, bytes) {
  return new Promise((resolve) => term.write(bytes, resolve));
}

/** What xterm.js holds, in the example's shape. */
function xtermScreen(term, rows, cols) {
  const buf = term.buffer.active;
  const cell = buf.getNullCell();
  const out = { rows: [], wrapped: [], widths: [], styles: [], history: [] };
  for (let y = 0; y < rows; y++) {
    const line = buf.getLine(buf.baseY + y);
    out.rows.push(line.translateToString(true).replace(/ +$/, ''));
    let w = '';
    const runs = [];
    for (let x = 0; x < cols; x++) {
      line.getCell(x, cell);
      const width = cell.getWidth();
      w += String(width);
      const last = runs[runs.length - 1];
      // A wide character's second column counts in its first's run, as in the example.
      const key = width === 0 && last ? last[0] : styleKey(cell);
      if (last && last[0] === key) last[1]++;
      else runs.push([key, 1]);
    }
    out.widths.push(w);
    out.styles.push(runs.map(([k, n]) => `${n}*${k}`).join(' '));
    const next = buf.getLine(buf.baseY + y + 1);
    if (y + 1 < rows && next?.isWrapped) out.wrapped.push(y);
  }
  if (buf.type === 'normal') {
    for (let y = 0; y < buf.baseY; y++) {
      out.history.push(buf.getLine(y).translateToString(true).replace(/ +$/, ''));
    }
  }
  // xterm.js keeps a pending wrap as a cursor one column past the edge; xterm and wterm-core
  // keep the cursor on the last column with a flag.
  out.cursor = [buf.cursorY, Math.min(buf.cursorX, cols - 1)];
  const m = term.modes;
  out.modes = {
    alternate_screen: buf.type === 'alternate',
    application_cursor: m.applicationCursorKeysMode,
    application_keypad: m.applicationKeypadMode,
    bracketed_paste: m.bracketedPasteMode,
    insert: m.insertMode,
    origin: m.originMode,
    autowrap: m.wraparoundMode,
    synchronized_output: m.synchronizedOutputMode,
  };
  return out;
}

const show = (v) => JSON.stringify(v);

/** Items that differ, as [item, wterm, xterm.js]. */
function compare(ours, theirs, rows) {
  const diffs = [];
  for (let y = 0; y < rows; y++) {
    if (ours.rows[y] !== theirs.rows[y]) diffs.push([`row ${y}`, ours.rows[y], theirs.rows[y]]);
    else if (ours.widths[y] !== theirs.widths[y]) diffs.push([`widths row ${y}`, ours.widths[y], theirs.widths[y]]);
    if (ours.styles[y] !== theirs.styles[y]) diffs.push([`style row ${y}`, ours.styles[y], theirs.styles[y]]);
  }
  if (show(ours.cursor) !== show(theirs.cursor)) diffs.push(['cursor', ours.cursor, theirs.cursor]);
  const wrapped = ours.wrapped.filter((y) => y + 1 < rows);
  if (show(wrapped) !== show(theirs.wrapped)) diffs.push(['wrapped', wrapped, theirs.wrapped]);
  if (show(ours.history) !== show(theirs.history)) {
    const n = Math.max(ours.history.length, theirs.history.length);
    let i = 0;
    while (i < n && ours.history[i] === theirs.history[i]) i++;
    diffs.push(['history', `${ours.history.length} rows, row ${i}: ${show(ours.history[i])}`,
      `${theirs.history.length} rows, row ${i}: ${show(theirs.history[i])}`]);
  }
  for (const [k, v] of Object.entries(ours.modes)) {
    if (theirs.modes[k] !== v) diffs.push([`mode ${k}`, v, theirs.modes[k]]);
  }
  return diffs;
}

/** A fresh xterm.js terminal of the input's size, fed its bytes. */
async function xtermFor(input) {
  const term = new Terminal({ cols: input.cols, rows: input.rows, scrollback: input.scrollback,
    allowProposedApi: true, logLevel: 'off' });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  await write(term, Buffer.from(input.input, 'hex'));
  return term;
}

/**
 * Compares every input's wterm-core screen with xterm.js's and judges the differences against
 * `listed` (from `loadDifferences`). Returns `{agree, unlisted, stale, drafts}`: `unlisted` holds
 * a message per input whose differing items are not exactly its listed ones, `stale` a message
 * per listed input that agrees or does not exist, `drafts` a draft list line per differing input.
 */
async function judge(inputs, listed) {
  const seen = new Set();
  const ids = new Set();
  const unlisted = [];
  const drafts = [];
  let agree = 0;
  // xterm.js parses a write on a later turn of the event loop; a batch of terminals at once
  // overlaps those waits.
  for (let start = 0; start < inputs.length; start += CONCURRENT_TERMINALS) {
    const batch = inputs.slice(start, start + CONCURRENT_TERMINALS);
    const results = await Promise.all(batch.map(async (input) => {
      const term = await xtermFor(input);
      const diffs = compare(input.screen, xtermScreen(term, input.rows, input.cols), input.rows);
      term.dispose();
      return [input, diffs];
    }));
    for (const [input, diffs] of results) {
      ids.add(input.id);
      if (diffs.length === 0) {
        agree++;
        continue;
      }
      const items = diffs.map(([item]) => item).join(ITEMS_SEPARATOR);
      seen.add(input.id);
      drafts.push(`${input.id}${ITEM_SEPARATOR}${items}${REASON_SEPARATOR}?`);
      const want = listed.get(input.id);
      if (want?.items === items) continue;
      const details = diffs.map(([item, ours, theirs]) =>
        `\n    ${item}: wterm ${show(ours)}, xterm.js ${show(theirs)}`).join('');
      unlisted.push(want
        ? `${input.id}: differs in ${items}, HEADLESS_DIFFERENCES lists ${want.items}${details}`
        : `${input.id}: differs in ${items}, not in HEADLESS_DIFFERENCES${details}`);
    }
  }
  const stale = [...listed.keys()].filter((id) => !seen.has(id)).map((id) => (ids.has(id)
    ? `agrees now, delete its line from HEADLESS_DIFFERENCES: ${id}`
    : `no such input, delete its line from HEADLESS_DIFFERENCES: ${id}`));
  return { agree, unlisted, stale, drafts };
}

/**
 * Checks the comparison and the list handling themselves: xterm.js's own screen of a small
 * input must agree with itself, each compared item changed alone must be reported under its
 * name, and a list line must be stale, missing or wrong exactly when it should be.
 */
async function selfTest() {
  const base = { id: 'self/base', rows: 3, cols: 6, scrollback: 10,
    input: Buffer.from('1\r\n2\r\n3\r\n4\r\n\x1b[1;31mab\x1b[m\u4e2d\x1b[?1h').toString('hex') };
  const term = await xtermFor(base);
  base.screen = xtermScreen(term, base.rows, base.cols);
  term.dispose();
  const variant = (id, change) => {
    const screen = structuredClone(base.screen);
    change(screen);
    return { ...base, id, screen };
  };
  const cases = [
    [variant('self/row', (s) => { s.rows[2] = 'x'; }), 'row 2'],
    [variant('self/widths', (s) => { s.widths[2] = '111111'; }), 'widths row 2'],
    [variant('self/style', (s) => { s.styles[2] = '6*//'; }), 'style row 2'],
    [variant('self/cursor', (s) => { s.cursor = [0, 0]; }), 'cursor'],
    [variant('self/wrapped', (s) => { s.wrapped = [0]; }), 'wrapped'],
    [variant('self/history', (s) => { s.history = []; }), 'history'],
    [variant('self/mode', (s) => { s.modes.application_cursor = false; }), 'mode application_cursor'],
  ];
  const failures = [];
  const check = (what, ok) => { if (!ok) failures.push(what); };
  check('the base screen has a wide character and bold red cells on row 2',
    base.screen.widths[2] === '112011' && base.screen.styles[2] === '2*b/1/ 4*//');
  const all = [base, ...cases.map(([input]) => input)];
  const none = await judge(all, new Map());
  check('xterm.js agrees with its own screen', none.agree === 1);
  for (const [input, item] of cases) {
    check(`${input.id} is reported as ${item}`,
      none.drafts.includes(`${input.id}${ITEM_SEPARATOR}${item}${REASON_SEPARATOR}?`));
  }
  check('every change is unlisted without a list', none.unlisted.length === cases.length);
  const listed = new Map(cases.map(([input, item]) => [input.id, { items: item, reason: 'r' }]));
  listed.set('self/base', { items: 'row 0', reason: 'r' });
  listed.set('self/gone', { items: 'row 0', reason: 'r' });
  listed.set('self/row', { items: 'row 1', reason: 'r' });
  const some = await judge(all, listed);
  check('a listed input that agrees is stale',
    some.stale.some((m) => m.startsWith('agrees now') && m.endsWith('self/base')));
  check('a listed input that does not exist is stale',
    some.stale.some((m) => m.startsWith('no such input') && m.endsWith('self/gone')));
  check('a listed input that differs in other items is reported',
    some.unlisted.length === 1 && some.unlisted[0].startsWith('self/row: differs in row 2'));
  for (const f of failures) console.log(`headless oracle self-test: FAILED: ${f}`);
  console.log(`headless oracle self-test: ${cases.length + 6 - failures.length} of ${cases.length + 6} checks hold`);
  console.log(failures.length === 0 ? '1 passed, 0 failed' : '0 passed, 1 failed');
  process.exit(failures.length === 0 ? 0 : 1);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.selfTest) await selfTest();
  const started = performance.now();
  const listed = loadDifferences();
  const inputs = wtermScreens(opts).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const { agree, unlisted, stale, drafts } = await judge(inputs, listed);
  if (opts.print) for (const d of drafts) console.log(d);
  for (const u of unlisted) console.log(`differs: ${u}`);
  for (const m of stale) console.log(m);
  const ms = Math.round(performance.now() - started);
  console.log(`headless oracle: ${agree} of ${inputs.length} inputs agree with @xterm/headless ` +
    `(${listed.size} listed differences; ${ms} ms)`);
  const ok = !opts.print && unlisted.length === 0 && stale.length === 0 && inputs.length >= MIN_INPUTS;
  if (inputs.length < MIN_INPUTS) console.log(`headless oracle: only ${inputs.length} inputs, want at least ${MIN_INPUTS}`);
  console.log(ok ? '1 passed, 0 failed' : '0 passed, 1 failed');
  process.exit(ok ? 0 : 1);
}

await main();

// The xterm.js-compatible entry `wterm-wasm/xterm` (and `wterm-wasm/addon-fit`), used the
// xterm.js way: `new Terminal(options)`, `open`, `write` with a callback, `onData` from real
// typing, buffer reads, resize and fit, options at run time, the warnings for what is not
// honoured, and `dispose`.
import { test, expect, type Page } from "@playwright/test";
import { serveTestPages, type StaticServer } from "./static";

let server: StaticServer;
test.beforeAll(async () => {
  server = await serveTestPages();
});
test.afterAll(async () => {
  await server?.close();
});

/** A blank page with `window.X` = the xterm entry, `window.Fit` = the fit addon, and every
 * console warning collected in `window.warnings`. */
async function load(page: Page): Promise<void> {
  await page.goto(`${server.base}/blank.html`);
  await page.evaluate(async () => {
    const w = window as any;
    w.warnings = [];
    const warn = console.warn.bind(console);
    console.warn = (...args: unknown[]) => {
      w.warnings.push(args.map(String).join(" "));
      warn(...args);
    };
    w.X = await import("/pkg/xterm.js" as string);
    w.Fit = await import("/pkg/addon-fit.js" as string);
  });
}

test("write with a callback, buffer reads, onData from typing, onKey, resize, dispose", async ({ page }) => {
  await load(page);
  const result = await page.evaluate(async () => {
    const { Terminal } = (window as any).X;
    const host = document.createElement("div");
    document.body.append(host);
    const term = new Terminal({ cols: 20, rows: 5, scrollback: 100 });
    (window as any).term = term;
    term.open(host);
    const parsed: string[] = [];
    term.onWriteParsed(() => parsed.push("parsed"));
    // The callback runs once the data is parsed: the buffer has it then.
    const inCallback = await new Promise<string>((resolve) => {
      term.write("hello \x1b[1;31mred\x1b[0m", () => {
        resolve(term.buffer.active.getLine(0).translateToString(true));
      });
    });
    const order: string[] = [];
    term.write("a", () => order.push("a"));
    term.writeln("b", () => order.push("b"));
    await new Promise<void>((r) => term.write("", r));
    const buf = term.buffer.active;
    const cursorNow = [buf.cursorX, buf.cursorY];
    const line0 = buf.getLine(0);
    const cell = line0.getCell(6);
    const plain = line0.getCell(0);
    // A line longer than the width wraps: the next line isWrapped.
    await new Promise<void>((r) => term.write("\r\n" + "x".repeat(25), r));
    const wrapped = [term.buffer.active.getLine(2).isWrapped, term.buffer.active.getLine(3).isWrapped];
    const slice = term.buffer.active.getLine(0).translateToString(false, 6, 9);
    return {
      inCallback,
      order,
      parsed: parsed.length > 0,
      type: buf.type,
      cursor: cursorNow,
      length: buf.length,
      baseY: buf.baseY,
      full: line0.translateToString(),
      lineLength: line0.length,
      cell: {
        chars: cell.getChars(),
        width: cell.getWidth(),
        bold: !!cell.isBold(),
        fgPalette: cell.isFgPalette(),
        fg: cell.getFgColor(),
        fgDefault: cell.isFgDefault(),
      },
      plainDefault: plain.isAttributeDefault(),
      wrapped,
      slice,
      beyond: term.buffer.active.getLine(999) === undefined,
      element: term.element?.className,
      textarea: term.textarea?.tagName,
    };
  });
  expect(result.inCallback).toBe("hello red");
  expect(result.order).toEqual(["a", "b"]);
  expect(result.parsed).toBe(true);
  expect(result.type).toBe("normal");
  expect(result.cursor).toEqual([0, 1]);
  expect(result.length).toBe(5);
  expect(result.baseY).toBe(0);
  expect(result.full).toBe("hello redab".padEnd(20, " "));
  expect(result.lineLength).toBe(20);
  expect(result.cell).toEqual({ chars: "r", width: 1, bold: true, fgPalette: true, fg: 1, fgDefault: false });
  expect(result.plainDefault).toBe(true);
  expect(result.wrapped).toEqual([false, true]);
  expect(result.slice).toBe("red");
  expect(result.beyond).toBe(true);
  expect(result.element).toContain("xterm");
  expect(result.textarea).toBe("TEXTAREA");

  // onData and onKey from real typing.
  await page.evaluate(() => {
    const w = window as any;
    w.data = [];
    w.keys = [];
    w.term.onData((d: string) => w.data.push(d));
    w.term.onKey((e: { key: string; domEvent: KeyboardEvent }) => w.keys.push([e.key, e.domEvent.key]));
    w.term.focus();
  });
  await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("TEXTAREA");
  await page.keyboard.type("ls");
  await page.keyboard.press("Enter");
  await page.keyboard.press("ArrowUp");
  await expect.poll(() => page.evaluate(() => (window as any).data.join(""))).toBe("ls\r\x1b[A");
  const keys = await page.evaluate(() => (window as any).keys);
  expect(keys).toEqual([["l", "l"], ["s", "s"], ["\r", "Enter"], ["\x1b[A", "ArrowUp"]]);
  // Nothing typed was echoed: xterm.js never echoes.
  expect(await page.evaluate(() => (window as any).term.buffer.active.getLine(3).translateToString(true))).toBe("xxxxx");

  // Resize: onResize, cols and rows.
  const resized = await page.evaluate(() => {
    const w = window as any;
    const seen: unknown[] = [];
    const sub = w.term.onResize((s: unknown) => seen.push(s));
    w.term.resize(30, 8);
    sub.dispose();
    w.term.resize(31, 8); // not seen: the listener was disposed
    return { seen, cols: w.term.cols, rows: w.term.rows };
  });
  expect(resized).toEqual({ seen: [{ cols: 30, rows: 8 }], cols: 31, rows: 8 });

  // onTitleChange, onBell, onCursorMove, and onRender once the frame is drawn.
  const events = await page.evaluate(async () => {
    const w = window as any;
    const seen: string[] = [];
    w.term.onTitleChange((t: string) => seen.push(`title:${t}`));
    w.term.onBell(() => seen.push("bell"));
    w.term.onCursorMove(() => seen.push("cursor"));
    w.term.onRender(({ start, end }: { start: number; end: number }) => seen.push(`render:${start <= end}`));
    await new Promise<void>((r) => w.term.write("\x1b]2;hi\x07\x07z", r));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return seen;
  });
  expect(events).toEqual(expect.arrayContaining(["title:hi", "bell", "cursor", "render:true"]));

  // Dispose: the element leaves the page, a second dispose is fine, other calls throw.
  const disposed = await page.evaluate(() => {
    const w = window as any;
    const el = w.term.element;
    w.term.dispose();
    w.term.dispose();
    const attempt = (f: () => unknown) => {
      try {
        f();
        return "no error";
      } catch (e) {
        return (e as Error).message;
      }
    };
    return {
      inPage: document.contains(el),
      wtermLeft: document.querySelectorAll(".wterm").length,
      write: attempt(() => w.term.write("x")),
      resize: attempt(() => w.term.resize(10, 10)),
      getLine: attempt(() => w.term.buffer.active.getLine(0)),
    };
  });
  expect(disposed.inPage).toBe(false);
  expect(disposed.wtermLeft).toBe(0);
  expect(disposed.write).toContain("after dispose()");
  expect(disposed.resize).toContain("after dispose()");
  expect(disposed.getLine).toContain("after dispose()");
  // Typing after dispose reaches nothing.
  await page.keyboard.type("z");
  expect(await page.evaluate(() => (window as any).data.join(""))).toBe("ls\r\x1b[A");
});

test("options: honoured ones apply, others are warned about once, cols is constructor-only", async ({ page }) => {
  await load(page);
  const result = await page.evaluate(async () => {
    const w = window as any;
    const host = document.createElement("div");
    document.body.append(host);
    const term = new w.X.Terminal({
      cols: 40,
      rows: 6,
      theme: { background: "#102030", foreground: "#eeeeee", cursorAccent: "#000000" },
      fontSize: 18,
      fontFamily: "monospace",
      cursorStyle: "bar",
      cursorBlink: true,
      convertEol: true,
      lineHeight: 1.2,
      bogusOption: 1,
    });
    const again = new w.X.Terminal({ lineHeight: 1.5, bogusOption: 2 });
    again.dispose();
    term.open(host);
    await new Promise<void>((r) => term.write("one\ntwo", r));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const root = host.querySelector(".wterm") as HTMLElement;
    const cursor = host.querySelector(".wterm-cursor") as HTMLElement;
    const before = {
      bg: getComputedStyle(root).backgroundColor,
      fontSize: getComputedStyle(root).fontSize,
      cursorBar: cursor.className.includes("wterm-bar"),
      line1: term.buffer.active.getLine(1).translateToString(true),
      optionsFontSize: term.options.fontSize,
      optionsScrollback: term.options.scrollback,
    };
    term.options.theme = { background: "#ffffff" };
    term.options.cursorStyle = "underline";
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    let colsError = "";
    try {
      term.options.cols = 10;
    } catch (e) {
      colsError = (e as Error).message;
    }
    const after = {
      bg: getComputedStyle(root).backgroundColor,
      cursorUnderline: cursor.className.includes("wterm-ul"),
    };
    term.dispose();
    return { before, after, colsError, warnings: w.warnings };
  });
  expect(result.before).toEqual({
    bg: "rgb(16, 32, 48)",
    fontSize: "18px",
    cursorBar: true,
    line1: "two",
    optionsFontSize: 18,
    optionsScrollback: 1000,
  });
  expect(result.after).toEqual({ bg: "rgb(255, 255, 255)", cursorUnderline: true });
  expect(result.colsError).toContain('"cols" can only be set in the constructor');
  const warnings: string[] = result.warnings;
  const count = (s: string) => warnings.filter((w) => w.includes(s)).length;
  expect(count('option "lineHeight" is not supported')).toBe(1);
  expect(count('unknown option "bogusOption"')).toBe(1);
  expect(count("theme.cursorAccent is not supported")).toBe(1);
  expect(count("fontSize")).toBe(0);
});

test("scrolling, onScroll, paste, selection, the custom key handler, disableStdin and FitAddon", async ({ page }) => {
  await load(page);
  await page.evaluate(async () => {
    const w = window as any;
    const host = document.createElement("div");
    host.style.cssText = "width: 600px; height: 300px";
    document.body.append(host);
    const term = new w.X.Terminal({ cols: 20, rows: 4 });
    w.term = term;
    w.fit = new w.Fit.FitAddon();
    term.loadAddon(w.fit);
    term.open(host);
    w.fit.fit(); // right after open, as xterm.js apps do: fits once the cell is measured
    w.data = [];
    term.onData((d: string) => w.data.push(d));
    w.scrolls = [];
    term.onScroll((y: number) => w.scrolls.push(y));
  });
  // Fitted to the 600x300 element.
  await expect.poll(() => page.evaluate(() => (window as any).term.cols)).toBeGreaterThan(20);
  const fit = await page.evaluate(() => {
    const w = window as any;
    return { proposed: w.fit.proposeDimensions(), cols: w.term.cols, rows: w.term.rows };
  });
  expect(fit.proposed).toEqual({ cols: fit.cols, rows: fit.rows });
  expect(fit.rows).toBeGreaterThan(4);

  const scroll = await page.evaluate(async () => {
    const w = window as any;
    const term = w.term;
    const n = term.rows + 10;
    let out = "";
    for (let i = 0; i < n; i++) out += `line ${i}\r\n`;
    await new Promise<void>((r) => term.write(out, r));
    const b = term.buffer.active;
    const base = b.baseY;
    const atBottom = b.viewportY;
    term.scrollLines(-3);
    const up3 = b.viewportY;
    term.scrollToTop();
    const top = b.viewportY;
    const firstLine = b.getLine(0).translateToString(true);
    term.scrollToBottom();
    return { base, atBottom, up3, top, firstLine, bottom: b.viewportY, scrolls: w.scrolls.slice() };
  });
  expect(scroll.base).toBe(11);
  expect(scroll.atBottom).toBe(11);
  expect(scroll.up3).toBe(8);
  expect(scroll.top).toBe(0);
  expect(scroll.firstLine).toBe("line 0");
  expect(scroll.bottom).toBe(11);
  expect(scroll.scrolls).toEqual(expect.arrayContaining([11, 8, 0]));

  // paste: CR line ends, bracketed when the program asked.
  const pasted = await page.evaluate(async () => {
    const w = window as any;
    w.data.length = 0;
    w.term.paste("a\nb");
    await new Promise<void>((r) => w.term.write("\x1b[?2004h", r));
    w.term.paste("c");
    return w.data.slice();
  });
  expect(pasted).toEqual(["a\rb", "\x1b[200~c\x1b[201~"]);

  // Selection by mouse (a row mid-screen: a drag near the edge scrolls): getSelection, hasSelection, onSelectionChange, clearSelection.
  await page.evaluate(() => {
    const w = window as any;
    w.selChanges = 0;
    w.term.onSelectionChange(() => w.selChanges++);
  });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const [from, to] = await page.evaluate(() => {
    const rows = document.querySelector(".wterm-rows")!.getBoundingClientRect();
    const style = getComputedStyle(document.querySelector(".wterm")!);
    const w = parseFloat(style.getPropertyValue("--wterm-cell-w"));
    const h = parseFloat(style.getPropertyValue("--wterm-cell-h"));
    return [
      { x: rows.left + 0.5 * w - 3, y: rows.top + 5.5 * h },
      { x: rows.left + 10.5 * w, y: rows.top + 5.5 * h },
    ];
  });
  await page.mouse.move(Math.round(from.x), Math.round(from.y));
  await page.mouse.down();
  await page.mouse.move(Math.round(to.x), Math.round(to.y), { steps: 4 });
  await page.mouse.up();
  const firstRow = await page.evaluate(() => (window as any).term.buffer.active.getLine((window as any).term.buffer.active.viewportY + 5).translateToString(true));
  await expect.poll(() => page.evaluate(() => (window as any).term.getSelection())).toBe(firstRow);
  expect(await page.evaluate(() => (window as any).term.hasSelection())).toBe(true);
  await expect.poll(() => page.evaluate(() => (window as any).selChanges)).toBeGreaterThan(0);
  await page.evaluate(() => (window as any).term.clearSelection());
  expect(await page.evaluate(() => (window as any).term.hasSelection())).toBe(false);

  // The custom key handler refuses "x"; disableStdin stops all typing.
  await page.evaluate(() => {
    const w = window as any;
    w.data.length = 0;
    w.term.attachCustomKeyEventHandler((e: KeyboardEvent) => e.key !== "x");
    w.term.focus();
  });
  await page.keyboard.type("axb");
  await expect.poll(() => page.evaluate(() => (window as any).data.join(""))).toBe("ab");
  await page.evaluate(() => {
    (window as any).term.options.disableStdin = true;
  });
  await page.keyboard.type("cd");
  await page.evaluate(() => {
    (window as any).term.options.disableStdin = false;
  });
  await page.keyboard.type("e");
  await expect.poll(() => page.evaluate(() => (window as any).data.join(""))).toBe("abe");

  // clear(): the cursor's line becomes the only one, at the top; history goes.
  const cleared = await page.evaluate(async () => {
    const term = (window as any).term;
    await new Promise<void>((r) => term.write("prompt$ ", r));
    term.clear();
    await new Promise<void>((r) => term.write("", r));
    const b = term.buffer.active;
    return { baseY: b.baseY, cursor: [b.cursorX, b.cursorY], top: b.getLine(0).translateToString(true), next: b.getLine(1).translateToString(true) };
  });
  expect(cleared).toEqual({ baseY: 0, cursor: [8, 0], top: "prompt$", next: "" });

  // Addons are disposed with the terminal.
  const after = await page.evaluate(() => {
    const w = window as any;
    w.term.dispose();
    return w.fit.proposeDimensions();
  });
  expect(after).toBeUndefined();
});

test("SearchAddon and SerializeAddon over wterm's search and serialize", async ({ page }) => {
  await load(page);
  const result = await page.evaluate(async () => {
    const w = window as any;
    const { SearchAddon } = await import("/pkg/addon-search.js" as string);
    const { SerializeAddon } = await import("/pkg/addon-serialize.js" as string);
    const host = document.createElement("div");
    document.body.append(host);
    const term = new w.X.Terminal({ cols: 30, rows: 5 });
    const search = new SearchAddon();
    const serialize = new SerializeAddon();
    term.loadAddon(search);
    term.loadAddon(serialize);
    term.open(host);
    const changes: unknown[] = [];
    search.onDidChangeResults((e: unknown) => changes.push(e));
    await new Promise<void>((r) => term.write("error 42\r\nok\r\n\x1b[1merror\x1b[0m 7\r\n", r));
    const found = search.findNext("error \\d+", { regex: true, decorations: { activeMatchBackground: "#ff0000", matchOverviewRuler: "#888888", activeMatchColorOverviewRuler: "#888888" } });
    const next = search.findNext("error \\d+", { regex: true });
    const none = search.findNext("nothing-like-this");
    search.clearDecorations();
    const ansi = serialize.serialize();
    const html = serialize.serializeAsHTML();
    // The ANSI redraws the same screen in a fresh terminal of the same size.
    const copyHost = document.createElement("div");
    document.body.append(copyHost);
    const copy = new w.X.Terminal({ cols: 30, rows: 5 });
    copy.open(copyHost);
    await new Promise<void>((r) => copy.write(ansi, r));
    const rows = (t: any) => [0, 1, 2].map((y) => t.buffer.active.getLine(y).translateToString(true));
    const bold = copy.buffer.active.getLine(2).getCell(0).isBold() !== 0;
    const activeVar = term.element.style.getPropertyValue("--wterm-match-active");
    const out = { found, next, none, changes, html: html.startsWith("<pre"), same: JSON.stringify(rows(copy)) === JSON.stringify(rows(term)), rows: rows(copy), bold, activeVar, warnings: w.warnings };
    term.dispose();
    copy.dispose();
    return out;
  });
  expect(result.found).toBe(true);
  expect(result.next).toBe(true);
  expect(result.none).toBe(false);
  expect(result.changes).toEqual([
    { resultIndex: 0, resultCount: 2 },
    { resultIndex: 1, resultCount: 2 },
    { resultIndex: -1, resultCount: 0 },
  ]);
  expect(result.html).toBe(true);
  expect(result.rows).toEqual(["error 42", "ok", "error 7"]);
  expect(result.same).toBe(true);
  expect(result.bold).toBe(true);
  expect(result.activeVar).toBe("#ff0000");
  expect(result.warnings.filter((w: string) => w.includes("decorations.matchOverviewRuler")).length).toBe(1);
});

test("WebLinksAddon: Ctrl+click on a URL calls its handler; without the addon links are neither shown nor followed", async ({ page }) => {
  await load(page);
  await page.evaluate(async () => {
    const w = window as any;
    const { WebLinksAddon } = await import("/pkg/addon-web-links.js" as string);
    const host = document.createElement("div");
    document.body.append(host);
    const term = new w.X.Terminal({ cols: 40, rows: 4 });
    w.term = term;
    w.links = [];
    w.addon = new WebLinksAddon((event: MouseEvent, uri: string) => w.links.push([uri, event.ctrlKey || event.metaKey]));
    term.open(host);
    await new Promise<void>((r) => term.write("see https://example.com/x ok", r));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
  const point = await page.evaluate(() => {
    const rows = document.querySelector(".wterm-rows")!.getBoundingClientRect();
    const style = getComputedStyle(document.querySelector(".wterm")!);
    const w = parseFloat(style.getPropertyValue("--wterm-cell-w"));
    const h = parseFloat(style.getPropertyValue("--wterm-cell-h"));
    return { x: rows.left + 10.5 * w, y: rows.top + 0.5 * h };
  });
  const clickLink = async () => {
    await page.mouse.move(point.x - 20, point.y);
    await page.mouse.move(point.x, point.y, { steps: 3 });
    // The link under the pointer is found (drawn or not) before the click.
    await expect.poll(() => page.evaluate(() => document.querySelector(".wterm-lk") !== null)).toBe(true);
    await page.keyboard.down("Control");
    await page.mouse.click(point.x, point.y);
    await page.keyboard.up("Control");
    await page.waitForTimeout(200);
  };
  const underlineShown = () =>
    page.evaluate(() => [...document.querySelectorAll(".wterm-lk")].some((el) => getComputedStyle(el).display !== "none"));

  // Without the addon: nothing shown, nothing followed.
  await clickLink();
  expect(await underlineShown()).toBe(false);
  expect(await page.evaluate(() => (window as any).links)).toEqual([]);

  // With it: underlined under the pointer, and Ctrl+click calls the handler.
  await page.evaluate(() => (window as any).term.loadAddon((window as any).addon));
  await clickLink();
  expect(await underlineShown()).toBe(true);
  await expect.poll(() => page.evaluate(() => (window as any).links)).toEqual([["https://example.com/x", true]]);

  // Disposed: back to none.
  await page.evaluate(() => (window as any).addon.dispose());
  await clickLink();
  expect(await page.evaluate(() => (window as any).links.length)).toBe(1);
  await page.evaluate(() => (window as any).term.dispose());
});

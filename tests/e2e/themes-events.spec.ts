// Themes (the `theme` option and setTheme: presets, custom colours, how they combine with the
// CSS variables, OSC 10/11/12 answers) and the "bell" and "progress" events (BEL, OSC 9;4), in
// Chromium with the built package (tests/e2e/pages/index.html, window.harness), and the events
// from a real bash through the real relay.
//
//   bash wterm-wasm/build.sh && npx playwright test tests/e2e/themes-events.spec.ts
import { test, expect, type Page } from "@playwright/test";
import { resolve } from "node:path";
import { serveTestPages, type StaticServer } from "./static";
import { startRelay, waitForPrompt } from "./relay";

let server: StaticServer;
test.beforeAll(async () => {
  server = await serveTestPages();
});
test.afterAll(async () => {
  await server?.close();
});

let pageErrors: string[] = [];
async function open(page: Page, opts: Record<string, unknown> = {}) {
  pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(`${server.base}/index.html`);
  await page.waitForFunction(() => (window as any).ready === true);
  await page.evaluate((o) => (window as any).harness.make("t", { cols: 30, rows: 4, record: true, ...o }), opts);
  // Focused: an unfocused terminal draws its cursor as an outline.
  await page.evaluate(() => (window as any).harness.term("t").focus());
}
test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

const write = (page: Page, data: string) => page.evaluate((d) => (window as any).harness.term("t").write(d), data);
const frames = (page: Page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
/** What the terminal sent to the program (replies to queries) since the last call. */
const takeData = (page: Page) =>
  page.evaluate(() => {
    const rec = (window as any).harness.terms.t;
    const s = rec.data.join("");
    rec.data.length = 0;
    return s;
  });

/** The colours as drawn: the terminal's background and text, a red (SGR 31) cell, the cursor. */
async function drawn(page: Page) {
  return page.evaluate(() => {
    const root = document.querySelector(".host .wterm") as HTMLElement;
    const red = [...root.querySelectorAll(".wterm-row span")].find((s) => s.textContent === "RED") as HTMLElement;
    const cursor = root.querySelector(".wterm-cursor") as HTMLElement;
    const cs = getComputedStyle(root);
    return {
      bg: cs.backgroundColor,
      fg: cs.color,
      red: getComputedStyle(red).color,
      cursor: getComputedStyle(cursor).backgroundColor,
    };
  });
}

/** The OSC 10, 11 and 12 answers, as a program asking with BEL-ended queries gets them. */
async function oscAnswers(page: Page) {
  await takeData(page);
  await write(page, "\x1b]10;?\x07\x1b]11;?\x07\x1b]12;?\x07");
  return takeData(page);
}
const answer = (n: number, r: string, g: string, b: string) => `\x1b]${n};rgb:${r}${r}/${g}${g}/${b}${b}\x07`;

test("presets switch live: colours, cursor and OSC 10/11/12 answers follow; screen and history stay", async ({ page }) => {
  await open(page);
  // Eight lines: four go to history.
  await write(page, "one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n\x1b[31mRED\x1b[m\r\nseven\r\n");
  await frames(page);
  const text = () => page.evaluate(() => document.querySelector(".host .wterm-screen")!.textContent);
  const before = await text();
  const history = await page.evaluate(() => getComputedStyle(document.querySelector(".host .wterm")!).getPropertyValue("--wterm-history"));
  expect(history).toBe("4");

  // No theme: the stylesheet's defaults (today's dark colours), and the answers say so.
  expect(await drawn(page)).toEqual({ bg: "rgb(30, 30, 30)", fg: "rgb(212, 212, 212)", red: "rgb(205, 0, 0)", cursor: "rgb(212, 212, 212)" });
  expect(await oscAnswers(page)).toBe(answer(10, "d4", "d4", "d4") + answer(11, "1e", "1e", "1e") + answer(12, "d4", "d4", "d4"));

  const presets: Record<string, { bg: string; fg: string; red: string; cursor: string; osc: string }> = {
    "solarized-dark": {
      bg: "rgb(0, 43, 54)", fg: "rgb(131, 148, 150)", red: "rgb(220, 50, 47)", cursor: "rgb(147, 161, 161)",
      osc: answer(10, "83", "94", "96") + answer(11, "00", "2b", "36") + answer(12, "93", "a1", "a1"),
    },
    "solarized-light": {
      bg: "rgb(253, 246, 227)", fg: "rgb(101, 123, 131)", red: "rgb(220, 50, 47)", cursor: "rgb(88, 110, 117)",
      osc: answer(10, "65", "7b", "83") + answer(11, "fd", "f6", "e3") + answer(12, "58", "6e", "75"),
    },
    light: {
      bg: "rgb(255, 255, 255)", fg: "rgb(51, 51, 51)", red: "rgb(205, 49, 49)", cursor: "rgb(0, 0, 0)",
      osc: answer(10, "33", "33", "33") + answer(11, "ff", "ff", "ff") + answer(12, "00", "00", "00"),
    },
    dark: {
      bg: "rgb(30, 30, 30)", fg: "rgb(212, 212, 212)", red: "rgb(205, 0, 0)", cursor: "rgb(212, 212, 212)",
      osc: answer(10, "d4", "d4", "d4") + answer(11, "1e", "1e", "1e") + answer(12, "d4", "d4", "d4"),
    },
  };
  for (const [name, want] of Object.entries(presets)) {
    await page.evaluate((n) => (window as any).harness.term("t").setTheme(n), name);
    await frames(page);
    const { osc, ...colours } = want;
    expect(await drawn(page), name).toEqual(colours);
    expect(await oscAnswers(page), name).toBe(osc);
    expect(await text(), name).toBe(before);
  }
  expect(await page.evaluate(() => getComputedStyle(document.querySelector(".host .wterm")!).getPropertyValue("--wterm-history"))).toBe("4");
});

test("the theme option applies at init; a custom theme sets what it names; null gives the colours back to CSS", async ({ page }) => {
  await open(page, { theme: { background: "#102030", red: "#F00", selectionBackground: "#11223344" } });
  await write(page, "\x1b[31mRED\x1b[m plain");
  await frames(page);
  // Named colours from the theme; the others from the stylesheet's defaults.
  expect(await drawn(page)).toEqual({ bg: "rgb(16, 32, 48)", fg: "rgb(212, 212, 212)", red: "rgb(255, 0, 0)", cursor: "rgb(212, 212, 212)" });
  expect(await oscAnswers(page)).toBe(answer(10, "d4", "d4", "d4") + answer(11, "10", "20", "30") + answer(12, "d4", "d4", "d4"));
  // The selection colour, translucent.
  const selection = await page.evaluate(() => {
    const span = document.querySelector(".host .wterm-row span")!;
    return getComputedStyle(span, "::selection").backgroundColor;
  });
  expect(selection).toBe("rgba(17, 34, 51, 0.267)");

  // The page's own CSS variables: a theme wins over them for the colours it names ...
  await page.addStyleTag({ content: ".host { --wterm-bg: #000080; --wterm-fg: #00ff00; --wterm-cursor: #ff8800; }" });
  await page.evaluate(() => (window as any).harness.term("t").fit());
  await frames(page);
  expect(await drawn(page)).toEqual({ bg: "rgb(16, 32, 48)", fg: "rgb(0, 255, 0)", red: "rgb(255, 0, 0)", cursor: "rgb(255, 136, 0)" });
  // ... and with null the CSS decides everything again, answers included.
  await page.evaluate(() => (window as any).harness.term("t").setTheme(null));
  await frames(page);
  expect(await drawn(page)).toEqual({ bg: "rgb(0, 0, 128)", fg: "rgb(0, 255, 0)", red: "rgb(205, 0, 0)", cursor: "rgb(255, 136, 0)" });
  expect(await oscAnswers(page)).toBe(answer(10, "00", "ff", "00") + answer(11, "00", "00", "80") + answer(12, "ff", "88", "00"));
});

test("a bad theme throws naming the field and the accepted forms, and changes nothing", async ({ page }) => {
  await open(page, { theme: "solarized-dark" });
  await write(page, "\x1b[31mRED\x1b[m");
  await frames(page);
  const colours = await drawn(page);
  const attempt = (t: unknown) =>
    page.evaluate((t) => {
      try {
        (window as any).harness.term("t").setTheme(t);
        return "no error";
      } catch (e) {
        return String((e as Error).message);
      }
    }, t as any);
  expect(await attempt({ foreground: "#fff", background: "blue" })).toBe(
    'theme.background must be a colour "#RGB" or "#RRGGBB"; got "blue"',
  );
  expect(await attempt({ selectionBackground: "#12345" })).toBe(
    'theme.selectionBackground must be a colour "#RGB" or "#RRGGBB" or "#RRGGBBAA"; got "#12345"',
  );
  expect(await attempt({ cursor: "#11223344" })).toBe('theme.cursor must be a colour "#RGB" or "#RRGGBB"; got "#11223344"');
  expect(await attempt({ forground: "#fff" })).toMatch(/^theme has an unknown key "forground"; accepted: foreground, background, cursor, selectionBackground, black, .*brightWhite$/);
  expect(await attempt("monokai")).toBe(
    'theme "monokai" is not a preset; accepted: a preset name ("dark", "light", "solarized-dark", "solarized-light"), an object of colours, or null for the CSS variables',
  );
  expect(await attempt(42)).toMatch(/^theme must be a preset name .*; got 42$/);
  await frames(page);
  expect(await drawn(page)).toEqual(colours);
  // The constructor checks the option the same way.
  const bad = await page.evaluate(async () => {
    const { WTerm } = await import("/pkg/wterm_wasm_full.js");
    try {
      new WTerm(document.createElement("div"), { theme: { red: 255 } });
      return "no error";
    } catch (e) {
      return String((e as Error).message);
    }
  });
  expect(bad).toBe('theme.red must be a colour "#RGB" or "#RRGGBB"; got 255');
});

test("bell and progress events: BEL and OSC 9;4 through write, option callbacks and listeners", async ({ page }) => {
  await open(page);
  await page.evaluate(() => {
    const w = window as any;
    w.events = [];
    w.onBell = () => w.events.push("bell");
    w.onProgress = (p: unknown) => w.events.push(p);
    const t = w.harness.term("t");
    t.addListener("bell", w.onBell);
    t.addListener("progress", w.onProgress);
  });
  const events = () => page.evaluate(() => (window as any).events.splice(0));
  await write(page, "a\x07b");
  expect(await events()).toEqual(["bell"]);
  // A BEL that ends an OSC is no bell; an iTerm2 notification (OSC 9 ; text) is no progress.
  await write(page, "\x1b]2;title\x07\x1b]9;build finished\x07");
  expect(await events()).toEqual([]);
  await write(page, "\x1b]9;4;1;42\x1b\\");
  expect(await events()).toEqual([{ state: 1, value: 42 }]);
  // Split across writes; error keeps the value; indeterminate; paused with a value; remove.
  await write(page, "\x1b]9;4;");
  await write(page, "2\x07\x1b]9;4;3\x07");
  expect(await events()).toEqual([{ state: 3, value: 42 }]);
  await write(page, "\x1b]9;4;2\x07");
  expect(await events()).toEqual([{ state: 2, value: 42 }]);
  await write(page, "\x1b]9;4;4;70\x07");
  expect(await events()).toEqual([{ state: 4, value: 70 }]);
  await write(page, "\x1b]9;4;1;250\x07\x1b]9;4;9;1\x07");
  expect(await events()).toEqual([{ state: 1, value: 100 }]);
  await write(page, "\x1b]9;4;0\x07");
  expect(await events()).toEqual([{ state: 0, value: 0 }]);
  // The screen is drawn on the next animation frame, which a loaded machine can delay.
  await expect.poll(() => page.evaluate(() => document.querySelector(".host .wterm-screen")!.textContent!.trim())).toBe("ab");
  // removeListener stops them; a bad event name names the accepted ones.
  await page.evaluate(() => {
    const w = window as any;
    w.harness.term("t").removeListener("bell", w.onBell);
  });
  await write(page, "\x07");
  expect(await events()).toEqual([]);
  const err = await page.evaluate(() => {
    try {
      (window as any).harness.term("t").addListener("bel", () => {});
    } catch (e) {
      return String((e as Error).message);
    }
  });
  expect(err).toBe('type must be "data", "resize", "title", "agent", "bell" or "progress"; got "bel"');
});

test("setTheme before init() is kept for init(); after destroy() it does nothing", async ({ page }) => {
  await page.goto(`${server.base}/index.html`);
  await page.waitForFunction(() => (window as any).ready === true);
  const got = await page.evaluate(async () => {
    const { WTerm } = await import("/pkg/wterm_wasm_full.js");
    const host = document.createElement("div");
    document.body.append(host);
    const answers: string[] = [];
    const t = new WTerm(host, { cols: 20, rows: 2, onData: (d: string) => answers.push(d) });
    t.setTheme("light");
    await t.init();
    const bg = getComputedStyle(host.querySelector(".wterm")!).backgroundColor;
    t.write("\x1b]11;?\x1b\\");
    t.destroy();
    t.setTheme("dark");
    return { bg, answers };
  });
  expect(got).toEqual({ bg: "rgb(255, 255, 255)", answers: ["\x1b]11;rgb:ffff/ffff/ffff\x1b\\"] });
});

test("onBell and onProgress options", async ({ page }) => {
  await page.goto(`${server.base}/index.html`);
  await page.waitForFunction(() => (window as any).ready === true);
  const got = await page.evaluate(async () => {
    const { WTerm } = await import("/pkg/wterm_wasm_full.js");
    const events: unknown[] = [];
    const host = document.createElement("div");
    document.body.append(host);
    const t = new WTerm(host, { cols: 20, rows: 2, onBell: () => events.push("bell"), onProgress: (p: unknown) => events.push(p) });
    await t.init();
    t.write("\x1b]9;4;1;5\x07\x07");
    t.destroy();
    t.write("\x07");
    return events;
  });
  expect(got).toEqual(["bell", { state: 1, value: 5 }]);
});

test("bell and progress from a real bash through the relay reach the page's listeners", async ({ page }) => {
  const root = resolve(".");
  const relay = await startRelay(["--www-dir", resolve(root, "www"), "--pkg-dir", resolve(root, "wterm-wasm/pkg")]);
  try {
    await page.goto(relay.pageUrl());
    await waitForPrompt(page);
    await page.evaluate(() => {
      const w = window as any;
      w.events = [];
      w.wterm.addListener("bell", () => w.events.push("bell"));
      w.wterm.addListener("progress", (p: unknown) => w.events.push(p));
    });
    await page.locator(".wterm").click();
    await page.keyboard.type(String.raw`printf '\e]9;4;1;30\e\\'; sleep 0.2; printf '\a\e]9;4;0\a'; echo done-$((2*3))` + "\n");
    await expect.poll(() => page.evaluate(() => (window as any).events)).toEqual([{ state: 1, value: 30 }, "bell", { state: 0, value: 0 }]);
    await waitForPrompt(page);
  } finally {
    await relay.stop();
  }
});

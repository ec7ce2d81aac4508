// IME composition through Chromium's own IME path (DevTools protocol `Input.imeSetComposition`
// and `Input.insertText`, what an OS input method drives): the composition is shown at the
// cursor while composed, nothing is sent meanwhile (no stray Latin letter from the keys the IME
// consumes), and the committed text is sent exactly once. Japanese, Chinese and Korean, on the
// test page and into real bash and vim through the relay.
import { test, expect, type Page, type CDPSession } from "@playwright/test";
import { serveTestPages, type StaticServer } from "./static";
import { startRelay, screenText, waitForPrompt, type Relay } from "./relay";

let server: StaticServer;
let relay: Relay;
test.beforeAll(async () => {
  server = await serveTestPages();
  relay = await startRelay();
});
test.afterAll(async () => {
  await server?.close();
  await relay?.stop();
});

/** A composition step: what the IME shows (`compose`), or the text it commits (`commit`). */
type Step = { compose: string; key?: string } | { commit: string };

/**
 * Drives the IME: for each `compose` step, first the key the IME consumes (a keydown with
 * keyCode 229, as Chromium reports keys an IME takes, with the Latin key it came from), then the
 * composition text; `commit` ends the composition with the chosen text. After each compose step,
 * `onCompose` is called (to check the preview).
 */
async function ime(cdp: CDPSession, steps: Step[], onCompose?: (text: string) => Promise<void>): Promise<void> {
  for (const step of steps) {
    if ("commit" in step) {
      await cdp.send("Input.insertText", { text: step.commit });
      continue;
    }
    if (step.key) {
      await cdp.send("Input.dispatchKeyEvent", {
        type: "rawKeyDown", key: step.key, code: `Key${step.key.toUpperCase()}`, windowsVirtualKeyCode: 229,
      });
      await cdp.send("Input.dispatchKeyEvent", {
        type: "keyUp", key: step.key, code: `Key${step.key.toUpperCase()}`, windowsVirtualKeyCode: 229,
      });
    }
    const n = [...step.compose].length;
    await cdp.send("Input.imeSetComposition", { text: step.compose, selectionStart: n, selectionEnd: n });
    await onCompose?.(step.compose);
  }
}

/** Compose steps typing `latin` key by key, each showing the matching prefix of `shown`. */
function typed(latin: string, shown: (prefix: string) => string): Step[] {
  return [...latin].map((key, i) => ({ key, compose: shown(latin.slice(0, i + 1)) }));
}

const KANA: Record<string, string> = { n: "ｎ", ni: "に", nih: "にｈ", niho: "にほ", nihon: "にほｎ", nihonn: "にほん", nihonng: "にほんｇ", nihonngo: "にほんご" };
const JAPANESE: Step[] = [...typed("nihonngo", (p) => KANA[p]), { compose: "日本語" }, { commit: "日本語" }];
const CHINESE: Step[] = [...typed("zhongwen", (p) => p), { compose: "中文" }, { commit: "中文" }];
// Korean (2-set): jamo compose into a syllable, committed when the next syllable starts.
const KOREAN: Step[] = [
  { key: "g", compose: "ㅎ" }, { key: "k", compose: "하" }, { key: "s", compose: "한" }, { commit: "한" },
  { key: "r", compose: "ㄱ" }, { key: "n", compose: "구" }, { key: "r", compose: "국" }, { commit: "국" },
  { key: "d", compose: "ㅇ" }, { key: "j", compose: "어" }, { commit: "어" },
];

/** The preview element's text and whether it is shown, and its offset from the cursor cell. */
async function preview(page: Page): Promise<{ text: string; shown: boolean; dx: number; dy: number }> {
  return page.evaluate(() => {
    const el = document.querySelector<HTMLElement>(".wterm-ime")!;
    const cursor = document.querySelector(".wterm-cursor")!.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return { text: el.textContent ?? "", shown: !el.hidden && r.width > 0, dx: r.left - cursor.left, dy: r.top - cursor.top };
  });
}

for (const [lang, steps, committed] of [
  ["Japanese (nihongo -> 日本語)", JAPANESE, "日本語"],
  ["Chinese (pinyin zhongwen -> 中文)", CHINESE, "中文"],
  ["Korean (jamo -> 한국어)", KOREAN, "한국어"],
] as const) {
  test(`IME ${lang}: previewed at the cursor while composing, sent once when committed`, async ({ page }) => {
    await page.goto(`${server.base}/index.html`);
    await page.waitForFunction(() => (window as any).ready === true);
    await page.evaluate(() => (window as any).harness.make("t", { record: true }));
    await page.evaluate(() => {
      const t = (window as any).harness.term("t");
      t.write("$ ");
      t.focus();
    });
    const cdp = await page.context().newCDPSession(page);
    const sentSoFar: string[] = [];
    await ime(cdp, steps as Step[], async (text) => {
      const p = await preview(page);
      expect(p.text).toBe(text);
      expect(p.shown).toBe(true);
      // At the cursor cell: the cursor is drawn at column 2 of row 0 after "$ ".
      expect(Math.abs(p.dx)).toBeLessThanOrEqual(1);
      expect(Math.abs(p.dy)).toBeLessThanOrEqual(1);
      sentSoFar.push(await page.evaluate(() => (window as any).harness.data("t")));
    });
    // While composing, only syllables already committed (Korean) were sent: never a Latin
    // letter or a partial composition.
    for (const s of sentSoFar) expect(committed.startsWith(s)).toBe(true);
    await expect.poll(() => page.evaluate(() => (window as any).harness.data("t"))).toBe(committed);
    const p = await preview(page);
    expect(p.shown).toBe(false);
    // Nothing more arrives later (a second copy from an input event).
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => (window as any).harness.data("t"))).toBe(committed);
  });
}

test("IME: a cancelled composition sends nothing; typing after it still works", async ({ page }) => {
  await page.goto(`${server.base}/index.html`);
  await page.waitForFunction(() => (window as any).ready === true);
  await page.evaluate(() => (window as any).harness.make("t", { record: true }));
  await page.evaluate(() => (window as any).harness.term("t").focus());
  const cdp = await page.context().newCDPSession(page);
  await ime(cdp, typed("zhong", (p) => p));
  await cdp.send("Input.imeSetComposition", { text: "", selectionStart: 0, selectionEnd: 0 });
  expect((await preview(page)).shown).toBe(false);
  await page.keyboard.type("ab");
  await expect.poll(() => page.evaluate(() => (window as any).harness.data("t"))).toBe("ab");
});

test("IME into real bash and vim through the relay: the committed text reaches them once", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  const cdp = await page.context().newCDPSession(page);
  // bash (readline): compose into the command line, then run it.
  await page.keyboard.type("echo ");
  await ime(cdp, JAPANESE);
  await page.keyboard.type("-");
  await ime(cdp, CHINESE);
  await page.keyboard.type("-");
  await ime(cdp, KOREAN);
  await page.keyboard.press("Enter");
  await expect.poll(() => screenText(page)).toContain("\n日本語-中文-한국어\n$");
  // vim in insert mode: compose, leave insert mode, write the file, and read it back.
  const file = `${relay.home}/ime.txt`;
  await page.keyboard.type(`vim -u NONE -N -c 'set encoding=utf-8 fileencoding=utf-8' ${file}\n`);
  await expect.poll(() => screenText(page)).toMatch(/\n~\n~\n/);
  await page.keyboard.type("i");
  await expect.poll(() => screenText(page)).toContain("-- INSERT --");
  await ime(cdp, KOREAN);
  await page.keyboard.type(" ");
  await ime(cdp, JAPANESE);
  await expect.poll(() => screenText(page)).toMatch(/^한국어 日本語/);
  await page.keyboard.press("Escape");
  await page.keyboard.type(":wq\n");
  await waitForPrompt(page);
  await page.keyboard.type(`clear; cat ${file}\n`);
  await expect.poll(() => screenText(page)).toMatch(/^한국어 日本語\n\$/);
});

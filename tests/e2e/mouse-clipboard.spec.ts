// Programs that track the mouse get the page's clicks, drags and wheel (xterm mouse reporting),
// focus reports, and the clipboard (OSC 52 writes); real bash and vim through the relay.
import { test, expect, type Page } from "@playwright/test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startRelay, screenText, waitForPrompt, runCommand, type Relay } from "./relay";

let relay: Relay;
test.beforeAll(async () => { relay = await startRelay(); });
test.afterAll(async () => { await relay?.stop(); });

/** The centre of a screen cell (0-based), in page px. */
async function cellPoint(page: Page, col: number, row: number): Promise<{ x: number; y: number }> {
  return page.evaluate(([c, r]) => {
    const rows = document.querySelector(".wterm-rows")!.getBoundingClientRect();
    const style = getComputedStyle(document.querySelector(".wterm")!);
    const w = parseFloat(style.getPropertyValue("--wterm-cell-w"));
    const h = parseFloat(style.getPropertyValue("--wterm-cell-h"));
    return { x: rows.left + (c + 0.5) * w, y: rows.top + (r + 0.5) * h };
  }, [col, row]);
}

/** The cursor's cell as drawn: (column, view row). */
async function cursorCell(page: Page): Promise<[number, number]> {
  return page.evaluate(() => {
    const style = getComputedStyle(document.querySelector(".wterm-screen")!);
    return [parseInt(style.getPropertyValue("--cx")), parseInt(style.getPropertyValue("--cy"))] as [number, number];
  });
}

test("a program tracking the mouse gets press, drag, release and wheel in SGR; Shift+click stays the page's", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  // Each `read -d` ends at a report's final byte: M for press, motion and wheel, m for release.
  await page.keyboard.type(
    "stty -echo; printf '\\e[?1002;1006h'; echo armed; " +
    "IFS= read -rs -d M -t 10 a; IFS= read -rs -d M -t 5 m; IFS= read -rs -d m -t 5 r; IFS= read -rs -d M -t 5 w; " +
    "printf '\\e[?1002;1006l'; stty echo; echo \"mouse:${a#*<}:${m#*<}:${r#*<}:${w#*<}:\"\n");
  await expect.poll(() => screenText(page)).toContain("\narmed");
  // Shift+click is left to the page (selection): nothing reaches the program.
  const shifted = await cellPoint(page, 10, 1);
  await page.keyboard.down("Shift");
  await page.mouse.click(shifted.x, shifted.y);
  await page.keyboard.up("Shift");
  const from = await cellPoint(page, 4, 2);
  const to = await cellPoint(page, 6, 3);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y);
  await page.mouse.up();
  // One notch of a mouse wheel (100 px, about 6 rows) is one report, as in xterm.js: several
  // would scroll vim 3 lines each (newcomer report: 6 reports a notch).
  await page.mouse.wheel(0, 100);
  await expect.poll(() => screenText(page)).toMatch(/\nmouse:[^\n]*:\n/);
  // 1-based cells; 32 = motion with the left button held; 65 = wheel down.
  expect(await screenText(page)).toContain("\nmouse:0;5;3:32;7;4:0;7;4:65;7;4:\n");
  // Nothing more came: an extra report would reach the prompt as typed text.
  await page.waitForTimeout(300);
  expect((await screenText(page)).trimEnd().split("\n").pop()).toBe("$");
});

test("two buttons held: each release is reported", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.keyboard.type(
    "stty -echo; printf '\\e[?1000;1006h'; echo armed; " +
    "IFS= read -rs -d M -t 10 a; IFS= read -rs -d M -t 5 b; IFS= read -rs -d m -t 5 c; IFS= read -rs -d m -t 5 d; " +
    "printf '\\e[?1000;1006l'; stty echo; echo \"mouse:${a#*<}:${b#*<}:${c#*<}:${d#*<}:\"\n");
  await expect.poll(() => screenText(page)).toContain("\narmed");
  const at = await cellPoint(page, 2, 1);
  await page.mouse.move(at.x, at.y);
  await page.mouse.down({ button: "left" });
  await page.mouse.down({ button: "right" });
  await page.mouse.up({ button: "left" });
  await page.mouse.up({ button: "right" });
  await expect.poll(() => screenText(page)).toContain("\nmouse:0;3;2:2;3;2:0;3;2:2;3;2:\n");
});

test("a drag selects text, and typing afterwards still reaches the shell", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await runCommand(page, "echo select-me-please");
  const from = await cellPoint(page, 0, 1);
  const to = await cellPoint(page, 10, 1);
  await page.mouse.move(Math.round(from.x - 3), Math.round(from.y));
  await page.mouse.down();
  await page.mouse.move(Math.round(to.x), Math.round(to.y), { steps: 4 });
  await page.mouse.up();
  expect(await page.evaluate(() => String(getSelection()))).toContain("select-me");
  // Newcomer report: the drag left the keyboard nowhere (focus on the body), so keys were lost.
  await page.keyboard.type("echo typed-$((20+1))\n");
  await expect.poll(() => screenText(page)).toContain("\ntyped-21");
});

/** Drags across `cols` cells of view row `row`, from just left of the first cell. */
async function dragRow(page: Page, row: number, cols: number): Promise<void> {
  const from = await cellPoint(page, 0, row);
  const to = await cellPoint(page, cols, row);
  await page.mouse.move(Math.round(from.x - 3), Math.round(from.y));
  await page.mouse.down();
  await page.mouse.move(Math.round(to.x), Math.round(to.y), { steps: 4 });
  await page.mouse.up();
}

test("Ctrl+Shift+C copies the selection; pressing a modifier alone keeps it", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await runCommand(page, "echo hello copy world");
  await page.evaluate(() => navigator.clipboard.writeText("before"));
  await dragRow(page, 1, 10);
  // Newcomer report: Control alone moved focus to the input and cleared the selection.
  await page.keyboard.press("Control+Shift+C");
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("hello copy");
  expect(await screenText(page)).not.toContain("^C");
  await page.keyboard.type("echo still-$((3+3))\n");
  await expect.poll(() => screenText(page)).toContain("\nstill-6");
});

test("text that comes without a keydown after selecting, and a paste, reach the shell", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await runCommand(page, "echo pick-me");
  await dragRow(page, 1, 7);
  // An emoji picker or dictation inserts text with no keydown first.
  await page.keyboard.insertText("echo inserted-");
  await page.keyboard.type("$((5+5))\n");
  await expect.poll(() => screenText(page)).toContain("\ninserted-10");
  await dragRow(page, 1, 7);
  await page.evaluate(() => {
    const data = new DataTransfer();
    data.setData("text/plain", "echo pasted-$((6+6))");
    document.activeElement!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await page.keyboard.press("Enter");
  await expect.poll(() => screenText(page)).toContain("\npasted-12");
});

test("Shift+drag selects text while a program tracks the mouse", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await runCommand(page, "echo select-me-please; printf '\\e[?1002;1006h'");
  const from = await cellPoint(page, 0, 1);
  const to = await cellPoint(page, 10, 1);
  await page.keyboard.down("Shift");
  await page.mouse.move(Math.round(from.x - 3), Math.round(from.y));
  await page.mouse.down();
  await page.mouse.move(Math.round(to.x), Math.round(to.y), { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up("Shift");
  expect(await page.evaluate(() => String(getSelection()))).toContain("select-me");
  await page.keyboard.type("printf '\\e[?1002;1006l'; echo after-$((2*3))\n");
  await expect.poll(() => screenText(page)).toContain("\nafter-6");
  expect(await screenText(page)).not.toContain("[<");
});

test("a click in the terminal sends no focus reports: focus never left it", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.keyboard.type(
    "stty -echo; printf '\\e[?1004h'; echo armed; IFS= read -rs -t 2 -n 1 r; " +
    "printf '\\e[?1004l'; stty echo; echo \"got:${#r}:\"\n");
  await expect.poll(() => screenText(page)).toContain("\narmed");
  const at = await cellPoint(page, 3, 0);
  await page.mouse.click(Math.round(at.x), Math.round(at.y));
  await expect.poll(() => screenText(page)).toContain("\ngot:0:");
});

test("Shift+wheel scrolls history while a program tracks the mouse on the main screen", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.keyboard.type("seq 1 300; printf '\\e[?1000;1006h'\n");
  // The new prompt, after seq's output (the old one would pass waitForPrompt before the echo).
  await expect.poll(() => screenText(page)).toMatch(/\n300\n\$$/);
  const at = await cellPoint(page, 5, 5);
  await page.mouse.move(at.x, at.y);
  await page.keyboard.down("Shift");
  await page.mouse.wheel(0, -600);
  await page.keyboard.up("Shift");
  await expect.poll(async () => (await screenText(page)).includes("\n300\n")).toBe(false);
  // Scrolled back, the mouse is the page's: the wheel scrolls back down, nothing is reported.
  await page.mouse.wheel(0, 5000);
  await expect.poll(async () => (await screenText(page)).split("\n").pop()).toBe("$");
  await page.keyboard.type("printf '\\e[?1000;1006l'; echo done-$((4+4))\n");
  await expect.poll(() => screenText(page)).toContain("\ndone-8");
  expect(await screenText(page)).not.toContain("[<");
});

test("vim with mouse=a moves its cursor where the page is clicked, and the wheel scrolls it", async ({ page }) => {
  const file = join(relay.home, "clicked.txt");
  const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
  writeFileSync(file, lines.join("\n") + "\n");
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.keyboard.type(`vim -u NONE -N -c 'set mouse=a' ${file}\n`);
  await expect.poll(() => screenText(page)).toContain("line 3");
  // vim turns on mouse tracking as it starts; give it a moment before the first click.
  await page.waitForTimeout(500);
  const at = await cellPoint(page, 5, 2);
  await page.mouse.click(at.x, at.y);
  await expect.poll(() => cursorCell(page)).toEqual([5, 2]);
  // Insert where it was clicked: the click moved vim's own cursor, not only the drawn one.
  await page.keyboard.type("ix");
  await page.keyboard.press("Escape");
  // Wheel steps down: vim scrolls its window (3 lines a step by default).
  expect((await screenText(page)).split("\n")[0]).toBe("line 1");
  await page.mouse.wheel(0, 60);
  await expect.poll(async () => (await screenText(page)).split("\n")[0]).not.toBe("line 1");
  await page.keyboard.type(":wq\n");
  await waitForPrompt(page);
  await expect.poll(() => readFileSync(file, "utf8").split("\n")[2]).toBe("line x3");
});

test("without mouse tracking the wheel scrolls history, and sends arrows on the alternate screen", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await runCommand(page, "seq 1 300");
  const screen = await cellPoint(page, 5, 5);
  await page.mouse.move(screen.x, screen.y);
  // Main screen: the page scrolls its history; nothing goes to the shell.
  await page.mouse.wheel(0, -600);
  await expect.poll(async () => (await screenText(page)).includes("\n300\n")).toBe(false);
  await page.mouse.wheel(0, 5000);
  await expect.poll(async () => (await screenText(page)).split("\n").pop()).toBe("$");
  // Alternate screen (less without --mouse): the wheel is cursor keys, so less scrolls.
  await page.keyboard.type("seq 1 300 | less\n");
  await expect.poll(async () => (await screenText(page)).split("\n")[0]).toBe("1");
  await page.mouse.wheel(0, 200);
  await expect.poll(async () => Number((await screenText(page)).split("\n")[0])).toBeGreaterThan(5);
  await page.keyboard.type("q");
  await waitForPrompt(page);
});

test("a program that asked for focus reports gets CSI O on blur and CSI I on focus", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.keyboard.type(
    "stty -echo; printf '\\e[?1004h'; echo armed; IFS= read -rs -d O -t 10 a; IFS= read -rs -d I -t 10 b; " +
    "printf '\\e[?1004l'; stty echo; echo \"focus:${a//$'\\e'/E}:${b//$'\\e'/E}:\"\n");
  await expect.poll(() => screenText(page)).toContain("\narmed");
  await page.evaluate(() => (document.activeElement as HTMLElement).blur());
  await page.locator(".wterm-input").focus();
  await expect.poll(() => screenText(page)).toContain("\nfocus:E[:E[:\n");
});

test("a program's OSC 52 write lands on the clipboard; a query gets no answer", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.evaluate(() => navigator.clipboard.writeText("before"));
  await page.keyboard.type("printf '\\e]52;c;%s\\a' \"$(printf 'copied from bash: é' | base64)\"; echo sent\n");
  await expect.poll(() => screenText(page)).toContain("\nsent");
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("copied from bash: é");
  // Reading the clipboard back is refused: no reply reaches the program (read times out).
  await page.keyboard.type("stty -echo; printf '\\e]52;c;?\\a'; IFS= read -rs -t 1 -d $'\\a' r; stty echo; echo \"reply:${#r}:\"\n");
  await expect.poll(() => screenText(page)).toContain("\nreply:0:");
});

test("OSC 11 asks for the background: through the relay, the default theme's color", async ({ page }) => {
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  await page.keyboard.type("stty -echo; printf '\\e]11;?\\a'; IFS= read -rs -t 5 -d $'\\a' r; stty echo; echo \"bg:${r#*;}:\"\n");
  await expect.poll(() => screenText(page)).toContain("\nbg:rgb:1e1e/1e1e/1e1e:");
});

test("OSC 10/11 through the relay follow the page's theme: setTheme('light') is what the program is told", async ({ page }) => {
  const sent: string[] = [];
  page.on("websocket", (ws) => ws.on("framesent", (f) => typeof f.payload === "string" && sent.push(f.payload)));
  await page.goto(relay.pageUrl());
  await waitForPrompt(page);
  // On attach: the default theme's colors.
  expect(sent).toContainEqual(JSON.stringify({ type: "colors", foreground: "#d4d4d4", background: "#1e1e1e", cursor: "#d4d4d4" }));
  await page.evaluate(() => (window as any).wterm.setTheme("light"));
  // The relay client sends the drawn colors when they change (checked every second).
  await expect.poll(() => sent.some((m) => m.includes('"background":"#ffffff"'))).toBe(true);
  await page.keyboard.type("stty -echo; printf '\\e]11;?\\a\\e]10;?\\a'; IFS= read -rs -t 5 -d $'\\a' b; IFS= read -rs -t 5 -d $'\\a' f; stty echo; echo \"bg:${b#*;}:fg:${f#*;}:\"\n");
  await expect.poll(() => screenText(page)).toContain("\nbg:rgb:ffff/ffff/ffff:fg:rgb:3333/3333/3333:");
});

// wterm-wasm/keybar: a row of keys a phone's keyboard lacks (Esc, Tab, Ctrl, arrows), for a
// terminal. Optional and separate from the core: import it only where it is wanted (it is not
// loaded otherwise), for example `if (matchMedia("(pointer: coarse)").matches)
// (await import("wterm-wasm/keybar")).attachKeyBar(element)`.
//
// Each key is sent as the keyboard would send it: a `keydown` on the terminal's input, which
// the terminal encodes for the program's modes (so the arrows follow DECCKM). Ctrl is sticky:
// tapped, it applies to the next key or character typed (on the bar or the phone's keyboard),
// then releases; tapped twice it stays on until tapped again.

/** The keys of the bar: label, accessible name and `KeyboardEvent.key`. */
const KEYS = [
  ["Esc", "Escape", "Escape"],
  ["Tab", "Tab", "Tab"],
  ["Ctrl", "Control", null],
  ["←", "Left arrow", "ArrowLeft"],
  ["↑", "Up arrow", "ArrowUp"],
  ["↓", "Down arrow", "ArrowDown"],
  ["→", "Right arrow", "ArrowRight"],
];

const STYLE = `
.wterm-keybar{display:flex;gap:4px;padding:4px;background:var(--wterm-bg,#1e1e1e);
  border-top:1px solid rgba(128,128,128,.4);font:14px/1 system-ui,sans-serif}
.wterm-keybar button{flex:1;min-height:36px;border:1px solid rgba(128,128,128,.5);border-radius:4px;
  background:transparent;color:var(--wterm-fg,#d4d4d4);font:inherit;touch-action:manipulation}
.wterm-keybar button[aria-pressed="true"]{background:var(--wterm-fg,#d4d4d4);color:var(--wterm-bg,#1e1e1e)}`;

/**
 * Adds a key bar after the terminal drawn in `element` (the element given to `new WTerm`, after
 * `init()`), or into `options.container` when given.
 * Returns `{ element, dispose() }`; `dispose` removes the bar and its listeners.
 * Throws when `element` holds no initialized terminal.
 */
export function attachKeyBar(element, options = {}) {
  const input = element?.querySelector?.("textarea.wterm-input");
  if (!input) {
    throw new TypeError("attachKeyBar: element must be the element of an initialized WTerm (after init())");
  }
  const doc = element.ownerDocument;
  if (!doc.getElementById("wterm-keybar-style")) {
    const style = doc.createElement("style");
    style.id = "wterm-keybar-style";
    style.textContent = STYLE;
    doc.head.append(style);
  }
  const bar = doc.createElement("div");
  bar.className = "wterm-keybar";
  bar.setAttribute("role", "toolbar");
  bar.setAttribute("aria-label", "Terminal keys");
  // "off", "once" (the next key) or "locked".
  let ctrl = "off";
  let ctrlButton = null;
  const setCtrl = (state) => {
    ctrl = state;
    ctrlButton.setAttribute("aria-pressed", String(state !== "off"));
  };
  const press = (key, ctrlKey) => {
    const ev = new KeyboardEvent("keydown", { key, ctrlKey, bubbles: true, cancelable: true });
    input.dispatchEvent(ev);
    if (ctrl === "once") setCtrl("off");
  };
  for (const [label, name, key] of KEYS) {
    const b = doc.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.setAttribute("aria-label", name);
    b.tabIndex = -1;
    if (key === null) {
      ctrlButton = b;
      b.dataset.key = "Control";
      b.setAttribute("aria-pressed", "false");
    } else {
      b.dataset.key = key;
    }
    bar.append(b);
  }
  // The bar never takes focus from the terminal's input (the phone keeps its keyboard up).
  const keepFocus = (e) => e.preventDefault();
  const onClick = (e) => {
    const b = e.target.closest?.("button");
    if (!b || !bar.contains(b)) return;
    if (b === ctrlButton) {
      setCtrl(ctrl === "off" ? "once" : ctrl === "once" ? "locked" : "off");
    } else {
      press(b.dataset.key, ctrl !== "off");
    }
    input.focus({ preventScroll: true });
  };
  // With Ctrl on, a character typed on the keyboard becomes Ctrl+character.
  const onBeforeInput = (e) => {
    if (ctrl === "off" || e.inputType !== "insertText" || !e.data || [...e.data].length !== 1) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    press(e.data, true);
  };
  const onKeyDown = (e) => {
    if (ctrl === "off" || !e.isTrusted || e.ctrlKey || e.altKey || e.metaKey || [...e.key].length !== 1) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    press(e.key, true);
  };
  bar.addEventListener("mousedown", keepFocus);
  bar.addEventListener("click", onClick);
  input.addEventListener("beforeinput", onBeforeInput, true);
  input.addEventListener("keydown", onKeyDown, true);
  if (options.container) options.container.append(bar);
  else element.after(bar);
  return {
    element: bar,
    dispose() {
      bar.removeEventListener("mousedown", keepFocus);
      bar.removeEventListener("click", onClick);
      input.removeEventListener("beforeinput", onBeforeInput, true);
      input.removeEventListener("keydown", onKeyDown, true);
      bar.remove();
    },
  };
}

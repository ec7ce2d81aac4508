// The built-in find bar of wterm-wasm: opened by Ctrl+Shift+F in a terminal (unless the
// terminal's `findBar` option is false), loaded on first use (a chunk of its own for bundlers).
// It drives the terminal's public search API: search / findNext / findPrevious / clearSearch.
// Enter: next match; Shift+Enter: previous; Escape: close and give focus back to the terminal.

const STYLE_ID = "wterm-findbar-style";
const CSS =
  ".wterm-findbar{position:absolute;top:4px;right:calc(var(--wterm-sb-w,0px) + 8px);z-index:3;" +
  "display:flex;gap:2px;align-items:center;padding:3px 4px;background:var(--wterm-bg);" +
  "color:var(--wterm-fg);border:1px solid rgba(128,128,128,.6);border-radius:4px;" +
  "font:12px/1.4 system-ui,sans-serif;cursor:default}" +
  ".wterm-findbar input{width:14em;font:inherit;color:inherit;background:transparent;" +
  "border:1px solid rgba(128,128,128,.6);border-radius:2px;padding:1px 4px}" +
  ".wterm-findbar input[aria-invalid=true]{border-color:#f14c4c}" +
  ".wterm-findbar button{font:inherit;color:inherit;background:transparent;min-width:1.8em;" +
  "border:1px solid transparent;border-radius:2px;padding:0 3px;cursor:pointer}" +
  ".wterm-findbar button[aria-pressed=true]{border-color:currentColor}" +
  ".wterm-findbar output{min-width:6em;padding:0 4px;white-space:nowrap;opacity:.85}";

/** Opens the find bar in `root` (a terminal's `.wterm` element) for `term` (its WTerm), or
 * focuses it when open. Returns the bar's element. */
export function openFindBar(term, root) {
  const open = root.querySelector(".wterm-findbar");
  if (open) {
    const input = open.querySelector("input");
    input.focus();
    input.select();
    return open;
  }
  const doc = root.ownerDocument;
  if (!doc.getElementById(STYLE_ID)) {
    const style = doc.createElement("style");
    style.id = STYLE_ID;
    style.textContent = CSS;
    doc.head.appendChild(style);
  }
  const el = (tag, props) => Object.assign(doc.createElement(tag), props);
  const bar = el("div", { className: "wterm-findbar" });
  bar.setAttribute("role", "search");
  bar.setAttribute("aria-label", "Find in terminal");
  const input = el("input", { type: "text", spellcheck: false, autocomplete: "off" });
  input.setAttribute("aria-label", "Find");
  input.placeholder = "Find";
  const status = el("output");
  status.setAttribute("aria-live", "polite");
  const toggle = (text, label) => {
    const b = el("button", { type: "button", textContent: text, title: label });
    b.setAttribute("aria-label", label);
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => {
      b.setAttribute("aria-pressed", String(b.getAttribute("aria-pressed") !== "true"));
      run("search");
    });
    return b;
  };
  const action = (text, label, f) => {
    const b = el("button", { type: "button", textContent: text, title: label });
    b.setAttribute("aria-label", label);
    b.addEventListener("click", f);
    return b;
  };
  const caseBtn = toggle("Aa", "Match case");
  const wordBtn = toggle("ab", "Whole word");
  const regexBtn = toggle(".*", "Regular expression");
  const pressed = (b) => b.getAttribute("aria-pressed") === "true";
  const options = () => ({
    caseSensitive: pressed(caseBtn),
    wholeWord: pressed(wordBtn),
    regex: pressed(regexBtn),
  });

  function show(r) {
    input.removeAttribute("aria-invalid");
    status.value =
      r.count === 0 ? "No results" : `${r.index + 1} of ${r.count}${r.truncated ? "+" : ""}`;
  }
  // "search": find as you type (stays on the active match); "next"/"previous": move.
  function run(how) {
    const query = input.value;
    if (query === "") {
      term.clearSearch();
      status.value = "";
      return;
    }
    try {
      if (how === "previous") show(term.findPrevious(query, options()));
      else if (how === "next") show(term.findNext(query, options()));
      else show(term.search(query, { ...options(), incremental: true }));
    } catch (e) {
      input.setAttribute("aria-invalid", "true");
      status.value = String(e && e.message ? e.message : e).split(";")[0];
    }
  }
  function close() {
    term.clearSearch();
    bar.remove();
    term.focus();
  }

  input.addEventListener("input", () => run("search"));
  bar.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      e.preventDefault();
      close();
    } else if (e.key === "Enter") {
      e.preventDefault();
      run(e.shiftKey ? "previous" : "next");
    } else if (e.key === "f" && e.ctrlKey && e.shiftKey) {
      e.preventDefault();
      input.select();
    }
  });
  // The terminal's own listeners on its element would take these (keys for the program, a
  // click focusing its input, mouse reports): the bar keeps them.
  for (const kind of ["keydown", "keyup", "beforeinput", "paste", "mousedown", "mouseup", "click", "wheel"]) {
    bar.addEventListener(kind, (e) => e.stopPropagation());
  }
  bar.append(
    input,
    status,
    caseBtn,
    wordBtn,
    regexBtn,
    action("↑", "Previous match (Shift+Enter)", () => run("previous")),
    action("↓", "Next match (Enter)", () => run("next")),
    action("×", "Close (Escape)", close),
  );
  root.appendChild(bar);
  input.focus();
  return bar;
}

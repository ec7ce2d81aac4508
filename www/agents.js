// The agent bar under the terminal: what agents do in this terminal, and one click to decide
// what they may do.
//
// - The badge (a robot) flashes when an agent reads the terminal (blue, an eye) or types into it
//   (orange, a keyboard), for both kinds of agents: the page's own WebMCP tools and MCP clients
//   through the relay (the relay's {"type":"agent"} frames, which the relay client passes to the
//   terminal's "agent" listeners). Beside it the agent's name (an MCP client's own, from the
//   relay's `by`) and what it does now; its title and aria-label name the last tool and when; a
//   polite live region says when an agent starts reading or writing (not every poll).
// - The switch "Agents: off | read | read-write" sets this terminal's access for both at once:
//   the in-page tools through setWebMCP (off withdraws them, read makes them read-only) and MCP
//   clients through POST /session/mcp (the window's own mode). When the two differ (the page
//   starts with its tools on and MCP windows at the relay's default mode) no button is pressed
//   and the note says each.
// - The bar sits below the terminal, so it never covers text; its buttons give the keyboard
//   back to the terminal after a click.

/** How long the badge shows an activity after the last one, in milliseconds. */
export const AGENT_FLASH_MS = 3000;
/** Quiet time after which the live region announces the next activity again, in milliseconds. */
const ANNOUNCE_AFTER_MS = 10000;
const MODES = [
  ["off", "off"],
  ["read", "read"],
  ["readwrite", "read-write"],
];
const LABEL = { off: "off", read: "read", readwrite: "read-write" };

const CSS = `
#agentbar { position: absolute; left: 0; right: 0; bottom: 0; height: 40px; box-sizing: border-box;
  display: flex; align-items: center; gap: 8px; padding: 0 48px 0 10px; background: #252526;
  border-top: 1px solid #3a3a3a; font: 13px/1 system-ui, sans-serif; color: #ccc; }
#agent-badge { width: 26px; height: 26px; border-radius: 13px; display: inline-flex;
  align-items: center; justify-content: center; font-size: 15px; background: #333; opacity: .5;
  transition: opacity .3s, background .3s; }
#agent-badge[data-kind="read"] { background: #1f4e79; opacity: 1; animation: agent-flash .6s 2; }
#agent-badge[data-kind="write"] { background: #9a5b13; opacity: 1; animation: agent-flash .6s 2; }
@keyframes agent-flash { 50% { transform: scale(1.25); } }
@media (prefers-reduced-motion: reduce) { #agent-badge { animation: none !important; } }
#agent-what { min-width: 9ch; color: #aaa; }
#agentbar [role=radiogroup] { display: inline-flex; border: 1px solid #555; border-radius: 4px; overflow: hidden; }
#agentbar [role=radio] { background: #1e1e1e; color: #ccc; border: 0; padding: 5px 9px; font: inherit;
  cursor: pointer; }
#agentbar [role=radio] + [role=radio] { border-left: 1px solid #555; }
#agentbar [role=radio][aria-checked="true"] { background: #0e639c; color: #fff; }
#agentbar [role=radio]:focus-visible { outline: 2px solid #9cdcfe; outline-offset: -2px; }
#agent-note { color: #999; font-size: 12px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#agent-note.error { color: #f48771; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
`;

/**
 * The name of the agent behind an activity, for the bar: the MCP client's own name (its
 * clientInfo), or "An MCP client" with its scope, or null when the relay did not say (the page's
 * own agent, an older relay).
 */
export function agentName(source, by) {
  if (source !== "relay" || !by || typeof by !== "object") return null;
  if (by.kind === "mcp_client") return by.name && by.name !== "unnamed" ? by.name : "An MCP client";
  // The /mcp/* routes' callers are MCP clients too (`wterm-relay mcp` over stdio calls them).
  if (by.kind === "route_caller") return by.name && by.name !== "unscoped" ? `An MCP client (scope ${by.name})` : "An MCP client";
  return null;
}

function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

/**
 * Adds the bar to the page for `term`. `webmcp` is the page's WebMCP options; `windowId()` the
 * session id (null until known); `api(method, path, body)` calls a page-token route.
 * Returns `{ refresh(), ended(why) }`: `refresh` reads the window's MCP mode again (call it
 * once the session id is known); `ended` turns the in-page tools read-only for good, saying why.
 */
export function mountAgentBar({ term, webmcp, windowId, api, onDone }) {
  document.head.append(el("style", { textContent: CSS }));
  const badge = el("span", { id: "agent-badge", textContent: "🤖" });
  badge.setAttribute("role", "img");
  badge.setAttribute("aria-label", "No agent activity yet");
  badge.title = "No agent activity yet";
  const what = el("span", { id: "agent-what", textContent: "" });
  const live = el("span", { className: "visually-hidden" });
  live.setAttribute("aria-live", "polite");
  const group = el("div");
  group.setAttribute("role", "radiogroup");
  group.setAttribute("aria-label", "Agent access to this terminal");
  const buttons = MODES.map(([mode, text]) => {
    const b = el("button", { type: "button", textContent: text });
    b.dataset.mode = mode;
    b.setAttribute("role", "radio");
    b.setAttribute("aria-checked", "false");
    b.title = {
      off: "Agents may neither read nor type in this terminal",
      read: "Agents may read this terminal but not type in it",
      readwrite: "Agents may read and type in this terminal",
    }[mode];
    return b;
  });
  group.append(...buttons);
  const note = el("span", { id: "agent-note" });
  const bar = el("div", { id: "agentbar" }, badge, what, el("span", { textContent: "Agents" }), group, note, live);
  bar.setAttribute("role", "toolbar");
  bar.setAttribute("aria-label", "Agents");
  document.body.append(bar);

  // In-page tools: what this switch last set ("readwrite" when the page starts), and why they
  // are read-only for good (the session ended), if they are.
  let pageMode = "readwrite";
  let endedWhy = null;
  // The window's effective MCP mode, and whether MCP is switched on for the relay; null until read.
  let mcpMode = null;
  let mcpEnabled = null;

  const applyWebMCP = () => {
    if (pageMode === "off") term.setWebMCP(false);
    else if (endedWhy) term.setWebMCP({ ...webmcp, description: `${webmcp.description} (${endedWhy}; input is not accepted)`, readOnly: true });
    else term.setWebMCP({ ...webmcp, readOnly: pageMode === "read" });
  };

  const show = () => {
    const same = mcpMode === null || mcpMode === pageMode;
    for (const b of buttons) b.setAttribute("aria-checked", String(same && b.dataset.mode === pageMode));
    bar.dataset.mode = same ? pageMode : "mixed";
    const parts = [];
    if (!same) parts.push(`in this page: ${LABEL[pageMode]}; MCP clients: ${LABEL[mcpMode]}`);
    if (mcpEnabled === false) parts.push("MCP is switched off for the relay (⚙)");
    if (endedWhy) parts.push(`in-page tools read-only: ${endedWhy}`);
    note.textContent = parts.join(" · ");
    note.classList.remove("error");
  };

  async function refresh() {
    const id = windowId();
    if (!id) return;
    try {
      const [config, win] = await Promise.all([api("GET", "/mcp/config"), api("POST", "/session/mcp", { id })]);
      mcpEnabled = config.enabled;
      mcpMode = win.effective_mode;
    } catch (e) {
      note.textContent = `MCP mode not read: ${e.message}`;
      note.classList.add("error");
      return;
    }
    show();
  }

  async function set(mode) {
    pageMode = mode;
    applyWebMCP();
    const id = windowId();
    try {
      if (id) mcpMode = (await api("POST", "/session/mcp", { id, mode })).effective_mode;
      show();
    } catch (e) {
      show();
      note.textContent = `MCP mode not changed: ${e.message}`;
      note.classList.add("error");
    }
  }

  for (const b of buttons) {
    b.addEventListener("click", async () => {
      await set(b.dataset.mode);
      onDone?.();
    });
  }
  // Arrow keys move between the modes, as in any radio group.
  group.addEventListener("keydown", (e) => {
    const i = buttons.indexOf(document.activeElement);
    if (i < 0 || !["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(e.key)) return;
    e.preventDefault();
    const next = buttons[(i + (e.key === "ArrowLeft" || e.key === "ArrowUp" ? buttons.length - 1 : 1)) % buttons.length];
    next.focus();
    set(next.dataset.mode);
  });

  let fade = null;
  let lastAt = 0;
  let lastKind = null;
  term.addListener("agent", ({ kind, tool, at, source, by }) => {
    const name = agentName(source, by);
    const who = name ? name : source === "relay" ? "An MCP client" : "An agent in this page";
    const when = new Date(at).toLocaleTimeString();
    const text = `${who} ${kind === "write" ? "typed into" : "read"} this terminal (${tool}) at ${when}`;
    badge.dataset.kind = "";
    void badge.offsetWidth; // restart the flash
    badge.dataset.kind = kind;
    badge.dataset.tool = tool;
    badge.dataset.source = source;
    badge.dataset.seen = String(Date.now());
    badge.textContent = kind === "write" ? "⌨" : "👁";
    badge.title = text;
    badge.setAttribute("aria-label", text);
    what.textContent = `${name || "agent"} ${kind === "write" ? "typing" : "reading"}`;
    what.title = text;
    const now = Date.now();
    if (kind !== lastKind || now - lastAt > ANNOUNCE_AFTER_MS) live.textContent = text;
    lastAt = now;
    lastKind = kind;
    clearTimeout(fade);
    fade = setTimeout(() => {
      badge.dataset.kind = "";
      badge.textContent = "🤖";
      what.textContent = "";
      lastKind = null;
    }, AGENT_FLASH_MS);
  });

  show();
  return {
    refresh,
    ended(why) {
      endedWhy = why;
      applyWebMCP();
      show();
    },
  };
}

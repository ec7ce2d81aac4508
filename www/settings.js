// The MCP settings panel: a gear button that opens a small panel, so a person can let agents
// outside the page (Claude Code, any MCP client) in without curl.
//
// - Relay-wide (GET/POST /mcp/config): the MCP switch, the default mode of windows, the launch
//   gate, and the MCP token (generate, copy).
// - Connect an agent: copies, with the token filled in, the `claude mcp add` line, an
//   `.mcp.json` entry for the HTTP form and one for the stdio form (`wterm-relay mcp` with
//   WTERM_MCP_URL and WTERM_MCP_TOKEN, as `wterm-relay mcp-config --stdio` prints it), under a
//   warning that they hold a secret. The token is never shown whole, never put in a URL.
// - This window (POST /session/mcp): its own mode and scope, whether agents read its secrets
//   redacted, and whether they may type at its password prompts (both the person's alone); the
//   window id is the `session` query parameter of the page URL. Any change made here takes ownership away from the agent
//   that launched the window.
// - Shells (GET /sessions, DELETE /sessions/N): every shell the relay runs, each with an End
//   button (SIGHUP), so shells left behind by closed tabs can be ended from any page.
//
// Every request carries the page token from sessionStorage as `Authorization: Bearer`.

const TOKEN_KEY = "wterm.token";
const MODES = ["off", "read", "readwrite"];
/** The MCP server's name in the copied snippets. */
const SERVER_NAME = "wterm";

/**
 * What "Connect an agent" copies for the relay at `base` (`http://127.0.0.1:PORT`) with the
 * MCP `token`: `claude` (the `claude mcp add` line), `http` and `stdio` (`.mcp.json` texts).
 */
export function connectSnippets(base, token) {
  const json = (server) => JSON.stringify({ mcpServers: { [SERVER_NAME]: server } }, null, 2);
  return {
    claude: `claude mcp add --transport http ${SERVER_NAME} ${base}/mcp --header "Authorization: Bearer ${token}"`,
    http: json({ type: "http", url: `${base}/mcp`, headers: { Authorization: `Bearer ${token}` } }),
    stdio: json({ command: "wterm-relay", args: ["mcp"], env: { WTERM_MCP_URL: base, WTERM_MCP_TOKEN: token } }),
  };
}

const CSS = `
#wterm-gear { position: absolute; bottom: 8px; right: 10px; z-index: 20; width: 28px; height: 28px;
  border: 0; border-radius: 4px; background: #3a3a3acc; color: #d4d4d4; font-size: 17px;
  cursor: pointer; line-height: 28px; padding: 0; opacity: .55; }
#wterm-gear:hover, #wterm-gear[aria-expanded="true"] { opacity: 1; }
#wterm-settings { position: absolute; bottom: 44px; right: 10px; z-index: 20; width: 330px;
  font: 13px/1.45 system-ui, sans-serif; color: #eee; background: #2b2b2b; border-radius: 6px;
  box-shadow: 0 2px 10px #000a; padding: 10px 12px; }
#wterm-settings[hidden] { display: none; }
#wterm-settings h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .05em;
  color: #9cdcfe; margin: 8px 0 4px; }
#wterm-settings h2:first-child { margin-top: 0; }
#wterm-settings label { display: flex; align-items: center; justify-content: space-between;
  gap: 8px; margin: 4px 0; }
#wterm-settings select, #wterm-settings input[type=text] { background: #1e1e1e; color: #eee;
  border: 1px solid #555; border-radius: 3px; padding: 2px 4px; font: inherit; width: 150px; }
#wterm-settings button { background: #0e639c; color: #fff; border: 0; border-radius: 3px;
  padding: 3px 8px; font: inherit; cursor: pointer; }
#wterm-settings button:disabled { background: #555; cursor: default; }
#wterm-settings .token { display: flex; gap: 6px; align-items: center; margin: 4px 0; }
#wterm-settings code { flex: 1; background: #1e1e1e; padding: 2px 4px; border-radius: 3px;
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#wterm-settings .note { color: #aaa; font-size: 12px; margin: 2px 0; }
#wterm-settings .error { color: #f48771; }
#wterm-settings .connect { display: flex; flex-wrap: wrap; gap: 6px; margin: 4px 0; }
#wterm-settings .secret { color: #f0c674; font-size: 12px; margin: 2px 0; }
#wterm-settings ul { list-style: none; margin: 4px 0; padding: 0; max-height: 140px; overflow-y: auto; }
#wterm-settings li { display: flex; align-items: center; justify-content: space-between; gap: 8px;
  margin: 2px 0; }
#wterm-settings li span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
`;

/** Audit records the panel's "Agent log" shows, newest last. */
const AUDIT_SHOWN = 20;

/** Calls a page-token route; resolves to its JSON, or throws with the relay's error code. */
export async function api(method, path, body) {
  const headers = { Authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ""}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = r.status === 204 ? {} : await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.detail ? `${data.error}: ${data.detail}` : data.error ?? `HTTP ${r.status}`);
  return data;
}

function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

/** A labelled row; the control is named by `text` (its label would also read its options). */
function field(text, control) {
  control.setAttribute("aria-label", text);
  return el("label", {}, text, control);
}

function modeSelect(withInherit) {
  const s = el("select");
  if (withInherit) s.append(el("option", { value: "", textContent: "default (inherit)" }));
  for (const m of MODES) s.append(el("option", { value: m, textContent: m }));
  return s;
}

/**
 * Adds the gear button and the panel to the page. `onClose` runs when the panel closes (the
 * page gives the keyboard back to the terminal there).
 */
export function mountSettings({ onClose } = {}) {
  document.head.append(el("style", { textContent: CSS }));
  const gear = el("button", { id: "wterm-gear", type: "button", title: "MCP settings", textContent: "⚙" });
  gear.setAttribute("aria-label", "MCP settings");
  gear.setAttribute("aria-expanded", "false");

  const enabled = el("input", { type: "checkbox" });
  const defaultMode = modeSelect(false);
  const allowLaunch = el("input", { type: "checkbox" });
  const token = el("code", { textContent: "—" });
  const generate = el("button", { type: "button", textContent: "Generate" });
  const copy = el("button", { type: "button", textContent: "Copy" });
  const tokenNote = el("p", { className: "note" });
  const copyClaude = el("button", { type: "button", textContent: "claude mcp add" });
  const copyHttp = el("button", { type: "button", textContent: ".mcp.json (HTTP)" });
  const copyStdio = el("button", { type: "button", textContent: ".mcp.json (stdio)" });
  copyClaude.setAttribute("aria-label", "Copy the claude mcp add command");
  copyHttp.setAttribute("aria-label", "Copy the .mcp.json entry (HTTP)");
  copyStdio.setAttribute("aria-label", "Copy the .mcp.json entry (stdio)");
  const connectButtons = [copyClaude, copyHttp, copyStdio];
  const secretWarning = el("p", {
    className: "secret",
    textContent:
      "⚠ These hold the MCP token, a secret: anyone with it can read and type in shared windows. " +
      "Keep .mcp.json out of git; paste only into your own agent's config.",
  });
  secretWarning.setAttribute("role", "note");
  const windowTitle = el("h2");
  const windowMode = modeSelect(true);
  const windowScope = el("input", { type: "text", placeholder: "none", maxLength: 64 });
  const applyWindow = el("button", { type: "button", textContent: "Apply" });
  // The person's switches for this window; no agent tool sets them (broker-api.md).
  const windowRedact = el("input", { type: "checkbox" });
  const windowSecretInput = el("input", { type: "checkbox" });
  const shells = el("ul");
  shells.setAttribute("aria-label", "Shells");
  const auditList = el("ul", { className: "audit" });
  auditList.setAttribute("aria-label", "Agent log");
  const auditRefresh = el("button", { type: "button", textContent: "Refresh" });
  auditRefresh.setAttribute("aria-label", "Refresh the agent log");
  const status = el("p", { className: "note", role: "status" });

  const panel = el(
    "div",
    { id: "wterm-settings", hidden: true },
    el("h2", { textContent: "MCP access" }),
    field("Allow MCP clients", enabled),
    field("Default window mode", defaultMode),
    field("Allow launching terminals", allowLaunch),
    el("div", { className: "token" }, token, generate, copy),
    tokenNote,
    el("h2", { textContent: "Connect an agent (copy)" }),
    el("div", { className: "connect" }, ...connectButtons),
    secretWarning,
    windowTitle,
    field("Window mode", windowMode),
    field("Window scope", windowScope),
    field("Agents read secrets redacted", windowRedact),
    field("Agents may type at password prompts", windowSecretInput),
    el("div", { style: "text-align: right" }, applyWindow),
    el("h2", { textContent: "Agent log (this window, newest last)" }),
    auditList,
    el("div", { style: "text-align: right" }, auditRefresh),
    el("h2", { textContent: "Shells on this relay" }),
    shells,
    status,
  );
  panel.setAttribute("aria-label", "MCP settings");
  document.body.append(gear, panel);

  let tokenValue = null;
  let localUrl = null;
  const windowId = () => new URL(location.href).searchParams.get("session");
  const say = (text, isError = false) => {
    status.textContent = text;
    status.classList.toggle("error", isError);
  };

  function showConfig(c) {
    enabled.checked = c.enabled;
    defaultMode.value = c.default_mode;
    allowLaunch.checked = c.allow_launch;
    tokenValue = c.token;
    localUrl = c.local_url;
    for (const b of connectButtons) b.disabled = !c.token;
    token.textContent = c.token ? `${c.token.slice(0, 6)}…` : "no token yet";
    token.title = c.token ? "MCP token (Copy puts the whole token on the clipboard)" : "";
    copy.disabled = !c.token;
    generate.disabled = c.token_env_pinned;
    generate.textContent = c.token ? "Rotate" : "Generate";
    tokenNote.textContent = c.token_env_pinned
      ? "The token is set by WEB_TERMINAL_MCP_TOKEN."
      : `MCP clients use ${c.local_url}/mcp with this token as a bearer.`;
  }

  function showWindow(w) {
    windowMode.value = w.mode ?? "";
    windowScope.value = w.scope ?? "";
    windowRedact.checked = w.redact !== false;
    windowSecretInput.checked = w.secret_input === true;
    windowTitle.textContent = `This window (${w.id}): now ${w.effective_mode}`;
  }

  /** Lists the relay's shells, this window's marked, each with an End button. */
  async function showShells() {
    const list = await api("GET", "/sessions");
    const mine = windowId();
    shells.replaceChildren(
      ...list.map((s) => {
        const what = `${s.id}${String(s.id) === mine ? " (this window)" : ""}: ${s.title || "shell"}, ${s.cols}×${s.rows}`;
        const end = el("button", { type: "button", textContent: "End" });
        end.setAttribute("aria-label", `End shell ${s.id}`);
        end.addEventListener("click", () =>
          run(async () => {
            await api("DELETE", `/sessions/${s.id}`);
            say(`Shell ${s.id} ended.`);
            await showShells();
          }),
        );
        return el("li", {}, el("span", { textContent: what, title: what }), end);
      }),
    );
    if (!list.length) shells.append(el("li", { className: "note", textContent: "none" }));
  }

  /** The last AUDIT_SHOWN records of this window's audit log (what agents did, and refusals). */
  async function showAudit() {
    const id = windowId();
    // The log answers oldest first: look at its last 500 records (its newest seq first).
    const { last_seq: last } = await api("GET", "/session/audit?limit=1");
    const q = new URLSearchParams({ limit: "500", since: String(Math.max(0, last - 500)) });
    if (id) q.set("window", id);
    const { records } = await api("GET", `/session/audit?${q}`);
    const shown = records.slice(-AUDIT_SHOWN);
    auditList.replaceChildren(
      ...shown.map((r) => {
        const who = r.caller?.admin ? "admin" : r.caller?.scope ? `scope ${r.caller.scope}` : "agent";
        const result = r.error ? `${r.status} ${r.error}` : `${r.status}`;
        const args = r.args && Object.keys(r.args).length ? ` ${JSON.stringify(r.args)}` : "";
        const when = new Date(r.ms).toLocaleTimeString();
        const text = `${when} ${r.op ?? "?"} → ${result} (${who})${args}`;
        return el("li", {}, el("span", { textContent: text, title: text }));
      }),
    );
    if (!shown.length) auditList.append(el("li", { className: "note", textContent: "no agent actions yet" }));
  }

  async function run(action) {
    try {
      say("");
      await action();
    } catch (e) {
      say(e.message, true);
    }
  }

  const update = (body) => run(async () => showConfig(await api("POST", "/mcp/config", body)));
  enabled.addEventListener("change", () => update({ enabled: enabled.checked }));
  defaultMode.addEventListener("change", () => update({ default_mode: defaultMode.value }));
  allowLaunch.addEventListener("change", () => update({ allow_launch: allowLaunch.checked }));
  generate.addEventListener("click", () => update({ generate: true }));
  copy.addEventListener("click", () =>
    run(async () => {
      await navigator.clipboard.writeText(tokenValue);
      say("Token copied.");
    }),
  );
  const copySnippet = (which, what) =>
    run(async () => {
      await navigator.clipboard.writeText(connectSnippets(localUrl, tokenValue)[which]);
      say(`${what} copied (it holds the MCP token).`);
    });
  copyClaude.addEventListener("click", () => copySnippet("claude", "The claude mcp add command"));
  copyHttp.addEventListener("click", () => copySnippet("http", "The .mcp.json entry (HTTP)"));
  copyStdio.addEventListener("click", () => copySnippet("stdio", "The .mcp.json entry (stdio)"));
  auditRefresh.addEventListener("click", () => run(showAudit));
  applyWindow.addEventListener("click", () =>
    run(async () => {
      const id = windowId();
      if (!id) throw new Error("this page has no session yet");
      const scope = windowScope.value.trim();
      showWindow(await api("POST", "/session/mcp", { id, mode: windowMode.value || null, scope: scope || null }));
      say("Saved.");
    }),
  );

  const setWindow = (body, done) =>
    run(async () => {
      const id = windowId();
      if (!id) throw new Error("this page has no session yet");
      showWindow(await api("POST", "/session/mcp", { id, ...body }));
      say(done);
    });
  windowRedact.addEventListener("change", () =>
    setWindow({ redact: windowRedact.checked }, windowRedact.checked ? "Agents read secrets redacted." : "Agents read secrets as they are."),
  );
  windowSecretInput.addEventListener("change", () =>
    setWindow(
      { secret_input: windowSecretInput.checked },
      windowSecretInput.checked ? "Agents may type at this window's password prompts." : "Only you type at password prompts.",
    ),
  );

  async function open() {
    panel.hidden = false;
    gear.setAttribute("aria-expanded", "true");
    await run(async () => {
      showConfig(await api("GET", "/mcp/config"));
      const id = windowId();
      windowTitle.hidden = !id;
      if (id) showWindow(await api("POST", "/session/mcp", { id }));
      await showShells();
      await showAudit();
    });
  }
  function close() {
    panel.hidden = true;
    gear.setAttribute("aria-expanded", "false");
    onClose?.();
  }
  gear.addEventListener("click", () => (panel.hidden ? open() : close()));
  panel.addEventListener("keydown", (e) => {
    if (e.key === "Escape") close();
  });
  return { open, close };
}

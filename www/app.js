// The relay's page: one full-window terminal attached to a relay session over /ws.
//
// - The page token arrives once in the URL fragment (#token=...); it moves to sessionStorage
//   and the fragment is scrubbed, so it never sits in the address bar or history.
// - ?session=N names the session; without it the relay starts one and the URL is updated, so a
//   reload re-attaches to the same shell.
// - The socket reconnects with back-off when it drops; a refused token or an ended session is
//   shown plainly and not retried.
// - The gear button opens the MCP settings panel (settings.js).
import init, { WTerm } from "/pkg/wterm_wasm.js";
import { mountSettings } from "./settings.js";

const TOKEN_KEY = "wterm.token";
const SUBPROTOCOL = "wterm.v1";
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5000;
const CLOSE_AUTH = 4401;
const CLOSE_UNKNOWN_SESSION = 4404;

const statusEl = document.getElementById("status");
function showStatus(html, isError = false) {
  statusEl.innerHTML = html;
  statusEl.classList.toggle("error", isError);
  statusEl.hidden = false;
}
function clearStatus() { statusEl.hidden = true; }

function takeToken() {
  const params = new URLSearchParams(location.hash.slice(1));
  const fromHash = params.get("token");
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + location.search + (rest ? "#" + rest : ""));
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

const encoder = new TextEncoder();
const token = takeToken();
let sessionId = new URL(location.href).searchParams.get("session");
let ws = null;
let retryMs = RECONNECT_MIN_MS;
let ended = false;

await init();
const term = new WTerm(document.getElementById("terminal"), {
  webmcp: { name: "terminal", description: "Shell on the wterm relay" },
  onData: (data) => {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(encoder.encode(data));
  },
  onResize: ({ cols, rows }) => {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "resize", cols, rows }));
  },
  onTitle: (title) => { document.title = title ? `${title} — wterm` : "wterm"; },
});
await term.init();
window.wterm = term; // for debugging and tests
addEventListener("resize", () => term.fit());
mountSettings({ onClose: () => term.focus() });

function setSessionInUrl(id) {
  const url = new URL(location.href);
  url.searchParams.set("session", String(id));
  history.replaceState(null, "", url.pathname + url.search + url.hash);
}

function connect() {
  if (!token) {
    showStatus("No page token. Open the URL that <code>wterm-relay</code> printed (it ends in <code>#token=…</code>).", true);
    return;
  }
  const url = new URL("/ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  if (sessionId) url.searchParams.set("session", sessionId);
  ws = new WebSocket(url, [SUBPROTOCOL, "bearer." + token]);
  ws.binaryType = "arraybuffer";
  let attached = false;
  let awaitingSnapshot = false;
  ws.onopen = () => { clearStatus(); retryMs = RECONNECT_MIN_MS; };
  ws.onmessage = (ev) => {
    if (typeof ev.data !== "string") {
      term.write(new Uint8Array(ev.data));
      if (awaitingSnapshot) {
        // The snapshot was drawn at the PTY's size; only now ask for the window's size.
        awaitingSnapshot = false;
        term.fit();
      }
      return;
    }
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    switch (msg.type) {
      case "session":
        sessionId = String(msg.id);
        setSessionInUrl(sessionId);
        break;
      case "resized":
        if (!attached) {
          // Adopt the PTY's size so the snapshot lands right, then ask for ours.
          attached = true;
          awaitingSnapshot = true;
          term.reset();
          term.resize(msg.cols, msg.rows);
        } else if (msg.cols !== term.cols || msg.rows !== term.rows) {
          term.resize(msg.cols, msg.rows);
        }
        break;
      case "title":
        document.title = msg.data ? `${msg.data} — wterm` : "wterm";
        break;
      case "exit":
        ended = true;
        showStatus(`The session ended (exit code ${msg.code ?? "unknown"}). <a href="/">Start a new shell</a>`);
        break;
      case "error":
        showStatus(`Relay error: ${escapeHtml(msg.reason ?? "unknown")}`, true);
        break;
    }
  };
  ws.onclose = (ev) => {
    ws = null;
    if (ended || ev.code === 1000) {
      if (!ended) showStatus('The session ended. <a href="/">Start a new shell</a>');
      return;
    }
    if (ev.code === CLOSE_AUTH) {
      sessionStorage.removeItem(TOKEN_KEY);
      showStatus("The relay refused the page token. Open the URL that <code>wterm-relay</code> printed.", true);
      return;
    }
    if (ev.code === CLOSE_UNKNOWN_SESSION) {
      showStatus(`Session ${escapeHtml(sessionId ?? "")} does not exist (it may have ended). <a href="/">Start a new shell</a>`, true);
      return;
    }
    showStatus(`Connection lost; reconnecting in ${Math.round(retryMs / 100) / 10} s…`);
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
  };
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

connect();
term.focus();

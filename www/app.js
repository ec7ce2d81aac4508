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
const CLOSE_TOO_MANY_SESSIONS = 4429;
const CLOSE_SERVER_ERROR = 1011;
// Largest input frame we send, in bytes; the relay refuses messages over 256 KiB, so a large
// paste goes out in pieces.
const INPUT_FRAME_BYTES = 64 * 1024;
// Input typed while the socket is reconnecting is kept up to this many bytes and sent once
// attached; past it the oldest input is dropped and the page says so.
const PENDING_INPUT_MAX_BYTES = 1024 * 1024;
const WEBMCP = { name: "terminal", description: "Shell on the wterm relay" };

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
let attachedNow = false;
let pending = [];
let pendingBytes = 0;

function sendInput(bytes) {
  for (let i = 0; i < bytes.length; i += INPUT_FRAME_BYTES) {
    ws.send(bytes.subarray(i, i + INPUT_FRAME_BYTES));
  }
}

function queueInput(bytes) {
  pending.push(bytes);
  pendingBytes += bytes.length;
  let dropped = false;
  while (pendingBytes > PENDING_INPUT_MAX_BYTES && pending.length > 1) {
    pendingBytes -= pending.shift().length;
    dropped = true;
  }
  if (dropped) showStatus("Still reconnecting; input typed meanwhile was partly dropped.", true);
}

function flushPending() {
  const queued = pending;
  pending = [];
  pendingBytes = 0;
  for (const b of queued) sendInput(b);
}

// Once the shell is gone, agents must not be told their typing worked: the terminal turns
// read-only for WebMCP and says why in its description.
function markEnded(why) {
  ended = true;
  pending = [];
  pendingBytes = 0;
  term.setWebMCP({ ...WEBMCP, description: `${WEBMCP.description} (${why}; input is not accepted)`, readOnly: true });
}

await init();
const term = new WTerm(document.getElementById("terminal"), {
  webmcp: WEBMCP,
  onData: (data) => {
    if (ended) return;
    const bytes = encoder.encode(data);
    if (ws && ws.readyState === WebSocket.OPEN && attachedNow) sendInput(bytes);
    else queueInput(bytes);
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
  attachedNow = false;
  ws.onopen = () => { clearStatus(); };
  ws.onmessage = (ev) => {
    if (typeof ev.data !== "string") {
      term.write(new Uint8Array(ev.data));
      if (awaitingSnapshot) {
        // The snapshot was drawn at the PTY's size; only now ask for the window's size.
        awaitingSnapshot = false;
        attachedNow = true;
        term.fit();
        flushPending();
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
          retryMs = RECONNECT_MIN_MS;
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
        markEnded(`the session ended with exit code ${msg.code ?? "unknown"}`);
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
      if (!ended) {
        markEnded("the session ended");
        showStatus('The session ended. <a href="/">Start a new shell</a>');
      }
      return;
    }
    if (ev.code === CLOSE_AUTH) {
      sessionStorage.removeItem(TOKEN_KEY);
      showStatus("The relay refused the page token. Open the URL that <code>wterm-relay</code> printed.", true);
      return;
    }
    if (ev.code === CLOSE_UNKNOWN_SESSION) {
      markEnded("the session does not exist");
      showStatus(`Session ${escapeHtml(sessionId ?? "")} does not exist (it may have ended). <a href="/">Start a new shell</a>`, true);
      return;
    }
    if (ev.code === CLOSE_TOO_MANY_SESSIONS || ev.code === CLOSE_SERVER_ERROR) {
      markEnded("the relay could not start a shell");
      const why = ev.code === CLOSE_TOO_MANY_SESSIONS
        ? "The relay has too many sessions open; exit some shells first."
        : "The relay could not start a shell; see its log.";
      showStatus(`${why} <a href="/">Try again</a>`, true);
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

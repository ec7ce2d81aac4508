// The relay's page: one full-window terminal attached to a relay session over /ws, through the
// npm package's relay client (/pkg/relay.js, `attachToRelay`): the socket, the snapshot on
// attach, sizes, reconnecting with back-off and input made meanwhile all live there.
//
// - The page token arrives once in the URL fragment (#token=...); it moves to sessionStorage
//   and the fragment is scrubbed, so it never sits in the address bar or history.
// - ?session=N names the session; without it the relay starts one and the URL is updated, so a
//   reload re-attaches to the same shell. A link may name it in the fragment instead,
//   #session=N (the MCP tool watch_url's form; it carries no secret), alone or with the token
//   (#token=T&session=N): it is moved to ?session=N and scrubbed from the fragment; a fragment
//   naming another session in a page already open (hashchange) opens that session in it.
// - The agent bar under the terminal (agents.js) shows agents reading and typing, and switches
//   their access to this terminal (off / read / read-write) in one click.
// - A refused token, an unknown session or the shell's end is shown plainly and not retried.
// - The gear button opens the MCP settings panel (settings.js).
import init, { WTerm } from "/pkg/wterm_wasm_full.js";
import { attachToRelay } from "/pkg/relay.js";
import { mountSettings, api } from "./settings.js";
import { mountAgentBar } from "./agents.js";

const TOKEN_KEY = "wterm.token";
const WEBMCP = { name: "terminal", description: "Shell on the wterm relay" };
/** What the relay's `{"type":"error","reason"}` means for a person, by reason. */
const RELAY_ERRORS = {
  too_many_sessions: "The relay has too many sessions open; exit some shells.",
  spawn_failed: "The relay could not start a shell; see its log.",
};

const statusEl = document.getElementById("status");
function showStatus(html, isError = false) {
  statusEl.innerHTML = html;
  statusEl.classList.toggle("error", isError);
  statusEl.hidden = false;
}
function clearStatus() { statusEl.hidden = true; }

/**
 * Takes the page token (`#token=`) and a session (`#session=N`) out of the fragment: the token
 * into sessionStorage, the session into the query (`?session=N`, so a reload keeps it); both
 * are scrubbed from the fragment, other fragment keys are kept. Returns the token.
 */
function takeFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const fromHash = params.get("token");
  const session = params.get("session");
  if (fromHash || session !== null) {
    if (fromHash) sessionStorage.setItem(TOKEN_KEY, fromHash);
    params.delete("token");
    params.delete("session");
    const url = new URL(location.href);
    if (session !== null) url.searchParams.set("session", session);
    const rest = params.toString();
    history.replaceState(null, "", url.pathname + url.search + (rest ? "#" + rest : ""));
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

// A watch link opened in this tab while it shows another session: open that one here.
addEventListener("hashchange", () => {
  const params = new URLSearchParams(location.hash.slice(1));
  const wanted = params.get("session");
  if (wanted === null && !params.get("token")) return;
  const current = new URL(location.href).searchParams.get("session");
  takeFragment();
  if (wanted !== null && wanted !== current) location.reload();
});

function setSessionInUrl(id) {
  const url = new URL(location.href);
  url.searchParams.set("session", String(id));
  history.replaceState(null, "", url.pathname + url.search + url.hash);
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// The title comes from the terminal (OSC 0/2 in the output; the snapshot on attach carries the
// session's title, and the relay client's reset before it reports a title cleared), not from
// the relay's `title` message: one route.
const setTitle = (title) => { document.title = title ? `${title} — wterm` : "wterm"; };

await init();
// `onData` is set (and ignores the input) so the terminal never echoes locally: input goes to
// the shell through the relay client's listener, or nowhere once the shell is gone.
const term = new WTerm(document.getElementById("terminal"), { webmcp: WEBMCP, onData: () => {}, onTitle: setTitle });
await term.init();
window.wterm = term; // for debugging and tests
addEventListener("resize", () => term.fit());
mountSettings({ onClose: () => term.focus() });
const agentBar = mountAgentBar({
  term,
  webmcp: WEBMCP,
  windowId: () => new URL(location.href).searchParams.get("session"),
  api,
  onDone: () => term.focus(),
});

// Once the shell is gone, agents must not be told their typing worked: the terminal turns
// read-only for WebMCP and says why in its description.
function markEnded(why) {
  agentBar.ended(why);
}

const token = takeFragment();
const session = new URL(location.href).searchParams.get("session");
if (!token) {
  showStatus("No page token. Open the URL that <code>wterm-relay</code> printed (it ends in <code>#token=…</code>).", true);
} else if (session !== null && !/^\d+$/.test(session)) {
  // attachToRelay would throw on it; say what is wrong instead of showing a dead terminal.
  markEnded("the address names no session");
  showStatus(`“${escapeHtml(session)}” is not a session number (<code>?session=</code> takes digits). <a href="/">Start a new shell</a>`, true);
} else {
  let exitCode;
  // The relay's last complaint, shown until an attach succeeds (the client keeps retrying).
  let problem = null;
  attachToRelay(term, {
    url: location.origin,
    token,
    session: session ?? undefined,
    onSession: (id) => {
      setSessionInUrl(id);
      agentBar.refresh();
    },
    onExit: (code) => { exitCode = code; },
    onError: (e) => {
      if (e.code === "input_dropped") showStatus("Still reconnecting; input typed meanwhile was partly dropped.", true);
      // Keys sent as the connection dropped that could not be sent again: the person must know.
      else if (e.code === "input_lost" || e.code === "input_unconfirmed") showStatus(escapeHtml(`Some typing may be missing: ${e.message}.`), true);
      else if (e.code === "relay_error") {
        problem = escapeHtml(RELAY_ERRORS[e.reason] ?? `Relay error: ${e.reason}.`);
        showStatus(problem, true);
      }
    },
    onStatus: (status, detail) => {
      if (status === "open") {
        problem = null;
        clearStatus();
        agentBar.refresh();
      } else if (status === "reconnecting") {
        const when = `${Math.round(detail.delayMs / 100) / 10} s`;
        if (problem) showStatus(`${problem} Trying again in ${when}…`, true);
        else showStatus(`Connection lost; reconnecting in ${when}…`);
      } else if (status === "closed") {
        const again = '<a href="/">Start a new shell</a>';
        switch (detail.reason) {
          case "exit":
            markEnded(exitCode == null ? "the session ended" : `the session ended with exit code ${exitCode}`);
            showStatus(`The session ended${exitCode == null ? "" : ` (exit code ${exitCode})`}. ${again}`);
            break;
          case "token_refused":
            sessionStorage.removeItem(TOKEN_KEY);
            markEnded("the relay refused the page token");
            showStatus("The relay refused the page token. Open the URL that <code>wterm-relay</code> printed.", true);
            break;
          case "unknown_session":
            markEnded("the session does not exist");
            showStatus(`Session ${escapeHtml(session ?? "")} does not exist (it may have ended). ${again}`, true);
            break;
          default:
            markEnded("the connection closed");
            showStatus(`The connection to the relay closed. ${again}`, true);
        }
      }
    },
  });
}
term.focus();

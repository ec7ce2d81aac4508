// wterm-wasm/relay: attaches a WTerm to a session of wterm-relay over its websocket, so a web
// app (on the relay's origin, or on one the relay allows with --allow-origin) gets a real shell.
//
// The protocol is the relay's "/ws" (wterm-rs spec broker-api.md, "Websocket /ws";
// relay/src/http/ws.rs):
// - subprotocols ["wterm.v1", "bearer." + token]: the token never goes into the URL;
// - `/ws?session=N` attaches to session N; without it the relay starts one and names it in a
//   first text frame {"type":"session","id":N};
// - `client=HEX16` (random per attachToRelay) numbers our input: before `resized` the relay says
//   {"type":"input","offset":N}, how many of our input bytes reached the shell (null: it does not
//   know us). We keep the last PENDING_INPUT_MAX_BYTES of input sent, and after the snapshot send
//   {"type":"input","offset":S} and our input from byte S on: keys sent in the instant the relay
//   or the connection died are sent again, and the relay skips bytes it already has. What cannot
//   be resent is reported (onError "input_lost", "input_unconfirmed"), never lost silently;
// - on every attach: {"type":"resized","cols","rows","shell_integration"}, then one binary frame with a snapshot of
//   the screen; we reset the terminal before it, adopt the PTY's size for it, then ask for the
//   terminal's own size;
// - binary frames are program output (term.write); binary frames we send are input (onData),
//   at most INPUT_FRAME_BYTES each; input made while not attached waits (PENDING_INPUT_MAX_BYTES);
//   {"type":"resize","cols","rows"} asks the relay to resize the PTY;
// - {"type":"colors","foreground","background","cursor"} ("#rrggbb", `term.queryColors`): the
//   theme the page draws, which the relay answers the program's OSC 10/11/12 queries with (vim
//   and others pick a light or dark scheme from OSC 11); sent on attach, then whenever it
//   changes (checked every COLORS_CHECK_MS: a theme or the page's CSS may change it);
// - {"type":"exit","code"} (then close 1000), {"type":"error","reason"};
// - {"type":"secret_prompt","active","agents_may_type"}: the PTY's line discipline is (or no
//   longer is) at a secret prompt, echo off as at a password prompt; passed to
//   `term.setSecretPrompt`, which makes the WebMCP tools refuse to type there and shows a notice,
//   and to `onSecretPrompt(active)`;
// - {"type":"agent","kind","tool","at","by"}: an MCP client read or wrote the session through the
//   relay (`by`: who, {kind, name}); passed to the terminal's "agent" listeners with
//   `term.reportAgent` (source "relay");
// - {"type":"author","agent":TOOL} before input of the page's own agent (onData's second
//   argument, {agent: TOOL}), {"type":"author"} before the person's again: the relay records
//   who submitted each line and audits the agent's input;
// - {"type":"title","data"} is not used: the title reaches the terminal in the output itself
//   (OSC 0/2, and the snapshot sets the session's title), so `onTitle` follows the terminal's
//   own title events; one route, right after an attach, a reload and a resync alike;
// - close 4401 (token refused), 4404 (unknown session), 4400 (client id refused) and 4409
//   (another connection with our client id replaced this one) are final; close 1000 ends the
//   session; any other close reconnects with exponential back-off, 250 ms doubling to 5 s.

/** How often the drawn colors are compared with the ones sent to the relay, in ms. */
const COLORS_CHECK_MS = 1000;

/** Subprotocol the relay speaks. */
const SUBPROTOCOL = "wterm.v1";
/** Prefix of the subprotocol entry that carries the page token. */
const BEARER_PREFIX = "bearer.";
/** First reconnect delay, in milliseconds; doubles per failed attempt. */
const RECONNECT_MIN_MS = 250;
/** Longest reconnect delay, in milliseconds. */
const RECONNECT_MAX_MS = 5000;
/** Close codes of the relay. */
const CLOSE_NORMAL = 1000;
const CLOSE_TOKEN_REFUSED = 4401;
const CLOSE_UNKNOWN_SESSION = 4404;
const CLOSE_BAD_CLIENT = 4400;
const CLOSE_CLIENT_REPLACED = 4409;
/** Largest input frame sent, in bytes: the relay refuses messages over 256 KiB, so a large paste
 * goes out in pieces. */
const INPUT_FRAME_BYTES = 64 * 1024;
/** Input is kept up to this many bytes: what was made while not attached (connecting,
 * reconnecting, before the snapshot), sent once attached, and what was sent, which is sent again
 * if the relay says it did not arrive. Past it the oldest goes; input not yet sent that goes is
 * reported ("input_dropped"). */
const PENDING_INPUT_MAX_BYTES = 1024 * 1024;
/** Characters a subprotocol entry may hold (an RFC 7230 token). */
const TOKEN_CHARS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** An error the relay reported; `code` says which (see relay.d.ts). */
export class RelayError extends Error {
  constructor(code, message, closeCode) {
    super(message);
    this.name = "RelayError";
    this.code = code;
    this.closeCode = closeCode;
  }
}

/** The websocket URL for `url` (http(s):// or ws(s)://; a bare origin gets the path /ws). */
function socketUrl(url, session) {
  const base = typeof location === "undefined" ? undefined : location.href;
  const u = new URL(String(url), base);
  if (u.protocol === "http:") u.protocol = "ws:";
  else if (u.protocol === "https:") u.protocol = "wss:";
  else if (u.protocol !== "ws:" && u.protocol !== "wss:") {
    throw new TypeError(`url must be an http(s) or ws(s) URL; got ${JSON.stringify(String(url))}`);
  }
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/ws";
  u.hash = "";
  if (session != null) u.searchParams.set("session", String(session));
  return u;
}

/** 16 random hex digits: this page's input client id for the relay. */
function randomClientId() {
  const b = new Uint8Array(8);
  if (globalThis.crypto && typeof globalThis.crypto.getRandomValues === "function") globalThis.crypto.getRandomValues(b);
  else for (let i = 0; i < b.length; i++) b[i] = Math.floor(Math.random() * 256);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function call(f, ...args) {
  if (typeof f !== "function") return;
  try {
    f(...args);
  } catch (e) {
    console.error("wterm-wasm/relay: a callback threw:", e);
  }
}

/**
 * Attaches `term` to a relay session. Returns `{ close(), sessionId, status }`.
 * See relay.d.ts for the options and callbacks.
 */
export function attachToRelay(term, options) {
  if (!term || typeof term.write !== "function" || typeof term.addListener !== "function") {
    throw new TypeError("term must be a WTerm");
  }
  const { url, token } = options ?? {};
  if (typeof token !== "string" || !TOKEN_CHARS.test(token)) {
    throw new TypeError("token must be the relay's page token (a non-empty string of URL-safe characters)");
  }
  socketUrl(url, null); // Throws now, not at the first connect, when url is not usable.
  if (options.session != null && !/^\d+$/.test(String(options.session))) {
    throw new TypeError(`session must be a session id (digits); got ${JSON.stringify(String(options.session))}`);
  }

  // Until the relay's attach says whether it injected shell integration, a waitForCommand call
  // waits for the shell's first prompt (the attach's word then settles it either way).
  if (typeof term.setInjectedShell === "function") term.setInjectedShell(true);
  const encoder = new TextEncoder();
  let sessionId = options.session != null ? String(options.session) : null;
  let status = null;
  let ws = null;
  let timer = null;
  let retryMs = RECONNECT_MIN_MS;
  let exited = false; // {"type":"exit"} came: the close that follows is the end
  let done = false; // closed for good: by close(), the session's end, or a final refusal
  // Per connection: the first `resized` has come, and the snapshot after it has not yet.
  let attached = false;
  let awaitingSnapshot = false;
  // The size the terminal wants (its size whenever the page, not the relay, resized it), and
  // the size the PTY has as far as we know.
  let wanted = { cols: term.cols, rows: term.rows };
  let pty = null;
  let applyingRelaySize = false;
  // Our input, numbered from 0 by byte: the last PENDING_INPUT_MAX_BYTES of it ({start, bytes},
  // oldest first), where that begins, where it ends, and how far it was ever sent.
  const clientId = randomClientId();
  let log = [];
  let logBytes = 0;
  let logStart = 0;
  let produced = 0;
  let sentEnd = 0;
  // This connection's {"type":"input"} offset: undefined before it (a relay that does not number
  // input never sends one), null when the relay does not know us.
  let relayHas;
  // Whose input this connection's next binary frames are, as last told to the relay: null for
  // the person (what a new connection starts with), else the page agent's tool.
  let authorSent = null;

  const setStatus = (next, detail) => {
    status = next;
    call(options.onStatus, next, detail);
  };

  const send = (data) => {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(data);
  };

  const live = () => ws && ws.readyState === WebSocket.OPEN && attached && !awaitingSnapshot;

  const sendInput = (bytes, agent) => {
    if (agent !== authorSent) {
      send(JSON.stringify(agent ? { type: "author", agent } : { type: "author" }));
      authorSent = agent;
    }
    for (let i = 0; i < bytes.length; i += INPUT_FRAME_BYTES) send(bytes.subarray(i, i + INPUT_FRAME_BYTES));
  };

  // After the snapshot: send what the relay lacks. Which bytes that is comes from its `input`.
  const flushPending = () => {
    let from = sentEnd;
    if (relayHas === null && sentEnd > 0) {
      const message = `the relay cannot tell whether the input sent before the connection dropped reached the shell (it does not know this page's client); it was not sent again`;
      call(options.onError, new RelayError("input_unconfirmed", message));
    } else if (typeof relayHas === "number") {
      from = Math.min(relayHas, produced);
      if (from < logStart) {
        const message = `${logStart - from} bytes of input sent before the connection dropped did not reach the shell and are no longer kept (the last ${PENDING_INPUT_MAX_BYTES} bytes are)`;
        call(options.onError, new RelayError("input_lost", message));
        from = logStart;
      }
    }
    if (relayHas !== undefined) send(JSON.stringify({ type: "input", offset: from }));
    for (const { start, bytes, agent } of log) {
      if (start + bytes.length > from) sendInput(start >= from ? bytes : bytes.subarray(from - start), agent);
    }
    sentEnd = Math.max(sentEnd, produced);
  };

  const sendResize = (size) => {
    if (!attached || awaitingSnapshot) return;
    pty = { cols: size.cols, rows: size.rows };
    send(JSON.stringify({ type: "resize", cols: size.cols, rows: size.rows }));
  };

  // Follows a size the relay reported, without sending it back.
  const followRelay = (cols, rows) => {
    pty = { cols, rows };
    if (cols === term.cols && rows === term.rows) return;
    applyingRelaySize = true;
    try {
      term.resize(cols, rows);
    } finally {
      applyingRelaySize = false;
    }
  };

  // After the snapshot: give the PTY the terminal's own size again.
  const restoreSize = () => {
    if (wanted.cols !== term.cols || wanted.rows !== term.rows) {
      term.resize(wanted.cols, wanted.rows); // the resize listener sends it
    } else if (!pty || pty.cols !== wanted.cols || pty.rows !== wanted.rows) {
      sendResize(wanted);
    }
  };

  // Input: everything the terminal sends (keys, pastes, query replies, agent input). While not
  // attached it waits, so what a person types during a reconnect reaches the shell.
  // The page's own agent's input comes with {agent: tool}: the relay is told whose it is.
  const onData = (data, source) => {
    const bytes = encoder.encode(data);
    const agent = source && typeof source.agent === "string" ? source.agent : null;
    log.push({ start: produced, bytes, agent });
    logBytes += bytes.length;
    produced += bytes.length;
    if (live()) {
      // The page typed into gives the session its size (tmux's "latest" window size): a smaller
      // page that attached, or left, does not keep this one at its size.
      restoreSize();
      sendInput(bytes, agent);
      sentEnd = produced;
    }
    let dropped = false;
    while (logBytes > PENDING_INPUT_MAX_BYTES && log.length > 1) {
      const old = log.shift();
      logBytes -= old.bytes.length;
      logStart = old.start + old.bytes.length;
      if (logStart > sentEnd) dropped = true;
    }
    if (dropped) {
      const message = `input made while reconnecting passed ${PENDING_INPUT_MAX_BYTES} bytes; the oldest was dropped`;
      call(options.onError, new RelayError("input_dropped", message));
    }
  };
  const onResize = (size) => {
    if (applyingRelaySize) return;
    wanted = { cols: size.cols, rows: size.rows };
    sendResize(wanted);
  };
  // The session's title: the terminal's, set by the output and the snapshot.
  const onTitle = (title) => call(options.onTitle, title);
  term.addListener("data", onData);
  term.addListener("resize", onResize);
  term.addListener("title", onTitle);
  // The relay answers the program's queries itself; every attached page answering too would
  // send the program one reply per page.
  const answeredQueries = term.answerQueries;
  term.answerQueries = false;

  // The colors last sent on this connection ("" after a (re)connect: send them again).
  let colorsSent = "";
  const sendColors = () => {
    if (!attached) return;
    const c = term.queryColors;
    if (!c) return; // a destroyed terminal
    const json = JSON.stringify({ type: "colors", foreground: c.foreground, background: c.background, cursor: c.cursor });
    if (json === colorsSent) return;
    colorsSent = json;
    send(json);
  };
  const colorsTimer = setInterval(sendColors, COLORS_CHECK_MS);

  const finish = (reason, error) => {
    done = true;
    clearInterval(colorsTimer);
    log = [];
    logBytes = 0;
    clearTimeout(timer);
    timer = null;
    term.removeListener("data", onData);
    term.removeListener("resize", onResize);
    term.removeListener("title", onTitle);
    term.answerQueries = answeredQueries;
    if (error) call(options.onError, error);
    setStatus("closed", { reason });
  };

  const onMessage = (ev) => {
    if (typeof ev.data !== "string") {
      term.write(new Uint8Array(ev.data));
      if (awaitingSnapshot) {
        awaitingSnapshot = false;
        restoreSize();
        flushPending();
      }
      return;
    }
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    switch (msg && msg.type) {
      case "session":
        sessionId = String(msg.id);
        call(options.onSession, sessionId);
        break;
      case "input":
        relayHas = typeof msg.offset === "number" && msg.offset >= 0 ? msg.offset : null;
        break;
      case "resized":
        if (!attached) {
          // A new attach: the snapshot that follows rebuilds the screen at the PTY's size.
          attached = true;
          awaitingSnapshot = true;
          retryMs = RECONNECT_MIN_MS;
          term.reset();
          // The relay says again after the snapshot if a secret prompt is shown.
          term.setSecretPrompt({ active: false });
          // Whether the shell will report its first prompt: waitForCommand calls wait for it.
          if (typeof term.setInjectedShell === "function") term.setInjectedShell(msg.shell_integration === true);
          followRelay(msg.cols, msg.rows);
          colorsSent = "";
          sendColors();
          setStatus("open");
        } else {
          followRelay(msg.cols, msg.rows);
        }
        break;
      case "agent":
        if (typeof term.reportAgent === "function") {
          try {
            const by = msg.by && typeof msg.by === "object" ? msg.by : undefined;
            term.reportAgent({ kind: msg.kind, tool: String(msg.tool), at: typeof msg.at === "number" ? msg.at : undefined, by });
          } catch (e) {
            console.error("wterm-wasm/relay: an agent frame was not understood:", e);
          }
        }
        break;
      case "secret_prompt":
        // The PTY's echo is off at a prompt: a password prompt (spec "Secret prompts").
        try {
          term.setSecretPrompt({ active: msg.active === true, agentsMayType: msg.agents_may_type === true });
        } catch (e) {
          console.error("wterm-wasm/relay: a secret_prompt frame was not understood:", e);
        }
        call(options.onSecretPrompt, msg.active === true);
        break;
      case "exit":
        exited = true;
        call(options.onExit, typeof msg.code === "number" ? msg.code : null);
        break;
      case "error":
        {
          const reason = typeof msg.reason === "string" ? msg.reason : "unknown";
          const error = new RelayError("relay_error", `the relay reported an error: ${reason}`);
          error.reason = reason;
          call(options.onError, error);
        }
        break;
    }
  };

  const connect = () => {
    timer = null;
    attached = false;
    awaitingSnapshot = false;
    relayHas = undefined;
    authorSent = null;
    setStatus("connecting");
    let socket;
    try {
      const u = socketUrl(url, sessionId);
      u.searchParams.set("client", clientId);
      socket = new WebSocket(u, [SUBPROTOCOL, BEARER_PREFIX + token]);
    } catch (e) {
      finish("error", new RelayError("bad_url", `the relay URL was refused: ${e && e.message}`));
      return;
    }
    ws = socket;
    socket.binaryType = "arraybuffer";
    socket.onmessage = (ev) => {
      if (ws === socket) onMessage(ev);
    };
    socket.onclose = (ev) => {
      if (ws !== socket) return; // close() let go of it
      ws = null;
      if (exited || ev.code === CLOSE_NORMAL) {
        // The process exited ({"type":"exit"} came first), or the relay ended the session.
        if (!exited) call(options.onExit, null);
        finish("exit");
      } else if (ev.code === CLOSE_TOKEN_REFUSED) {
        finish("token_refused", new RelayError("token_refused", "the relay refused the page token", ev.code));
      } else if (ev.code === CLOSE_BAD_CLIENT) {
        const error = new RelayError("relay_error", "the relay refused the input client id", ev.code);
        error.reason = "bad_client";
        finish("error", error);
      } else if (ev.code === CLOSE_CLIENT_REPLACED) {
        // Reconnecting would replace the other connection in turn, and so on for ever.
        const message = "another connection with this page's input client id replaced this one";
        const error = new RelayError("relay_error", message, ev.code);
        error.reason = "client_replaced";
        finish("error", error);
      } else if (ev.code === CLOSE_UNKNOWN_SESSION) {
        const message = `session ${sessionId ?? ""} does not exist (it may have ended)`;
        finish("unknown_session", new RelayError("unknown_session", message, ev.code));
      } else {
        const delayMs = retryMs;
        retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
        setStatus("reconnecting", { delayMs, closeCode: ev.code });
        timer = setTimeout(connect, delayMs);
      }
    };
  };

  connect();

  return {
    close() {
      if (done) return;
      const socket = ws;
      ws = null;
      finish("closed");
      if (socket && socket.readyState <= WebSocket.OPEN) socket.close(CLOSE_NORMAL);
    },
    get sessionId() {
      return sessionId;
    },
    get status() {
      return status;
    },
  };
}

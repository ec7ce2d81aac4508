// wterm-wasm/relay: attach a WTerm to a wterm-relay session (a real PTY) over the relay's /ws.
import type { WTerm } from "./wterm_wasm.js";

/** Where a connection is: trying to connect, attached, waiting to retry, or done for good. */
export type RelayStatus = "connecting" | "open" | "reconnecting" | "closed";

/** Why a connection is done for good (the `reason` of the "closed" status). */
export type RelayClosedReason =
  /** `close()` was called. */
  | "closed"
  /** The session's process exited (or the relay ended the session with close code 1000). */
  | "exit"
  /** The relay refused the page token (close code 4401). Not retried. */
  | "token_refused"
  /** The session named does not exist, or no longer (close code 4404). Not retried. */
  | "unknown_session"
  /**
   * The browser refused to open the socket (a bad URL, a blocked port), or the relay refused
   * the page's input client id (close code 4400) or closed the connection because another one
   * with the same client id replaced it (close code 4409, reason "client_replaced"). Not
   * retried.
   */
  | "error";

/** Details passed with a status: the retry delay for "reconnecting", the reason for "closed". */
export interface RelayStatusDetail {
  /** "reconnecting": milliseconds until the next attempt (250, doubling up to 5000). */
  delayMs?: number;
  /** "reconnecting": the websocket close code of the connection that dropped. */
  closeCode?: number;
  /** "closed": why. */
  reason?: RelayClosedReason;
}

/** An error the relay reported, or a final refusal. */
export declare class RelayError extends Error {
  readonly name: "RelayError";
  /**
   * - "token_refused": the page token was wrong (close code 4401);
   * - "unknown_session": no such session (close code 4404);
   * - "relay_error": the relay sent `{"type":"error","reason"}` (the message names the reason;
   *   for example "too_many_sessions" before it closes, and the client then retries), or closed
   *   for good with 4400 (`reason` "bad_client": the input client id was refused) or 4409
   *   (`reason` "client_replaced": another connection with the same client id replaced this
   *   one);
   * - "bad_url": the browser refused to open a socket to `url`;
   * - "input_dropped": input made while not attached (it waits for the next attach) passed
   *   1 MiB, and the oldest was dropped;
   * - "input_lost": after a reconnect the relay said input sent before the drop did not reach
   *   the shell, and more than the 1 MiB the page keeps was missing: the message says how many
   *   bytes (the rest was sent again);
   * - "input_unconfirmed": after a reconnect the relay could not say what of the input sent
   *   before the drop reached the shell (a relay restart with a holder of an older build); it
   *   was not sent again.
   * Input sent in the instant a connection or the relay died is otherwise sent again, once.
   */
  readonly code:
    | "token_refused"
    | "unknown_session"
    | "relay_error"
    | "bad_url"
    | "input_dropped"
    | "input_lost"
    | "input_unconfirmed";
  /**
   * "relay_error": the relay's reason, such as "too_many_sessions", "spawn_failed",
   * "bad_client" or "client_replaced".
   */
  readonly reason?: string;
  /** The websocket close code, when the error is a close. */
  readonly closeCode?: number;
}

export interface RelayOptions {
  /**
   * The relay: its origin (`http://127.0.0.1:7681`; the socket path `/ws` is added) or the
   * socket's URL (`ws://127.0.0.1:7681/ws`). `http`/`https` become `ws`/`wss`. A page on
   * another origin must be allowed by the relay: `wterm-relay serve --allow-origin ORIGIN`.
   */
  url: string | URL;
  /**
   * The relay's page token. Sent as the websocket subprotocol `bearer.TOKEN`, never in the
   * URL. Anyone holding it can run commands as the relay's user: keep it out of URLs that are
   * logged or shared (the relay's own page takes it from the URL fragment).
   */
  token: string;
  /** A session id to attach to (from `onSession` earlier); without it a new shell starts. */
  session?: string | number;
  /** The relay started a session for this connection; `id` names it for `session` later. */
  onSession?: (id: string) => void;
  /** The session's process exited with this code (`null` when not known). No reconnect follows. */
  onExit?: (code: number | null) => void;
  /**
   * The terminal is (`true`) or no longer is (`false`) waiting for a secret: the PTY's echo is
   * off at a prompt (sudo, ssh, passwd, `read -s`, getpass). Agents cannot type there; the
   * terminal shows a notice meanwhile. Also sent again after a reconnect while one is shown.
   */
  onSecretPrompt?: (active: boolean) => void;
  /** A refusal or an error the relay reported (see `RelayError.code`). */
  onError?: (error: RelayError) => void;
  /** Every status change, with details for "reconnecting" and "closed". */
  onStatus?: (status: RelayStatus, detail?: RelayStatusDetail) => void;
  /**
   * The session's title, on attach and when it changes ("" when cleared): the terminal's own
   * title events (OSC 0/2 in the output; the snapshot on attach sets the session's title), while
   * attached.
   */
  onTitle?: (title: string) => void;
}

export interface RelayConnection {
  /**
   * Closes the socket (code 1000) and stops reconnecting; the terminal stays and keeps its
   * screen, and its input is echoed locally again unless the page set `onData`. The session
   * keeps running on the relay; attach again with `session: sessionId`. Idempotent.
   */
  close(): void;
  /** The session attached to: the `session` option, or the id the relay gave; null until then. */
  readonly sessionId: string | null;
  /** The current status. */
  readonly status: RelayStatus;
}

/**
 * Attaches `term` to a relay session: program output is written to the terminal, the
 * terminal's input (keys, pastes, replies to queries, WebMCP agent input) goes to the PTY (input
 * made while connecting or reconnecting waits for the attach, up to 1 MiB), and
 * its size follows the terminal. The terminal's own `onData`/`onResize`/`onTitle` callbacks
 * keep being called (the client uses `term.addListener`). While attached, `term.answerQueries`
 * is off: the relay answers the program's queries once for all pages. The terminal is reset before the
 * session's snapshot on every (re)connection. Call `close()` before `term.destroy()`.
 *
 * Throws a `TypeError` when `term`, `url`, `token` or `session` is unusable.
 */
export declare function attachToRelay(term: WTerm, options: RelayOptions): RelayConnection;

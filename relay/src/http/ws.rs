//! `GET /ws?session=ID`: a page attached to a session.
//!
//! Upgrade (broker contract, "Websocket /ws"):
//! - the `Origin` header, when present, must be the relay's own origin (`http://` + the `Host`
//!   header when that is `localhost` or an IP literal, or a loopback spelling of the bound port)
//!   or one given with `--allow-origin`; else `403 bad_origin` and no upgrade. No `Origin`
//!   (a non-browser client) is allowed;
//! - the client offers the subprotocols `wterm.v1` and `bearer.PAGE_TOKEN`; the relay selects
//!   `wterm.v1` (never the token). A missing or wrong token: the upgrade succeeds, then close
//!   4401 (a browser cannot read a refused upgrade's status);
//! - `session=ID` attaches to that session, else close 4404; without `session` a new session is
//!   made and `{"type":"session","id":N}` is the first frame;
//! - (ext) `client=HEX16`: the page numbers its input (`session/ledger.rs`). Before `resized`
//!   the relay sends `{"type":"input","offset":N}`, how many of this client's input bytes reached
//!   the program (a held session: its holder) so far, or `"offset":null` when the session does
//!   not know the client (never seen, or forgotten past `INPUT_CLIENTS_MAX` clients). The page
//!   then sends `{"type":"input","offset":S}` (S an integer 0..=[`INPUT_OFFSET_MAX_BYTES`],
//!   2^53 - 1, what JavaScript counts exactly; else `bad_message` with [`BAD_INPUT_DETAIL`] and
//!   the message is ignored) and its binary frames from byte S of its input on: what it sent
//!   that did not arrive (the relay or its socket died with it) is sent again, and bytes that
//!   did arrive are skipped if sent twice. Binary frames that come before the page's first
//!   `input` message count from the offset the relay told it (0 after `null`), so a page that
//!   sends at once and resends from the told offset later runs nothing twice. One connection
//!   at a time numbers a client's input: a newer one with the same `client` closes the older
//!   with 4409 `client_replaced`
//!   ([`CLIENT_REPLACED_CLOSE`](crate::session::CLIENT_REPLACED_CLOSE)), whose binary frames
//!   are dropped from then on ([`Session::claim_client`]). A `client` that
//!   is not 16 hex digits, or more than one `client`: an `error` frame `bad_client` saying so
//!   and what came (the value cut to [`BAD_CLIENT_ECHO_CHARS`]), then close 4400.
//!
//! Relay → page: `{"type":"resized","cols","rows","shell_integration"}` (whether the relay
//! injected its integration into the shell), then one binary frame with the snapshot,
//! then live output as binary frames in order; `{"type":"title","data"}` when the title changes;
//! `{"type":"resized",..}` after another page resized the session (or to the resizing page itself
//! when its size was clamped); `{"type":"exit","code"}` then
//! close 1000 when the process exits; `{"type":"error","reason","detail"}` for a message not
//! understood. A message over the size limit closes with 1009, a text frame that is not UTF-8
//! with 1007, a frame that breaks the protocol (unmasked) with 1002.
//! A page that falls [`CLIENT_QUEUE_BYTES`](crate::ground::limits::CLIENT_QUEUE_BYTES) behind gets
//! `resized` and a binary frame starting with [`wterm_core::RESYNC_PREFIX`] (CAN + RIS + ...,
//! `18 1b 63 ...`) followed by a fresh snapshot instead of the output it missed.
//!
//! Page → relay: binary frames are input bytes, written to the PTY at once (never behind
//! output), numbered when the page gave a `client` (from the told offset, then from each
//! `input` message's); text `{"type":"resize","cols","rows"}` resizes the session (clamped to
//! 1..1000, columns at least 2; not echoed back unless clamped); text
//! `{"type":"colors","foreground","background","cursor"}` (each `#rgb` or `#rrggbb`) sets the
//! colors the relay answers the program's OSC 10/11/12 queries with: the theme the page draws
//! (the page does not answer them itself while attached), the last page to send them winning,
//! as with `resize`; until one does, the page's default theme. Any other text message is
//! answered with an `error` frame (`bad_message`, [`BAD_MESSAGE_DETAIL`]; [`BAD_INPUT_DETAIL`]
//! for an `input` message that is refused) and otherwise ignored.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use futures_util::stream::FuturesUnordered;
use futures_util::{Sink, SinkExt as _, Stream, StreamExt as _};
use serde::Deserialize;
use wterm_core::limits::MAX_AUTHOR_NAME_BYTES;
use wterm_core::{Author, AuthorKind, DynamicColors, Size};

use crate::broker::Broker;
use crate::ground::limits::{
    CLOSE_HANDSHAKE, INPUT_OFFSET_MAX_BYTES, MAX_WS_MESSAGE_BYTES, WS_READ_BUFFER_BYTES,
};
use crate::ground::Refusal;
use crate::guard::checks::origin_allowed;
use crate::session::fanout::{ClientQueue, Frame, Next};
use crate::session::ledger::{parse_client, ClientClaim, ClientId, InputFrom};
use crate::session::registry::CreateError;
use crate::session::{Session, SessionId, ToPage};
use crate::state::AppState;

/// The subprotocol the relay speaks; selected in every upgrade response.
pub const PROTOCOL: &str = "wterm.v1";

/// Prefix of the subprotocol entry carrying the page token: `bearer.TOKEN`.
pub const BEARER_PREFIX: &str = "bearer.";

/// Close code: the process exited (after the `exit` frame), or the page closed.
pub const CLOSE_NORMAL: u16 = 1000;

/// Close code: a page sent a message over [`MAX_WS_MESSAGE_BYTES`].
pub const CLOSE_TOO_BIG: u16 = 1009;

/// Close code: a text frame that is not UTF-8 (RFC 6455 §7.4.1, "inconsistent data").
pub const CLOSE_INVALID_DATA: u16 = 1007;

/// Close code: a frame that breaks the websocket protocol (RFC 6455 §7.4.1).
pub const CLOSE_PROTOCOL_ERROR: u16 = 1002;

/// `detail` of the `bad_message` error frame: the text messages a page may send.
pub const BAD_MESSAGE_DETAIL: &str =
    "text messages are JSON {\"type\":\"resize\",\"cols\":N,\"rows\":N}, \
     {\"type\":\"colors\",\"foreground\":\"#rrggbb\",\"background\":\"#rrggbb\",\"cursor\":\"#rrggbb\"} or \
     {\"type\":\"author\",\"agent\":\"TOOL\"} ({\"type\":\"author\"} for the person); \
     input goes in binary frames, numbered from {\"type\":\"input\",\"offset\":N} when the page \
     gave a client";

/// The `error` detail for an `author` message whose `agent` is refused.
pub const BAD_AUTHOR_DETAIL: &str =
    "an author message is {\"type\":\"author\",\"agent\":\"TOOL\"}, TOOL the page agent's \
     WebMCP tool: 1 to 64 ASCII letters, digits, '_', '-' or '.'; or {\"type\":\"author\"} \
     (no agent) when the person's input follows";

/// The `error` detail for an `input` message that is refused (an offset missing, not an
/// integer, out of range, or on a connection without a `client`): what one must be. The number
/// is [`INPUT_OFFSET_MAX_BYTES`].
pub const BAD_INPUT_DETAIL: &str =
    "an input message is {\"type\":\"input\",\"offset\":<integer 0..=9007199254740991>} (the \
     byte of the page's input its next binary frame starts at, counted from its first), on a \
     connection opened with client= (16 hex digits)";

/// Which session a socket wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    New,
    Existing(SessionId),
    Invalid,
}

/// What a `client` query value must be, for the `bad_client` error.
pub const BAD_CLIENT_DETAIL: &str =
    "client must be 16 hex digits (the page's random input client id, relay.js makes one)";

/// Close code after `bad_client`: 4000 + 400.
pub const CLOSE_BAD_CLIENT: u16 = 4400;

/// Characters of a refused `client` value that `bad_client`'s detail repeats: enough to see
/// what came, too few for a page to make the relay echo a long value back.
pub const BAD_CLIENT_ECHO_CHARS: usize = 24;

/// The `client` of the query: `Ok(None)` when there is none; `Err` with `bad_client`'s detail
/// when it is not [`parse_client`]'s 16 hex digits (the detail quotes what came, cut to
/// [`BAD_CLIENT_ECHO_CHARS`]; nothing else of the query is repeated) or comes more than once.
fn client(query: Option<&str>) -> Result<Option<ClientId>, String> {
    let Some(query) = query else {
        return Ok(None);
    };
    let mut values = form_urlencoded::parse(query.as_bytes())
        .filter(|(k, _)| k == "client")
        .map(|(_, v)| v);
    let Some(value) = values.next() else {
        return Ok(None);
    };
    let more = values.count();
    if more > 0 {
        return Err(format!(
            "{BAD_CLIENT_DETAIL}, given once; got {} client parameters",
            more + 1
        ));
    }
    parse_client(&value).map(Some).ok_or_else(|| {
        let got = match value.char_indices().nth(BAD_CLIENT_ECHO_CHARS) {
            Some((cut, _)) => format!("{:?}... ({} bytes)", &value[..cut], value.len()),
            None => format!("{value:?}"),
        };
        format!("{BAD_CLIENT_DETAIL}; got {got}")
    })
}

fn target(query: Option<&str>) -> Target {
    let Some(query) = query else {
        return Target::New;
    };
    match form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "session") {
        None => Target::New,
        Some((_, v)) => crate::session::parse_id(&v).map_or(Target::Invalid, Target::Existing),
    }
}

/// The upgrade handler.
pub async fn upgrade(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    ws: WebSocketUpgrade,
) -> Response {
    if !origin_allowed(
        &headers,
        state.config.tls.is_some(),
        state.port,
        &state.config.allow_origins,
    ) {
        tracing::warn!(%peer, "websocket from a foreign origin refused");
        return Refusal::BadOrigin.into_response();
    }
    let authed = ws.requested_protocols().any(|p| {
        p.as_bytes()
            .strip_prefix(BEARER_PREFIX.as_bytes())
            .is_some_and(|t| state.config.page_token.matches(t))
    });
    let target = target(query.as_deref());
    let client = client(query.as_deref());
    let sockets = state.sockets.clone();
    ws.protocols([PROTOCOL])
        .max_message_size(MAX_WS_MESSAGE_BYTES)
        .read_buffer_size(WS_READ_BUFFER_BYTES)
        .on_upgrade(move |socket| {
            sockets.track_future(async move {
                if !authed {
                    tracing::warn!(%peer, "websocket without a valid page token refused");
                    return refuse(socket, Refusal::AuthRequired).await;
                }
                let client = match client {
                    Ok(client) => client,
                    Err(detail) => {
                        let mut socket = socket;
                        let err = ToPage::Error {
                            reason: "bad_client",
                            detail: Some(&detail),
                        }
                        .to_json();
                        let _ = socket.send(Message::Text(err.into())).await;
                        return close(&mut socket, CLOSE_BAD_CLIENT, "bad_client").await;
                    }
                };
                serve(socket, state, target, client).await
            })
        })
}

async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    if socket.send(Message::Close(Some(frame))).await.is_ok() {
        // Wait (bounded) for the page's answering close, so the close is clean on its side.
        let drain = async { while let Some(Ok(_)) = socket.recv().await {} };
        let _ = tokio::time::timeout(CLOSE_HANDSHAKE, drain).await;
    }
}

async fn refuse(mut socket: WebSocket, refusal: Refusal) {
    close(&mut socket, refusal.close_code(), refusal.code()).await;
}

async fn serve(mut socket: WebSocket, state: AppState, target: Target, client: Option<ClientId>) {
    let session = match target {
        Target::Existing(id) => match state.registry.get(id) {
            Some(s) => s,
            None => return refuse(socket, Refusal::UnknownSession).await,
        },
        Target::Invalid => return refuse(socket, Refusal::UnknownSession).await,
        Target::New => match state.broker.create_page_session(Size::default()) {
            Ok(s) => {
                let hello = ToPage::Session { id: s.id() }.to_json();
                if socket.send(Message::Text(hello.into())).await.is_err() {
                    return;
                }
                s
            }
            Err(e) => {
                let refusal = match e {
                    CreateError::TooMany => Refusal::TooManySessions,
                    CreateError::OverBudget(e) => Refusal::MemoryBudget(e.to_string()),
                    CreateError::Spawn(_) => Refusal::SpawnFailed,
                };
                tracing::error!(error = %e, "session for a websocket not created");
                let err = ToPage::Error {
                    reason: refusal.code(),
                    detail: None,
                }
                .to_json();
                let _ = socket.send(Message::Text(err.into())).await;
                return refuse(socket, refusal).await;
            }
        },
    };
    let queue = session.attach();
    tracing::debug!(session = session.id(), "page attached");
    // Claimed before the offset is read, so no input of a connection this one replaces is
    // taken after it.
    let claim = client.map(|c| session.claim_client(c, &queue));
    // Where the page's binary frames start in its numbered input until its `input` message:
    // the offset the relay tells it (0 when the session does not know it).
    let mut numbering = None;
    let mut gone = false;
    if let Some(claim) = &claim {
        let offset = session.input_offset(claim.client());
        let msg = ToPage::Input { offset }.to_json();
        gone = socket.send(Message::Text(msg.into())).await.is_err();
        let from = InputFrom {
            client: claim.client(),
            start: offset.unwrap_or(0),
        };
        numbering = Some((from, claim));
    }
    if !gone {
        let (sink, stream) = socket.split();
        bridge(sink, stream, &state.broker, &session, &queue, numbering).await;
    }
    if let Some(claim) = &claim {
        session.release_client(claim);
    }
    session.detach(&queue);
    tracing::debug!(session = session.id(), "page detached");
}

/// Runs one attached page until either side ends: the queue's frames to `sink`, `stream`'s
/// messages to the session. Generic over the socket halves so channels can stand in.
async fn bridge<Si, St>(
    mut sink: Si,
    mut stream: St,
    broker: &Broker,
    session: &Session,
    queue: &Arc<ClientQueue>,
    numbering: Option<(InputFrom, &ClientClaim)>,
) where
    Si: Sink<Message> + Unpin,
    St: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    let ending = {
        // Each side is polled only when its own waker fired (a `select!` polls both at every
        // wake): a poll of the reader clears the websocket's whole read buffer
        // ([`WS_READ_BUFFER_BYTES`]), which cost a flood that much per output frame sent.
        let writer = async {
            write_loop(&mut sink, session, queue).await;
            None
        };
        let reader =
            async { Some(read_loop(&mut stream, broker, session, queue, numbering).await) };
        let mut sides: FuturesUnordered<_> = [Either::Left(writer), Either::Right(reader)]
            .into_iter()
            .collect();
        match sides.next().await.flatten() {
            Some(ending) => ending,
            None => {
                // Our close frame is out (or the socket broke): wait, bounded, for the page's.
                let _ = tokio::time::timeout(CLOSE_HANDSHAKE, sides.next()).await;
                return;
            }
        }
    };
    match ending {
        // The websocket library queued the answering close when it read the page's; closing
        // the sink sends it (sending a close of our own after theirs is refused).
        PageEnd::Closed => {
            let _ = tokio::time::timeout(CLOSE_HANDSHAKE, sink.close()).await;
        }
        PageEnd::Broke(code, reason) => {
            queue.close(code, reason);
            let _ =
                tokio::time::timeout(CLOSE_HANDSHAKE, write_loop(&mut sink, session, queue)).await;
        }
        PageEnd::Gone => {}
    }
}

/// How a page's side of the socket ended.
enum PageEnd {
    /// It sent a close frame.
    Closed,
    /// It broke the protocol: close with this code and reason.
    Broke(u16, &'static str),
    /// The connection ended without a close.
    Gone,
}

async fn write_loop<Si>(sink: &mut Si, session: &Session, queue: &ClientQueue)
where
    Si: Sink<Message> + Unpin,
{
    loop {
        let msg = match queue.next().await {
            Next::Send(Frame::Output(bytes) | Frame::Snapshot(bytes)) => Message::Binary(bytes),
            Next::Send(Frame::Text(text)) => Message::Text(text.into()),
            Next::Resync => {
                tracing::debug!(session = session.id(), "page fell behind; resyncing it");
                session.resync(queue);
                continue;
            }
            Next::Close(code, reason) => {
                let frame = CloseFrame {
                    code,
                    reason: reason.into(),
                };
                let _ = sink.send(Message::Close(Some(frame))).await;
                return;
            }
        };
        if sink.send(msg).await.is_err() {
            return;
        }
    }
}

/// A text message from the page.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum FromPage {
    Resize {
        cols: u64,
        rows: u64,
    },
    Colors {
        foreground: String,
        background: String,
        cursor: String,
    },
    /// The page's next binary frames start at this offset of its numbered input.
    Input {
        offset: u64,
    },
    /// Who the page's next binary frames are from: its own agent's `tool`, or (no `agent`)
    /// the person.
    Author {
        #[serde(default)]
        agent: Option<String>,
    },
}

/// The author an `author` message names, or `None` when its `agent` is not a tool name
/// ([`BAD_AUTHOR_DETAIL`]).
fn page_author(agent: Option<&str>) -> Option<Author> {
    let Some(tool) = agent else {
        return Some(Author::person());
    };
    let ok = (1..=MAX_AUTHOR_NAME_BYTES).contains(&tool.len())
        && tool
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    ok.then(|| Author::new(AuthorKind::PageAgent, tool))
}

/// Just the `type` of a text message, to tell a malformed `input` message from the others.
#[derive(Debug, Deserialize)]
struct Tagged {
    #[serde(rename = "type")]
    kind: String,
}

/// The page's text message, or the `bad_message` detail for it: [`BAD_INPUT_DETAIL`] for an
/// `input` message whose offset is missing or not a non-negative integer, else
/// [`BAD_MESSAGE_DETAIL`].
fn parse_message(text: &str) -> Result<FromPage, &'static str> {
    serde_json::from_str(text).map_err(|_| match serde_json::from_str::<Tagged>(text) {
        Ok(t) if t.kind == "input" => BAD_INPUT_DETAIL,
        _ => BAD_MESSAGE_DETAIL,
    })
}

/// Answers a text message that is refused with `bad_message` and `detail`.
fn bad_message(queue: &ClientQueue, detail: &str) {
    queue.push_text(
        ToPage::Error {
            reason: "bad_message",
            detail: Some(detail),
        }
        .to_json(),
    );
}

/// The colors of a `colors` message, or `None` when one is not `#rgb`/`#rrggbb`.
fn query_colors(foreground: &str, background: &str, cursor: &str) -> Option<DynamicColors> {
    Some(DynamicColors {
        foreground: wterm_core::hex_rgb(foreground)?,
        background: wterm_core::hex_rgb(background)?,
        cursor: wterm_core::hex_rgb(cursor)?,
    })
}

/// Where the page's next binary frame starts after its `input` message with `offset`, or the
/// `bad_message` detail when the message is refused (the numbering then stays as it was).
fn input_start(client: Option<ClientId>, offset: u64) -> Result<InputFrom, &'static str> {
    let client = client.ok_or(BAD_INPUT_DETAIL)?;
    if offset > INPUT_OFFSET_MAX_BYTES {
        return Err(BAD_INPUT_DETAIL);
    }
    Ok(InputFrom {
        client,
        start: offset,
    })
}

fn side(n: u64) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// Reads the page's messages until it closes, breaks the protocol or goes away. `numbering`:
/// for a page that gave a `client`, where its first binary frame starts in its numbered input
/// (the offset it was told), until an `input` message says otherwise, and the connection's
/// claim of the client: once another connection replaced it, its binary frames are dropped.
async fn read_loop<St>(
    stream: &mut St,
    broker: &Broker,
    session: &Session,
    queue: &ClientQueue,
    numbering: Option<(InputFrom, &ClientClaim)>,
) -> PageEnd
where
    St: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    let client = numbering.map(|(n, _)| n.client);
    let claim = numbering.map(|(_, c)| c);
    // Where the next binary frame starts in the page's numbered input.
    let mut next = numbering.map(|(n, _)| n);
    // Who the next binary frames are from: the person until the page says otherwise.
    let mut author = Author::person();
    while let Some(msg) = stream.next().await {
        match msg {
            Ok(Message::Binary(bytes)) => {
                if claim.is_some_and(ClientClaim::replaced) {
                    // A newer connection numbers this client's input; this one is closing.
                    continue;
                }
                let from = next;
                if let Some(n) = next.as_mut() {
                    n.start = n.start.saturating_add(bytes.len() as u64);
                }
                broker
                    .audit
                    .page_input(session.id(), &author, &bytes, || broker.secrets());
                // Fails only once the session's writer is gone (the process exited).
                let _ = session.write_from(bytes, from, &author).await;
            }
            Ok(Message::Text(text)) => match parse_message(text.as_str()) {
                Ok(FromPage::Input { offset }) => match input_start(client, offset) {
                    Ok(from) => next = Some(from),
                    Err(detail) => bad_message(queue, detail),
                },
                Ok(FromPage::Author { agent }) => match page_author(agent.as_deref()) {
                    Some(a) => author = a,
                    None => bad_message(queue, BAD_AUTHOR_DETAIL),
                },
                Ok(FromPage::Resize { cols, rows }) => {
                    session.resize(Size::new(side(rows), side(cols)), queue);
                }
                Ok(FromPage::Colors {
                    foreground,
                    background,
                    cursor,
                }) => match query_colors(&foreground, &background, &cursor) {
                    Some(colors) => session.set_query_colors(colors),
                    None => bad_message(queue, BAD_MESSAGE_DETAIL),
                },
                Err(detail) => bad_message(queue, detail),
            },
            Ok(Message::Close(_)) => return PageEnd::Closed,
            Ok(Message::Ping(_) | Message::Pong(_)) => {}
            Err(e) => {
                tracing::debug!(session = session.id(), error = %e, "websocket read failed");
                return close_for(e)
                    .map_or(PageEnd::Gone, |(code, reason)| PageEnd::Broke(code, reason));
            }
        }
    }
    PageEnd::Gone
}

/// The close a read error calls for (RFC 6455 §7.4.1): 1009 for a message over the limit, 1007
/// for a text frame that is not UTF-8, 1002 for a broken frame (an unmasked client frame, a bad
/// opcode). `None` when the connection itself failed: there is nobody to tell.
fn close_for(e: axum::Error) -> Option<(u16, &'static str)> {
    match e.into_inner().downcast_ref::<tungstenite::Error>()? {
        tungstenite::Error::Capacity(_) => Some((CLOSE_TOO_BIG, "too_big")),
        tungstenite::Error::Utf8(_) => Some((CLOSE_INVALID_DATA, "invalid_utf8")),
        tungstenite::Error::Protocol(_) => Some((CLOSE_PROTOCOL_ERROR, "protocol_error")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        assert_eq!(target(None), Target::New);
        assert_eq!(target(Some("")), Target::New);
        assert_eq!(target(Some("session=12")), Target::Existing(12));
        assert_eq!(target(Some("x=1&session=3")), Target::Existing(3));
        assert_eq!(target(Some("session=abc")), Target::Invalid);
        assert_eq!(target(Some("session=-1")), Target::Invalid);
    }

    #[test]
    fn input_offsets_past_what_javascript_counts_exactly_are_refused() {
        assert!(BAD_INPUT_DETAIL.contains(&format!("0..={INPUT_OFFSET_MAX_BYTES}")));
        let at = |start| Ok(InputFrom { client: 7, start });
        assert_eq!(input_start(Some(7), 0), at(0));
        assert_eq!(
            input_start(Some(7), INPUT_OFFSET_MAX_BYTES),
            at(INPUT_OFFSET_MAX_BYTES)
        );
        for offset in [INPUT_OFFSET_MAX_BYTES + 1, u64::MAX] {
            assert_eq!(input_start(Some(7), offset), Err(BAD_INPUT_DETAIL));
        }
    }

    #[test]
    fn bad_input_messages_say_what_an_input_message_is() {
        assert!(matches!(
            parse_message(r#"{"type":"input","offset":12}"#),
            Ok(FromPage::Input { offset: 12 })
        ));
        for bad in [
            r#"{"type":"input"}"#,
            r#"{"type":"input","offset":null}"#,
            r#"{"type":"input","offset":"12"}"#,
            r#"{"type":"input","offset":-1}"#,
            r#"{"type":"input","offset":1.5}"#,
            r#"{"type":"input","offset":1e400}"#,
            r#"{"type":"input","offset":18446744073709551616}"#,
        ] {
            assert_eq!(parse_message(bad).err(), Some(BAD_INPUT_DETAIL), "{bad}");
        }
        // On a connection without a client, a well-formed one is refused alike.
        assert_eq!(input_start(None, 0), Err(BAD_INPUT_DETAIL));
        assert!(BAD_INPUT_DETAIL.contains("client="));
        for other in [r#"{"type":"resize"}"#, r#"{"type":"nope"}"#, "[1]", "input"] {
            assert_eq!(
                parse_message(other).err(),
                Some(BAD_MESSAGE_DETAIL),
                "{other}"
            );
        }
    }

    #[test]
    fn client_ids_in_the_query() {
        assert_eq!(client(None), Ok(None));
        assert_eq!(client(Some("session=3")), Ok(None));
        assert_eq!(
            client(Some("session=3&client=00000000000000aB")),
            Ok(Some(0xab))
        );
        let refused = |query: &str| client(Some(query)).unwrap_err();
        for (query, says) in [
            ("client=xyz", r#"; got "xyz""#),
            ("client=", r#"; got """#),
            ("client=%22%0a", r#"; got "\"\n""#),
            (
                "client=00000000000000aB&client=00000000000000aB",
                "got 2 client",
            ),
            ("client=x&session=1&client=y&client=z", "got 3 client"),
        ] {
            let detail = refused(query);
            assert!(detail.starts_with(BAD_CLIENT_DETAIL), "{query}: {detail}");
            assert!(detail.contains(says), "{query}: {detail}");
        }
        // A long value is cut: its first characters and its length.
        let long = "é".repeat(10_000);
        let detail = refused(&format!("client={long}"));
        let cut: String = long.chars().take(BAD_CLIENT_ECHO_CHARS).collect();
        assert!(
            detail.ends_with(&format!("; got {cut:?}... (20000 bytes)")),
            "{detail}"
        );
        assert!(detail.len() < BAD_CLIENT_DETAIL.len() + 100, "{detail}");
    }

    #[test]
    fn colors_messages() {
        let m: FromPage = serde_json::from_str(
            r##"{"type":"colors","foreground":"#111","background":"#fdf6e3","cursor":"#AABBCC"}"##,
        )
        .unwrap();
        let FromPage::Colors {
            foreground,
            background,
            cursor,
        } = m
        else {
            panic!("{m:?}")
        };
        assert_eq!(
            query_colors(&foreground, &background, &cursor),
            Some(DynamicColors {
                foreground: [0x11; 3],
                background: [0xfd, 0xf6, 0xe3],
                cursor: [0xaa, 0xbb, 0xcc],
            })
        );
        assert_eq!(query_colors("#111", "white", "#000"), None);
    }
}

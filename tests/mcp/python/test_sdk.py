"""The relay's MCP endpoint driven by the official MCP Python SDK (`mcp`), 1.x or 2.x.

The checks of the TypeScript SDK's tests/mcp/mcp-client.test.mjs, against the real
`wterm-relay` binary over the streamable HTTP transport. The SDK's own `streamable_http_client`
and `ClientSession` do the talking; raw HTTP (the SDK's own httpx) sends only what no SDK
sends, and its answers are decoded with the SDK's own JSON-RPC types (in 1.x, whose
`JSONRPCError` refuses `"id": null`, the error member only).

Each line connects twice where it can:
- `handshake`: `ClientSession.initialize()`, a session with an `Mcp-Session-Id` (both lines;
  in 2.x the same as `mcp.Client(mode="legacy")`), ended by the transport's DELETE;
- `auto` (2.x only): `mcp.Client` connecting as it does by default (`mode="auto"`): it probes
  `server/discover` and, since the relay (rmcp) answers it, speaks the stateless 2026-07-28
  revision, with no session.

One line per check, then `python mcp X.Y.Z: N passed, M failed`; the exit code is non-zero
when a check failed.

Run: python test_sdk.py in a venv with `mcp` (WTERM_RELAY_BIN names the binary, default
target/release/wterm-relay); tests/mcp/python-sdk.sh makes the venvs and runs both lines.
"""

import asyncio
import json
import logging
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from contextlib import asynccontextmanager, contextmanager
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

SDK_VERSION = package_version("mcp")
SDK_MAJOR = int(SDK_VERSION.split(".")[0])

# Where the two lines differ: the HTTP client package, the types module, the error class, the
# negotiation, and whether the JSON-RPC error type admits `"id": null`.
if SDK_MAJOR >= 2:
    import httpx2 as httpx
    import mcp_types as types
    from mcp import Client
    from mcp.shared.exceptions import MCPError as SdkError

    MODES = ("handshake", "auto")

    def decode_message(data):
        """The SDK's own decoding of one JSON-RPC message off the wire."""
        return types.jsonrpc_message_adapter.validate_python(data)

    def server_name(session, _result):
        return session.server_info.name

    def negotiated_version(session, _result):
        return session.protocol_version
else:
    import httpx
    from mcp import types
    from mcp.shared.exceptions import McpError as SdkError

    MODES = ("handshake",)
    Client = None

    def server_name(_session, result):
        return result.serverInfo.name

    def negotiated_version(_session, result):
        return result.protocolVersion


REPO = Path(__file__).resolve().parents[3]
BIN = Path(os.environ.get("WTERM_RELAY_BIN", REPO / "target/release/wterm-relay")).resolve()

# The tools an MCP token without admin sees (as in mcp-client.test.mjs).
TOOLS = sorted([
    "mcp_info", "list_terminals", "read_screen", "send_input", "send_keys", "reset_terminal",
    "flush_input", "set_pace", "list_profiles", "launch_terminal", "set_window", "run_command",
    "watch_url",
])
START_TIMEOUT_S = 15
# One connection's checks take well under a second; a relay that stops answering fails the run
# after this long instead of hanging it on the SDK's 300-second read timeout.
MODE_TIMEOUT_S = 120
TERMINATION_WARNING = "Session termination failed"

# Checks that fail because of the relay, not the test, until the relay is fixed. A listed check
# that fails prints KNOWN and does not fail the run; one that passes fails it, so the entry is
# removed with the fix. Keys are "<mode>: <check name>".
KNOWN_RELAY_FAULTS: dict[str, str] = {
}


class UntypedRequest(types.Request[dict[str, Any], str]):
    """A request whose params go out as given. `ClientSession.send_request` is the SDK's
    lowest-level request path; with the base `Request` it would send only the params' `_meta`."""


def wire(model):
    """A model as it travels (camelCase keys in both lines)."""
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


class Relay:
    """A real relay on a free port, in a temporary HOME, with MCP on (readwrite, launching
    allowed), started as harness.mjs starts it."""

    def __init__(self):
        self.home = Path(tempfile.mkdtemp(prefix="wterm-mcp-py-"))
        self.token = "page-" + secrets.token_hex(12)
        self.mcp_token = "mcp-" + secrets.token_hex(12)
        (self.home / ".bashrc").write_text("PS1='$ '\nunset PROMPT_COMMAND\n")
        env = dict(os.environ, HOME=str(self.home), SHELL="/bin/bash",
                   WEB_TERMINAL_TOKEN=self.token, WEB_TERMINAL_MCP_TOKEN=self.mcp_token,
                   RUST_LOG=os.environ.get("RUST_LOG", "warn"))
        self.output = []
        self.url = None
        self.child = subprocess.Popen(
            # --no-persist: sessions end with this test's relay, never held past it (the
            # relay's default holds them).
            [str(BIN), "serve", "--port", "0", "--state-dir", str(self.home / "state"),
             "--no-persist"],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True)
        found = threading.Event()

        def drain():
            for line in self.child.stdout:
                self.output.append(line)
                m = re.search(r"listening on (https?://[^/\s]+)/", line)
                if m and self.url is None:
                    self.url = m.group(1)
                    found.set()
            found.set()

        threading.Thread(target=drain, daemon=True).start()
        if not found.wait(START_TIMEOUT_S) or self.url is None:
            self.stop()
            raise RuntimeError("relay did not start:\n" + "".join(self.output))
        self.endpoint = f"{self.url}/mcp"

    def config(self, body):
        r = httpx.post(f"{self.url}/mcp/config", json=body,
                       headers={"Authorization": f"Bearer {self.token}"})
        assert r.status_code == 200, f"POST /mcp/config: {r.status_code} {r.text}"

    def stop(self):
        if self.child.poll() is None:
            self.child.terminate()
            try:
                self.child.wait(10)
            except subprocess.TimeoutExpired:
                self.child.kill()
                self.child.wait()
        shutil.rmtree(self.home, ignore_errors=True)


class Checks:
    """Named checks, one line each; a failed check does not stop the next. The lines never
    say "<number> passed" (scripts/test.sh adds those up): only the summary does."""

    def __init__(self):
        self.ok = 0
        self.bad = 0
        self.known = 0

    @contextmanager
    def check(self, mode, name):
        key = f"{mode}: {name}"
        try:
            yield
        except Exception as e:  # an assertion, or the SDK raising where it should not
            detail = str(e) if isinstance(e, AssertionError) else f"{type(e).__name__}: {e}"
            if key in KNOWN_RELAY_FAULTS:
                self.known += 1
                print(f"  KNOWN [{key}]\n       relay fault: {KNOWN_RELAY_FAULTS[key]}\n"
                      f"       {detail}", flush=True)
            else:
                self.bad += 1
                print(f"  FAIL [{key}]\n       {detail}", flush=True)
        else:
            if key in KNOWN_RELAY_FAULTS:
                self.bad += 1
                print(f"  FAIL [{key}]\n       listed in KNOWN_RELAY_FAULTS but it works now: "
                      "remove the entry", flush=True)
            else:
                self.ok += 1
                print(f"  ok   [{key}]", flush=True)


class SdkLog(logging.Handler):
    """What the SDK logs at WARNING or above."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(f"{record.name} {record.levelname}: {record.getMessage()}")

    @contextmanager
    def capture(self):
        logger = logging.getLogger("mcp")
        logger.setLevel(logging.WARNING)
        logger.propagate = False  # the report prints them, once
        logger.addHandler(self)
        try:
            yield self
        finally:
            logger.removeHandler(self)


class Wire:
    """What the SDK's HTTP client sent and got, from httpx event hooks: the session id the
    relay gave, the MCP-Protocol-Version headers sent, and each DELETE's status and body."""

    def __init__(self):
        self.session_id = None
        self.versions_sent = []
        self.deletes = []

    async def on_request(self, request):
        v = request.headers.get("mcp-protocol-version")
        if v and v not in self.versions_sent:
            self.versions_sent.append(v)

    async def on_response(self, response):
        sid = response.headers.get("mcp-session-id")
        if sid:
            self.session_id = sid
        if response.request.method == "DELETE":
            await response.aread()
            self.deletes.append((response.status_code, response.content.decode(errors="replace")))


def tool_text(result):
    """Whether a tool result is an error, and its first text block."""
    r = wire(result)
    return r.get("isError", False), r["content"][0]["text"]


async def expect_error(session, method, params, result_type):
    """Sends a request through the session and returns the JSON-RPC error it must get."""
    try:
        result = await session.send_request(UntypedRequest(method=method, params=params),
                                            result_type)
    except SdkError as e:
        return e.error
    raise AssertionError(f"{method} {json.dumps(params)} was answered with {wire(result)}")


def check_parse_error(body):
    """A JSON-RPC parse error by the spec: id null, code -32700, decoded by the SDK's types."""
    assert "id" in body and body["id"] is None, body
    if SDK_MAJOR >= 2:
        message = decode_message(body)
        assert isinstance(message, types.JSONRPCError), type(message).__name__
        error = message.error
    else:
        # 1.x's JSONRPCError takes only a string or integer id, though JSON-RPC 2.0 (section 5)
        # says null when the request's id could not be read: the envelope is checked here, its
        # error member by the SDK's ErrorData.
        assert set(body) == {"jsonrpc", "id", "error"} and body["jsonrpc"] == "2.0", body
        error = types.ErrorData.model_validate(body["error"])
    assert error.code == types.PARSE_ERROR, body


@asynccontextmanager
async def connect(mode, endpoint, http):
    """A connected `ClientSession` over the SDK's streamable HTTP transport, and the result of
    its handshake (`InitializeResult`, or 2026-07-28's `DiscoverResult`)."""
    transport = streamable_http_client(endpoint, http_client=http)
    if mode == "auto":
        async with Client(transport) as client:  # mode="auto", the default
            yield client.session, client.session.discover_result or client.session.initialize_result
    else:
        # 1.x yields (read, write, get_session_id), 2.x (read, write).
        async with transport as streams, ClientSession(streams[0], streams[1]) as session:
            yield session, await session.initialize()


async def run_mode(relay, checks, mode):
    """Connects with the SDK in `mode`, runs the checks, closes; returns the version agreed."""
    auth = {"Authorization": f"Bearer {relay.mcp_token}"}
    seen = Wire()
    log = SdkLog()
    negotiated = None
    check = lambda name: checks.check(mode, name)  # noqa: E731
    print(f"  -- {mode}", flush=True)
    http = httpx.AsyncClient(headers=auth, timeout=httpx.Timeout(30, read=300),
                             event_hooks={"request": [seen.on_request],
                                          "response": [seen.on_response]})
    with log.capture():
        async with http, connect(mode, relay.endpoint, http) as (session, result):
            with check("connect: server wterm-relay"):
                negotiated = negotiated_version(session, result)
                print(f"       negotiated protocol version: {negotiated}", flush=True)
                assert server_name(session, result) == "wterm-relay", wire(result)

            with check("tools/list: the relay's tools, each with an object input schema"):
                listed = [wire(t) for t in (await session.list_tools()).tools]
                assert sorted(t["name"] for t in listed) == TOOLS, [t["name"] for t in listed]
                for t in listed:
                    assert t["inputSchema"]["type"] == "object", t
                    assert len(t.get("description", "")) > 30, t["name"]
                by_name = {t["name"]: t for t in listed}
                assert by_name["read_screen"]["inputSchema"]["required"] == ["id"]
                assert sorted(by_name["send_keys"]["inputSchema"]["required"]) == ["id", "keys"]

            with check("tools/call mcp_info and list_terminals answer JSON"):
                err, text = tool_text(await session.call_tool("mcp_info", {}))
                assert not err, text
                assert json.loads(text)["hosts"][0]["host"] == "default", text
                err, text = tool_text(await session.call_tool("list_terminals", {}))
                assert not err, text
                assert json.loads(text)["errors"] == [], text

            with check("a refusal is an isError result (read_screen id \"12\": malformed_id)"):
                err, text = tool_text(await session.call_tool("read_screen", {"id": "12"}))
                assert err is True, text
                assert text.startswith("malformed_id: "), text

            with check("unknown method: -32601 naming what is accepted"):
                e = await expect_error(session, "foo/bar", {}, types.EmptyResult)
                assert e.code == types.METHOD_NOT_FOUND, wire(e)
                assert re.search(r"foo/bar.*tools/call", e.message), wire(e)

            with check("tools/call with arguments 5: -32602 (via ClientSession.send_request)"):
                # The typed call_tool takes only a mapping, so this goes one level down.
                e = await expect_error(session, "tools/call",
                                       {"name": "mcp_info", "arguments": 5},
                                       types.CallToolResult)
                assert e.code == types.INVALID_PARAMS, wire(e)
                assert "arguments must be an object" in e.message, wire(e)

            with check("the connection still works after the errors"):
                err, text = tool_text(await session.call_tool("mcp_info", {}))
                assert not err, text

            with check("later requests carry MCP-Protocol-Version: the negotiated one"):
                assert negotiated and seen.versions_sent == [negotiated], seen.versions_sent

            if mode == "handshake":
                headers = {
                    **auth, "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                    "Mcp-Session-Id": seen.session_id or "", "MCP-Protocol-Version": negotiated,
                }
                with check("the relay gave a session id"):
                    assert seen.session_id, "no Mcp-Session-Id header"
                with check("malformed JSON (raw POST): 400, -32700, id null"):
                    r = await http.post(relay.endpoint, headers=headers,
                                        content=b'{"jsonrpc":')
                    assert r.status_code == 400, f"{r.status_code} {r.text}"
                    check_parse_error(r.json())
        # Leaving streamable_http_client sent the DELETE, if there was a session.

    if mode == "handshake":
        with check("closing the client: DELETE answered 200 with no body"):
            assert seen.deletes == [(200, "")], seen.deletes
        with check(f"the SDK logged no {TERMINATION_WARNING!r} warning"):
            assert not [r for r in log.records if TERMINATION_WARNING in r], log.records
        async with httpx.AsyncClient() as raw:
            with check("after the end: a second DELETE and a ping of the session get 404"):
                r = await raw.delete(relay.endpoint, headers=headers)
                assert r.status_code == 404, f"DELETE: {r.status_code} {r.text}"
                r = await raw.post(relay.endpoint, headers=headers,
                                   json={"jsonrpc": "2.0", "id": 5, "method": "ping"})
                assert r.status_code == 404, f"ping: {r.status_code} {r.text}"
    else:
        with check("no session (2026-07-28 is stateless): closing sends no DELETE"):
            assert seen.session_id is None and seen.deletes == [], (seen.session_id, seen.deletes)
    with check("the SDK logged no warning or error"):
        assert log.records == [], "\n       ".join(log.records)
    return negotiated


def main():
    checks = Checks()
    print(f"python mcp {SDK_VERSION} (Python {sys.version.split()[0]}) against {BIN}", flush=True)
    relay = None
    try:
        relay = Relay()
        relay.config({"enabled": True, "default_mode": "readwrite", "allow_launch": True})
        agreed = {mode: asyncio.run(asyncio.wait_for(run_mode(relay, checks, mode), MODE_TIMEOUT_S))
                  for mode in MODES}
        print(f"  negotiated: {json.dumps(agreed)}", flush=True)
    except Exception as e:
        checks.bad += 1
        why = str(e) or f"no end within {MODE_TIMEOUT_S} s"
        print(f"  FAIL the run stopped: {type(e).__name__}: {why}", flush=True)
        if relay is not None:
            print("".join(relay.output[-20:]).replace(relay.token, "<page token>"), flush=True)
    finally:
        if relay is not None:
            relay.stop()
            for line in relay.output:
                if re.search(r"\b(WARN|ERROR)\b", line):
                    print(f"  relay log: {line.rstrip()}", flush=True)
    known = f" ({checks.known} known relay faults, listed in KNOWN_RELAY_FAULTS)" if checks.known else ""
    print(f"python mcp {SDK_VERSION}: {checks.ok} passed, {checks.bad} failed{known}", flush=True)
    return 1 if checks.bad else 0


if __name__ == "__main__":
    sys.exit(main())

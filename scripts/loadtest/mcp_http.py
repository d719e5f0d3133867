"""A bare MCP client over Streamable HTTP (stdlib only): one kept-alive connection per client.

Two eras, as `m1nd serve --http` serves them (see tests/server_support/http.rs):

- `stateless` (2026-07-28): no handshake; every request carries the protocol version and client
  capabilities in `_meta`, and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers.
- `session` (2025-06-18): `initialize`, then `notifications/initialized`, then every request
  carries `Mcp-Session-Id`. A server that was restarted no longer knows the session and answers
  404; the client then opens a new one (counted in `sessions_opened`).

Every outcome is one of the `Outcome` kinds, so the driver can tell what the load test must
treat as an error from what a restart is expected to cause.
"""

from __future__ import annotations

import http.client
import json
import socket
from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable

STATELESS_VERSION = "2026-07-28"
SESSION_VERSION = "2025-06-18"
META = {"io.modelcontextprotocol/protocolVersion": STATELESS_VERSION, "io.modelcontextprotocol/clientCapabilities": {}}
#: What `StoreError::Busy` says (src/store/error.rs), in a tool's `isError` text or a page's 503.
BUSY_TEXT = "is busy: another writer held it past the timeout"

#: Seconds a client waits for one answer: longer than any request timeout the load test gives
#: the server, so a slow answer is the server's 408, never the client giving up.
TIMEOUT_S = 300.0


class Outcome(Enum):
    OK = "ok"
    #: The connection failed: refused, reset, or closed before the answer (a kill does this).
    CONNECTION = "connection"
    #: 404 to a session request: the server does not know the session (it was restarted).
    SESSION_GONE = "session gone"
    #: 408: the server's request timeout (`--request-timeout`) ran out before the answer. A
    #: timing, not an error: the call may still run, and a write may still commit.
    TIMEOUT = "timeout"
    #: The store's busy timeout ran out: another connection held SQLite's lock for longer
    #: (`StoreError::Busy`). Also a timing: nothing changed, and the answer says to retry.
    BUSY = "busy"
    #: Anything else: a JSON-RPC error, `isError`, an unexpected status or body.
    ERROR = "error"


@dataclass
class Answer:
    outcome: Outcome
    result: dict[str, Any] | None = None
    detail: str = ""
    #: The `epoch` at which the connection this answer came over (or failed on) was opened.
    connection_epoch: int = 0


class Client:
    """One MCP client on one connection; not thread-safe (one per thread).

    `epoch()` names the server process a new connection reaches (the load test counts
    restarts); every answer says which epoch its connection was opened in, so a kept-alive
    connection to a process that has since been killed can be told from a failure of the
    running one."""

    def __init__(self, host: str, port: int, era: str, name: str, epoch: Callable[[], int] = lambda: 0) -> None:
        assert era in ("stateless", "session")
        self.host, self.port, self.era, self.name = host, port, era, name
        self.epoch = epoch
        self.connection_epoch = 0
        self.conn: http.client.HTTPConnection | None = None
        self.session: str | None = None
        self.next_id = 0
        self.sessions_opened = 0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _post(self, message: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT_S)
            self.connection_epoch = self.epoch()
        all_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        all_headers.update(headers)
        try:
            self.conn.request("POST", "/mcp", body=json.dumps(message).encode(), headers=all_headers)
            response = self.conn.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body

    def _exchange(self, method: str, params: dict[str, Any] | None, tool: str | None = None) -> Answer:
        answer = self._exchange_once(method, params, tool)
        answer.connection_epoch = self.connection_epoch
        return answer

    def _exchange_once(self, method: str, params: dict[str, Any] | None, tool: str | None) -> Answer:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": dict(params or {})}
        headers: dict[str, str] = {}
        if self.era == "stateless":
            message["params"]["_meta"] = META
            headers = {"MCP-Protocol-Version": STATELESS_VERSION, "Mcp-Method": method}
            if tool is not None:
                headers["Mcp-Name"] = tool
        elif self.session is not None:
            headers = {"Mcp-Session-Id": self.session, "MCP-Protocol-Version": SESSION_VERSION}
        try:
            status, response_headers, body = self._post(message, headers)
        except (OSError, http.client.HTTPException) as e:
            return Answer(Outcome.CONNECTION, detail=f"{type(e).__name__}: {e}")
        if status == 404 and self.era == "session" and self.session is not None:
            self.session = None
            return Answer(Outcome.SESSION_GONE, detail=body[:200].decode(errors="replace"))
        if status == 408:
            return Answer(Outcome.TIMEOUT, detail=body[:200].decode(errors="replace"))
        if status != 200:
            return Answer(Outcome.ERROR, detail=f"HTTP {status}: {body[:300].decode(errors='replace')}")
        reply = _answer_to(self.next_id, response_headers, body)
        if reply is None:
            return Answer(Outcome.ERROR, detail=f"no answer to id {self.next_id}: {body[:300]!r}")
        if "error" in reply:
            return Answer(Outcome.ERROR, detail=json.dumps(reply["error"])[:300])
        result = reply.get("result", {})
        if result.get("isError"):
            text = json.dumps(result)
            return Answer(Outcome.BUSY if BUSY_TEXT in text else Outcome.ERROR, result, detail=text[:300])
        if method == "initialize":
            self.session = response_headers.get("mcp-session-id")
        return Answer(Outcome.OK, result)

    def open_session(self) -> Answer:
        """`initialize` and `notifications/initialized` (session era only)."""
        hello = {"protocolVersion": SESSION_VERSION, "capabilities": {}, "clientInfo": {"name": self.name, "version": "0"}}
        answer = self._exchange("initialize", hello)
        if answer.outcome is not Outcome.OK:
            return answer
        if self.session is None:
            return Answer(Outcome.ERROR, detail="initialize answered without an Mcp-Session-Id")
        try:
            status, _, body = self._post(
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"Mcp-Session-Id": self.session, "MCP-Protocol-Version": SESSION_VERSION},
            )
        except (OSError, http.client.HTTPException) as e:
            self.session = None
            return Answer(Outcome.CONNECTION, detail=f"{type(e).__name__}: {e}", connection_epoch=self.connection_epoch)
        if status != 202:
            self.session = None
            return Answer(Outcome.ERROR, detail=f"notifications/initialized: HTTP {status} {body[:200]!r}")
        self.sessions_opened += 1
        return answer

    def call(self, tool: str, arguments: dict[str, Any]) -> Answer:
        """`tools/call`, opening a session first when this era needs one and has none."""
        if self.era == "session" and self.session is None:
            opened = self.open_session()
            if opened.outcome is not Outcome.OK:
                return opened
        return self._exchange("tools/call", {"name": tool, "arguments": arguments}, tool)


def _answer_to(request_id: int, headers: dict[str, str], body: bytes) -> dict[str, Any] | None:
    """The JSON-RPC message answering `request_id`: the body, or one of an event stream's `data:`."""
    text = body.decode(errors="replace")
    if headers.get("content-type", "").startswith("text/event-stream"):
        candidates = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    else:
        candidates = [text]
    for candidate in candidates:
        try:
            message = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == request_id:
            return message
    return None


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

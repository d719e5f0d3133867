"""One stateless MCP request over a kept-alive HTTP connection, as a 2026-07-28 client sends it.

Shared by the HTTP benches (tests/e2e/bench_http.py, scripts/bench_callgrind_http.py), so both
measure the same request: the headers that protocol revision asks for (`MCP-Protocol-Version`,
`Mcp-Method`, and `Mcp-Name` for a tool call) and the protocol version in `_meta`.
"""

from __future__ import annotations

import http.client
import json
from typing import Any

STATELESS = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": STATELESS, "io.modelcontextprotocol/clientCapabilities": {}}


def post(conn: http.client.HTTPConnection, request_id: int, method: str, params: dict[str, Any],
         name: str | None) -> dict[str, Any]:
    """Send one request and read its answer; a failed one (a status other than 200, another id, a
    JSON-RPC error or a tool result with `isError`) raises, naming what was sent."""
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": META}})
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": STATELESS,
        "Mcp-Method": method,
    }
    if name is not None:
        headers["Mcp-Name"] = name
    conn.request("POST", "/mcp", body=body.encode(), headers=headers)
    response = conn.getresponse()
    reply = json.loads(response.read())
    if response.status != 200 or reply.get("id") != request_id or "error" in reply:
        raise RuntimeError(f"{method}: {response.status} {reply}")
    if reply["result"].get("isError"):
        raise RuntimeError(f"{method} {name}: {reply['result']}")
    return reply

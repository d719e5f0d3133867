"""The bench's Streamable HTTP client: one bare client for every server it compares over HTTP
(`m1nd gateway --http` and the PyPI `mcp-proxy`), so the client's own cost is the same for both.

It starts the server, reads the address the server prints, opens one keep-alive connection to
127.0.0.1 with TCP_NODELAY, opens an MCP session (2025-06-18, `Mcp-Session-Id`), and then sends
one JSON-RPC request per POST, reading the answer whether it comes as JSON or as an event stream.
Every wait is bounded: the address by `START_S`, each request by `REQUEST_S`.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from procgroup import spawn, stop  # noqa: E402

PROTOCOL = "2025-06-18"
START_S = 30.0
REQUEST_S = 30.0


class HttpClient:
    """Starts `argv`, waits for `address` (a regex with groups `host`, `port`) on its stderr, and
    speaks MCP to `http://host:port{path}`."""

    def __init__(self, argv: list[str], address: re.Pattern[str], path: str) -> None:
        self.errlog = tempfile.NamedTemporaryFile(prefix="m1nd-bench-http-", suffix=".stderr", delete=False)
        # Its own process group: the server's upstream child goes with it on close.
        self.proc = spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.errlog)
        try:
            host, port = self._address(address)
            if host != "127.0.0.1":
                raise RuntimeError(f"{argv[0]} serves on {host}, not loopback")
            self.conn = http.client.HTTPConnection(host, port, timeout=REQUEST_S)
            self.conn.connect()
            assert self.conn.sock
            self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.path = path
            self.session: str | None = None
            self.next_id = 0
            hello = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
            self.rpc("initialize", hello)
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        except BaseException:
            self._stop()
            raise

    def _stderr(self) -> str:
        return Path(self.errlog.name).read_text(errors="replace")

    def _address(self, address: re.Pattern[str]) -> tuple[str, int]:
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            found = address.search(self._stderr())
            if found:
                return found["host"], int(found["port"])
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.proc.args[0]} exited {self.proc.returncode}: {self._stderr()}")
            time.sleep(0.02)
        raise RuntimeError(f"{self.proc.args[0]} printed no address within {START_S:g} s: {self._stderr()}")

    def post(self, message: dict[str, Any]) -> tuple[http.client.HTTPResponse, bytes]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": PROTOCOL}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        self.conn.request("POST", self.path, body=json.dumps(message).encode(), headers=headers)
        response = self.conn.getresponse()
        body = response.read()
        if response.status >= 300:
            raise RuntimeError(f"{message.get('method')}: HTTP {response.status}: {body[:300]!r}")
        return response, body

    def rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        response, body = self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        self.session = self.session or response.getheader("Mcp-Session-Id")
        if (response.getheader("Content-Type") or "").startswith("text/event-stream"):
            events = [line[5:].strip() for line in body.decode().splitlines() if line.startswith("data:")]
            replies = [json.loads(data) for data in events if data]
        else:
            replies = [json.loads(body)]
        reply = next((r for r in replies if isinstance(r, dict) and r.get("id") == self.next_id), None)
        if reply is None or "error" in reply or reply.get("result", {}).get("isError"):
            raise RuntimeError(f"{method}: unexpected reply {body[:300]!r}")
        return reply["result"]

    def _stop(self) -> None:
        stop(self.proc)
        self.errlog.close()
        os.unlink(self.errlog.name)

    def close(self) -> None:
        self.conn.close()
        self._stop()

"""`m1nd serve --http` for the end-to-end suite: start it, connect the official SDK, send raw HTTP.

The server is started on `127.0.0.1:0` and prints the address it bound; clients are the SDK's
high-level `mcp.Client` in one of its connect modes: `legacy` (the `initialize` handshake and an
`Mcp-Session-Id` session) or `2026-07-28` (stateless: no handshake, each request stands alone).
Raw requests go through `http.client`, so attack tests control every byte.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client

from harness import ROOT, debian_program, m1nd_bin
from pg_store import PgLocation

sys.path.insert(0, str(ROOT / "tests" / "lib"))
import haproxy  # noqa: E402
import procgroup  # noqa: E402

MODES = ["legacy", "2026-07-28"]
STATELESS = "2026-07-28"
# In either log format: `m1nd: serving MCP on ...` in text, a `message` field in JSON lines.
_ADDRESS = re.compile(r"serving MCP on http://(?P<addr>[^\s\"/]+)/mcp")
START_TIMEOUT_S = 30


@dataclass
class HttpServer:
    process: subprocess.Popen[bytes]
    host: str
    port: int
    stderr_path: Path

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/mcp"

    def connection(self, timeout: float = 30) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def health(self) -> tuple[int, dict[str, Any]]:
        """GET /health: the status and the JSON answer."""
        conn = self.connection()
        try:
            conn.request("GET", "/health")
            response = conn.getresponse()
            return response.status, json.loads(response.read())
        finally:
            conn.close()

    def post(self, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        """POST /mcp with MCP's Accept and content type, plus `headers`; the status, headers and body."""
        all_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        all_headers.update(headers or {})
        conn = self.connection()
        try:
            try:
                conn.request("POST", "/mcp", body=body, headers=all_headers)
            except (BrokenPipeError, ConnectionResetError):
                # The server answered before taking the whole body (a 413) and closed, as HTTP
                # allows; its answer is read as a client that reads while it sends would read it.
                pass
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()


def start(
    store: Path | PgLocation,
    *,
    args: list[str] | None = None,
    env: dict[str, str] | None = None,
    addr: str = "127.0.0.1:0",
    logs: Path | None = None,
    wrapper: list[str] | None = None,
) -> HttpServer:
    """Start `m1nd serve --http ADDR --store STORE [args]` and wait for its address.

    STORE is a directory or a PostgreSQL location; the server's stderr goes to a file in `logs`,
    by default beside the store (a PostgreSQL location names a directory for it). `wrapper` runs it through another program (`faketime`).
    """
    logs = logs or store.parent
    stderr_path = logs / f"serve-http-{store.name}-{time.monotonic_ns()}.stderr"
    return launch(
        ["serve", "--store", str(store), "--http", addr, *(args or [])], stderr_path, env=env, wrapper=wrapper
    )


def launch(
    args: list[str], stderr_path: Path, *, env: dict[str, str] | None = None, wrapper: list[str] | None = None
) -> HttpServer:
    """Start `m1nd ARGS`, a `serve --http` command line as written, and wait for the address it prints.

    The server (and its `wrapper`, which may fork it) runs in a process group of its own, which
    `stop` ends whole (tests/lib/procgroup.py)."""
    command = [*(wrapper or []), str(m1nd_bin()), *args]
    with open(stderr_path, "wb") as errlog:
        process = procgroup.spawn(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog, env=env)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        found = _ADDRESS.search(stderr_path.read_text(errors="replace"))
        if found:
            host, _, port = found["addr"].rpartition(":")
            return HttpServer(process, host, int(port), stderr_path)
        if process.poll() is not None:
            procgroup.stop(process)
            raise RuntimeError(f"m1nd serve --http exited {process.returncode}: {stderr_path.read_text()}")
        time.sleep(0.02)
    procgroup.stop(process)
    raise RuntimeError(f"m1nd serve --http printed no address within {START_TIMEOUT_S}s")


def stop(server: HttpServer) -> None:
    """Stop the server and everything in its process group (a wrapper's child too)."""
    procgroup.stop(server.process)


@contextmanager
def running(store: Path, **kwargs: Any) -> Iterator[HttpServer]:
    """A server on `store`; on a PostgreSQL store, two replicas behind HAProxy, posted to through it."""
    if isinstance(store, PgLocation):
        with tempfile.TemporaryDirectory(prefix="m1nd-e2e-lb-") as workdir:
            with balance(store, store, Path(workdir), options=kwargs) as balanced:
                yield balanced.lb
        return
    server = start(store, **kwargs)
    try:
        yield server
    finally:
        stop(server)


UP_TIMEOUT_S = 20.0


def haproxy_bin() -> str:
    return debian_program("haproxy", haproxy.binary())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Balanced:
    """The balancer (as an `HttpServer`, to post through it), the replicas, and its admin socket."""

    lb: HttpServer
    replicas: list[HttpServer]
    admin: Path

    def stat(self) -> dict[str, dict[str, str]]:
        """`show stat` for the backend's servers, by name: HAProxy's own counts and states."""
        return haproxy.servers(self.admin)

    def command(self, text: str) -> str:
        return haproxy.command(self.admin, text)


@contextmanager
def balance(
    store_a: Path | PgLocation,
    store_b: Path | PgLocation,
    workdir: Path,
    up: tuple[str, ...] = ("a", "b"),
    options: dict[str, Any] | None = None,
    check_token: str | None = None,
) -> Iterator[Balanced]:
    """Replicas `a` on `store_a` and `b` on `store_b` (directories or PostgreSQL locations), each
    started with `options` (as `start` takes them), behind HAProxy, once `up` are UP and the rest
    DOWN. HAProxy's health check sends `check_token` (an access token of its own, for replicas
    started with `--jwks`), else the replicas' `M1ND_HTTP_TOKEN` if they have one."""
    binary = haproxy_bin()
    options = options or {}
    replicas = [start(store_a, logs=workdir, **options)]
    try:
        replicas.append(start(store_b, logs=workdir, **options))
    except BaseException:
        # A second replica that fails to start (a store `serve` refuses) must not leave the first.
        stop(replicas[0])
        raise
    port, admin, log = free_port(), workdir / "lb.sock", workdir / "haproxy.stderr"
    token = check_token or (options.get("env") or {}).get("M1ND_HTTP_TOKEN")
    env = haproxy.environment(port, [r.port for r in replicas], admin, token)
    process = haproxy.start(binary, haproxy.config(workdir, token=token is not None), env, log)
    balanced = Balanced(HttpServer(process, "127.0.0.1", port, log), replicas, admin)
    try:
        wanted = {name: "UP" if name in up else "DOWN" for name in ("a", "b")}
        haproxy.wait_for(process, admin, wanted, UP_TIMEOUT_S, log)
        yield balanced
    finally:
        procgroup.stop(process)
        # A replica a test killed may still have members in its group; `stop` ends them all.
        for replica in replicas:
            stop(replica)


@asynccontextmanager
async def client(server: HttpServer, mode: str) -> AsyncIterator[Client]:
    """The SDK's client connected to `server` in `mode` (`legacy` or `2026-07-28`)."""
    async with Client(server.url, mode=mode, cache=None) as c:
        yield c


def stateless_call(name: str, arguments: dict[str, Any], request_id: int = 1) -> tuple[bytes, dict[str, str]]:
    """A 2026-07-28 `tools/call` as raw bytes with the headers that revision requires."""
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": STATELESS,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {"MCP-Protocol-Version": STATELESS, "Mcp-Method": "tools/call", "Mcp-Name": name}
    return json.dumps(body).encode(), headers

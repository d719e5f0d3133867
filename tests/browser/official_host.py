"""The host the widget suite trusts: the page in bridge/ (the official AppBridge
from @modelcontextprotocol/ext-apps and the official MCP client, bundled by
run.sh) served on 127.0.0.1, in front of a real `m1nd serve --http`.

The page's client speaks Streamable HTTP to /mcp on its own origin, and this
server relays those requests to `m1nd serve --http` unchanged, `Origin`
included: m1nd sends no CORS headers, so a page can only reach it through its
own origin, and m1nd is started with `--allow-origin` naming this page's
origin, so its Origin check is passed, not bypassed. GET /mcp (the optional
server-to-client event stream) is answered 405 here, as the transport allows:
the relay carries requests and their answers, and the cockpit server sends
nothing unasked."""

from __future__ import annotations

import http.client
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import harness
from tray import TrayServer

PAGE = (harness.HERE / "bridge" / "host.html").read_bytes()
MCP_PATH = "/mcp"
# Hop-by-hop headers, and the ones each leg sets for itself.
NOT_RELAYED = {"host", "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "content-length"}


def bundle() -> bytes:
    """host.js bundled with esbuild by run.sh (into target/, never committed)."""
    path = os.environ.get("M1ND_HOST_BUNDLE")
    if not path:
        raise RuntimeError("M1ND_HOST_BUNDLE is not set; run the suite through tests/browser/run.sh")
    return Path(path).read_bytes()


class OfficialHost:
    """The official-bridge host page, and the `m1nd serve --http --read-only` behind it."""

    def __init__(self, store: Path):
        script = bundle()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                if self.path == "/":
                    self._answer(200, [("Content-Type", "text/html; charset=utf-8")], PAGE)
                elif self.path == "/host.js":
                    self._answer(200, [("Content-Type", "text/javascript; charset=utf-8")], script)
                elif self.path == MCP_PATH:
                    self._answer(405, [("Allow", "POST, DELETE")], b"")
                else:
                    self.send_error(404)

            def do_POST(self):  # noqa: N802
                self._relay("POST")

            def do_DELETE(self):  # noqa: N802
                self._relay("DELETE")

            def _relay(self, method: str) -> None:
                if self.path != MCP_PATH:
                    self.send_error(404)
                    return
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in NOT_RELAYED}
                conn = http.client.HTTPConnection("127.0.0.1", outer.server_port, timeout=harness.TIMEOUT_S)
                try:
                    conn.request(method, MCP_PATH, body=body, headers=headers)
                    reply = conn.getresponse()
                    data = reply.read()
                except OSError as e:
                    said = f"the relay could not reach m1nd serve --http on port {outer.server_port}: {e}"
                    self._answer(502, [("Content-Type", "text/plain; charset=utf-8")], said.encode())
                    return
                finally:
                    conn.close()
                with outer.lock:
                    outer.relayed.append((method, self.headers.get("Origin"), reply.status))
                kept = [(k, v) for k, v in reply.getheaders() if k.lower() not in NOT_RELAYED]
                self._answer(reply.status, kept, data)

            def _answer(self, code: int, headers: list[tuple[str, str]], body: bytes) -> None:
                self.send_response(code)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.lock = threading.Lock()
        # (method, the Origin the page sent, m1nd's status) of each relayed request.
        self.relayed: list[tuple[str, str | None, int]] = []
        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.http.server_address[1]}"
        self.url = self.origin + "/"
        try:
            self.server = TrayServer(store, extra=("--read-only", "--allow-origin", self.origin))
        except BaseException:
            self.http.server_close()
            raise
        self.server_port = self.server.port
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
        self.server.close()

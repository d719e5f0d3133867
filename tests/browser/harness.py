"""The browser suite's moving parts: `m1nd serve` over stdio, the mock host's
loopback HTTP server, chromium, and the two skins read back as text cards.
The host built on the official AppBridge is in official_host.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "lib"))
# Each server the suite starts is a process group of its own, stopped whole (tests/lib/procgroup.py).
from procgroup import spawn, stop  # noqa: E402
MOCK_HOST_PAGE = (HERE / "mock_host.html").read_bytes()
CORPUS = json.loads((ROOT / "tests" / "widget" / "references.json").read_text())
UI_EXTENSION = "io.modelcontextprotocol/ui"
TIMEOUT_S = 30

# Debian's chromium, never a downloaded build. As root it needs --no-sandbox;
# the rest keeps it from reaching any network or doing background work.
CHROMIUM = os.environ.get("M1ND_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def binary() -> str:
    path = os.environ.get("M1ND_BIN")
    if not path:
        raise RuntimeError("M1ND_BIN is not set; run the suite through tests/browser/run.sh")
    return path


def init_store(path: Path, demo: bool = True) -> Path:
    args = [binary(), "init", "--store", str(path)] + (["--demo"] if demo else [])
    subprocess.run(args, check=True, capture_output=True, timeout=TIMEOUT_S)
    return path


def edit_state(store: Path, change) -> None:
    """Remake `store` from the demo seed as `change(state)` edits it, through
    `m1nd store import` (hostile and odd states reach a real store this way)."""
    state = json.loads((REPO / "src/store/demo.json").read_text())
    change(state)
    seed = store.parent / f"{store.name}.state.json"
    seed.write_text(json.dumps(state))
    shutil.rmtree(store, ignore_errors=True)
    subprocess.run(
        [binary(), "store", "import", str(seed), "--store", str(store)],
        check=True,
        capture_output=True,
        timeout=TIMEOUT_S,
    )


class Mcp:
    """One `m1nd serve` process, spoken to in newline-delimited JSON-RPC."""

    def __init__(self, store: Path, read_only: bool = True):
        args = [binary(), "serve", "--store", str(store)] + (["--read-only"] if read_only else [])
        env = {k: v for k, v in os.environ.items() if k != "M1ND_READ_ONLY"}
        self.proc = spawn(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        self.answers: dict[Any, dict] = {}
        self.ready = threading.Condition()
        self.next_id = 0
        self.write_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        init = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {"extensions": {UI_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}},
                "clientInfo": {"name": "m1nd-mock-host", "version": "1"},
            },
        )
        self.capabilities = init["result"]["capabilities"]
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        for line in self.proc.stdout:
            message = json.loads(line)
            with self.ready:
                self.answers[message.get("id")] = message
                self.ready.notify_all()

    def _send(self, message: dict) -> None:
        with self.write_lock:
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")
            self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        """The whole JSON-RPC answer: `result` or `error`."""
        with self.ready:
            self.next_id += 1
            id_ = self.next_id
        self._send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
        with self.ready:
            if not self.ready.wait_for(lambda: id_ in self.answers, timeout=TIMEOUT_S):
                raise TimeoutError(f"no answer to {method} within {TIMEOUT_S}s")
            return self.answers.pop(id_)

    def call(self, name: str, arguments: dict) -> dict:
        return self.request("tools/call", {"name": name, "arguments": arguments})["result"]

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pass  # `stop` ends it, and anything left in its group, either way
        stop(self.proc)


class MockHost:
    """The mock host page (mock_host.html) on 127.0.0.1, with POST /rpc proxied
    to one stdio server: for the cases the official bridge cannot produce."""

    def __init__(self, mcp: Mcp):
        self.mcp = mcp
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                if self.path != "/":
                    self.send_error(404)
                    return
                self._answer(200, "text/html; charset=utf-8", MOCK_HOST_PAGE)

            def do_POST(self):  # noqa: N802
                if self.path != "/rpc":
                    self.send_error(404)
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                answer = outer.mcp.request(body["method"], body.get("params") or {})
                self._answer(200, "application/json", json.dumps(answer).encode())

            def _answer(self, code: int, kind: str, body: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# What the widget shows, read from its DOM (runs inside the view's frame).
DOM_FACTS = """() => {
  const q = (s) => document.querySelector(s);
  const text = (s) => (q(s) ? q(s).textContent : null);
  return {
    moved: text('#view > .stamp') === 'state moved',
    note: text('#view > .note'),
    title: text('#title'),
    level: text('#level'),
    subject: text('#view > .subject'),
    door: text('#view .door .text'),
    door_link: text('#view .door .link'),
    listing: text('#view > .listing'),
    facts: [...document.querySelectorAll('.fact')].map((f) => [f.querySelector('dt').textContent, f.querySelector('dd').textContent]),
    entries: [...document.querySelectorAll('#view li > :is(button.entry, .inert)')].map((b) => ({
      number: b.querySelector('.num').textContent,
      text: b.querySelector('.text').textContent,
      mark: b.querySelector('.mark') ? b.querySelector('.mark').textContent : null,
      data: b.classList.contains('data'),
      back: b.classList.contains('back'),
      select: b.dataset.select || null,
    })),
    footer: text('#sigs'),
  };
}"""


def card_from_dom(dom: dict) -> tuple[list[str], list[str]]:
    """The text card the DOM's facts spell, laid out as the text skin lays it
    out: (every line but the facts, the fact lines)."""
    lines: list[str] = []
    if dom["moved"]:
        lines.append("! state moved")
    if dom["note"] is not None:
        lines.append(f"! {dom['note']}")
    lines.append(f"{dom['title']} · {dom['level']}")
    if dom["subject"] is not None:
        lines.append(f"  {dom['subject']}")
    if dom["door"] is not None:
        link = f" → {dom['door_link']}" if dom["door_link"] is not None else ""
        lines.append(f"  > {dom['door']}{link}")
    if dom["listing"] is not None:
        lines.append(f"  {dom['listing']}")
    for entry in dom["entries"]:
        text = f"[{entry['text']}]" if entry["data"] else entry["text"]
        if entry["mark"] is not None:
            text += f" ({entry['mark']})"
        lines.append(f"{entry['number']:>6}  {text}")
    lines.append(dom["footer"])
    facts = [f"  {field}: {value}" for field, value in dom["facts"]]
    return lines, facts


def card_lines(
    card: str, fact_count: int, has_subject: bool, has_door: bool, has_listing: bool = False
) -> tuple[list[str], list[str]]:
    """Split a text card into its fact lines and the rest. The text skin puts
    the facts right after the title line, the subject, the door and the listing."""
    lines = card.split("\n")
    start = 0
    while lines[start].startswith("! "):
        start += 1
    start += 1 + int(has_subject) + int(has_door) + int(has_listing)
    facts = lines[start : start + fact_count]
    return lines[:start] + lines[start + fact_count :], facts

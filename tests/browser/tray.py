"""The tray suite's moving parts: `m1nd serve --http` with its login links,
raw HTTP requests with every header under the test's control, and the store
read back byte for byte or edited by another writer (SQLite itself)."""

from __future__ import annotations

import http.client
import json
import queue
import re
import sqlite3
import subprocess
import threading
from pathlib import Path

import harness

# The tray lives on a host name of the server's own, named only in its login links.
LINK = re.compile(r"(http://m1nd-[0-9a-f]{32}\.localhost:\d+/login\?token=[0-9a-f]{64})")


class TrayServer:
    """`m1nd serve --http 127.0.0.1:0` over a store, its login links read from stderr.

    `base` is `http://m1nd-<label>.localhost:<port>`, where the tray lives;
    `name` is that host name without the port."""

    def __init__(self, store: Path, session_seconds: float | None = None, extra: tuple[str, ...] = ()):
        args = [harness.binary(), "serve", "--store", str(store), "--http", "127.0.0.1:0", *extra]
        if session_seconds is not None:
            args += ["--tray-session", str(session_seconds)]
        self.store = store
        self.proc = harness.spawn(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.links: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.first_link = self.next_link()
        self.base = self.first_link.split("/login")[0]
        self.host = self.base.removeprefix("http://")
        self.name, port = self.host.rsplit(":", 1)
        self.port = int(port)

    def _read(self) -> None:
        for raw in self.proc.stderr:
            found = LINK.search(raw.decode("utf-8", "replace"))
            if found:
                self.links.put(found.group(1))

    def next_link(self) -> str:
        """The next login link the server prints (one per spent token)."""
        return self.links.get(timeout=harness.TIMEOUT_S)

    def request(self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b"") -> tuple[int, dict]:
        """One raw request to 127.0.0.1; `headers` replace the defaults (Host is the tray's own)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=harness.TIMEOUT_S)
        sent = {"Host": self.host, "Content-Length": str(len(body))}
        sent.update(headers or {})
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for k, v in sent.items():
            conn.putheader(k, v)
        conn.endheaders(body)
        reply = conn.getresponse()
        data = reply.read()
        conn.close()
        try:
            answer = json.loads(data)
        except ValueError:
            answer = {"raw": data.decode("utf-8", "replace")}
        return reply.status, answer

    def close(self) -> None:
        # No grace: a SIGKILL to the whole group, as before to the server alone.
        harness.stop(self.proc, grace_s=0)


def files(store: Path) -> dict[str, bytes]:
    """Every file in the store directory with its bytes."""
    return {p.name: p.read_bytes() for p in sorted(store.iterdir())}


def external_write(store: Path, sql: str, params: tuple = ()) -> None:
    """Another writer: one SQLite transaction that changes a row and bumps store_version.

    The store keeps a checksum in the last 8 bytes of every page (src/store/checksum_vfs.c), which
    Python's sqlite3 does not write; so, like any writer without m1nd's VFS, this one sums the
    pages again under an exclusive lock before any reader may look, or m1nd would rightly report
    the pages it changed as damaged."""
    conn = sqlite3.connect(store / "state.db", isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(sql, params)
        conn.execute("UPDATE store SET store_version = store_version + 1 WHERE one = 1")
        conn.execute("COMMIT")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("SELECT count(*) FROM store").fetchone()  # takes the lock now, not at the first write
        resum_pages(store / "state.db")
        conn.execute("COMMIT")
    finally:
        conn.close()


def resum_pages(db: Path) -> None:
    """Rewrite each page's checksum: 64-bit FNV-1a of the page's other bytes, little-endian, in the
    8 bytes SQLite reserves at its end (header byte 20 says 8 when the store has checksums)."""
    with open(db, "r+b") as f:
        data = f.read()
        if len(data) < 100 or data[20] != 8:
            return
        size = int.from_bytes(data[16:18], "big")
        size = 65536 if size == 1 else size
        for start in range(0, len(data) - size + 1, size):
            h = 0xCBF29CE484222325
            for byte in data[start:start + size - 8]:
                h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
            want = h.to_bytes(8, "little")
            if data[start + size - 8:start + size] != want:
                f.seek(start + size - 8)
                f.write(want)

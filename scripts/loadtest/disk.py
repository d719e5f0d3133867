"""What the disk allows, measured beside the store in the same run as the load.

- `fsync_rate`: the smallest durable write there is, one byte appended and `os.fsync`ed, in a
  loop, by 1 thread or by N threads each on its own file. A durable commit needs at least one
  such sync, so this bounds any store's acknowledged writes per second on this disk (unless
  writes share a sync, which is what group commit does).
- `sqlite_rate`: a minimal durable SQLite write loop with the store's own settings
  (`journal_mode = DELETE`, `synchronous = EXTRA`, see src/store/mod.rs): one `INSERT` per
  `BEGIN IMMEDIATE ... COMMIT`, by 1 thread, or by N threads each with its own connection and a
  5 s busy timeout, taking turns on the one database as the server's writers would. Python's
  `sqlite3` (the machine's libsqlite3, named in the report) stands in for any program that
  does only this.

Every loop runs until its deadline or its count cap, whichever comes first.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Callable

MAX_OPS = 1_000_000


def fsync_rate(directory: Path, seconds: float, threads: int = 1) -> float:
    """Syncs per second, all threads together."""
    counts = [0] * threads

    def loop(k: int) -> None:
        path = directory / f"fsync-probe-{k}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline and counts[k] < MAX_OPS:
                os.write(fd, b"x")
                os.fsync(fd)
                counts[k] += 1
        finally:
            os.close(fd)
            path.unlink()

    elapsed = _run(loop, threads)
    return sum(counts) / elapsed


def sqlite_rate(directory: Path, seconds: float, threads: int = 1) -> tuple[float, int]:
    """Committed transactions per second, all threads together, and how many gave up busy."""
    path = directory / "sqlite-probe.db"
    for leftover in (path, Path(f"{path}-journal")):
        leftover.unlink(missing_ok=True)
    setup = sqlite3.connect(path)
    setup.execute("PRAGMA journal_mode = DELETE")
    setup.execute("CREATE TABLE memories (seq INTEGER PRIMARY KEY, claim TEXT NOT NULL)")
    setup.commit()
    setup.close()
    counts, busy = [0] * threads, [0] * threads
    # Every connection is opened and set up before any thread writes: a connection's first
    # statement needs a shared lock, which 31 busy writers could keep from it past the timeout.
    # DELETE is SQLite's default journal mode (and not kept in the file); synchronous is per
    # connection.
    connections = [sqlite3.connect(path, timeout=5.0, isolation_level=None, check_same_thread=False)
                   for _ in range(threads)]
    for conn in connections:
        conn.execute("PRAGMA synchronous = EXTRA")
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "delete":
            raise RuntimeError("sqlite probe: the connection is not in DELETE journal mode")

    def loop(k: int) -> None:
        conn = connections[k]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and counts[k] < MAX_OPS:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                busy[k] += 1
                continue
            conn.execute("INSERT INTO memories (claim) VALUES (?)", (f"probe {k} {counts[k]}",))
            conn.execute("COMMIT")
            counts[k] += 1

    try:
        elapsed = _run(loop, threads)
    finally:
        for conn in connections:
            conn.close()
    check = sqlite3.connect(path)
    stored = check.execute("SELECT count(*) FROM memories").fetchone()[0]
    check.close()
    if stored != sum(counts):
        raise RuntimeError(f"sqlite probe: {sum(counts)} commits acknowledged but {stored} rows stored")
    path.unlink()
    return sum(counts) / elapsed, sum(busy)


def _run(loop: Callable[[int], None], threads: int) -> float:
    """Run `loop(k)` on `threads` threads; the seconds from the first start to the last end.
    A loop that raised makes the probe fail with its exception."""
    failed: list[BaseException] = []

    def guarded(k: int) -> None:
        try:
            loop(k)
        except BaseException as e:  # re-raised below, after every thread has ended
            failed.append(e)

    workers = [threading.Thread(target=guarded, args=(k,)) for k in range(threads)]
    started = time.monotonic()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if failed:
        raise failed[0]
    return time.monotonic() - started

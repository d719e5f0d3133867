"""After the run: is every acknowledged write in the store?

The server is stopped first. The store's `state.db` is then opened with SQLite itself (Python's
`sqlite3`): a journal the `kill -9` left behind would be rolled back by this open exactly as by
the server's, so what is read is what any later reader gets. `PRAGMA quick_check` must say `ok`.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Verdict:
    acknowledged: int
    lost: list[str]
    #: Writes of this run in the store that were never acknowledged (in flight at the kill, or
    #: answered after the run stopped counting): allowed, reported.
    unacknowledged_stored: int
    quick_check: str
    memories: int


def verify(db: Path, run_id: str, acknowledged: list[str]) -> Verdict:
    conn = sqlite3.connect(db)
    try:
        check = conn.execute("PRAGMA quick_check").fetchone()[0]
        stored = {row[0] for row in conn.execute("SELECT claim FROM memories WHERE claim LIKE ?", (f"loadtest {run_id} %",))}
        memories = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    finally:
        conn.close()
    acked = set(acknowledged)
    if len(acked) != len(acknowledged):
        raise RuntimeError("the same claim was acknowledged twice: the load test's claims are not unique")
    lost = sorted(acked - stored)
    return Verdict(len(acked), lost, len(stored - acked), check, memories)

#!/usr/bin/env python3
"""How many syncs a commit costs in each SQLite journal mode: the measurement the store's
journal mode is chosen by.

For each mode and `synchronous` setting, one connection (Python's sqlite3, the same pager and
unix VFS as the SQLite m1nd bundles) commits N one-row transactions in turn, under
`strace -f -e trace=fsync,fdatasync`, and the syncs are counted from the trace, not estimated:

    python3 scripts/journal-syncs.py [--n 100]

Which settings keep an acknowledged commit through a power cut: DELETE needs EXTRA (the
journal's removal is synced, or a cut can bring the journal back and roll the commit back);
TRUNCATE and PERSIST with FULL (the journal's end is synced); WAL with FULL (each commit's frames
are synced). DELETE FULL and WAL NORMAL are measured for comparison only: neither keeps every
acknowledged commit through a cut.

Needs strace. Prints one line per setting: syncs, and syncs per commit.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)

SETTINGS = [
    ("DELETE", "EXTRA", "durable: m1nd's setting"),
    ("DELETE", "FULL", "not durable through a power cut"),
    ("TRUNCATE", "FULL", "durable"),
    ("PERSIST", "FULL", "durable"),
    ("WAL", "FULL", "durable"),
    ("WAL", "NORMAL", "not durable through a power cut"),
]

CHILD = """
import os, sqlite3, sys
mode, sync, path, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
c = sqlite3.connect(path, isolation_level=None)
c.execute(f"PRAGMA journal_mode={mode}")
c.execute(f"PRAGMA synchronous={sync}")
c.execute("CREATE TABLE t(x)")
c.execute("INSERT INTO t VALUES (0)")
# A marker in the trace: the syncs counted are the ones after it (setting up is not a commit).
os.getppid()
for i in range(n):
    c.execute("BEGIN IMMEDIATE")
    c.execute("INSERT INTO t VALUES (?)", (i,))
    c.execute("COMMIT")
"""


def count(mode: str, sync: str, n: int, work: Path) -> int:
    """Syncs during N commits (the trace's syncs after the child's getppid marker)."""
    db = work / f"{mode}-{sync}.db"
    trace = work / f"{mode}-{sync}.trace"
    subprocess.run(
        ["strace", "-f", "-e", "trace=fsync,fdatasync,getppid", "-o", str(trace), sys.executable, "-c", CHILD,
         mode, sync, str(db), str(n)],
        check=True, stdout=subprocess.DEVNULL,
    )
    lines = trace.read_text().splitlines()
    start = max(i for i, line in enumerate(lines) if "getppid(" in line)
    return sum(1 for line in lines[start:] if "fsync(" in line or "fdatasync(" in line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100, help="commits per setting (default 100)")
    args = parser.parse_args()
    quiet.require_quiet("journal-syncs")
    if shutil.which("strace") is None:
        print("journal-syncs: needs strace (apt-get install strace)", file=sys.stderr)
        return 2
    import sqlite3

    print(f"SQLite {sqlite3.sqlite_version}, {args.n} commits each, syncs counted with strace")
    with tempfile.TemporaryDirectory(prefix="m1nd-journal-syncs-") as tmp:
        for mode, sync, durable in SETTINGS:
            syncs = count(mode, sync, args.n, Path(tmp))
            print(f"{mode:<9} {sync:<6} {syncs:>5} syncs  {syncs / args.n:5.2f} a commit   ({durable})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Debian's `psql`, one call per statement: how the end-to-end suite (tests/e2e/pg_store.py) and the
replicas bench (scripts/bench-replicas.py) read and change a PostgreSQL store's rows, so neither
needs a Python driver. The Python standard library alone.
"""

from __future__ import annotations

import subprocess


def psql(url: str, sql: str, timeout: float = 120) -> list[str]:
    """Run `sql` against `url`, stopping at the first error; its rows, one string each (columns
    joined by `|`). A failure raises, with psql's own words (which never hold the password)."""
    done = subprocess.run(
        ["psql", url, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        raise RuntimeError(f"psql failed: {done.stderr.strip()}")
    return done.stdout.splitlines()

"""Fixtures for the end-to-end suite: async tests on asyncio, a fresh demo store per test.

With `M1ND_E2E_STORE=postgresql` (tests/e2e/run.sh --postgresql) the store is a PostgreSQL
schema of its own, and every HTTP server a test starts is two replicas behind HAProxy.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

import harness
import pg_store


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Path]:
    """A fresh store seeded by `m1nd init --demo`, private to one test."""
    if pg_store.BACKEND == "sqlite":
        yield harness.init_store(tmp_path / "store")
        return
    location = pg_store.new_schema()
    try:
        yield harness.init_store(location)
    finally:
        pg_store.drop(location)

"""Fixtures for the end-to-end suite: async tests on asyncio, a fresh demo store per test.

With `M1ND_E2E_STORE=postgresql` (tests/e2e/run.sh --postgresql) the store is a PostgreSQL
schema of its own, and every HTTP server a test starts is two replicas behind HAProxy.
"""

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import harness
import pg_store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from sdk_warnings import no_sdk_warnings, register  # noqa: E402, F401


def pytest_configure(config: pytest.Config) -> None:
    register(config)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def pg() -> Iterator[pg_store.PgLocation]:
    """A demo store made by `m1nd init --demo` in a PostgreSQL schema of its own, dropped after
    the test."""
    location = pg_store.new_schema()
    try:
        yield harness.init_store(location)
    finally:
        pg_store.drop(location)


@pytest.fixture
def store(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A fresh store seeded by `m1nd init --demo`, private to one test: a directory, or under
    `M1ND_E2E_STORE=postgresql` the `pg` fixture's schema."""
    if pg_store.BACKEND == "sqlite":
        return harness.init_store(tmp_path / "store")
    return request.getfixturevalue("pg")

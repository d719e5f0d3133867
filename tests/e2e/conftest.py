"""Fixtures for the end-to-end suite: async tests on asyncio, a fresh demo store per test."""

from pathlib import Path

import pytest

import harness


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A fresh store seeded by `m1nd init --demo`, private to one test."""
    return harness.init_store(tmp_path / "store")

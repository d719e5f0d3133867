"""Fixtures for the gateway suites: async tests on asyncio."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from sdk_warnings import no_sdk_warnings, register  # noqa: E402, F401


def pytest_configure(config: pytest.Config) -> None:
    register(config)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"

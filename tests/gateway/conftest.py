"""Fixtures for the gateway suites: async tests on asyncio."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"

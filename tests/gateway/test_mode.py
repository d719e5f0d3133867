"""A mode that cannot be lost: a gateway policy declares its session mode (an imported one is
read-only), `--read-only` on the command line can only make a session stricter, and both
`m1nd gateway` and `m1nd serve` announce the mode in `serverInfo` and `instructions` (and
`m1nd serve` in its `io.m1nd/attestation`), so a client launched by the official Python SDK can see
what it got, including when an exported M1ND_READ_ONLY never reached the server."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client

from gateway_harness import HERE, m1nd_bin, set_mode, text_of

pytestmark = pytest.mark.anyio

UPSTREAM = [sys.executable, str(HERE / "graph_server.py")]
ENTITY = {"name": "Ada", "entityType": "person", "observations": []}


def imported(tmp_path: Path, mode: str | None = None) -> Path:
    policy = tmp_path / "policy"
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(policy), "--read-only-from-hints", "--", *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return set_mode(policy, mode) if mode else policy


@asynccontextmanager
async def launched(args: list[str], tmp_path: Path) -> AsyncIterator[tuple[ClientSession, Any]]:
    """`m1nd ARGS...` launched the way an MCP client's configuration launches it: the SDK's own
    environment handling (env=None), so only what the configuration's `args` say reaches it."""
    params = StdioServerParameters(command=str(m1nd_bin()), args=args, cwd=str(tmp_path))
    with open(tmp_path / "stderr.log", "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                yield session, init


async def test_an_imported_policy_is_read_only_without_any_flag(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    async with launched(["gateway", "--policy", str(policy), "--", *UPSTREAM], tmp_path) as (session, init):
        assert init.server_info.title == "m1nd gateway (read-only)"
        assert "Mode: read-only (the policy's mode)" in (init.instructions or ""), init.instructions
        assert {t.name for t in (await session.list_tools()).tools} == {"read_graph"}
        refused = await session.call_tool("create_entities", {"entities": [ENTITY]})
        assert refused.is_error and "read-only" in text_of(refused), text_of(refused)


async def test_read_only_on_the_command_line_wins_over_a_read_write_policy(tmp_path: Path) -> None:
    policy = imported(tmp_path, "read-write")
    args = ["gateway", "--policy", str(policy), "--read-only", "--", *UPSTREAM]
    async with launched(args, tmp_path) as (session, init):
        assert init.server_info.title == "m1nd gateway (read-only)"
        assert "asked for on the command line" in (init.instructions or ""), init.instructions
        assert {t.name for t in (await session.list_tools()).tools} == {"read_graph"}
    async with launched(["gateway", "--policy", str(policy), "--", *UPSTREAM], tmp_path) as (session, init):
        assert init.server_info.title == "m1nd gateway (read-write)"
        created = await session.call_tool("create_entities", {"entities": [ENTITY]})
        assert not created.is_error, text_of(created)


async def test_an_exported_m1nd_read_only_does_not_reach_an_sdk_launched_server_and_the_client_can_see_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("M1ND_READ_ONLY", "1")
    assert "M1ND_READ_ONLY" not in get_default_environment(), "the SDK passes only its allow-list to the child"
    policy = imported(tmp_path, "read-write")
    async with launched(["gateway", "--policy", str(policy), "--", *UPSTREAM], tmp_path) as (_, init):
        # The variable was lost on the way, as the README says; the announcement shows it.
        assert init.server_info.title == "m1nd gateway (read-write)"
    store = tmp_path / "store"
    subprocess.run([str(m1nd_bin()), "init", "--demo", "--store", str(store)], check=True, capture_output=True)
    async with launched(["serve", "--store", str(store)], tmp_path) as (_, init):
        assert init.server_info.title == "m1nd (read-write)"


@pytest.mark.parametrize("read_only", [True, False])
async def test_m1nd_serve_announces_its_mode_and_attests_it(tmp_path: Path, read_only: bool) -> None:
    store = tmp_path / "store"
    subprocess.run([str(m1nd_bin()), "init", "--demo", "--store", str(store)], check=True, capture_output=True)
    mode = "read-only" if read_only else "read-write"
    args = ["serve", *(["--read-only"] if read_only else []), "--store", str(store)]
    async with launched(args, tmp_path) as (_, init):
        assert init.server_info.title == f"m1nd ({mode})"
        assert f"This session's mode: {mode}:" in (init.instructions or ""), init.instructions
        assert (init.meta or {})["io.m1nd/attestation"]["mode"] == mode, init.meta

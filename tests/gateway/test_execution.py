"""A tool's `execution` (task support) through `m1nd gateway`, in front of execution_server.py: a tool
that declares it and one that does not, over stdio and over Streamable HTTP (answering with SSE
streams and with JSON bodies). `policy import` pins it as part of the definition, and the gateway lists
it to a stdio client exactly as the upstream declares it (absent stays absent)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gateway_harness import HERE, gateway, m1nd_bin, spawn, stop

pytestmark = pytest.mark.anyio

SERVER = [sys.executable, str(HERE / "execution_server.py")]
LISTENING = re.compile(r"listening on (?P<url>http://127\.0\.0\.1:\d+/mcp)")
DECLARED = {"start-job": {"taskSupport": "optional"}, "plain": None}


def import_policy(policy_dir: Path, *upstream: str) -> None:
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(policy_dir), "--read-only-from-hints", *upstream],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr


def pinned(policy_dir: Path) -> dict[str, object]:
    """What definitions.json, the definitions the pins match, says of each tool's `execution`."""
    stored = json.loads((policy_dir / "definitions.json").read_text())
    tools = stored["tools"] if isinstance(stored, dict) else stored  # a list when there are only tools
    return {t["name"]: t.get("execution") for t in tools}


async def listed_execution(policy_dir: Path, upstream: list[str], log_dir: Path, extra: list[str]) -> dict[str, object]:
    async with gateway(policy_dir, upstream, log_dir=log_dir, extra=extra) as gw:
        tools = (await gw.session.list_tools()).tools
    return {t.name: (t.execution.model_dump(by_alias=True, exclude_none=True) if t.execution else None) for t in tools}


async def test_a_stdio_upstream_s_execution_is_pinned_and_listed_as_declared(tmp_path: Path) -> None:
    policy_dir = tmp_path / "policy"
    import_policy(policy_dir, "--", *SERVER)
    assert pinned(policy_dir) == DECLARED
    assert await listed_execution(policy_dir, SERVER, tmp_path, []) == DECLARED


@pytest.mark.parametrize("answers", ["http", "http-json"], ids=["sse", "json"])
async def test_a_streamable_http_upstream_s_execution_is_pinned_and_listed_as_declared(
    tmp_path: Path, answers: str
) -> None:
    stderr_path = tmp_path / "upstream.stderr"
    with open(stderr_path, "wb") as errlog:
        upstream = spawn([*SERVER, answers], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog)
    try:
        deadline = time.monotonic() + 30
        while not (found := LISTENING.search(stderr_path.read_text(errors="replace"))):
            assert time.monotonic() < deadline and upstream.poll() is None, stderr_path.read_text()
            time.sleep(0.02)
        policy_dir = tmp_path / "policy"
        import_policy(policy_dir, "--upstream", found["url"])
        listed = await listed_execution(policy_dir, [], tmp_path, ["--upstream", found["url"]])
        assert set(listed) == set(DECLARED), "the gateway lists both tools over HTTP"
        assert pinned(policy_dir) == DECLARED
        assert listed == DECLARED
    finally:
        stop(upstream)

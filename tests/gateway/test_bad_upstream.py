"""An upstream that dies, hangs or writes junk: each call gets a clear error and the downstream
session goes on; an upstream that is not an MCP server stops the gateway with a clear error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gateway_harness import HERE, gateway, m1nd_bin, set_mode, text_of

pytestmark = pytest.mark.anyio

UPSTREAM = [sys.executable, str(HERE / "bad_upstream.py")]


def imported(tmp_path: Path) -> Path:
    policy = tmp_path / "policy"
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(policy), "--", *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return set_mode(policy, "read-write")  # `work` is proposed denied; these sessions call it


@pytest.mark.parametrize(("mode", "says"), [("die", "the upstream did not answer"), ("hang", "within 1 s"), ("junk", None)])
async def test_a_misbehaving_upstream_costs_one_call_not_the_session(tmp_path: Path, mode: str, says: str | None) -> None:
    policy = imported(tmp_path)
    env = {**os.environ, "BAD_MODE": mode}
    async with gateway(policy, UPSTREAM, log_dir=tmp_path, extra=["--call-timeout", "1"], env=env) as gw:
        result = await gw.session.call_tool("work", {})
        if says is None:
            assert not result.is_error and "work done" in text_of(result), text_of(result)
        else:
            assert result.is_error and says in text_of(result), text_of(result)
        # The session survives: listing still answers, and so does every later call.
        assert {t.name for t in (await gw.session.list_tools()).tools} == {"work", "echo"}
        after = await gw.session.call_tool("echo", {})
        if mode == "die":
            assert after.is_error and "upstream" in text_of(after), text_of(after)
        else:
            assert not after.is_error and "echo done" in text_of(after), text_of(after)


def test_an_upstream_that_is_not_an_mcp_server_stops_the_gateway_with_a_clear_error(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    for upstream, says in ((["false"], "did not complete the MCP handshake"), (["/does/not/exist"], "cannot start the upstream")):
        done = subprocess.run(
            [str(m1nd_bin()), "gateway", "--policy", str(policy), "--", *upstream],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2 and says in done.stderr, (upstream, done.stderr)


@pytest.mark.parametrize(("listing", "says"), [
    ("endless", "went past the pages a listing may take (100)"),
    ("crowd", "went past the tools a listing may hold (10000)"),
])
def test_a_listing_without_end_is_refused_with_its_bound(tmp_path: Path, listing: str, says: str) -> None:
    """An upstream that pages forever, or lists more tools than any policy reviews, is refused at
    import and at the gateway's start, naming the bound, instead of growing the gateway's memory."""
    env = {**os.environ, "BAD_LIST": listing}
    policy = tmp_path / "policy"
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(policy), "--", *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env,
    )
    assert done.returncode != 0 and says in done.stderr, done.stderr
    assert not policy.exists(), "nothing is written from a listing past its bounds"
    started = subprocess.run(
        [str(m1nd_bin()), "gateway", "--policy", str(imported(tmp_path / "sound")), "--", *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env,
    )
    assert started.returncode != 0 and says in started.stderr, started.stderr

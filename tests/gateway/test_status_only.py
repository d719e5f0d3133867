"""What a read-only session's status-only value reaches the upstream as: `m1nd gateway` in front of
tap_server.py, whose `echo` is made status-only on its `note` argument (allowed: `status`). Every
near miss a careless comparison would fold to `status` (case, spaces of every kind around it,
separators, controls, a zero-width space) is refused at the gateway, over stdio, over `--http` and
through a fleet, and the tap shows that the upstream received `status` alone, byte for byte. The
refusal shows the value escaped and the spelling to send."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from gateway_harness import POLICIES, gateway, m1nd_bin, m1nd_gateway, start_http, stop, text_of
from test_fleet import write_fleet

pytestmark = pytest.mark.anyio

ALLOWED = "status"
# The spellings a trimming, case-folding comparison let through, each with how the refusal shows it.
NEAR_MISSES = {
    "STATUS": "STATUS",
    "Status": "Status",
    " status": " status",
    "status\n": "status\\u{000A}",
    "\u00a0status": "\\u{00A0}status",
    "\u3000status": "\\u{3000}status",
    "\tstatus": "\\u{0009}status",
    "status\u2028": "status\\u{2028}",
    "status\u0085": "status\\u{0085}",
    "status\u200b": "status\\u{200B}",
}


def status_only_policy(dest: Path) -> Path:
    """policies/tap, with `echo` callable in a read-only session only with `note` = `status`."""
    shutil.copytree(POLICIES / "tap", dest)
    with open(dest / "read_only_denied.toml", "a") as f:
        f.write('\n[status_only.echo]\nargument = "note"\nallowed = ["status"]\n')
    return dest


def tap_upstream(tap: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve().parent / "tap_server.py"), str(tap)]


def notes_received(tap: Path) -> list[Any]:
    """The `note` of every `echo` the upstream received, in order."""
    if not tap.exists():
        return []
    calls = [json.loads(line) for line in tap.read_text().splitlines()]
    return [c["arguments"].get("note") for c in calls if c["tool"] == "echo"]


async def try_every_spelling(call: Any, name: str) -> None:
    """Each near miss refused with the escaped value and the advice; the allowed value answered."""
    for sent, shown in NEAR_MISSES.items():
        refused = await call(name, {"text": "t", "note": sent})
        message = text_of(refused)
        assert refused.is_error, f"{sent!r} was forwarded: {message}"
        assert f"got `{shown}`" in message and f"send exactly `{ALLOWED}`" in message, f"{sent!r}: {message}"
    allowed = await call(name, {"text": "t", "note": ALLOWED})
    assert not allowed.is_error, text_of(allowed)


async def test_over_stdio_only_the_exact_value_reaches_the_upstream(tmp_path: Path) -> None:
    tap = tmp_path / "tap.jsonl"
    policy = status_only_policy(tmp_path / "policy")
    async with gateway(policy, tap_upstream(tap), read_only=True, log_dir=tmp_path) as gw:
        await try_every_spelling(gw.session.call_tool, "echo")
    assert notes_received(tap) == [ALLOWED]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_over_http_only_the_exact_value_reaches_the_upstream(tmp_path: Path, mode: str) -> None:
    tap = tmp_path / "tap.jsonl"
    policy = status_only_policy(tmp_path / "policy")
    command = [str(m1nd_bin()), "gateway", "--policy", str(policy), "--read-only", "--http", "127.0.0.1:0"]
    process, url = start_http([*command, "--", *tap_upstream(tap)], tmp_path / "gateway-http.stderr")
    try:
        async with Client(url, mode=mode, cache=None) as c:
            await try_every_spelling(c.call_tool, "echo")
    finally:
        stop(process)
    assert notes_received(tap) == [ALLOWED]


async def test_through_a_fleet_only_the_exact_value_reaches_the_upstream(tmp_path: Path) -> None:
    tap = tmp_path / "tap.jsonl"
    policy = status_only_policy(tmp_path / "policy")
    fleet = write_fleet(tmp_path / "fleet", {"tap": {"policy": policy, "prefix": "tap_", "command": tap_upstream(tap)}})
    async with m1nd_gateway(["gateway", "--fleet", str(fleet), "--read-only"], log_dir=tmp_path) as gw:
        await try_every_spelling(gw.session.call_tool, "tap_echo")
    assert notes_received(tap) == [ALLOWED]

"""The audit trail: `m1nd gateway --audit FILE` appends one JSON line per decision on a tools/call
(a `forwarded` line before the call reaches the upstream, an `answered` line with the upstream's
latency, a `refused` line with the reason), writes argument values only when asked (hashed by
default), refuses a call whose line cannot be written, and does not start without its file.
The upstream is rugpull_server.py: calling `tick` changes `fetch_weather`'s reviewed description,
so whether `tick` ran shows in the tools the gateway lists afterwards."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from gateway_harness import HERE, gateway, m1nd_bin, pass_env, start_http, stop, text_of

pytestmark = pytest.mark.anyio

UPSTREAM = [sys.executable, str(HERE / "rugpull_server.py")]


def m1nd(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RUGPULL_STAGE": "0"}
    return subprocess.run(
        [str(m1nd_bin()), *pass_env(list(args), "RUGPULL_STAGE")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=env,
    )


def imported(tmp_path: Path) -> Path:
    policy = tmp_path / "policy"
    done = m1nd("policy", "import", "--policy", str(policy), "--read-only-from-hints", "--", *UPSTREAM)
    assert done.returncode == 0, done.stderr
    return policy


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_a_forwarded_and_a_refused_call_are_recorded_without_argument_values(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    digest = m1nd("policy", "digest", str(policy)).stdout.strip()
    audit = tmp_path / "audit.jsonl"
    async with gateway(policy, UPSTREAM, log_dir=tmp_path, extra=["--audit", str(audit)]) as gw:
        ok = await gw.session.call_tool("Fetch-Weather", {"city": "Oslo"})
        assert not ok.is_error, text_of(ok)
        refused = await gw.session.call_tool("fetch_weather", {"city": "Oslo", "api_key": "s3cret"})
        assert refused.is_error, text_of(refused)
    forwarded, answered, refusal = lines(audit)
    assert forwarded["decision"] == "forwarded" and answered["decision"] == "answered"
    for line in (forwarded, answered):
        assert line["name"] == "Fetch-Weather" and line["verb"] == "fetch_weather" and line["tool"] == "fetch_weather"
        assert line["definition"].startswith("blake3:")
        assert line["session"] == "stdio" and line["policy"] == digest
        assert line["time"].endswith("Z")
    assert answered["latency_ms"] >= 0 and answered["is_error"] is False
    assert "latency_ms" not in forwarded
    assert refusal["decision"] == "refused" and refusal["code"] == "undeclared-argument"
    assert "api_key" in refusal["reason"] and "verb" not in refusal
    text = audit.read_text()
    assert "Oslo" not in text and "s3cret" not in text and "arguments" not in text, text


async def test_arguments_are_hashed_when_asked_and_plain_only_when_asked_so(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    hashed, plain = tmp_path / "hashed.jsonl", tmp_path / "plain.jsonl"
    for audit, extra in ((hashed, ["--audit-arguments"]), (plain, ["--audit-arguments", "plain"])):
        async with gateway(policy, UPSTREAM, log_dir=tmp_path, extra=["--audit", str(audit), *extra]) as gw:
            assert not (await gw.session.call_tool("fetch_weather", {"city": "Oslo"})).is_error
    assert all(line["arguments"].startswith("blake3:") for line in lines(hashed))
    assert "Oslo" not in hashed.read_text()
    assert all(line["arguments"] == {"city": "Oslo"} for line in lines(plain))


async def test_a_call_that_cannot_be_recorded_is_refused_and_never_reaches_the_upstream(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    async with gateway(policy, UPSTREAM, log_dir=tmp_path, extra=["--audit", "/dev/full"]) as gw:
        refused = await gw.session.call_tool("tick", {})
        assert refused.is_error, text_of(refused)
        told = text_of(refused)
        assert "/dev/full" in told and "audit trail" in told and "nothing was sent" in told, told
        # `tick` would have changed fetch_weather's definition, hiding it: it never ran.
        assert {t.name for t in (await gw.session.list_tools()).tools} == {"fetch_weather", "tick"}
        undeclared = await gw.session.call_tool("exfiltrate", {})
        assert undeclared.is_error and "could not be recorded" in text_of(undeclared), text_of(undeclared)


def test_an_audit_file_that_cannot_be_opened_stops_the_gateway(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    missing = tmp_path / "no-such-dir" / "audit.jsonl"
    done = m1nd("gateway", "--policy", str(policy), "--audit", str(missing), "--", *UPSTREAM)
    assert done.returncode == 2, done.stderr
    assert str(missing) in done.stderr and "does not start" in done.stderr, done.stderr


async def test_over_http_each_session_is_named_by_a_digest_of_its_id(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    audit = tmp_path / "audit.jsonl"
    stderr_path = tmp_path / "gateway-http.stderr"
    command = [str(m1nd_bin()), "gateway", "--policy", str(policy), "--audit", str(audit), "--http", "127.0.0.1:0"]
    process, url = start_http([*command, "--", *UPSTREAM], stderr_path)
    try:
        for _ in range(2):
            async with Client(url, mode="legacy", cache=None) as c:
                assert not (await c.call_tool("fetch_weather", {"city": "Oslo"})).is_error
    finally:
        stop(process)
    sessions = [line["session"] for line in lines(audit)]
    assert len(sessions) == 4 and all(re.fullmatch(r"http:[0-9a-f]{16}", s) for s in sessions), sessions
    assert sessions[0] == sessions[1] != sessions[2] == sessions[3], sessions


async def test_prompts_and_resources_are_recorded_like_calls(tmp_path: Path) -> None:
    """A `prompts/get` and a `resources/read` get `forwarded` and `answered` lines naming their method;
    a read the policy does not allow gets a `refused` line with its code and reason."""
    policy = imported(tmp_path)
    audit = tmp_path / "audit.jsonl"
    async with gateway(policy, UPSTREAM, log_dir=tmp_path, extra=["--audit", str(audit)]) as gw:
        assert (await gw.session.get_prompt("FORECAST")).messages
        assert (await gw.session.read_resource("weather://today")).contents[0].text == "sunny"
        with pytest.raises(MCPError):
            await gw.session.read_resource("weather://../secrets")
    recorded = [(line.get("method"), line["decision"], line["name"], line.get("verb"), line.get("code")) for line in lines(audit)]
    assert recorded == [
        ("prompts/get", "forwarded", "FORECAST", "forecast", None),
        ("prompts/get", "answered", "FORECAST", "forecast", None),
        ("resources/read", "forwarded", "weather://today", "weather://today", None),
        ("resources/read", "answered", "weather://today", "weather://today", None),
        ("resources/read", "refused", "weather://../secrets", None, "undeclared"),
    ], recorded
    answered = lines(audit)[3]
    assert answered["latency_ms"] >= 0 and answered["is_error"] is False


async def test_a_read_whose_line_cannot_be_written_is_refused_before_the_upstream(tmp_path: Path) -> None:
    """/dev/full opens and refuses every write (ENOSPC): fail closed, and say so."""
    policy = imported(tmp_path)
    async with gateway(policy, UPSTREAM, log_dir=tmp_path, extra=["--audit", "/dev/full"]) as gw:
        with pytest.raises(MCPError) as refused:
            await gw.session.read_resource("weather://today")
        told = str(refused.value)
        assert "audit trail" in told and "nothing was sent to the upstream" in told, told

"""The gateway's attestation: `initialize` carries `io.m1nd/attestation` with the gateway policy's
digest (the one `m1nd policy digest DIR` prints), the mode the session got, and the digest of the
upstream definitions it is served; `--expect-digest` refuses to start on another policy. The
upstream is rugpull_server.py (the Python SDK), whose stage 1 changes a reviewed description."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from gateway_harness import HERE, m1nd_bin, pass_env, set_mode, start_http, stop

pytestmark = pytest.mark.anyio

UPSTREAM = [sys.executable, str(HERE / "rugpull_server.py")]
GRAPH = [sys.executable, str(HERE / "graph_server.py")]
KEY = "io.m1nd/attestation"


def m1nd(*args: str, stage: int = 0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RUGPULL_STAGE": str(stage)}
    return subprocess.run(
        [str(m1nd_bin()), *pass_env(list(args), "RUGPULL_STAGE")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=env,
    )


def imported(tmp_path: Path, upstream: list[str] = UPSTREAM) -> Path:
    policy = tmp_path / "policy"
    done = m1nd("policy", "import", "--policy", str(policy), "--read-only-from-hints", "--", *upstream)
    assert done.returncode == 0, done.stderr
    return policy


def digest_of(policy: Path) -> str:
    done = m1nd("policy", "digest", str(policy))
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@asynccontextmanager
async def attested(
    policy: Path, tmp_path: Path, *extra: str, stage: int = 0, upstream: list[str] = UPSTREAM
) -> AsyncIterator[tuple[ClientSession, Any]]:
    """The gateway's session and the attestation in its `initialize` result."""
    args = ["gateway", "--policy", str(policy), *extra, "--upstream-env", "RUGPULL_STAGE", "--", *upstream]
    env = {"RUGPULL_STAGE": str(stage), "PATH": os.environ.get("PATH", "")}
    params = StdioServerParameters(command=str(m1nd_bin()), args=args, cwd=str(tmp_path), env=env)
    with open(tmp_path / "stderr.log", "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.meta and KEY in init.meta, init.meta
                yield session, init.meta[KEY]


async def test_initialize_attests_the_policy_digest_the_mode_and_the_served_definitions(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    digest = digest_of(policy)
    assert len(digest) == 64, digest
    async with attested(policy, tmp_path) as (session, first):
        assert set(first) == {"policy", "mode", "definitions"}, first
        assert first["policy"] == digest
        assert first["mode"] == "read-only"
        assert len(first["definitions"]) == 64 and first["definitions"] != digest
        assert {t.name for t in (await session.list_tools()).tools} == {"fetch_weather", "tick"}
    async with attested(policy, tmp_path) as (_, again):
        assert again == first, "the same policy and upstream attest the same digests"


async def test_read_only_on_the_command_line_is_the_mode_attested(tmp_path: Path) -> None:
    policy = set_mode(imported(tmp_path, GRAPH), "read-write")
    async with attested(policy, tmp_path, upstream=GRAPH) as (session, open_session):
        assert open_session["mode"] == "read-write"
        writable = {t.name for t in (await session.list_tools()).tools}
    async with attested(policy, tmp_path, "--read-only", upstream=GRAPH) as (session, closed):
        assert closed["mode"] == "read-only"
        assert closed["policy"] == open_session["policy"] == digest_of(policy)
        served = {t.name for t in (await session.list_tools()).tools}
    assert served < writable, "read-only serves fewer tools here"
    assert closed["definitions"] != open_session["definitions"], "the definitions digest covers what is served"


async def test_a_changed_upstream_definition_changes_the_definitions_digest_not_the_policy_digest(
    tmp_path: Path,
) -> None:
    policy = imported(tmp_path)
    async with attested(policy, tmp_path) as (_, reviewed):
        pass
    async with attested(policy, tmp_path, stage=1) as (session, pulled):
        assert {t.name for t in (await session.list_tools()).tools} == {"tick"}
    assert pulled["policy"] == reviewed["policy"]
    assert pulled["definitions"] != reviewed["definitions"]


async def test_the_definitions_digest_covers_the_served_prompts_and_resources(tmp_path: Path) -> None:
    """The same tools, with and without the prompt and the resource: another definitions digest."""
    policy = imported(tmp_path)
    async with attested(policy, tmp_path) as (session, whole):
        assert [p.name for p in (await session.list_prompts()).prompts] == ["forecast"]
    tools = policy / "tools.toml"
    kept = [b for b in tools.read_text().split("\n\n") if not b.lstrip().startswith(("[prompts.", "[resources."))]
    tools.write_text("\n\n".join(kept))
    async with attested(policy, tmp_path) as (session, tools_only):
        assert {t.name for t in (await session.list_tools()).tools} == {"fetch_weather", "tick"}
    assert tools_only["definitions"] != whole["definitions"]


async def test_expect_digest_starts_on_the_reviewed_policy(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    digest = digest_of(policy)
    async with attested(policy, tmp_path, "--expect-digest", digest.upper()) as (session, attestation):
        assert attestation["policy"] == digest
        assert {t.name for t in (await session.list_tools()).tools} == {"fetch_weather", "tick"}


def test_expect_digest_refuses_another_policy_naming_both_digests(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    reviewed = digest_of(policy)
    set_mode(policy, "read-write")
    actual = digest_of(policy)
    assert actual != reviewed, "the mode is part of the digest"
    refused = m1nd("gateway", "--policy", str(policy), "--expect-digest", reviewed, "--", *UPSTREAM)
    assert refused.returncode == 1, refused.stderr
    for needed in (reviewed, actual, str(policy), "policy diff", "policy digest"):
        assert needed in refused.stderr, (needed, refused.stderr)
    malformed = m1nd("gateway", "--policy", str(policy), "--expect-digest", "abc", "--", *UPSTREAM)
    assert malformed.returncode == 2 and "64 hex digits" in malformed.stderr, malformed.stderr


async def test_over_http_initialize_and_server_discover_carry_the_same_attestation(tmp_path: Path) -> None:
    """`m1nd gateway --http`: a legacy client's `initialize` and a 2026-07-28 client's
    `server/discover` both carry the attestation, with the policy's digest and the session's mode."""
    policy = imported(tmp_path)
    digest = digest_of(policy)
    stderr_path = tmp_path / "gateway-http.stderr"
    command = [str(m1nd_bin()), "gateway", "--policy", str(policy), "--http", "127.0.0.1:0"]
    command += ["--upstream-env", "RUGPULL_STAGE", "--", *UPSTREAM]
    env = {**os.environ, "RUGPULL_STAGE": "0"}
    process, url = start_http(command, stderr_path, env)
    try:
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.meta and KEY in init.meta, init.meta
                legacy = init.meta[KEY]
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                discovered = await session.discover()
                assert discovered.meta and KEY in discovered.meta, discovered.meta
                modern = discovered.meta[KEY]
        assert legacy == modern, (legacy, modern)
        assert legacy["policy"] == digest and legacy["mode"] == "read-only", legacy
    finally:
        stop(process)

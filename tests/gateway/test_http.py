"""`m1nd gateway --http`: the same guard in front of mcp-server-git, served over Streamable HTTP to
the Python SDK's client in both protocol eras (a session, and stateless 2026-07-28 requests)."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest
from mcp import Client

from gateway_harness import (
    POLICIES,
    gateway,
    m1nd,
    m1nd_bin,
    name_forms,
    policy,
    start_http,
    stop,
    text_of,
    tree_digest,
    venv_bin,
)
from test_git import make_repo, write_arguments

pytestmark = pytest.mark.anyio

GIT = policy("git")


def start(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    stderr_path = tmp_path / "gateway-http.stderr"
    command = [str(m1nd_bin()), "gateway", "--policy", str(POLICIES / "git"), "--read-only", "--http", "127.0.0.1:0"]
    process, url = start_http([*command, "--", venv_bin("mcp-server-git")], stderr_path)
    return process, url, stderr_path


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_read_only_over_http_refuses_every_write_and_serves_reads(tmp_path: Path, mode: str) -> None:
    repo = make_repo(tmp_path / "repo")
    before = tree_digest(repo)
    process, url, _ = start(tmp_path)
    try:
        async with Client(url, mode=mode, cache=None) as c:
            assert {t.name for t in (await c.list_tools()).tools} == set(GIT["verbs"]) - set(GIT["denied"])
            for verb in GIT["denied"]:
                for name in name_forms(verb):
                    refused = await c.call_tool(name, write_arguments(verb, repo))
                    assert refused.is_error and "read-only" in text_of(refused), f"{name!r}: {text_of(refused)}"
            status = await c.call_tool("git_status", {"repo_path": str(repo)})
            assert not status.is_error and "new.txt" in text_of(status), text_of(status)
    finally:
        stop(process)
    assert tree_digest(repo) == before


async def test_a_streamable_http_upstream_behind_a_read_only_gateway(tmp_path: Path) -> None:
    """`--upstream URL`: m1nd's own server over HTTP as the upstream, imported and guarded."""
    store = tmp_path / "store"
    assert m1nd("init", "--demo", "--store", str(store)).returncode == 0
    serve = [str(m1nd_bin()), "serve", "--store", str(store), "--http", "127.0.0.1:0"]
    upstream, url = start_http(serve, tmp_path / "upstream.stderr")
    try:
        policy_dir = tmp_path / "policy"
        imported = m1nd("policy", "import", "--policy", str(policy_dir), "--read-only-from-hints", "--upstream", url)
        assert imported.returncode == 0, imported.stderr
        with open(policy_dir / "tools.toml", "rb") as f:
            verbs = set(tomllib.load(f)["verbs"])
        with open(policy_dir / "read_only_denied.toml", "rb") as f:
            denied = set(tomllib.load(f)["tools"])
        assert "memorize" in denied and "north" in verbs - denied
        before = tree_digest(store)
        async with gateway(policy_dir, [], read_only=True, log_dir=tmp_path, extra=["--upstream", url]) as gw:
            assert {t.name for t in (await gw.session.list_tools()).tools} == verbs - denied
            north = await gw.session.call_tool("north", {"task": "t"})
            assert not north.is_error, text_of(north)
            for name in name_forms("memorize"):
                refused = await gw.session.call_tool(name, {"node_label": "tests", "claims": [{"label": "through the gateway"}]})
                assert refused.is_error and "read-only" in text_of(refused), f"{name!r}: {text_of(refused)}"
        assert tree_digest(store) == before
    finally:
        stop(upstream)

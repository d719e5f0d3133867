"""`m1nd gateway --http`: the same guard in front of mcp-server-git, served over Streamable HTTP to
the Python SDK's client in both protocol eras (a session, and stateless 2026-07-28 requests)."""

from __future__ import annotations

import re
import subprocess
import time
import tomllib
from pathlib import Path

import pytest
from mcp import Client

from gateway_harness import POLICIES, gateway, m1nd_bin, name_forms, policy, text_of, tree_digest, venv_bin
from test_git import make_repo, write_arguments

pytestmark = pytest.mark.anyio

GIT = policy("git")
ADDRESS = re.compile(r"m1nd: serving MCP on http://(?P<addr>\S+)/mcp")


def start(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    stderr_path = tmp_path / "gateway-http.stderr"
    command = [str(m1nd_bin()), "gateway", "--policy", str(POLICIES / "git"), "--read-only", "--http", "127.0.0.1:0"]
    command += ["--", venv_bin("mcp-server-git")]
    with open(stderr_path, "wb") as errlog:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = ADDRESS.search(stderr_path.read_text(errors="replace"))
        if found:
            return process, f"http://{found['addr']}/mcp", stderr_path
        if process.poll() is not None:
            raise RuntimeError(f"m1nd gateway --http exited {process.returncode}: {stderr_path.read_text()}")
        time.sleep(0.02)
    process.kill()
    raise RuntimeError("m1nd gateway --http printed no address within 30 s")


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
        process.terminate()
        process.wait(timeout=10)
    assert tree_digest(repo) == before


def m1nd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(m1nd_bin()), *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


async def test_a_streamable_http_upstream_behind_a_read_only_gateway(tmp_path: Path) -> None:
    """`--upstream URL`: m1nd's own server over HTTP as the upstream, imported and guarded."""
    store = tmp_path / "store"
    assert m1nd("init", "--demo", "--store", str(store)).returncode == 0
    stderr_path = tmp_path / "upstream.stderr"
    with open(stderr_path, "wb") as errlog:
        upstream = subprocess.Popen(
            [str(m1nd_bin()), "serve", "--store", str(store), "--http", "127.0.0.1:0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog,
        )
    try:
        deadline = time.monotonic() + 30
        while not (found := ADDRESS.search(stderr_path.read_text(errors="replace"))):
            assert time.monotonic() < deadline and upstream.poll() is None, stderr_path.read_text()
            time.sleep(0.02)
        url = f"http://{found['addr']}/mcp"
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
            north = await gw.session.call_tool("north", {})
            assert not north.is_error, text_of(north)
            for name in name_forms("memorize"):
                refused = await gw.session.call_tool(name, {"claim": "through the gateway"})
                assert refused.is_error and "read-only" in text_of(refused), f"{name!r}: {text_of(refused)}"
        assert tree_digest(store) == before
    finally:
        upstream.terminate()
        upstream.wait(timeout=10)

"""`m1nd gateway --fleet DIR`: mcp-server-git and server-filesystem behind one gateway, each under
its own reviewed policy and prefix (tests/gateway/fleets/git-and-files), driven by the official MCP
Python SDK. One merged tools/list; each call decided by its own upstream's policy; one upstream dying
leaves the other serving; stdio and Streamable HTTP upstreams mixed in one fleet.

Expectations come from the policies and fleet.toml, never from a list written here."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from gateway_harness import (
    HERE,
    POLICIES,
    filesystem_server,
    m1nd,
    m1nd_bin,
    m1nd_gateway,
    policy,
    start_http,
    stop,
    text_of,
    tree_digest,
    venv_bin,
)
from test_git import make_repo

pytestmark = pytest.mark.anyio

FLEET = HERE / "fleets" / "git-and-files"


def reviewed_fleet() -> dict:
    with open(FLEET / "fleet.toml", "rb") as f:
        return tomllib.load(f)["upstreams"]


def toml_string(value: str) -> str:
    return json.dumps(value)


def write_fleet(dest: Path, upstreams: dict[str, dict]) -> Path:
    """A fleet directory at `dest`: fleet.toml naming each upstream with its policy (an absolute
    directory, written relative to `dest`), prefix and command or url."""
    dest.mkdir(parents=True, exist_ok=True)
    lines = []
    for name, entry in upstreams.items():
        lines.append(f"[upstreams.{name}]")
        lines.append(f"policy = {toml_string(os.path.relpath(entry['policy'], dest))}")
        lines.append(f"prefix = {toml_string(entry['prefix'])}")
        if "command" in entry:
            lines.append("command = [" + ", ".join(toml_string(p) for p in entry["command"]) + "]")
        else:
            lines.append(f"url = {toml_string(entry['url'])}")
        if "env" in entry:
            lines.append("env = [" + ", ".join(toml_string(n) for n in entry["env"]) + "]")
        if "bearer_env" in entry:
            lines.append(f"bearer_env = {toml_string(entry['bearer_env'])}")
        lines.append("")
    (dest / "fleet.toml").write_text("\n".join(lines))
    return dest


def git_and_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The reviewed fleet, its commands pointed at this run's venv, repository and directory."""
    repo = make_repo(tmp_path / "repo")
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# a\n")
    reviewed = reviewed_fleet()
    commands = {"repo": [venv_bin("mcp-server-git")], "files": filesystem_server(root)}
    upstreams = {
        name: {"policy": (FLEET / entry["policy"]).resolve(), "prefix": entry["prefix"], "command": commands[name]}
        for name, entry in reviewed.items()
    }
    assert set(upstreams) == set(commands), "the reviewed fleet names the upstreams this suite starts"
    return write_fleet(tmp_path / "fleet", upstreams), repo, root


def served(prefix: str, names) -> set[str]:
    return {prefix + n for n in names}


async def test_one_endpoint_serves_both_upstreams_each_under_its_own_policy(tmp_path: Path) -> None:
    fleet, repo, root = git_and_files(tmp_path)
    git, fs = policy("git"), policy("filesystem")
    prefixes = {name: entry["prefix"] for name, entry in reviewed_fleet().items()}
    before_repo, before_root = tree_digest(repo), tree_digest(root)
    digest = m1nd("policy", "digest", str(fleet))
    assert digest.returncode == 0, digest.stderr
    audit = tmp_path / "audit.jsonl"
    arguments = ["gateway", "--fleet", str(fleet), "--read-only", "--audit", str(audit)]
    async with m1nd_gateway(arguments, log_dir=tmp_path) as gw:
        listed = {t.name for t in (await gw.session.list_tools()).tools}
        expected = served(prefixes["repo"], set(git["verbs"]) - set(git["denied"])) | served(
            prefixes["files"], set(fs["verbs"]) - set(fs["denied"])
        )
        assert listed == expected
        # Each upstream answers its own names, in any spelling a client may write.
        status = await gw.session.call_tool(prefixes["repo"] + "git_status", {"repo_path": str(repo)})
        assert not status.is_error and "new.txt" in text_of(status), text_of(status)
        read = await gw.session.call_tool(
            (prefixes["files"] + "read_text_file").upper(), {"path": str(root / "docs" / "a.md")}
        )
        assert not read.is_error and "# a" in text_of(read), text_of(read)
        # Each upstream's own deny list refuses its writes.
        for prefix, verb, arguments in [
            (prefixes["repo"], "git_commit", {"repo_path": str(repo), "message": "through the fleet"}),
            (prefixes["files"], "write_file", {"path": str(root / "docs" / "b.md"), "content": "x"}),
        ]:
            assert verb in (git if prefix == prefixes["repo"] else fs)["denied"]
            refused = await gw.session.call_tool(prefix + verb, arguments)
            assert refused.is_error and "read-only" in text_of(refused), text_of(refused)
        # A name without its prefix belongs to no upstream: refused, with the served name to use.
        bare = await gw.session.call_tool("git_status", {"repo_path": str(repo)})
        assert bare.is_error and f"did you mean `{prefixes['repo']}git_status`" in text_of(bare), text_of(bare)
        # The attestation names the fleet and each upstream's own policy.
        attested = gw.initialized.meta["io.m1nd/attestation"]
        assert attested["policy"] == digest.stdout.strip()
        assert [(u["name"], u["prefix"]) for u in attested["upstreams"]] == list(prefixes.items())
        for u, name in zip(attested["upstreams"], ["git", "filesystem"]):
            assert u["policy"] == m1nd("policy", "digest", str(POLICIES / name)).stdout.strip()
            assert u["mode"] == "read-only"
    assert tree_digest(repo) == before_repo and tree_digest(root) == before_root
    # Each line names the upstream whose policy decided, with that policy's digest; a name no
    # upstream declares is refused under the fleet's digest.
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    git_digest = m1nd("policy", "digest", str(POLICIES / "git")).stdout.strip()
    status_lines = [line for line in lines if line["name"] == prefixes["repo"] + "git_status"]
    assert [line["decision"] for line in status_lines] == ["forwarded", "answered"], status_lines
    assert all(
        line["upstream"] == "repo" and line["verb"] == "git_status" and line["policy"] == git_digest
        for line in status_lines
    ), status_lines
    commit = next(line for line in lines if line["name"] == prefixes["repo"] + "git_commit")
    assert commit["decision"] == "refused" and commit["upstream"] == "repo", commit
    bare_line = next(line for line in lines if line["name"] == "git_status")
    assert bare_line["decision"] == "refused" and bare_line["code"] == "undeclared", bare_line
    assert bare_line["policy"] == digest.stdout.strip() and "upstream" not in bare_line, bare_line


async def listed_directly(command: list[str]) -> dict[str, object]:
    """An upstream's own tools/list, straight from it: each tool's `execution`, by name."""
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params, errlog=subprocess.DEVNULL) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return {t.name: t.execution for t in (await session.list_tools()).tools}


@pytest.mark.parametrize("transport", ["stdio", "legacy", "2026-07-28"])
async def test_each_tool_is_listed_with_its_upstream_s_execution_under_its_served_name(
    tmp_path: Path, transport: str
) -> None:
    fleet, _, root = git_and_files(tmp_path)
    prefixes = {name: entry["prefix"] for name, entry in reviewed_fleet().items()}
    declared = await listed_directly(filesystem_server(root))
    assert any(declared.values()), "server-filesystem declares `execution` on its tools"
    arguments = ["gateway", "--fleet", str(fleet), "--read-only"]
    if transport == "stdio":
        async with m1nd_gateway(arguments, log_dir=tmp_path) as gw:
            tools = (await gw.session.list_tools()).tools
    else:
        process, url = start_http([str(m1nd_bin()), *arguments, "--http", "127.0.0.1:0"], tmp_path / "gw.stderr")
        try:
            async with Client(url, mode=transport, cache=None) as client:
                tools = (await client.list_tools()).tools
        finally:
            stop(process)
    files = {t.name.removeprefix(prefixes["files"]): t for t in tools if t.name.startswith(prefixes["files"])}
    assert any(declared[name] for name in files), "some tool the fleet lists declares `execution`"
    for name, tool in files.items():
        assert tool.execution == declared[name], name


def children_running(pattern: str) -> list[int]:
    """Process ids whose command line contains `pattern` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if pattern in cmdline:
                found.append(int(entry.name))
    return found


async def test_one_upstream_dying_leaves_the_other_serving(tmp_path: Path) -> None:
    fleet, repo, root = git_and_files(tmp_path)
    prefixes = {name: entry["prefix"] for name, entry in reviewed_fleet().items()}
    async with m1nd_gateway(
        ["gateway", "--fleet", str(fleet), "--read-only", "--call-timeout", "5"], log_dir=tmp_path
    ) as gw:
        read = await gw.session.call_tool(prefixes["files"] + "read_text_file", {"path": str(root / "docs" / "a.md")})
        assert not read.is_error, text_of(read)
        pids = children_running(str(root))
        assert pids, "the filesystem server runs as a child of the gateway"
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while children_running(str(root)) and time.monotonic() < deadline:
            time.sleep(0.05)
        dead = await gw.session.call_tool(prefixes["files"] + "read_text_file", {"path": str(root / "docs" / "a.md")})
        assert dead.is_error and "upstream" in text_of(dead), text_of(dead)
        # The other upstream, and the session, go on.
        for _ in range(3):
            status = await gw.session.call_tool(prefixes["repo"] + "git_status", {"repo_path": str(repo)})
            assert not status.is_error and "new.txt" in text_of(status), text_of(status)
        listed = {t.name for t in (await gw.session.list_tools()).tools}
        assert prefixes["repo"] + "git_status" in listed


async def test_stdio_and_streamable_http_upstreams_in_one_fleet(tmp_path: Path) -> None:
    """mcp-server-git over stdio beside m1nd's own server over Streamable HTTP, its policy imported."""
    repo = make_repo(tmp_path / "repo")
    store = tmp_path / "store"
    assert m1nd("init", "--demo", "--store", str(store)).returncode == 0
    serve = [str(m1nd_bin()), "serve", "--store", str(store), "--http", "127.0.0.1:0"]
    upstream, url = start_http(serve, tmp_path / "upstream.stderr")
    try:
        mind_policy = tmp_path / "mind-policy"
        imported = m1nd("policy", "import", "--policy", str(mind_policy), "--read-only-from-hints", "--upstream", url)
        assert imported.returncode == 0, imported.stderr
        mind = policy(mind_policy)
        fleet = write_fleet(
            tmp_path / "fleet",
            {
                "repo": {"policy": POLICIES / "git", "prefix": "repo_", "command": [venv_bin("mcp-server-git")]},
                "mind": {"policy": mind_policy, "prefix": "mind.", "url": url},
            },
        )
        checked = m1nd("policy", "check", str(fleet))
        assert checked.returncode == 0 and "a fleet of 2 upstreams" in checked.stdout, checked.stdout + checked.stderr
        before = tree_digest(store)
        async with m1nd_gateway(["gateway", "--fleet", str(fleet), "--read-only"], log_dir=tmp_path) as gw:
            listed = {t.name for t in (await gw.session.list_tools()).tools}
            assert served("mind.", set(mind["verbs"]) - set(mind["denied"])) <= listed
            assert "repo_git_status" in listed
            north = await gw.session.call_tool("mind.north", {"task": "t"})
            assert not north.is_error, text_of(north)
            status = await gw.session.call_tool("repo_git_status", {"repo_path": str(repo)})
            assert not status.is_error, text_of(status)
            refused = await gw.session.call_tool("MIND-memorize", {"node_label": "tests", "claims": [{"label": "through the fleet"}]})
            assert refused.is_error and "read-only" in text_of(refused), text_of(refused)
        assert tree_digest(store) == before
    finally:
        stop(upstream)


async def test_a_started_member_sees_no_secret_of_the_gateway_or_of_another_member(tmp_path: Path) -> None:
    """server-everything (started, `env = ["EVERYTHING_PROBE"]`) beside m1nd's own server over
    Streamable HTTP behind a bearer token (`bearer_env = "MIND_TOKEN"`). The gateway's environment
    holds that token and a token of its own; server-everything's get-env shows neither, only the
    SDKs' default variables and the one its entry names, while the token still signs the gateway in
    to the other member."""
    from test_everything import INHERITED, PROBE, everything_server

    mind_token = "token-of-the-mind-member"
    own_token = "token-of-the-gateway-itself"
    store = tmp_path / "store"
    assert m1nd("init", "--demo", "--store", str(store)).returncode == 0
    serve = [str(m1nd_bin()), "serve", "--store", str(store), "--http", "127.0.0.1:0"]
    upstream, url = start_http(serve, tmp_path / "upstream.stderr", env={**os.environ, "M1ND_HTTP_TOKEN": mind_token})
    try:
        mind_policy = tmp_path / "mind-policy"
        imported = subprocess.run(
            [str(m1nd_bin()), "policy", "import", "--policy", str(mind_policy), "--read-only-from-hints",
             "--upstream", url, "--upstream-bearer-env", "MIND_TOKEN"],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
            env={**os.environ, "MIND_TOKEN": mind_token},
        )
        assert imported.returncode == 0, imported.stderr
        fleet = write_fleet(
            tmp_path / "fleet",
            {
                "every": {"policy": POLICIES / "everything", "prefix": "every_", "command": everything_server(),
                          "env": ["EVERYTHING_PROBE"]},
                "mind": {"policy": mind_policy, "prefix": "mind.", "url": url, "bearer_env": "MIND_TOKEN"},
            },
        )
        environment = {"PATH": os.environ["PATH"], "EVERYTHING_PROBE": PROBE, "MIND_TOKEN": mind_token,
                       "M1ND_HTTP_TOKEN": own_token}
        gateway = m1nd_gateway(["gateway", "--fleet", str(fleet), "--read-only"], log_dir=tmp_path, env=environment)
        async with gateway as gw:
            shown = await gw.session.call_tool("every_get-env", {})
            assert not shown.is_error, text_of(shown)
            seen = json.loads(text_of(shown))
            assert seen.get("EVERYTHING_PROBE") == PROBE, seen
            assert set(seen) <= INHERITED | {"EVERYTHING_PROBE"}, sorted(seen)
            assert mind_token not in text_of(shown) and own_token not in text_of(shown)
            north = await gw.session.call_tool("mind.north", {"task": "t"})
            assert not north.is_error, text_of(north)
    finally:
        stop(upstream)


async def test_a_fleet_that_breaks_m017_does_not_start_and_says_where(tmp_path: Path) -> None:
    fleet = write_fleet(
        tmp_path / "fleet",
        {
            "app": {"policy": POLICIES / "git", "prefix": "repo_", "command": [venv_bin("mcp-server-git")]},
            "docs": {"policy": POLICIES / "git", "prefix": "Repo-", "command": [venv_bin("mcp-server-git")]},
        },
    )
    started = m1nd("gateway", "--fleet", str(fleet))
    assert started.returncode == 1, started.stderr
    assert "error: [M017] upstreams `app` and `docs` serve tools `repo_git_status` and `Repo-git_status`" in started.stderr
    assert f"{fleet}/fleet.toml:8:10" in started.stderr, started.stderr
    assert "the gateway does not start" in started.stderr


async def test_over_http_a_rug_pull_hides_only_its_own_upstreams_tool(tmp_path: Path) -> None:
    """Each member is pinned and re-checked on its own: rugpull_server.py changes a reviewed tool
    behind one prefix; that tool alone is hidden and refused, and mcp-server-git behind the other
    prefix goes on, all over `--fleet --http` to the SDK's Streamable HTTP client."""
    rugpull = [sys.executable, str(HERE / "rugpull_server.py")]
    rug_policy = tmp_path / "rug-policy"
    imported = m1nd("policy", "import", "--policy", str(rug_policy), "--read-only-from-hints", "--", *rugpull)
    assert imported.returncode == 0, imported.stderr
    repo = make_repo(tmp_path / "repo")
    fleet = write_fleet(
        tmp_path / "fleet",
        {
            "repo": {"policy": POLICIES / "git", "prefix": "repo_", "command": [venv_bin("mcp-server-git")]},
            "weather": {"policy": rug_policy, "prefix": "wx_", "command": rugpull},
        },
    )
    command = [str(m1nd_bin()), "gateway", "--fleet", str(fleet), "--read-only", "--recheck", "0", "--http", "127.0.0.1:0"]
    process, url = start_http(command, tmp_path / "fleet-http.stderr")
    try:
        async with Client(url, mode="2026-07-28", cache=None) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert {"wx_fetch_weather", "wx_tick", "repo_git_status"} <= names, names
            ok = await c.call_tool("wx_fetch_weather", {"city": "Oslo"})
            assert not ok.is_error and "sunny in Oslo" in text_of(ok), text_of(ok)
            await c.call_tool("wx_tick", {})  # the weather upstream changes its reviewed tool
            names = {t.name for t in (await c.list_tools()).tools}
            assert "wx_fetch_weather" not in names and "repo_git_status" in names, names
            refused = await c.call_tool("wx_fetch_weather", {"city": "Oslo"})
            assert refused.is_error and "definition changed since it was reviewed" in text_of(refused), text_of(refused)
            status = await c.call_tool("repo_git_status", {"repo_path": str(repo)})
            assert not status.is_error and "new.txt" in text_of(status), text_of(status)
    finally:
        stop(process)

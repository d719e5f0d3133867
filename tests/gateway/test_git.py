"""`m1nd gateway` in front of mcp-server-git (from PyPI), with the imported-then-reviewed policy in
policies/git: a read-only session refuses every write in every name form and leaves the repository
byte-identical; reads work; a pin on `repo_path` refuses calls outside the allowed repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gateway_harness import (
    POLICIES,
    gateway,
    hints_of,
    m1nd_bin,
    name_forms,
    policy,
    served_hints,
    text_of,
    tools_of,
    tree_digest,
    venv_bin,
    with_pins,
)

pytestmark = pytest.mark.anyio

GIT = policy("git")
UPSTREAM = [venv_bin("mcp-server-git")]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def make_repo(path: Path) -> Path:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "gateway@example.invalid")
    git(path, "config", "user.name", "Gateway Test")
    (path / "README.md").write_text("hello\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "first")
    (path / "README.md").write_text("hello, changed\n")  # an unstaged change
    (path / "new.txt").write_text("staged\n")
    git(path, "add", "new.txt")  # a staged one
    return path


def write_arguments(verb: str, repo: Path) -> dict[str, object]:
    """Arguments that would make each write succeed, from its declared requirements."""
    values = {"repo_path": str(repo), "message": "gateway", "files": ["README.md"], "branch_name": "evil"}
    return {name: values.get(name, "x") for name in GIT["verbs"][verb].get("requires", [])}


async def test_read_only_lists_exactly_the_reviewed_reads_with_the_upstreams_annotations(tmp_path: Path) -> None:
    direct = await tools_of(UPSTREAM)
    async with gateway(POLICIES / "git", UPSTREAM, read_only=True, log_dir=tmp_path) as gw:
        tools = (await gw.session.list_tools()).tools
    listed = {t.name for t in tools}
    assert listed == set(GIT["verbs"]) - set(GIT["denied"])
    for tool in tools:
        assert hints_of(tool) == served_hints(direct[tool.name], GIT, tool.name), tool.name
        # The import proposed these as reads from the upstream's own hints, which pass unchanged.
        assert tool.annotations.read_only_hint is True, tool.name


async def test_read_only_refuses_every_write_in_every_name_form_and_the_repo_is_unchanged(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    before = tree_digest(repo)
    tried = 0
    async with gateway(POLICIES / "git", UPSTREAM, read_only=True, log_dir=tmp_path) as gw:
        for verb in GIT["denied"]:
            for name in name_forms(verb):
                result = await gw.session.call_tool(name, write_arguments(verb, repo))
                assert result.is_error, f"{name!r} was not refused: {text_of(result)}"
                assert "read-only" in text_of(result), text_of(result)
                tried += 1
        status = await gw.session.call_tool("git_status", {"repo_path": str(repo)})
        assert not status.is_error, text_of(status)
        assert "new.txt" in text_of(status)
        log = await gw.session.call_tool("M1ND.Git_Log", {"repo_path": str(repo)})
        assert "first" in text_of(log), text_of(log)
    assert tried == len(GIT["denied"]) * len(name_forms("x"))
    assert tree_digest(repo) == before


async def test_a_writable_session_forwards_writes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    async with gateway(POLICIES / "git", UPSTREAM, log_dir=tmp_path) as gw:
        result = await gw.session.call_tool("git_commit", {"repo_path": str(repo), "message": "through the gateway"})
        assert not result.is_error, text_of(result)
    assert "through the gateway" in git(repo, "log", "-1", "--format=%s")


async def test_a_repo_path_pin_refuses_every_way_out(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    other = make_repo(tmp_path / "repo-other")
    (repo / "escape").symlink_to(other)
    pinned = with_pins("git", tmp_path / "policy", ["repo_path"], repo.resolve())
    before = tree_digest(other)
    async with gateway(pinned, UPSTREAM, log_dir=tmp_path) as gw:
        ok = await gw.session.call_tool("git_status", {"repo_path": f"{repo}/"})
        assert not ok.is_error, text_of(ok)
        evasions = [
            str(other),
            f"{repo}/../repo-other",
            f"{repo}/escape",
            f"{repo}-other",
            str(repo).upper(),
            "repo",
            "",
        ]
        for path in evasions:
            for verb, more in (("git_status", {}), ("git_commit", {"message": "m"})):
                result = await gw.session.call_tool(verb, {"repo_path": path, **more})
                assert result.is_error, f"{verb} {path!r} passed the pin: {text_of(result)}"
                assert "repo_path" in text_of(result), text_of(result)
        missing = await gw.session.call_tool("git_status", {})
        assert missing.is_error and "needs the argument `repo_path`" in text_of(missing), text_of(missing)
        no_target = await gw.session.call_tool("git_diff", {"repo_path": str(repo)})
        assert no_target.is_error, text_of(no_target)
        assert "`git_diff` needs the argument `target`: `[verbs.git_diff]` of tools.toml" in text_of(no_target)
        typed = await gw.session.call_tool("git_status", {"repo_path": 7})
        assert typed.is_error, text_of(typed)
        smuggled = await gw.session.call_tool("git_status", {"repo_path": str(repo), "Repo_Path": str(other)})
        assert smuggled.is_error and "takes no argument" in text_of(smuggled), text_of(smuggled)
    assert tree_digest(other) == before


async def test_a_policy_that_breaks_a_law_does_not_start(tmp_path: Path) -> None:
    bad = tmp_path / "policy"
    shutil.copytree(POLICIES / "git", bad)
    with open(bad / "tools.toml", "a") as f:
        f.write('\n[verbs.git_log.pins]\nrepo_pth = { under = ["/srv"] }\n')
    done = subprocess.run(
        [str(m1nd_bin()), "gateway", "--policy", str(bad), "--", *UPSTREAM],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1, done.stderr
    assert "[M014] `git_log` pins `repo_pth`, an argument it does not take" in done.stderr
    assert "did you mean `repo_path`?" in done.stderr
    assert "the gateway does not start" in done.stderr

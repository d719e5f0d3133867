"""What reaches the upstream: `m1nd gateway` in front of tap_server.py (the Python SDK), which writes
every call it receives to a tap file before acting on it. A call refused at the gateway (a missing
`requires` argument, an undeclared one, a path pin's every refusal) leaves no line there and no
byte changed on disk; an allowed call leaves exactly one, with the canonical path the gateway checked.

It also shows the window a name check cannot close: a symlink swapped in *before* the check is
refused, one swapped in *after* it (while the upstream holds the call) is followed by a naive
upstream. The README's gateway section documents that window."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway_harness import POLICIES, filesystem_server, gateway, text_of, tree_digest, with_pins

pytestmark = pytest.mark.anyio


def tap_upstream(tap: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve().parent / "tap_server.py"), str(tap)]


def tapped(tap: Path) -> list[dict[str, Any]]:
    """Every call the upstream received, in order."""
    if not tap.exists():
        return []
    return [json.loads(line) for line in tap.read_text().splitlines()]


def make_root(root: Path) -> tuple[Path, Path]:
    """`root/pinned` (the pinned directory, with every trap in it) and `root/outside`."""
    pinned, outside = root / "pinned", root / "outside"
    (pinned / "slot").mkdir(parents=True)
    outside.mkdir()
    (pinned / "notes.txt").write_text("notes\n")
    (outside / "secret.txt").write_text("the secret\n")
    (pinned / "x").symlink_to("../outside/new.txt")  # dangling: its target does not exist
    (pinned / "out").symlink_to("../outside")  # a directory link leading outside
    (pinned / "twin.txt").hardlink_to(outside / "secret.txt")  # the same file as one outside
    return pinned.resolve(), outside.resolve()


def pinned_policy(dest: Path, under: Path, *, hard_links: bool = False) -> Path:
    """policies/tap with `path` pinned under `under` on every tool that takes it."""
    shutil.copytree(POLICIES / "tap", dest)
    option = ", hard_links = true" if hard_links else ""
    with open(dest / "tools.toml", "a") as f:
        for verb in ("read_note", "write_note"):
            f.write(f'\n[verbs.{verb}.pins]\npath = {{ under = ["{under}"]{option} }}\n')
    return dest


async def test_refused_calls_never_reach_the_upstream_and_an_allowed_one_does_once(tmp_path: Path) -> None:
    pinned, outside = make_root(tmp_path / "root")
    tap = tmp_path / "tap.jsonl"
    policy = pinned_policy(tmp_path / "policy", pinned)
    before = tree_digest(tmp_path / "root")
    refusals: list[tuple[str, dict[str, Any], list[str]]] = [
        # A missing `requires` argument (absent or null): the verb, the argument, the user's entry.
        (
            "write_note",
            {"path": f"{pinned}/notes.txt"},
            ["`write_note`", "`content`", "`[verbs.write_note]` of tools.toml"],
        ),
        ("echo", {}, ["`echo`", "`text`", "requires"]),
        ("echo", {"text": None}, ["`echo`", "`text`", "requires"]),
        # An undeclared argument, beside a declared one or misspelling one.
        ("echo", {"text": "hi", "Text": "x"}, ["takes no argument `Text`"]),
        ("echo", {"text": "hi", "nots": "x"}, ["did you mean `note`?"]),
        # Path pins.
        ("read_note", {"path": f"{pinned}/../outside/secret.txt"}, ["`..`"]),
        ("read_note", {"path": f"{outside}/secret.txt"}, ["outside"]),
        ("read_note", {"path": "pinned/notes.txt"}, ["relative"]),
        ("read_note", {"path": f"{pinned}/out/secret.txt"}, ["is a symlink to", "outside"]),
        ("write_note", {"path": f"{pinned}/out/new.txt", "content": "leak"}, ["is a symlink to", "outside"]),
        (
            "write_note",
            {"path": f"{pinned}/x", "content": "leak"},
            ["dangling symlink", "`path` in `[verbs.write_note.pins]` of tools.toml"],
        ),
        ("read_note", {"path": f"{pinned}/twin.txt"}, ["2 hard links", "hard_links = true"]),
    ]
    async with gateway(policy, tap_upstream(tap), log_dir=tmp_path) as gw:
        for tool, arguments, says in refusals:
            result = await gw.session.call_tool(tool, arguments)
            text = text_of(result)
            assert result.is_error, f"{tool} {arguments}: {text}"
            for part in says:
                assert part in text, f"{tool} {arguments}: {text!r} lacks {part!r}"
            assert "the secret" not in text
        assert tapped(tap) == [], "a refused call reached the upstream"
        assert tree_digest(tmp_path / "root") == before
        assert not (outside / "new.txt").exists()

        ok = await gw.session.call_tool("read_note", {"path": f"{pinned}/./notes.txt"})
        assert not ok.is_error and text_of(ok) == "notes\n", text_of(ok)
    assert tapped(tap) == [{"tool": "read_note", "arguments": {"path": f"{pinned}/notes.txt"}}]
    assert tree_digest(tmp_path / "root") == before


async def test_without_the_pin_a_dangling_symlink_writes_outside(tmp_path: Path) -> None:
    """The control: what the pin stops is real, and the tap sees what gets through."""
    pinned, outside = make_root(tmp_path / "root")
    tap = tmp_path / "tap.jsonl"
    async with gateway(POLICIES / "tap", tap_upstream(tap), log_dir=tmp_path) as gw:
        result = await gw.session.call_tool("write_note", {"path": f"{pinned}/x", "content": "leak"})
        assert not result.is_error, text_of(result)
    assert (outside / "new.txt").read_text() == "leak"
    assert tapped(tap) == [{"tool": "write_note", "arguments": {"path": f"{pinned}/x", "content": "leak"}}]


async def test_a_pin_with_hard_links_true_lets_a_hard_linked_file_through(tmp_path: Path) -> None:
    pinned, _ = make_root(tmp_path / "root")
    tap = tmp_path / "tap.jsonl"
    policy = pinned_policy(tmp_path / "policy", pinned, hard_links=True)
    async with gateway(policy, tap_upstream(tap), log_dir=tmp_path) as gw:
        result = await gw.session.call_tool("read_note", {"path": f"{pinned}/twin.txt"})
        assert not result.is_error and text_of(result) == "the secret\n", text_of(result)
        # The option is about hard links only: a symlink leading outside is still refused.
        refused = await gw.session.call_tool("read_note", {"path": f"{pinned}/out/secret.txt"})
        assert refused.is_error, text_of(refused)
    assert [call["arguments"]["path"] for call in tapped(tap)] == [f"{pinned}/twin.txt"]


def swap_for_link(directory: Path, target: Path) -> None:
    """Replace `directory` by a symlink to `target`, as someone with write access to its parent could."""
    shutil.rmtree(directory)
    directory.symlink_to(target)


async def test_a_symlink_swapped_in_before_the_check_is_refused(tmp_path: Path) -> None:
    pinned, outside = make_root(tmp_path / "root")
    tap = tmp_path / "tap.jsonl"
    policy = pinned_policy(tmp_path / "policy", pinned)
    async with gateway(policy, tap_upstream(tap), log_dir=tmp_path) as gw:
        first = await gw.session.call_tool("write_note", {"path": f"{pinned}/slot/a.txt", "content": "a"})
        assert not first.is_error, text_of(first)
        swap_for_link(pinned / "slot", outside)
        second = await gw.session.call_tool("write_note", {"path": f"{pinned}/slot/b.txt", "content": "b"})
        assert second.is_error and "is a symlink to" in text_of(second), text_of(second)
    assert not (outside / "b.txt").exists() and not (outside / "a.txt").exists()
    assert len(tapped(tap)) == 1


async def test_a_symlink_swapped_in_before_the_check_is_refused_in_front_of_server_filesystem(tmp_path: Path) -> None:
    root = tmp_path / "root"
    pinned, outside = make_root(root)
    (pinned / "slot" / "a.txt").write_text("a\n")
    policy = with_pins("filesystem", tmp_path / "policy", ["path", "paths", "source", "destination"], pinned)
    async with gateway(policy, filesystem_server(root), log_dir=tmp_path) as gw:
        read = await gw.session.call_tool("read_text_file", {"path": f"{pinned}/slot/a.txt"})
        assert not read.is_error and "a" in text_of(read), text_of(read)
        swap_for_link(pinned / "slot", outside)
        for tool, arguments in [
            ("write_file", {"path": f"{pinned}/slot/b.txt", "content": "b"}),
            ("read_text_file", {"path": f"{pinned}/slot/secret.txt"}),
            ("create_directory", {"path": f"{pinned}/slot/d"}),
        ]:
            result = await gw.session.call_tool(tool, arguments)
            assert result.is_error and "is a symlink to" in text_of(result), f"{tool}: {text_of(result)}"
            assert "the secret" not in text_of(result)
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


async def test_a_symlink_swapped_in_after_the_check_is_beyond_a_name_check(tmp_path: Path) -> None:
    """The window, shown rather than hidden: the gateway checks the name it forwards, and a naive
    upstream opens it later. The tap upstream holds the call between the two; a symlink swapped in
    then is followed, and the file lands outside. Only the upstream's own sandbox can stop that
    (the README says so); what the gateway guarantees is that the path it forwarded was inside."""
    pinned, outside = make_root(tmp_path / "root")
    tap = tmp_path / "tap.jsonl"
    hold = tmp_path / "tap.jsonl.hold"
    hold.touch()
    policy = pinned_policy(tmp_path / "policy", pinned)
    result: dict[str, Any] = {}
    async with gateway(policy, tap_upstream(tap), log_dir=tmp_path) as gw:

        async def call() -> None:
            result["late"] = await gw.session.call_tool(
                "write_note", {"path": f"{pinned}/slot/late.txt", "content": "late"}
            )

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            with anyio.fail_after(10):
                while not tapped(tap):
                    await anyio.sleep(0.02)
            # The gateway checked and forwarded the path; the upstream has not opened it yet.
            assert tapped(tap)[0]["arguments"]["path"] == f"{pinned}/slot/late.txt"
            swap_for_link(pinned / "slot", outside)
            hold.unlink()
    assert not result["late"].is_error, text_of(result["late"])
    assert (outside / "late.txt").read_text() == "late", "the window closed: update the README and this test"

"""`m1nd gateway` in front of @modelcontextprotocol/server-filesystem (from npm), with the
imported-then-reviewed policy in policies/filesystem: a read-only session refuses every write in
every name form and leaves the directory byte-identical; reads work; a pin on `path` narrows the
server to one subdirectory and refuses every way out of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway_harness import (
    POLICIES,
    filesystem_server,
    gateway,
    hints_of,
    name_forms,
    policy,
    served_hints,
    text_of,
    tools_of,
    tree_digest,
    with_pins,
)

pytestmark = pytest.mark.anyio

FS = policy("filesystem")


def make_root(root: Path) -> Path:
    (root / "public" / "docs").mkdir(parents=True)
    (root / "public" / "notes.txt").write_text("public notes\n")
    (root / "public" / "docs" / "a.md").write_text("# a\n")
    (root / "secret.txt").write_text("the secret\n")
    (root / "public" / "link").symlink_to(root / "secret.txt")
    return root


def write_arguments(verb: str, root: Path) -> dict[str, object]:
    """Arguments that would make each write succeed, from its declared requirements."""
    values = {
        "path": str(root / "public" / "new.txt"),
        "content": "written",
        "edits": [{"oldText": "public", "newText": "changed"}],
        "source": str(root / "public" / "notes.txt"),
        "destination": str(root / "public" / "moved.txt"),
    }
    if verb == "edit_file":
        values["path"] = str(root / "public" / "notes.txt")
    return {name: values[name] for name in FS["verbs"][verb].get("requires", [])}


async def test_read_only_refuses_every_write_in_every_name_form_and_the_directory_is_unchanged(tmp_path: Path) -> None:
    root = make_root(tmp_path / "root")
    before = tree_digest(root)
    direct = await tools_of(filesystem_server(root))
    async with gateway(POLICIES / "filesystem", filesystem_server(root), read_only=True, log_dir=tmp_path) as gw:
        tools = (await gw.session.list_tools()).tools
        assert {t.name for t in tools} == set(FS["verbs"]) - set(FS["denied"])
        for tool in tools:
            assert hints_of(tool) == served_hints(direct[tool.name], FS, tool.name), tool.name
            assert tool.annotations.read_only_hint is True, tool.name
        for verb in FS["denied"]:
            for name in name_forms(verb):
                result = await gw.session.call_tool(name, write_arguments(verb, root))
                assert result.is_error and "read-only" in text_of(result), f"{name!r}: {text_of(result)}"
        read = await gw.session.call_tool("read_text_file", {"path": str(root / "public" / "notes.txt")})
        assert not read.is_error and "public notes" in text_of(read), text_of(read)
        listing = await gw.session.call_tool("M1ND_List_Directory", {"path": str(root / "public")})
        assert "notes.txt" in text_of(listing), text_of(listing)
    assert tree_digest(root) == before


async def test_a_writable_session_forwards_writes(tmp_path: Path) -> None:
    root = make_root(tmp_path / "root")
    async with gateway(POLICIES / "filesystem", filesystem_server(root), log_dir=tmp_path) as gw:
        result = await gw.session.call_tool("write_file", write_arguments("write_file", root))
        assert not result.is_error, text_of(result)
    assert (root / "public" / "new.txt").read_text() == "written"


async def test_a_path_pin_refuses_every_way_out_of_its_directory(tmp_path: Path) -> None:
    root = make_root(tmp_path / "root")
    public = (root / "public").resolve()
    pinned = with_pins("filesystem", tmp_path / "policy", ["path", "paths", "source", "destination"], public)
    before = tree_digest(root)
    async with gateway(pinned, filesystem_server(root), log_dir=tmp_path) as gw:
        inside = {
            f"{public}/notes.txt": "public notes",
            f"{public}/notes.txt/": "public notes",
            f"{public}/./notes.txt": "public notes",
            f"{public}//docs/a.md": "# a",
        }
        for path, text in inside.items():
            ok = await gw.session.call_tool("read_text_file", {"path": path})
            assert not ok.is_error and text in text_of(ok), f"{path}: {text_of(ok)}"
        evasions = [
            str(root / "secret.txt"),
            f"{public}/../secret.txt",
            f"{public}/docs/../../secret.txt",
            f"{public}/link",
            f"{public}-evil/x",
            str(public).upper() + "/notes.txt",
            "secret.txt",
            "public/notes.txt",
        ]
        tried = 0
        for path in evasions:
            result = await gw.session.call_tool("read_text_file", {"path": path})
            assert result.is_error and "`path` must lie in" in text_of(result), f"{path!r}: {text_of(result)}"
            assert "the secret" not in text_of(result)
            many = await gw.session.call_tool("read_multiple_files", {"paths": [f"{public}/notes.txt", path]})
            assert many.is_error and "the secret" not in text_of(many), f"{path!r}: {text_of(many)}"
            moved = await gw.session.call_tool(
                "move_file", {"source": f"{public}/notes.txt", "destination": path}
            )
            assert moved.is_error, f"{path!r}: {text_of(moved)}"
            tried += 3
        assert tried == 3 * len(evasions)
        dry = await gw.session.call_tool(
            "edit_file", {"path": str(root / "secret.txt"), "edits": json.loads('[{"oldText":"the","newText":"a"}]')}
        )
        assert dry.is_error, text_of(dry)
    assert tree_digest(root) == before

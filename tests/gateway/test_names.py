"""Names as servers spell them: shapes_server.py (the Python SDK) names its tools in kebab-case,
camelCase, dotted and snake_case. Through the gateway, each read answers to every spelling that
folds to it and is forwarded under its exact upstream name; each denied write is refused in every
spelling and never reaches the upstream; `policy import` takes every shape, and refuses names that
fold together (M016) or that the MCP specification does not allow, quoting the rule.

Expectations come from the policy files (policies/shapes), never from a list written here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from gateway_harness import HERE, POLICIES, gateway, m1nd_bin, pass_env, policy, text_of, tree_digest

pytestmark = pytest.mark.anyio

UPSTREAM = [sys.executable, str(HERE / "shapes_server.py")]
SHAPES = policy("shapes")
READS = [v for v in SHAPES["verbs"] if v not in SHAPES["denied"]]


def words(name: str) -> list[str]:
    """`get-sum`, `getSum`, `files.read`, `echo_text` → their words, lower case."""
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)]


def spellings(name: str) -> list[str]:
    """Every shape a client may write one tool's name in: all fold to it."""
    w = words(name)
    camel = w[0] + "".join(x.title() for x in w[1:])
    kebab, snake, dotted = "-".join(w), "_".join(w), ".".join(w)
    forms = [name, kebab, snake, dotted, camel, camel[0].upper() + camel[1:], name.upper(), snake.upper()]
    forms += [f"m1nd.{name}", f"m1nd_{snake}", f"M1ND.{kebab.upper()}", f"m1nd-{camel}", f"  {name}\t"]
    return list(dict.fromkeys(forms))


def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.txt").write_text("alpha\n")
    (data / "b.txt").write_text("beta\n")
    return data


def m1nd(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(m1nd_bin()), *pass_env(list(args), *(env or {}))],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )


def arguments(verb: str) -> dict[str, object]:
    """Arguments every tool of the shapes server accepts."""
    values = {"a": 1, "b": 2, "name": "a.txt", "text": "x"}
    return {a: values[a] for a in SHAPES["verbs"][verb].get("requires", [])}


def test_the_shapes_policy_covers_every_shape_with_a_read_and_a_write() -> None:
    shapes = {"kebab": "-", "dotted": ".", "snake": "_"}
    for verbs in (READS, SHAPES["denied"]):
        for shape, sep in shapes.items():
            assert any(sep in v for v in verbs), f"no {shape} name among {verbs}"
        assert any(re.search(r"[a-z][A-Z]", v) for v in verbs), f"no camelCase name among {verbs}"


async def test_reads_are_listed_under_their_upstream_names_and_answer_every_spelling(tmp_path: Path) -> None:
    data = data_dir(tmp_path)
    async with gateway(POLICIES / "shapes", UPSTREAM, read_only=True, log_dir=tmp_path,
                       env={**os.environ, "SHAPES_DATA": str(data)}, upstream_env=("SHAPES_DATA",)) as gw:
        listed = {t.name for t in (await gw.session.list_tools()).tools}
        assert listed == set(READS), listed
        expected = {"get-sum": "3", "listItems": "a.txt,b.txt", "files.read": "alpha", "echo_text": "x"}
        for verb in READS:
            for name in spellings(verb):
                result = await gw.session.call_tool(name, arguments(verb))
                assert not result.is_error, f"{name!r}: {text_of(result)}"
                assert expected[verb] in text_of(result), f"{name!r}: {text_of(result)}"


async def test_every_spelling_of_a_denied_write_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    data = data_dir(tmp_path)
    before = tree_digest(data)
    async with gateway(POLICIES / "shapes", UPSTREAM, read_only=True, log_dir=tmp_path,
                       env={**os.environ, "SHAPES_DATA": str(data)}, upstream_env=("SHAPES_DATA",)) as gw:
        for verb in SHAPES["denied"]:
            for name in spellings(verb):
                refused = await gw.session.call_tool(name, arguments(verb))
                message = text_of(refused)
                assert refused.is_error, f"{name!r} was not refused: {message}"
                assert f"read_only_denied.toml lists `{verb}` in `tools`" in message, f"{name!r}: {message}"
        # The session survives every refusal.
        ok = await gw.session.call_tool("echo_text", {"text": "still here"})
        assert not ok.is_error and "still here" in text_of(ok)
    assert tree_digest(data) == before


async def test_an_allowed_spelling_is_forwarded_under_the_exact_upstream_name(tmp_path: Path) -> None:
    data = data_dir(tmp_path)
    async with gateway(POLICIES / "shapes", UPSTREAM, log_dir=tmp_path,
                       env={**os.environ, "SHAPES_DATA": str(data)}, upstream_env=("SHAPES_DATA",)) as gw:
        # The upstream knows only `delete-item` and `notes.write`: these answer only if the gateway
        # forwarded those exact names.
        deleted = await gw.session.call_tool("DELETE_ITEM", {"name": "a.txt"})
        assert not deleted.is_error and "deleted a.txt" in text_of(deleted), text_of(deleted)
        wrote = await gw.session.call_tool("notesWrite", {"name": "c.txt", "text": "gamma"})
        assert not wrote.is_error, text_of(wrote)
    assert sorted(p.name for p in data.iterdir()) == ["b.txt", "c.txt"]
    assert (data / "c.txt").read_text() == "gamma"


async def test_prompts_of_every_shape_answer_every_spelling_and_reads_stay_in_the_template(tmp_path: Path) -> None:
    """Prompts are found by any spelling that folds to them and forwarded under the exact upstream
    name; the template reads an item, and no spelling of a path leaves SHAPES_DATA."""
    data = data_dir(tmp_path)
    async with gateway(POLICIES / "shapes", UPSTREAM, read_only=True, log_dir=tmp_path,
                       env={**os.environ, "SHAPES_DATA": str(data)}, upstream_env=("SHAPES_DATA",)) as gw:
        listed = {p.name for p in (await gw.session.list_prompts()).prompts}
        assert listed == set(SHAPES["prompts"]), listed
        for prompt in SHAPES["prompts"]:
            takes = {"name": "a.txt"} if prompt in ("summarize-item", "reviewItem") else None
            for name in spellings(prompt):
                got = await gw.session.get_prompt(name, takes)
                assert got.messages, f"{name!r}"
        assert (await gw.session.read_resource("shapes://items")).contents[0].text == "a.txt,b.txt"
        assert (await gw.session.read_resource("shapes://item/a.txt")).contents[0].text == "alpha\n"
        for slip in ("shapes://item/../../etc/passwd", "shapes://item/%2e%2e", "shapes://item/a.txt/..", "SHAPES://item/a.txt"):
            with pytest.raises(MCPError) as refused:
                await gw.session.read_resource(slip)
            assert "nothing was sent to the upstream" in str(refused.value), refused.value


def test_import_takes_every_shape_under_its_exact_name(tmp_path: Path) -> None:
    out = tmp_path / "imported"
    imported = m1nd("policy", "import", "--policy", str(out), "--read-only-from-hints", "--", *UPSTREAM,
                    env={"SHAPES_DATA": str(data_dir(tmp_path))})
    assert imported.returncode == 0, imported.stderr
    assert "skipped" not in imported.stdout + imported.stderr
    tools = (out / "tools.toml").read_text()
    for verb in SHAPES["verbs"]:
        key = f'"{verb}"' if "." in verb else verb
        assert f"[verbs.{key}]" in tools, f"{verb} not imported:\n{tools}"
    deny = (out / "read_only_denied.toml").read_text()
    for verb in SHAPES["denied"]:
        assert f'"{verb}", # REVIEW' in deny, deny
    checked = m1nd("policy", "check", "--gateway", str(out))
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("collide", ["[M016] `get-sum` and `getSum` fold to the same name `getsum`"]),
        ("bad", ["[M001] `files/read` is not a tool name", "it is 129 characters long",
                 "the MCP specification allows a tool name of 1 to 128 characters"]),
    ],
)
def test_import_refuses_names_it_cannot_declare_and_writes_nothing(tmp_path: Path, extra: str,
                                                                     expected: list[str]) -> None:
    out = tmp_path / "imported"
    refused = m1nd("policy", "import", "--policy", str(out), "--", *UPSTREAM,
                   env={"SHAPES_DATA": str(data_dir(tmp_path)), "SHAPES_EXTRA": extra})
    assert refused.returncode != 0, refused.stdout
    for text in expected + ["nothing was written"]:
        assert text in refused.stderr, refused.stderr
    assert not out.exists()


def test_policy_check_points_at_both_names_that_fold_together(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    tools = (POLICIES / "shapes" / "tools.toml").read_text()
    (bad / "tools.toml").write_text(tools + '\n[verbs.GET_SUM]\nsummary = "Adds, again."\n')
    (bad / "read_only_denied.toml").write_text((POLICIES / "shapes" / "read_only_denied.toml").read_text())
    checked = m1nd("policy", "check", "--gateway", str(bad))
    assert checked.returncode != 0
    report = checked.stdout + checked.stderr
    assert "[M016] tools `get-sum` and `GET_SUM` fold to the same name `getsum`" in report, report
    first = tools.splitlines().index("[verbs.get-sum]") + 1
    second = len(tools.splitlines()) + 2
    assert f"tools.toml:{second}:8" in report and f"tools.toml:{first}:8" in report, report

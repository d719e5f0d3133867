"""Nothing invisible from an upstream: an upstream that hides characters in every field
(hidden_upstream.py) is refused at review under law M018, with each field shown escaped, and
delivers none of them to a client of the gateway, over stdio and over `--http`, while TAB, LF and
CR arrive as they are."""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from gateway_harness import HERE, gateway, m1nd, m1nd_bin, start_http, text_of
from hidden_upstream import HIDDEN, LAYOUT, URI

pytestmark = pytest.mark.anyio

UPSTREAM = [sys.executable, str(HERE / "hidden_upstream.py")]
# How the gateway writes HIDDEN: every character as `\u{XXXX}`, the visible `[2J` kept.
ESCAPED = "\\u{200B}\\u{202E}\\u{E0049}\\u{E0047}\\u{001B}[2J\\u{0007}"


def unseen(text: str) -> list[str]:
    """The characters of `text` a reader would not see: controls other than TAB, LF and CR,
    format characters (bidi, zero-width, the TAG block) and the line and paragraph separators."""
    return [c for c in text if c not in "\t\n\r" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]


ESCAPED_COUNT = len(unseen(HIDDEN))


def hidden_in(value: Any, where: str = "") -> list[str]:
    """Every string (value or key) of a JSON-shaped value holding an unseen character, by path."""
    if isinstance(value, str):
        return [f"{where}: {value!r}"] if unseen(value) else []
    if isinstance(value, list):
        return [h for i, item in enumerate(value) for h in hidden_in(item, f"{where}/{i}")]
    if isinstance(value, dict):
        found = [f"{where} key {k!r}" for k in value if unseen(k)]
        return found + [h for k, item in value.items() for h in hidden_in(item, f"{where}/{k}")]
    return []


def imported(tmp_path: Path) -> Path:
    """The upstream imported: the import writes every file, escaped, and fails under M018."""
    policy = tmp_path / "policy"
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--read-only-from-hints", "--policy", str(policy), "--", *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1, done.stderr
    assert not unseen(done.stdout + done.stderr), "the refusal itself shows nothing hidden"
    for field in ("title", "description", "inputSchema", "outputSchema", "annotations"):
        assert f"[M018] tool `echo`'s `{field}` holds characters a reader cannot see" in done.stderr, done.stderr
    assert f'at /description: "Echo text.{ESCAPED}"' in done.stderr, done.stderr
    assert "[M018] prompt `greet`'s `description`" in done.stderr, done.stderr
    assert f"[M018] resource `{URI}`'s `title`" in done.stderr, done.stderr
    assert re.search(r"--> \S*definitions\.json:\d+:\d+", done.stderr), done.stderr
    assert 'allow_invisible = ["description"]` in `[verbs.echo]` of tools.toml' in done.stderr, done.stderr
    definitions = (policy / "definitions.json").read_text()
    assert not unseen(definitions) and "\\u200b\\u202e\\udb40\\udc49" in definitions, definitions
    assert not unseen((policy / "tools.toml").read_text())
    return policy


def test_review_refuses_each_hidden_field_until_a_person_allows_it(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    refused = m1nd("policy", "check", "--gateway", str(policy))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "error: [M018] tool `echo`'s `description`" in refused.stdout, refused.stdout
    assert f"{policy}/definitions.json:" in refused.stdout, refused.stdout

    tools = policy / "tools.toml"
    text = tools.read_text()
    allowances = {
        "[verbs.echo]\n": '["title", "description", "inputSchema", "outputSchema", "annotations"]',
        "[prompts.greet]\n": '["title", "description", "arguments"]',
        f'[resources."{URI}"]\n': '["title", "description"]',
    }
    for header, keys in allowances.items():
        assert header in text, text
        text = text.replace(header, f"{header}allow_invisible = {keys}\n", 1)
    tools.write_text(text.replace('["title", "description", "arguments"]', '["title", "description"]'))
    still = m1nd("policy", "check", "--gateway", str(policy))
    assert still.returncode == 1 and "prompt `greet`'s `arguments`" in still.stdout, still.stdout
    assert still.stdout.count("error: [M018]") == 1, "an allowance covers its own entry and field only"
    tools.write_text(text)
    checked = m1nd("policy", "check", "--gateway", str(policy))
    assert checked.returncode == 0, checked.stdout + checked.stderr


async def exercise(session: Any) -> dict[str, Any]:
    """Everything a client gets from the gateway, as JSON."""
    tools = await session.list_tools()
    called = await session.call_tool("echo", {"text": "hi"})
    prompts = await session.list_prompts()
    prompt = await session.get_prompt("greet", {})
    resources = await session.list_resources()
    read = await session.read_resource(URI)
    got = {name: answer.model_dump(mode="json", by_alias=True) for name, answer in [
        ("tools/list", tools), ("tools/call", called), ("prompts/list", prompts), ("prompts/get", prompt),
        ("resources/list", resources), ("resources/read", read),
    ]}
    assert [t.name for t in tools.tools] == ["echo"], got["tools/list"]
    assert not called.is_error, text_of(called)
    return got


def delivered_nothing_hidden(got: dict[str, Any]) -> None:
    assert hidden_in(got) == [], hidden_in(got)
    tool = got["tools/list"]["tools"][0]
    assert tool["description"] == f"Echo text.{ESCAPED}", tool
    assert tool["title"] == f"Echo{ESCAPED}", tool
    assert tool["inputSchema"]["properties"]["text"]["description"] == f"What to echo{ESCAPED}", tool
    assert tool["outputSchema"]["properties"]["note"]["description"] == f"A note{ESCAPED}", tool
    called = got["tools/call"]
    assert called["content"][0]["text"] == f"echo {ESCAPED}\n{LAYOUT}", "TAB, LF and CR are kept"
    structured = called["structuredContent"]
    assert structured["note"] == f"note{ESCAPED}" and structured["layout"] == LAYOUT, structured
    assert structured[f"key{ESCAPED}"] == [{"deep": ESCAPED}], structured
    assert called["_meta"]["io.m1nd/escaped"] == 4 * ESCAPED_COUNT, called["_meta"]
    prompt = got["prompts/get"]
    assert prompt["messages"][0]["content"]["text"] == f"Hello{ESCAPED}\n{LAYOUT}", prompt
    assert prompt["_meta"]["io.m1nd/escaped"] == 2 * ESCAPED_COUNT, prompt
    assert got["prompts/list"]["prompts"][0]["description"] == f"Greets.{ESCAPED}"
    assert got["resources/list"]["resources"][0]["description"] == f"A note.{ESCAPED}"
    assert got["resources/read"]["contents"][0]["text"] == f"file {ESCAPED}\n{LAYOUT}"


async def test_nothing_hidden_reaches_a_client_over_stdio(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    async with gateway(policy, UPSTREAM, log_dir=tmp_path) as gw:
        delivered_nothing_hidden(await exercise(gw.session))
        assert "invisible or control characters" in gw.stderr(), gw.stderr()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_nothing_hidden_reaches_a_client_over_http(tmp_path: Path, mode: str) -> None:
    policy = imported(tmp_path)
    command = [str(m1nd_bin()), "gateway", "--policy", str(policy), "--http", "127.0.0.1:0", "--", *UPSTREAM]
    process, url = start_http(command, tmp_path / "gateway-http.stderr")
    try:
        async with Client(url, mode=mode, cache=None) as c:
            delivered_nothing_hidden(await exercise(c))
    finally:
        process.terminate()
        process.wait(timeout=10)

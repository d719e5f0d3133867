"""The client configurations in docs/guide/src/connecting-an-agent.md, each launched as written.

Every `json` and `toml` block of that page is parsed, and so is the README's configuration block. Each server entry in it is started exactly
as the entry says, with two substitutions only: a `command` whose file name is `m1nd` becomes the
binary under test, and `/path/to/project` a fresh directory holding a demo store. The official MCP
Python SDK is the client: `stdio_client` for an entry with a `command`, `streamable_http_client`
for one with a `url`, against `m1nd serve --http` started as each `m1nd serve --http` line of the
page's `sh` blocks says (on a free port instead of the page's). For every entry the test lists the
tools, opens the cockpit, and checks that a read-only entry (or server) hides and refuses a write
while a read-write one offers it. It also checks the page covers stdio, read-only and HTTP in
each of the three shapes clients use, so a snippet cannot be dropped unnoticed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import tomllib
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

import harness
import http_harness

pytestmark = pytest.mark.anyio

PAGE = harness.ROOT / "docs/guide/src/connecting-an-agent.md"
README = harness.ROOT / "README.md"
SHAPES = ("mcpServers", "servers", "mcp_servers")
PROJECT = "/path/to/project"
# A verb that writes, taken from the policy's deny list, and arguments it accepts.
WRITE_VERB = "memorize"
WRITE_ARGS = {"node_label": "tests", "claims": [{"label": "written by a client the page configured"}], "agent_id": harness.AGENT_ID}
FENCE = re.compile(r"^```(?P<lang>[a-z]*)\n(?P<body>.*?)^```$", re.M | re.S)
HEADING = re.compile(r"^## (?P<title>.+)$", re.M)


@dataclass(frozen=True)
class Entry:
    """One server entry of one configuration block."""

    section: str  # the page's `##` heading above the block
    shape: str  # mcpServers (JSON), servers (VS Code's JSON) or mcp_servers (Codex's TOML)
    name: str
    config: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.section}:{self.name}"

    @property
    def transport(self) -> str:
        if "url" in self.config:
            return "http"
        if "command" in self.config:
            return "stdio"
        raise AssertionError(f"{self.id}: neither a command nor a url: {self.config}")

    @property
    def read_only(self) -> bool:
        return "--read-only" in self.config.get("args", [])


def _blocks(path: Path = PAGE) -> list[tuple[str, str, str]]:
    """(section, language, body) of every fenced block of a markdown file."""
    text = path.read_text()
    headings = [(m.start(), m["title"]) for m in HEADING.finditer(text)]
    out = []
    for m in FENCE.finditer(text):
        section = next((title for at, title in reversed(headings) if at < m.start()), "(top)")
        out.append((section, m["lang"], m["body"]))
    return out


def _parse(section: str, lang: str, body: str) -> list[Entry]:
    parsed = json.loads(body) if lang == "json" else tomllib.loads(body)
    shapes = [key for key in SHAPES if key in parsed]
    assert len(shapes) == 1 and len(parsed) == 1, f"{section}: a block holds one top-level key of a known shape"
    return [Entry(section, shapes[0], name, config) for name, config in parsed[shapes[0]].items()]


def _entries() -> list[Entry]:
    """Every server entry of the page (each json and toml block is one configuration), then those
    of the README's configuration blocks (its other blocks are not configurations)."""
    entries = []
    for section, lang, body in _blocks():
        if lang in ("json", "toml"):
            entries += _parse(section, lang, body)
    for section, lang, body in _blocks(README):
        if lang in ("json", "toml") and any(f'"{key}"' in body or f"[{key}." in body for key in SHAPES):
            entries += _parse(f"README {section}", lang, body)
    return entries


def _serve_lines() -> list[list[str]]:
    """Each `m1nd serve --http …` line of the page's sh blocks, as argv."""
    lines = []
    for _, lang, body in _blocks():
        if lang == "sh":
            for line in body.splitlines():
                argv = shlex.split(line, comments=True)
                if argv[:2] == ["m1nd", "serve"] and "--http" in argv:
                    lines.append(argv)
    return lines


ENTRIES = _entries()
SERVE_LINES = _serve_lines()


def test_the_page_covers_stdio_read_only_and_http_in_every_shape() -> None:
    assert any(e.section.startswith("README") for e in ENTRIES), "the README's configuration is tested too"
    for shape in SHAPES:
        kinds = {("read-only" if e.read_only else e.transport) for e in ENTRIES if e.shape == shape}
        assert kinds == {"stdio", "read-only", "http"}, f"{shape}: the page's entries cover {sorted(kinds)}"
    sections = {e.section for e in ENTRIES}
    for client in ("Claude Desktop", "Claude Code", "Cursor", "VS Code", "Codex"):
        assert client in sections, f"no configuration under `## {client}`"
    assert sorted("--read-only" in argv for argv in SERVE_LINES) == [False, True], SERVE_LINES


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    harness.init_store(project / ".m1nd")
    return project


def _substitute(value: str, project: Path) -> str:
    return value.replace(PROJECT, str(project))


def _command(written: str) -> str:
    assert Path(written).name == "m1nd", f"the page's command should be m1nd, not {written!r}"
    return str(harness.m1nd_bin())


async def _check_session(session: ClientSession, *, read_only: bool, what: str) -> None:
    """tools/list, the cockpit, and a write: offered and accepted, or hidden and refused."""
    names = {tool.name for tool in await harness.list_all_tools(session)}
    assert "cockpit" in names, f"{what}: tools/list has no cockpit: {sorted(names)}"
    assert WRITE_VERB in harness.denied_tools(), f"{WRITE_VERB} should be a verb that writes"
    _, view = await harness.cockpit(session)
    assert view["level"] == "root" and view["entries"], f"{what}: the cockpit root: {view}"
    result = await session.call_tool(WRITE_VERB, WRITE_ARGS)
    if read_only:
        assert WRITE_VERB not in names, f"{what}: a read-only session lists {WRITE_VERB}"
        assert result.is_error, f"{what}: a read-only session accepted {WRITE_VERB}: {harness.text_of(result)}"
        assert "read-only" in harness.text_of(result), harness.text_of(result)
    else:
        assert WRITE_VERB in names, f"{what}: a read-write session should list {WRITE_VERB}"
        assert not result.is_error, f"{what}: {WRITE_VERB} was refused: {harness.text_of(result)}"


def _client_dir(project: Path) -> Path:
    """A directory of the client's own, as a client starts servers in: not the project's."""
    client = project.parent / "client"
    client.mkdir(exist_ok=True)
    return client


@asynccontextmanager
async def _stdio(entry: Entry, project: Path) -> AsyncIterator[ClientSession]:
    config = entry.config
    params = StdioServerParameters(
        command=_command(config["command"]),
        args=[_substitute(a, project) for a in config.get("args", [])],
        env={k: _substitute(v, project) for k, v in config.get("env", {}).items()} or None,
        cwd=str(_client_dir(project)),
    )
    with open(project.parent / f"{entry.name}.stderr", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


STDIO = [e for e in ENTRIES if e.transport == "stdio"]
HTTP = [e for e in ENTRIES if e.transport == "http"]


@pytest.mark.parametrize("entry", STDIO, ids=[e.id for e in STDIO])
async def test_a_stdio_entry_starts_the_server_it_describes(
    entry: Entry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The page says an exported M1ND_READ_ONLY does not reach a server a client starts: the
    # SDK passes the server an environment of its own, so a read-write entry stays read-write.
    monkeypatch.setenv("M1ND_READ_ONLY", "1")
    project = _project(tmp_path)
    async with _stdio(entry, project) as session:
        await _check_session(session, read_only=entry.read_only, what=entry.id)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _with_port(url: str, port: int) -> str:
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1", f"the page's HTTP entries reach the loopback server: {url}"
    return urlunsplit(parts._replace(netloc=f"{parts.hostname}:{port}"))


@pytest.mark.parametrize("argv", SERVE_LINES, ids=[" ".join(a[1:]) for a in SERVE_LINES])
@pytest.mark.parametrize("entry", HTTP, ids=[e.id for e in HTTP])
async def test_an_http_entry_reaches_the_server_the_page_starts(
    entry: Entry, argv: list[str], tmp_path: Path
) -> None:
    project = _project(tmp_path)
    port = _free_port()
    args = [_substitute(a, project) for a in argv[1:]]
    at = args.index("--http") + 1
    written = urlsplit(f"http://{args[at]}")
    assert (written.hostname, written.port) == ("127.0.0.1", urlsplit(entry.config["url"]).port), (
        f"{entry.id}: the entry's url and the page's server disagree: {entry.config['url']} vs {args[at]}"
    )
    args[at] = f"127.0.0.1:{port}"
    server = _start(project, args)
    try:
        async with streamable_http_client(_with_port(entry.config["url"], port)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await _check_session(session, read_only="--read-only" in args, what=f"{entry.id} ({' '.join(argv)})")
    finally:
        http_harness.stop(server)


def _start(project: Path, args: list[str]) -> http_harness.HttpServer:
    """`m1nd ARGS` as the page writes it (the port and the project substituted)."""
    env = {k: v for k, v in os.environ.items() if k not in ("M1ND_READ_ONLY", "M1ND_HTTP_TOKEN")}
    return http_harness.launch(args, project.parent / "serve-http.stderr", env=env)

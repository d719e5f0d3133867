"""End to end: the official MCP Python SDK against examples/rmcp-guarded, an rmcp server guarded in
process by m1nd-guard, over stdio and over Streamable HTTP (both of the SDK's connect modes).

The example's policy (examples/rmcp-guarded/policy) declares `list_notes` (its `folder` pinned to
`inbox` or `archive`), `read_note` and `write_note`, the last denied to read-only sessions. What a
client sees and what is refused is read from those files, not from the server's code.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
import tomllib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import http_harness
import procgroup  # tests/lib, put on the path by http_harness
from harness import ROOT, text_of
from http_harness import MODES, HttpServer

pytestmark = pytest.mark.anyio

EXAMPLE = ROOT / "examples" / "rmcp-guarded"
PACKAGE = "m1nd-example-rmcp-guarded"
_ADDRESS = re.compile(r"rmcp-guarded: serving MCP on http://(?P<addr>\S+)/mcp")
START_TIMEOUT_S = 30


def _policy(name: str) -> dict[str, Any]:
    with open(EXAMPLE / "policy" / name, "rb") as f:
        return tomllib.load(f)


DECLARED = set(_policy("tools.toml")["verbs"])
DENIED = set(_policy("read_only_denied.toml")["tools"])
FOLDERS = _policy("tools.toml")["verbs"]["list_notes"]["pins"]["folder"]["allowed"]


@pytest.fixture(scope="module")
def binary() -> Path:
    """The example's binary: `$M1ND_RMCP_GUARDED_BIN` (run.sh builds it), else built here."""
    given = os.environ.get("M1ND_RMCP_GUARDED_BIN")
    if given:
        return Path(given)
    subprocess.run(["cargo", "build", "-p", PACKAGE], cwd=ROOT, check=True, stdin=subprocess.DEVNULL)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return (target if target.is_absolute() else ROOT / target) / "debug" / PACKAGE


@asynccontextmanager
async def stdio(binary: Path, tmp_path: Path, *args: str) -> AsyncIterator[tuple[ClientSession, Any]]:
    """A session with the example over stdio, and its `initialize` result."""
    params = StdioServerParameters(command=str(binary), args=list(args), cwd=str(tmp_path))
    with open(tmp_path / "stdio.stderr", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                yield session, await session.initialize()


@contextmanager
def http(binary: Path, tmp_path: Path, *args: str) -> Iterator[HttpServer]:
    """The example on `--http 127.0.0.1:0`, stopped (its whole process group) afterwards."""
    stderr_path = tmp_path / f"http-{time.monotonic_ns()}.stderr"
    with open(stderr_path, "wb") as errlog:
        command = [str(binary), "--http", "127.0.0.1:0", *args]
        process = procgroup.spawn(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog)
    server = None
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while server is None and time.monotonic() < deadline:
            found = _ADDRESS.search(stderr_path.read_text(errors="replace"))
            if found:
                host, _, port = found["addr"].rpartition(":")
                server = HttpServer(process, host, int(port), stderr_path)
            elif process.poll() is not None:
                raise RuntimeError(f"the example exited {process.returncode}: {stderr_path.read_text()}")
            else:
                time.sleep(0.02)
        if server is None:
            raise RuntimeError(f"the example printed no address within {START_TIMEOUT_S}s")
        yield server
    finally:
        procgroup.stop(process)


def _names(tools: list[Any]) -> set[str]:
    return {t.name for t in tools}


def _refused(result: Any, *parts: str) -> None:
    said = text_of(result)
    assert result.is_error, f"not refused: {said}"
    for part in parts:
        assert part in said, f"{part!r} missing from {said!r}"


async def _read_write_session(c: Any) -> None:
    """Everything declared is listed and a write lands; what the policy forbids is refused."""
    tools = (await c.list_tools()).tools
    assert _names(tools) == DECLARED
    by_name = {t.name: t for t in tools}
    assert by_name["write_note"].annotations.read_only_hint is False, "the deny list lowers the hint"
    assert by_name["list_notes"].input_schema["properties"]["folder"]["enum"] == FOLDERS
    wrote = await c.call_tool("write_note", {"folder": "inbox", "name": "n1", "text": "hello"})
    assert not wrote.is_error, text_of(wrote)
    read = await c.call_tool("Read-Note", {"folder": "inbox", "name": "n1"})
    assert text_of(read) == "hello", "a client spelling folds to the declared tool"
    listed = await c.call_tool("list_notes", {"folder": "inbox"})
    assert text_of(listed) == "inbox: [n1]"
    _refused(await c.call_tool("list_notes", {"folder": "secrets"}), "`folder` is pinned to", "got `secrets`")
    _refused(
        await c.call_tool("read_note", {"folder": "inbox", "name": "n1", "nmae": "x"}),
        "`read_note` takes no argument `nmae` in tools.toml; did you mean `name`?",
    )
    _refused(await c.call_tool("read_note", {"folder": "inbox"}), "`read_note` needs the argument `name`")
    _refused(await c.call_tool("delete_everything", {}), "unknown tool `delete_everything`")


async def _read_only_session(c: Any) -> None:
    """The writes are hidden and refused before they reach the server: nothing was written."""
    tools = (await c.list_tools()).tools
    assert _names(tools) == DECLARED - DENIED
    for name in DENIED:
        _refused(
            await c.call_tool(name, {"folder": "inbox", "name": "n2", "text": "sneaky"}),
            f"`{name}` is refused",
            "attached read-only",
            "read_only_denied.toml",
        )
    listed = await c.call_tool("list_notes", {"folder": "inbox"})
    assert text_of(listed) == "inbox: []", "a refused write never reached the server"


async def test_stdio_read_write(binary: Path, tmp_path: Path) -> None:
    async with stdio(binary, tmp_path) as (session, init):
        attested = (init.meta or {}).get("io.m1nd/attestation")
        assert isinstance(attested, dict), init.meta
        assert re.fullmatch(r"[0-9a-f]{64}", attested["policy"]) and attested["mode"] == "read-write"
        assert re.fullmatch(r"[0-9a-f]{64}", attested["definitions"])
        await _read_write_session(session)


async def test_stdio_read_only(binary: Path, tmp_path: Path) -> None:
    async with stdio(binary, tmp_path, "--read-only") as (session, init):
        assert init.meta["io.m1nd/attestation"]["mode"] == "read-only"
        assert init.server_info.title.endswith("(read-only)"), init.server_info
        assert "Mode: read-only" in (init.instructions or "")
        await _read_only_session(session)


@pytest.mark.parametrize("mode", MODES)
async def test_http_read_write(binary: Path, tmp_path: Path, mode: str) -> None:
    with http(binary, tmp_path) as server:
        async with http_harness.client(server, mode) as c:
            await _read_write_session(c)


@pytest.mark.parametrize("mode", MODES)
async def test_http_read_only(binary: Path, tmp_path: Path, mode: str) -> None:
    with http(binary, tmp_path, "--read-only") as server:
        async with http_harness.client(server, mode) as c:
            await _read_only_session(c)


def test_an_unknown_argument_is_a_usage_error(binary: Path) -> None:
    done = subprocess.run([str(binary), "--bogus"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "unknown argument `--bogus`" in done.stderr, done.stderr

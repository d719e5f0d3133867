"""Shared helpers for the end-to-end suite and the stdio bench.

Everything here talks to a real `m1nd serve` child process through the official MCP Python SDK
(`mcp.client.stdio.stdio_client` + `mcp.ClientSession`). Nothing in this file knows how the
server is written: expectations come from the policy files under `policy/`.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import shutil
import subprocess
import tomllib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import PaginatedRequestParams

import pg_store

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "policy"
SCHEMA = "m1nd-cockpit-v1"
MENU_SIG = re.compile(r"^mc_[0-9a-f]{8}$")
AGENT_ID = "e2e-python-sdk"
_SERVERS = itertools.count(1)


def debian_program(name: str, found: str | None = None) -> str:
    """The path of Debian's `name` (`found`, else looked up on PATH). `.ci/run` installs every one
    the suites use, so without it a test fails under CI (`CI` set) and is skipped elsewhere."""
    found = found or shutil.which(name)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed; .ci/run installs Debian's {name}")
        pytest.skip(f"{name} is not installed (apt-get install {name})")
    return found


def m1nd_bin() -> Path:
    """The server binary: `$M1ND_BIN`, or `target/debug/m1nd`; relative paths are from the repo root."""
    path = Path(os.environ.get("M1ND_BIN", "target/debug/m1nd"))
    if not path.is_absolute():
        path = ROOT / path
    if not path.is_file():
        raise FileNotFoundError(f"m1nd binary not found at {path}; build it with `cargo build -p m1nd` or set M1ND_BIN")
    return path


def _toml(name: str) -> dict[str, Any]:
    with open(POLICY / name, "rb") as f:
        return tomllib.load(f)


def negative_default() -> str:
    """The on-request-only sentence, read from policy/cockpit.toml."""
    return _toml("cockpit.toml")["negative_default"]


def denied_tools() -> list[str]:
    """READ_ONLY_DENIED_TOOLS, read from policy/read_only_denied.toml."""
    return list(_toml("read_only_denied.toml")["tools"])


def human_only_tools() -> list[str]:
    """The verbs only the human performs, read from policy/human_only.toml."""
    return list(_toml("human_only.toml")["verbs"])


def policy_digest() -> str:
    """The repository policy's digest, as `m1nd policy digest` computes it from policy/."""
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "digest", str(POLICY)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        raise RuntimeError(f"m1nd policy digest failed ({done.returncode}):\n{done.stderr}")
    return done.stdout.strip()


def init_store(store: Path) -> Path:
    """Seed a demo store with `m1nd init --demo --store STORE` (a directory or a PostgreSQL location)."""
    done = subprocess.run(
        [str(m1nd_bin()), "init", "--demo", "--store", str(store)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        raise RuntimeError(f"m1nd init --demo failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return store


def store_digest(store: Path) -> dict[str, str]:
    """sha256 of every file under the store, by relative path (so added or removed files show too);
    for a PostgreSQL store, a digest of every table's rows."""
    if isinstance(store, pg_store.PgLocation):
        return pg_store.digest(store)
    return {
        path.relative_to(store).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(store.rglob("*"))
        if path.is_file()
    }


def normalize(name: str) -> str:
    """A verb name as the guard compares it: trimmed, `m1nd.`/`m1nd_` stripped, lower case."""
    name = name.strip().lower()
    for prefix in ("m1nd.", "m1nd_"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def text_of(result: Any) -> str:
    """The text blocks of a CallToolResult, joined."""
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


@dataclass
class Server:
    session: ClientSession
    instructions: str | None
    stderr_path: Path
    meta: dict[str, Any] | None = None


@asynccontextmanager
async def serve(
    store: Path, *, read_only: bool = False, env: dict[str, str] | None = None, log_dir: Path | None = None
) -> AsyncIterator[Server]:
    """Start `m1nd serve --store DIR [--read-only]` and yield an initialized session.

    The server's stderr goes to a file beside the store; if anything inside fails, its tail is
    attached to the exception.
    """
    args = ["serve", "--store", str(store)]
    if read_only:
        args.append("--read-only")
    log_dir = log_dir or store.parent
    stderr_path = log_dir / f"serve-{next(_SERVERS)}.stderr"
    params = StdioServerParameters(command=str(m1nd_bin()), args=args, env=env, cwd=str(log_dir))
    with open(stderr_path, "w") as errlog:
        try:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    yield Server(session, init.instructions, stderr_path, init.meta)
        except BaseException as e:
            errlog.flush()
            tail = stderr_path.read_text(errors="replace")[-4000:]
            if tail.strip() and hasattr(e, "add_note"):
                e.add_note(f"m1nd serve {' '.join(args)} stderr:\n{tail}")
            raise


async def list_all_tools(session: ClientSession) -> list[Any]:
    """Every tool, following pagination."""
    tools: list[Any] = []
    cursor = None
    while True:
        page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


async def cockpit(
    session: ClientSession, select: str | int | None = None, seen_store_version: int | None = None
) -> tuple[Any, dict[str, Any]]:
    """Call the `cockpit` tool; return the raw result and its structured JSON (schema checked)."""
    arguments: dict[str, Any] = {"agent_id": AGENT_ID}
    if select is not None:
        arguments["select"] = select
    if seen_store_version is not None:
        arguments["seen_store_version"] = seen_store_version
    result = await session.call_tool("cockpit", arguments)
    if result.is_error:
        raise AssertionError(f"cockpit {arguments} failed: {text_of(result)}")
    view = result.structured_content
    if not isinstance(view, dict):
        raise AssertionError(f"cockpit {arguments}: no structured content; text was:\n{text_of(result)}")
    if view.get("schema") != SCHEMA:
        raise AssertionError(f"cockpit {arguments}: schema is {view.get('schema')!r}, expected {SCHEMA!r}")
    return result, view


def entry(view: dict[str, Any], number: str) -> dict[str, Any]:
    """The entry of `view` whose select is `number@menu_sig`."""
    wanted = f"{number}@{view['menu_sig']}"
    for e in view.get("entries", []):
        if e.get("select") == wanted:
            return e
    raise AssertionError(f"no entry {wanted!r} at level {view.get('level')!r}: {view.get('entries')}")


def first_entry(view: dict[str, Any]) -> dict[str, Any]:
    entries = view.get("entries") or []
    if not entries:
        raise AssertionError(f"level {view.get('level')!r} has no entries: {view}")
    return entries[0]

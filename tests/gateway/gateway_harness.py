"""Shared by the gateway suites: start `m1nd gateway` in front of a real upstream and drive it with
the official MCP Python SDK, and take byte-level snapshots of what the upstream could write.

Expectations come from the policy files (tools.toml, read_only_denied.toml), never from a list
written here.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
# Every long-lived process a gateway test starts is a process group, stopped whole: a gateway
# and the upstreams it started, a wrapper and its child (tests/lib/procgroup.py).
from procgroup import spawn, stop  # noqa: E402
POLICIES = HERE / "policies"
_RUNS = itertools.count(1)


def m1nd_bin() -> Path:
    path = Path(os.environ.get("M1ND_BIN", "target/debug/m1nd"))
    if not path.is_absolute():
        path = ROOT / path
    if not path.is_file():
        raise FileNotFoundError(f"m1nd binary not found at {path}; build it with `cargo build -p m1nd` or set M1ND_BIN")
    return path


def m1nd(*args: str) -> subprocess.CompletedProcess[str]:
    """`m1nd ARGS...` run to completion (at most 60 s), its output captured as text."""
    return subprocess.run([str(m1nd_bin()), *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


HTTP_ADDRESS = re.compile(r"m1nd: serving MCP on http://(?P<addr>\S+)/mcp")


def start_http(
    command: list[str], stderr_path: Path, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Start `command`, an m1nd serving Streamable HTTP (`--http 127.0.0.1:0`), with its stderr in
    `stderr_path` (and `env`, if given); wait up to 30 s for the address it prints. The process, the
    leader of a process group of its own (end it with `stop`), and its /mcp URL."""
    with open(stderr_path, "wb") as errlog:
        process = spawn(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog, env=env)
    deadline = time.monotonic() + 30
    while not (found := HTTP_ADDRESS.search(stderr_path.read_text(errors="replace"))):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise RuntimeError(f"{' '.join(command)} printed no address: {stderr_path.read_text(errors='replace')}")
        time.sleep(0.02)
    return process, f"http://{found['addr']}/mcp"


def venv_bin(name: str) -> str:
    """A console script installed in the venv running this suite (mcp-server-git)."""
    return str(Path(sys.executable).parent / name)


def policy(name: str | Path) -> dict[str, Any]:
    """The reviewed policy `name` (or the policy directory at an absolute path): its verbs, its deny list
    (`denied`, and the `status_only` verbs), and the prompts, resources and templates it declares (name, URI or URI template → its entry)."""
    with open(POLICIES / name / "tools.toml", "rb") as f:
        tools = tomllib.load(f)
    with open(POLICIES / name / "read_only_denied.toml", "rb") as f:
        deny = tomllib.load(f)
    denied = deny["tools"]
    status_only = list(deny.get("status_only", {}))
    surfaces = {kind: tools.get(kind, {}) for kind in ("prompts", "resources", "templates")}
    return {"verbs": tools["verbs"], "denied": denied, "status_only": status_only, **surfaces}


#: The hints MCP defines, as the SDK names them.
HINTS = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")


def hints_of(tool: Any) -> dict[str, bool | None]:
    """A listed tool's hints, `None` where it gives none."""
    return {hint: getattr(tool.annotations, hint, None) if tool.annotations else None for hint in HINTS}


def served_hints(upstream_tool: Any, reviewed: dict[str, Any], verb: str) -> dict[str, bool | None]:
    """The hints the gateway lists for `verb` (docs/guide/src/gateway.md): the upstream's as given,
    but `readOnlyHint: false` for a tool the deny list denies or makes status-only."""
    hints = hints_of(upstream_tool)
    if verb in reviewed["denied"] or verb in reviewed["status_only"]:
        hints["read_only_hint"] = False
    return hints


async def tools_of(command: list[str]) -> dict[str, Any]:
    """An upstream's own tools/list, straight from it, by name."""
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params, errlog=subprocess.DEVNULL) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return {t.name: t for t in (await session.list_tools()).tools}


def with_pins(name: str, dest: Path, arguments: list[str], under: Path) -> Path:
    """A copy of the reviewed policy whose every verb pins each of `arguments` it takes under `under`."""
    shutil.copytree(POLICIES / name, dest)
    verbs = policy(name)["verbs"]
    with open(dest / "tools.toml", "a") as f:
        for verb, definition in verbs.items():
            takes = definition.get("requires", []) + definition.get("accepts", [])
            pinned = [a for a in arguments if a in takes]
            if pinned:
                f.write(f"\n[verbs.{verb}.pins]\n")
                f.writelines(f'{a} = {{ under = ["{under}"] }}\n' for a in pinned)
    return dest


def set_mode(policy_dir: Path, mode: str) -> Path:
    """Change an imported policy's session mode (an import writes `mode = "read-only"`), as a person
    who reviewed it would."""
    tools = policy_dir / "tools.toml"
    text = tools.read_text()
    assert 'mode = "read-only"' in text, f"{tools} declares no imported mode"
    tools.write_text(text.replace('mode = "read-only"', f'mode = "{mode}"', 1))
    return policy_dir


def filesystem_server(root: Path) -> list[str]:
    """@modelcontextprotocol/server-filesystem (installed by run.sh with npm ci), serving `root`."""
    script = HERE / "npm" / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
    if not script.is_file():
        raise FileNotFoundError(f"{script} is missing; run tests/gateway/run.sh, which installs it with npm ci")
    return ["node", str(script), str(root)]


def name_forms(verb: str) -> list[str]:
    """Every spelling of a verb that the guard folds to it: prefixes, case, surrounding space."""
    return [verb, verb.upper(), f"m1nd.{verb}", f"m1nd_{verb}", f"M1ND.{verb.title()}", f"  {verb}\t", verb.swapcase()]


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every file under root (objects, refs, the index and the worktree), by path."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            out[path.relative_to(root).as_posix()] = "link:" + os.readlink(path)
        elif path.is_file():
            out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


@dataclass
class Gateway:
    session: ClientSession
    stderr_path: Path
    # The `initialize` result (its `_meta` holds the attestation).
    initialized: Any = None

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


def pass_env(args: list[str], *names: str) -> list[str]:
    """`args` with `--upstream-env NAME` for each name before the `--` that starts the upstream: a
    started upstream sees only the variables named so (besides HOME, PATH and the like)."""
    if "--" not in args:
        return list(args)
    at = args.index("--")
    flags = [part for name in names for part in ("--upstream-env", name)]
    return [*args[:at], *flags, *args[at:]]


@asynccontextmanager
async def gateway(
    policy_dir: Path,
    upstream: list[str],
    *,
    read_only: bool = False,
    log_dir: Path,
    extra: list[str] | None = None,
    message_handler: Any = None,
    env: dict[str, str] | None = None,
    upstream_env: tuple[str, ...] = (),
    callbacks: dict[str, Any] | None = None,
) -> AsyncIterator[Gateway]:
    """`m1nd gateway --policy DIR [--read-only] -- UPSTREAM...`, initialized; the variables named in
    `upstream_env` are passed on to the upstream. `callbacks` are the client session's
    (`sampling_callback`, `elicitation_callback`, `list_roots_callback`): each one given is a client
    capability the client offers."""
    args = ["gateway", "--policy", str(policy_dir)] + (["--read-only"] if read_only else []) + (extra or [])
    args += [part for name in upstream_env for part in ("--upstream-env", name)]
    if upstream:
        args += ["--", *upstream]
    async with m1nd_gateway(args, log_dir=log_dir, message_handler=message_handler, env=env, callbacks=callbacks) as gw:
        yield gw


@asynccontextmanager
async def m1nd_gateway(
    args: list[str],
    *,
    log_dir: Path,
    message_handler: Any = None,
    env: dict[str, str] | None = None,
    callbacks: dict[str, Any] | None = None,
) -> AsyncIterator[Gateway]:
    """`m1nd ARGS...` (a gateway of any shape) over stdio, initialized; its stderr is kept in `log_dir`
    and shown with any failure."""
    stderr_path = log_dir / f"gateway-{next(_RUNS)}.stderr"
    params = StdioServerParameters(command=str(m1nd_bin()), args=args, cwd=str(log_dir), env=env)
    with open(stderr_path, "w") as errlog:
        try:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, message_handler=message_handler, **(callbacks or {})) as session:
                    initialized = await session.initialize()
                    yield Gateway(session, stderr_path, initialized)
        except BaseException as e:
            errlog.flush()
            tail = stderr_path.read_text(errors="replace")[-4000:]
            if tail.strip() and hasattr(e, "add_note"):
                e.add_note(f"m1nd {' '.join(args)} stderr:\n{tail}")
            raise

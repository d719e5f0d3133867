"""The MCP Inspector's CLI against `m1nd serve`: what it lists, and how the cockpit answers
the references it sends. Prints every call and its answer, and exits non-zero on the first
expectation that fails.

Expectations come from what a client sees (the Inspector's JSON output and exit code) and from
the policy files, never from the server's source.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from procgroup import spawn, stop  # noqa: E402

TIMEOUT_S = 60


def store_digest(store: Path) -> dict[str, str]:
    return {
        p.relative_to(store).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(store.rglob("*"))
        if p.is_file()
    }


class Inspector:
    def __init__(self, launcher: str, server: str, store: Path) -> None:
        self.base = [launcher, "--cli", server, "serve", "--store", str(store)]

    def run(self, *args: str) -> tuple[int, Any, str]:
        """Run one Inspector CLI call: its exit code, its stdout as JSON and its stderr."""
        shown = " ".join(["mcp-inspector --cli m1nd serve", *args])
        print(f"$ {shown}")
        # The Inspector (node) starts `m1nd serve` as its child: both run in one process group,
        # ended whole however the call ends, a timeout included.
        process = spawn(
            [*self.base, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            stdout, stderr = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            stop(process)
            fail(f"{shown}: no answer within {TIMEOUT_S} s")
        stop(process)
        try:
            answer = json.loads(stdout)
        except json.JSONDecodeError:
            fail(f"{shown}: stdout is not JSON (exit {process.returncode}):\n{stdout}\n{stderr}")
        return process.returncode, answer, stderr

    def cockpit(self, select: str) -> tuple[int, dict[str, Any]]:
        code, answer, _ = self.run("--method", "tools/call", "--tool-name", "cockpit", "--tool-arg", f"select={select}")
        text = " ".join(c.get("text", "") for c in answer.get("content", []))
        summary = answer.get("structuredContent", {}).get("level") if not answer.get("isError") else text
        print(f"  exit {code}, isError {answer.get('isError')}: {summary}")
        return code, answer


def fail(message: str) -> None:
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def expect(condition: bool, message: str) -> None:
    if not condition:
        fail(message)


def main() -> None:
    launcher, server = sys.argv[1], os.environ["M1ND_BIN"]
    with tempfile.TemporaryDirectory(prefix="m1nd-inspector-") as tmp:
        store = Path(tmp) / "store"
        subprocess.run([server, "init", "--demo", "--store", str(store)], check=True, capture_output=True, timeout=60)
        before = store_digest(store)
        inspector = Inspector(launcher, server, store)

        code, listed, _ = inspector.run("--method", "tools/list")
        expect(code == 0, f"tools/list exited {code}")
        tools = {t["name"]: t for t in listed["tools"]}
        print(f"  exit 0: {len(tools)} tools")
        select = tools["cockpit"]["inputSchema"]["properties"]["select"]
        expect(tools["cockpit"]["inputSchema"]["type"] == "object", "the cockpit schema is not an object at the top")
        expect(
            {s["type"] for s in select["oneOf"]} == {"string", "integer"},
            f"select is not a string or an integer: {select}",
        )
        missing = [name for name, t in tools.items() if "agent_id" not in t["inputSchema"]["properties"]]
        expect(not missing, f"tools whose schema lacks agent_id: {missing}")

        # `select=3` arrives as the JSON number 3 and means what "3" means.
        code, three = inspector.cockpit("3")
        expect(code == 0 and three.get("isError") is False, f"select=3 was refused: {three}")
        expect(three["structuredContent"]["level"] == "3", f"select=3 did not open slot 3: {three}")

        # `select=2.1` arrives as a JSON float: refused, in one line that says why and what to send.
        code, float_ = inspector.cockpit("2.1")
        expect(code != 0 and float_.get("isError") is True, f"select=2.1 was answered: {float_}")
        why = " ".join(c["text"] for c in float_["content"])
        expect("got the number 2.1" in why and "as a JSON string" in why, f"the refusal does not say why: {why}")
        expect("\n" not in why, f"the refusal is more than one line: {why!r}")

        # The same reference as a string, as typed, is the item 2.1.
        code, typed = inspector.cockpit('"2.1"')
        expect(code == 0 and typed["structuredContent"]["level"] == "2.1", f'select="2.1" did not open 2.1: {typed}')

        expect(store_digest(store) == before, "the Inspector's calls changed the store")
    print("inspector: ok")


if __name__ == "__main__":
    main()

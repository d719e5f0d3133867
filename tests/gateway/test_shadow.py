"""A shadow policy, not an open door: `m1nd gateway --policy ENFORCED --shadow CANDIDATE --audit FILE`
checks every tools/call against both policies, and the enforced one alone decides. Each call the
candidate would decide differently (forward against refuse, or refused for another reason or code)
gets a `shadow` line in the audit file naming both decisions and both digests; the client's answers
are the enforced policy's, and the tap upstream (tap_server.py) proves that a call only the shadow
would allow never reached it. policies/tap-strict is read-only and drops `echo`'s `note`;
policies/tap is read-write and takes it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from gateway_harness import POLICIES, ROOT, gateway, m1nd_bin, start_http, stop, text_of

pytestmark = pytest.mark.anyio

STRICT, LOOSE, BROKEN = POLICIES / "tap-strict", POLICIES / "tap", POLICIES / "tap-broken"
KEY = "io.m1nd/attestation"


def tap_upstream(tap: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve().parent / "tap_server.py"), str(tap)]


def tapped(tap: Path) -> list[dict[str, Any]]:
    """Every call the upstream received, in order."""
    return [json.loads(line) for line in tap.read_text().splitlines()] if tap.exists() else []


def lines(audit: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in audit.read_text().splitlines()] if audit.exists() else []


def shadow_lines(audit: Path) -> list[dict[str, Any]]:
    return [line for line in lines(audit) if line["decision"] == "shadow"]


def m1nd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(m1nd_bin()), *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )


def digest(policy: Path) -> str:
    done = m1nd("policy", "digest", str(policy))
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def shadowed(shadow: Path, audit: Path) -> list[str]:
    return ["--shadow", str(shadow), "--audit", str(audit)]


async def test_a_write_only_the_shadow_allows_is_refused_recorded_and_never_reaches_the_upstream(
    tmp_path: Path,
) -> None:
    tap, audit, note = tmp_path / "tap.jsonl", tmp_path / "audit.jsonl", tmp_path / "note.txt"
    note.write_text("notes\n")
    target = tmp_path / "written.txt"
    async with gateway(STRICT, tap_upstream(tap), log_dir=tmp_path, extra=shadowed(LOOSE, audit)) as gw:
        write = await gw.session.call_tool("write_note", {"path": str(target), "content": "leak"})
        assert write.is_error and "read-only" in text_of(write), text_of(write)
        echo = await gw.session.call_tool("echo", {"text": "hi", "note": "n"})
        assert echo.is_error and "takes no argument `note`" in text_of(echo), text_of(echo)
        read = await gw.session.call_tool("read_note", {"path": str(note)})
        assert not read.is_error and text_of(read) == "notes\n", text_of(read)
    assert tapped(tap) == [{"tool": "read_note", "arguments": {"path": str(note)}}], "a refused call reached it"
    assert not target.exists()

    strict, loose = digest(STRICT), digest(LOOSE)
    assert strict != loose
    written = lines(audit)
    assert [(line["decision"], line["name"]) for line in written] == [
        ("shadow", "write_note"),
        ("refused", "write_note"),
        ("shadow", "echo"),
        ("refused", "echo"),
        ("forwarded", "read_note"),
        ("answered", "read_note"),
    ], written
    write_line, write_refused, echo_line = written[0], written[1], written[2]
    assert write_line["policy"] == strict and write_line["session"] == "stdio"
    assert write_line["enforced"] == {
        "policy": strict,
        "decision": "refuse",
        "code": write_refused["code"],
        "reason": write_refused["reason"],
    }
    assert write_line["enforced"]["code"] == "guard"
    assert write_line["shadow"] == {"policy": loose, "decision": "forward", "verb": "write_note"}
    assert echo_line["enforced"]["code"] == "undeclared-argument"
    assert echo_line["shadow"] == {"policy": loose, "decision": "forward", "verb": "echo"}
    assert "leak" not in audit.read_text(), "argument values are never written unless asked"


async def test_a_read_the_shadow_would_refuse_is_still_answered_and_the_difference_recorded(tmp_path: Path) -> None:
    tap, audit = tmp_path / "tap.jsonl", tmp_path / "audit.jsonl"
    target = tmp_path / "written.txt"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("echo", {"text": "hi", "note": "n"}),
        ("write_note", {"path": str(target), "content": "allowed"}),
        ("echo", {"text": "plain"}),
    ]
    answers = []
    async with gateway(LOOSE, tap_upstream(tap), log_dir=tmp_path, extra=shadowed(STRICT, audit)) as gw:
        for tool, arguments in calls:
            result = await gw.session.call_tool(tool, arguments)
            answers.append((result.is_error, text_of(result)))
    assert answers == [(False, "hi"), (False, "wrote 7 characters"), (False, "plain")], answers
    assert target.read_text() == "allowed"
    assert [call["tool"] for call in tapped(tap)] == ["echo", "write_note", "echo"]

    # The control: without --shadow the client gets exactly the same answers.
    control = tmp_path / "control"
    control.mkdir()
    async with gateway(LOOSE, tap_upstream(control / "tap.jsonl"), log_dir=control) as gw:
        for (tool, arguments), answer in zip(calls, answers, strict=True):
            result = await gw.session.call_tool(tool, arguments)
            assert (result.is_error, text_of(result)) == answer, tool

    written = lines(audit)
    assert [(line["decision"], line["name"]) for line in written] == [
        ("shadow", "echo"),
        ("forwarded", "echo"),
        ("answered", "echo"),
        ("shadow", "write_note"),
        ("forwarded", "write_note"),
        ("answered", "write_note"),
        ("forwarded", "echo"),
        ("answered", "echo"),
    ], written
    echo, write = written[0], written[3]
    assert echo["enforced"] == {"policy": digest(LOOSE), "decision": "forward", "verb": "echo"}
    assert echo["shadow"]["policy"] == digest(STRICT) and echo["shadow"]["decision"] == "refuse"
    assert echo["shadow"]["code"] == "undeclared-argument" and "`note`" in echo["shadow"]["reason"], echo
    assert write["shadow"]["code"] == "guard" and "read-only" in write["shadow"]["reason"], write


async def test_the_same_decisions_write_no_shadow_line_and_read_only_binds_the_shadow_too(tmp_path: Path) -> None:
    tap, audit = tmp_path / "tap.jsonl", tmp_path / "audit.jsonl"
    target = tmp_path / "written.txt"
    # The same policy in a copy: a different directory, the same decisions.
    same = tmp_path / "same"
    same.mkdir()
    for file in LOOSE.iterdir():
        (same / file.name).write_bytes(file.read_bytes())
    async with gateway(LOOSE, tap_upstream(tap), log_dir=tmp_path, extra=shadowed(same, audit)) as gw:
        assert not (await gw.session.call_tool("echo", {"text": "hi", "note": "n"})).is_error
        assert (await gw.session.call_tool("echo", {})).is_error
        assert (await gw.session.call_tool("no_such_tool", {})).is_error
    assert [line["decision"] for line in lines(audit)] == ["forwarded", "answered", "refused", "refused"]

    # --read-only makes both read-only: the shadow would otherwise forward this write.
    read_only = tmp_path / "read-only.jsonl"
    async with gateway(
        LOOSE, tap_upstream(tap), read_only=True, log_dir=tmp_path, extra=shadowed(same, read_only)
    ) as gw:
        refused = await gw.session.call_tool("write_note", {"path": str(target), "content": "x"})
        assert refused.is_error, text_of(refused)
    assert [line["decision"] for line in lines(read_only)] == ["refused"], lines(read_only)
    assert not target.exists() and [call["tool"] for call in tapped(tap)] == ["echo"]


async def test_the_attestation_names_both_digests(tmp_path: Path) -> None:
    tap, audit = tmp_path / "tap.jsonl", tmp_path / "audit.jsonl"
    async with gateway(STRICT, tap_upstream(tap), log_dir=tmp_path, extra=shadowed(LOOSE, audit)) as gw:
        attested = gw.initialized.meta[KEY]
    assert attested["policy"] == digest(STRICT) and attested["shadow_policy"] == digest(LOOSE), attested
    assert attested["mode"] == "read-only"
    async with gateway(STRICT, tap_upstream(tap), log_dir=tmp_path) as gw:
        assert "shadow_policy" not in gw.initialized.meta[KEY], gw.initialized.meta


@pytest.mark.parametrize(
    ("shadow", "code", "says"),
    [
        (BROKEN, 1, ["the shadow policy", str(BROKEN), "breaks 1 law", "[M002]", "does not start"]),
        (POLICIES / "no-such-policy", 2, ["shadow policy directory", "no-such-policy", "does not exist"]),
        (ROOT / "policy", 2, [str(ROOT / "policy"), "m1nd's own policy, not a gateway policy", "--shadow"]),
    ],
    ids=["breaks-a-law", "missing", "m1nd-policy"],
)
def test_a_bad_shadow_directory_refuses_to_start(tmp_path: Path, shadow: Path, code: int, says: list[str]) -> None:
    tap, audit = tmp_path / "tap.jsonl", tmp_path / "audit.jsonl"
    done = m1nd("gateway", "--policy", str(LOOSE), *shadowed(shadow, audit), "--", *tap_upstream(tap))
    assert done.returncode == code, done.stderr
    for part in says:
        assert part in done.stderr, f"{part!r} missing from {done.stderr}"
    assert not tap.exists() and not audit.exists(), "nothing started"


def test_a_shadow_without_an_audit_file_is_a_usage_error(tmp_path: Path) -> None:
    tap = tmp_path / "tap.jsonl"
    done = m1nd("gateway", "--policy", str(STRICT), "--shadow", str(LOOSE), "--", *tap_upstream(tap))
    assert done.returncode == 2, done.stderr
    assert "--audit" in done.stderr and "required" in done.stderr, done.stderr
    assert not tap.exists()


async def test_over_http_a_write_only_the_shadow_allows_never_reaches_the_upstream(tmp_path: Path) -> None:
    tap, audit, target = tmp_path / "tap.jsonl", tmp_path / "audit.jsonl", tmp_path / "written.txt"
    stderr_path = tmp_path / "gateway-http.stderr"
    command = [str(m1nd_bin()), "gateway", "--policy", str(STRICT), *shadowed(LOOSE, audit), "--http", "127.0.0.1:0"]
    process, url = start_http([*command, "--", *tap_upstream(tap)], stderr_path)
    try:
        async with Client(url, mode="legacy", cache=None) as c:
            write = await c.call_tool("write_note", {"path": str(target), "content": "leak"})
            assert write.is_error and "read-only" in text_of(write), text_of(write)
            echo = await c.call_tool("echo", {"text": "hi"})
            assert not echo.is_error and text_of(echo) == "hi", text_of(echo)
    finally:
        stop(process)
    assert tapped(tap) == [{"tool": "echo", "arguments": {"text": "hi"}}] and not target.exists()
    written = lines(audit)
    assert [line["decision"] for line in written] == ["shadow", "refused", "forwarded", "answered"], written
    line = written[0]
    assert re.fullmatch(r"http:[0-9a-f]{16}", line["session"]), line
    assert line["enforced"]["decision"] == "refuse" and line["enforced"]["code"] == "guard"
    assert line["shadow"] == {"policy": digest(LOOSE), "decision": "forward", "verb": "write_note"}
    assert "shadow policy" in stderr_path.read_text(errors="replace"), "the start names the shadow"

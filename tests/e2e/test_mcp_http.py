"""End to end over Streamable HTTP: the official MCP Python SDK against `m1nd serve --http`.

Both connect modes of the SDK are exercised: `legacy` (initialize, then a session) and
`2026-07-28` (stateless). What HTTP answers is compared with what stdio answers for the same
store, so the transports cannot drift apart. Attack cases use raw HTTP.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

import harness
import http_harness
from harness import serve, text_of
from http_harness import MODES, client, running, stateless_call

pytestmark = pytest.mark.anyio

TOKEN = "e2e-token-0123456789abcdef"


def _tool_dump(tools: list[Any]) -> list[dict[str, Any]]:
    return sorted((t.model_dump(mode="json", exclude_none=True) for t in tools), key=lambda t: t["name"])


def _result_dump(result: Any) -> dict[str, Any]:
    dumped = result.model_dump(mode="json", exclude_none=True, by_alias=True)
    # 2026-07-28 marks a finished result; older revisions have no such field.
    dumped.pop("resultType", None)
    return dumped


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("read_only", [False, True], ids=["normal", "read-only"])
async def test_tools_list_matches_stdio(store: Path, mode: str, read_only: bool) -> None:
    async with serve(store, read_only=read_only) as stdio:
        expected = _tool_dump(await harness.list_all_tools(stdio.session))
    args = ["--read-only"] if read_only else []
    with running(store, args=args) as server:
        async with client(server, mode) as c:
            listed = _tool_dump((await c.list_tools()).tools)
    assert listed == expected, f"{mode}: tools/list over HTTP differs from stdio"
    assert any(t["name"] == "memorize" for t in listed) is not read_only


@pytest.mark.parametrize("mode", MODES)
async def test_cockpit_and_refusals_match_stdio(store: Path, mode: str) -> None:
    before = harness.store_digest(store)
    calls: list[tuple[str, dict[str, Any]]] = [("cockpit", {}), ("cockpit", {"select": "3"}), ("cockpit", {"select": "2.1"})]
    for verb in harness.denied_tools():
        calls += [(verb, {}), (f"m1nd.{verb}", {"action": "status"}), (f"  M1ND_{verb.upper()} ", {})]
    calls += [("persist", {"action": "save"}), ("frobnicate", {}), ("l\u0435arn", {})]
    async with serve(store, read_only=True) as stdio:
        expected = [_result_dump(await stdio.session.call_tool(name, args)) for name, args in calls]
    with running(store, args=["--read-only"]) as server:
        async with client(server, mode) as c:
            got = [_result_dump(await c.call_tool(name, args)) for name, args in calls]
    for (name, args), want, have in zip(calls, expected, got, strict=True):
        assert have == want, f"{mode}: {name!r} {args} answered differently over HTTP"
    refused = [r for (name, _), r in zip(calls, got, strict=True) if name != "cockpit"]
    assert all(r["isError"] for r in refused), "a denied call was not refused over HTTP"
    assert harness.store_digest(store) == before, "a refused call over HTTP changed the store"


@pytest.mark.parametrize("mode", MODES)
async def test_writes_over_http(store: Path, mode: str) -> None:
    with running(store) as server:
        async with client(server, mode) as c:
            status = await c.call_tool("persist", {"action": "status"})
            version = status.structured_content["store_version"]
            wrote = await c.call_tool("memorize", {"node_label": "tests", "claims": [{"label": f"over http ({mode})"}], "expected_store_version": version})
            assert not wrote.is_error, text_of(wrote)
            assert wrote.structured_content["store_version"] == version + 1
            before = harness.store_digest(store)
            stale = await c.call_tool("memorize", {"node_label": "tests", "claims": [{"label": "stale"}], "expected_store_version": version})
            assert stale.is_error and "state moved" in text_of(stale), text_of(stale)
            assert harness.store_digest(store) == before


async def test_read_only_from_environment_over_http(store: Path) -> None:
    env = {"M1ND_READ_ONLY": "1", "PATH": "/usr/bin:/bin"}
    before = harness.store_digest(store)
    with running(store, env=env) as server:
        for mode in MODES:
            async with client(server, mode) as c:
                refused = await c.call_tool("memorize", {"node_label": "tests", "claims": [{"label": "x"}]})
                assert refused.is_error and "read_only_denied.toml" in text_of(refused)
                assert "memorize" not in {t.name for t in (await c.list_tools()).tools}
    assert harness.store_digest(store) == before


# --- attacks ------------------------------------------------------------------------------------


def test_evil_origin_and_foreign_host_get_403(store: Path) -> None:
    before = harness.store_digest(store)
    body, headers = stateless_call("memorize", {"node_label": "tests", "claims": [{"label": "planted"}]})
    with running(store) as server:
        status, _, text = server.post(body, {**headers, "Origin": "http://evil.example"})
        assert status == 403 and b"Origin" in text, (status, text)
        conn = server.connection()
        conn.putrequest("POST", "/mcp", skip_host=True)
        for k, v in {**headers, "Host": "evil.example", "Content-Type": "application/json",
                     "Accept": "application/json, text/event-stream", "Content-Length": str(len(body))}.items():
            conn.putheader(k, v)
        conn.endheaders(body)
        response = conn.getresponse()
        assert response.status == 403 and b"Host" in response.read()
        conn.close()
        # The server keeps serving.
        status, _, text = server.post(*stateless_call("cockpit", {}))
        assert status == 200, text
    assert harness.store_digest(store) == before


def test_oversized_body_gets_413(store: Path) -> None:
    before = harness.store_digest(store)
    body, headers = stateless_call("memorize", {"node_label": "tests", "claims": [{"label": "x" * (2 * 1024 * 1024)}]})
    with running(store) as server:
        status, _, text = server.post(body, headers)
        assert status == 413, (status, text[:200])
        status, _, _ = server.post(*stateless_call("cockpit", {}))
        assert status == 200
    assert harness.store_digest(store) == before


def test_slow_client_is_cut_off_while_others_are_served(store: Path) -> None:
    with running(store, args=["--request-timeout", "1", "--arrival-timeout", "1"]) as server:
        slow = socket.create_connection((server.host, server.port), timeout=15)
        slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
        started = time.monotonic()
        status, _, _ = server.post(*stateless_call("cockpit", {}))
        assert status == 200, "a slow client blocked another"
        leftover = slow.recv(4096)
        while leftover:
            leftover = slow.recv(4096)
        waited = time.monotonic() - started
        slow.close()
        assert waited < 10, f"the slow client was held for {waited:.1f}s"


def test_non_loopback_bind_without_token_is_refused(store: Path) -> None:
    done = subprocess.run(
        [str(harness.m1nd_bin()), "serve", "--store", str(store), "--http", "0.0.0.0:0"],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done
    assert "M1ND_HTTP_TOKEN" in done.stderr and "loopback" in done.stderr, done.stderr


async def test_token_is_required_when_set(store: Path) -> None:
    env = {"M1ND_HTTP_TOKEN": TOKEN, "PATH": "/usr/bin:/bin"}
    with running(store, env=env) as server:
        body, headers = stateless_call("cockpit", {})
        status, response_headers, _ = server.post(body, headers)
        assert status == 401 and response_headers.get("www-authenticate") == "Bearer"
        status, _, _ = server.post(body, {**headers, "Authorization": f"Bearer {TOKEN}"})
        assert status == 200


def test_bad_input_gets_clear_answers(store: Path) -> None:
    before = harness.store_digest(store)
    body, headers = stateless_call("memorize", {"node_label": "tests", "claims": [{"label": "x"}]})
    with running(store) as server:
        status, _, text = server.post(b"{not json", headers)
        assert status == 400 and json.loads(text)["error"]["code"] == -32700, (status, text)
        status, _, text = server.post(b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":5}', headers)
        assert status == 400 and json.loads(text)["error"]["code"] == -32600 and json.loads(text)["id"] == 5, text
        status, _, _ = server.post(body, {**headers, "Content-Type": "text/plain"})
        assert status == 415
        for bad in ({"Mcp-Method": "tools/list"}, {"Mcp-Name": "cockpit"}):
            status, _, text = server.post(body, {**headers, **bad})
            assert status == 400 and json.loads(text)["error"]["code"] == -32020, (bad, status, text)
        status, _, text = server.post(body, {k: v for k, v in headers.items() if k != "Mcp-Method"})
        assert status == 400 and b"Mcp-Method" in text, text
        status, _, _ = server.post(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {"Mcp-Session-Id": "nope"})
        assert status == 404
        status, _, _ = server.post(*stateless_call("cockpit", {}))
        assert status == 200
    assert harness.store_digest(store) == before


# --- load -------------------------------------------------------------------------------------

CLIENTS = 64
ROUNDS = 4
LOAD_TIMEOUT_S = 180


async def test_load_64_clients_mixing_reads_and_writes_lose_nothing(store: Path) -> None:
    """64 SDK clients at once, half in sessions and half stateless, each reading and writing.

    Bounded: 64 × 4 rounds, under a timeout. Every acknowledged write must be counted once by the
    store's version and its memories; refused writes (none expected) would not count.
    """
    with running(store) as server:
        async with client(server, "legacy") as probe:
            start = (await probe.call_tool("boot_memory", {"action": "list"})).structured_content
        acknowledged: list[str] = []

        async def one(n: int) -> None:
            async with client(server, MODES[n % 2]) as c:
                for r in range(ROUNDS):
                    claim = f"load {n}.{r}"
                    wrote = await c.call_tool("memorize", {"node_label": "tests", "claims": [{"label": claim}]})
                    if not wrote.is_error:
                        acknowledged.append(claim)
                    read = await c.call_tool("cockpit", {"select": "6"} if r % 2 else {})
                    assert not read.is_error, text_of(read)

        await asyncio.wait_for(asyncio.gather(*(one(n) for n in range(CLIENTS))), LOAD_TIMEOUT_S)
        async with client(server, "legacy") as probe:
            end = (await probe.call_tool("boot_memory", {"action": "list"})).structured_content
    assert len(acknowledged) == CLIENTS * ROUNDS, f"{CLIENTS * ROUNDS - len(acknowledged)} writes were refused"
    assert end["store_version"] - start["store_version"] == len(acknowledged), (start["store_version"], end["store_version"])
    assert end["numbers"]["memories"] - start["numbers"]["memories"] == len(acknowledged)

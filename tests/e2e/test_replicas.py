"""Two `m1nd serve --http` replicas on one store, behind HAProxy configured by deploy/haproxy.cfg.

The balancer runs the repository's file as it is, with the addresses in its environment (the
file's header says which). The replicas share one SQLite store directory on this machine.
Proven here, through the balancer only:
- stateless (2026-07-28) requests reach both replicas, and each write taken by either is read
  back by both at once;
- legacy sessions (`Mcp-Session-Id`) stay on the replica that opened them;
- `kill -9` of one replica during a burst of writes loses no acknowledged write, only requests
  in flight on it fail, and the other replica goes on acknowledging;
- a replica that cannot read its store fails its `GET /health` checks and gets no request, and
  joins once it can, with no restart.

HAProxy is Debian's (`.ci/run` installs it); without it these tests are skipped, and under CI
(`CI` set) they fail instead. Every loop here is bounded in count and time.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import pg_store
from harness import text_of
from http_harness import UP_TIMEOUT_S, Balanced, HttpServer, balance, client, stateless_call

# Their store is a SQLite directory, read here with sqlite3; test_replicas_postgres.py is the
# PostgreSQL counterpart.
pytestmark = pytest.mark.skipif(pg_store.BACKEND != "sqlite", reason="replicas of a SQLite store directory")

WRITERS = 4
#: Writes acknowledged before the kill, and again after it.
BURST = 40
#: The most either burst may take.
BURST_TIMEOUT_S = 60.0


@pytest.fixture
def balanced(store: Path, tmp_path: Path) -> Iterator[Balanced]:
    """Two replicas of one store behind the balancer, both up."""
    with balance(store, store, tmp_path) as b:
        yield b


def call(lb: HttpServer, name: str, arguments: dict, request_id: int = 1) -> tuple[int, dict | None]:
    """A stateless `tools/call` through the balancer: the HTTP status and the result, if one came."""
    status, _, body = lb.post(*stateless_call(name, arguments, request_id))
    if status != 200:
        return status, None
    return status, json.loads(body).get("result")


def stored_claims(store: Path) -> set[str]:
    with sqlite3.connect(f"file:{store / 'state.db'}?mode=ro", uri=True) as db:
        return {claim for (claim,) in db.execute("SELECT claim FROM memories")}


def served(balanced: Balanced) -> dict[str, int]:
    """How many requests HAProxy has sent to each replica."""
    return {name: int(row["stot"]) for name, row in balanced.stat().items()}


def test_stateless_requests_reach_every_replica_and_see_one_store(balanced: Balanced, store: Path) -> None:
    lb = balanced.lb
    status, result = call(lb, "persist", {"action": "status"})
    assert status == 200 and result and not result["isError"], result
    version = result["structuredContent"]["store_version"]
    before = served(balanced)

    claims = [f"through the balancer {n}" for n in range(12)]
    for n, claim in enumerate(claims):
        status, result = call(lb, "memorize", {"node_label": "tests", "claims": [{"label": claim}]}, request_id=n)
        assert status == 200 and result and not result["isError"], (claim, status, result)

    # Each replica reads the store as it is now: every answer, from either, has every write.
    for n in range(6):
        status, result = call(lb, "persist", {"action": "status"}, request_id=100 + n)
        assert status == 200 and result, result
        assert result["structuredContent"]["store_version"] == version + len(claims), result
    after = served(balanced)
    assert all(after[name] - before[name] >= 3 for name in ("a", "b")), (before, after)
    assert set(claims) <= stored_claims(store)


@pytest.mark.anyio
async def test_legacy_sessions_stay_on_the_replica_that_opened_them(balanced: Balanced) -> None:
    sessions = 4
    for n in range(sessions):
        async with client(balanced.lb, "legacy") as c:
            for r in range(6):
                read = await c.call_tool("cockpit", {"select": "6"} if r % 2 else {})
                assert not read.is_error, text_of(read)
            wrote = await c.call_tool("memorize", {"node_label": "tests", "claims": [{"label": f"a legacy session through the balancer {n}"}]})
            assert not wrote.is_error, text_of(wrote)
    # Each session was recorded in the stick table when it opened, and both replicas opened some.
    table = balanced.command("show table m1nd")
    assert f"used:{sessions}" in table.splitlines()[0], table
    assert all(count >= 1 for count in served(balanced).values())


@dataclass
class Burst:
    """What writers through the balancer saw: the claims acknowledged, and the rest."""

    acknowledged: list[str]
    failed: list[tuple[str, int, str]]
    # Claims that failed although their request was sent after `fault()` had returned: for a
    # kill, after the replica was reaped and its socket closed.
    late: list[str] = field(default_factory=list)


def burst_across(lb: HttpServer, fault: Callable[[], None], after: int = BURST) -> Burst:
    """WRITERS writers memorize through `lb`; once BURST writes are acknowledged `fault()` runs, and
    the burst goes on until `after` more are acknowledged. However slow the machine, each part is
    bounded by BURST_TIMEOUT_S."""
    burst = Burst([], [])
    stopping = threading.Event()
    lock = threading.Lock()
    fault_done: list[float] = []

    def writer(w: int) -> None:
        for n in range(10_000):
            if stopping.is_set():
                return
            claim = f"burst {w}.{n}"
            sent_at = time.monotonic()
            try:
                status, result = call(lb, "memorize", {"node_label": "tests", "claims": [{"label": claim}]}, request_id=n)
            except OSError as e:
                status, result = 0, {"error": str(e)}
            with lock:
                if status == 200 and result is not None and not result["isError"]:
                    burst.acknowledged.append(claim)
                else:
                    burst.failed.append((claim, status, str(result)[:1000]))
                    if fault_done and sent_at > fault_done[0]:
                        burst.late.append(claim)

    def acknowledged_count() -> int:
        with lock:
            return len(burst.acknowledged)

    def wait_for(count: int, what: str) -> None:
        deadline = time.monotonic() + BURST_TIMEOUT_S
        while acknowledged_count() < count:
            assert time.monotonic() < deadline, f"{what}: {acknowledged_count()} of {count} acknowledged"
            time.sleep(0.02)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    for t in threads:
        t.start()
    try:
        wait_for(BURST, "before the fault")
        fault()
        with lock:
            fault_done.append(time.monotonic())
        at_fault = acknowledged_count()
        wait_for(at_fault + after, "after the fault")
    finally:
        stopping.set()
        for t in threads:
            t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    return burst


def kill_9(replica: HttpServer) -> Callable[[], None]:
    def fault() -> None:
        replica.process.kill()
        replica.process.wait()

    return fault


def test_kill_9_of_one_replica_mid_burst_loses_no_acknowledged_write(balanced: Balanced, store: Path) -> None:
    burst = burst_across(balanced.lb, kill_9(balanced.replicas[0]))
    missing = set(burst.acknowledged) - stored_claims(store)
    assert not missing, f"{len(missing)} acknowledged writes are not in the store: {sorted(missing)[:5]}"
    assert_only_what_reached_the_dead_replica_failed(burst)
    wait_until_down(balanced, "a")


def assert_only_what_reached_the_dead_replica_failed(burst: Burst) -> None:
    """After a `kill -9` of one replica mid-burst, only requests sent before it was gone fail, and
    the balancer answers them as a bad gateway, never m1nd as a refusal. Per writer that is the
    request in flight on it and at most one more, sent while it was dying: a connection the
    kernel completed on its listening socket before the socket closed is reset unread, after the
    balancer's connect succeeded, so no retry can apply. Once the replica is reaped a connection
    to it is refused, and the balancer sends the request to the other."""
    assert not burst.late, f"sent after the replica was gone, and failed: {burst.late} of {burst.failed}"
    per_writer: dict[str, int] = {}
    for claim, _, _ in burst.failed:
        writer = claim.split(".")[0]
        per_writer[writer] = per_writer.get(writer, 0) + 1
    assert all(count <= 2 for count in per_writer.values()), burst.failed
    assert all(status in (0, 502, 503, 504) for _, status, _ in burst.failed), burst.failed


def wait_until_down(balanced: Balanced, name: str) -> None:
    deadline = time.monotonic() + UP_TIMEOUT_S
    while not balanced.stat()[name]["status"].startswith("DOWN"):
        assert time.monotonic() < deadline, balanced.stat()[name]
        time.sleep(0.1)


def test_a_replica_that_cannot_read_its_store_gets_no_request_until_it_can(store: Path, tmp_path: Path) -> None:
    # Replica b's store goes away while it runs (a volume unmounted, a directory moved): it still
    # listens, but /health says 503. (A store missing at start stops `serve` before it listens.)
    own, away = tmp_path / "b-store", tmp_path / "b-store-away"
    shutil.copytree(store, own)
    with balance(store, own, tmp_path) as balanced:
        own.rename(away)
        deadline = time.monotonic() + UP_TIMEOUT_S
        while balanced.stat()["b"]["status"] != "DOWN":
            assert time.monotonic() < deadline, balanced.stat()["b"]
            time.sleep(0.1)
        before = served(balanced)
        for n in range(10):
            status, result = call(balanced.lb, "persist", {"action": "status"}, request_id=n)
            assert status == 200 and result and not result["isError"], (status, result)
        after = served(balanced)
        assert after["b"] == before["b"], "a replica failing its health checks was sent requests"
        assert after["a"] - before["a"] >= 10, (before, after)

        # Once its store can be read, it passes its checks and serves again.
        away.rename(own)
        deadline = time.monotonic() + UP_TIMEOUT_S
        while balanced.stat()["b"]["status"] != "UP":
            assert time.monotonic() < deadline, balanced.stat()["b"]
            time.sleep(0.1)
        for n in range(10):
            status, result = call(balanced.lb, "persist", {"action": "status"}, request_id=100 + n)
            assert status == 200 and result and not result["isError"], (status, result)
        assert served(balanced)["b"] > after["b"], "the healed replica was never sent a request"

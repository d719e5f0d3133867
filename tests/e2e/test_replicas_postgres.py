"""Two `m1nd serve --http` replicas on one PostgreSQL store, behind HAProxy (deploy/haproxy.cfg).

The store is a schema of its own on the throwaway server `scripts/pg-cluster.sh up` starts
(`M1ND_TEST_PG`, `M1ND_PG_CLUSTER`). Proven here, through the balancer and the replicas:
- a write acknowledged by either replica is read back by the other at once, and the balancer
  spreads requests over both;
- `kill -9` of one replica during a burst of writes loses no acknowledged write;
- a restart of the database server during a burst loses no acknowledged write, and both
  replicas write again once it is back, with no restart of their own;
- writes sent at once to both replicas each land once, at a version of their own;
- a replica whose clock is wrong (Debian's faketime) warns at start, its `GET /health` says by
  how much, and its writes carry the database's time;
- while the database is down, the balancer answers a JSON-RPC error with `Retry-After` (never
  HTML), each replica's `GET /health` says the database is unreachable, and each replica logs
  losing and regaining it once each, in the text and the JSON log formats.

Without a server these tests are skipped; under CI (`CI` set) they fail instead. Every loop
here is bounded in count and time.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import pg_store
from harness import ROOT, debian_program
from http_harness import HttpServer, stateless_call, start, stop
from pg_store import PgLocation, psql
from test_replicas import (
    Balanced,
    assert_only_what_reached_the_dead_replica_failed,
    balance,
    burst_across,
    call,
    kill_9,
    wait_until_down,
)


@pytest.fixture
def balanced(pg: PgLocation, tmp_path: Path) -> Iterator[Balanced]:
    with balance(pg, pg, tmp_path) as b:
        yield b


def status_of(server: HttpServer, request_id: int = 1) -> int:
    status, result = call(server, "persist", {"action": "status"}, request_id)
    assert status == 200 and result and not result["isError"], (status, result)
    return result["structuredContent"]["store_version"]


def test_a_write_on_either_replica_is_read_back_by_the_other_at_once(balanced: Balanced, pg: PgLocation) -> None:
    a, b = balanced.replicas
    version = status_of(a)
    for n in range(6):
        writer, reader = (a, b) if n % 2 == 0 else (b, a)
        status, result = call(writer, "memorize", {"node_label": "tests", "claims": [{"label": f"replica claim {n}"}]}, request_id=n)
        assert status == 200 and result and not result["isError"], result
        written = result["structuredContent"]["store_version"]
        assert written == version + n + 1, result
        # No wait: the other replica's very next read has it.
        assert status_of(reader, 100 + n) == written
    for n in range(8):
        status_of(balanced.lb, 200 + n)
    stats = balanced.stat()
    assert all(int(stats[name]["stot"]) >= 3 for name in ("a", "b")), stats
    assert {f"replica claim {n}" for n in range(6)} <= pg_store.claims(pg)


def test_kill_9_of_one_replica_mid_burst_loses_no_acknowledged_write(balanced: Balanced, pg: PgLocation) -> None:
    burst = burst_across(balanced.lb, kill_9(balanced.replicas[0]))
    missing = set(burst.acknowledged) - pg_store.claims(pg)
    assert not missing, f"{len(missing)} acknowledged writes are not in the store: {sorted(missing)[:5]}"
    assert_only_what_reached_the_dead_replica_failed(burst)
    wait_until_down(balanced, "a")


def test_a_database_restart_mid_burst_loses_no_acknowledged_write(balanced: Balanced, pg: PgLocation) -> None:
    cluster = os.environ.get("M1ND_PG_CLUSTER")
    if not cluster:
        pytest.skip("M1ND_PG_CLUSTER is unset: the server was not started by scripts/pg-cluster.sh")

    def restart() -> None:
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / "pg-cluster.sh"), "restart", cluster],
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert done.returncode == 0, done.stderr

    burst = burst_across(balanced.lb, restart)
    missing = set(burst.acknowledged) - pg_store.claims(pg)
    assert not missing, f"{len(missing)} acknowledged writes are not in the store: {sorted(missing)[:5]}"
    # What failed was refused as worth a retry (by a replica, or by the balancer while both
    # replicas failed their checks), never as anything else.
    retryable = ("retry", "cannot be reached", "lost", "503", "502", "504")
    unexpected = [f for f in burst.failed if f[1] not in (0, 502, 503, 504) and not any(r in f[2] for r in retryable)]
    assert not unexpected, unexpected
    # Both replicas write again, without a restart of their own.
    for n, replica in enumerate(balanced.replicas):
        status, result = call(replica, "memorize", {"node_label": "tests", "claims": [{"label": f"after the restart {n}"}]}, request_id=n)
        assert status == 200 and result and not result["isError"], result
    assert {"after the restart 0", "after the restart 1"} <= pg_store.claims(pg)


def test_writes_at_once_on_two_replicas_each_get_a_version_of_their_own(balanced: Balanced) -> None:
    a, b = balanced.replicas
    before = status_of(a)

    def write(pair: tuple[int, HttpServer]) -> tuple[int, dict | None]:
        n, replica = pair
        return call(replica, "memorize", {"node_label": "tests", "claims": [{"label": f"at once {n}"}]}, request_id=n)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(write, [(n, (a, b)[n % 2]) for n in range(16)]))
    assert all(status == 200 and r and not r["isError"] for status, r in results), results
    # The store row's lock makes the replicas' writes take turns: sixteen writes, sixteen versions.
    versions = sorted(r["structuredContent"]["store_version"] for _, r in results if r)
    assert versions == list(range(before + 1, before + 17)), versions


def test_a_replica_whose_clock_is_wrong_warns_and_records_the_databases_time(
    pg: PgLocation, tmp_path: Path
) -> None:
    faketime = debian_program("faketime")
    # Only the wall clock is wrong: timers run on the monotonic clock, as on a real machine.
    env = dict(os.environ, FAKETIME_DONT_FAKE_MONOTONIC="1")
    wrong = start(pg, logs=tmp_path, env=env, wrapper=[faketime, "-f", "-400d"])
    right = start(pg, logs=tmp_path)
    try:
        warning = wrong.stderr_path.read_text()
        assert "clock is" in warning and "behind the database's" in warning and "NTP" in warning, warning
        assert "clock is" not in right.stderr_path.read_text()
        # The checks a balancer or a person reads say by how much, and which way.
        day_ms = 86_400_000
        skews = {}
        for name, replica in (("wrong", wrong), ("right", right)):
            status, answer = replica.health()
            assert status == 200 and answer["status"] == "ok", answer
            skews[name] = answer["clock_skew_ms"]
        assert -401 * day_ms < skews["wrong"] < -399 * day_ms, skews
        assert abs(skews["right"]) < day_ms, skews
        for n, replica in enumerate((wrong, right)):
            status, result = call(replica, "memorize", {"node_label": "tests", "claims": [{"label": f"when {n}"}], "agent_id": f"clock-{n}"}, n)
            assert status == 200 and result and not result["isError"], result
    finally:
        stop(wrong)
        stop(right)
    # Both writes carry the database's time: the wrong clock moved neither, nor their order.
    rows = psql(
        pg.server,
        f"SELECT claim, at, at >= to_char(now() AT TIME ZONE 'UTC' - interval '1 hour', "
        f"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM {pg.schema}.memories WHERE claim LIKE 'when %' ORDER BY seq",
    )
    assert [row.split("|")[0] for row in rows] == ["when 0", "when 1"], rows
    assert all(row.endswith("|t") for row in rows), rows
    first, second = (row.split("|")[1] for row in rows)
    assert first <= second, rows


def test_signatures_and_state_moved_are_the_same_on_either_replica(balanced: Balanced) -> None:
    a, b = balanced.replicas

    def cockpit(replica: HttpServer, arguments: dict, request_id: int) -> dict:
        status, result = call(replica, "cockpit", arguments, request_id)
        assert status == 200 and result and not result["isError"], result
        return result["structuredContent"]

    root_a, root_b = cockpit(a, {}, 1), cockpit(b, {}, 2)
    assert (root_a["state_sig"], root_a["menu_sig"]) == (root_b["state_sig"], root_b["menu_sig"])
    # A choice read on A is resolved on B while nothing moved...
    select = next(e["select"] for e in root_a["entries"] if e["select"].startswith("2@"))
    drilled = cockpit(b, {"select": select}, 3)
    assert drilled["level"] == "2" and not drilled.get("state_moved"), drilled
    # ...and after a write on B, the same choice is "state moved" on A, at B's version.
    status, wrote = call(b, "memorize", {"node_label": "tests", "claims": [{"label": "moved on b"}]}, 4)
    assert status == 200 and wrote and not wrote["isError"], wrote
    moved = cockpit(a, {"select": select}, 5)
    assert moved.get("state_moved") is True and moved["level"] == "root", moved
    assert moved["store_version"] == wrote["structuredContent"]["store_version"], moved


def test_a_database_outage_speaks_mcp_at_the_balancer_and_each_replica_logs_it_once(
    balanced: Balanced, pg: PgLocation, tmp_path: Path
) -> None:
    cluster = os.environ.get("M1ND_PG_CLUSTER")
    if not cluster:
        pytest.skip("M1ND_PG_CLUSTER is unset: the server was not started by scripts/pg-cluster.sh")
    # A third replica, not balanced, whose log is JSON lines.
    json_replica = start(pg, logs=tmp_path, args=["--log-format", "json"])
    replicas = [*balanced.replicas, json_replica]
    try:
        status_of(balanced.lb)  # the balancer serves before the outage
        pause = subprocess.Popen(
            ["bash", str(ROOT / "scripts" / "pg-cluster.sh"), "pause", "6", cluster],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            # While it is down: each replica's /health names the cause, and the balancer, once
            # both replicas failed their checks, answers in JSON-RPC with Retry-After.
            causes: dict[int, str] = {}
            answer = None
            deadline = time.monotonic() + 5
            while (len(causes) < len(replicas) or answer is None) and time.monotonic() < deadline:
                for n, replica in enumerate(replicas):
                    status, health = replica.health()
                    if status == 503:
                        causes[n] = health["cause"]
                status, headers, body = balanced.lb.post(*stateless_call("persist", {"action": "status"}, 7))
                if status == 503 and headers.get("retry-after"):
                    answer = (headers, body)
                time.sleep(0.1)
        finally:
            _, err = pause.communicate(timeout=90)
            assert pause.returncode == 0, err
        assert causes == {n: "database-unreachable" for n in range(len(replicas))}, causes
        assert answer is not None, "the balancer never answered 503 with Retry-After while the database was down"
        headers, body = answer
        assert headers["content-type"] == "application/json" and int(headers["retry-after"]) > 0, headers
        error = json.loads(body)
        assert error["jsonrpc"] == "2.0" and error["id"] is None, error
        assert error["error"]["code"] == -32000 and "retry" in error["error"]["message"], error

        # Back: the balancer serves again, and each replica said each thing once.
        deadline = time.monotonic() + 30
        while call(balanced.lb, "persist", {"action": "status"}, 8)[0] != 200:
            assert time.monotonic() < deadline, "the replicas never served again"
            time.sleep(0.2)
        deadline = time.monotonic() + 15
        while not all("the database is back" in r.stderr_path.read_text() for r in replicas):
            assert time.monotonic() < deadline, [r.stderr_path.read_text()[-2000:] for r in replicas]
            time.sleep(0.2)
        for replica in balanced.replicas:
            text = replica.stderr_path.read_text()
            assert text.count("lost the database") == 1 and text.count("the database is back") == 1, text
        events = [json.loads(line) for line in json_replica.stderr_path.read_text().splitlines() if line.startswith("{")]
        said = [e for e in events if "database" in json.dumps(e)]
        lost = [e for e in said if "lost the database" in json.dumps(e)]
        back = [e for e in said if "the database is back" in json.dumps(e)]
        assert len(lost) == 1 and len(back) == 1, said
        assert lost[0]["level"] == "WARN" and back[0]["level"] == "INFO", said
    finally:
        stop(json_replica)

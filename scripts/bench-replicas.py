"""Acknowledged writes per second and the human's cockpit p99 under the team load test's roles,
for one store on each backend: SQLite on one node, and PostgreSQL with 1, 2 and 4 replicas, in
the same run, as ratios to SQLite.

Each configuration gets the same store, imported from one `state.json` (the demo plus
`--alerts` alerts and as many memories, scripts/loadtest/seed.py), and runs behind HAProxy,
configured from deploy/haproxy.cfg (a `server` line added for each replica past the second, as
its header says), so the balancer's cost is in every figure alike. For `--seconds` each, all
stateless: `--writers` clients `memorize` unique claims as fast as their answers come, `--readers`
heavy readers `trace` a long error text over every alert (the load test's roles.writer and
roles.reader), `--lookers` clients look at the cockpit root as fast as their answers come (the
read that replicas should scale), and one human looks at the cockpit root, pausing `--think`
between looks.
Afterwards every acknowledged claim must be in the store; a lost one fails the run. Timings never
fail it.

    scripts/bench-replicas.sh [--seconds S] [--writers N] [--readers N] [--lookers N] [--alerts N]
                              [--replicas 1,2,4] [--json]

The cockpit-rate goal (PostgreSQL at least 0.8x SQLite's, and two replicas above one) is the run
`--writers 0 --readers 0 --lookers 16 --replicas 1,2`.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "loadtest"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "lib"))
import haproxy  # noqa: E402
from procgroup import stop  # noqa: E402
from psql import psql  # noqa: E402
import roles  # noqa: E402
import seed  # noqa: E402
from mcp_http import Client, Outcome, free_port  # noqa: E402
from server import start_on_any_port  # noqa: E402
from team import machine, percentile  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)

ROOT = Path(__file__).resolve().parents[1]
UP_TIMEOUT_S = 30.0


@dataclass
class Config:
    backend: str  # "sqlite" or "postgresql"
    replicas: int

    @property
    def name(self) -> str:
        return "SQLite, 1 node" if self.backend == "sqlite" else f"PostgreSQL, {self.replicas} replica(s)"


def balance(ports: list[int], out: Path) -> tuple[subprocess.Popen, int]:
    """HAProxy in front of `ports` (a port listed twice for a single node), once every server is UP."""
    binary = haproxy.binary()
    if binary is None:
        sys.exit("haproxy is not installed (apt-get install haproxy)")
    lb_port, admin, log = free_port(), out / "lb.sock", out / "haproxy.stderr"
    process = haproxy.start(binary, haproxy.config(out, len(ports)), haproxy.environment(lb_port, ports, admin), log)
    try:
        haproxy.wait_for(process, admin, {haproxy.name(k): "UP" for k in range(len(ports))}, UP_TIMEOUT_S, log)
    except RuntimeError as e:
        stop(process)
        sys.exit(str(e))
    return process, lb_port


def human(run: roles.Run, think: float, tally: roles.Tally) -> None:
    """One person looking at the cockpit root through MCP, pausing between looks."""
    client = Client(run.host, run.port, "stateless", "human")
    try:
        while not run.stop.is_set():
            t0 = time.perf_counter()
            answer = client.call("cockpit", {})
            elapsed = time.perf_counter() - t0
            if answer.outcome is Outcome.OK:
                tally.ok += 1
                tally.latencies_s.append(elapsed)
            else:
                tally.error(f"{answer.outcome.value}: {answer.detail}")
            run.stop.wait(think)
    finally:
        client.close()


def stored(config: Config, store: str) -> set[str]:
    if config.backend == "sqlite":
        with sqlite3.connect(f"file:{Path(store) / 'state.db'}?mode=ro", uri=True) as db:
            return {claim for (claim,) in db.execute("SELECT claim FROM memories")}
    server, schema = store.split("?", 1)[0], store.rsplit("%3D", 1)[1]
    return set(psql(server, f"SELECT claim FROM {schema}.memories"))


def measure(config: Config, args, server_url: str | None, work: Path, state: Path, error_text: str) -> dict:
    out = work / f"{config.backend}-{config.replicas}"
    out.mkdir()
    schema = None
    if config.backend == "sqlite":
        store = str(out / "store")
    else:
        assert server_url is not None
        schema = f"bench_{os.getpid()}_{config.replicas}"
        psql(server_url, f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
        store = f"{server_url}?options=-c%20search_path%3D{schema}"
    made = subprocess.run([str(args.bin), "store", "import", str(state), "--store", store],
                          capture_output=True, text=True)
    if made.returncode != 0:
        sys.exit(f"store import failed: {made.stderr}")
    processes: list[subprocess.Popen] = []
    try:
        ports = []
        for n in range(config.replicas):
            process, port = start_on_any_port(args.bin, store, out / f"replica-{n}.stderr")
            processes.append(process)
            ports.append(port)
        # deploy/haproxy.cfg names two servers; a single node is named twice.
        lb, lb_port = balance(ports if len(ports) > 1 else ports * 2, out)
        processes.append(lb)
        run = roles.Run("127.0.0.1", lb_port, uuid.uuid4().hex[:12])
        run.became_ready("")
        acknowledged: list[str] = []
        writers = [roles.Tally("writer", "stateless") for _ in range(args.writers)]
        readers = [roles.Tally("reader", "stateless") for _ in range(args.readers)]
        person = roles.Tally("human", "stateless")
        lookers = [roles.Tally("human", "stateless") for _ in range(args.lookers)]
        matches: list[int] = []
        threads = [threading.Thread(target=roles.writer, args=(run, k, "stateless", acknowledged, t))
                   for k, t in enumerate(writers)]
        threads += [threading.Thread(target=roles.reader, args=(run, k, "stateless", error_text, t, matches))
                    for k, t in enumerate(readers)]
        threads.append(threading.Thread(target=human, args=(run, args.think, person)))
        threads += [threading.Thread(target=human, args=(run, 0.0, t)) for t in lookers]
        started = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(args.seconds)
        window, acked, looked = time.monotonic() - started, len(acknowledged), sum(t.ok for t in lookers)
        run.stop.set()
        for t in threads:
            t.join(timeout=120)
    finally:
        for process in reversed(processes):
            stop(process)
    lost = set(acknowledged) - stored(config, store)
    if schema is not None:
        psql(server_url or "", f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    errors = [e for t in [*writers, *readers, person, *lookers] for e in t.errors]
    traces = [x for t in readers for x in t.latencies_s]
    return {
        "config": config.name,
        "writes_per_s": acked / window,
        "write_p99_ms": 1000 * percentile([x for t in writers for x in t.latencies_s], 99),
        "cockpit_p50_ms": 1000 * percentile(person.latencies_s, 50),
        "cockpit_p99_ms": 1000 * percentile(person.latencies_s, 99),
        "looks": person.ok,
        "cockpits_per_s": looked / window,
        "traces_per_s": len(traces) / window,
        "trace_p99_ms": 1000 * percentile(traces, 99),
        "busy": sum(t.busy for t in writers),
        "errors": len(errors),
        "error_samples": errors[:3],
        "lost": len(lost),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target/release/m1nd")
    parser.add_argument("--seconds", type=float, default=15.0, help="load per configuration")
    parser.add_argument("--writers", type=int, default=32)
    parser.add_argument("--readers", type=int, default=8, help="heavy `trace` readers")
    parser.add_argument("--lookers", type=int, default=0, help="clients looking at the cockpit root nonstop")
    parser.add_argument("--alerts", type=int, default=5_000, help="alerts (and memories) seeded")
    parser.add_argument("--trace-bytes", type=int, default=16 * 1024, help="length of trace's error_text")
    parser.add_argument("--think", type=float, default=0.1, help="the human's pause between looks, seconds")
    parser.add_argument("--replicas", default="1,2,4", help="PostgreSQL replica counts to run")
    parser.add_argument("--json", action="store_true", help="also write target/bench-replicas/report.json")
    args = parser.parse_args()
    quiet.require_quiet("bench-replicas")
    if not 1 <= args.seconds <= 600 or not 0 <= args.writers <= 256 or not 0 <= args.readers <= 64:
        sys.exit("--seconds must be 1..600, --writers 0..256 and --readers 0..64")
    if not 0 <= args.lookers <= 64:
        sys.exit("--lookers must be 0..64")
    if not 0 <= args.alerts <= 1_000_000:
        sys.exit("--alerts must be 0..1,000,000")
    server_url = os.environ.get("M1ND_TEST_PG")
    if not server_url:
        sys.exit("M1ND_TEST_PG names no PostgreSQL server (scripts/bench-replicas.sh starts one)")
    counts = [int(n) for n in args.replicas.split(",")]
    if not all(1 <= n <= 26 for n in counts):
        sys.exit("--replicas takes counts from 1 to 26")
    configs = [Config("sqlite", 1), *(Config("postgresql", n) for n in counts)]
    facts = machine()
    print(f"m1nd replicas bench, {facts['date_utc']}; {facts['cores']} cores {facts['cpu']}, "
          f"{facts['memory_gib']} GiB; {args.writers} writers, {args.readers} trace readers over "
          f"{args.alerts:,} alerts, {args.lookers} cockpit lookers and a human (pause {args.think:g} s), "
          f"{args.seconds:g} s each, behind HAProxy",
          flush=True)
    results = []
    error_text = seed.error_text(args.trace_bytes)
    with tempfile.TemporaryDirectory(prefix="m1nd-bench-replicas-") as work:
        state = seed.write_state(Path(work), args.alerts, args.alerts)
        for config in configs:
            result = measure(config, args, server_url, Path(work), state, error_text)
            results.append(result)
            print(f"  {result['config']:<28} {result['writes_per_s']:>8,.1f} writes/s, "
                  f"{result['cockpits_per_s']:>8,.1f} cockpits/s, cockpit p99 "
                  f"{result['cockpit_p99_ms']:,.1f} ms ({result['looks']} looks), {result['traces_per_s']:,.1f} "
                  f"traces/s, {result['errors']} errors, {result['lost']} lost", flush=True)
    base = results[0]

    def ratio(r: dict, key: str) -> str:
        return f"{r[key] / base[key]:.2f}x" if base[key] else "-"

    print("\n| configuration | acknowledged writes/s | ratio | cockpits/s | ratio | cockpit p50 | cockpit p99 | ratio "
          "| write p99 | trace p99 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        print(f"| {r['config']} | {r['writes_per_s']:,.1f} | {ratio(r, 'writes_per_s')} | "
              f"{r['cockpits_per_s']:,.1f} | {ratio(r, 'cockpits_per_s')} | "
              f"{r['cockpit_p50_ms']:,.1f} ms | {r['cockpit_p99_ms']:,.1f} ms | "
              f"{r['cockpit_p99_ms'] / base['cockpit_p99_ms']:.2f}x | {r['write_p99_ms']:,.1f} ms | "
              f"{r['trace_p99_ms']:,.1f} ms |")
    print(f"\nload average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; every process "
          f"(replicas, PostgreSQL, HAProxy, this driver) shares the machine's {facts['cores']} cores")
    if args.json:
        out = ROOT / "target" / "bench-replicas"
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.json").write_text(json.dumps({"machine": facts, "args": {k: str(v) for k, v in vars(args).items()},
                                                     "results": results}, indent=2))
    failures = [f"{r['config']}: {r['lost']} acknowledged writes lost" for r in results if r["lost"]]
    failures += [f"{r['config']}: {r['errors']} errors, e.g. {r['error_samples']}" for r in results if r["errors"]]
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

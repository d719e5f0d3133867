"""How many cockpit roots the server answers per second with 32 clients and nothing else going on.

The state does not move, so every answer after the first comes from the session's answer cache
(src/server/answers.rs): this is the server's per-request floor over HTTP, bound by CPU. The 32
clients (stateless 2026-07-28, one kept-alive connection each) are spread over several client
processes, so one Python interpreter's lock does not cap the rate; each process reports the CPU
it used, and the report sets the clients' CPU beside the server's, both out of the machine's
cores. Every client stops at its deadline or its count cap.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcp_http import Client, Outcome  # noqa: E402

MAX_CALLS_PER_CLIENT = 1_000_000


def _process(host: str, port: int, threads: int, seconds: float, start_at: float, out) -> None:
    """One client process: `threads` clients until the deadline; sends (calls, errors, cpu_s, latencies)."""
    calls = [0] * threads
    errors: list[str] = []
    latencies: list[list[float]] = [[] for _ in range(threads)]

    def client(k: int) -> None:
        c = Client(host, port, "stateless", f"rate-{os.getpid()}-{k}")
        deadline = start_at + seconds
        while time.monotonic() < deadline and calls[k] < MAX_CALLS_PER_CLIENT:
            t0 = time.perf_counter()
            answer = c.call("cockpit", {})
            latencies[k].append(time.perf_counter() - t0)
            if answer.outcome is not Outcome.OK:
                errors.append(f"{answer.outcome.value}: {answer.detail}")
            calls[k] += 1
        c.close()

    while time.monotonic() < start_at:
        time.sleep(0.001)
    cpu0 = os.times()
    workers = [threading.Thread(target=client, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    cpu1 = os.times()
    cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    out.put((sum(calls), errors[:20], len(errors), cpu, [x for per in latencies for x in per]))


def cockpit_rate(host: str, port: int, server_cpu, clients: int, processes: int, seconds: float) -> dict:
    """Run the clients; calls/s, errors, and the CPU the server and the clients used meanwhile."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    per = [clients // processes + (1 if p < clients % processes else 0) for p in range(processes)]
    start_at = time.monotonic() + 2.0  # every process started and connected-ready by then
    procs = [context.Process(target=_process, args=(host, port, n, seconds, start_at, queue)) for n in per if n]
    for p in procs:
        p.start()
    while time.monotonic() < start_at:
        time.sleep(0.001)
    server0, wall0 = server_cpu(), time.monotonic()
    results = [queue.get(timeout=seconds + 120) for _ in procs]
    wall, server = time.monotonic() - wall0, server_cpu() - server0
    for p in procs:
        p.join(timeout=30)
    calls = sum(r[0] for r in results)
    latencies = sorted(x for r in results for x in r[4])
    return {
        "clients": clients,
        "processes": len(procs),
        "seconds": wall,
        "calls": calls,
        "calls_per_s": calls / wall,
        "errors": sum(r[2] for r in results),
        "error_samples": [e for r in results for e in r[1]][:5],
        "server_cpu_s": server,
        "server_cores": server / wall,
        "server_cpu_us_per_call": 1e6 * server / max(calls, 1),
        "clients_cpu_s": sum(r[3] for r in results),
        "clients_cores": sum(r[3] for r in results) / wall,
        "p50_ms": 1000 * latencies[len(latencies) // 2] if latencies else float("nan"),
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else float("nan"),
    }

"""Round-trip latency over Streamable HTTP: a cockpit call against a minimal MCP call.

One `m1nd serve --http` process on a fresh demo store. Each client keeps one HTTP/1.1
connection open and sends stateless 2026-07-28 requests, interleaving `server/discover` (the
minimal call of that revision; `ping` is gone from it), `tools/list` and `cockpit` at the root,
so drift in the machine's load falls on all of them alike. Measured with one client, then with
16 concurrent clients (threads, one connection each). Prints p50/p99 in milliseconds, the
cockpit/discover ratios (goal: within 1.1x at p50) and the throughput.

The stdio ratio comes from the same run: a bare JSON-RPC client over stdio (bench_stdio's raw
measurement, cockpit against `ping`). Always exits 0 when the measurement itself succeeds.

    python tests/e2e/bench_http.py [--n 300] [--warmup 30] [--clients 16] [--json]
    tests/e2e/run.sh bench-http [--release] [...]
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_stdio  # noqa: E402
import harness  # noqa: E402
import http_harness  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)
import stateless_http  # noqa: E402  (the request both HTTP benches send)

GOAL = 1.1  # issue "figures that hold", item 3: stateless HTTP within 1.1x server/discover
CALLS: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "server/discover": ("server/discover", {}, None),
    "tools/list": ("tools/list", {}, None),
    "cockpit root": ("tools/call", {"name": "cockpit", "arguments": {}}, "cockpit"),
}


class Connection:
    """One kept-alive connection sending stateless requests."""

    def __init__(self, server: http_harness.HttpServer) -> None:
        self.conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
        self.next_id = 0

    def call(self, method: str, params: dict[str, Any], name: str | None) -> None:
        self.next_id += 1
        stateless_http.post(self.conn, self.next_id, method, params, name)


def run_client(server: http_harness.HttpServer, n: int, warmup: int, out: dict[str, list[float]]) -> None:
    c = Connection(server)
    for i in range(warmup + n):
        for label, (method, params, name) in CALLS.items():
            start = time.perf_counter_ns()
            c.call(method, params, name)
            elapsed = (time.perf_counter_ns() - start) / 1e6
            if i >= warmup:
                out[label].append(elapsed)
    c.conn.close()


def measure(server: http_harness.HttpServer, clients: int, n: int, warmup: int) -> dict[str, Any]:
    per_client: list[dict[str, list[float]]] = [{label: [] for label in CALLS} for _ in range(clients)]
    errors: list[BaseException] = []

    def guarded(thread_target: Any, *args: Any) -> None:
        try:
            thread_target(*args)
        except BaseException as e:  # reported after the join
            errors.append(e)

    threads = [
        threading.Thread(target=guarded, args=(run_client, server, n, warmup, per_client[k])) for k in range(clients)
    ]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    wall = time.perf_counter() - start
    if errors:
        raise errors[0]
    samples = {label: [x for pc in per_client for x in pc[label]] for label in CALLS}
    stats = {
        label: {"p50_ms": bench_stdio.percentile(v, 50), "p99_ms": bench_stdio.percentile(v, 99), "n": len(v)}
        for label, v in samples.items()
    }
    base = stats["server/discover"]
    ratios = {
        label: {"p50": stats[label]["p50_ms"] / base["p50_ms"], "p99": stats[label]["p99_ms"] / base["p99_ms"]}
        for label in ("cockpit root", "tools/list")
    }
    total = clients * (warmup + n) * len(CALLS)
    return {"clients": clients, "stats": stats, "ratios_vs_discover": ratios, "requests_per_s": total / wall}


def bench(n: int, warmup: int, clients: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="m1nd-bench-http-") as tmp:
        store = harness.init_store(Path(tmp) / "store")
        with http_harness.running(store) as server:
            runs = [measure(server, 1, n, warmup), measure(server, clients, max(1, n // 4), warmup)]
    stdio = bench_stdio.bench_raw(n, warmup)
    stdio_ratio = stdio["stats"]["cockpit root"]["p50_ms"] / stdio["stats"]["ping"]["p50_ms"]
    return {
        "binary": str(harness.m1nd_bin()),
        "n": n,
        "warmup": warmup,
        "goal_ratio": GOAL,
        "http": runs,
        "stdio": {"cockpit_root_p50_ms": stdio["stats"]["cockpit root"]["p50_ms"],
                  "ping_p50_ms": stdio["stats"]["ping"]["p50_ms"], "ratio_p50": stdio_ratio},
    }


def report(result: dict[str, Any]) -> str:
    lines = [f"m1nd serve --http ({result['binary']}), stateless 2026-07-28 requests on kept-alive connections"]
    for run in result["http"]:
        lines.append(f"\n{run['clients']} client(s), {run['stats']['cockpit root']['n']} round trips of each call")
        lines.append(f"{'call':<17}{'p50 ms':>10}{'p99 ms':>10}")
        for label, s in run["stats"].items():
            lines.append(f"{label:<17}{s['p50_ms']:>10.3f}{s['p99_ms']:>10.3f}")
        for label, r in run["ratios_vs_discover"].items():
            goal = ""
            if label == "cockpit root":
                goal = "  within goal" if r["p50"] <= GOAL else f"  above the {GOAL}x goal"
            lines.append(f"{label} / discover: p50 {r['p50']:.2f}x, p99 {r['p99']:.2f}x{goal}")
        lines.append(f"throughput: {run['requests_per_s']:.0f} requests/s")
    s = result["stdio"]
    lines.append(
        f"\nstdio, same run (bare JSON-RPC client): cockpit root p50 {s['cockpit_root_p50_ms']:.3f} ms, "
        f"ping {s['ping_p50_ms']:.3f} ms, ratio {s['ratio_p50']:.2f}x"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="round trips per call kind, one client (default 300)")
    parser.add_argument("--warmup", type=int, default=30, help="unmeasured round trips first (default 30)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients in the second run (default 16)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    quiet.require_quiet("bench_http")
    result = bench(args.n, args.warmup, args.clients)
    print(json.dumps(result, indent=2) if args.json else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

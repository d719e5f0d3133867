"""What the gateway adds to a tools/call round trip: the same call to the same kind of upstream,
directly and through `m1nd gateway`, in one run.

The upstream is `m1nd serve` on a fresh demo store (fast, so the gateway's share is visible); its
gateway policy is made by `m1nd policy import` for the run. Two upstream processes are started:
one spoken to directly, one behind the gateway. A bare newline-delimited JSON-RPC client sends
`tools/call north` to each, alternating, N times after a warm-up, so drift in the machine's load
falls on both alike. Prints p50 and p99 of each and the difference; the goal is at most +0.2 ms at
p50. `tools/list`, which the gateway answers after re-listing the upstream, is timed the same way.
Then, in a second phase with fresh processes, the direct upstream alternates with a gateway that
re-lists the upstream every 10 ms (a thousand times more often than the default `--recheck`), to
show what re-listing costs a call. A third phase puts the same upstream behind two HTTP fronts,
`m1nd gateway --http 127.0.0.1:0` and the PyPI `mcp-proxy` (its Streamable HTTP side, given by
`--mcp-proxy` or M1ND_BENCH_MCP_PROXY; run.sh installs it into its own venv), and alternates the
same call through each with one bare Streamable HTTP client (bench_http.py): p50 and p99 of each
and the ratio mcp-proxy/gateway. Last, the call comparison again in front of two upstreams
nobody here wrote, mcp-server-git (`git_status`) and server-filesystem (`list_directory`), each
behind the policy `m1nd policy import` makes for it (read-write). Each timed series stops early, with the rounds it has, once it has run
`--budget` seconds. Always exits 0 when the measurement itself succeeds.

    python tests/gateway/bench_gateway.py [--n 500] [--warmup 50] [--budget 300] [--mcp-proxy PATH] [--json]
    tests/gateway/run.sh bench [--release] [...]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_http import HttpClient  # noqa: E402
from gateway_harness import filesystem_server, m1nd_bin, set_mode, spawn, stop, venv_bin  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)

GOAL_MS = 0.2
TOOL = "north"
RELIST_EVERY_S = "0.01"
GATEWAY_ADDRESS = re.compile(r"m1nd: serving MCP on http://(?P<host>[0-9.]+):(?P<port>[0-9]+)/mcp")
PROXY_ADDRESS = re.compile(r"Uvicorn running on http://(?P<host>[0-9.]+):(?P<port>[0-9]+)")


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


class Client:
    """One line out, one line back."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = spawn(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
        self.rpc("initialize", hello)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdout
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id:
                break  # notifications (none expected) are skipped
        if "error" in reply or reply.get("result", {}).get("isError"):
            raise RuntimeError(f"{method}: unexpected reply {reply}")
        return reply["result"]

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass  # `stop` ends it, and the upstream in its group, either way
        stop(self.proc)


def alternate(clients: dict[str, Any], method: str, params: dict[str, Any], rounds: int, warmup: int,
              budget_s: float) -> dict[str, Any]:
    """`method` on each client in turn, `warmup + rounds` times or until `budget_s` has passed; p50
    and p99 of the measured rounds (`n` says how many were measured)."""
    samples: dict[str, list[float]] = {name: [] for name in clients}
    deadline = time.monotonic() + budget_s
    for i in range(warmup + rounds):
        if time.monotonic() > deadline and i > warmup:
            break
        for name, client in clients.items():
            start = time.perf_counter_ns()
            client.rpc(method, params)
            elapsed = (time.perf_counter_ns() - start) / 1e6
            if i >= warmup:
                samples[name].append(elapsed)
    return {name: {"p50_ms": percentile(v, 50), "p99_ms": percentile(v, 99), "n": len(v)} for name, v in samples.items()}


def bench(n: int, warmup: int, budget_s: float, mcp_proxy: str | None) -> dict[str, Any]:
    m1nd = str(m1nd_bin())
    call = {"name": TOOL, "arguments": {"task": "bench"}}
    with tempfile.TemporaryDirectory(prefix="m1nd-gateway-bench-") as tmp:
        store = Path(tmp) / "store"
        subprocess.run([m1nd, "init", "--demo", "--store", str(store)], check=True, capture_output=True)
        upstream = [m1nd, "serve", "--store", str(store)]
        policy = Path(tmp) / "policy"
        subprocess.run([m1nd, "policy", "import", "--policy", str(policy), "--", *upstream], check=True, capture_output=True)
        set_mode(policy, "read-write")  # as before modes: the gateway lists what the upstream lists
        gateway = [m1nd, "gateway", "--policy", str(policy)]
        # Phase 1: the gateway as deployed (default --recheck), calls then listings.
        # Phase 2: a gateway re-listing every 10 ms, started only now so its re-lists load no other phase.
        phases = [{"direct": upstream, "gateway": [*gateway, "--", *upstream]},
                  {"direct": upstream, "relisting": [*gateway, "--recheck", RELIST_EVERY_S, "--", *upstream]}]
        results = []
        for phase in phases:
            clients = {name: Client(argv) for name, argv in phase.items()}
            try:
                calls = alternate(clients, "tools/call", call, n, warmup, budget_s)
                lists = alternate(clients, "tools/list", {}, n // 5, warmup, budget_s) if "gateway" in clients else None
            finally:
                for client in clients.values():
                    client.close()
            results.append((calls, lists))
        # Phase 3: the same upstream behind two HTTP fronts, the same client for both.
        http_stats = None
        if mcp_proxy:
            fronts = {"gateway": ([*gateway, "--http", "127.0.0.1:0", "--", *upstream], GATEWAY_ADDRESS),
                      "mcp-proxy": ([mcp_proxy, "--host", "127.0.0.1", "--port", "0", "--", *upstream], PROXY_ADDRESS)}
            http_clients: dict[str, HttpClient] = {}
            try:
                for name, (argv, address) in fronts.items():
                    http_clients[name] = HttpClient(argv, address, "/mcp")
                http_stats = alternate(http_clients, "tools/call", call, n, warmup, budget_s)
            finally:
                for client in http_clients.values():
                    client.close()
    (stats, lists), (relist_stats, _) = results
    added = {p: stats["gateway"][f"{p}_ms"] - stats["direct"][f"{p}_ms"] for p in ("p50", "p99")}
    relisting = {p: relist_stats["relisting"][f"{p}_ms"] - relist_stats["direct"][f"{p}_ms"] for p in ("p50", "p99")}
    return {
        "binary": m1nd, "tool": TOOL, "n": n, "warmup": warmup, "stats": stats, "added_ms": added,
        "relisting_stats": relist_stats, "added_relisting_ms": relisting, "relist_every_s": float(RELIST_EVERY_S),
        "tools_list": lists, "goal_ms": GOAL_MS, "budget_s": budget_s,
        "http": http_stats, "mcp_proxy": mcp_proxy,
        "proxy_over_gateway": http_stats and {
            p: http_stats["mcp-proxy"][f"{p}_ms"] / http_stats["gateway"][f"{p}_ms"] for p in ("p50", "p99")},
    }


def other_upstreams(n: int, warmup: int, budget_s: float) -> dict[str, Any]:
    """The same comparison in front of two upstreams nobody here wrote: mcp-server-git (`git_status`
    on a fresh repository) and @modelcontextprotocol/server-filesystem (`list_directory` on a
    small tree), each with the gateway policy `m1nd policy import` makes for it, in read-write mode so that the
    call is forwarded (the import marks tools without annotations as writes)."""
    m1nd = str(m1nd_bin())
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="m1nd-gateway-bench-up-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "README").write_text("bench\n")
        tree = Path(tmp) / "tree"
        for name in ("a", "b", "c"):
            (tree / name).mkdir(parents=True)
            (tree / name / "file.txt").write_text(name)
        upstreams = {
            "mcp-server-git": ([venv_bin("mcp-server-git"), "--repository", str(repo)],
                               {"name": "git_status", "arguments": {"repo_path": str(repo)}}),
            "server-filesystem": (filesystem_server(tree), {"name": "list_directory", "arguments": {"path": str(tree)}}),
        }
        for label, (upstream, call) in upstreams.items():
            policy = Path(tmp) / f"policy-{label}"
            subprocess.run([m1nd, "policy", "import", "--policy", str(policy), "--", *upstream], check=True,
                           capture_output=True)
            set_mode(policy, "read-write")  # as for m1nd serve above: the call is forwarded, not refused
            clients: dict[str, Client] = {}
            try:
                # One at a time inside the try: if the second cannot start, the first is still stopped.
                clients["direct"] = Client(upstream)
                clients["gateway"] = Client([m1nd, "gateway", "--policy", str(policy), "--", *upstream])
                stats = alternate(clients, "tools/call", call, n, warmup, budget_s)
            finally:
                for client in clients.values():
                    client.close()
            out[label] = {"tool": call["name"], "stats": stats,
                          "added_ms": {p: stats["gateway"][f"{p}_ms"] - stats["direct"][f"{p}_ms"] for p in ("p50", "p99")}}
    return out


def report(r: dict[str, Any]) -> str:
    lines = [
        f"tools/call {r['tool']} on m1nd serve ({r['binary']}), bare JSON-RPC client, {r['n']} round trips each "
        f"(after {r['warmup']} warm-up), alternating",
        f"{'path':<10}{'p50 ms':>10}{'p99 ms':>10}",
    ]

    def rows(stats: dict[str, Any], added: dict[str, float], label: str) -> None:
        for name, s in stats.items():
            lines.append(f"{name:<10}{s['p50_ms']:>10.3f}{s['p99_ms']:>10.3f}")
        verdict = "within goal" if added["p50"] <= r["goal_ms"] else f"above the +{r['goal_ms']} ms goal"
        lines.append(f"{label:<10}{added['p50']:>+10.3f}{added['p99']:>+10.3f}   p50 {verdict}")

    rows(r["stats"], r["added_ms"], "added")
    lines.append(f"then, against a gateway that re-lists the upstream every {r['relist_every_s'] * 1000:g} ms:")
    rows(r["relisting_stats"], r["added_relisting_ms"], "added")
    lines.append("tools/list (through the gateway: one upstream re-list, then the answer)")
    for name, s in r["tools_list"].items():
        lines.append(f"{name:<10}{s['p50_ms']:>10.3f}{s['p99_ms']:>10.3f}   n={s['n']}")
    if r["http"] is None:
        lines.append("over HTTP against mcp-proxy: not measured (no --mcp-proxy or M1ND_BENCH_MCP_PROXY)")
        return "\n".join(lines)
    lines.append(f"then over Streamable HTTP, one bare client, alternating: m1nd gateway --http against "
                 f"mcp-proxy ({r['mcp_proxy']}), the same upstream")
    for name, s in r["http"].items():
        lines.append(f"{name:<10}{s['p50_ms']:>10.3f}{s['p99_ms']:>10.3f}   n={s['n']}")
    ratio = r["proxy_over_gateway"]
    verdict = "gateway ahead" if ratio["p50"] > 1 else "gateway NOT ahead"
    lines.append(f"{'ratio':<10}{ratio['p50']:>9.2f}x{ratio['p99']:>9.2f}x   mcp-proxy/gateway, p50 {verdict}")
    return "\n".join(lines)


def report_upstreams(r: dict[str, Any]) -> str:
    lines = []
    for label, u in r.get("upstreams", {}).items():
        lines.append(f"tools/call {u['tool']} on {label}, directly and through m1nd gateway, alternating")
        for name, s in u["stats"].items():
            lines.append(f"{name:<10}{s['p50_ms']:>10.3f}{s['p99_ms']:>10.3f}   n={s['n']}")
        added = u["added_ms"]
        verdict = "within goal" if added["p50"] <= r["goal_ms"] else f"above the +{r['goal_ms']} ms goal"
        lines.append(f"{'added':<10}{added['p50']:>+10.3f}{added['p99']:>+10.3f}   p50 {verdict}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--budget", type=float, default=300.0, help="seconds each timed series may run")
    parser.add_argument("--mcp-proxy", default=os.environ.get("M1ND_BENCH_MCP_PROXY"),
                        help="the mcp-proxy executable for the HTTP phase (default: $M1ND_BENCH_MCP_PROXY)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    quiet.require_quiet("bench_gateway")
    result = bench(args.n, args.warmup, args.budget, args.mcp_proxy)
    result["upstreams"] = other_upstreams(args.n, args.warmup, args.budget)
    print(json.dumps(result, indent=2) if args.json else f"{report(result)}\n{report_upstreams(result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Store scaling: write and cockpit-root latency at 1k, 10k and 100k memories.

For each size, one `state.json` is generated (the demo seed plus N memories). The JSON store
(baseline binary) serves it as it is; the SQLite store gets it through `m1nd store import`.
Each server then answers ROUNDS pairs of `memorize` (no expected version) and `cockpit` at the
root, interleaved, so every cockpit call follows a write and is composed afresh. The client is
bare newline-delimited JSON-RPC over stdio. Prints p50s per size and the p50 ratio 100k / 1k for
each store; the goal is at most 1.5x for the SQLite store. Run through scripts/bench-store.sh.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
import sys
sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)

ROOT = Path(__file__).resolve().parents[1]
SIZES = (1_000, 10_000, 100_000)
WARMUP = 3
GOAL = 1.5


def state_with(memories: int) -> dict:
    state = json.loads((ROOT / "src/store/demo.json").read_text())
    state["memories"] = [
        {
            "id": f"mem_bench{n:08d}",
            "node_label": "tests", "claims": [{"label": f"the walk cache for repository {n % 97} is keyed per graph; see note {n}"}],
            "source": "bench",
            "at": "2026-01-01T00:00:00Z",
        }
        for n in range(memories)
    ]
    return state


class Server:
    def __init__(self, binary: Path, store: Path) -> None:
        self.proc = subprocess.Popen(
            [str(binary), "serve", "--store", str(store)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.next = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.next:
                return answer

    def call(self, name: str, arguments: dict) -> float:
        start = time.perf_counter()
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        elapsed = time.perf_counter() - start
        result = answer.get("result", {})
        if "error" in answer or result.get("isError"):
            raise RuntimeError(f"{name} failed: {answer}")
        return elapsed

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def measure(binary: Path, store: Path, rounds: int) -> tuple[float, float]:
    server = Server(binary, store)
    writes, roots = [], []
    try:
        for n in range(WARMUP + rounds):
            w = server.call("memorize", {"node_label": "bench", "claims": [{"label": f"bench write {n}"}]})
            r = server.call("cockpit", {})
            if n >= WARMUP:
                writes.append(w)
                roots.append(r)
    finally:
        server.close()
    return statistics.median(writes) * 1000, statistics.median(roots) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--sqlite", type=Path, required=True)
    parser.add_argument("--json", type=Path, required=True)
    args = parser.parse_args()
    quiet.require_quiet("bench_store")

    results: dict[str, dict[int, tuple[float, float]]] = {"sqlite": {}, "json": {}}
    with tempfile.TemporaryDirectory(prefix="m1nd-bench-store-") as tmp:
        for size in SIZES:
            source = Path(tmp) / f"state-{size}.json"
            source.write_text(json.dumps(state_with(size)))
            json_dir = Path(tmp) / f"json-{size}"
            json_dir.mkdir()
            shutil.copy(source, json_dir / "state.json")
            (json_dir / "state.lock").touch()
            sqlite_dir = Path(tmp) / f"sqlite-{size}"
            subprocess.run([str(args.sqlite), "store", "import", str(source), "--store", str(sqlite_dir)], check=True, capture_output=True)
            # Interleave the two stores so load on the machine falls on both alike.
            results["json"][size] = measure(args.json, json_dir, args.rounds)
            results["sqlite"][size] = measure(args.sqlite, sqlite_dir, args.rounds)

    print(f"{'memories':>9}  {'store':<7} {'write p50 ms':>13} {'cockpit p50 ms':>15}")
    for size in SIZES:
        for store in ("sqlite", "json"):
            w, r = results[store][size]
            print(f"{size:>9,}  {store:<7} {w:>13.2f} {r:>15.2f}")
    for store in ("sqlite", "json"):
        (w1, r1), (w100, r100) = results[store][SIZES[0]], results[store][SIZES[-1]]
        print(f"{store}: p50 at 100k / 1k: write {w100 / w1:.2f}x, cockpit {r100 / r1:.2f}x (goal <= {GOAL}x)")
    for size in SIZES:
        (sw, sr), (jw, jr) = results["sqlite"][size], results["json"][size]
        print(f"{size:>9,}: sqlite / json: write {sw / jw:.2f}x, cockpit {sr / jr:.2f}x")


if __name__ == "__main__":
    main()

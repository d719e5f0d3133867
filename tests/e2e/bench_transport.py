"""What bad input costs the stdio transport, against good input in the same run.

Each case runs one `m1nd serve` process on a fresh demo store, writes its lines in one stream
(as a pipelining client would), waits for the answers it needs, reads the server's peak RSS
(VmHWM in /proc/PID/status: wait4's ru_maxrss would count the forking client's memory too),
closes stdin and takes the server's CPU time from wait4:

- `pings`: N valid pings, every answer awaited: the baseline.
- `junk`: N lines that are not JSON, then one ping, awaited. Should cost about what N pings
  cost: linear, nothing left behind per line.
- `notifications`: N notifications (never answered), then one ping, awaited.
- `idle`: initialize and one ping: the memory baseline.
- `big string`: one tools/call whose argument is a string of about 15 MiB (under the 16 MiB
  line cap; refused by the argument cap after it is parsed).
- `big array`: one tools/call whose argument is an array of 0s, about 15 MiB of text (refused
  by the value cap before any tree is built).

Standard library only. Always exits 0 when the measurement itself succeeds.

    python3 tests/e2e/bench_transport.py [--bin target/release/m1nd] [--n 100000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)

ROOT = Path(__file__).resolve().parents[2]
MIB = 1024 * 1024


def initialize() -> list[str]:
    return [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": "init",
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "0"},
                },
            }
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]


def run(binary: str, lines: list[str], wait_for: set[str]) -> dict[str, float]:
    """Serve `lines`; wait until every id in `wait_for` is answered; then close stdin."""
    with tempfile.TemporaryDirectory(prefix="m1nd-bench-transport-") as tmp:
        store = Path(tmp) / "store"
        subprocess.run([binary, "init", "--demo", "--store", str(store)], check=True, capture_output=True)
        proc = subprocess.Popen(
            [binary, "serve", "--store", str(store)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdin and proc.stdout
        payload = ("\n".join(initialize() + lines) + "\n").encode()

        def feed() -> None:
            try:
                proc.stdin.write(payload)
                proc.stdin.flush()
            except BrokenPipeError:
                pass

        start = time.perf_counter()
        writer = threading.Thread(target=feed)
        writer.start()
        pending = set(wait_for) | {"init"}
        errors = 0
        for raw in proc.stdout:
            message = json.loads(raw)
            if "error" in message:
                errors += 1
            pending.discard(str(message.get("id")))
            if not pending:
                break
        wall = time.perf_counter() - start
        writer.join()
        peak_kib = vm_hwm_kib(proc.pid)
        proc.stdin.close()
        proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if pending:
            raise SystemExit(f"unanswered: {sorted(pending)[:5]}")
        return {
            "wall_s": wall,
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_rss_mib": peak_kib / 1024,
            "error_answers": errors,
        }


def vm_hwm_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise SystemExit("no VmHWM in /proc/PID/status")


def ping(k: int | str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": k, "method": "ping"})


def tools_call(arguments_json: str) -> str:
    head = '{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"cockpit","arguments":'
    return head + arguments_json + "}}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.environ.get("M1ND_BIN", str(ROOT / "target/release/m1nd")))
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    quiet.require_quiet("bench_transport")
    n = args.n
    size = 15 * MIB

    results: dict[str, dict[str, float]] = {}
    results["pings"] = run(args.bin, [ping(k) for k in range(n)], {str(k) for k in range(n)})
    results["junk"] = run(args.bin, [f"{{junk {k}" for k in range(n)] + [ping("last")], {"last"})
    notes = [json.dumps({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"k": k}}) for k in range(n)]
    results["notifications"] = run(args.bin, notes + [ping("last")], {"last"})
    results["idle"] = run(args.bin, [ping("last")], {"last"})
    results["big string"] = run(args.bin, [tools_call(json.dumps({"select": "x" * size})), ping("last")], {"big", "last"})
    zeros = ",".join(["0"] * (size // 2))
    results["big array"] = run(args.bin, [tools_call('{"select":[' + zeros + "]}"), ping("last")], {"big", "last"})

    ratio = results["junk"]["cpu_s"] / max(results["pings"]["cpu_s"], 1e-9)
    if args.json:
        print(json.dumps({"n": n, "bin": args.bin, "results": results, "junk_over_pings_cpu": ratio}, indent=2))
        return
    print(f"m1nd serve ({args.bin}), N = {n}")
    print(f"{'case':<13} {'wall s':>8} {'cpu s':>8} {'cpu us/line':>12} {'peak RSS MiB':>13} {'errors':>7}")
    for name, r in results.items():
        per = r["cpu_s"] / n * 1e6 if name in ("pings", "junk", "notifications") else float("nan")
        print(
            f"{name:<13} {r['wall_s']:>8.2f} {r['cpu_s']:>8.2f} {per:>12.1f} {r['peak_rss_mib']:>13.1f} "
            f"{int(r['error_answers']):>7}"
        )
    print(f"junk / pings CPU: {ratio:.2f}x; big message peak RSS over the 16 MiB line cap: "
          f"{max(results['big string']['peak_rss_mib'], results['big array']['peak_rss_mib']) / 16:.1f}x")


if __name__ == "__main__":
    sys.exit(main())

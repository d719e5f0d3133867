"""Instructions per `tools/list` answered by `m1nd gateway` (stdio) in front of `m1nd serve`, under callgrind.

The gateway twin of bench_callgrind.py (read its docstring for why instructions). The upstream is
`m1nd serve` over a demo store, its policy made by `m1nd policy import` and set read-write (as
tests/gateway/bench_gateway.py does), so the gateway serves what the upstream lists. Two servers
are measured, each under valgrind's callgrind with a bare newline-delimited JSON-RPC client:

- `direct`: `m1nd serve` itself answering `tools/list`;
- `gateway`: `m1nd gateway` answering it (one re-list of the upstream, then its answer); only the
  gateway process is counted, not the upstream it starts.

For each, (measured - control) / N: a run with N listings after three, against a run with the
three alone. The gateway's per-function profile goes to OUT/top-gateway-tools-list.txt (build
with symbols to read it: see bench_callgrind_http.py).

    python3 scripts/bench_callgrind_gateway.py [--bin target/release/m1nd] [--n 100] [--out DIR]
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))
from bench_callgrind import (  # noqa: E402
    RUN_TIMEOUT_S, Kind, bench_arguments, environment, parsed, reaped, total_instructions, write_top,
)

#: Listings sent before counting starts: the first ones open the store and fill caches.
PRELUDE = 3


def rpc(process: subprocess.Popen[bytes], request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write((json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}) + "\n").encode())
    process.stdin.flush()
    while True:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"{method}: the server closed stdout (exit {process.poll()})")
        answer = json.loads(line)
        if answer.get("id") == request_id:
            if "result" not in answer:
                raise RuntimeError(f"{method}: {answer}")
            return answer


def run_once(argv: list[str], n: int, out_file: Path, work: Path) -> int:
    """`argv` under callgrind: the handshake, PRELUDE + n listings; its instruction count."""
    log = out_file.with_name(out_file.name + ".stderr")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", *argv]
    with open(log, "wb") as err:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                   env=environment(), cwd=work)
    with reaped(process):
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "callgrind", "version": "0"}}
        rpc(process, 0, "initialize", hello)
        assert process.stdin is not None
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        process.stdin.flush()
        for i in range(PRELUDE + n):
            rpc(process, i + 1, "tools/list", {})
        process.communicate(timeout=RUN_TIMEOUT_S)  # closes stdin: the server's cue to exit
    return total_instructions(out_file)


def main() -> None:
    args = parsed(bench_arguments(__doc__ or "", 100, "listings in a measured run"), "bench_callgrind_gateway")
    binary = str(args.bin)
    out = args.out.resolve()
    work = out / "gateway"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    store, policy = work / "store", work / "policy"
    upstream = [binary, "serve", "--store", str(store)]
    subprocess.run([binary, "init", "--demo", "--store", str(store)], check=True, capture_output=True)
    subprocess.run([binary, "policy", "import", "--policy", str(policy), "--", *upstream], check=True, capture_output=True)
    tools = policy / "tools.toml"
    text = tools.read_text()
    if 'mode = "read-only"' not in text:
        sys.exit(f"{tools} declares no imported mode")
    tools.write_text(text.replace('mode = "read-only"', 'mode = "read-write"', 1))
    figures = {}
    for name, argv in (("direct", upstream), ("gateway", [binary, "gateway", "--policy", str(policy), "--", *upstream])):
        control_out, measured_out = out / f"callgrind.list.{name}.control", out / f"callgrind.list.{name}.measured"
        control = run_once(argv, 0, control_out, work)
        measured = run_once(argv, args.n, measured_out, work)
        figures[name] = (measured - control) / args.n
        print(f"{name:<8} control {control:>14,}  measured {measured:>14,}  -> {figures[name]:>12,.0f}/listing", flush=True)
        if name == "gateway":
            write_top(out / "top-gateway-tools-list.txt", Kind("gateway tools/list", [], lambda i: []), args.n,
                      figures[name], measured_out, control_out, args.top)
    print(f"\ninstructions per tools/list, N = {args.n}, {binary}")
    print(f"direct   {figures['direct']:>12,.0f}")
    print(f"gateway  {figures['gateway']:>12,.0f}  ({figures['gateway'] / figures['direct']:.1f}x direct; the gateway "
          "process alone, beside the upstream's own answer)")
    print(f"(profile in {out}/top-gateway-tools-list.txt)")


if __name__ == "__main__":
    main()

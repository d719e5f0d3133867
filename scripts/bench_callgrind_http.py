"""Instructions per stateless Streamable HTTP request to `m1nd serve --http`, under callgrind.

The HTTP twin of bench_callgrind.py (read its docstring for why instructions): each kind runs the
real release server under valgrind's callgrind on a fresh copy of one demo store, and

    measured: start, a prelude (three requests of every kind), then N requests of the kind
    control:  start, the same prelude                                 (nothing else)

so (measured - control) / N is what one more request of that kind costs: hyper, axum, the
server's layers, rmcp's checks and the answer, start-up and shutdown cancelled out. The client is
the standard library's `http.client` on one kept-alive connection, sending 2026-07-28 stateless
requests (the headers and `_meta` that protocol asks for), each answered before the next.

- `server/discover`: the minimal request of that protocol revision, the baseline of the ratios
  (the wall-clock goal in tests/e2e/bench_http.py is measured against it too);
- `cockpit`: `tools/call cockpit {}`, its answer kept after the prelude;
- `tools/list`.

Each kind's per-function profile (inclusive and self, per request, measured minus control) goes to
OUT/top-http-<kind>.txt; build with symbols to read it (the release profile strips them):

    CARGO_PROFILE_RELEASE_STRIP=false cargo build --release --target-dir target/prof
    python3 scripts/bench_callgrind_http.py [--bin target/prof/release/m1nd] [--n 200] [--out DIR]
"""

from __future__ import annotations

import http.client
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))
import stateless_http  # noqa: E402  (the request both HTTP benches send)
from bench_callgrind import (  # noqa: E402
    Kind, bench_arguments, environment, parsed, reaped, total_instructions, write_top,
)

#: kind -> (method, params, the tool an `Mcp-Name` header names)
KINDS: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "server/discover": ("server/discover", {}, None),
    "cockpit": ("tools/call", {"name": "cockpit", "arguments": {}}, "cockpit"),
    "tools/list": ("tools/list", {}, None),
}
ADDRESS = re.compile(r"serving MCP on http://(?P<addr>[^\s\"/]+)/mcp")
#: Bounds on one server's life: it must print its address, and answer, within these.
START_TIMEOUT_S = 120
RUN_TIMEOUT_S = 600


class Client:
    """Stateless 2026-07-28 requests on one kept-alive connection."""

    def __init__(self, host: str, port: int) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=RUN_TIMEOUT_S)
        self.next_id = 0

    def send(self, kind: str) -> None:
        method, params, name = KINDS[kind]
        self.next_id += 1
        stateless_http.post(self.conn, self.next_id, method, params, name)


def run_once(binary: Path, template: Path, work: Path, kind: str, n: int, out_file: Path) -> int:
    """One server under callgrind: the prelude, then `n` requests of `kind`; its instruction count."""
    store = work / "store"
    if store.exists():
        shutil.rmtree(store)
    shutil.copytree(template, store)
    log = out_file.with_name(out_file.name + ".stderr")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
               str(binary), "serve", "--store", str(store), "--http", "127.0.0.1:0"]
    with open(log, "wb") as err:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, env=environment(), cwd=work)
    with reaped(process):
        deadline = time.monotonic() + START_TIMEOUT_S
        while not (found := ADDRESS.search(log.read_text(errors="replace"))):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server printed no address: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)
        host, _, port = found["addr"].rpartition(":")
        client = Client(host, int(port))
        for prelude in KINDS:
            for _ in range(3):
                client.send(prelude)
        for _ in range(n):
            client.send(kind)
        client.conn.close()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=RUN_TIMEOUT_S)
    return total_instructions(out_file)


def main() -> None:
    args = parsed(bench_arguments(__doc__ or "", 200, "requests of the kind in a measured run"), "bench_callgrind_http")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    template = out / "template-store"
    if template.exists():
        shutil.rmtree(template)
    subprocess.run([str(args.bin), "init", "--demo", "--store", str(template)], check=True, capture_output=True)
    control_out = out / "callgrind.http.control"
    control = run_once(args.bin, template, out, "server/discover", 0, control_out)
    figures: dict[str, float] = {}
    for kind in KINDS:
        slug = re.sub(r"[^a-z0-9]+", "-", kind)
        measured_out = out / f"callgrind.http.{slug}"
        measured = run_once(args.bin, template, out, kind, args.n, measured_out)
        figures[kind] = (measured - control) / args.n
        print(f"{kind:<16} control {control:>14,}  measured {measured:>14,}  -> {figures[kind]:>12,.0f}/request", flush=True)
        write_top(out / f"top-http-{slug}.txt", Kind(kind, [], lambda i: []), args.n, figures[kind],
                  measured_out, control_out, args.top)
    base = figures["server/discover"]
    print(f"\ninstructions per stateless HTTP request, m1nd serve --http under callgrind; N = {args.n}, {args.bin}")
    for kind, per in figures.items():
        print(f"{kind:<16} {per:>12,.0f}  {per / base:>6.2f}x server/discover")
    print(f"(profiles in {out}/top-http-*.txt)")


if __name__ == "__main__":
    main()

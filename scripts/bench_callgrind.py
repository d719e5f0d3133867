"""Instructions per round trip of `m1nd serve` (stdio) under valgrind's callgrind, as ratios to ping.

Instructions, unlike seconds, repeat: the same binary, inputs and environment execute the same
count whatever else the machine is doing. So each figure here comes from two valgrind runs of the
real release server that differ only in the requests of one kind:

    measured: start, handshake, prelude, then N requests of the kind
    control:  start, handshake, prelude                     (nothing else)

and the figure is (measured - control) / N: the instructions one more request of that kind
costs, the transport, rmcp, the guard, the store and the answer's serialisation all included,
start-up and shutdown cancelled out. The client is bare newline-delimited JSON-RPC (no SDK),
reading each answer before it sends the next request. The prelude makes the state steady
before counting: the first call of a kind opens the store, prepares statements and fills the
page cache, costs that later calls of the kind do not pay.

The kinds:

- `ping`: the JSON-RPC `ping`, the baseline every ratio is taken against.
- `cockpit cached`: `cockpit {}` repeated over the same state. The session keeps the answers
  it composed per request while the store's stamp (file and `store_version`) stays the same
  (src/server/answers.rs), so after the prelude's first compose every call is answered from
  that cache.
- `cockpit fresh`: a composed root, with no write in between: the answer cache keys on the
  whole request (`select` and `seen_store_version`), so a `seen_store_version` never sent
  before (1,000,000 + i; the state never gets there) misses it every time. The composed view
  differs from a plain root only by the one-line "state moved" note that a stale version adds.
- `cockpit after write`: the realistic fresh compose: `memorize` then `cockpit {}`, the write
  having moved the stamp. The figure is the pair's cost minus `memorize`'s own (the
  `memorize` kind, same run), so it is what the read costs after another request wrote.
- `north`: a plain read (one read transaction, an argument-less reading).
- `memorize`: a write (one `BEGIN IMMEDIATE` transaction, synced; a unique claim each).
- `unknown short`, `unknown 256 bytes`, `unknown 257 bytes`: a `tools/call` of a tool that does
  not exist, refused (`isError: true`, which these kinds expect). The "did you mean" search is
  one whose input size the caller chooses; the two long names must cost what the short one does.

Every run gets a fresh copy of one demo store at the same path with the same environment, so
runs are comparable; `--repeat 2` runs the whole set twice and shows both figures side by side.
The cockpit kinds and `memorize` are also annotated: `callgrind_annotate --inclusive=yes` of the measured and
the control run, subtracted per function and divided by N, so each line is what one request of
that kind spends in that function; the top of that list goes to OUT/top-<kind>.txt.

    python3 scripts/bench_callgrind.py --bin target/release/m1nd [--n 400] [--repeat 2] [--out DIR] [--only KIND]...
    scripts/bench-callgrind.sh [--n 400] [--repeat 2]      (builds the release binary first)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)

ROOT = Path(__file__).resolve().parents[1]
#: The longest one valgrind run may take (N = 400 fresh composes take about a minute).
RUN_TIMEOUT_S = 900

Request = tuple[str, dict[str, Any] | None]


def tool(name: str, arguments: dict[str, Any]) -> Request:
    return ("tools/call", {"name": name, "arguments": arguments})


def memorize(i: int) -> Request:
    # Fixed width, so every claim costs the same to check, store and echo.
    return tool("memorize", {"node_label": "bench", "claims": [{"label": f"callgrind bench claim {i:08d}"}]})


@dataclass
class Kind:
    """One kind of request: what steadies the state first, and one measured unit."""

    name: str
    prelude: list[Request]
    unit: Callable[[int], list[Request]]
    #: Another kind whose per-request cost is taken off this one's (per unit).
    minus: str | None = None
    #: Write the per-function profile of this kind to OUT/top-<slug>.txt.
    annotate: bool = False
    #: The unit is refused by design (a tool result with `isError: true`), not a failure.
    refused: bool = False
    note: str = ""

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


COCKPIT_ROOT = tool("cockpit", {})
#: Unknown tool names: a short one, one as long as the guard looks up (256 bytes), and one byte
#: longer, which the guard refuses on its length alone (m1nd_policy::guard::MAX_NAME_BYTES). The
#: long ones must cost what the short one does: "did you mean" is a search whose input size the
#: caller controls.
UNKNOWN_SHORT = tool("no_such_tool", {})
UNKNOWN_LONGEST = tool("no_such_tool_" + "x" * (256 - len("no_such_tool_")), {})
UNKNOWN_TOO_LONG = tool("no_such_tool_" + "x" * (257 - len("no_such_tool_")), {})
KINDS: list[Kind] = [
    Kind("ping", [("ping", None)], lambda i: [("ping", None)]),
    Kind("cockpit cached", [COCKPIT_ROOT], lambda i: [COCKPIT_ROOT], annotate=True, note="the same `cockpit {}`"),
    Kind(
        "cockpit fresh",
        [COCKPIT_ROOT],
        lambda i: [tool("cockpit", {"seen_store_version": 1_000_000 + i})],
        annotate=True,
        note="unseen seen_store_version, no write",
    ),
    Kind(
        "cockpit after write",
        [memorize(999_999), COCKPIT_ROOT],
        lambda i: [memorize(i), COCKPIT_ROOT],
        minus="memorize",
        annotate=True,
        note="(memorize + cockpit {}) - memorize",
    ),
    Kind("north", [tool("north", {"task": "bench"})], lambda i: [tool("north", {"task": "bench"})]),
    Kind("memorize", [memorize(999_999)], lambda i: [memorize(i)], annotate=True, note="synced write, unique claim"),
    Kind("unknown short", [UNKNOWN_SHORT], lambda i: [UNKNOWN_SHORT], refused=True, note="refused, 12 bytes"),
    Kind("unknown 256 bytes", [UNKNOWN_LONGEST], lambda i: [UNKNOWN_LONGEST], refused=True, note="refused, did-you-mean searched"),
    Kind("unknown 257 bytes", [UNKNOWN_TOO_LONG], lambda i: [UNKNOWN_TOO_LONG], refused=True, note="refused on length alone"),
]


class Rpc:
    """Bare JSON-RPC over the server's stdin/stdout: one line out, its answer back."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin and process.stdout
        self.process = process
        self.stdin = process.stdin
        self.stdout = process.stdout
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None, refused: bool = False) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        line = self.stdout.readline()
        if not line:
            raise RuntimeError(f"{method}: the server closed stdout (exit {self.process.poll()})")
        answer = json.loads(line)
        is_error = bool(answer.get("result", {}).get("isError"))
        if answer.get("id") != self.next_id or "error" in answer or is_error != refused:
            raise RuntimeError(f"{method} {json.dumps(params)[:200]}: unexpected answer {line[:400]!r}")
        return answer["result"]


def environment() -> dict[str, str]:
    """The same few variables for every run: the environment is part of what valgrind runs."""
    return {"PATH": "/usr/bin:/bin", "LANG": "C", "HOME": str(ROOT / "target")}


def run_once(binary: Path, template: Path, work: Path, requests: list[Request], out_file: Path, refused: bool) -> int:
    """One server under callgrind answering `requests` (each refused, when `refused`); its total instruction count."""
    store = work / "store"
    if store.exists():
        shutil.rmtree(store)
    shutil.copytree(template, store)
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out_file}",
        str(binary),
        "serve",
        "--store",
        str(store),
    ]
    log = out_file.with_name(out_file.name + ".stderr")
    with open(log, "wb") as err:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=environment(), cwd=work)
    # Bounded: a server that stops answering is killed, and the run fails, after RUN_TIMEOUT_S.
    watchdog = threading.Timer(RUN_TIMEOUT_S, process.kill)
    watchdog.start()
    try:
        rpc = Rpc(process)
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "callgrind", "version": "0"}}
        rpc.request("initialize", hello)
        rpc.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for method, params in requests:
            rpc.request(method, params, refused)
        process.communicate(timeout=RUN_TIMEOUT_S)  # closes stdin: the server's cue to exit
    except BaseException:
        process.kill()
        process.wait()
        raise
    finally:
        watchdog.cancel()
    if process.returncode != 0:
        raise RuntimeError(f"valgrind m1nd serve exited {process.returncode}: {log.read_text(errors='replace')[-2000:]}")
    return total_instructions(out_file)


def bench_arguments(description: str, n: int, n_help: str) -> argparse.ArgumentParser:
    """The arguments the callgrind benches share (this one and its HTTP and gateway twins)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    # Made absolute by the caller: each server runs in a work directory of its own.
    parser.add_argument("--bin", type=Path, default=ROOT / "target/release/m1nd")
    parser.add_argument("--n", type=int, default=n, help=n_help)
    parser.add_argument("--out", type=Path, default=ROOT / "target/bench-callgrind")
    parser.add_argument("--top", type=int, default=40, help="functions listed per profile")
    return parser


def parsed(parser: argparse.ArgumentParser, bench: str) -> argparse.Namespace:
    """The arguments, `--bin` made absolute, once the machine is quiet and valgrind is there."""
    args = parser.parse_args()
    args.bin = args.bin.resolve()
    quiet.require_quiet(bench)
    require_valgrind()
    return args


@contextlib.contextmanager
def reaped(process: subprocess.Popen[bytes]) -> Iterator[subprocess.Popen[bytes]]:
    """`process`, killed and waited for if it is still running when the block is left."""
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def require_valgrind() -> None:
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        sys.exit("valgrind is not installed: apt-get install -y valgrind (scripts/bench-callgrind.sh does it)")


def total_instructions(out_file: Path) -> int:
    for line in out_file.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"{out_file}: no summary line")


_ANNOTATED = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)\s*$")

#: Frames every request passes through on its way down (process start, the runtime, thread
#: start): left out of the inclusive list, where they would only repeat the total.
_SCAFFOLDING = re.compile(
    r"\(below main\)|libc_start|ld-linux|:main \[|std::rt::|std::sys::backtrace|m1nd::main|m1nd::cli::main|"
    r"m1nd::server::run |tokio::runtime::(runtime|context|scheduler|task)|start_thread|thread_start|"
    r"call_once\{\{vtable"
)


def by_function(out_file: Path, inclusive: bool) -> dict[str, int]:
    """callgrind_annotate's count (inclusive or self) for every function of one run."""
    text = subprocess.run(
        ["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", str(out_file)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    counts: dict[str, int] = {}
    for line in text.splitlines():
        found = _ANNOTATED.match(line)
        if found and ":" in found[2] and not found[2].startswith("PROGRAM TOTALS"):
            name = _OBJECT.sub(lambda m: f" [{Path(m[1]).name}]", found[2])
            counts[name] = counts.get(name, 0) + int(found[1].replace(",", ""))
    return counts


#: The object a function is in, as callgrind_annotate prints it: `[/full/path/to/lib.so]`.
_OBJECT = re.compile(r" \[([^\]]+)\]$")


def per_request(measured: Path, control: Path, n: int, inclusive: bool) -> list[tuple[float, str]]:
    """(measured - control) / n per function, largest first."""
    with_calls, without = by_function(measured, inclusive), by_function(control, inclusive)
    delta = {name: (count - without.get(name, 0)) / n for name, count in with_calls.items()}
    return sorted(((d, name) for name, d in delta.items() if d > 0), reverse=True)


def write_top(path: Path, kind: Kind, n: int, per_call: float, measured: Path, control: Path, top: int) -> None:
    lines = [
        f"# {kind.name}: instructions per request, by function",
        f"# (measured run - control run) / N, N = {n}; {per_call:,.0f} instructions per request in all"
        + (f" (before taking off `{kind.minus}`)" if kind.minus else ""),
        f"# from {measured.name} and {control.name} (callgrind_annotate --threshold=100)",
    ]
    inclusive = [(d, name) for d, name in per_request(measured, control, n, True) if not _SCAFFOLDING.search(name)]
    for title, rows in (
        ("inclusive: the function and what it calls (process start, runtime and thread frames left out)", inclusive),
        ("self: instructions executed in the function itself", per_request(measured, control, n, False)),
    ):
        lines += ["", f"## {title}", f"# {'Ir/request':>12}  {'share':>6}  function"]
        lines += [f"{d:>14,.0f}  {100 * d / per_call:>5.1f}%  {name}" for d, name in rows[:top]]
    path.write_text("\n".join(lines) + "\n")


@dataclass
class Figure:
    per_call: list[float] = field(default_factory=list)


def main() -> None:
    parser = bench_arguments(__doc__ or "", 400, "requests of the kind in a measured run")
    parser.add_argument("--repeat", type=int, default=2, help="how many times the whole set runs")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    parser.add_argument("--only", action="append", default=[], metavar="KIND", help="run only this kind (repeatable; ping always runs)")
    args = parser.parse_args()
    args.bin = args.bin.resolve()
    quiet.require_quiet("bench_callgrind")
    names = [kind.name for kind in KINDS]
    unknown = [name for name in args.only if name not in names]
    if unknown:
        sys.exit(f"--only {unknown[0]!r}: no such kind; the kinds are {', '.join(names)}")
    wanted = set(args.only) | {"ping"} | {kind.minus for kind in KINDS if kind.name in args.only and kind.minus}
    kinds = [kind for kind in KINDS if not args.only or kind.name in wanted]
    require_valgrind()
    if not 1 <= args.n <= 10_000 or not 1 <= args.repeat <= 10:
        sys.exit("--n must be 1..10000 and --repeat 1..10")

    out: Path = args.out.resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    template = out / "template-store"
    subprocess.run([str(args.bin), "init", "--demo", "--store", str(template)], check=True, capture_output=True)

    figures = {kind.name: Figure() for kind in kinds}
    raw: dict[str, list[dict[str, int]]] = {kind.name: [] for kind in kinds}
    for r in range(1, args.repeat + 1):
        for kind in kinds:
            units = [request for i in range(args.n) for request in kind.unit(i)]
            control_out = out / f"callgrind.{kind.slug}.control.{r}"
            measured_out = out / f"callgrind.{kind.slug}.measured.{r}"
            control = run_once(args.bin, template, out, kind.prelude, control_out, kind.refused)
            measured = run_once(args.bin, template, out, kind.prelude + units, measured_out, kind.refused)
            per_call = (measured - control) / args.n
            figures[kind.name].per_call.append(per_call)
            raw[kind.name].append({"control": control, "measured": measured})
            print(f"run {r}: {kind.name:<20} control {control:>13,}  measured {measured:>13,}  -> {per_call:>12,.0f}/request", file=sys.stderr)
            if kind.annotate and r == 1:
                write_top(out / f"top-{kind.slug}.txt", kind, args.n, per_call, measured_out, control_out, args.top)

    # Take off what another kind costs (the write before a fresh compose), run by run.
    for kind in kinds:
        if kind.minus:
            own = figures[kind.minus].per_call
            figures[kind.name].per_call = [v - own[i] for i, v in enumerate(figures[kind.name].per_call)]

    ping = figures["ping"].per_call
    header = "  ".join(f"{f'run {r + 1}':>12}" for r in range(args.repeat))
    print(f"\ninstructions per round trip, m1nd serve (stdio) under callgrind; N = {args.n} per kind, {args.bin}")
    print(f"{'kind':<20}  {header}  {'spread':>7}  {'x ping':>7}  how")
    for kind in kinds:
        values = figures[kind.name].per_call
        spread = (max(values) - min(values)) / max(abs(min(values)), 1)
        ratio = sum(v / p for v, p in zip(values, ping)) / len(values)
        cells = "  ".join(f"{v:>12,.0f}" for v in values)
        print(f"{kind.name:<20}  {cells}  {100 * spread:>6.2f}%  {ratio:>6.2f}x  {kind.note}")
    print(f"(spread: largest minus smallest over the runs, against the smallest; profiles in {out}/top-*.txt)")
    if args.json:
        print(json.dumps({"n": args.n, "per_call": {k: f.per_call for k, f in figures.items()}, "raw": raw}, indent=2))


if __name__ == "__main__":
    main()

"""Refuse to measure on a machine that is too busy for the figure to mean anything.

Every bench that publishes a figure calls `require_quiet()` before it starts anything: when the
load average over the last minute is above the threshold, it says so on stderr and exits with
`BUSY` (3) having built, started and written nothing. A figure taken while a build or another
bench shares the cores would compare the machine's neighbours, not the code.

The threshold is the number of cores (an idle machine sits near 0, one background build puts it
at the number of cores or above); `M1ND_BENCH_MAX_LOAD` sets another. A machine that has just
finished a build (a bench's own release build) is given up to `M1ND_BENCH_SETTLE` seconds (90)
for the average to fall before the bench gives up. Benches that create their own load (the load
test, the replica bench) check only before they start it.

From a shell: `python3 scripts/lib/quiet.py` exits 0 when quiet, 3 (with the reason) when busy.
"""

import os
import sys
import time

BUSY = 3


def threshold() -> float:
    """The highest one-minute load average a measurement accepts."""
    raw = os.environ.get("M1ND_BENCH_MAX_LOAD")
    if raw is None or raw == "":
        return float(os.cpu_count() or 1)
    try:
        return float(raw)
    except ValueError:
        sys.exit(f"M1ND_BENCH_MAX_LOAD={raw!r} is not a number; give the highest one-minute load average to accept")


def settle_seconds() -> float:
    """How long to wait for a busy machine to become quiet before giving up."""
    raw = os.environ.get("M1ND_BENCH_SETTLE") or "90"
    try:
        return max(0.0, float(raw))
    except ValueError:
        sys.exit(f"M1ND_BENCH_SETTLE={raw!r} is not a number of seconds")


def load_average() -> tuple[float, float, float]:
    return os.getloadavg()


def describe(load: tuple[float, float, float]) -> str:
    """The load average as each bench prints it beside its figures."""
    return ", ".join(f"{x:.2f}" for x in load)


def require_quiet(what: str) -> tuple[float, float, float]:
    """Exit with BUSY, recording nothing, unless the machine is quiet enough to measure `what`.

    Returns the load average at the start, for the report.
    """
    limit = threshold()
    deadline = time.monotonic() + settle_seconds()
    load = load_average()
    while load[0] > limit and time.monotonic() < deadline:
        time.sleep(5)
        load = load_average()
    if load[0] > limit:
        print(
            f"{what}: the machine is too busy to measure: load average {describe(load)} "
            f"(1, 5, 15 min), the last minute above {limit:g} (M1ND_BENCH_MAX_LOAD, default: the "
            f"number of cores); nothing measured or recorded. Wait for the other work to end and run again.",
            file=sys.stderr,
        )
        sys.exit(BUSY)
    # Every report records the load its figures were taken at (docs/figures.toml asks for it).
    print(f"{what}: load average at the start {describe(load)}", file=sys.stderr)
    return load


if __name__ == "__main__":
    require_quiet(sys.argv[1] if len(sys.argv) > 1 else "bench")

"""A big store for the load test: the demo seed plus many alerts and memories, imported.

The JSON store's document (`state.json`, format `m1nd-store-v1`, read by src/store/json.rs) is
generated here and handed to `m1nd store import`, the supported way into a SQLite store, as
scripts/bench_store.py does for memories. The alerts are what `trace` scans: every call reads
every alert and intersects its words with the error text's, so their number sets a heavy
reader's cost. Their words are drawn from small vocabularies, so a stack trace that names some
of them matches a share of the alerts, as a real one would.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SUBSYSTEMS = ["walk", "ingest", "graph", "cache", "index", "parser", "queue", "router", "lease", "ledger",
              "sync", "fetch", "merge", "lint", "schema", "render", "watch", "shard", "quota", "token"]
SYMPTOMS = ["timeout", "panic", "overflow", "stale", "deadlock", "refused", "corrupt", "leak", "retry", "drift",
            "mismatch", "starved", "evicted", "throttled", "truncated", "orphaned", "duplicated", "skipped"]
LEVELS = ["info", "warn", "error"]


def alert(n: int) -> dict[str, str]:
    sub, sym = SUBSYSTEMS[n % len(SUBSYSTEMS)], SYMPTOMS[(n // len(SUBSYSTEMS)) % len(SYMPTOMS)]
    module = f"crates/{sub}/src/part{n % 500:03d}.rs"
    return {
        "id": f"al_load{n:08d}",
        "level": LEVELS[n % len(LEVELS)],
        "text": f"{sub} {sym} in {module} after deploy {n % 1000} (host{n % 64:02d}, attempt {n % 7})",
        "node": module,
    }


def memory(n: int) -> dict[str, str]:
    return {
        "id": f"mem_load{n:08d}",
        "claim": f"seeded claim {n}: the {SUBSYSTEMS[n % 20]} path retries {n % 5} times before it parks",
        "source": "loadtest-seed",
        "at": "2026-01-01T00:00:00Z",
    }


def error_text(target_bytes: int) -> str:
    """A long stack trace (a heavy `trace` argument). Its frames name five of the twenty
    subsystems, the first hundred of the 500 source files and a few hundred line numbers, so it
    shares a word with about 60% of the alerts (the report prints the count); every alert's
    words are compared with it."""
    frames = []
    n = 0
    while sum(len(f) + 1 for f in frames) < target_bytes:
        sub = SUBSYSTEMS[(n * 7) % 5]
        frames.append(f"  at {sub}::worker::step_{n} ({sub}/part{n % 100:03d}.rs:{100 + n % 900}) frame{n}")
        n += 1
    return "thread 'main' panicked: lease expired while holding the lock\nstack backtrace:\n" + "\n".join(frames)


def write_state(work: Path, alerts: int, memories: int) -> Path:
    """`work/state.json`: the demo seed plus `alerts` alerts and `memories` memories."""
    state = json.loads((ROOT / "src/store/demo.json").read_text())
    state["alerts"] += [alert(n) for n in range(alerts)]
    state["memories"] += [memory(n) for n in range(memories)]
    source = work / "state.json"
    source.write_text(json.dumps(state))
    return source


def seed(binary: Path, work: Path, alerts: int, memories: int) -> tuple[Path, float]:
    """Write `state.json` under `work`, import it into `work/store`; the store and seconds taken."""
    started = time.monotonic()
    source = write_state(work, alerts, memories)
    store = work / "store"
    subprocess.run([str(binary), "store", "import", str(source), "--store", str(store)], check=True,
                   capture_output=True)
    source.unlink()
    return store, time.monotonic() - started

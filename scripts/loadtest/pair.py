"""Two server binaries under the same team load, taken in turns, so that a busy or drifting
machine weighs on both alike; prints each run and the medians, with the candidate's ratio to
the baseline.

    python3 scripts/loadtest/pair.py BASELINE_BIN CANDIDATE_BIN [--rounds N] [team.py flags...]

Each round runs `team.py` once per binary (the baseline first in odd rounds, the candidate first in
even ones), each on its own freshly seeded store under target/loadtest/pair/. Flags after the two
binaries go to every team.py run (for example `--seconds 15 --readers 0 --alerts 20000`). It
exits 1 when any run fails (a lost write or an error), and never for a timing.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

# What is read from each report (team.py's own wording), and whether more is better.
FIGURES = {
    "writes/s": (re.compile(r"acknowledged writes\s+[\d,]+ in the window: ([\d.,]+) /s"), True),
    "write p99 ms": (re.compile(r"write latency\s+p50 [\d.,]+ ms, p99 ([\d.,]+) ms"), False),
    "human MCP p50 ms": (re.compile(r"human, MCP cockpit \{\}\s+p50 ([\d.,]+) ms"), False),
    "human MCP p99 ms": (re.compile(r"human, MCP cockpit \{\}\s+p50 [\d.,]+ ms, p99 ([\d.,]+) ms"), False),
    "cockpit calls/s": (re.compile(r"^\s+([\d,]+) calls/s \(", re.M), True),
}


def run(binary: str, label: str, round_no: int, team_args: list[str]) -> dict[str, float]:
    out = ROOT / "target" / "loadtest" / "pair" / f"{label}-{round_no}"
    cmd = [sys.executable, str(HERE / "team.py"), "--bin", binary, "--out", str(out), *team_args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"pair: {label} run {round_no} failed (exit {done.returncode}); its report is above")
    figures = {}
    for name, (pattern, _) in FIGURES.items():
        found = pattern.search(done.stdout)
        if found:
            figures[name] = float(found.group(1).replace(",", ""))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline")
    parser.add_argument("candidate")
    parser.add_argument("--rounds", type=int, default=3)
    args, team_args = parser.parse_known_args()
    runs: dict[str, list[dict[str, float]]] = {"baseline": [], "candidate": []}
    for round_no in range(1, args.rounds + 1):
        order = ["baseline", "candidate"] if round_no % 2 else ["candidate", "baseline"]
        for label in order:
            figures = run(getattr(args, label), label, round_no, team_args)
            runs[label].append(figures)
            shown = ", ".join(f"{k} {v:,.1f}" for k, v in figures.items())
            print(f"round {round_no} {label:<9} {shown}", flush=True)
    print(f"\nmedians of {args.rounds} rounds (candidate / baseline; > 1 is better)")
    for name, (_, more_is_better) in FIGURES.items():
        base = [r[name] for r in runs["baseline"] if name in r]
        cand = [r[name] for r in runs["candidate"] if name in r]
        if not base or not cand:
            continue
        b, c = statistics.median(base), statistics.median(cand)
        better = (c / b if more_is_better else b / c) if b and c else float("nan")
        print(f"  {name:<18} baseline {b:>10,.1f}   candidate {c:>10,.1f}   {better:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

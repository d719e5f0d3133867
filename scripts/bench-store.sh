#!/usr/bin/env bash
# Store scaling bench: write latency and cockpit-root latency at 1,000, 10,000
# and 100,000 memories, for this tree's SQLite store and, in the same run, for
# the JSON store of commit 071474c (the last revision that has it).
#
#   scripts/bench-store.sh [ROUNDS]      (default 40 timed write + cockpit pairs per size)
#
# Both binaries are release builds. The baseline's source is taken with
# `git archive` into target/bench-store/json-src and built with this tree's
# target directory (the dependencies are shared); its binary is kept as
# target/bench-store/m1nd-json. The driver, scripts/bench_store.py, speaks bare
# JSON-RPC over stdio to `m1nd serve` and prints p50s and the 100k/1k ratios.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
rounds=${1:-40}
baseline=071474c
out="$root/target/bench-store"
mkdir -p "$out"

if [[ ! -x "$out/m1nd-json" ]]; then
  rm -rf "$out/json-src"
  mkdir -p "$out/json-src"
  git archive "$baseline" | tar -x -C "$out/json-src"
  CARGO_TARGET_DIR="$root/target" cargo build -q --release --manifest-path "$out/json-src/Cargo.toml" --bin m1nd
  cp "$root/target/release/m1nd" "$out/m1nd-json"
fi
cargo build -q --release --bin m1nd
cp "$root/target/release/m1nd" "$out/m1nd-sqlite"

python3 scripts/bench_store.py --rounds "$rounds" --sqlite "$out/m1nd-sqlite" --json "$out/m1nd-json"

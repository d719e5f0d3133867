#!/usr/bin/env bash
# What CI runs for the fuzz crate (called from .ci/run):
#   1. installs cargo-fuzz at its pinned version (cached in target/fuzz-tools);
#   2. formats and lints the crate (without libFuzzer, so no C++ is compiled twice);
#   3. builds every target once, instrumented;
#   4. replays every committed corpus: each input must pass every property;
#   5. fuzzes each target for FUZZ_SECONDS (default 12) from its corpus; new
#      inputs go to target/fuzz/runs/ci/, never into the repository;
#   6. runs the planted-bug check (planted.sh).
# Any crash fails the run and names the input; see README.md for what to do.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

FUZZ_SECONDS="${FUZZ_SECONDS:-12}"
started=$SECONDS
lap() { printf '   (%ss)\n' "$((SECONDS - started))"; }

echo "-- install cargo-fuzz $CARGO_FUZZ_VERSION"
install_cargo_fuzz
lap

echo "-- format and lint the fuzz crate"
cargo fmt --manifest-path "$FUZZ_DIR/Cargo.toml" -- --check
nice -n 10 cargo clippy --quiet --manifest-path "$FUZZ_DIR/Cargo.toml" --no-default-features --features server --all-targets -- -D warnings
lap

echo "-- build every target once, instrumented"
build_targets
lap

mapfile -t all < <(targets)
rm -rf "$RUNS/ci"
mkdir -p "$RUNS/ci"
failed=0

echo "-- replay the corpora"
for t in "${all[@]}"; do
  log="$RUNS/ci/$t.replay.log"
  if [ ! -d "$FUZZ_DIR/corpus/$t" ]; then
    echo "!! fuzz/corpus/$t is missing: seed it with bash fuzz/corpus.sh and commit it" >&2
    failed=1
    continue
  fi
  if "$(target_bin "$t")" -runs=0 -timeout=20 -artifact_prefix="$RUNS/ci/$t-" "$FUZZ_DIR/corpus/$t" >"$log" 2>&1; then
    printf '   %-10s %s inputs pass\n' "$t" "$(find "$FUZZ_DIR/corpus/$t" -type f | wc -l)"
  else
    report_crash "$t" "$log"
    failed=1
  fi
done
lap

echo "-- fuzz each target for ${FUZZ_SECONDS}s"
for t in "${all[@]}"; do
  log="$RUNS/ci/$t.log"
  mkdir -p "$RUNS/ci/$t"
  if nice -n 10 "$(target_bin "$t")" -max_total_time="$FUZZ_SECONDS" -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$RUNS/ci/$t-" "$RUNS/ci/$t" "$FUZZ_DIR/corpus/$t" >"$log" 2>&1; then
    printf '   %-10s %s\n' "$t" "$(done_line "$log")"
  else
    report_crash "$t" "$log"
    failed=1
  fi
done
lap

echo "-- the planted bug is found"
bash "$FUZZ_DIR/planted.sh"
lap

if [ "$failed" != 0 ]; then
  echo "fuzz: a property failed (above)" >&2
  exit 1
fi
echo "fuzz: every corpus replays, every target fuzzed ${FUZZ_SECONDS}s without a failure, the planted bug found ($((SECONDS - started))s)"

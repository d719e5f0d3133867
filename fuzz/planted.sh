#!/usr/bin/env bash
# Proves the harness finds bugs: a build of the reference target with the
# `planted-bug` feature (an off-by-one that lets a reference hold a fourth,
# unread number; see m1nd-core/src/runtime/reference.rs) must crash within
# PLANTED_RUNS executions, from a fixed seed and a fixed corpus of three valid
# references. libFuzzer in one process is deterministic for a given binary,
# seed and corpus, so this check does not flake. Then, as a control, the
# input it found must pass the ordinary build: the planted bug, not the
# harness, is what failed.
#
# The planted build is the reference target alone, built like every target but
# with the feature and without the `server` feature (the reference target does
# not need the server), in the same target directory: only m1nd-policy and the
# fuzz crate are compiled again, and the planted binary is copied away before
# the ordinary build is linked again for the control.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

PLANTED_RUNS="${PLANTED_RUNS:-100000}"
PLANTED_SEED=1
install_cargo_fuzz
work="$RUNS/planted"
rm -rf "$work"
mkdir -p "$work/seeds" "$work/found"
(cd "$REPO" && nice -n 10 cargo fuzz build --fuzz-dir "$FUZZ_DIR" --sanitizer none --debug-assertions \
  --no-default-features --features libfuzzer,planted-bug reference)
planted="$work/reference-planted"
cp "$(target_bin reference)" "$planted"
printf '3.2.1' >"$work/seeds/action"
printf '2.1@mc_0a1b2c3d' >"$work/seeds/item-with-sig"
printf '?' >"$work/seeds/root"

if "$planted" -seed="$PLANTED_SEED" -runs="$PLANTED_RUNS" -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/found" "$work/seeds" >"$work/log" 2>&1; then
  echo "planted: the off-by-one was NOT found in $PLANTED_RUNS runs (seed $PLANTED_SEED); the harness is blind" >&2
  exit 1
fi
crash="$(find "$work" -maxdepth 1 -name 'crash-*' | head -n 1)"
if [ -z "$crash" ] || ! grep -q "panicked at src/reference.rs" "$work/log"; then
  echo "planted: the planted build failed, but not on a reference property:" >&2
  tail -n 30 "$work/log" >&2
  exit 1
fi
runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")"
property="$(grep -A 1 "panicked at src/reference.rs" "$work/log" | tail -n 1)"

build_targets
if ! "$(target_bin reference)" "$crash" >"$work/control.log" 2>&1; then
  echo "planted: the ordinary build fails on $crash too; this is a real bug:" >&2
  tail -n 30 "$work/control.log" >&2
  exit 1
fi
echo "planted: found after ${runs:-?} runs (seed $PLANTED_SEED): $property"
echo "planted: input $(od -An -c "$crash" | tr -s ' ' | head -c 120); the ordinary build passes it"

#!/usr/bin/env bash
# Rebuilds the committed corpora, minimised: for each target, the seeds
# written from the repository's fixtures (examples/seed/), the current
# fuzz/corpus/<target>/ and, optionally, the corpora of campaigns
# (`corpus.sh target/fuzz/runs/campaign/<stamp>`) are merged by libFuzzer
# into a small set of inputs that reaches every edge they reach together
# (-set_cover_merge=1 over edges alone, -use_counters=0: hit counts would keep
# ten times the inputs, mostly large policies). The result replaces
# fuzz/corpus/<target>/.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

install_cargo_fuzz
build_targets
seeds="$RUNS/seeds"
rm -rf "$seeds"
nice -n 10 cargo run --quiet --manifest-path "$FUZZ_DIR/Cargo.toml" --example seed -- "$seeds"

for t in $(targets); do
  sources=("$FUZZ_DIR/corpus/$t" "$seeds/$t")
  for campaign in "$@"; do
    [ -d "$campaign/$t/corpus" ] && sources+=("$campaign/$t/corpus")
  done
  merged="$RUNS/merged/$t"
  rm -rf "$merged"
  mkdir -p "$merged" "$FUZZ_DIR/corpus/$t"
  nice -n 10 "$(target_bin "$t")" -set_cover_merge=1 -use_counters=0 -timeout=20 "$merged" "${sources[@]}" >"$RUNS/merge-$t.log" 2>&1 || {
    report_crash "$t" "$RUNS/merge-$t.log"
    exit 1
  }
  rm -rf "$FUZZ_DIR/corpus/$t"
  mv "$merged" "$FUZZ_DIR/corpus/$t"
  printf '%-10s %4s inputs, %s\n' "$t" "$(find "$FUZZ_DIR/corpus/$t" -type f | wc -l)" \
    "$(du -sh --apparent-size "$FUZZ_DIR/corpus/$t" | cut -f1)"
done

#!/usr/bin/env bash
# A long campaign: each target in turn (one core, nice'd) for SECONDS_PER_TARGET
# (first argument, default 360: 78 minutes for the thirteen targets), starting from
# a copy of its committed corpus, so the repository is untouched. Then a
# report, per target, of executions per second, edge coverage (libFuzzer's
# `cov`: edges reached / edges instrumented), corpus size before and after,
# and crashes, written to target/fuzz/runs/campaign/<stamp>/report.md.
#
# Fold what a campaign found into the committed corpora with
# `fuzz/corpus.sh target/fuzz/runs/campaign/<stamp>`.
#
#   bash fuzz/campaign.sh [SECONDS_PER_TARGET] [TARGET...]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

per_target="${1:-360}"
shift || true
install_cargo_fuzz
build_targets
if [ "$#" -gt 0 ]; then chosen=("$@"); else mapfile -t chosen < <(targets); fi

out="$RUNS/campaign/$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$out"
report="$out/report.md"
{
  echo "# Fuzz campaign $(basename "$out"): ${per_target}s per target, one process each, nice'd"
  echo
  echo "Host: $(nproc) cores, $(rustc --version); reproduce with \`bash fuzz/campaign.sh $per_target\`."
  echo
  echo "| target | seconds | executions | execs/s | edges covered / instrumented | features | corpus before → after (inputs, bytes) | crashes |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$report"

size() { echo "$(find "$1" -type f | wc -l) / $(du -sb "$1" | cut -f1)"; }

for t in "${chosen[@]}"; do
  dir="$out/$t"
  mkdir -p "$dir/corpus"
  cp -r "$FUZZ_DIR/corpus/$t/." "$dir/corpus/"
  before="$(size "$dir/corpus")"
  start=$SECONDS
  status=0
  nice -n 15 "$(target_bin "$t")" -max_total_time="$per_target" -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$dir/" "$dir/corpus" >"$dir/log" 2>&1 || status=$?
  elapsed=$((SECONDS - start))
  executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log")"
  last="$(grep -E '^#[0-9]+' "$dir/log" | tail -n 1)"
  cov="$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' <<<"$last")"
  ft="$(sed -n 's/.* ft: \([0-9]*\) .*/\1/p' <<<"$last")"
  instrumented="$(sed -n 's/^INFO: Loaded 1 modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$dir/log" | head -n 1)"
  crashes="$(find "$dir" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'timeout-*' -o -maxdepth 1 -name 'oom-*' | wc -l)"
  [ "$status" = 0 ] || report_crash "$t" "$dir/log"
  echo "| $t | $elapsed | ${executions:-?} | ${rate:-?} | ${cov:-?} / ${instrumented:-?} | ${ft:-?} | $before → $(size "$dir/corpus") | $crashes |" >>"$report"
done
cat "$report"
echo
echo "fold into the committed corpora: bash fuzz/corpus.sh $out"

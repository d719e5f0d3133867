#!/usr/bin/env bash
# Incremental rebuild of the root crate after touching policy/cockpit.toml,
# against touching a .rs file of the same crate, measured in one run.
#
#   scripts/rebuild-ratio.sh [ROUNDS]      (default 5)
#
# Both edits rebuild the `m1nd` library; the policy edit also re-runs the
# build script and re-expands `cockpit!` (load, laws, M011 render, codegen).
# The ratio says what a policy edit costs over an ordinary code edit.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
build() { cargo build -q -p m1nd --lib; }
now_ms() { date +%s%3N; }
time_after_touch() {
  touch "$1"
  local start end
  start=$(now_ms)
  build
  end=$(now_ms)
  echo $((end - start))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2] + a[NR/2+1]) / 2)}'; }

build
# Timed only on a quiet machine (after the build above has let the load fall): else nothing is recorded.
python3 scripts/lib/quiet.py rebuild-ratio
policy=(); code=()
for _ in $(seq "$rounds"); do
  policy+=("$(time_after_touch policy/cockpit.toml)")
  code+=("$(time_after_touch src/lib.rs)")
done
p=$(printf '%s\n' "${policy[@]}" | median)
c=$(printf '%s\n' "${code[@]}" | median)
echo "touch policy/cockpit.toml: median ${p} ms  (${policy[*]})"
echo "touch src/lib.rs:          median ${c} ms  (${code[*]})"
awk -v p="$p" -v c="$c" 'BEGIN { printf "ratio policy/code: %.2f\n", p / c }'

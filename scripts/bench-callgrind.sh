#!/usr/bin/env bash
# Instructions per round trip of the release `m1nd serve` (stdio) under valgrind's callgrind:
# ping, the cockpit root cached and freshly composed, a plain read (north), a write
# (memorize) and unknown tool names, each as a ratio to ping; see scripts/bench_callgrind.py
# for the method.
#
#   scripts/bench-callgrind.sh [--n 400] [--repeat 2] [--only KIND]...
#
# Installs Debian's valgrind with apt-get when it is missing. Profiles of the cockpit kinds
# (top inclusive functions per request) go to target/bench-callgrind/top-*.txt.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export PYTHONDONTWRITEBYTECODE=1

if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
  apt-get update -qq && apt-get install -y -qq valgrind
fi
target_dir="${CARGO_TARGET_DIR:-target}"
[[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
# The release profile strips symbols; the profiles in top-*.txt need them. The same optimised
# build with symbols kept goes to a target directory of its own, so the installed build is not
# rebuilt back and forth. Stripping changes no instruction that runs.
build_dir="$target_dir/bench-callgrind-build"
CARGO_PROFILE_RELEASE_STRIP=false CARGO_TARGET_DIR="$build_dir" cargo build --quiet --release --bin m1nd
exec python3 scripts/bench_callgrind.py --bin "$build_dir/release/m1nd" --out "$target_dir/bench-callgrind" "$@"

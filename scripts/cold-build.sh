#!/usr/bin/env bash
# How long the README's first command waits for its build on this machine: `cargo build` (what
# `cargo run` does first) in a fresh clone with an empty target directory.
#
#   scripts/cold-build.sh                 time a debug build of the checkout's HEAD
#   scripts/cold-build.sh --release       time `cargo install --locked --path .`'s release build
#   NICE="nice -n 5" scripts/cold-build.sh   run it niced on a shared machine
#
# The crates are fetched first (`cargo fetch --locked`, not timed: it depends on the network and
# on what ~/.cargo/registry already holds), so the figure is compiling only. The clone lives in a
# temporary directory, removed afterwards; CARGO_TARGET_DIR is ignored so the build starts from
# nothing. It prints the wall time, the cores, the load average before and after (on a shared
# machine other work slows the build) and the toolchain.
set -euo pipefail

profile=()
label=debug
if [[ "${1:-}" == "--release" ]]; then
  profile=(--release)
  label=release
fi

repo="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git clone --quiet --no-local "$repo" "$tmp/m1nd"
cd "$tmp/m1nd"
unset CARGO_TARGET_DIR
cargo fetch --locked --quiet

# A build timed on a busy machine times its neighbours: refuse, and record nothing.
python3 "$repo/scripts/lib/quiet.py" cold-build
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
start="$(date +%s.%N)"
${NICE:-} cargo build --locked "${profile[@]}" -p m1nd
end="$(date +%s.%N)"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

seconds="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%d", b - a + 0.5 }')"
printf 'cold %s build of m1nd: %d s (%d min %02d s) on %s cores; load average %s before, %s after; %s; %s\n' \
  "$label" "$seconds" "$((seconds / 60))" "$((seconds % 60))" "$(nproc)" \
  "$load_before" "$load_after" "$(rustc -V)" "$(date -u +%Y-%m-%d)"

#!/usr/bin/env bash
# The stripped size of the release `m1nd`, with every feature (the default) and as a binary that
# only serves (`--no-default-features`: no `policy expand` code generator, no HTTP client for
# gateway upstreams). The full build shares the project's target directory (the load test's
# release build is reused); the serve-only one gets its own under target/size/.
#
#   scripts/binary-size.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/target/size"
mkdir -p "$out"
size_of() {
  local name=$1 dir=$2
  shift 2
  CARGO_TARGET_DIR="$dir" cargo build --quiet --release --bin m1nd "$@"
  cp "$dir/release/m1nd" "$out/m1nd-$name"
  strip "$out/m1nd-$name"
  stat -c %s "$out/m1nd-$name"
}
full=$(size_of full "${CARGO_TARGET_DIR:-$root/target}")
serve=$(size_of serve-only "$out/serve-only" --no-default-features)
printf 'release m1nd, stripped (%s)\n' "$(rustc --version)"
awk -v full="$full" -v serve="$serve" 'BEGIN {
  printf "  %-40s %6.1f MB\n", "default features", full / 1e6
  printf "  %-40s %6.1f MB\n", "--no-default-features (serves only)", serve / 1e6
  printf "  the serve-only binary is %.2fx the full one\n", serve / full
}'

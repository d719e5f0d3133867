#!/usr/bin/env bash
# The stripped size and crate count of three release binaries, built with the repository's own
# [profile.release] (chosen by scripts/release-profiles.sh):
#   - the full `m1nd` (default features: the store, SQLite and PostgreSQL, the tray, the gateway);
#   - the gateway alone (`--no-default-features --features http-upstream`: `m1nd gateway` and
#     `m1nd policy`, no SQLite, no PostgreSQL, no tray);
#   - a minimal rmcp server on stdio and Streamable HTTP (examples/minimal-rmcp), the yardstick.
# Crates are the distinct packages `cargo tree -e normal` lists for each (build-only ones excluded).
# The goals (issue 36): the gateway alone at most 2x the minimal server; the full binary at most 15 MB.
#
#   scripts/binary-size.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/target/size"
mkdir -p "$out"
target="${CARGO_TARGET_DIR:-$root/target}"

# build NAME PACKAGE BIN [cargo flags]: the stripped size in bytes and the crate count, on one line.
build() {
  local name=$1 package=$2 bin=$3
  shift 3
  cargo build --quiet --locked --release -p "$package" --bin "$bin" "$@"
  cp "$target/release/$bin" "$out/$name"
  strip "$out/$name"
  local crates
  crates=$(cargo tree --locked -p "$package" -e normal --prefix none "$@" | sed 's/ (\*)$//' | sort -u | wc -l)
  echo "$(stat -c %s "$out/$name") $crates"
}

read -r full full_crates < <(build m1nd-full m1nd m1nd)
read -r gateway gateway_crates < <(build m1nd-gateway-alone m1nd m1nd --no-default-features --features http-upstream)
read -r minimal minimal_crates < <(build minimal-rmcp m1nd-example-minimal-rmcp minimal-rmcp)

printf 'release binaries, stripped (%s; commit %s; %s)\n' "$(rustc --version)" \
  "$(git rev-parse --short HEAD)" "$(date -u +%Y-%m-%d)"
awk -v f="$full" -v fc="$full_crates" -v g="$gateway" -v gc="$gateway_crates" -v m="$minimal" -v mc="$minimal_crates" 'BEGIN {
  printf "  %-46s %8s %7s %14s\n", "", "size", "crates", "x minimal"
  printf "  %-46s %5.1f MB %7d %13.2fx\n", "m1nd (default features)", f / 1e6, fc, f / m
  printf "  %-46s %5.1f MB %7d %13.2fx\n", "m1nd, the gateway alone", g / 1e6, gc, g / m
  printf "  %-46s %5.1f MB %7d %13.2fx\n", "minimal rmcp server (examples/minimal-rmcp)", m / 1e6, mc, 1
  printf "  goal: the gateway alone <= 2x the minimal server: %.2fx, %s\n", g / m, (g <= 2 * m ? "met" : "NOT met")
  printf "  goal: the full binary <= 15 MB: %.1f MB, %s\n", f / 1e6, (f <= 15e6 ? "met" : "NOT met")
}'

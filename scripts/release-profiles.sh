#!/usr/bin/env bash
# How the release profile was chosen: builds the full `m1nd` and the minimal rmcp server
# (examples/minimal-rmcp) under each candidate profile, each in a target directory of its own, and
# prints the stripped sizes, the build times and the ratio to the first candidate, which is the
# profile before the choice (opt-level 3, no LTO, 16 codegen units, unwinding). The settings reach
# cargo as CARGO_PROFILE_RELEASE_* variables, so Cargo.toml's own [profile.release] is overridden
# field by field and the candidates differ only in what the table names.
#
#   scripts/release-profiles.sh            # every candidate (about an hour on 2 cores)
#   scripts/release-profiles.sh s-fat1     # one candidate, by name
#
# Each cold build takes a few minutes and a gigabyte or two of disk; the directories stay under
# target/profiles/ so a second run only relinks.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/target/profiles"
mkdir -p "$out"

# name opt-level lto codegen-units panic
candidates=(
  "before 3 false 16 unwind"
  "fat1 3 fat 1 unwind"
  "s-fat1 s fat 1 unwind"
  "s-fat1-abort s fat 1 abort"
  "z-fat1-abort z fat 1 abort"
)
wanted=("$@")

printf '%-14s %-5s %-5s %-4s %-7s %10s %10s %9s %8s\n' candidate opt lto cgu panic m1nd minimal ratio build
base=""
for line in "${candidates[@]}"; do
  read -r name opt lto cgu panic <<<"$line"
  if ((${#wanted[@]})) && [[ ! " ${wanted[*]} " =~ " $name " ]]; then continue; fi
  dir="$out/$name"
  start=$SECONDS
  CARGO_TARGET_DIR="$dir" CARGO_PROFILE_RELEASE_OPT_LEVEL="$opt" CARGO_PROFILE_RELEASE_LTO="$lto" \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS="$cgu" CARGO_PROFILE_RELEASE_PANIC="$panic" CARGO_PROFILE_RELEASE_STRIP=true \
    cargo build --quiet --locked --release --bin m1nd --bin minimal-rmcp -p m1nd -p m1nd-example-minimal-rmcp
  took=$((SECONDS - start))
  full=$(stat -c %s "$dir/release/m1nd")
  minimal=$(stat -c %s "$dir/release/minimal-rmcp")
  base=${base:-$full}
  awk -v n="$name" -v o="$opt" -v l="$lto" -v c="$cgu" -v p="$panic" -v f="$full" -v m="$minimal" -v b="$base" -v t="$took" \
    'BEGIN { printf "%-14s %-5s %-5s %-4s %-7s %7.1f MB %7.1f MB %8.2fx %7ds\n", n, o, l, c, p, f/1e6, m/1e6, f/b, t }'
done

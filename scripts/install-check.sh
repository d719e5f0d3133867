#!/usr/bin/env bash
# Proves the install the README gives: `cargo install --locked --path .` from this checkout
# yields a working `m1nd` (into target/install, never ~/.cargo), which then prints its version
# with the compiled policy's digest, creates a demo store and shows the cockpit, from a
# directory outside the checkout.
#
#   scripts/install-check.sh        (run by .ci/run)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
install_root="$root/target/install"
# The release build shares the project's target directory (the benches' release build). Not
# --quiet: a cold release build takes minutes, and cargo's line per crate (`Compiling ...`, on
# stderr, with or without a terminal) shows it is working.
echo "install-check: cargo install --locked --path $root --root $install_root (a release build)" >&2
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" cargo install --locked --force --path "$root" --root "$install_root"
m1nd="$install_root/bin/m1nd"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

version="$("$m1nd" --version)"
digest="$("$m1nd" policy digest "$root/policy" | awk '{print $1}')"
case "$version" in
  "m1nd "*"(policy $digest)") ;;
  *) echo "install-check: --version says '$version', expected the digest $digest of policy/" >&2; exit 1 ;;
esac

"$m1nd" init --demo --store "$work/.m1nd" >/dev/null
cockpit="$("$m1nd" cockpit --store "$work/.m1nd")"
if ! grep -q "^m1nd cockpit" <<<"$cockpit" || ! grep -q "mc_[0-9a-f]" <<<"$cockpit"; then
  echo "install-check: the installed m1nd printed no cockpit:" >&2
  echo "$cockpit" >&2
  exit 1
fi
size=$(stat -c %s "$m1nd")
printf 'install-check: %s works from %s (%s; %.1f MB as installed)\n' "$m1nd" "$work" "$version" "$(awk -v s="$size" 'BEGIN{print s/1e6}')"

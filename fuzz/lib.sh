# Sourced by ci.sh, planted.sh, campaign.sh and corpus.sh: where things are,
# the pinned cargo-fuzz, and the one instrumented build every target shares.
#
# Everything built or installed lives under the repository's target/:
#   target/fuzz-tools/   cargo-fuzz, installed once at the pinned version
#   target/fuzz/         the instrumented build (and the uninstrumented check)
#   target/fuzz/runs/    scratch corpora, logs and crash artifacts

set -euo pipefail

FUZZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$FUZZ_DIR")"
CARGO_FUZZ_VERSION="0.13.2"
TOOLS="$REPO/target/fuzz-tools"
export CARGO_TARGET_DIR="$REPO/target/fuzz"
export PATH="$TOOLS/bin:$PATH"
export CARGO_TERM_COLOR=never
TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"
RUNS="$CARGO_TARGET_DIR/runs"

# cargo-fuzz at the pinned version, from crates.io, once per target/; and the
# C++ compiler libfuzzer-sys builds libFuzzer with, from apt if it is missing.
install_cargo_fuzz() {
  if ! command -v c++ >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq g++
  fi
  if [ "$("$TOOLS/bin/cargo-fuzz" --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
    # Not --quiet: cargo's line per crate shows the build is moving.
    echo "fuzz: cargo install cargo-fuzz $CARGO_FUZZ_VERSION into $TOOLS (once per target/)" >&2
    nice -n 10 cargo install --locked --version "$CARGO_FUZZ_VERSION" --root "$TOOLS" cargo-fuzz
  fi
}

# The one instrumented build: every target, release with debug assertions and
# overflow checks, no sanitizer (so stable rustc suffices). 16 codegen units
# instead of cargo-fuzz's 1: on 2 cores the cold build took 298 s instead of
# 390 s, and the targets ran 91-100% as many inputs a second (gateway 22,733
# against 22,822, store 8,859 against 9,694; 2026-12-06, docs/benchmarks.md
# section 11). planted.sh keeps the default for its own build, so the planted
# bug is still looked for in the binary its fixed seed was chosen for.
build_targets() {
  echo "fuzz: the instrumented build of every target (release, debug assertions; cargo names each crate)" >&2
  (cd "$REPO" && nice -n 10 cargo fuzz build --fuzz-dir "$FUZZ_DIR" --sanitizer none --debug-assertions --codegen-units 16)
}

# The targets, as fuzz/Cargo.toml declares them.
targets() {
  (cd "$REPO" && cargo fuzz list --fuzz-dir "$FUZZ_DIR")
}

# The instrumented binary of target $1.
target_bin() {
  echo "$CARGO_TARGET_DIR/$TRIPLE/release/$1"
}

# The line libFuzzer ends a run with: `#N DONE cov: … corp: …`.
done_line() {
  grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)' "$1" | tail -n 1 || true
}

# What the log of a crashed run says about it, for a person to act on.
report_crash() {
  local target="$1" log="$2"
  echo "!! $target crashed; the property and the input:" >&2
  grep -E -A 3 "panicked at|ERROR: libFuzzer" "$log" | head -n 20 >&2 || true
  grep -E "Test unit written to|^artifact_prefix" "$log" >&2 || true
  echo "!! reproduce: $(target_bin "$target") <that file>; then add a named regression test (fuzz/README.md)" >&2
}

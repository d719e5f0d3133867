# Sourced by the bench scripts (scripts/loadtest/run.sh, scripts/bench-replicas.sh).
#
#   m1nd_bin ROOT PROFILE
#       sets M1ND_BIN to the m1nd binary of PROFILE (release or debug) under ROOT's target
#       directory, building it first; a M1ND_BIN already set is kept, and nothing is built.
m1nd_bin() {
  local root="$1" profile="$2" target_dir
  [[ -z "${M1ND_BIN:-}" ]] || return 0
  if [[ "$profile" == release ]]; then
    cargo build --quiet --release --bin m1nd
  else
    cargo build --quiet --bin m1nd
  fi
  target_dir="${CARGO_TARGET_DIR:-target}"
  [[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
  M1ND_BIN="$target_dir/$profile/m1nd"
}

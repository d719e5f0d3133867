# Sourced by the bench scripts (scripts/loadtest/run.sh, scripts/bench-replicas.sh).
#
#   m1nd_bin ROOT ARG...
#       sets M1ND_BIN to the m1nd binary under ROOT's target directory, building it first: the
#       release build, or the debug build when ARG... holds `--debug`. M1ND_ARGS is ARG...
#       without `--debug`, for the script's driver. A M1ND_BIN already set is kept, and nothing
#       is built.
m1nd_bin() {
  local root="$1" profile=release target_dir arg
  shift
  M1ND_ARGS=()
  for arg in "$@"; do
    if [[ "$arg" == --debug ]]; then profile=debug; else M1ND_ARGS+=("$arg"); fi
  done
  [[ -z "${M1ND_BIN:-}" ]] || return 0
  if [[ "$profile" == release ]]; then
    cargo build --release --bin m1nd
  else
    cargo build --bin m1nd
  fi
  target_dir="${CARGO_TARGET_DIR:-target}"
  [[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
  M1ND_BIN="$target_dir/$profile/m1nd"
}

#!/usr/bin/env bash
# End-to-end suite: the official MCP Python SDK drives `m1nd serve` over stdio and over
# Streamable HTTP (`serve --http`, both the session and the stateless 2026-07-28 modes), and
# launches every client configuration of docs/guide/src/connecting-an-agent.md as written
# (test_agent_configs.py: Claude Desktop, Claude Code, Cursor, VS Code, Codex; stdio, read-only, HTTP).
#
#   tests/e2e/run.sh                  build if needed, run the pytest suite, exit with pytest's code
#   tests/e2e/run.sh -k moves         extra arguments go to pytest
#   tests/e2e/run.sh --postgresql     the suite again on PostgreSQL stores (a schema per test on the
#                                     server M1ND_TEST_PG names), each HTTP server two replicas
#                                     behind HAProxy; what only a SQLite store has is skipped
#   tests/e2e/run.sh bench            the stdio latency bench (bench_stdio.py) on the debug build
#   tests/e2e/run.sh bench --release  the same on a release build (built here if needed)
#   tests/e2e/run.sh bench-http [--release]  the HTTP bench (bench_http.py), with stdio's ratio
#   tests/e2e/run.sh bench-validation [--release]  what the SDK's outputSchema check costs (bench_validation.py)
#
# The venv lives in target/e2e-venv and is reused while requirements.txt is unchanged.
# M1ND_BIN names the server binary and skips the build; by default it is built with cargo.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

mode=test
profile=debug
if [[ "${1:-}" == "--postgresql" ]]; then
  export M1ND_E2E_STORE=postgresql
  shift
fi
if [[ "${1:-}" == "bench" || "${1:-}" == "bench-http" || "${1:-}" == "bench-validation" ]]; then
  mode="$1"
  shift
  if [[ "${1:-}" == "--release" ]]; then
    profile=release
    shift
  fi
fi

venv="$root/target/e2e-venv"
req="$here/requirements.txt"
export PYTHONDONTWRITEBYTECODE=1

source "$root/tests/lib/venv.sh"
pinned_venv e2e "$venv" "$req"

if [[ -z "${M1ND_BIN:-}" ]]; then
  # cargo decides whether anything is stale; a no-op build takes well under a second, and a
  # stale one names each crate as it builds it (no --quiet: the step is never silent).
  if [[ "$profile" == release ]]; then
    cargo build --release -p m1nd
  else
    cargo build -p m1nd
  fi
  target_dir="${CARGO_TARGET_DIR:-target}"
  [[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
  export M1ND_BIN="$target_dir/$profile/m1nd"
fi
if [[ "$mode" == test && -z "${M1ND_RMCP_GUARDED_BIN:-}" ]]; then
  # test_rmcp_guarded.py drives the in-process guard's example; cargo rebuilds it only when stale.
  cargo build -p m1nd-example-rmcp-guarded
  target_dir="${CARGO_TARGET_DIR:-target}"
  [[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
  export M1ND_RMCP_GUARDED_BIN="$target_dir/debug/m1nd-example-rmcp-guarded"
fi

if [[ "$mode" == bench ]]; then
  exec "$venv/bin/python" "$here/bench_stdio.py" "$@"
fi
if [[ "$mode" == bench-http ]]; then
  exec "$venv/bin/python" "$here/bench_http.py" "$@"
fi
if [[ "$mode" == bench-validation ]]; then
  exec "$venv/bin/python" "$here/bench_validation.py" "$@"
fi

set +e
"$venv/bin/python" -m pytest -q "$here" "$@"
code=$?
set -e
exit "$code"

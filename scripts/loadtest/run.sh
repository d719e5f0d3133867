#!/usr/bin/env bash
# The team load test against `m1nd serve --http` (see team.py for the phases and the report).
#
#   scripts/loadtest/run.sh                   the full form on a release build: 60 s of load over
#                                             100,000 alerts, kill -9 halfway (a bench)
#   scripts/loadtest/run.sh --short           the CI form, about 25 s; fails only on a lost write
#                                             or an error, never on a timing
#   scripts/loadtest/run.sh --short --debug   the same on the debug build (what .ci/run does: the
#                                             test suite has built it already; its figures are
#                                             not the baseline's)
#   scripts/loadtest/run.sh --json ...        also writes target/loadtest/report.json; any other
#                                             flag goes to team.py (--help lists them)
#
# The driver is the Python standard library alone (no venv). M1ND_BIN names the server binary
# and skips the build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export PYTHONDONTWRITEBYTECODE=1

source "$root/scripts/lib/m1nd-bin.sh"
m1nd_bin "$root" "$@"
exec python3 "$root/scripts/loadtest/team.py" --bin "$M1ND_BIN" ${M1ND_ARGS[@]+"${M1ND_ARGS[@]}"}

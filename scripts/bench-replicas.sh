#!/usr/bin/env bash
# Acknowledged writes/s and the human's cockpit p99: SQLite on one node, and PostgreSQL with 1, 2
# and 4 replicas, each behind HAProxy (deploy/haproxy.cfg), in one run, as ratios to SQLite
# (see scripts/bench-replicas.py).
#
#   scripts/bench-replicas.sh                  a release build, 15 s per configuration
#   scripts/bench-replicas.sh --debug ...      the debug build (figures not the baseline's)
#   scripts/bench-replicas.sh --seconds 30 --json   other flags go to bench-replicas.py
#
# Uses the PostgreSQL server M1ND_TEST_PG names, or starts a throwaway one with
# scripts/pg-cluster.sh and removes it afterwards. Needs Debian's postgresql and haproxy.
# M1ND_BIN names the server binary and skips the build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PYTHONDONTWRITEBYTECODE=1

source "$root/scripts/lib/m1nd-bin.sh"
m1nd_bin "$root" "$@"

if [[ -z "${M1ND_TEST_PG:-}" ]]; then
  pg_env=$(bash scripts/pg-cluster.sh up)
  eval "$pg_env"
  trap 'bash scripts/pg-cluster.sh down' EXIT
fi
python3 "$root/scripts/bench-replicas.py" --bin "$M1ND_BIN" ${M1ND_ARGS[@]+"${M1ND_ARGS[@]}"}

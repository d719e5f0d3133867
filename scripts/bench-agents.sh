#!/usr/bin/env bash
# Fair shares per agent: another agent's `doctor` p50 beside one agent looping `doctor` on many
# connections, against its p50 with the server idle, with per-agent access tokens and, in the
# same run, with one shared token (see scripts/bench-agents.py).
#
#   scripts/bench-agents.sh                  a release build
#   scripts/bench-agents.sh --debug ...      the debug build (figures not the baseline's)
#   scripts/bench-agents.sh --connections 40 --seconds 10   other flags go to bench-agents.py
#
# Runs in the end-to-end suite's venv (target/e2e-venv: PyJWT and cryptography mint the tokens).
# M1ND_BIN names the server binary and skips the build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PYTHONDONTWRITEBYTECODE=1

source "$root/scripts/lib/m1nd-bin.sh"
m1nd_bin "$root" "$@"
source "$root/tests/lib/venv.sh"
pinned_venv e2e "$root/target/e2e-venv" "$root/tests/e2e/requirements.txt"
"$root/target/e2e-venv/bin/python" "$root/scripts/bench-agents.py" --bin "$M1ND_BIN" ${M1ND_ARGS[@]+"${M1ND_ARGS[@]}"}

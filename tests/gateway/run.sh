#!/usr/bin/env bash
# The gateway suites: `m1nd gateway` in front of real upstreams (mcp-server-git from PyPI,
# @modelcontextprotocol/server-filesystem and server-everything from npm), driven by the official
# MCP Python SDK.
#
#   tests/gateway/run.sh          build if needed, install the upstreams, run pytest
#   tests/gateway/run.sh -k pin   extra arguments go to pytest
#   tests/gateway/run.sh bench [--release] [...]   the round-trip bench (bench_gateway.py)
#
# The venv lives in target/gateway-venv and is reused while requirements.txt is unchanged (the bench
# also makes target/mcp-proxy-venv from mcp-proxy-requirements.txt, whose mcp<2 cannot share it); the npm
# upstream is installed from npm/package-lock.json into npm/node_modules with npm ci.
# M1ND_BIN names the m1nd binary and skips the build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

mode=test
profile=debug
if [[ "${1:-}" == "bench" ]]; then
  mode=bench
  shift
  if [[ "${1:-}" == "--release" ]]; then
    profile=release
    shift
  fi
fi

venv="$root/target/gateway-venv"
req="$here/requirements.txt"
export PYTHONDONTWRITEBYTECODE=1

source "$root/tests/lib/venv.sh"
pinned_venv gateway "$venv" "$req"

lock="$here/npm/package-lock.json"
npm_stamp="$here/npm/node_modules/.lock.sha256"
npm_want="$(sha256sum "$lock" | cut -d' ' -f1)"
if [[ ! -f "$npm_stamp" || "$(cat "$npm_stamp")" != "$npm_want" ]]; then
  echo "gateway: npm ci in $here/npm" >&2
  (cd "$here/npm" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
  echo "$npm_want" >"$npm_stamp"
fi

if [[ -z "${M1ND_BIN:-}" ]]; then
  if [[ "$profile" == release ]]; then
    cargo build --release -p m1nd
  else
    cargo build -p m1nd
  fi
  target_dir="${CARGO_TARGET_DIR:-target}"
  [[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
  export M1ND_BIN="$target_dir/$profile/m1nd"
fi

if [[ "$mode" == bench ]]; then
  # The bench's baseline, the PyPI mcp-proxy, needs mcp<2: its own venv, installed for the bench only.
  proxy_venv="$root/target/mcp-proxy-venv"
  pinned_venv mcp-proxy "$proxy_venv" "$here/mcp-proxy-requirements.txt"
  export M1ND_BENCH_MCP_PROXY="$proxy_venv/bin/mcp-proxy"
  exec "$venv/bin/python" "$here/bench_gateway.py" "$@"
fi

set +e
"$venv/bin/python" -m pytest -q "$here" "$@"
code=$?
set -e
exit "$code"

#!/usr/bin/env bash
# The MCP Inspector's CLI mode calls `m1nd serve` over stdio, as a new user would try it:
# tools/list, then `cockpit` with `select=3` (which the Inspector sends as a JSON number),
# `select=2.1` (a JSON float, refused) and `select="2.1"` (a string, as typed).
#
#   tests/inspector/run.sh    build if needed, run check.py, exit with its code
#
# install.sh puts Node.js and the pinned Inspector under target/. M1ND_BIN names the server
# binary and skips the build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

source "$here/install.sh"

if [[ -z "${M1ND_BIN:-}" ]]; then
  cargo build -p m1nd
  target_dir="${CARGO_TARGET_DIR:-target}"
  [[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
  export M1ND_BIN="$target_dir/debug/m1nd"
fi

exec "$venv/bin/python" "$here/check.py" "$inspector"

#!/usr/bin/env bash
# The MCP Inspector's CLI mode calls `m1nd serve` over stdio, as a new user would try it:
# tools/list, then `cockpit` with `select=3` (which the Inspector sends as a JSON number),
# `select=2.1` (a JSON float, refused) and `select="2.1"` (a string, as typed).
#
#   tests/inspector/run.sh    build if needed, run check.py, exit with its code
#
# Node.js comes from PyPI (requirements.txt) into target/inspector-venv, and the Inspector,
# pinned by package-lock.json, is installed from that lock file into target/inspector; both are reused
# while their pins are unchanged. M1ND_BIN names the server binary and skips the build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

venv="$root/target/inspector-venv"
app="$root/target/inspector"
python="${PYTHON:-python3}"

if [[ ! -x "$venv/bin/python" ]]; then
  echo "inspector: creating venv in $venv" >&2
  mkdir -p "$root/target"
  "$python" -m venv "$venv"
fi
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  echo "inspector: installing $(grep -Ev '^\s*(#|$)' "$here/requirements.txt" | tr '\n' ' ')" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  echo "$want" >"$stamp"
fi
export PATH="$venv/bin:$PATH"

stamp="$app/.lock.sha256"
want="$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  echo "inspector: npm install from the lock file ($(node --version)) in $app" >&2
  mkdir -p "$app"
  cp "$here/package.json" "$here/package-lock.json" "$app/"
  # Not `npm ci`: it refuses a lock file that leaves out an optional dependency the registry
  # lacks (vite lists a Windows-only one); `npm install` follows the lock file all the same.
  (cd "$app" && npm install --quiet --no-audit --no-fund --ignore-scripts)
  echo "$want" >"$stamp"
fi

if [[ -z "${M1ND_BIN:-}" ]]; then
  cargo build --quiet -p m1nd
  target_dir="${CARGO_TARGET_DIR:-target}"
  [[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
  export M1ND_BIN="$target_dir/debug/m1nd"
fi

exec "$venv/bin/python" "$here/check.py" "$app/node_modules/.bin/mcp-inspector"

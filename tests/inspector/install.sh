#!/usr/bin/env bash
# Installs the MCP Inspector for tests/inspector/{run,http}.sh, which source this file: Node.js
# from PyPI (requirements.txt) into target/inspector-venv, then the Inspector, pinned by
# package-lock.json, from that lock file into target/inspector. Both are reused while their pins
# are unchanged. Sets PATH (for node) and `inspector`, the CLI's path.
#
# Expects `here` (this directory) and `root` (the repository) to be set by the caller.
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

inspector="$app/node_modules/.bin/mcp-inspector"

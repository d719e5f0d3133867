#!/usr/bin/env bash
# Installs the MCP Inspector for tests/inspector/{run,http}.sh, which source this file: Node.js
# from PyPI (requirements.txt) into target/inspector-venv, then the Inspector, pinned by
# package-lock.json, from that lock file into target/inspector. Both are reused while their pins
# are unchanged. Sets PATH (for node) and `inspector`, the CLI's path.
#
# Expects `here` (this directory) and `root` (the repository) to be set by the caller.
venv="$root/target/inspector-venv"
app="$root/target/inspector"

source "$root/tests/lib/venv.sh"
pinned_venv inspector "$venv" "$here/requirements.txt"
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

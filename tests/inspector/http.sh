#!/usr/bin/env bash
# The MCP Inspector's CLI mode against `m1nd serve --http`: list the tools, call the cockpit,
# and see a foreign Origin refused.
#
#   tests/inspector/http.sh    install the Inspector under target/ if needed, build, check
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
  M1ND_BIN="$target_dir/debug/m1nd"
fi

work="$(mktemp -d)"
server_pid=""
# The server is stopped and waited for (at most 10 s, then SIGKILL): nothing outlives the script,
# and nothing still has the store open when its directory is removed.
cleanup() {
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      [[ "$(cut -d' ' -f3 "/proc/$server_pid/stat" 2>/dev/null)" =~ ^(Z|)$ ]] && break # ended
      sleep 0.1
    done
    kill -9 "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

"$M1ND_BIN" init --demo --store "$work/store" >/dev/null
# Made first: the background job opens it in its own time, and the loop below may read it before.
: >"$work/serve.stderr"
"$M1ND_BIN" serve --read-only --store "$work/store" --http 127.0.0.1:0 2>"$work/serve.stderr" &
server_pid=$!
url=""
for _ in $(seq 1 300); do
  url="$(sed -n 's/^m1nd: serving MCP on \(http:\/\/.*\)$/\1/p' "$work/serve.stderr")"
  [[ -n "$url" ]] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.stderr" >&2; exit 1; }
  sleep 0.05
done
[[ -n "$url" ]] || { echo "inspector: the server printed no address" >&2; exit 1; }

# The Inspector keeps a catalog of servers; keep it out of the home directory.
export MCP_CATALOG_PATH="$work/catalog.json"
cli() { timeout 120 "$inspector" --cli "$url" "$@"; }

cli --method tools/list >"$work/tools.json"
cli --method tools/call --tool-name cockpit >"$work/root.json"
cli --method tools/call --tool-name cockpit --tool-arg 'select="3"' >"$work/drill.json"
if cli --header "Origin: http://evil.example" --method tools/list >"$work/evil.json" 2>&1; then
  echo "inspector: a request from a foreign Origin was answered" >&2
  exit 1
fi

python3 - "$work" <<'EOF'
import json, sys, tomllib
from pathlib import Path

work = Path(sys.argv[1])
denied = set(tomllib.loads(Path("policy/read_only_denied.toml").read_text())["tools"])
tools = [t["name"] for t in json.loads((work / "tools.json").read_text())["tools"]]
assert "cockpit" in tools, tools
assert not denied & set(tools), f"a read-only session lists denied tools: {denied & set(tools)}"
root = json.loads((work / "root.json").read_text())
assert not root.get("isError"), root
assert root["structuredContent"]["level"] == "root", root
drill = json.loads((work / "drill.json").read_text())
assert not drill.get("isError") and drill["structuredContent"]["level"] != "root", drill
evil = (work / "evil.json").read_text()
assert "403" in evil and "Origin" in evil, evil
print(f"inspector: {len(tools)} tools listed, cockpit root and drill answered, foreign Origin refused")
EOF

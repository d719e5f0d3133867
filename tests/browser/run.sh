#!/usr/bin/env bash
# Browser suite: the widget in Debian's chromium, driven by Playwright for Python,
# inside an MCP Apps host built on the official AppBridge (@modelcontextprotocol/ext-apps)
# that talks to a real `m1nd serve --http`, and the tray.
#
#   tests/browser/run.sh              build if needed, run the pytest suite, exit with pytest's code
#   tests/browser/run.sh -k themes    extra arguments go to pytest
#   tests/browser/run.sh bench        the paint bench (bench_paint.py)
#
# Playwright never downloads a browser here: it launches /usr/bin/chromium
# (M1ND_CHROMIUM overrides it). The venv lives in target/browser-venv, the npm
# packages (axe-core, ext-apps, the MCP client, ajv, esbuild) in target/browser-node;
# both are reused while their pinned lists are unchanged. The host page's script
# (bridge/host.js and what it imports) is bundled by esbuild on every run into
# target/browser-node/host.js: a few hundred milliseconds.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

mode=test
if [[ "${1:-}" == "bench" ]]; then
  mode=bench
  shift
fi

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export PYTHONDONTWRITEBYTECODE=1
chromium="${M1ND_CHROMIUM:-/usr/bin/chromium}"
if [[ ! -x "$chromium" ]]; then
  echo "browser: no chromium at $chromium (apt-get install chromium)" >&2
  exit 2
fi

venv="$root/target/browser-venv"
req="$here/requirements.txt"
source "$root/tests/lib/venv.sh"
pinned_venv browser "$venv" "$req"

node_dir="$root/target/browser-node"
lock_want="$(sha256sum "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$node_dir/.lock.sha256" || "$(cat "$node_dir/.lock.sha256")" != "$lock_want" ]]; then
  echo "browser: installing the npm packages from package-lock.json" >&2
  rm -rf "$node_dir"
  mkdir -p "$node_dir"
  cp "$here/package.json" "$here/package-lock.json" "$node_dir/"
  (cd "$node_dir" && npm ci --silent --no-audit --no-fund)
  echo "$lock_want" >"$node_dir/.lock.sha256"
fi
export M1ND_AXE="$node_dir/node_modules/axe-core/axe.min.js"

# The official host's page script, resolved against the pinned packages (NODE_PATH).
export M1ND_HOST_BUNDLE="$node_dir/host.js"
NODE_PATH="$node_dir/node_modules" "$node_dir/node_modules/.bin/esbuild" "$here/bridge/host.js" \
  --bundle --format=iife --platform=browser --target=chrome120 --log-level=warning \
  --outfile="$M1ND_HOST_BUNDLE"

if [[ -z "${M1ND_BIN:-}" ]]; then
  cargo build -p m1nd
  target_dir="${CARGO_TARGET_DIR:-target}"
  [[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
  export M1ND_BIN="$target_dir/debug/m1nd"
fi
export M1ND_CHROMIUM="$chromium"

if [[ "$mode" == bench ]]; then
  exec "$venv/bin/python" "$here/bench_paint.py" "$@"
fi

set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$here" "$@"
code=$?
set -e
exit "$code"

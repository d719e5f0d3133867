#!/usr/bin/env bash
# Regenerate docs/cockpit-widget.png: the cockpit widget at item 2.1 of the demo store, light skin,
# drawn by Debian's chromium (Playwright for Python, never a downloaded browser).
#
#   scripts/screenshot-widget.sh          build m1nd if needed, then write docs/cockpit-widget.png
#
# The page is what `m1nd cockpit --html 2.1` prints for a fresh `m1nd init --demo` store (the
# widget with the view pasted in), so the picture shows the menu and the sigs the code makes now.
# It uses the browser suite's pinned venv (target/browser-venv, tests/browser/requirements.txt)
# and /usr/bin/chromium (M1ND_CHROMIUM overrides it; `apt-get install chromium` provides it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PYTHONDONTWRITEBYTECODE=1
chromium="${M1ND_CHROMIUM:-/usr/bin/chromium}"
if [[ ! -x "$chromium" ]]; then
  echo "screenshot: no chromium at $chromium (apt-get install chromium)" >&2
  exit 2
fi

source "$root/tests/lib/venv.sh"
pinned_venv browser "$root/target/browser-venv" "$root/tests/browser/requirements.txt"

if [[ -z "${M1ND_BIN:-}" ]]; then
  cargo build --quiet -p m1nd
  target_dir="${CARGO_TARGET_DIR:-target}"
  [[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
  M1ND_BIN="$target_dir/debug/m1nd"
fi

M1ND_BIN="$M1ND_BIN" M1ND_CHROMIUM="$chromium" \
  "$root/target/browser-venv/bin/python" "$root/scripts/screenshot_widget.py" "$root/docs/cockpit-widget.png"

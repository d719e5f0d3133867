"""Draw the cockpit widget at item 2.1 of a fresh demo store and save its picture (light skin).

Run by scripts/screenshot-widget.sh, which provides M1ND_BIN, M1ND_CHROMIUM and the venv.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

REFERENCE = "2.1"
TIMEOUT_S = 60
# As the browser suite launches it (tests/browser/harness.py): no network, no background work.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def m1nd(*args: str) -> str:
    done = subprocess.run([os.environ["M1ND_BIN"], *args], capture_output=True, text=True, timeout=TIMEOUT_S,
                          stdin=subprocess.DEVNULL, env={k: v for k, v in os.environ.items() if k != "CARGO"})
    if done.returncode != 0:
        sys.exit(f"m1nd {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def main(out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="m1nd-screenshot-") as tmp:
        store = Path(tmp) / "store"
        m1nd("init", "--demo", "--store", str(store))
        page_file = Path(tmp) / "widget.html"
        page_file.write_text(m1nd("cockpit", "--html", REFERENCE, "--store", str(store)))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ["M1ND_CHROMIUM"], args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 800, "height": 700}, color_scheme="light")
                page.goto(page_file.as_uri())
                main_view = page.locator("main")
                main_view.wait_for()
                main_view.screenshot(path=str(out))
            finally:
                browser.close()
    print(f"wrote {out} (the widget at {REFERENCE} of a fresh demo store, light skin)")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

"""Fixtures: one chromium per run; per test a fresh store, a real `m1nd serve`
and the mock host page in front of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Frame, Page, sync_playwright

import harness


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=harness.CHROMIUM, args=harness.CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return harness.init_store(tmp_path / "store")


class View:
    """The widget inside the mock host, with the server behind both."""

    def __init__(self, page: Page, host: harness.Host):
        self.page = page
        self.host = host
        self.frame: Frame | None = None

    def start(self, select: str = "", theme: str | None = "light", **config) -> "View":
        self.page.goto(self.host.url)
        self.page.evaluate("(c) => window.host.start(c)", {"select": select, "theme": theme, **config})
        self.page.wait_for_function("window.host.ready", timeout=harness.TIMEOUT_S * 1000)
        self.frame = self.page.locator("#view").element_handle().content_frame()
        self.wait_painted()
        return self

    def wait_painted(self) -> None:
        self.frame.wait_for_function("() => document.getElementById('view').childElementCount > 0")

    def dom(self) -> dict:
        return self.frame.evaluate(harness.DOM_FACTS)

    def entry(self, number: str):
        return self.frame.locator(f'#view button.entry:has(> .num:text-is("{number}"))')

    def choose(self, number: str, level: str) -> None:
        """Click the entry numbered `number` and wait for `level` to be drawn."""
        before = len(self.results())
        self.entry(number).click()
        self.wait_level(level, before)

    def type(self, keys: str, level: str) -> None:
        """Type `keys` as a human would, then Enter, and wait for `level`."""
        before = len(self.results())
        self.frame.locator("main").click(position={"x": 5, "y": 5})
        for key in keys:
            self.page.keyboard.press(key)
        self.page.keyboard.press("Enter")
        self.wait_level(level, before)

    def wait_level(self, level: str, results_before: int) -> None:
        self.page.wait_for_function("(n) => window.host.results.length > n", arg=results_before)
        self.frame.wait_for_function(
            "(l) => document.getElementById('level').textContent === l && !document.querySelector('button.entry:disabled')",
            arg=level,
        )

    def sent(self, method: str | None = None) -> list[dict]:
        messages = self.page.evaluate("window.host.sent")
        return [m for m in messages if method is None or (isinstance(m, dict) and m.get("method") == method)]

    def results(self) -> list[dict]:
        return self.page.evaluate("window.host.results")

    def trap(self) -> list:
        """The trap global every hostile string tries to set, in the view and the host."""
        return [self.frame.evaluate("window.__m1nd_trap"), self.page.evaluate("window.__m1nd_trap")]


@pytest.fixture
def open_view(browser, store):
    """open_view(store=..., color_scheme=...) → a View on a fresh server over that store."""
    opened: list = []

    def make(on: Path = store, color_scheme: str = "light") -> View:
        mcp = harness.Mcp(on)
        host = harness.Host(mcp)
        page = browser.new_page(color_scheme=color_scheme, viewport={"width": 800, "height": 960})
        opened.append((page, host, mcp))
        return View(page, host)

    yield make
    for page, host, mcp in opened:
        page.close()
        host.close()
        mcp.close()

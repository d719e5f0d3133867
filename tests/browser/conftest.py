"""Fixtures: one chromium per run; per test a fresh store, a real `m1nd serve`
and a host page in front of it: the official AppBridge host (`open_view`,
official_host.py), or the mock (`open_mock_view`, mock_host.html) for the
messages no conforming host sends. Every message an official-host page
recorded is checked against the ext-apps schemas, and a test whose page saw
an invalid one fails at teardown, naming each."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Frame, Page, sync_playwright

import harness
from official_host import OfficialHost


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
    """The widget inside a host page, with the server behind both."""

    def __init__(self, page: Page, host: OfficialHost | harness.MockHost):
        self.page = page
        self.host = host
        self.frame: Frame | None = None

    def start(self, select: str = "", theme: str | None = "light", **config) -> "View":
        self.page.goto(self.host.url)
        self.page.evaluate("(c) => window.host.start(c)", {"select": select, "theme": theme, **config})
        self.page.wait_for_function("window.host.ready || window.host.failed", timeout=harness.TIMEOUT_S * 1000)
        failed = self.page.evaluate("window.host.failed")
        assert not failed, failed
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

    def log(self) -> list[dict]:
        """Every message of the official host's page, both ways: {from, message, answers, problems}."""
        return self.page.evaluate("window.host.log")

    def call(self, name: str, arguments: dict) -> dict:
        """A tool call from the official host's own client (a probe, not a view message)."""
        return self.page.evaluate("([n, a]) => window.host.call(n, a)", [name, arguments])

    def trap(self) -> list:
        """The trap global every hostile string tries to set, in the view and the host."""
        return [self.frame.evaluate("window.__m1nd_trap"), self.page.evaluate("window.__m1nd_trap")]


# Each refused message, named: its place in the page's log, who sent it, what it was.
INVALID = """() => window.host.invalid.map((e) => `#${e.index} from the ${e.from}: ` +
  (e.message && typeof e.message === "object" && typeof e.message.method === "string" ? e.message.method
    : e.answers ? `the answer to ${e.answers}` : JSON.stringify(e.message).slice(0, 120)) +
  " -- " + e.problems.join("; ").slice(0, 2000))"""


@pytest.fixture
def open_view(browser, store):
    """open_view(store=..., color_scheme=...) -> a View in the official host on a fresh server over that store."""
    opened: list = []

    def make(on: Path = store, color_scheme: str = "light") -> View:
        host = OfficialHost(on)
        page = browser.new_page(color_scheme=color_scheme, viewport={"width": 800, "height": 960})
        opened.append((page, host))
        return View(page, host)

    yield make
    invalid = []
    for page, host in opened:
        try:
            if page.evaluate("typeof window.host === 'object'"):
                invalid += page.evaluate(INVALID)
        finally:
            page.close()
            host.close()
    if invalid:
        pytest.fail("messages the ext-apps schemas refuse:\n" + "\n".join(invalid), pytrace=False)


@pytest.fixture
def open_mock_view(browser, store):
    """open_mock_view(store=...) -> a View in the mock host (mock_host.html) on a fresh stdio server."""
    opened: list = []

    def make(on: Path = store, color_scheme: str = "light") -> View:
        mcp = harness.Mcp(on)
        host = harness.MockHost(mcp)
        page = browser.new_page(color_scheme=color_scheme, viewport={"width": 800, "height": 960})
        opened.append((page, host, mcp))
        return View(page, host)

    yield make
    for page, host, mcp in opened:
        page.close()
        host.close()
        mcp.close()

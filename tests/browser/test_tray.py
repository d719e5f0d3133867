"""The tray in Debian's chromium: a person logs in through the one-time link,
reads the missions waiting for a stamp and stamps one, with no model in
between; every forged, stale or malformed write is refused and leaves the
store byte-for-byte as it was."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import expect

import harness
from tray import TrayServer, external_write, files

# docs/tray.png is a copy of the shot taken here.
SHOTS = Path(os.environ.get("M1ND_SHOTS", harness.ROOT / "target" / "browser-shots"))


@pytest.fixture
def server(store):
    s = TrayServer(store)
    yield s
    s.close()


def login(browser, server: TrayServer, link: str | None = None):
    """A fresh browser context logged in through `link` (the server's first by default)."""
    context = browser.new_context(viewport={"width": 900, "height": 1000})
    page = context.new_page()
    page.goto(link or server.first_link)
    page.wait_for_selector("#missions section.card")
    return context, page


def session(context, page) -> tuple[str, str]:
    cookie = next(c for c in context.cookies() if c["name"] == "m1nd_tray")
    csrf = page.locator('meta[name="m1nd-csrf"]').get_attribute("content")
    return f"m1nd_tray={cookie['value']}", csrf


def tray_label(page, server: TrayServer) -> str:
    page.goto(server.base + "/")
    page.wait_for_selector("#view")
    return page.locator("#view").inner_text()


def stamp_body(page) -> bytes:
    """What the first card's button would send, read from the tray's own JSON."""
    tray = json.loads(page.evaluate("fetch('/tray/state.json').then(r => r.text())"))
    m = tray["missions"][0]
    return json.dumps({"mission": m["id"], "receipt_hash": m["receipt_hash"], "store_version": tray["store_version"]}).encode()


def test_login_then_stamp_end_to_end_moves_the_cockpit(browser, server, store):
    context, page = login(browser, server)
    cookie = next(c for c in context.cookies() if c["name"] == "m1nd_tray")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert page.evaluate("document.cookie") == "", "a script can read the session"
    assert page.url == server.base + "/tray"
    assert page.locator("#waiting").inner_text() == "(2)"
    assert page.locator("#candidates section.card").count() >= 1
    first = page.locator("#missions section.card").first
    mission = first.get_attribute("data-mission")
    assert len(first.locator(".hash").inner_text().split()[-1]) == 64
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "tray.png"), full_page=True)

    cockpit = context.new_page()
    assert "tray: 2 waiting for your stamp" in tray_label(cockpit, server)
    first.locator("button.stamp").click()
    expect(page.locator("#status")).to_have_text(re.compile(r"^stamped "))
    assert page.locator("#waiting").inner_text() == "(1)"
    assert page.locator(f'#missions section[data-mission="{mission}"]').count() == 0
    assert "tray: 1 waiting for your stamp" in tray_label(cockpit, server)
    state = json.dumps({k: v.decode("latin-1") for k, v in files(store).items()})
    cockpit_page = cockpit.content() + cockpit.evaluate("fetch('/cockpit.json?select=1').then(r => r.text())")
    for secret in [cookie["value"], session(context, page)[1], server.first_link.rsplit("=", 1)[1]]:
        assert secret not in state, "a secret reached the store's files"
        assert secret not in cockpit_page, "a secret reached the cockpit's view"
    context.close()


def test_a_double_click_and_a_second_human_stamp_once(browser, server, store):
    context, page = login(browser, server)
    other, other_page = login(browser, server, server.next_link())
    headers = [session(context, page), session(other, other_page)]
    body = stamp_body(page)
    version = json.loads(body)["store_version"]
    answers: list = [None] * 4

    def send(i: int) -> None:
        cookie, csrf = headers[i % 2]
        answers[i] = server.request("POST", "/tray/stamp", {
            "Cookie": cookie, "X-M1nd-Csrf": csrf, "Origin": server.base, "Content-Type": "application/json",
        }, body)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(harness.TIMEOUT_S)
    assert all(status == 200 for status, _ in answers), answers
    assert sum(1 for _, a in answers if a.get("stamped")) == 1, answers
    assert all(a.get("already") for _, a in answers if not a.get("stamped")), answers
    status, tray = server.request("GET", "/tray/state.json", {"Cookie": headers[0][0]})
    assert tray["store_version"] == version + 1
    context.close()
    other.close()


def send_html(handler: BaseHTTPRequestHandler, page: bytes) -> None:
    """Answer a test server's request with `page` as HTML."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Content-Length", str(len(page)))
    handler.end_headers()
    handler.wfile.write(page)


class Attacker(BaseHTTPRequestHandler):
    """A page on another origin that forges a stamp with the victim's browser."""

    target = ""
    body = b""

    def do_GET(self):
        page = f"""<!doctype html><script>
        window.done = fetch({json.dumps(Attacker.target)}, {{method: "POST", mode: "no-cors", credentials: "include",
          headers: {{"Content-Type": "text/plain"}}, body: {json.dumps(Attacker.body.decode())}}})
          .then(() => "sent", () => "blocked");
        </script>""".encode()
        send_html(self, page)

    def log_message(self, *args):
        pass


def test_every_forged_or_stale_write_is_refused_and_the_store_is_unchanged(browser, server, store):
    context, page = login(browser, server)
    cookie, csrf = session(context, page)
    body = stamp_body(page)
    json_headers = {"Content-Type": "application/json"}
    good = {"Cookie": cookie, "X-M1nd-Csrf": csrf, "Origin": server.base, **json_headers}
    before = files(store)

    # A page on another origin, in the same browser, forging the POST.
    Attacker.target, Attacker.body = server.base + "/tray/stamp", body
    evil = ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    for origin in [f"http://127.0.0.1:{evil.server_port}", f"http://localhost:{evil.server_port}"]:
        attack = context.new_page()
        attack.goto(origin + "/")
        assert attack.evaluate("window.done") in ("sent", "blocked")
        attack.close()
    evil.shutdown()
    assert files(store) == before, "a cross-origin page stamped"

    cases = {
        "forged Origin": ({**good, "Origin": "http://evil.example"}, 403, "origin"),
        "no Origin": ({k: v for k, v in good.items() if k != "Origin"}, 403, "origin"),
        "cross-site fetch": ({**good, "Sec-Fetch-Site": "cross-site"}, 403, "origin"),
        "missing CSRF": ({k: v for k, v in good.items() if k != "X-M1nd-Csrf"}, 403, "csrf"),
        "wrong CSRF": ({**good, "X-M1nd-Csrf": "0" * 64}, 403, "csrf"),
        "no cookie": ({k: v for k, v in good.items() if k != "Cookie"}, 401, "login"),
        "unknown session": ({**good, "Cookie": "m1nd_tray=" + "0" * 64}, 401, "login"),
        "foreign Host": ({**good, "Host": "evil.example"}, 403, "host"),
        "rebinding Host": ({**good, "Host": f"attacker.example:{server.port}"}, 403, "host"),
    }
    for name, (headers, status, code) in cases.items():
        got, answer = server.request("POST", "/tray/stamp", headers, body)
        assert (got, answer.get("code")) == (status, code), f"{name}: {got} {answer}"
        assert files(store) == before, f"{name} changed the store"
    got, answer = server.request("GET", "/tray/state.json", {"Host": "evil.example", "Cookie": cookie})
    assert got == 403
    got, _ = server.request("GET", "/tray", {})
    assert got == 401

    # The login link again, in a new browser: spent.
    fresh = browser.new_context()
    reused = fresh.new_page().goto(server.first_link)
    assert reused.status == 401 and not fresh.cookies()
    fresh.close()

    # A stale stamp: the mission changed after the page showed it. The open page
    # hears of it (server-sent events) and says so on the card before anyone acts.
    mission = json.loads(body)["mission"]
    external_write(store, "UPDATE missions SET title = title || ' (edited)' WHERE id = ?", (mission,))
    moved = files(store)
    card = page.locator(f'#missions section[data-mission="{mission}"]')
    card.locator(".note").wait_for()
    assert card.locator(".note").inner_text().startswith("state moved")
    assert "(edited)" in card.locator(".title").inner_text()
    got, answer = server.request("POST", "/tray/stamp", good, body)
    assert (got, answer.get("code")) == (409, "state_moved") and answer["error"].startswith("state moved"), answer
    assert files(store) == moved
    context.close()


def test_an_expired_session_and_a_logged_out_one_are_refused(browser, store):
    server = TrayServer(store, session_seconds=1)
    try:
        context, page = login(browser, server)
        cookie, csrf = session(context, page)
        body = stamp_body(page)
        before = files(store)
        time.sleep(1.5)
        headers = {"Cookie": cookie, "X-M1nd-Csrf": csrf, "Origin": server.base, "Content-Type": "application/json"}
        got, answer = server.request("POST", "/tray/stamp", headers, body)
        assert (got, answer.get("code")) == (401, "login"), answer
        assert files(store) == before
        context.close()

        context, page = login(browser, server, server.next_link())
        page.locator("#logout").click()
        expect(page.locator("#status")).to_have_text("logged out")
        assert page.evaluate("fetch('/tray/state.json').then(r => r.status)") == 401
        context.close()
    finally:
        server.close()


def test_bad_input_gets_a_clear_error_and_writes_nothing(browser, server, store):
    context, page = login(browser, server)
    cookie, csrf = session(context, page)
    good = {"Cookie": cookie, "X-M1nd-Csrf": csrf, "Origin": server.base, "Content-Type": "application/json"}
    body = json.loads(stamp_body(page))
    got, answer = server.request("POST", "/tray/stamp", good, json.dumps(body).encode())
    assert answer.get("stamped"), answer
    before = files(store)
    landed = {**body, "receipt_hash": "f" * 64}
    unknown = {**body, "mission": "msn_does_not_exist"}
    cases = {
        "unknown mission": (json.dumps(unknown).encode(), good, 404, "unknown"),
        "already landed": (json.dumps(landed).encode(), good, 409, "not_waiting"),
        "malformed JSON": (b"{mission=", good, 400, "form"),
        "a missing field": (json.dumps({"mission": body["mission"]}).encode(), good, 400, "form"),
        "an extra field": (json.dumps({**body, "force": True}).encode(), good, 400, "form"),
        "a bad hash": (json.dumps({**body, "receipt_hash": "<script>"}).encode(), good, 400, "form"),
        "store_version 0": (json.dumps({**body, "store_version": 0}).encode(), good, 400, "form"),
        "a huge body": (b"{" + b" " * 200_000 + b"}", good, 413, "form"),
        "not JSON": (b"mission=x", {**good, "Content-Type": "application/x-www-form-urlencoded"}, 415, "form"),
    }
    for name, (payload, headers, status, code) in cases.items():
        got, answer = server.request("POST", "/tray/stamp", headers, payload)
        assert (got, answer.get("code")) == (status, code), f"{name}: {got} {answer}"
        assert answer["error"], name
        assert files(store) == before, f"{name} changed the store"
    assert "already landed" in server.request("POST", "/tray/stamp", good, json.dumps(landed).encode())[1]["error"]
    context.close()


def test_a_bad_select_is_the_callers_mistake(browser, server, store):
    """A reference the cockpit cannot parse or resolve is a 400 that says why, on the page and its JSON."""
    context, page = login(browser, server)
    cookie, _ = session(context, page)
    before = files(store)
    for path in ["/cockpit.json?select=9.9.9.9", "/?select=nonsense", "/cockpit.json?select=%FF", "/cockpit.json?select=42"]:
        got, answer = server.request("GET", path, {"Cookie": cookie})
        assert (got, answer.get("code")) == (400, "select"), f"{path}: {got} {answer}"
        assert answer["error"].startswith("cockpit: "), f"{path}: {answer}"
    assert files(store) == before
    context.close()


HOSTILE = [
    '<img src=x onerror="window.__m1nd_trap=1">',
    "</script><script>window.__m1nd_trap=2</script>",
    "\u202eevil\u202c mission",
]


def test_hostile_titles_render_as_text(browser, server, store):
    for i, title in enumerate(HOSTILE[:2]):
        external_write(
            store, "UPDATE missions SET title = ? WHERE id = (SELECT id FROM missions WHERE board = 0 LIMIT 1 OFFSET ?)",
            (title, i),
        )
    external_write(store, "UPDATE blocks SET title = ? WHERE status = 'candidate'", (HOSTILE[2],))
    context, page = login(browser, server)
    titles = page.locator("#missions .title").all_inner_texts()
    assert titles[:2] == HOSTILE[:2]
    # Bidi controls are state text the one sanitiser removes, so the title cannot reorder what is read.
    assert page.locator("#candidates .title").first.inner_text() == "evil mission"
    assert page.locator("img").count() == 0
    assert page.evaluate("window.__m1nd_trap") is None
    context.close()


def test_the_cockpit_page_navigates_over_http_with_no_model(browser, server, store):
    context, page = login(browser, server)
    cockpit = context.new_page()
    sent: list[str] = []
    cockpit.on("request", lambda r: sent.append(r.url) if r.resource_type == "document" else None)
    cockpit.goto(server.base + "/")
    expect(cockpit.locator("#level")).to_have_text("root")
    before = files(store)
    cockpit.locator('#view button.entry:has(> .num:text-is("3"))').click()
    expect(cockpit.locator("#level")).to_have_text("3")
    cockpit.locator('#view button.entry:has(> .num:text-is("3.1"))').click()
    expect(cockpit.locator("#level")).to_have_text("3.1")
    cockpit.locator("#view button.entry.back").click()
    expect(cockpit.locator("#level")).to_have_text("3")
    cockpit.locator("#view button.entry.back").click()
    expect(cockpit.locator("#level")).to_have_text("root")
    chosen = sent[1:]
    assert len(chosen) == 4 and all(u.startswith(server.base + "/?select=") for u in chosen), sent
    assert files(store) == before, "navigating the cockpit wrote"
    context.close()


def test_the_tray_door_leads_to_the_tray(browser, server):
    context, _ = login(browser, server)
    cockpit = context.new_page()
    cockpit.goto(server.base + "/")
    cockpit.locator('#view button.entry:has(> .num:text-is("1"))').click()
    expect(cockpit.locator("#level")).to_have_text("1")
    link = cockpit.locator("#view .door button.link")
    assert link.inner_text() == "/tray"
    link.click()
    cockpit.wait_for_url(server.base + "/tray")
    cockpit.wait_for_selector("#missions section.card")
    context.close()


def test_ratifying_a_candidate_block_once(browser, server, store):
    context, page = login(browser, server)
    cookie, csrf = session(context, page)
    card = page.locator("#candidates section.card").first
    block = card.get_attribute("data-block")
    before = files(store)
    # Without the CSRF token, nothing happens.
    tray = json.loads(page.evaluate("fetch('/tray/state.json').then(r => r.text())"))
    c = next(c for c in tray["candidates"] if c["id"] == block)
    body = json.dumps({"block": block, "receipt_hash": c["receipt_hash"], "store_version": tray["store_version"]}).encode()
    got, answer = server.request("POST", "/tray/ratify", {"Cookie": cookie, "Origin": server.base, "Content-Type": "application/json"}, body)
    assert (got, answer.get("code")) == (403, "csrf"), answer
    assert files(store) == before
    card.locator("button.ratify").click()
    expect(page.locator("#status")).to_have_text(re.compile(r"^ratified "))
    expect(page.locator("#candidate-count")).to_have_text(f"({tray['candidate_count'] - 1})")
    assert page.locator(f'#candidates section[data-block="{block}"]').count() == 0
    headers = {"Cookie": cookie, "X-M1nd-Csrf": csrf, "Origin": server.base, "Content-Type": "application/json"}
    after = files(store)
    got, answer = server.request("POST", "/tray/ratify", headers, body)
    assert got == 200 and answer.get("already"), answer
    assert files(store) == after, "a second ratification wrote"
    context.close()


class Recorder(BaseHTTPRequestHandler):
    """A plain server on another loopback port that keeps every `Cookie` header it is sent."""

    # (Host, Cookie) of every request, the browser's favicon requests included.
    seen: list[tuple[str, str]] = []

    def do_GET(self):
        Recorder.seen.append((self.headers.get("Host") or "", self.headers.get("Cookie") or ""))
        page = b"<!doctype html><title>another local server</title><p>recorded</p>"
        send_html(self, page)

    def log_message(self, *args):
        pass


def test_two_servers_keep_their_own_sessions_and_no_other_server_gets_them(browser, store, tmp_path):
    """Cookies have no port: on 127.0.0.1 one server's session would reach every local server, and a
    second login would replace the first. Each tray lives on its own `m1nd-<label>.localhost`."""
    a = TrayServer(store)
    b = TrayServer(harness.init_store(tmp_path / "store-b"))
    recorder = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=recorder.serve_forever, daemon=True).start()
    Recorder.seen = []
    try:
        assert a.name != b.name and a.port != b.port
        context = browser.new_context(viewport={"width": 900, "height": 1000})

        # On 127.0.0.1 the pages only say where the tray lives: no cookie, and the token is not spent.
        shared = context.new_page()
        misdirected = shared.goto(a.first_link.replace(a.name, "127.0.0.1"))
        assert misdirected.status == 421 and ".localhost" in shared.content()
        assert a.name not in shared.content(), "the page told its instance host"
        assert not context.cookies(), "a cookie was set on 127.0.0.1"

        # One browser, both servers: chromium resolves each *.localhost name to loopback.
        page_a = context.new_page()
        page_a.goto(a.first_link)
        page_a.wait_for_selector("#missions section.card")
        to_b: list = []
        context.on("request", lambda r: to_b.append(r) if r.url.startswith(b.base + "/") else None)
        page_b = context.new_page()
        page_b.goto(b.first_link)
        page_b.wait_for_selector("#missions section.card")
        sessions = {c["domain"]: c for c in context.cookies() if c["name"] == "m1nd_tray"}
        assert set(sessions) == {a.name, b.name}, sessions
        assert sessions[a.name]["value"] != sessions[b.name]["value"]
        for c in sessions.values():
            assert c["httpOnly"] and c["sameSite"] == "Strict" and not c["domain"].startswith("."), c
        assert not context.cookies(f"http://127.0.0.1:{a.port}/") and not context.cookies(f"http://localhost:{a.port}/")

        # Logging into B did not log A out: A's page reloads and stamps, then B's stamps.
        page_a.reload()
        page_a.wait_for_selector("#missions section.card")
        for page in (page_a, page_b):
            before = page.locator("#waiting").inner_text()
            page.locator("#missions section.card").first.locator("button.stamp").click()
            expect(page.locator("#status")).to_have_text(re.compile(r"^stamped "))
            assert page.locator("#waiting").inner_text() != before
        status_a = page_a.evaluate("fetch('/tray/state.json').then(r => r.status)")
        status_b = page_b.evaluate("fetch('/tray/state.json').then(r => r.status)")
        assert (status_a, status_b) == (200, 200)

        # Another local server, visited in the same browser on every shared name, is sent neither session.
        port = recorder.server_address[1]
        visits = [f"http://127.0.0.1:{port}/", f"http://localhost:{port}/", f"http://m1nd-{'0' * 32}.localhost:{port}/"]
        for url in visits:
            other = context.new_page()
            other.goto(url)
            other.evaluate("fetch(location.href, {credentials: 'include'}).then(r => r.status)")
            other.close()
        hosts = [host for host, _ in Recorder.seen]
        for url in visits:
            assert hosts.count(url.removeprefix("http://").rstrip("/")) >= 2, (url, Recorder.seen)
        for secret in [c["value"] for c in sessions.values()]:
            assert not any(secret in cookie for _, cookie in Recorder.seen), Recorder.seen
        assert not any("m1nd_tray" in cookie for _, cookie in Recorder.seen), Recorder.seen
        # The control: the recorder does see a session when the browser sends one, as on A's own
        # name (cookies have no port). That is why the name is random and printed only in A's links.
        Recorder.seen = []
        control = context.new_page()
        control.goto(f"http://{a.name}:{port}/")
        control.close()
        assert any(sessions[a.name]["value"] in cookie for _, cookie in Recorder.seen), Recorder.seen

        # Server B is never sent A's session either (every request the browser made to it), and A's
        # session replayed to B by hand opens nothing there.
        cookies_to_b = [r.all_headers().get("cookie", "") for r in to_b]
        assert len(cookies_to_b) >= 4, [r.url for r in to_b]
        assert not any(sessions[a.name]["value"] in c for c in cookies_to_b), cookies_to_b
        assert any(sessions[b.name]["value"] in c for c in cookies_to_b), cookies_to_b
        got, answer = b.request("GET", "/tray/state.json", {"Cookie": f"m1nd_tray={sessions[a.name]['value']}"})
        assert (got, answer.get("code")) == (401, "login"), "B took A's session"
        context.close()
    finally:
        recorder.shutdown()
        a.close()
        b.close()

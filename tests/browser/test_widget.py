"""The cockpit widget in a real browser, inside an MCP Apps host, in front of
a real `m1nd serve`: navigation, the two skins level by level, what the view
sends, hostile state, bad input, pasted mode, themes and accessibility.

The host these tests trust is built on the official host side
(official_host.py, bridge/host.js): @modelcontextprotocol/ext-apps's
AppBridge and PostMessageTransport in front of the view, the official MCP
client behind it, a real `m1nd serve --http` behind that. Every message in
both directions is checked against the package's own schemas (zod and
schema.json; bridge/schema_check.js), and a test whose page saw an invalid one
fails (conftest.open_view).

The mock host (mock_host.html, `open_mock_view`) is kept for one test,
test_stray_and_malformed_messages_send_nothing: messages no conforming host
sends (a bare string, no `jsonrpc`, a notification with an id, params that
are not an object, a second answer to an answered request, a result whose
structuredContent is null) and a message from a window that is not the view's
parent. AppBridge's typed API cannot emit the first kind, and they would fail
the schema check by design; the second needs the mock's raw post beside it,
to show that the same message from the parent is drawn. Pasted mode needs no
host at all.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import harness
from conftest import View

MB = 1024 * 1024
TRAP = "window.__m1nd_trap=1"
HOSTILE = [
    f"<script>{TRAP}</script>",
    f'<img src=x onerror="{TRAP}">',
    "</script><script>" + TRAP + "</script>",
    "\u202eevil\u202c \u2066isolate\u2069 \u200bzero\u200dwidth\ufeff",
    "line\u2028sep\u2029para &amp; <b>bold</b>",
    "x" * MB,
    ("<img src=x onerror=" + TRAP + ">") * (MB // 40),
]
# What a store may hold: it refuses any string longer than its limit as corrupt.
HOSTILE_STATE = [h[:4000] for h in HOSTILE]
SHOTS = Path(os.environ.get("M1ND_SHOTS", harness.ROOT / "target" / "browser-shots"))


def assert_same_geometry(view: View, result: dict | None = None) -> dict:
    """The DOM shows exactly the text card of the result it was drawn from."""
    result = result or view.results()[-1]
    card = result["content"][0]["text"]
    dom = view.dom()
    lines, facts = harness.card_from_dom(dom)
    card_rest, card_facts = harness.card_lines(
        card, len(dom["facts"]), dom["subject"] is not None, dom["door"] is not None, dom["listing"] is not None
    )
    assert lines == card_rest, f"DOM:\n{lines}\ncard:\n{card}"
    # JavaScript orders an object's integer-like keys first, so facts are compared as a set.
    assert sorted(facts) == sorted(card_facts), f"DOM facts {facts} vs card {card_facts}"
    assert all(not e["back"] or e["text"] == "back" for e in dom["entries"])
    return dom


def shown_selects(view: View) -> set[str]:
    """Every select a drawn view offered: its entries and its back."""
    out = set()
    for result in view.results():
        content = result.get("structuredContent") or {}
        out.update(e["select"] for e in content.get("entries", []))
        if "back" in content:
            out.add(content["back"])
    return out


def assert_payloads_honest(view: View) -> None:
    """Every tools/call the view sent is `cockpit {select}` with a reference
    the grammar accepts and that a drawn entry carried; nothing else left."""
    allowed = {"ui/initialize", "ui/notifications/initialized", "ui/notifications/size-changed", "tools/call", "ui/message"}
    offered = shown_selects(view)
    for message in view.sent():
        assert message["jsonrpc"] == "2.0"
        assert message.get("method") in allowed, message
        if message["method"] == "tools/call":
            params = message["params"]
            assert set(params) == {"name", "arguments"} and params["name"] == "cockpit", params
            assert set(params["arguments"]) == {"select"}, params
            select = params["arguments"]["select"]
            assert view.frame.evaluate("(r) => isReference(r)", select), select
            assert select in offered, f"{select} was never shown"
        if message["method"] == "ui/message":
            assert message["params"]["role"] == "user"
            [part] = message["params"]["content"]
            assert part["type"] == "text" and part["text"].startswith("cockpit ")
            assert part["text"][len("cockpit ") :] in offered


def test_the_official_bridge_accepts_the_view_and_draws_the_template_as_an_mcp_app(open_view):
    view = open_view().start()
    uri = view.page.evaluate("window.host.uri")
    assert uri.startswith("ui://m1nd/m1nd-cockpit-widget-v1-"), uri
    assert view.page.evaluate("window.host.mimeType") == "text/html;profile=mcp-app"
    capabilities = view.page.evaluate("window.host.serverCapabilities")
    assert capabilities["extensions"][harness.UI_EXTENSION]["mimeTypes"] == ["text/html;profile=mcp-app"]
    # The page's client reached the server through the relay with its own Origin, which m1nd admits by --allow-origin.
    relayed = view.host.relayed
    assert relayed and all(origin == view.host.origin and status in (200, 202) for _, origin, status in relayed), relayed
    iframe = view.page.locator("#view")
    assert iframe.get_attribute("sandbox") == "allow-scripts"
    assert "default-src 'none'" in iframe.get_attribute("srcdoc")

    # ui/initialize: AppBridge answered with a result, kept the view's appInfo, then saw initialized.
    [init] = view.sent("ui/initialize")
    assert init["params"]["appInfo"]["version"] == "m1nd-cockpit-widget-v1"
    [answer] = [e["message"] for e in view.log() if e["from"] == "host" and e["answers"] == "ui/initialize"]
    assert "error" not in answer, answer
    assert answer["result"]["protocolVersion"] == init["params"]["protocolVersion"] == "2026-01-26"
    assert answer["result"]["hostInfo"]["name"] == "m1nd-test-host"
    assert view.page.evaluate("window.host.appVersion") == init["params"]["appInfo"]
    assert view.page.evaluate("window.host.initialized") is True
    methods = [m.get("method") for m in view.sent()]
    assert methods.index("ui/initialize") < methods.index("ui/notifications/initialized")
    assert "ui/notifications/size-changed" in methods
    host_methods = [e["message"].get("method") for e in view.log() if e["from"] == "host"]
    assert host_methods.index("ui/notifications/tool-input") < host_methods.index("ui/notifications/tool-result")

    # The view answers the host's ui/resource-teardown, as a host asks before it removes the frame.
    assert view.page.evaluate("window.host.teardown()") == {}
    [torn] = [e for e in view.log() if e["from"] == "view" and e["answers"] == "ui/resource-teardown"]
    assert torn["message"]["result"] == {}

    # Every message was checked, both ways, and none refused (the fixture fails a test on any).
    log = view.log()
    assert {e["from"] for e in log} == {"view", "host"}
    assert all(e["problems"] == [] for e in log), [e for e in log if e["problems"]]


def test_the_schema_check_refuses_what_the_spec_refuses(open_view):
    """The check the fixture relies on, on its own: the real exchange passes it
    message by message, and each message below, broken in one way, does not."""
    view = open_view().start()
    view.choose("2", "2")
    real = [[e["from"], e["message"]] for e in view.log()]
    assert len(real) >= 8
    assert view.page.evaluate("(s) => window.host.check(s)", real) == [[]] * len(real)

    init = ["view", {"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {
        "appInfo": {"name": "x", "version": "1"}, "appCapabilities": {}, "protocolVersion": "2026-01-26"}}]
    text = [{"type": "text", "text": "cockpit 2"}]
    answer = {"protocolVersion": "2026-01-26", "hostInfo": {"name": "h", "version": "1"}, "hostCapabilities": {}, "hostContext": {}}
    # name: (messages, what the refusal of the last one says); every message before the last passes.
    broken = {
        "no jsonrpc": ([["view", {"id": 2, "method": "tools/call", "params": {"name": "cockpit", "arguments": {}}}]],
                       "not a JSON-RPC 2.0 message"),
        "a tool call with no name": ([["view", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}}}]],
                                     "params.name"),
        "a user turn in another role": ([["view", {"jsonrpc": "2.0", "id": 2, "method": "ui/message",
                                                   "params": {"role": "assistant", "content": text}}]], "params.role"),
        # zod drops an unknown key; schema.json refuses it.
        "a key the spec does not name": ([["view", {"jsonrpc": "2.0", "method": "ui/notifications/size-changed",
                                                    "params": {"width": 1, "height": 2, "depth": 3}}]],
                                         "schema.json McpUiSizeChangedNotification: /params must NOT have additional properties (depth)"),
        "a host's message from the view": ([["view", {"jsonrpc": "2.0", "method": "ui/notifications/tool-result",
                                                      "params": {"content": text}}]], "never by the view"),
        "a notification with an id": ([["view", {"jsonrpc": "2.0", "id": 2, "method": "ui/notifications/initialized"}]],
                                      "must be a notification"),
        "a method no bridge has": ([["view", {"jsonrpc": "2.0", "id": 2, "method": "ui/launch", "params": {}}]],
                                   "ui/launch is not a message of an MCP Apps bridge"),
        "a tool result whose content is text": ([["host", {"jsonrpc": "2.0", "method": "ui/notifications/tool-result",
                                                           "params": {"content": "cockpit"}}]], "params.content"),
        "an answer to nothing": ([["host", {"jsonrpc": "2.0", "id": 7, "result": {}}]], "answers no open request"),
        "an initialize answer with no hostInfo": (
            [init, ["host", {"jsonrpc": "2.0", "id": 1, "result": {k: v for k, v in answer.items() if k != "hostInfo"}}]],
            "'hostInfo'"),
        "a second answer": ([init, *[["host", {"jsonrpc": "2.0", "id": 1, "result": answer}]] * 2], "answers no open request"),
    }
    for name, (sequence, said) in broken.items():
        verdicts = view.page.evaluate("(s) => window.host.check(s)", sequence)
        assert all(v == [] for v in verdicts[:-1]), (name, verdicts)
        assert any(said in problem for problem in verdicts[-1]), f"{name}: {verdicts[-1]}"


def test_navigation_root_collection_item_action_and_back_carries_the_sigs(open_view):
    view = open_view().start()
    root = assert_same_geometry(view)
    assert root["level"] == "root" and len(root["entries"]) >= 2
    root_sig = view.results()[-1]["structuredContent"]["menu_sig"]

    view.type("2", "2")  # digits and Enter, as a human types
    assert view.sent("tools/call")[-1]["params"]["arguments"]["select"] == f"2@{root_sig}"
    collection = assert_same_geometry(view)
    item = next(e for e in collection["entries"] if not e["back"])

    view.choose(item["number"], item["number"])
    item_view = assert_same_geometry(view)
    assert item_view["subject"] == item["text"] and item_view["facts"]
    action = next(e for e in item_view["entries"] if not e["back"])

    view.choose(action["number"], action["number"])
    assert view.sent("tools/call")[-1]["params"]["arguments"]["select"] == action["select"]
    assert action["select"].endswith("@" + view.results()[-2]["structuredContent"]["menu_sig"])
    assert_same_geometry(view)

    view.choose(item["number"], item["number"])  # the action's back
    view.type("0", "2")  # `0` is back
    view.type("0", "root")
    assert_same_geometry(view)
    assert len(view.sent("tools/call")) == 6
    assert_payloads_honest(view)


def test_state_moved_is_said_first_after_another_client_writes(open_view, store):
    view = open_view().start()
    version = view.results()[-1]["structuredContent"]["store_version"]
    other = harness.Mcp(store, read_only=False)
    try:
        wrote = other.call("memorize", {"node_label": "tests", "claims": [{"label": "a claim from another client"}], "expected_store_version": version})
        assert not wrote.get("isError"), wrote
    finally:
        other.close()
    # The number was read from a menu that changed: the root is served again, not slot 6.
    view.choose("6", "root")
    moved = view.results()[-1]["structuredContent"]
    assert moved.get("state_moved") is True and moved["note"]
    first = view.frame.evaluate("document.getElementById('view').firstElementChild.textContent")
    assert first == "state moved"
    dom = assert_same_geometry(view)
    assert dom["moved"] and dom["note"] == moved["note"]
    assert_payloads_honest(view)


def levels_of_note(tmp_path: Path) -> list[tuple[str, Path, str]]:
    """(name, store, select) for the levels the two skins must agree on beyond navigation."""
    empty = harness.init_store(tmp_path / "empty", demo=False)
    failed = harness.init_store(tmp_path / "failed")
    title = {}

    def drop_node(state):
        state["blocks"][0]["node"] = ""
        title["t"] = state["blocks"][0]["title"]

    harness.edit_state(failed, drop_node)
    probe = harness.Mcp(failed)
    try:
        entries = probe.call("cockpit", {"select": "2"})["structuredContent"]["entries"]
    finally:
        probe.close()
    number = next(e["select"].split("@")[0] for e in entries if e["item"] == title["t"])

    hostile = harness.init_store(tmp_path / "hostile")

    def poison(state):
        for n, mission in enumerate(state["missions"]):
            mission["title"] = HOSTILE_STATE[n % len(HOSTILE)]
            mission["agent"] = HOSTILE_STATE[(n + 3) % len(HOSTILE)]
        for n, memory in enumerate(state["memories"]):
            for key in memory:
                if isinstance(memory[key], str) and key != "id":
                    memory[key] = HOSTILE_STATE[(n + 1) % len(HOSTILE)]

    harness.edit_state(hostile, poison)
    return [
        ("empty collection", empty, "2"),
        ("a read that failed", failed, f"{number}.1"),
        ("hostile collection", hostile, "3"),
        ("hostile item", hostile, "3.1"),
        ("hostile memories", hostile, "6"),
    ]


def test_two_skins_one_geometry_on_unusual_levels(open_view, tmp_path):
    seen_note = False
    for name, on, select in levels_of_note(tmp_path):
        view = open_view(on).start(select)
        dom = assert_same_geometry(view)
        seen_note |= dom["note"] is not None
        assert view.trap() == [None, None], name
        assert view.sent("tools/call") == [], name
    assert seen_note, "the failed read drew its note"


def test_hostile_state_sends_nothing_executes_nothing_and_holds_the_layout(open_view, tmp_path):
    _, on, _ = levels_of_note(tmp_path)[2]
    view = open_view(on).start("3")
    view.choose("3.1", "3.1")
    calls = len(view.sent("tools/call"))
    # A view that never went through the server's caps: 1 MB strings, markup, bidi.
    forged = dict(view.results()[-1]["structuredContent"])
    forged["item"] = HOSTILE[5]
    forged["facts"] = {f"k{n}": s for n, s in enumerate(HOSTILE)}
    forged["entries"] = [{"select": "3.1.1@mc_00000000", "item": s} for s in HOSTILE]
    view.page.evaluate("(r) => window.host.feed(r)", {"content": [{"type": "text", "text": "x"}], "structuredContent": forged})
    view.frame.wait_for_function("() => document.querySelectorAll('.fact').length >= 7")
    assert view.trap() == [None, None]
    assert len(view.sent("tools/call")) == calls
    layout = view.frame.evaluate(
        """() => ({
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        wide: [...document.querySelectorAll('main, button.entry, .fact dd')].filter(
          (e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length,
        scripts: document.scripts.length, images: document.images.length })"""
    )
    assert layout == {"overflow": 0, "wide": 0, "scripts": 2, "images": 0}, layout
    texts = view.frame.evaluate("[...document.querySelectorAll('#view li .text')].map((t) => t.textContent)")
    assert texts == HOSTILE + ["back"], "hostile strings are shown as text, whole"
    assert_payloads_honest(view)


def test_doors_are_labelled_text_that_opens_only_their_static_link(open_view):
    view = open_view().start()
    root = view.results()[-1]["structuredContent"]
    # The door slots are the ones whose level carries a door; find one through the server.
    door_slot = None
    for entry in root["entries"]:
        number = entry["select"].split("@")[0]
        if "door" in view.call("cockpit", {"select": entry["select"]})["structuredContent"]:
            door_slot = number
            break
    assert door_slot, "the policy has a door"
    view.choose(door_slot, door_slot)
    door = view.frame.locator(".door")
    assert door.get_attribute("role") == "note"
    link = view.results()[-1]["structuredContent"]["door_link"]
    # The door's one control is its link, the policy's static path; nothing else is clickable.
    assert door.locator("button, a, input, [tabindex]").count() == 1
    assert door.locator("button.link").inner_text() == link
    def acts(since: int) -> list:
        return [m for m in view.sent()[since:] if m.get("method") != "ui/notifications/size-changed"]

    sent = len(view.sent())
    view.frame.locator(".door .tag").click()
    view.frame.locator(".door .text").click()
    view.frame.locator(".door .text").dblclick()
    view.page.keyboard.press("Enter")
    view.page.wait_for_timeout(200)
    assert acts(sent) == [], acts(sent)
    door.locator("button.link").click()
    view.page.wait_for_function("(n) => window.host.sent.length > n", arg=sent)
    view.page.wait_for_timeout(200)
    opened = acts(sent)
    assert [(m.get("method"), m.get("params")) for m in opened] == [("ui/open-link", {"url": link})], opened
    assert_same_geometry(view)


def test_stray_and_malformed_messages_send_nothing(open_mock_view):
    # The mock host: nothing here is a message a conforming host sends (see the module's docstring).
    view = open_mock_view().start()
    before = view.dom()
    calls = len(view.sent("tools/call"))
    good = view.results()[-1]
    forged = {**good, "structuredContent": {**good["structuredContent"], "title": "FORGED"}}
    for message in [
        "a string",
        {"method": "ui/notifications/tool-result", "params": forged},
        {"jsonrpc": "2.0", "id": 99, "method": "ui/notifications/tool-result", "params": forged},
        {"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": "x"},
        {"jsonrpc": "2.0", "id": 1, "result": forged},
    ]:
        view.page.evaluate("(m) => window.host.post(m)", message)
    # The same view from a window that is not the parent.
    view.page.evaluate(
        """(m) => { window.addEventListener('message', (e) => { if (e.data === 'stray sent') window.straySent = true; });
        const f = document.createElement('iframe'); f.sandbox = 'allow-scripts';
        f.srcdoc = '<script>parent.frames[0].postMessage(' + JSON.stringify(m) + ', "*"); parent.postMessage("stray sent", "*")<\\/script>';
        document.body.append(f); }""",
        {"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": forged},
    )
    view.page.wait_for_function("window.straySent === true")
    view.page.wait_for_timeout(300)
    assert view.dom() == before
    # The same view, well formed and from the parent, is drawn: the ones above were refused for their shape.
    view.page.evaluate("(r) => window.host.feed(r)", forged)
    view.frame.wait_for_function("() => document.getElementById('title').textContent === 'FORGED'")
    # A result whose structuredContent is null: said plainly, the text card, nothing to choose.
    view.page.evaluate("(r) => window.host.feed(r)", {**good, "structuredContent": None})
    view.frame.wait_for_selector("pre.fallback")
    assert "m1nd-cockpit-v1" in view.frame.locator("#view .note").text_content()
    assert view.frame.locator("pre.fallback").text_content() == good["content"][0]["text"]
    assert view.frame.locator("#view button").count() == 0
    view.frame.locator("main").click(position={"x": 5, "y": 5})
    for key in "1", "Enter", "0", "Enter":
        view.page.keyboard.press(key)
    view.page.wait_for_timeout(200)
    assert len(view.sent("tools/call")) == calls
    assert_payloads_honest(view)


def test_views_of_another_shape_fall_back_and_bad_selects_are_inert(open_view):
    view = open_view().start()
    calls = len(view.sent("tools/call"))
    good = view.results()[-1]
    # A view of another schema, missing fields, or none: said plainly, text fallback, nothing to choose.
    no_view = {k: v for k, v in good.items() if k != "structuredContent"}
    for result in [
        {**good, "structuredContent": {**good["structuredContent"], "schema": "m1nd-cockpit-v2"}},
        {**good, "structuredContent": {k: v for k, v in good["structuredContent"].items() if k != "menu_sig"}},
        no_view,
    ]:
        view.page.evaluate("(r) => window.host.feed(r)", result)
        view.frame.wait_for_selector("pre.fallback")
        said = view.frame.locator("#view .note").text_content()
        assert "m1nd-cockpit-v1" in said, said
        assert view.frame.locator("pre.fallback").text_content() == good["content"][0]["text"]
        assert view.frame.locator("#view button").count() == 0
        view.frame.locator("main").click(position={"x": 5, "y": 5})
        for key in "1", "Enter", "0", "Enter":
            view.page.keyboard.press(key)
        view.page.evaluate("(r) => window.host.feed(r)", good)
        view.frame.wait_for_selector("button.entry")
    # A forged select that breaks the grammar is drawn inert and marked.
    bad = {**good["structuredContent"], "entries": [{"select": "2; rm -rf", "label": "two"}, {"select": "1.2.3.4", "item": "x"}]}
    view.page.evaluate("(r) => window.host.feed(r)", {**good, "structuredContent": bad})
    view.frame.wait_for_selector(".inert")
    assert view.frame.locator(".inert").count() == 2 and view.frame.locator("button.entry").count() == 0
    assert "not a reference" in view.frame.locator(".inert").first.text_content()
    view.frame.locator(".inert").first.click()
    view.page.wait_for_timeout(200)
    assert len(view.sent("tools/call")) == calls
    assert_payloads_honest(view)


def test_a_refused_call_is_said_and_the_level_kept(open_view):
    # The server refuses a reference it cannot resolve: an entry the view was fed, valid in form.
    view = open_view().start()
    good = view.results()[-1]
    ghost = {**good["structuredContent"], "entries": [{"select": "2.99", "label": "no such item"}]}
    view.page.evaluate("(r) => window.host.feed(r)", {**good, "structuredContent": ghost})
    view.frame.wait_for_selector('button.entry:has(> .num:text-is("2.99"))')
    view.entry("2.99").click()
    view.frame.wait_for_function("() => document.getElementById('status').textContent.includes('refused')")
    assert view.frame.locator("#level").text_content() == "root"
    assert view.entry("2.99").count() == 1


@pytest.mark.parametrize("config", [{"refuseTools": True}, {"serverTools": False}])
def test_a_host_without_tool_calls_gets_the_one_message(open_view, config):
    view = open_view().start(**config)
    select = next(e["select"] for e in view.results()[-1]["structuredContent"]["entries"] if e["select"].startswith("2@"))
    view.entry("2").click()
    view.page.wait_for_function("window.host.sent.some((m) => m.method === 'ui/message')")
    [message] = view.sent("ui/message")
    assert message["params"] == {"role": "user", "content": [{"type": "text", "text": f"cockpit {select}"}]}
    assert len(view.sent("tools/call")) == (1 if config.get("refuseTools") else 0)
    assert view.frame.locator("#level").text_content() == "root"
    assert_payloads_honest(view)


def pasted(store: Path, *args: str) -> str:
    out = subprocess.run(
        [harness.binary(), "cockpit", *args, "--html", "--store", str(store)],
        check=True,
        capture_output=True,
        timeout=harness.TIMEOUT_S,
    )
    return out.stdout.decode()


@pytest.mark.parametrize("stub", [True, False])
def test_pasted_mode_calls_send_prompt_or_shows_the_reference(browser, store, tmp_path, stub):
    def poison(state):
        state["missions"][0]["title"] = HOSTILE_STATE[2]

    harness.edit_state(store, poison)
    page_file = tmp_path / "pasted.html"
    page_file.write_text(pasted(store, "3"))
    view_json = json.loads(
        subprocess.run(
            [harness.binary(), "cockpit", "3", "--json", "--store", str(store)], check=True, capture_output=True
        ).stdout
    )
    page = browser.new_page()
    try:
        if stub:
            page.add_init_script("window.__prompts = []; window.sendPrompt = (t) => window.__prompts.push(t);")
        page.goto(page_file.as_uri())
        page.wait_for_selector("button.entry")
        assert page.evaluate("window.__m1nd_trap") is None
        texts = page.evaluate("[...document.querySelectorAll('#view li .text')].map((t) => t.textContent)")
        shown = [e.get("label", e.get("item")) for e in view_json["entries"]] + ["back"]
        assert texts == shown and "</script>" in shown[0]
        first = view_json["entries"][0]["select"]
        page.locator("button.entry").first.click()
        if stub:
            assert page.evaluate("window.__prompts") == [f"cockpit {first}"]
        else:
            assert page.locator("#status code").text_content() == f"cockpit {first}"
    finally:
        page.close()


def test_the_widget_grammar_agrees_with_the_corpus(open_view):
    view = open_view().start()
    verdicts = view.frame.evaluate("(c) => c.map((x) => isReference(x.reference))", harness.CORPUS)
    wrong = [c for c, v in zip(harness.CORPUS, verdicts) if v != c["valid"]]
    assert not wrong, wrong
    assert view.frame.evaluate("isReference('1'.repeat(4097))") is False


COLORS = {"light": "rgb(242, 239, 233)", "dark": "rgb(14, 13, 12)"}


def background(view: View) -> str:
    return view.frame.evaluate("getComputedStyle(document.body).backgroundColor")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_themes_and_screenshots(open_view, theme):
    SHOTS.mkdir(parents=True, exist_ok=True)
    view = open_view().start(theme=theme)
    assert background(view) == COLORS[theme]
    view.frame.locator("main").screenshot(path=str(SHOTS / f"root-{theme}.png"))
    view.choose("2", "2")
    item = next(e for e in view.dom()["entries"] if not e["back"])
    view.choose(item["number"], item["number"])
    view.frame.locator("main").screenshot(path=str(SHOTS / f"item-{theme}.png"))


def test_prefers_color_scheme_decides_when_the_host_says_nothing(open_view):
    view = open_view(color_scheme="dark").start(theme=None)
    assert background(view) == COLORS["dark"]
    view.page.evaluate("window.host.context({theme: 'light'})")
    [changed] = [e["message"] for e in view.log() if e["message"].get("method") == "ui/notifications/host-context-changed"]
    assert changed["params"] == {"theme": "light"}, "AppBridge sends only what changed"
    view.frame.wait_for_function("() => getComputedStyle(document.body).backgroundColor === 'rgb(242, 239, 233)'")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_nothing_serious(open_view, theme):
    axe = Path(os.environ["M1ND_AXE"]).read_text()
    view = open_view().start(theme=theme)
    for step in [None, "2", "item"]:
        if step == "2":
            view.choose("2", "2")
        elif step == "item":
            item = next(e for e in view.dom()["entries"] if not e["back"])
            view.choose(item["number"], item["number"])
        view.frame.add_script_tag(content=axe)
        found = view.frame.evaluate(
            "axe.run(document).then((r) => ({passes: r.passes.length, violations: r.violations.map((v) => ({id: v.id, impact: v.impact}))}))"
        )
        assert found["passes"] > 0, "axe checked nothing"
        serious = [v for v in found["violations"] if v["impact"] in ("serious", "critical")]
        assert not serious, f"{theme} {step}: {serious}"


def test_focus_order_follows_the_entries(open_view):
    view = open_view().start()
    view.frame.locator("button.entry").first.focus()
    order = []
    for _ in range(view.frame.locator("button.entry").count()):
        order.append(view.frame.evaluate("document.activeElement.querySelector('.num')?.textContent"))
        view.page.keyboard.press("Tab")
    numbers = [e["number"] for e in view.dom()["entries"]]
    assert order == numbers
    assert view.frame.evaluate("document.activeElement.id") == "ref"
    # A chosen level keeps the keyboard: focus lands on its first choice.
    view.type("2", "2")
    first = view.dom()["entries"][0]["number"]
    assert view.frame.evaluate("document.activeElement.querySelector('.num')?.textContent") == first

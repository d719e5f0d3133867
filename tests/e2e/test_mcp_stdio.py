"""End to end: the official MCP Python SDK drives `m1nd serve` over stdio.

Each test seeds its own store with `m1nd init --demo`, starts its own server process and talks
to it only through `mcp.ClientSession`. Expectations come from the policy files, never from the
server's source.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import harness
from harness import cockpit, entry, first_entry, serve, text_of

pytestmark = pytest.mark.anyio


def _no_verb_anywhere(value: Any, where: str) -> None:
    """No entry (nor anything nested in one) carries a `verb` key."""
    if isinstance(value, dict):
        assert "verb" not in value, f"{where}: an entry carries a verb key: {value}"
        for k, v in value.items():
            _no_verb_anywhere(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _no_verb_anywhere(v, f"{where}[{i}]")


def _check_view(view: dict[str, Any], level: str) -> None:
    """What every cockpit answer carries, at the level we asked for."""
    assert view["level"] == level, f"expected level {level!r}, got {view['level']!r}: {view}"
    assert harness.MENU_SIG.match(view["menu_sig"]), f"bad menu_sig {view['menu_sig']!r}"
    assert isinstance(view["state_sig"], str) and view["state_sig"], view
    assert isinstance(view["store_version"], int) and view["store_version"] >= 1, view
    assert isinstance(view.get("title"), str) and view["title"], view
    assert not view.get("state_moved"), f"state moved on a fresh drill: {view}"
    for e in view.get("entries", []):
        assert set(e) <= {"select", "label", "item", "mark"}, f"unexpected entry keys: {e}"
        assert ("label" in e) != ("item" in e), f"an entry has exactly one of label/item: {e}"
        assert "mark" not in e or ("item" in e and isinstance(e["mark"], str)), f"a mark sits only beside an item: {e}"
    # A list says what it is: how many of how many, in what order, as typed fields.
    if "list" in view:
        listing = view["list"]
        assert set(listing) == {"shown", "total", "order"}, f"unexpected list keys: {listing}"
        assert isinstance(listing["shown"], int) and isinstance(listing["total"], int), listing
        assert isinstance(listing["order"], str) and listing["order"], listing
        items = [e for e in view.get("entries", []) if "item" in e]
        assert listing["shown"] == len(items) <= listing["total"], f"{listing} vs {len(items)} items"
        number, _, sig = e["select"].partition("@")
        assert sig == view["menu_sig"], f"entry {e['select']!r} does not carry this menu's sig"
        assert all(part.isdigit() for part in number.split(".")), f"select is not a bare reference: {e}"
        assert len(number.split(".")) <= 3, f"a reference never holds more than three numbers: {e}"
    _no_verb_anywhere(view.get("entries", []), f"level {level} entries")


# --- initialize -------------------------------------------------------------------------------


@pytest.mark.parametrize("read_only", [False, True], ids=["normal", "read-only"])
async def test_initialize_attests_the_repository_policy_digest(store: Path, read_only: bool) -> None:
    expected = harness.policy_digest()
    assert len(expected) == 64, expected
    async with serve(store, read_only=read_only) as server:
        assert server.meta, "initialize returned no _meta"
        attestation = server.meta.get("io.m1nd/attestation")
        assert isinstance(attestation, dict), f"no io.m1nd/attestation object in _meta: {server.meta}"
        assert attestation.get("policy") == expected, (
            f"the served policy digest is not the repository's: served {attestation.get('policy')}, "
            f"`m1nd policy digest policy` says {expected}"
        )


@pytest.mark.parametrize("read_only", [False, True], ids=["normal", "read-only"])
async def test_initialize_instructions_carry_negative_default(store: Path, read_only: bool) -> None:
    sentence = harness.negative_default()
    async with serve(store, read_only=read_only) as server:
        assert server.instructions, "initialize returned no instructions"
        assert sentence in server.instructions, (
            f"the negative_default sentence is not in the server's instructions, word for word.\n"
            f"sentence: {sentence}\ninstructions: {server.instructions}"
        )


# --- tools/list -------------------------------------------------------------------------------


def _annotations(tool: Any) -> tuple[bool, bool]:
    ann = tool.annotations
    assert ann is not None, f"{tool.name}: no annotations"
    assert ann.read_only_hint is not None, f"{tool.name}: readOnlyHint missing"
    assert ann.destructive_hint is not None, f"{tool.name}: destructiveHint missing"
    return ann.read_only_hint, ann.destructive_hint


async def test_tools_list_normal_and_read_only(store: Path) -> None:
    denied = {harness.normalize(v) for v in harness.denied_tools()}
    human = {harness.normalize(v) for v in harness.human_only_tools()}
    assert human and human <= denied, f"human-only verbs {sorted(human - denied)} are not denied"
    # Upstream's 29, the tray's stamp, and the 57 only the catalog's effects name (law M021).
    assert len(denied) == 87, f"policy/read_only_denied.toml lists {len(denied)} verbs"

    async with serve(store) as server:
        normal = {t.name: t for t in await harness.list_all_tools(server.session)}
    async with serve(store, read_only=True) as server:
        read_only = {t.name: t for t in await harness.list_all_tools(server.session)}

    for name in ("cockpit", "help", "memorize", "persist"):
        assert name in normal, f"{name} missing from tools/list: {sorted(normal)}"

    for tool in normal.values():
        ro, destructive = _annotations(tool)
        if harness.normalize(tool.name) in denied:
            assert ro is False, f"{tool.name} writes but is annotated readOnlyHint=true"
    assert _annotations(normal["cockpit"])[0] is True, "cockpit must be readOnlyHint=true"
    assert _annotations(normal["memorize"])[0] is False, "memorize must be readOnlyHint=false"

    for session in (normal, read_only):
        shown = sorted(n for n in session if harness.normalize(n) in human)
        assert not shown, f"tools/list shows human-only verbs: {shown}"
    leaked = sorted(n for n in read_only if harness.normalize(n) in denied)
    assert not leaked, f"read-only tools/list shows denied verbs: {leaked}"
    for tool in read_only.values():
        _annotations(tool)
    for name in ("cockpit", "help", "persist"):
        assert name in read_only, f"{name} missing from the read-only tools/list: {sorted(read_only)}"

    extra = set(read_only) - set(normal)
    assert not extra, f"read-only lists tools the normal session does not: {sorted(extra)}"
    hidden = set(normal) - set(read_only)
    assert hidden == {n for n in normal if harness.normalize(n) in denied}, f"read-only hides {sorted(hidden)}"
    for name, tool in read_only.items():
        assert _annotations(tool) == _annotations(normal[name]), f"{name}: annotations differ between sessions"


async def test_read_only_from_environment(store: Path) -> None:
    """`M1ND_READ_ONLY=1` turns read-only on, like `--read-only`."""
    async with serve(store, read_only=True) as server:
        by_flag = sorted(t.name for t in await harness.list_all_tools(server.session))
    async with serve(store, env={"M1ND_READ_ONLY": "1"}) as server:
        by_env = sorted(t.name for t in await harness.list_all_tools(server.session))
        refused = await server.session.call_tool("memorize", {"node_label": "tests", "claims": [{"label": "should not land"}]})
    assert by_env == by_flag
    assert refused.is_error, f"memorize was not refused under M1ND_READ_ONLY=1: {text_of(refused)}"


async def test_human_only_verbs_are_refused_in_every_session(store: Path) -> None:
    """A human-only verb is never served over MCP: refused in both modes, saying where the human acts."""
    before = harness.store_digest(store)
    for read_only in (False, True):
        async with serve(store, read_only=read_only) as server:
            for verb in harness.human_only_tools():
                refused = await server.session.call_tool(verb, {})
                message = text_of(refused)
                assert refused.is_error, f"{verb} was served (read_only={read_only}): {message}"
                assert f"`{verb}`" in message and "the tray" in message, message
    assert harness.store_digest(store) == before


# --- the cockpit ------------------------------------------------------------------------------


async def test_cockpit_navigation_root_to_action(store: Path) -> None:
    async with serve(store) as server:
        s = server.session

        result, root = await cockpit(s)
        _check_view(root, "root")
        assert root["title"], root
        numbers = [e["select"].partition("@")[0] for e in root["entries"]]
        assert numbers == [str(n) for n in range(1, 10)], f"root slots: {numbers}"
        assert root["menu_sig"] in text_of(result), "the text card does not carry the menu_sig"

        select = entry(root, "2")["select"]
        assert select == f"2@{root['menu_sig']}"
        _, collection = await cockpit(s, select)
        _check_view(collection, "2")
        # The demo map lists its one candidate among the ratified blocks, marked as one, and the
        # list says it is a partial projection of everything its label counts.
        assert [e["mark"] for e in collection["entries"] if "mark" in e] == ["candidate"], collection
        assert collection["list"]["shown"] < collection["list"]["total"], collection["list"]

        select = first_entry(collection)["select"]
        assert select == f"2.1@{collection['menu_sig']}"
        _, item = await cockpit(s, select)
        _check_view(item, "2.1")

        select = first_entry(item)["select"]
        assert select == f"2.1.1@{item['menu_sig']}"
        _, action = await cockpit(s, select)
        _check_view(action, "2.1.1")

        # Nothing moved, so every level agrees on the state it was composed from.
        for view in (collection, item, action):
            assert view["store_version"] == root["store_version"]
            assert view["state_sig"] == root["state_sig"]

        # `0` goes back to the root.
        _, back = await cockpit(s, f"0@{action['menu_sig']}")
        assert back["level"] == "root"
        assert back["menu_sig"] == root["menu_sig"]


async def test_cockpit_select_sent_as_a_json_integer(store: Path) -> None:
    """`select: 3`, as clients that turn typed digits into numbers send it, is answered as `"3"` is;
    a float is refused in one line that says to send the reference as a string, and changes nothing."""
    before = harness.store_digest(store)
    async with serve(store) as server:
        s = server.session
        _, by_integer = await cockpit(s, 3)
        _check_view(by_integer, "3")
        _, by_string = await cockpit(s, "3")
        assert by_integer == by_string
        refused = await s.call_tool("cockpit", {"agent_id": harness.AGENT_ID, "select": 2.1})
        assert refused.is_error, f"select 2.1 was answered: {text_of(refused)}"
        message = text_of(refused)
        assert "got the number 2.1" in message and "as a JSON string" in message, message
        assert "\n" not in message, f"the refusal is more than one line: {message!r}"
    assert harness.store_digest(store) == before


async def test_cockpit_is_pure(store: Path) -> None:
    """Serving the cockpit, at any level, never touches the store."""
    before = harness.store_digest(store)
    async with serve(store) as server:
        _, root = await cockpit(server.session)
        for e in root["entries"]:
            await cockpit(server.session, e["select"])
    assert harness.store_digest(store) == before


async def test_write_moves_state(store: Path) -> None:
    async with serve(store) as server:
        s = server.session
        _, root = await cockpit(s)
        _, collection = await cockpit(s, entry(root, "2")["select"])
        old_version = root["store_version"]

        wrote = await s.call_tool("memorize", {"node_label": "tests/e2e", "claims": [{"label": "the e2e suite moved the state"}]})
        assert not wrote.is_error, f"memorize failed: {text_of(wrote)}"

        # A drill with the sig of the menu read before the write: never resolved, re-served.
        _, moved = await cockpit(s, first_entry(collection)["select"])
        assert moved.get("state_moved") is True, f"no state_moved after a write: {moved}"
        assert moved.get("note", "").startswith("state moved"), f"note: {moved.get('note')!r}"
        assert moved["level"] == "2", f"the menu chosen from is re-served, got level {moved['level']!r}"
        assert moved["store_version"] == old_version + 1, moved
        assert moved["menu_sig"] != collection["menu_sig"]
        assert moved["state_sig"] != collection["state_sig"]

        # The same from the root, with the root's old sig.
        _, moved_root = await cockpit(s, entry(root, "2")["select"])
        assert moved_root.get("state_moved") is True, moved_root
        assert moved_root.get("note", "").startswith("state moved"), moved_root
        assert moved_root["level"] == "root"

        # Only the version is stale: answered, but flagged, note first.
        _, flagged = await cockpit(s, seen_store_version=old_version)
        assert flagged.get("state_moved") is True, flagged
        assert flagged.get("note", "").startswith("state moved"), flagged
        assert flagged["level"] == "root"

        # Carrying the fresh sig and version, nothing is flagged.
        _, fresh = await cockpit(s, entry(flagged, "2")["select"], seen_store_version=flagged["store_version"])
        _check_view(fresh, "2")


async def test_stale_expected_store_version_is_a_conflict(store: Path) -> None:
    async with serve(store) as server:
        s = server.session
        _, root = await cockpit(s)
        v = root["store_version"]
        ok = await s.call_tool("memorize", {"node_label": "tests", "claims": [{"label": "first"}], "expected_store_version": v})
        assert not ok.is_error, text_of(ok)
        before = harness.store_digest(store)
        stale = await s.call_tool("memorize", {"node_label": "tests", "claims": [{"label": "second"}], "expected_store_version": v})
        assert stale.is_error, f"a stale expected_store_version was accepted: {text_of(stale)}"
        assert harness.store_digest(store) == before, "a refused write changed the store"


# --- read-only refusals -----------------------------------------------------------------------


REFUSED = [
    ("learn", {"feedback": "correct", "query": "x"}, "learn"),
    ("m1nd.memorize", {"node_label": "tests", "claims": [{"label": "must not land"}]}, "memorize"),
    ("PERSIST", {"action": "save"}, "persist"),
    ("  m1nd_ingest ", {"path": "."}, "ingest"),
    ("no_such_verb", {}, "no_such_verb"),
]


async def test_read_only_refusals_leave_store_unchanged(store: Path) -> None:
    before = harness.store_digest(store)
    assert before, "the demo store is empty"
    async with serve(store, read_only=True) as server:
        s = server.session
        for name, arguments, verb in REFUSED:
            result = await s.call_tool(name, arguments)
            message = text_of(result)
            assert result.is_error, f"{name!r} was not refused in a read-only session: {message}"
            assert verb in message.lower(), f"the refusal of {name!r} does not name the verb: {message}"

        # persist with action status is the one allowed form.
        status = await s.call_tool("persist", {"action": "status"})
        assert not status.is_error, f"persist status refused: {text_of(status)}"
        # And the cockpit still serves.
        await cockpit(s)
    assert harness.store_digest(store) == before, "a read-only session changed the store"


async def test_read_only_help_offers_no_denied_card(store: Path) -> None:
    """help's overview in a read-only session names no denied verb as the tool to call."""
    denied = {harness.normalize(v) for v in harness.denied_tools()}
    async with serve(store, read_only=True) as server:
        result = await server.session.call_tool("help", {})
    assert not result.is_error, text_of(result)
    cards = (result.structured_content or {}).get("cards")
    assert cards, f"help returned no cards: {result.structured_content}"
    for card in cards:
        assert harness.normalize(card["tool"]) not in denied, f"read-only help offers a denied verb: {card}"
        if harness.normalize(card["tool"]) == "persist":
            assert card.get("arguments", {}).get("action") == "status", f"persist card not pinned to status: {card}"

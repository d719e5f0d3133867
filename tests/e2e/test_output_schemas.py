"""Every served tool declares an `outputSchema`, and every answer's `structuredContent` validates
against it: the cockpit at the root, a drill, an item, "state moved", and every other tool.

The validator is the `jsonschema` package (JSON Schema 2020-12), independent of the server. The
schemas come from `tools/list`, the tools and their arguments from the session's own list, so
nothing here repeats the policy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from harness import AGENT_ID, cockpit, entry, first_entry, list_all_tools, serve, text_of

pytestmark = pytest.mark.anyio


def validator_for(tool: Any) -> Draft202012Validator:
    schema = tool.output_schema
    assert isinstance(schema, dict) and schema.get("type") == "object", f"{tool.name}: outputSchema {schema!r}"
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def assert_valid(validator: Draft202012Validator, value: Any, what: str) -> None:
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    assert not errors, f"{what}: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def value_for(name: str, spec: dict[str, Any], store_version: int) -> Any:
    """A value of the type `spec` declares: an enum's first, an array of one, an object of its required members."""
    if "enum" in spec:
        return spec["enum"][0]
    kind = spec.get("type")
    if kind == "integer":
        return store_version if "version" in name else 1
    if kind == "array":
        return [value_for(name, spec.get("items", {}), store_version)]
    if kind == "object":
        members = spec.get("properties", {})
        return {m: value_for(m, members[m], store_version) for m in spec.get("required", [])}
    return "crates/graph/src/walk.rs" if name == "node_id" else "schema check"


def arguments_for(tool: Any, store_version: int) -> dict[str, Any]:
    """The least a call needs: each required argument, typed as the input schema says."""
    schema = tool.input_schema
    arguments: dict[str, Any] = {}
    for name in schema.get("required", []):
        arguments[name] = value_for(name, schema["properties"][name], store_version)
    if "agent_id" in schema.get("properties", {}):
        arguments["agent_id"] = AGENT_ID
    if "expected_store_version" in schema.get("properties", {}):
        arguments["expected_store_version"] = store_version
    return arguments


async def test_every_cockpit_answer_validates(store: Path) -> None:
    async with serve(store) as server:
        s = server.session
        tools = {t.name: t for t in await list_all_tools(s)}
        check = validator_for(tools["cockpit"])

        _, root = await cockpit(s)
        assert_valid(check, root, "root")
        _, drill = await cockpit(s, entry(root, "2")["select"])
        assert_valid(check, drill, "drill 2")
        items = [e for e in drill.get("entries", []) if "item" in e]
        assert items, f"level 2 lists no item: {drill}"
        _, item = await cockpit(s, items[0]["select"])
        assert_valid(check, item, f"item {items[0]['select']}")

        wrote = await s.call_tool("memorize", {"node_label": "tests", "claims": [{"label": "schema check"}], "expected_store_version": root["store_version"]})
        assert not wrote.is_error, text_of(wrote)
        _, moved = await cockpit(s, first_entry(drill)["select"])
        assert moved.get("state_moved") is True, moved
        assert_valid(check, moved, "state moved")

        # A sig from another menu is answered, not refused: the level re-served, state moved.
        _, stale = await cockpit(s, "9@mc_00000000")
        assert stale.get("state_moved") is True, stale
        assert_valid(check, stale, "a foreign sig")

        # A refusal is an error with a text, and carries no structured content to validate.
        refused = await s.call_tool("cockpit", {"select": "not a reference", "agent_id": AGENT_ID})
        assert refused.is_error and refused.structured_content is None, refused


@pytest.mark.parametrize("read_only", [False, True], ids=["normal", "read-only"])
async def test_every_other_tool_answers_what_it_declares(store: Path, read_only: bool) -> None:
    async with serve(store, read_only=read_only) as server:
        s = server.session
        tools = await list_all_tools(s)
        assert all(t.output_schema for t in tools), [t.name for t in tools if not t.output_schema]
        _, root = await cockpit(s)
        checked = []
        for tool in tools:
            if tool.name == "cockpit":
                continue
            result = await s.call_tool(tool.name, arguments_for(tool, root["store_version"]))
            if result.is_error:
                assert result.structured_content is None, f"{tool.name}: an error with structured content"
                continue
            assert isinstance(result.structured_content, dict), f"{tool.name}: {text_of(result)}"
            assert_valid(validator_for(tool), result.structured_content, tool.name)
            checked.append(tool.name)
            if "store_version" in result.structured_content:
                root["store_version"] = result.structured_content["store_version"]
        assert len(checked) >= len(tools) // 2, f"too few answers were checked: {checked}"

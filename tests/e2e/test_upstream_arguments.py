"""The official MCP Python SDK calls every served tool with m1nd 1.6.5's argument names: a caller
written against upstream works here unchanged. Each tool in `tools/list` is called with
upstream-named arguments (its required ones and some optional ones this server accepts and
ignores), the answer is not an error, and its `structuredContent` validates against the tool's
`outputSchema` (the `jsonschema` package, independent of the server).

A served tool with no call below fails the suite, so a newly served verb gets one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from harness import AGENT_ID, list_all_tools, serve, text_of

pytestmark = pytest.mark.anyio

# A node the demo store knows (a block's node and a module's path).
NODE = "crates/graph/src/walk.rs"


def upstream_calls(drifted: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each served tool's arguments, named and typed as m1nd 1.6.5's inputSchema names them."""
    return {
        "north": {"task": "find where the walk cache is keyed", "scope": "crates/graph", "top_k": 5, "code": False},
        "orient": {"task": "land on the ingest queue work", "top_k": 8},
        "cockpit": {"seen_store_version": 1},
        "help": {"mode": "overview", "render": "compact", "max_suggestions": 3},
        "system_blocks_snapshot": {},
        "doctor": {"scope": "crates/graph", "observed_tool_count": 15},
        "trust": {"top_k": 20, "sort_by": "trust_asc", "min_history": 1},
        "boot_memory": {"action": "list"},
        "drift": {"since": "last_session", "include_weight_drift": True},
        "panoramic": {"top_n": 10},
        "impact": {"node_id": NODE, "direction": "forward", "include_causal_chains": True},
        "why": {"source": drifted["id"], "target": drifted["cause"], "max_hops": 6},
        "trace": {"error_text": "timeout in the graph walker", "top_k": 5, "window_hours": 24.0},
        "memorize": {
            "node_label": NODE,
            "claims": [
                {"label": "walk cache key", "text": "The walk cache key includes the repository id."},
                {"label": "walks are bounded by max_nodes", "kind": "state", "confidence": 0.8},
            ],
            "namespace": "e2e",
        },
        "persist": {"action": "status", "format": "json"},
    }


async def test_every_served_tool_answers_upstreams_arguments(store: Path) -> None:
    async with serve(store) as server:
        s = server.session
        tools = await list_all_tools(s)
        drift = await s.call_tool("drift", {"agent_id": AGENT_ID})
        assert not drift.is_error, text_of(drift)
        drifted = drift.structured_content["items"][0]
        calls = upstream_calls(drifted)
        assert {t.name for t in tools} <= set(calls), f"served but not called: {sorted({t.name for t in tools} - set(calls))}"
        for tool in tools:
            arguments = calls[tool.name]
            properties = tool.input_schema.get("properties", {})
            assert set(arguments) <= set(properties), f"{tool.name}: {sorted(set(arguments) - set(properties))}"
            assert set(tool.input_schema.get("required", [])) <= set(arguments), f"{tool.name}: a required one is missing"
            result = await s.call_tool(tool.name, {**arguments, "agent_id": AGENT_ID})
            assert not result.is_error, f"{tool.name} {arguments}: {text_of(result)}"
            assert isinstance(result.structured_content, dict), f"{tool.name}: {text_of(result)}"
            validator = Draft202012Validator(tool.output_schema)
            errors = [e.message for e in validator.iter_errors(result.structured_content)]
            assert not errors, f"{tool.name}: {errors[:5]}"


async def test_memorize_stores_each_claim_at_one_version(store: Path) -> None:
    async with serve(store) as server:
        s = server.session
        before = (await s.call_tool("persist", {"action": "status"})).structured_content
        claims = [
            {"label": "label only"},
            {"label": "with a text", "text": "the text is what is stored"},
        ]
        wrote = await s.call_tool("memorize", {"node_label": NODE, "claims": claims})
        assert not wrote.is_error, text_of(wrote)
        assert wrote.structured_content["store_version"] == before["store_version"] + 1
        after = (await s.call_tool("persist", {"action": "status"})).structured_content
        assert after["counts"]["memories"] == before["counts"]["memories"] + 2, after
        listed = (await s.call_tool("boot_memory", {"action": "list"})).structured_content["items"]
        stored = {(m["claim"], m["source"]) for m in listed}
        assert {("label only", NODE), ("the text is what is stored", NODE)} <= stored, listed

        too_many = [{"label": f"claim {n}"} for n in range(33)]
        refused = await s.call_tool("memorize", {"node_label": NODE, "claims": too_many})
        assert refused.is_error and "at most 32 claims" in text_of(refused), text_of(refused)
        old = await s.call_tool("memorize", {"claim": "the old name"})
        assert old.is_error and "node_label" in text_of(old), text_of(old)

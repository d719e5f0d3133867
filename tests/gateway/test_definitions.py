"""Whole definitions: in front of graph_server.py (shaped like server-memory: an `outputSchema` on every
tool), the gateway lists each reviewed tool with the upstream's title, description, schemas, icons and
`_meta` exactly as the upstream lists them, the policy's annotations instead of the upstream's hints,
and passes `structuredContent` through so the official SDK client validates it against the schema."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from gateway_harness import HERE, gateway, hints_of, m1nd_bin, set_mode

pytestmark = pytest.mark.anyio

UPSTREAM = [sys.executable, str(HERE / "graph_server.py")]
# What the upstream says, served only once a person reviewed (pinned) it, and the schemas.
SERVED = ["title", "description", "input_schema", "output_schema", "icons", "meta"]


def imported(tmp_path: Path) -> Path:
    """The upstream's policy as `policy import` writes it, with every tool allowed in read-write sessions."""
    policy = tmp_path / "policy"
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(policy), "--read-only-from-hints", "--", *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return set_mode(policy, "read-write")


async def upstream_tools() -> dict[str, Any]:
    """The upstream's own tools/list, straight from the upstream."""
    params = StdioServerParameters(command=UPSTREAM[0], args=UPSTREAM[1:])
    async with stdio_client(params, errlog=subprocess.DEVNULL) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return {t.name: t for t in (await session.list_tools()).tools}


async def test_a_reviewed_definition_arrives_whole_and_structured_content_validates(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    direct = await upstream_tools()
    assert direct["read_graph"].output_schema and direct["read_graph"].icons and direct["read_graph"].meta
    async with gateway(policy, UPSTREAM, log_dir=tmp_path) as gw:
        listed = {t.name: t for t in (await gw.session.list_tools()).tools}
        assert set(listed) == set(direct)
        for name, tool in listed.items():
            for field in SERVED:
                assert getattr(tool, field) == getattr(direct[name], field), f"{name}.{field}"
        # The upstream's annotations, never made less cautious: the import proposed denying
        # create_entities, which hints nothing, so it is served `readOnlyHint: false` and nothing else.
        assert listed["read_graph"].annotations.read_only_hint is True
        assert hints_of(listed["create_entities"]) == {**hints_of(direct["create_entities"]), "read_only_hint": False}
        assert listed["create_entities"].annotations.destructive_hint is None

        # The SDK client checks structuredContent against the listed outputSchema on every call, and
        # raises if it is missing or does not validate.
        entity = {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}
        created = await gw.session.call_tool("create_entities", {"entities": [entity]})
        assert not created.is_error and created.structured_content == {"created": [entity]}
        graph = await gw.session.call_tool("read_graph", {})
        assert not graph.is_error
        assert graph.structured_content == {"entities": [entity], "relations": []}


async def test_an_unpinned_definition_is_served_by_its_shapes_and_the_policys_summary(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    tools = policy / "tools.toml"
    tools.write_text("".join(line for line in tools.read_text().splitlines(keepends=True)
                             if not line.startswith("definition = ")))
    direct = await upstream_tools()
    async with gateway(policy, UPSTREAM, log_dir=tmp_path) as gw:
        graph = {t.name: t for t in (await gw.session.list_tools()).tools}["read_graph"]
        assert graph.output_schema == direct["read_graph"].output_schema
        assert graph.description == "Read the entire knowledge graph."  # the policy's summary line
        assert graph.title is None and graph.icons is None and graph.meta is None
        result = await gw.session.call_tool("read_graph", {})
        assert not result.is_error and result.structured_content == {"entities": [], "relations": []}

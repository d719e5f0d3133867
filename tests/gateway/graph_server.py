"""A knowledge-graph upstream shaped like @modelcontextprotocol/server-memory, written with the official
MCP Python SDK's MCPServer (FastMCP's successor): every tool declares an `outputSchema` and answers
with `structuredContent`, and `read_graph` also carries a title, icons and `_meta`.

- `read_graph` (a read): the whole graph;
- `create_entities` (a write): adds entities and returns the ones it added.

The graph lives in memory, so a fresh server starts empty.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp_types import Icon, ToolAnnotations
from pydantic import BaseModel


class Entity(BaseModel):
    name: str
    entityType: str
    observations: list[str]


class Relation(BaseModel):
    source: str
    target: str
    relationType: str


class KnowledgeGraph(BaseModel):
    entities: list[Entity]
    relations: list[Relation]


class Created(BaseModel):
    created: list[Entity]


GRAPH = KnowledgeGraph(entities=[], relations=[])
server = MCPServer("graph")


@server.tool(
    title="Read the knowledge graph",
    annotations=ToolAnnotations(read_only_hint=True),
    icons=[Icon(src="https://example.org/graph.png", mime_type="image/png")],
    meta={"example.org/kind": "graph"},
)
def read_graph() -> KnowledgeGraph:
    """Read the entire knowledge graph.

    Returns every entity and every relation.
    """
    return GRAPH


@server.tool(title="Create entities")
def create_entities(entities: list[Entity]) -> Created:
    """Create entities in the knowledge graph; names already present are skipped."""
    known = {e.name for e in GRAPH.entities}
    created = [e for e in entities if e.name not in known]
    GRAPH.entities.extend(created)
    return Created(created=created)


if __name__ == "__main__":
    server.run()

"""An upstream whose tools have every name shape real servers use, written with the official MCP
Python SDK's high-level server (`MCPServer`, once `FastMCP`).

One read and one write per shape, so that a test can list through the gateway, call each read in
several spellings, and refuse each write in every spelling:

| shape | read          | write         |
|-------|---------------|---------------|
| kebab | `get-sum`     | `delete-item` |
| camel | `listItems`   | `clearAll`    |
| dotted| `files.read`  | `notes.write` |
| snake | `echo_text`   | `write_note`  |

The writes change files under SHAPES_DATA (a directory the test snapshots), so a refused write that
reached the server would show as changed bytes. SHAPES_EXTRA adds names a gateway policy cannot
declare, for `policy import`'s refusals: `collide` adds `getSum` (folds together with `get-sum`),
`bad` adds `files/read` and a 129-character name (outside the MCP specification).

Other suites may add tools here: keep one read and one write per shape, and reads without effects.

It also has one prompt per shape (`summarize-item`, `reviewItem`, `items.overview`, `greet_user`),
the resource `shapes://items` and the template `shapes://item/{name}`, all reads.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

DATA = Path(os.environ.get("SHAPES_DATA", "."))
EXTRA = set(filter(None, os.environ.get("SHAPES_EXTRA", "").split(",")))
READ = ToolAnnotations(read_only_hint=True)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=True)

server = MCPServer("shapes")


def item(name: str) -> Path:
    """A file directly under DATA: the name may not leave it."""
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"not an item name: {name!r}")
    return DATA / name


@server.tool(name="get-sum", description="Adds two integers.", annotations=READ)
def get_sum(a: int, b: int) -> str:
    return str(a + b)


@server.tool(name="listItems", description="Lists the items.", annotations=READ)
def list_items() -> str:
    return ",".join(sorted(p.name for p in DATA.iterdir() if p.is_file()))


@server.tool(name="files.read", description="Reads one item.", annotations=READ)
def files_read(name: str) -> str:
    return item(name).read_text()


@server.tool(name="echo_text", description="Echoes the text.", annotations=READ)
def echo_text(text: str) -> str:
    return text


@server.tool(name="delete-item", description="Deletes one item.", annotations=WRITE)
def delete_item(name: str) -> str:
    item(name).unlink()
    return f"deleted {name}"


@server.tool(name="clearAll", description="Deletes every item.", annotations=WRITE)
def clear_all() -> str:
    for p in DATA.iterdir():
        if p.is_file():
            p.unlink()
    return "cleared"


@server.tool(name="notes.write", description="Writes one item.", annotations=WRITE)
def notes_write(name: str, text: str) -> str:
    item(name).write_text(text)
    return f"wrote {name}"


@server.tool(name="write_note", description="Appends to one item.", annotations=WRITE)
def write_note(name: str, text: str) -> str:
    with item(name).open("a") as f:
        f.write(text)
    return f"appended to {name}"


@server.prompt(name="summarize-item", description="Asks for a summary of one item.")
def summarize_item(name: str) -> str:
    return f"Summarize the item {name}."


@server.prompt(name="reviewItem", description="Asks for a review of one item.")
def review_item(name: str) -> str:
    return f"Review the item {name}."


@server.prompt(name="items.overview", description="Asks for an overview of the items.")
def items_overview() -> str:
    return "Give an overview of the items."


@server.prompt(name="greet_user", description="Greets the user.")
def greet_user() -> str:
    return "Hello."


@server.resource("shapes://items", name="items", description="The items' names.", mime_type="text/plain")
def items_resource() -> str:
    return ",".join(sorted(p.name for p in DATA.iterdir() if p.is_file()))


@server.resource("shapes://item/{name}", name="item", description="One item's text.", mime_type="text/plain")
def item_resource(name: str) -> str:
    return item(name).read_text()


if "collide" in EXTRA:

    @server.tool(name="getSum", description="Adds two integers, under a second spelling.", annotations=READ)
    def get_sum_again(a: int, b: int) -> str:
        return str(a + b)


if "bad" in EXTRA:

    @server.tool(name="files/read", description="A name with a slash.", annotations=READ)
    def slash() -> str:
        return "slash"

    @server.tool(name="x" * 129, description="A name one character too long.", annotations=READ)
    def too_long() -> str:
        return "long"


if __name__ == "__main__":
    server.run("stdio")

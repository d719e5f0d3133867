"""A tap upstream, written with the official MCP Python SDK's low-level server: it appends every
`tools/call` it receives, before acting on it, to a tap file as one JSON line
(`{"tool": NAME, "arguments": {...}}`), so a test can prove what reached the upstream and what never
did. The low-level server records the call as it arrived: no schema validation of the SDK's own
stands between the gateway and the tap.

    tap_server.py TAP_FILE        or        TAP_FILE=... tap_server.py

Its tools:
- `echo` (`text`, optional `note`): answers the text;
- `read_note` (`path`): answers the file's contents;
- `write_note` (`path`, `content`): writes the file as any naive server does, following symlinks.
  While the file `TAP_FILE.hold` exists (at most 10 s), it waits after recording the call and
  before opening the path: the window between the gateway's check and the upstream's open, held
  open for a test.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

TAP = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ["TAP_FILE"])
HOLD = TAP.with_name(TAP.name + ".hold")
HOLD_SECONDS = 10.0


def schema(required: list[str], optional: tuple[str, ...] = ()) -> dict:
    names = [*required, *optional]
    return {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": required}


TOOLS = [
    types.Tool(name="echo", description="Answers the text it is sent.", input_schema=schema(["text"], ("note",)),
               annotations=types.ToolAnnotations(read_only_hint=True)),
    types.Tool(name="read_note", description="Answers a file's contents.", input_schema=schema(["path"]),
               annotations=types.ToolAnnotations(read_only_hint=True)),
    types.Tool(name="write_note", description="Writes a file, following symlinks.",
               input_schema=schema(["path", "content"])),
]


def record(name: str, arguments: dict | None) -> None:
    line = json.dumps({"tool": name, "arguments": arguments}, sort_keys=True)
    with open(TAP, "a", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def text(value: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)], is_error=error)


async def hold() -> None:
    deadline = time.monotonic() + HOLD_SECONDS
    while HOLD.exists() and time.monotonic() < deadline:
        await anyio.sleep(0.02)


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params) -> types.CallToolResult:
    args = params.arguments or {}
    record(params.name, params.arguments)
    try:
        if params.name == "echo":
            return text(str(args.get("text")))
        if params.name == "read_note":
            return text(Path(args["path"]).read_text())
        if params.name == "write_note":
            await hold()
            with open(args["path"], "w", encoding="utf-8") as f:
                f.write(args["content"])
            return text(f"wrote {len(args['content'])} characters")
    except (OSError, KeyError) as e:
        return text(f"{type(e).__name__}: {e}", error=True)
    return text(f"no tool {params.name}", error=True)


server = Server("tap", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)

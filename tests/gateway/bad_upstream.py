"""An upstream that misbehaves on `tools/call`, written with the official MCP Python SDK.

BAD_MODE=die   exits without answering;
BAD_MODE=hang  never answers;
BAD_MODE=junk  writes lines that are not JSON-RPC to stdout, then answers.
`echo` always answers, so a test can see the session go on.

BAD_LIST=endless  every tools/list page names a next cursor, forever;
BAD_LIST=crowd    one tools/list page of 20,000 tools.
"""

from __future__ import annotations

import os

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

MODE = os.environ.get("BAD_MODE", "")
LIST = os.environ.get("BAD_LIST", "")
EMPTY = {"type": "object", "properties": {}}


async def list_tools(ctx, params) -> types.ListToolsResult:
    if LIST == "endless":
        page = int((params.cursor if params and params.cursor else "0")) + 1
        tool = types.Tool(name=f"page_{page}", description="One more page.", input_schema=EMPTY)
        return types.ListToolsResult(tools=[tool], next_cursor=str(page))
    if LIST == "crowd":
        return types.ListToolsResult(tools=[
            types.Tool(name=f"tool_{i}", description="One of many.", input_schema=EMPTY) for i in range(20_000)
        ])
    return types.ListToolsResult(tools=[
        types.Tool(name="work", description="Misbehaves.", input_schema=EMPTY),
        types.Tool(name="echo", description="Answers.", input_schema=EMPTY),
    ])


async def call_tool(ctx, params) -> types.CallToolResult:
    if params.name == "work":
        if MODE == "die":
            os._exit(3)
        if MODE == "hang":
            await anyio.sleep_forever()
        if MODE == "junk":
            os.write(1, b"this is not JSON\n{\"jsonrpc\": \"2.0\", \"id\": 999999, \"result\": {}}\n\x00\xff\n")
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"{params.name} done")])


server = Server("bad", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)

"""An upstream whose tools declare `execution` (task support) or leave it out, written with the
official MCP Python SDK's low-level server, over stdio or (`http`) Streamable HTTP on 127.0.0.1.

- `start-job` declares `execution: {"taskSupport": "optional"}`;
- `plain` declares no `execution`.

Both hint `readOnlyHint: true`, so `policy import --read-only-from-hints` denies neither. Over HTTP
it binds 127.0.0.1 on a free port and prints `listening on http://127.0.0.1:PORT/mcp` to stderr; it
answers each POST with an SSE stream (`http`, the SDK's default) or a JSON body (`http-json`). It
speaks 2025-11-25 only, as a server from before 2026-07-28 does (its `server/discover` is "method not
found"): 2026-07-28 has no `execution`, and the SDK leaves it out of a listing in that version.
"""

from __future__ import annotations

import socket
import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

EMPTY = {"type": "object", "properties": {}}
READ = types.ToolAnnotations(read_only_hint=True)
TOOLS = [
    types.Tool(name="start-job", description="Starts a job.", input_schema=EMPTY, annotations=READ,
               execution=types.ToolExecution(task_support="optional")),
    types.Tool(name="plain", description="Answers at once.", input_schema=EMPTY, annotations=READ),
]


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"ran {params.name}")])


async def no_discover(ctx, params) -> types.DiscoverResult:
    raise MCPError(types.METHOD_NOT_FOUND, "Method not found")


server = Server("execution", on_list_tools=list_tools, on_call_tool=call_tool)


async def stdio() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def http(json_response: bool) -> None:
    import uvicorn

    server.add_request_handler("server/discover", types.RequestParams, no_discover)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(server.streamable_http_app(host="127.0.0.1", json_response=json_response), log_level="warning")
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    if sys.argv[1:] in (["http"], ["http-json"]):
        http(json_response=sys.argv[1] == "http-json")
    else:
        anyio.run(stdio)

"""An upstream that misbehaves on `tools/call`, written with the official MCP Python SDK.

BAD_MODE=die   exits without answering;
BAD_MODE=hang  never answers;
BAD_MODE=junk  writes lines that are not JSON-RPC to stdout, then answers.
`echo` always answers, so a test can see the session go on.

BAD_LIST=endless  every tools/list page names a next cursor, forever;
BAD_LIST=crowd    one tools/list page of 20,000 tools.

BAD_RESOURCES=thousand  1,000 resources (`bad://item/0` … `bad://item/999`) and the template
                        `bad://item/{id}`; a read answers with its URI;
BAD_RESOURCES=crowd     one resources/list page of 20,000 resources.
Without it the upstream lists no resources.

`ask_client` sends the client a sampling, a roots and an elicitation request, and answers with what
became of each: the gateway must refuse all three.
"""

from __future__ import annotations

import os

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

MODE = os.environ.get("BAD_MODE", "")
LIST = os.environ.get("BAD_LIST", "")
RESOURCES = os.environ.get("BAD_RESOURCES", "")
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
        types.Tool(name="ask_client", description="Asks the client.", input_schema=EMPTY),
    ])


async def list_resources(ctx, params) -> types.ListResourcesResult:
    count = {"thousand": 1_000, "crowd": 20_000}.get(RESOURCES, 0)
    return types.ListResourcesResult(resources=[
        types.Resource(uri=f"bad://item/{i}", name=f"item {i}", mime_type="text/plain") for i in range(count)
    ])


async def list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
    templates = [types.ResourceTemplate(uri_template="bad://item/{id}", name="item")] if RESOURCES else []
    return types.ListResourceTemplatesResult(resource_templates=templates)


async def read_resource(ctx, params) -> types.ReadResourceResult:
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=params.uri, text=f"read {params.uri}")])


async def ask_client(ctx) -> str:
    """Each request the upstream may send its client, and the error (or answer) that came back."""
    outcomes = []
    asks = {
        "sampling": lambda: ctx.session.create_message(
            [types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))], max_tokens=5
        ),
        "roots": lambda: ctx.session.list_roots(),
        "elicitation": lambda: ctx.session.elicit_form("May I?", {"type": "object", "properties": {}}),
    }
    for what, ask in asks.items():
        try:
            outcomes.append(f"{what}: answered {await ask()!r}")
        except Exception as e:  # the refusal is what the test reads
            outcomes.append(f"{what}: refused: {e}")
    return "\n".join(outcomes)


async def call_tool(ctx, params) -> types.CallToolResult:
    if params.name == "ask_client":
        return types.CallToolResult(content=[types.TextContent(type="text", text=await ask_client(ctx))])
    if params.name == "work":
        if MODE == "die":
            os._exit(3)
        if MODE == "hang":
            await anyio.sleep_forever()
        if MODE == "junk":
            os.write(1, b"this is not JSON\n{\"jsonrpc\": \"2.0\", \"id\": 999999, \"result\": {}}\n\x00\xff\n")
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"{params.name} done")])


server = Server(
    "bad",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_list_resource_templates=list_resource_templates,
    on_read_resource=read_resource,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)

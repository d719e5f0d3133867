"""An upstream that hides characters in every field it sends, written with the official MCP Python SDK.

HIDDEN is a zero-width space, a right-to-left override, two TAG characters (an instruction no
reader sees), an ESC sequence that would clear a terminal, and a BEL. It is in the tool's title,
description, input and output schemas and annotations, in the prompt's listing and messages, in the
resource's listing and text, and in the tool result's text and `structuredContent` (values and a
key). Text with TAB, LF and CR is sent too: those must arrive as they are.
"""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

HIDDEN = "\u200b\u202e\U000e0049\U000e0047\x1b[2J\x07"
LAYOUT = "-a\r\n+b\tc\n"
URI = "hidden://note"

TOOL = types.Tool(
    name="echo",
    title=f"Echo{HIDDEN}",
    description=f"Echo text.{HIDDEN}",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string", "description": f"What to echo{HIDDEN}", "default": HIDDEN}},
        "required": ["text"],
    },
    output_schema={
        "type": "object",
        "description": f"The echo{HIDDEN}",
        "properties": {"note": {"type": "string", "description": f"A note{HIDDEN}"}},
    },
    annotations=types.ToolAnnotations(title=f"Echo{HIDDEN}", read_only_hint=True),
)

PROMPT = types.Prompt(
    name="greet",
    title=f"Greet{HIDDEN}",
    description=f"Greets.{HIDDEN}",
    arguments=[types.PromptArgument(name="who", description=f"Whom{HIDDEN}", required=False)],
)

RESOURCE = types.Resource(uri=URI, name="note", title=f"Note{HIDDEN}", description=f"A note.{HIDDEN}", mime_type="text/plain")


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[TOOL])


async def call_tool(ctx, params) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"echo {HIDDEN}\n{LAYOUT}")],
        structured_content={"note": f"note{HIDDEN}", f"key{HIDDEN}": [{"deep": HIDDEN}], "layout": LAYOUT},
    )


async def list_prompts(ctx, params) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[PROMPT])


async def get_prompt(ctx, params) -> types.GetPromptResult:
    return types.GetPromptResult(
        description=f"A greeting{HIDDEN}",
        messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=f"Hello{HIDDEN}\n{LAYOUT}"))],
    )


async def list_resources(ctx, params) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[RESOURCE])


async def list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=[])


async def read_resource(ctx, params) -> types.ReadResourceResult:
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=URI, text=f"file {HIDDEN}\n{LAYOUT}")])


server = Server(
    "hidden",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
    on_list_resources=list_resources,
    on_list_resource_templates=list_resource_templates,
    on_read_resource=read_resource,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)

"""The widget as the official MCP Python SDK sees it: the cockpit tool points at a `ui://`
resource, and that resource reads back as one MCP App HTML document."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import cockpit, list_all_tools, serve, text_of

pytestmark = pytest.mark.anyio

MCP_APP = "text/html;profile=mcp-app"


async def test_the_cockpit_tool_names_a_readable_mcp_app(store: Path) -> None:
    async with serve(store, read_only=True) as server:
        s = server.session
        tools = {t.name: t for t in await list_all_tools(s)}
        meta = tools["cockpit"].meta or {}
        uri = meta["ui"]["resourceUri"]
        assert uri.startswith("ui://") and "m1nd-cockpit-widget-v1" in uri, meta
        assert meta["ui/resourceUri"] == uri, "the flat key older hosts read"

        listed = (await s.list_resources()).resources
        assert [str(r.uri) for r in listed] == [uri]
        assert listed[0].mime_type == MCP_APP

        contents = (await s.read_resource(uri)).contents
        assert len(contents) == 1 and contents[0].mime_type == MCP_APP
        html = contents[0].text
        assert html.lstrip().lower().startswith("<!doctype html>") and "m1nd-cockpit-widget-v1" in html
        assert len(html.encode()) <= 32 * 1024

        # One composition, two skins: the card for the model, the view for the widget.
        result, view = await cockpit(s)
        assert view["menu_sig"] in text_of(result)

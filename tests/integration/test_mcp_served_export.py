"""What is served is what is exported: ``export("mcp")`` equals ``tools/list``, title and
icons included, for local and imported tools; ``serverInfo`` names the registry and
tooldeck's version."""

from __future__ import annotations

import importlib.metadata
from typing import Any

import pytest

from tooldeck import ToolRegistry

pytest.importorskip("fastmcp")

pytestmark = pytest.mark.timeout(30)


def upstream() -> Any:
    from fastmcp import FastMCP
    from mcp_types import Icon

    server = FastMCP("upstream")

    @server.tool(
        title="Say hello",
        icons=[Icon(src="https://example.org/hello.png", mime_type="image/png")],
        annotations={"readOnlyHint": True},
    )
    def hello(name: str) -> str:
        """Greet someone."""
        return f"hello {name}"

    return server


def local() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(annotations={"title": "Add two numbers", "readOnlyHint": True})
    def add(a: int, b: int = 0) -> int:
        """Add."""
        return a + b

    @registry.tool
    def plain(text: str) -> str:
        """No title: none made up."""
        return text

    return registry


def listed(tools: list[Any]) -> list[dict[str, Any]]:
    return [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]


def test_a_local_title_is_exported_as_the_tools_title() -> None:
    exported = {t["name"]: t for t in local().export("mcp")}
    assert exported["add"]["title"] == "Add two numbers"
    assert exported["add"]["annotations"] == {"title": "Add two numbers", "readOnlyHint": True}
    assert "title" not in exported["plain"]


async def test_tools_list_equals_the_export_for_local_and_imported_tools() -> None:
    from fastmcp import Client

    registry = local()
    await registry.async_use_mcp(upstream())
    try:
        async with Client(registry.as_mcp_server()) as client:
            served = listed(await client.list_tools())
        assert served == registry.export("mcp")
        by_name = {t["name"]: t for t in served}
        assert by_name["add"]["title"] == "Add two numbers"
        assert by_name["hello"]["title"] == "Say hello"
        assert by_name["hello"]["icons"] == [
            {"src": "https://example.org/hello.png", "mimeType": "image/png"}
        ]
        assert "title" not in by_name["plain"]
    finally:
        await registry.aclose()


async def test_server_info_names_the_registry_and_tooldecks_version() -> None:
    from fastmcp import Client

    version = importlib.metadata.version("tooldeck")
    for server, name in (
        (local().as_mcp_server(), "tooldeck"),
        (local().as_mcp_server(name="team"), "team"),
    ):
        async with Client(server) as client:
            info = client.server_info
            assert info is not None
            assert (info.name, info.version) == (name, version)


async def test_served_with_defer_too_what_is_served_is_what_is_exported() -> None:
    """Found in review: a server made with ``defer=`` named fastmcp's version, not
    tooldeck's; and its listing is ``export("mcp", defer=...)``, ``search_tools`` included."""
    from fastmcp import Client

    registry = local()
    async with Client(registry.as_mcp_server(name="team", defer=["plain"])) as client:
        info = client.server_info
        assert info is not None
        assert (info.name, info.version) == ("team", importlib.metadata.version("tooldeck"))
        served = listed(await client.list_tools())
    assert served == registry.export("mcp", defer=["plain"])
    assert [t["name"] for t in served] == ["add", "search_tools"]


async def test_served_with_defer_of_a_tag_no_tool_carries_the_listing_is_plain() -> None:
    """As the export: nothing deferred, no ``search_tools``, until a tool is deferred."""
    from fastmcp import Client

    registry = local()
    async with Client(registry.as_mcp_server(defer="later")) as client:
        assert listed(await client.list_tools()) == registry.export("mcp", defer="later")
        assert [t.name for t in await client.list_tools()] == ["add", "plain"]
        registry.tag("plain", "later")
        assert listed(await client.list_tools()) == registry.export("mcp", defer="later")
        assert [t.name for t in await client.list_tools()] == ["add", "search_tools"]
        found = await client.call_tool("search_tools", {"query": "title made up"})
        assert "- plain" in found.content[0].text

"""Served with ``defer=``: a fastmcp ``Client`` lists only the tools not deferred plus
``search_tools``, finds a deferred tool and calls it by its name."""

from __future__ import annotations

import pytest

from tooldeck import ToolRegistry


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(tags=["core"])
    def get_time(zone: str = "UTC") -> str:
        """The current time in a time zone."""
        return f"12:00 {zone}"

    @registry.tool(tags=["finance"])
    def convert_currency(amount: float, source: str, to: str) -> float:
        """Convert an amount of money from one currency to another."""
        return amount * 2

    @registry.tool(tags=["finance"])
    def stock_price(ticker: str) -> float:
        """The latest price of a company's stock."""
        return 1.5

    return registry


@pytest.mark.timeout(30)
async def test_a_client_lists_searches_and_calls_a_deferred_tool() -> None:
    from fastmcp import Client

    registry = _registry()
    async with Client(registry.as_mcp_server(defer="finance")) as client:
        listed = await client.list_tools()
        assert [t.name for t in listed] == ["get_time", "search_tools"]
        search = listed[1]
        assert search.input_schema["required"] == ["query"]
        found = await client.call_tool("search_tools", {"query": "convert money currency"})
        text = found.content[0].text  # type: ignore[union-attr]
        assert text.splitlines()[1].startswith("- convert_currency: Convert an amount")
        assert "get_time" not in text  # only deferred tools are searched
        called = await client.call_tool(
            "convert_currency", {"amount": 3, "source": "EUR", "to": "USD"}
        )
        assert called.data == 6.0
        # Registered later, the rule still applies: deferred, found, callable.
        registry.register(lambda ticker: 2.0, name="bond_yield", tags=["finance"],
                          description="The yield of a government bond.")  # fmt: skip
        assert [t.name for t in await client.list_tools()] == ["get_time", "search_tools"]
        found = await client.call_tool("search_tools", {"query": "bond yield"})
        assert "- bond_yield" in found.content[0].text  # type: ignore[union-attr]
        missing = await client.call_tool("search_tools", {"query": "zzzz"})
        assert missing.content[0].text.startswith("No tool matches")  # type: ignore[union-attr]
        bad = await client.call_tool("search_tools", {}, raise_on_error=False)
        assert bad.is_error


@pytest.mark.timeout(30)
async def test_without_defer_the_listing_is_unchanged_and_defer_true_lists_only_search() -> None:
    from fastmcp import Client

    registry = _registry()
    async with Client(registry.as_mcp_server(defer=True)) as client:
        assert [t.name for t in await client.list_tools()] == ["search_tools"]
        called = await client.call_tool("get_time", {"zone": "CET"})
        assert called.data == "12:00 CET"
    async with Client(registry.as_mcp_server(defer=False)) as client:
        names = [t.name for t in await client.list_tools()]
        assert names == ["get_time", "convert_currency", "stock_price"]


def test_defer_refuses_unknown_names_when_the_server_is_made() -> None:
    registry = _registry()
    with pytest.raises(LookupError):
        registry.as_mcp_server(defer=["nope"])
    with pytest.raises(TypeError):
        registry.as_mcp_server(defer=7)  # type: ignore[arg-type]
    with pytest.raises(LookupError):  # http_app hands defer= on
        registry.http_app(defer=["nope"])

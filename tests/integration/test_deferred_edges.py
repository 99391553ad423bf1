"""Deferred loading at its edges (found in review): a deferred tool unregistered after a
conversation's helper or a server was made, and a tool of the program's own named
``search_tools``."""

from __future__ import annotations

import logging

import pytest

from tooldeck import ToolRegistry


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(tags=["core"])
    def get_time(zone: str = "UTC") -> str:
        """The current time in a time zone."""
        return zone

    @registry.tool(tags=["finance"])
    def convert_currency(amount: float, to: str) -> float:
        """Convert an amount of money into another currency."""
        return amount * 2

    @registry.tool(tags=["finance"])
    def stock_price(ticker: str) -> float:
        """The latest price of a company's stock."""
        return 1.5

    return registry


def _names(export: list[dict[str, object]]) -> list[object]:
    return [entry["function"]["name"] for entry in export]  # type: ignore[index]


def test_a_helper_outlives_a_deferred_tool_unregistered_by_name() -> None:
    registry = _registry()
    search = registry.tool_search("openai", defer=["stock_price", "convert_currency"])
    assert "stock_price" in search.answer({"query": "stock price"}).data
    registry.unregister("stock_price")
    # Before: every `.tools` raised ToolNotFoundError for the rest of the conversation.
    assert _names(search.tools) == ["get_time", "search_tools"]
    found = search.answer({"query": "convert currency money"})
    assert found.success and "convert_currency" in found.data
    assert _names(search.tools) == ["get_time", "search_tools", "convert_currency"]


def test_a_helper_refuses_a_tool_of_its_own_named_search_tools_even_deferred() -> None:
    registry = _registry()
    registry.register(lambda query: "mine", name="search_tools", description="Mine.")
    with pytest.raises(ValueError, match="search_tools"):
        registry.tool_search("openai", defer=True)  # it would be found, and listed twice
    registry.unregister("search_tools")
    search = registry.tool_search("openai", defer=True)
    registry.register(lambda query: "mine", name="search_tools", description="Mine.")
    with pytest.raises(ValueError, match="search_tools"):
        search.tools  # noqa: B018 (two tools of one name: the provider refuses the request)
    assert "search_tools" not in search.loaded
    search.find("search tools mine")
    assert "search_tools" not in search.loaded


@pytest.mark.timeout(30)
async def test_a_server_outlives_a_deferred_tool_unregistered_by_name() -> None:
    from fastmcp import Client

    registry = _registry()
    async with Client(registry.as_mcp_server(defer=["stock_price", "convert_currency"])) as client:
        registry.unregister("stock_price")
        # Before: the listing was [] (the provider's error swallowed) and searches failed.
        assert [t.name for t in await client.list_tools()] == ["get_time", "search_tools"]
        found = await client.call_tool("search_tools", {"query": "convert currency"})
        assert "- convert_currency" in found.content[0].text  # type: ignore[union-attr]


@pytest.mark.timeout(30)
async def test_a_server_never_hides_a_tool_of_its_own_named_search_tools(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from fastmcp import Client

    registry = _registry()
    registry.register(lambda query: "mine", name="search_tools", description="Mine.")
    # Before: served, and the program's tool silently answered by the served search.
    with pytest.raises(ValueError, match="search_tools"):
        registry.as_mcp_server(defer="finance")
    registry.unregister("search_tools")
    server = registry.as_mcp_server(defer="finance")
    registry.register(lambda query: "mine", name="search_tools", description="Mine.")
    with caplog.at_level(logging.WARNING, logger="tooldeck.mcp"):
        async with Client(server) as client:  # registered later: said, not silent
            assert [t.name for t in await client.list_tools()] == ["get_time", "search_tools"]
    assert any("hidden by the served tool search" in r.getMessage() for r in caplog.records)

"""Middleware at the MCP edge: a served registry's context reaches middleware, a proxy's
result passed through unchanged is handed on as its server sent it, a changed one is
served as changed."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.utilities.types import Image
from mcp_types import ImageContent, TextContent

from tooldeck import Call, ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(60)

PNG = b"\x89PNG\r\n\x1a\n-not-really"


def origin() -> FastMCP[Any]:
    server: FastMCP[Any] = FastMCP("origin")

    @server.tool(output_schema=None)
    def gallery() -> list[Any]:
        """Text, an image, text."""
        return ["before", Image(data=PNG, format="png"), "after"]

    @server.tool
    def fails() -> str:
        """Always fails."""
        raise ValueError("remote trouble")

    return server


async def call_through(gateway: ToolRegistry, name: str) -> Any:
    async with Client(gateway.as_mcp_server()) as client:
        return await client.call_tool(name, {}, raise_on_error=False)


@pytest.mark.parametrize("is_async", [True, False], ids=["async", "sync"])
async def test_a_proxy_result_passed_through_is_served_as_it_came(is_async: bool) -> None:
    seen: list[ToolResult] = []

    def keep(call: Call, call_next: Any) -> ToolResult:
        result: ToolResult = call_next(call)
        seen.append(result)
        return result

    async def akeep(call: Call, call_next: Any) -> ToolResult:
        result: ToolResult = await call_next(call)
        seen.append(result)
        return result

    gateway = ToolRegistry(middleware=[akeep if is_async else keep])
    await gateway.async_use_mcp(origin())
    try:
        direct = await _direct("gallery")
        through = await call_through(gateway, "gallery")
        assert through.content == direct.content  # every item, the image as an image
        assert isinstance(through.content[1], ImageContent)
        assert through.is_error is False
        failed = await call_through(gateway, "fails")
        assert failed.is_error and "remote trouble" in failed.content[0].text
    finally:
        gateway.close()
    assert [r.success for r in seen] == [True, False]  # the middleware saw both, once each


async def _direct(name: str) -> Any:
    async with Client(origin()) as client:
        return await client.call_tool(name, {}, raise_on_error=False)


async def test_a_proxy_result_a_middleware_changed_is_served_as_changed() -> None:
    async def caption(call: Call, call_next: Any) -> ToolResult:
        result: ToolResult = await call_next(call)
        return ToolResult.ok(["captioned", *result.data]) if result.success else result

    gateway = ToolRegistry(middleware=[caption])
    await gateway.async_use_mcp(origin())
    try:
        through = await call_through(gateway, "gallery")
    finally:
        gateway.close()
    assert [type(item) for item in through.content] == [
        TextContent,
        TextContent,
        ImageContent,
        TextContent,
    ]
    assert through.content[0].text == "captioned"


async def test_served_context_reaches_middleware_for_every_tool() -> None:
    seen: list[dict[str, Any]] = []

    async def who(call: Call, call_next: Any) -> ToolResult:
        seen.append(dict(call.context))
        if call.context.get("user") != "u-42":
            return ToolResult.fail("who are you?")
        result: ToolResult = await call_next(call)
        return result

    registry = ToolRegistry(middleware=[who])

    @registry.tool
    def ping() -> str:  # takes nothing from the context
        return "pong"

    server = registry.as_mcp_server(context=lambda ctx: {"user": "u-42"})
    async with Client(server) as client:
        result = await client.call_tool("ping", {})
    assert result.content[0].text == "pong"  # type: ignore[union-attr]
    assert seen == [{"user": "u-42"}]


async def test_a_served_call_whose_context_fails_never_reaches_the_chain() -> None:
    calls: list[Call] = []

    def keep(call: Call, call_next: Any) -> ToolResult:
        calls.append(call)
        result: ToolResult = call_next(call)
        return result

    registry = ToolRegistry(middleware=[keep])

    @registry.tool
    def ping() -> str:
        return "pong"

    def broken(ctx: Any) -> Any:
        raise RuntimeError("no auth backend")

    async with Client(registry.as_mcp_server(context=broken)) as client:
        result = await client.call_tool("ping", {}, raise_on_error=False)
    assert result.is_error and "no auth backend" in result.content[0].text  # type: ignore[union-attr]
    assert calls == []


async def test_a_proxy_call_names_the_local_tool_and_its_arguments_as_sent() -> None:
    from tooldeck.mcp._proxy import ProxyTool

    seen: list[Call] = []

    async def keep(call: Call, call_next: Any) -> ToolResult:
        seen.append(call)
        result: ToolResult = await call_next(call)
        return result

    server: FastMCP[Any] = FastMCP("numbers")

    @server.tool
    def double(n: int) -> int:
        return n * 2

    gateway = ToolRegistry(middleware=[keep])
    await gateway.async_use_mcp(server, prefix="num_")
    try:
        # "3" for an int: the proxy leaves validation to the server, which coerces it
        assert (await gateway.execute("num_double", '{"n": "3"}')).data == 6
        assert await gateway.async_call_tool("num_double", {"n": 4}) == 8
    finally:
        gateway.close()
    assert [(c.name, c.arguments) for c in seen] == [
        ("num_double", {"n": "3"}),
        ("num_double", {"n": 4}),
    ]
    assert all(isinstance(c.tool, ProxyTool) for c in seen)

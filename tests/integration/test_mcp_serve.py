"""Serving: a registry as a fastmcp server, read in process by a plain ``fastmcp.Client``.

The client is fastmcp's own, so what it sees is what any MCP client sees: the same
tools, schemas and tags as ``export("mcp")``, and calls answering what ``call_tool``
answers. The round trip (registry A → served → imported into B) closes the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any

import pytest
from export_corpus import CORPUS
from fastmcp import Client
from pydantic import BaseModel, Field
from pydantic_core import to_jsonable_python

from tooldeck import ToolRegistry, ToolResult
from tooldeck.errors import ToolDefinitionError
from tooldeck.mcp import as_mcp_server, to_value

FORMATS = ["openai", "openai-responses", "anthropic", "gemini", "mcp"]


class Point(BaseModel):
    x: int
    y: int = 0


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


def build_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(tags=["math", "core"])
    def add(a: Annotated[int, "first addend"], b: int = 0) -> int:
        """Add two integers."""
        return a + b

    @registry.tool(tags="geo")
    async def move(p: Point, dx: int = Field(1, description="step")) -> Point:
        """Move a point right."""
        return Point(x=p.x + dx, y=p.y)

    @registry.tool
    def count(tree: Tree) -> int:
        """Count the nodes of a tree (a recursive model: its schema keeps `$defs`)."""
        return 1 + sum(count(child) for child in tree.children)

    @registry.tool
    def greet(name: str) -> str:
        """A plain string back."""
        return f"hello {name}"

    @registry.tool
    def nothing() -> None:
        """Returns nothing."""

    @registry.tool
    def refuse() -> ToolResult:
        """Fails politely."""
        return ToolResult.fail("not today")

    @registry.tool
    def explode(why: str) -> str:
        """Raises."""
        raise RuntimeError(why)

    @registry.tool(enabled=False)
    def hidden() -> int:
        """Disabled."""
        return 1

    return registry


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("add", {"a": 2, "b": 3}),
    ("add", {"a": "7"}),  # served tools validate (and coerce) like call_tool
    ("move", {"p": {"x": 1}}),
    ("move", {"p": {"x": 1}, "dx": 5}),
    ("count", {"tree": {"label": "r", "children": [{"label": "a"}, {"label": "b"}]}}),
    ("greet", {"name": "Ada"}),
    ("nothing", {}),
]
FAILURES: list[tuple[str, dict[str, Any]]] = [
    ("refuse", {}),
    ("explode", {"why": "boom"}),
    ("add", {"a": "seven"}),
    ("add", {"a": 1, "extra": 2}),
    ("hidden", {}),
    ("no_such_tool", {}),
]


@pytest.fixture
def served() -> ToolRegistry:
    return build_registry()


@pytest.fixture
async def client(served: ToolRegistry) -> AsyncIterator[Client[Any]]:
    async with Client(as_mcp_server(served)) as connected:
        yield connected


async def test_lists_the_enabled_tools_with_their_exact_mcp_export(
    served: ToolRegistry, client: Client[Any]
) -> None:
    listed = await client.list_tools()
    exported = served.export("mcp")
    assert [t.name for t in listed] == [e["name"] for e in exported]
    assert "hidden" not in {t.name for t in listed}
    for tool, export in zip(listed, exported, strict=True):
        wire = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        assert wire == export  # nothing added: no display title made up from the name


async def test_recursive_schema_keeps_its_defs(served: ToolRegistry, client: Client[Any]) -> None:
    # fastmcp inlines `$ref`s by default; tooldeck serves the schema as it is
    (count,) = [t for t in await client.list_tools() if t.name == "count"]
    assert "$defs" in count.input_schema
    assert count.input_schema == served.get("count").parameters  # type: ignore[union-attr]


async def test_tags_are_where_fastmcp_looks(client: Client[Any]) -> None:
    tools = {t.name: t for t in await client.list_tools()}
    assert tools["add"].meta["fastmcp"]["tags"] == ["core", "math"]
    assert tools["add"].meta["_fastmcp"]["tags"] == ["core", "math"]  # fastmcp 2.x readers
    assert tools["greet"].meta["fastmcp"]["tags"] == []


@pytest.mark.parametrize(("name", "arguments"), CALLS)
async def test_calls_return_what_call_tool_returns(
    served: ToolRegistry, client: Client[Any], name: str, arguments: dict[str, Any]
) -> None:
    tools = {t.name: t for t in await client.list_tools()}
    output = tools[name].output_schema
    wrapped = bool(output and output.get("x-fastmcp-wrap-result"))
    result = await client.call_tool_mcp(name, arguments)
    assert not result.is_error
    expected = to_jsonable_python(served.call_tool(name, arguments))
    assert to_value(result, wrapped=wrapped) == expected
    # fastmcp's own client reads the same value
    parsed = await client.call_tool(name, arguments)
    assert to_jsonable_python(parsed.data) == expected


@pytest.mark.parametrize(("name", "arguments"), FAILURES)
async def test_failures_are_error_results_with_the_message(
    served: ToolRegistry, client: Client[Any], name: str, arguments: dict[str, Any]
) -> None:
    result = await client.call_tool_mcp(name, arguments)
    assert result.is_error
    text = result.content[0].text
    assert "Traceback" not in text
    if name in served and served.get(name).enabled:  # type: ignore[union-attr]
        assert "Error: " + text == served.call_tool(name, arguments)


async def test_the_server_is_a_live_view_of_the_registry(served: ToolRegistry) -> None:
    server = as_mcp_server(served)
    async with Client(server) as client:

        @served.tool(tags=["late"])
        def late(x: int) -> int:
            """Registered after the server was made."""
            return x * 2

        served.disable("add")
        names = [t.name for t in await client.list_tools()]
        assert "late" in names
        assert "add" not in names
        assert (await client.call_tool("late", {"x": 4})).data == 8
        assert (await client.call_tool_mcp("add", {"a": 1})).is_error


async def test_tags_select_what_is_served(served: ToolRegistry) -> None:
    async with Client(served.as_mcp_server("maths", tags=["math", "geo"])) as client:
        assert [t.name for t in await client.list_tools()] == ["add", "move"]
        assert (await client.call_tool_mcp("greet", {"name": "x"})).is_error
        assert client.server_info is not None
        assert client.server_info.name == "maths"


async def test_concurrent_calls_through_one_server(served: ToolRegistry) -> None:
    async with Client(as_mcp_server(served)) as client:
        results = await asyncio.gather(
            *(client.call_tool("add", {"a": i, "b": i}) for i in range(50))
        )
    assert [r.data for r in results] == [2 * i for i in range(50)]


# -- the round trip ----------------------------------------------------------------------------


async def round_trip(source: ToolRegistry) -> ToolRegistry:
    copy = ToolRegistry()
    await copy.async_use_mcp(as_mcp_server(source))
    return copy


def exports(registry: ToolRegistry, fmt: str, strict: bool) -> Any:
    try:
        return registry.export(fmt, strict=strict)
    except ToolDefinitionError as exc:
        return ("refused", exc.tool, exc.param)


@pytest.mark.parametrize("strict", [False, True])
async def test_round_trip_exports_are_equal(served: ToolRegistry, strict: bool) -> None:
    copy = await round_trip(served)
    try:
        assert copy.list_tools() == served.list_tools()
        for fmt in FORMATS:
            assert exports(copy, fmt, strict) == exports(served, fmt, strict), fmt
    finally:
        await copy.aclose()


async def test_round_trip_values_are_equal(served: ToolRegistry) -> None:
    copy = await round_trip(served)
    try:
        for name, arguments in CALLS[:1] + CALLS[2:]:  # "7" is coerced only by pydantic
            remote = await copy.async_call_tool(name, arguments)
            assert remote == to_jsonable_python(served.call_tool(name, arguments)), name
        assert await copy.async_call_tool("refuse", {}) == {"error": "not today"}
        assert await copy.async_call_tool("explode", {"why": "x"}) == {"error": "x"}
    finally:
        await copy.aclose()


@pytest.mark.parametrize("strict", [False, True])
async def test_round_trip_of_the_whole_export_corpus(strict: bool) -> None:
    copy = await round_trip(CORPUS)
    try:
        for fmt in FORMATS:
            assert exports(copy, fmt, strict) == exports(CORPUS, fmt, strict), fmt
    finally:
        await copy.aclose()

"""The framework bridges at their edges, both ways: names providers reject, media,
schemas with ``$defs``, a blocking sync tool called from an async run, exceptions
that are not ``Exception``s, huge outputs.

The frameworks are imported inside the tests only (every xdist worker imports this
module).
"""

from __future__ import annotations

import asyncio
import base64
import threading
from typing import Any

import pytest
from framework_tools import PNG

from tooldeck import Image, ToolDefinitionError, ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(60)

B64 = base64.b64encode(PNG).decode()


def _foreign(function: Any, name: str | None = None) -> list[Any]:
    """``function`` as each framework's tool (under ``name`` when given)."""
    from agents import function_tool
    from langchain_core.tools import StructuredTool
    from pydantic_ai import Tool as PydanticTool

    if asyncio.iscoroutinefunction(function):
        langchain = StructuredTool.from_function(coroutine=function, name=name)
    else:
        langchain = StructuredTool.from_function(function, name=name)
    return [
        langchain,
        function_tool(function, name_override=name),
        PydanticTool(function, name=name),
    ]


def _adding(x: int) -> int:
    """Add one."""
    return x + 1


@pytest.mark.parametrize("odd", ["my.tool", "查詢", "x" * 70])
def test_a_foreign_name_providers_reject_takes_a_name_of_ours(odd: str) -> None:
    """Frameworks allow names providers reject (dots, other scripts, past 64
    characters): registering one says to pass ``name=``, which then works; the tool
    still runs as itself."""
    for foreign in _foreign(_adding, odd):
        registry = ToolRegistry()
        with pytest.raises(ToolDefinitionError, match="pass name="):
            registry.register(foreign)
        registry.register(foreign, name="adding", description="Add one, ours.")
        assert registry.get_openai_tools()[0]["function"]["description"] == "Add one, ours."
        assert registry.call_tool("adding", {"x": 1}) == 2


def test_media_from_a_foreign_tool_is_tooldecks_media() -> None:
    """A framework's media (Pydantic AI's ``BinaryContent``, the Agents SDK's
    ``ToolOutputImage``, LangChain's content blocks) become `Image`s: every provider and
    MCP client gets an image, not its base64 as JSON text. What makes no image (a file
    id, bytes that are no PNG) stays as it is."""
    from agents import ToolOutputImage, ToolOutputText, function_tool
    from langchain_core.tools import tool as langchain_tool
    from pydantic_ai import BinaryContent
    from pydantic_ai import Tool as PydanticTool

    def pydantic_chart() -> Any:
        """A chart."""
        return ["chart", BinaryContent(data=PNG, media_type="image/png")]

    def agents_chart() -> Any:
        """A chart."""
        image = ToolOutputImage(image_url=f"data:image/png;base64,{B64}")
        return [ToolOutputText(text="chart"), image]

    def langchain_chart() -> Any:
        """A chart."""
        image = {"type": "image", "base64": B64, "mime_type": "image/png"}
        return [{"type": "text", "text": "chart"}, image]

    def file_id() -> Any:
        """An image only OpenAI can read."""
        return ToolOutputImage(file_id="file-1")

    registry = ToolRegistry()
    registry.register(PydanticTool(pydantic_chart))
    registry.register(function_tool(agents_chart))
    registry.register(langchain_tool(langchain_chart))
    registry.register(function_tool(file_id))
    names = ("pydantic_chart", "agents_chart", "langchain_chart")
    for name in names:
        assert registry.call_tool(name, {}) == ["chart", Image(PNG)]
    assert "file-1" in str(registry.execute_sync("file_id", {}))

    async def over_mcp() -> list[list[str]]:
        from fastmcp import Client

        async with Client(registry.as_mcp_server()) as client:
            return [
                [item.type for item in (await client.call_tool(name, {})).content] for name in names
            ]

    assert asyncio.run(over_mcp()) == [["text", "image"]] * 3


def test_a_foreign_schema_with_defs_is_exported_and_called() -> None:
    """Nested models give each framework's schema ``$defs`` and ``$ref``s: every export
    takes them, and a call with nested arguments reaches the tool."""
    from pydantic import BaseModel

    class Inner(BaseModel):
        a: int

    class Outer(BaseModel):
        inner: Inner
        more: list[Inner] = []

    def nested(o: Any) -> int:
        """Read a nested value."""
        return int(o.inner.a) + len(o.more)

    nested.__annotations__["o"] = Outer  # (this module's annotations are strings)
    for foreign in _foreign(nested):
        registry = ToolRegistry()
        registry.register(foreign)
        for fmt in ("openai", "openai-responses", "anthropic", "gemini", "mcp"):
            assert len(registry.export(fmt)) == 1
        arguments = {"o": {"inner": {"a": 5}, "more": [{"a": 1}]}}
        assert registry.call_tool("nested", arguments) == 6, type(foreign)


def test_a_blocking_sync_foreign_tool_leaves_the_loop_free() -> None:
    """A framework's sync tool that blocks, called from an async face, runs off the
    event loop: the loop sets the event the tool waits for (were it blocked, the tool
    would wait out its 10 s and answer "stuck")."""
    release = threading.Event()

    def wait(x: int) -> str:
        """Wait for the loop's release."""
        return "released" if release.wait(10) else "stuck"

    async def run(registry: ToolRegistry) -> Any:
        call = asyncio.ensure_future(registry.async_call_tool("wait", {"x": 1}))
        await asyncio.sleep(0)  # the call starts, then the loop goes on
        release.set()
        return await call

    for foreign in _foreign(wait):
        release.clear()
        registry = ToolRegistry()
        registry.register(foreign)
        assert asyncio.run(run(registry)) == "released", type(foreign)


class _Stop(BaseException):
    """Not an ``Exception``: a program stopping, not a tool failing."""


def test_exceptions_beyond_exception_propagate_both_ways() -> None:
    """As for tooldeck's own tools, only ``Exception`` is a call's failure: a
    ``BaseException`` a foreign tool raises propagates through the registry, and one
    a tooldeck tool raises propagates through each framework's tool."""

    async def stops(x: int) -> int:
        """Stop."""
        raise _Stop("stop")

    for foreign in _foreign(stops):
        registry = ToolRegistry()
        registry.register(foreign)
        with pytest.raises(_Stop):
            asyncio.run(registry.async_call_tool("stops", {"x": 1}))
    registry = ToolRegistry()
    registry.tool(stops)
    from pydantic_ai import RunContext
    from pydantic_ai.usage import RunUsage

    ctx = RunContext(deps=None, model=None, usage=RunUsage())  # type: ignore[arg-type]
    schema = registry.to_pydantic_ai().tools["stops"].function_schema
    with pytest.raises(_Stop):
        asyncio.run(schema.call({"x": 1}, ctx))
    with pytest.raises(_Stop):
        asyncio.run(registry.to_langchain()[0].ainvoke({"x": 1}))


def test_a_huge_output_crosses_each_bridge_whole() -> None:
    """A 4 MB answer reaches each framework, and comes back from each framework's tool,
    whole (no bridge cuts or re-encodes it; `LimitOutput` is how to cut it)."""
    big = "x" * (4 << 20)

    def huge(x: int) -> str:
        """A huge answer."""
        return big

    registry = ToolRegistry()
    registry.tool(huge)
    assert asyncio.run(registry.to_langchain()[0].ainvoke({"x": 1})) == big
    for foreign in _foreign(huge):
        inner = ToolRegistry()
        inner.register(foreign)
        assert inner.execute_sync("huge", {"x": 1}) == ToolResult.ok(big)

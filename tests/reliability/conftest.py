"""Helpers for the reliability tests: a registry of typical tools, and every call face.

A model's input reaches a tool through eight faces — the registry's ``call_tool``,
``async_call_tool``, ``execute``, ``execute_sync`` and the tool's ``call``, ``acall``,
``run``, ``run_sync``. :func:`error_of` runs all of them on one input and checks they
give the same failure, so each test states the outcome once and proves it everywhere.
"""

from __future__ import annotations

import asyncio
from typing import Any, Optional

import pytest
from pydantic import BaseModel

from tooldeck import BaseTool, ToolRegistry, ToolResult


class Node(BaseModel):
    """A recursive model: arbitrarily deep input is representable."""

    child: Optional[Node] = None


class JsonAdd(BaseTool):
    """A seed-000 class tool: validated by ``jsonschema``, not Pydantic."""

    name = "jadd"
    description = "Add two integers (JSON Schema)."
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "integer", "default": 0},
            "x": {"type": "number"},
            "s": {"type": "string"},
        },
        "required": ["a"],
        "additionalProperties": False,
    }

    async def execute(self, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(kwargs["a"] + kwargs.get("b", 0))


def build_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        return a + b

    @registry.tool
    def scale(x: float, factor: float = 2.0) -> float:
        """Multiply a number."""
        return x * factor

    @registry.tool
    def echo(text: str) -> str:
        """Return the text."""
        return text

    @registry.tool
    def anything(x: Any = None, d: dict = {}) -> str:  # noqa: B006 - never mutated
        """Take anything."""
        return type(x).__name__

    @registry.tool
    def tree(n: Node) -> int:
        """Depth of a tree."""
        depth = 0
        node: Node | None = n
        while node is not None:
            depth, node = depth + 1, node.child
        return depth

    registry.register(JsonAdd())
    return registry


@pytest.fixture
def tools() -> ToolRegistry:
    """A fresh registry of typical tools: signature tools and a JSON-Schema tool."""
    return build_registry()


def every_answer(registry: ToolRegistry, name: Any, arguments: Any) -> tuple[Any, ToolResult]:
    """Run every call face on one input; check they agree; return (Agently's, seed 000's)."""
    answer = registry.call_tool(name, arguments)
    assert asyncio.run(registry.async_call_tool(name, arguments)) == answer
    results = [
        registry.execute_sync(name, arguments),
        asyncio.run(registry.execute(name, arguments)),
    ]
    tool = registry.get(name) if isinstance(name, str) else None
    if tool is not None:
        assert tool.call(arguments) == answer
        assert asyncio.run(tool.acall(arguments)) == answer
        results += [tool.run_sync(arguments), asyncio.run(tool.run(arguments))]
    assert all(result == results[0] for result in results), results
    return answer, results[0]


def error_of(registry: ToolRegistry, name: str, arguments: Any) -> str:
    """The failure message every face gives for one input (and the registry intact)."""
    before = registry.list_tools()
    answer, result = every_answer(registry, name, arguments)
    assert isinstance(answer, str), answer
    assert answer.startswith("Error: "), answer
    assert result == ToolResult.fail(answer.removeprefix("Error: "))
    assert_intact(registry, before)
    return answer.removeprefix("Error: ")


def assert_intact(registry: ToolRegistry, before: list[str] | None = None) -> None:
    """Nothing half-done: the same tools, and a good call still answers."""
    if before is not None:
        assert registry.list_tools() == before
    assert registry.call_tool("add", {"a": 1, "b": 2}) == 3
    assert registry.execute_sync("jadd", {"a": 1, "b": 2}) == ToolResult.ok(3)

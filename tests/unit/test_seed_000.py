"""Seed 000 (a voice assistant's ``ToolRegistry`` contract): B-001..B-005, the MockTool
usage example, and JSON Schema semantics for ``BaseTool`` arguments."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from tooldeck import BaseTool, DuplicateToolError, Tool, ToolRegistry, ToolResult


class MockTool(BaseTool):
    @property
    def name(self) -> str:
        return "mock_tool"

    @property
    def description(self) -> str:
        return "測試用工具"

    @property
    def parameters(self) -> dict:
        return {
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        }

    async def execute(self, message: str) -> ToolResult:
        return ToolResult.ok({"echo": message})


class NamedTool(BaseTool):
    """A BaseTool whose name is chosen per instance (B-001 needs two with one name)."""

    def __init__(self, name: str, answer: Any = "ok") -> None:
        self._name = name
        self.answer = answer

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return f"tool {self._name}"

    @property
    def parameters(self) -> dict:
        return {"type": "object", "properties": {}}

    async def execute(self, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(self.answer)


class FailingTool(BaseTool):
    @property
    def name(self) -> str:
        return "tool"

    @property
    def description(self) -> str:
        return "always fails"

    @property
    def parameters(self) -> dict:
        return {"type": "object", "properties": {}}

    async def execute(self, **kwargs: Any) -> ToolResult:
        raise ValueError("invalid input")


class CountTool(BaseTool):
    """Records what ``execute`` received, to show what validation lets through."""

    def __init__(self, parameters: dict) -> None:
        self._parameters = parameters
        self.received: list[dict] = []

    @property
    def name(self) -> str:
        return "count"

    @property
    def description(self) -> str:
        return "counts"

    @property
    def parameters(self) -> dict:
        return self._parameters

    async def execute(self, **kwargs: Any) -> ToolResult:
        self.received.append(kwargs)
        return ToolResult.ok(kwargs)


COUNT_SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "label": {"type": "string"}},
    "required": ["n"],
}


# --- the usage example, verbatim but for the import lines ---------------------------------


async def test_usage_example() -> None:
    registry = ToolRegistry()
    registry.register(MockTool())

    tools = registry.get_openai_tools()
    assert tools == [
        {
            "type": "function",
            "function": {
                "name": "mock_tool",
                "description": "測試用工具",
                "parameters": {
                    "type": "object",
                    "properties": {"message": {"type": "string"}},
                    "required": ["message"],
                },
            },
        }
    ]

    result = await registry.execute("mock_tool", {"message": "hello"})
    assert isinstance(result, ToolResult)
    assert result.success is True
    assert result.data == {"echo": "hello"}
    assert result.error is None


def test_register_returns_a_tool_that_get_returns() -> None:
    registry = ToolRegistry()
    mock = MockTool()
    registered = registry.register(mock)
    assert isinstance(registered, Tool)
    assert registry.get("mock_tool") is registered
    assert registry.list_tools() == ["mock_tool"]


def test_execute_sync_matches_execute() -> None:
    registry = ToolRegistry()
    registry.register(MockTool())
    result = registry.execute_sync("mock_tool", {"message": "hi"})
    assert result == ToolResult.ok({"echo": "hi"})


def test_execute_with_json_string_arguments() -> None:
    registry = ToolRegistry()
    registry.register(MockTool())
    result = registry.execute_sync("mock_tool", '{"message": "hi"}')
    assert result == ToolResult.ok({"echo": "hi"})


async def test_every_tool_offers_the_base_tool_interface() -> None:
    """Code written against seed 000 works on a decorated function too."""
    registry = ToolRegistry()

    @registry.tool
    def shout(message: str) -> str:
        """Shout a message."""
        return message.upper()

    found = registry.get("shout")
    assert isinstance(found, BaseTool)
    assert found.name == "shout"
    assert found.description == "Shout a message."
    assert found.parameters == {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
    }
    assert await found.execute(message="hi") == ToolResult.ok("HI")


# --- B-001: duplicates --------------------------------------------------------------------


def test_b001_duplicate_base_tools_raise_value_error() -> None:
    registry = ToolRegistry()
    registry.register(NamedTool("weather", "first"))
    with pytest.raises(ValueError, match="weather"):
        registry.register(NamedTool("weather", "second"))
    assert registry.list_tools() == ["weather"]
    assert registry.execute_sync("weather", {}).data == "first"


def test_b001_error_is_duplicate_tool_error() -> None:
    registry = ToolRegistry()
    registry.register(NamedTool("weather"))
    with pytest.raises(DuplicateToolError) as info:
        registry.register(NamedTool("weather"))
    assert info.value.name == "weather"


def test_b001_function_clashing_with_base_tool() -> None:
    registry = ToolRegistry()
    registry.register(NamedTool("weather", "class"))

    def weather() -> str:
        return "function"

    with pytest.raises(ValueError):
        registry.register(weather)
    assert registry.execute_sync("weather").data == "class"


def test_b001_same_instance_again_is_a_no_op() -> None:
    registry = ToolRegistry()
    mock = MockTool()
    first = registry.register(mock)
    assert registry.register(mock) is first
    assert len(registry) == 1


def test_b001_replace_true_replaces() -> None:
    registry = ToolRegistry()
    registry.register(NamedTool("weather", "first"))
    registry.register(NamedTool("weather", "second"), replace=True)
    assert registry.execute_sync("weather").data == "second"
    assert len(registry) == 1


# --- B-002: unknown tools -----------------------------------------------------------------


async def test_b002_get_unknown_returns_none() -> None:
    registry = ToolRegistry()
    assert registry.get("xxx") is None
    registry.register(MockTool())
    assert registry.get("xxx") is None


async def test_b002_execute_unknown_fails_with_exact_message() -> None:
    registry = ToolRegistry()
    result = await registry.execute("xxx", {})
    assert result == ToolResult.fail("Tool 'xxx' not found")
    assert result.success is False
    assert result.error == "Tool 'xxx' not found"
    assert registry.execute_sync("xxx", {}).error == "Tool 'xxx' not found"


# --- B-003: the empty registry ------------------------------------------------------------


def test_b003_empty_registry() -> None:
    registry = ToolRegistry()
    assert registry.get_openai_tools() == []
    assert registry.list_tools() == []
    assert len(registry) == 0
    assert list(registry) == []


def test_b003_empty_again_after_unregister() -> None:
    registry = ToolRegistry()
    registry.register(MockTool())
    registry.unregister("mock_tool")
    assert registry.get_openai_tools() == []
    assert registry.list_tools() == []


# --- B-004: errors while executing --------------------------------------------------------


async def test_b004_exception_becomes_failed_result() -> None:
    registry = ToolRegistry()
    registry.register(FailingTool())
    result = await registry.execute("tool", {})
    assert result.success is False
    assert "invalid input" in result.error
    assert result.error == "invalid input"  # ToolResult.fail(str(exception))
    assert isinstance(result.exception, ValueError)


async def test_b004_agently_face_of_a_failing_base_tool() -> None:
    registry = ToolRegistry()
    registry.register(FailingTool())
    assert registry.call_tool("tool", {}) == "Error: invalid input"
    assert await registry.async_call_tool("tool", {}) == "Error: invalid input"


async def test_b004_base_tool_returning_a_failed_result() -> None:
    class Refuses(NamedTool):
        async def execute(self, **kwargs: Any) -> ToolResult:
            return ToolResult.fail("no")

    registry = ToolRegistry()
    registry.register(Refuses("refuses"))
    assert await registry.execute("refuses", {}) == ToolResult.fail("no")
    assert registry.call_tool("refuses", {}) == "Error: no"


async def test_b004_base_tool_returning_something_else_fails() -> None:
    class Sloppy(NamedTool):
        async def execute(self, **kwargs: Any) -> Any:
            return "plain string"

    registry = ToolRegistry()
    registry.register(Sloppy("sloppy"))
    result = await registry.execute("sloppy", {})
    assert result.success is False
    assert "ToolResult" in result.error


# --- B-005: the OpenAI shape --------------------------------------------------------------


def test_b005_openai_shape() -> None:
    registry = ToolRegistry()
    registry.register(MockTool())
    registry.register(NamedTool("other"))

    @registry.tool
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        return a + b

    tools = registry.get_openai_tools()
    assert [t["function"]["name"] for t in tools] == ["mock_tool", "other", "add"]
    for entry in tools:
        assert set(entry) == {"type", "function"}
        assert entry["type"] == "function"
        function = entry["function"]
        assert set(function) == {"name", "description", "parameters"}
        assert isinstance(function["name"], str)
        assert isinstance(function["description"], str)
        assert isinstance(function["parameters"], dict)
        assert function["parameters"]["type"] == "object"


def test_b005_exports_cannot_be_corrupted() -> None:
    """Changing what an export returned never changes the next export: a definition
    is either a fresh copy or read-only (``TypeError``); the list itself is the
    caller's to extend."""
    registry = ToolRegistry()
    registry.register(MockTool())
    first = registry.get_openai_tools()
    first.append({"type": "function", "function": {"name": "extra"}})
    with contextlib.suppress(TypeError):  # read-only is fine too
        first[0]["function"]["parameters"]["properties"].clear()
    with contextlib.suppress(TypeError):
        first[0]["function"]["name"] = "renamed"
    again = registry.get_openai_tools()
    assert len(again) == 1
    assert again[0]["function"]["name"] == "mock_tool"
    assert again[0]["function"]["parameters"]["properties"] == {"message": {"type": "string"}}


# --- JSON Schema semantics for BaseTool arguments -----------------------------------------


async def test_base_tool_no_coercion() -> None:
    registry = ToolRegistry()
    counter = CountTool(COUNT_SCHEMA)
    registry.register(counter)
    result = await registry.execute("count", {"n": "123"})
    assert result.success is False
    assert "n" in result.error
    assert counter.received == []


async def test_base_tool_missing_required() -> None:
    registry = ToolRegistry()
    counter = CountTool(COUNT_SCHEMA)
    registry.register(counter)
    result = await registry.execute("count", {"label": "x"})
    assert result.success is False
    assert "n" in result.error
    assert counter.received == []


@pytest.mark.parametrize("arguments", [[1, 2], "[1]", "7", "null", '"text"'])
async def test_base_tool_non_object_arguments(arguments: Any) -> None:
    registry = ToolRegistry()
    counter = CountTool(COUNT_SCHEMA)
    registry.register(counter)
    result = await registry.execute("count", arguments)
    assert result.success is False
    assert result.error
    assert counter.received == []


async def test_base_tool_invalid_json_string() -> None:
    registry = ToolRegistry()
    counter = CountTool(COUNT_SCHEMA)
    registry.register(counter)
    result = await registry.execute("count", '{"n": ')
    assert result.success is False
    assert counter.received == []


async def test_base_tool_valid_arguments_pass_unchanged() -> None:
    registry = ToolRegistry()
    counter = CountTool(COUNT_SCHEMA)
    registry.register(counter)
    result = await registry.execute("count", {"n": 3, "label": "x"})
    assert result == ToolResult.ok({"n": 3, "label": "x"})
    assert counter.received == [{"n": 3, "label": "x"}]


async def test_base_tool_extra_arguments_pass_where_schema_allows() -> None:
    registry = ToolRegistry()
    counter = CountTool(COUNT_SCHEMA)
    registry.register(counter)
    result = await registry.execute("count", {"n": 1, "extra": True})
    assert result.success is True
    assert counter.received == [{"n": 1, "extra": True}]


async def test_base_tool_extra_arguments_rejected_where_schema_forbids() -> None:
    registry = ToolRegistry()
    counter = CountTool({**COUNT_SCHEMA, "additionalProperties": False})
    registry.register(counter)
    result = await registry.execute("count", {"n": 1, "extra": True})
    assert result.success is False
    assert "extra" in result.error
    assert counter.received == []


async def test_base_tool_no_lenient_json_parsing() -> None:
    """A stringified list is not parsed for a BaseTool (no lenient parsing)."""
    registry = ToolRegistry()
    counter = CountTool(
        {"type": "object", "properties": {"xs": {"type": "array"}}, "required": ["xs"]}
    )
    registry.register(counter)
    result = await registry.execute("count", {"xs": "[1, 2]"})
    assert result.success is False
    assert counter.received == []


async def test_base_tool_null_is_not_a_default() -> None:
    registry = ToolRegistry()
    counter = CountTool({"type": "object", "properties": {"n": {"type": "integer", "default": 1}}})
    registry.register(counter)
    result = await registry.execute("count", {"n": None})
    assert result.success is False
    assert counter.received == []


def test_agently_view_of_a_base_tool_invents_no_default() -> None:
    """``get_tool_info`` of a BaseTool: an optional property without a ``default`` in the
    schema has no default (the tool is not called with ``None``), so Agently's kwargs
    must not say ``Default: None``."""
    registry = ToolRegistry()
    registry.register(
        CountTool(
            {
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "description": "a count"},
                    "label": {"type": "string"},
                    "step": {"type": "integer", "default": 1},
                },
                "required": ["n"],
            }
        )
    )
    kwargs = registry.get_tool_info()["count"]["kwargs"]
    assert kwargs["n"] == (int, "a count")
    assert kwargs["step"] == (int, "Default: 1")
    assert "Default" not in kwargs["label"][1]

"""Seed 004 (RunGPT's tools module): the three ways to register, ``args_schema`` with
Pydantic v2 and v1 models, coercion, ``enabled``, ``-> ToolResult`` enforcement, schema
shapes, fail-fast definition errors, and ``ToolResult`` itself."""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated, Any, Dict, List, Optional  # noqa: UP035 - seed 004's spelling

import pydantic
import pytest
from pydantic import BaseModel, Field
from pydantic import v1 as pydantic_v1

from tooldeck import Tool, ToolDefinitionError, ToolRegistry, ToolResult, tool


class Opaque:
    """A plain class: pydantic has no schema for it."""


# --- the three ways to register -----------------------------------------------------------


def test_decorator_on_the_class_registers_in_the_default_registry() -> None:
    @ToolRegistry.tool(description="查询天气")
    def s004_get_weather(city: str) -> ToolResult:
        return ToolResult.ok(f"{city}: 晴天")

    try:
        assert isinstance(s004_get_weather, Tool)
        assert ToolRegistry.default().get("s004_get_weather") is s004_get_weather
        assert s004_get_weather.description == "查询天气"
        assert "s004_get_weather" in ToolRegistry.list_tools()
        assert ToolRegistry.call_tool("s004_get_weather", {"city": "台北"}) == "台北: 晴天"
        # seed 004's own call: keyword arguments in, the result as text out
        assert ToolRegistry.call("s004_get_weather", city="台北") == "台北: 晴天"
        result = ToolRegistry.execute_sync("s004_get_weather", {"city": "台北"})
        assert result == ToolResult.ok("台北: 晴天")
        # still the function
        assert s004_get_weather("台中") == ToolResult.ok("台中: 晴天")
    finally:
        ToolRegistry.unregister("s004_get_weather")
    assert ToolRegistry.default().get("s004_get_weather") is None


def test_module_level_tool_registers_in_the_default_registry() -> None:
    @tool
    def s004_module_level(x: int) -> int:
        return x + 1

    try:
        assert ToolRegistry.default().get("s004_module_level") is s004_module_level
        assert ToolRegistry.call_tool("s004_module_level", {"x": 1}) == 2
    finally:
        ToolRegistry.default().unregister("s004_module_level")


def test_manual_registration_on_the_class() -> None:
    def func(text: str) -> ToolResult:
        return ToolResult.ok(text[::-1])

    registered = ToolRegistry.register("s004_tool_name", func, description="Reverse text.")
    try:
        assert isinstance(registered, Tool)
        assert registered.name == "s004_tool_name"
        assert registered.description == "Reverse text."
        assert ToolRegistry.default().get("s004_tool_name") is registered
        assert ToolRegistry.call_tool("s004_tool_name", {"text": "abc"}) == "cba"
    finally:
        ToolRegistry.default().unregister("s004_tool_name")


def test_manual_registration_on_an_instance() -> None:
    registry = ToolRegistry()

    def func(text: str) -> str:
        return text.upper()

    registry.register("shout", func, description="Shout.")
    assert registry.get("shout").description == "Shout."
    assert registry.call_tool("shout", {"text": "a"}) == "A"
    assert "shout" not in ToolRegistry.default()


def test_manual_registration_options_are_never_silently_ignored() -> None:
    """``register("name", obj, description=...)`` with a ready Tool: the options either
    take effect or are refused — a tool registered under another name than asked for,
    with another description, is a silent surprise."""
    registry = ToolRegistry()

    def func(text: str) -> str:
        """Original."""
        return text

    ready = Tool(func)
    try:
        registered = registry.register("renamed", ready, description="Renamed.")
    except ToolDefinitionError:
        assert len(registry) == 0
        return
    assert registered.name == "renamed"
    assert registered.description == "Renamed."
    assert registry.list_tools() == ["renamed"]


def test_full_registration() -> None:
    def func(city: str) -> ToolResult:
        return ToolResult.ok(city)

    full = Tool(name="s004_full", func=func, description="Full registration.", tags=["x"])
    registry = ToolRegistry()
    assert registry.register_tool(full) is full
    assert registry.get("s004_full") is full
    assert registry.list_tools("x") == ["s004_full"]
    assert registry.call_tool("s004_full", {"city": "c"}) == "c"


def test_full_registration_on_the_class() -> None:
    full = Tool(lambda: ToolResult.ok("ok"), name="s004_full_cls", description="d")
    ToolRegistry.register_tool(full)
    try:
        assert ToolRegistry.default().get("s004_full_cls") is full
        assert ToolRegistry.call_tool("s004_full_cls") == "ok"
    finally:
        ToolRegistry.default().unregister("s004_full_cls")


def test_call_with_keyword_arguments_as_in_the_seed() -> None:
    """Seed 004: ``ToolRegistry.call("tool_name", param1="value")`` → the result as text."""
    registry = ToolRegistry()

    @registry.tool
    def tool_name(param1: str) -> ToolResult:
        if param1 == "bad":
            return ToolResult.fail("bad value")
        return ToolResult.ok(param1 + "!")

    assert registry.call("tool_name", param1="value") == "value!"
    assert registry.call("tool_name", param1="bad") == "Error: bad value"


def test_tool_call_faces() -> None:
    def func(param1: str) -> ToolResult:
        return ToolResult.ok(param1)

    full = Tool(func, name="faces")
    assert full.call(param1="v") == "v"
    assert full.call({"param1": "a"}, param1="b") == "b"  # keywords win
    assert full.call('{"param1": "json"}') == "json"
    assert full.run_sync(param1="v") == ToolResult.ok("v")


# --- args_schema --------------------------------------------------------------------------


class SearchArgs(BaseModel):
    query: str
    limit: int = 10


class SearchArgsV1(pydantic_v1.BaseModel):
    query: str
    limit: int = 10


@pytest.mark.parametrize("model", [SearchArgs, SearchArgsV1], ids=["v2", "v1"])
def test_args_schema_with_kwargs_function(model: type[Any]) -> None:
    registry = ToolRegistry()

    @registry.tool(args_schema=model)
    def search(**kwargs: Any) -> ToolResult:
        return ToolResult.ok(kwargs)

    assert search.parameters == {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "default": 10},
        },
        "required": ["query"],
    }
    # validated and converted ("123" → 123), the default filled in
    assert registry.call_tool("search", {"query": "q", "limit": "123"}) == {
        "query": "q",
        "limit": 123,
    }
    assert registry.call_tool("search", {"query": "q"}) == {"query": "q", "limit": 10}
    missing = registry.call_tool("search", {"limit": 1})
    assert missing.startswith("Error: ")
    assert "query" in missing
    unknown = registry.call_tool("search", {"query": "q", "other": 1})
    assert unknown.startswith("Error: ")
    assert "other" in unknown
    wrong = registry.call_tool("search", {"query": "q", "limit": "many"})
    assert wrong.startswith("Error: ")
    assert "limit" in wrong


@pytest.mark.parametrize("model", [SearchArgs, SearchArgsV1], ids=["v2", "v1"])
def test_args_schema_with_field_parameters(model: type[Any]) -> None:
    registry = ToolRegistry()

    @registry.tool(args_schema=model)
    def search(query: str, limit: int) -> ToolResult:
        return ToolResult.ok(f"{query}:{limit}")

    assert registry.call_tool("search", {"query": "q", "limit": "7"}) == "q:7"
    assert registry.call_tool("search", '{"query": "q"}') == "q:10"


def test_args_schema_descriptions_and_docstring() -> None:
    class Args(BaseModel):
        """Model docstring (not the tool's description)."""

        city: str = Field(description="the city")
        days: int = 1

    registry = ToolRegistry()

    @registry.tool(args_schema=Args)
    def forecast(**kwargs: Any) -> str:
        """Forecast the weather.

        Args:
            days: how many days
        """
        return "sunny"

    assert forecast.description == "Forecast the weather."
    assert forecast.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "the city"},
            "days": {"type": "integer", "default": 1, "description": "how many days"},
        },
        "required": ["city"],
    }


def test_args_schema_docstring_entry_for_missing_field_fails() -> None:
    with pytest.raises(ToolDefinitionError) as info:

        @ToolRegistry().tool(args_schema=SearchArgs)
        def search(**kwargs: Any) -> str:
            """Search.

            Args:
                nonexistent: not a field
            """
            return ""

    assert info.value.param == "nonexistent"


def test_args_schema_must_be_a_model() -> None:
    with pytest.raises(ToolDefinitionError):

        @ToolRegistry().tool(args_schema=dict)
        def f(**kwargs: Any) -> str:
            return ""


def test_args_schema_model_validators_run() -> None:
    class Args(BaseModel):
        word: str

        @pydantic.field_validator("word")
        @classmethod
        def lower(cls, value: str) -> str:
            return value.lower()

    registry = ToolRegistry()

    @registry.tool(args_schema=Args)
    def echo(**kwargs: Any) -> str:
        return kwargs["word"]

    assert registry.call_tool("echo", {"word": "LOUD"}) == "loud"


# --- coercion -----------------------------------------------------------------------------


def test_string_is_coerced_to_int() -> None:
    registry = ToolRegistry()

    @registry.tool
    def divide(a: int, b: int) -> ToolResult:
        return ToolResult.ok(a / b)

    assert registry.call_tool("divide", {"a": "10", "b": "2"}) == 5.0
    assert registry.execute_sync("divide", {"a": "123", "b": 1}) == ToolResult.ok(123.0)


def test_coerced_value_has_the_right_type() -> None:
    registry = ToolRegistry()
    seen: list[Any] = []

    @registry.tool
    def record(n: int) -> int:
        seen.append(n)
        return n

    assert registry.call_tool("record", {"n": "123"}) == 123
    assert seen == [123]
    assert type(seen[0]) is int


# --- enabled ------------------------------------------------------------------------------


async def test_disabled_tool() -> None:
    registry = ToolRegistry()

    @registry.tool(enabled=False)
    def hidden(x: int = 1) -> int:
        return x

    @registry.tool
    def shown() -> int:
        return 2

    assert hidden.enabled is False
    assert registry.list_tools() == ["shown"]
    assert [t["function"]["name"] for t in registry.get_openai_tools()] == ["shown"]
    for fmt in ("openai", "openai-responses", "anthropic", "gemini", "mcp"):
        assert len(registry.export(fmt)) == 1, fmt
    assert [d["name"] for d in registry.get_declarations()] == ["shown"]
    assert list(registry.get_tool_info()) == ["shown"]
    assert registry.call_tool("hidden", {}) == "Error: Tool 'hidden' is disabled"
    assert await registry.async_call_tool("hidden", {}) == "Error: Tool 'hidden' is disabled"
    assert await registry.execute("hidden", {}) == ToolResult.fail("Tool 'hidden' is disabled")
    assert registry.execute_sync("hidden") == ToolResult.fail("Tool 'hidden' is disabled")
    # registered all the same, and still the function
    assert "hidden" in registry
    assert registry.get("hidden") is hidden
    assert hidden(5) == 5


def test_enable_and_disable() -> None:
    registry = ToolRegistry()
    full = Tool(lambda: ToolResult.ok("on"), name="switch", enabled=False)
    registry.register_tool(full)
    assert registry.list_tools() == []
    registry.enable("switch")
    assert registry.list_tools() == ["switch"]
    assert registry.call_tool("switch") == "on"
    assert len(registry.get_openai_tools()) == 1
    registry.disable("switch")
    assert registry.get_openai_tools() == []
    assert registry.call_tool("switch") == "Error: Tool 'switch' is disabled"


# --- -> ToolResult enforcement ------------------------------------------------------------


async def test_tool_annotated_tool_result_must_return_one() -> None:
    registry = ToolRegistry()

    @registry.tool
    def my_tool(param: str) -> ToolResult:
        return "result"  # type: ignore[return-value]

    @registry.tool
    async def my_async_tool(param: str) -> ToolResult:
        return {"success": True, "data": param}  # type: ignore[return-value]

    for name in ("my_tool", "my_async_tool"):
        text = registry.call_tool(name, {"param": "x"})
        assert text.startswith("Error: ")
        assert "ToolResult" in text
        text = await registry.async_call_tool(name, {"param": "x"})
        assert "ToolResult" in text
        result = await registry.execute(name, {"param": "x"})
        assert result.success is False
        assert "ToolResult" in result.error
        assert isinstance(result.exception, TypeError)


def test_tool_result_passes_through_execute() -> None:
    registry = ToolRegistry()

    @registry.tool
    def my_tool(param: str) -> ToolResult:
        if not param:
            return ToolResult.fail("参数不能为空")
        return ToolResult.ok({"param": param})

    assert registry.execute_sync("my_tool", {"param": ""}) == ToolResult.fail("参数不能为空")
    assert registry.execute_sync("my_tool", {"param": "a"}) == ToolResult.ok({"param": "a"})


def test_unannotated_return_is_wrapped() -> None:
    registry = ToolRegistry()

    @registry.tool
    def old_style(param: str) -> str:
        return "result"

    assert registry.execute_sync("old_style", {"param": "x"}) == ToolResult.ok("result")


# --- schema shapes ------------------------------------------------------------------------


def test_optional_list_dict_schemas() -> None:
    registry = ToolRegistry()

    @registry.tool
    def search(
        query: str,
        limit: Optional[int] = 10,
        tags: List[str] = [],  # noqa: B006, UP006
        weights: Dict[str, float] = {},  # noqa: B006, UP006
        note: Optional[str] = None,
    ) -> ToolResult:
        return ToolResult.ok([query, limit, tags, weights, note])

    assert search.parameters == {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 10},
            "tags": {"type": "array", "items": {"type": "string"}, "default": []},
            "weights": {
                "type": "object",
                "additionalProperties": {"type": "number"},
                "default": {},
            },
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["query"],
    }
    assert registry.call_tool("search", {"query": "q"}) == ["q", 10, [], {}, None]
    assert registry.call_tool(
        "search", {"query": "q", "limit": None, "tags": ["a"], "weights": {"w": "1.5"}}
    ) == ["q", None, ["a"], {"w": 1.5}, None]


def test_no_titles_anywhere_and_order_kept() -> None:
    class Inner(BaseModel):
        x: int
        y: Optional[str] = None

    registry = ToolRegistry()

    @registry.tool
    def nested(zeta: int, alpha: Inner, mid: List[Inner] = []) -> int:  # noqa: B006, UP006
        return zeta

    schema = nested.parameters
    assert list(schema["properties"]) == ["zeta", "alpha", "mid"]
    assert "title" not in json.dumps(schema)
    assert "$ref" not in json.dumps(schema)
    assert "$defs" not in schema
    assert "description" not in schema


# --- fail fast ----------------------------------------------------------------------------


def test_unsupported_parameter_type_fails_at_definition() -> None:
    registry = ToolRegistry()
    with pytest.raises(ToolDefinitionError) as info:

        @registry.tool
        def uses_opaque(thing: Opaque) -> ToolResult:
            return ToolResult.ok(None)

    error = info.value
    assert isinstance(error, TypeError)
    assert error.tool == "uses_opaque"
    assert error.param == "thing"
    assert "uses_opaque" in str(error)
    assert "thing" in str(error)
    assert "uses_opaque" not in registry


def test_var_positional_fails() -> None:
    with pytest.raises(ToolDefinitionError) as info:

        @ToolRegistry().tool
        def many(*values: int) -> int:
            return sum(values)

    assert info.value.param == "values"
    assert "many" in str(info.value)


def test_var_keyword_without_args_schema_fails() -> None:
    with pytest.raises(ToolDefinitionError) as info:

        @ToolRegistry().tool
        def loose(a: int, **options: Any) -> int:
            return a

    assert info.value.param == "options"
    assert "loose" in str(info.value)
    assert "args_schema" in str(info.value)


def test_docstring_entry_for_missing_parameter_fails() -> None:
    with pytest.raises(ToolDefinitionError) as info:

        @ToolRegistry().tool
        def documented(a: int) -> int:
            """Do a thing.

            Args:
                a: the a
                b: there is no b
            """
            return a

    assert info.value.tool == "documented"
    assert info.value.param == "b"


@pytest.mark.parametrize(
    "name", ["", "has space", "dot.ted", "x" * 65, "slash/name", "ü", "new\nline"]
)
def test_bad_names_fail(name: str) -> None:
    def func() -> int:
        return 1

    registry = ToolRegistry()
    with pytest.raises(ToolDefinitionError):
        registry.register(func, name=name)
    with pytest.raises(ToolDefinitionError):
        Tool(func, name=name)
    assert len(registry) == 0


@pytest.mark.parametrize("name", ["a", "A-b_9", "x" * 64])
def test_good_names_pass(name: str) -> None:
    assert Tool(lambda: 1, name=name).name == name


def test_lambda_needs_a_name() -> None:
    with pytest.raises(ToolDefinitionError):
        Tool(lambda: 1)


def test_pydantic_attribute_names_work_or_fail_at_definition() -> None:
    """``model_config``, ``schema`` and a leading ``_`` must never fail later."""
    registry = ToolRegistry()
    try:

        @registry.tool
        def clashing(schema: str, model_config: int, copy: bool = False) -> list:
            return [schema, model_config, copy]

    except ToolDefinitionError:
        return
    assert registry.call_tool("clashing", {"schema": "s", "model_config": "2"}) == ["s", 2, False]
    assert list(clashing.parameters["properties"]) == ["schema", "model_config", "copy"]


def test_annotated_constraints_validate() -> None:
    registry = ToolRegistry()

    @registry.tool
    def bounded(n: Annotated[int, Field(ge=0, le=10)]) -> int:
        return n

    assert bounded.parameters["properties"]["n"] == {"type": "integer", "minimum": 0, "maximum": 10}
    assert registry.call_tool("bounded", {"n": 3}) == 3
    assert registry.call_tool("bounded", {"n": 11}).startswith("Error: ")


# --- ToolResult ---------------------------------------------------------------------------


def test_tool_result_ok_and_fail() -> None:
    ok = ToolResult.ok({"key": "value"})
    assert ok.success is True
    assert ok.data == {"key": "value"}
    assert ok.error is None
    assert ToolResult.ok().data is None
    fail = ToolResult.fail("错误描述")
    assert fail.success is False
    assert fail.data is None
    assert fail.error == "错误描述"
    assert ToolResult(True, [1, 2, 3]) == ToolResult.ok([1, 2, 3])


def test_tool_result_is_frozen() -> None:
    result = ToolResult.ok(1)
    with pytest.raises(AttributeError):
        result.data = 2  # type: ignore[misc]


def test_tool_result_cannot_be_subclassed() -> None:
    # A subclass passed every face's exact-class check as a plain value: a failure
    # returned by a tool read as a success (`is_error: False` in run_tool_calls).
    with pytest.raises(TypeError, match="cannot be subclassed"):

        @dataclasses.dataclass(frozen=True, slots=True)
        class Mine(ToolResult):
            pass

    with pytest.raises(TypeError, match="cannot be subclassed"):
        type("Mine", (ToolResult,), {})
    assert [f.name for f in dataclasses.fields(ToolResult)] == [
        "success",
        "data",
        "error",
        "exception",
    ]


def test_to_dict_has_exactly_three_keys() -> None:
    assert ToolResult.ok([1, 2, 3]).to_dict() == {"success": True, "data": [1, 2, 3], "error": None}
    assert ToolResult.fail("x").to_dict() == {"success": False, "data": None, "error": "x"}
    with_exception = ToolResult.fail("x", exception=ValueError("x"))
    assert set(with_exception.to_dict()) == {"success", "data", "error"}
    assert with_exception == ToolResult.fail("x")


@pytest.mark.parametrize(
    ("result", "text"),
    [
        (ToolResult.ok("台北: 晴天"), "台北: 晴天"),
        (ToolResult.ok({"city": "台北", "temp": 20.5}), '{"city": "台北", "temp": 20.5}'),
        (ToolResult.ok([1, 2, 3]), "[1, 2, 3]"),
        (ToolResult.ok(None), "null"),
        (ToolResult.ok(True), "true"),
        (ToolResult.ok(7), "7"),
        (ToolResult.fail("未找到: x"), "Error: 未找到: x"),
    ],
)
def test_str_is_llm_friendly(result: ToolResult, text: str) -> None:
    assert str(result) == text


def test_str_of_dict_is_json_with_non_ascii_kept() -> None:
    data = {"城市": "臺北", "nested": {"a": [1, "é"]}}
    text = str(ToolResult.ok(data))
    assert json.loads(text) == data
    assert text == json.dumps(data, ensure_ascii=False)
    assert "\\u" not in text


class Weather(BaseModel):
    city: str
    temp: float


@dataclasses.dataclass
class Reading:
    sensor: str
    value: int


@pytest.mark.parametrize(
    ("data", "as_json"),
    [
        (Weather(city="台北", temp=20.5), {"city": "台北", "temp": 20.5}),
        ([Weather(city="台中", temp=1)], [{"city": "台中", "temp": 1.0}]),
        (Reading("s1", 3), {"sensor": "s1", "value": 3}),
        ({"reading": Reading("s2", 4)}, {"reading": {"sensor": "s2", "value": 4}}),
    ],
    ids=["model", "list-of-models", "dataclass", "nested-dataclass"],
)
def test_str_of_models_and_dataclasses_is_json(data: Any, as_json: Any) -> None:
    """DESIGN.md: success → the data, "anything else as JSON". A tool annotated
    ``-> SomeModel`` is common; a model must read JSON, not Python's repr."""
    text = str(ToolResult.ok(data))
    assert json.loads(text) == as_json
    assert "\\u" not in text

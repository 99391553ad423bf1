"""Seed 001 (Agently's ToolManager): ``tool_func`` rules, Agently's ``kwargs`` format,
tag queries, ``get_tool_func`` shifts, the string-returning call faces, and the
keyword-only manual ``register``."""

from __future__ import annotations

import asyncio
import threading
import typing
from typing import Annotated, Any

import pytest
from pydantic import Field

from tooldeck import Tool, ToolRegistry, ToolResult, tool, tool_func

# --- tool_func: Agently's rules -----------------------------------------------------------


def test_tool_func_is_tool() -> None:
    assert tool_func is tool


def test_module_level_tool_func_registers_in_the_default_registry() -> None:
    @tool_func
    def s001_echo(text: Annotated[str, "what to echo"]) -> str:
        """Echo the text."""
        return text

    try:
        default = ToolRegistry.default()
        assert default.get("s001_echo") is s001_echo
        assert ToolRegistry.call_tool("s001_echo", {"text": "hi"}) == "hi"
        info = ToolRegistry.get_tool_info()["s001_echo"]
        assert info["kwargs"] == {"text": (str, "what to echo")}
        # the decorated object is still the function
        assert s001_echo("direct") == "direct"
        assert s001_echo.__name__ == "s001_echo"
        assert s001_echo.__doc__ == "Echo the text."
    finally:
        ToolRegistry.default().unregister("s001_echo")
    assert "s001_echo" not in ToolRegistry.default()


def test_tool_func_on_a_registry_and_on_the_class() -> None:
    """Agently code reads `@manager.tool_func`: every registry has the alias, and the
    class itself (acting on the default registry) too."""
    registry = ToolRegistry()

    @registry.tool_func
    def add(a: Annotated[int, "first"], b: int = 2) -> int:
        """Add."""
        return a + b

    @registry.tool_func(tags=["math"])
    def neg(a: int) -> int:
        return -a

    assert registry.call_tool("add", {"a": 1}) == 3
    assert registry.get_tool_info()["add"]["kwargs"] == {
        "a": (int, "first"),
        "b": (int, "Default: 2"),
    }
    assert registry.list_tools("math") == ["neg"]

    @ToolRegistry.tool_func
    def s001_class_level(x: int) -> int:
        return x * 10

    try:
        assert ToolRegistry.default().get("s001_class_level") is s001_class_level
        assert ToolRegistry.call_tool("s001_class_level", {"x": 2}) == 20
    finally:
        ToolRegistry.default().unregister("s001_class_level")


def test_annotated_text_and_default_in_kwargs_format() -> None:
    registry = ToolRegistry()

    @registry.tool
    def search(
        query: Annotated[str, "the search query"],
        limit: Annotated[int, "how many results"] = 10,
    ) -> list:
        """Search the web."""
        return []

    info = registry.get_tool_info()["search"]
    assert info["name"] == "search"
    assert info["desc"] == "Search the web."
    assert info["kwargs"] == {
        "query": (str, "the search query"),
        "limit": (int, "how many results;Default: 10"),
    }
    assert info["returns"] is list


def test_several_annotated_strings_joined_with_semicolon() -> None:
    registry = ToolRegistry()

    @registry.tool
    def f(x: Annotated[int, "first part", "second part"] = 3) -> int:
        return x

    assert registry.get_tool_info()["f"]["kwargs"]["x"] == (
        int,
        "first part;second part;Default: 3",
    )
    assert registry.get("f").parameters["properties"]["x"]["description"] == (
        "first part;second part"
    )


def test_default_without_description() -> None:
    registry = ToolRegistry()

    @registry.tool
    def f(flag: bool = False, name: str = "bob", nothing: str | None = None) -> str:
        return name

    kwargs = registry.get_tool_info()["f"]["kwargs"]
    assert kwargs["flag"] == (bool, "Default: False")
    assert kwargs["name"] == (str, "Default: bob")
    assert kwargs["nothing"][1] == "Default: None"


def test_field_default_renders_its_value() -> None:
    registry = ToolRegistry()

    @registry.tool
    def f(n: Annotated[int, Field(description="a count")] = 5, m: int = Field(7)) -> int:
        return n + m

    kwargs = registry.get_tool_info()["f"]["kwargs"]
    assert kwargs["n"] == (int, "a count;Default: 5")
    assert kwargs["m"] == (int, "Default: 7")
    assert registry.call_tool("f", {}) == 12


def test_unannotated_parameter_is_any() -> None:
    registry = ToolRegistry()

    @registry.tool
    def f(anything, other=5):
        return anything

    kwargs = registry.get_tool_info()["f"]["kwargs"]
    assert kwargs["anything"] == (typing.Any, "")
    assert kwargs["other"] == (typing.Any, "Default: 5")
    assert "returns" not in registry.get_tool_info()["f"]
    assert registry.call_tool("f", {"anything": [1, {"a": None}]}) == [1, {"a": None}]


def test_returns_is_the_annotation() -> None:
    registry = ToolRegistry()

    @registry.tool
    def none() -> None:
        return None

    @registry.tool
    def mapping() -> dict[str, int]:
        return {}

    info = registry.get_tool_info()
    assert info["none"]["returns"] is type(None)
    assert info["mapping"]["returns"] == dict[str, int]


def test_tool_info_carries_the_json_schema() -> None:
    registry = ToolRegistry()

    @registry.tool
    def f(a: Annotated[int, "an a"], b: str = "x") -> int:
        return a

    assert registry.get_tool_info()["f"]["parameters"] == {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "an a"},
            "b": {"type": "string", "default": "x"},
        },
        "required": ["a"],
    }


def test_description_falls_back_to_function_name() -> None:
    registry = ToolRegistry()

    @registry.tool
    def undocumented(x: int) -> int:
        return x

    assert registry.get_tool_info()["undocumented"]["desc"] == "undocumented"


# --- tags ---------------------------------------------------------------------------------


@pytest.fixture
def tagged() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(tags="math")
    def add(a: int, b: int) -> int:
        return a + b

    @registry.tool(tags=["text", "math"])
    def count_chars(s: str) -> int:
        return len(s)

    @registry.tool(tags=["text"])
    def upper(s: str) -> str:
        return s.upper()

    @registry.tool
    def untagged() -> str:
        return "x"

    return registry


def test_tag_as_string_or_list(tagged: ToolRegistry) -> None:
    assert tagged.list_tools("math") == ["add", "count_chars"]
    assert tagged.list_tools(["math"]) == ["add", "count_chars"]
    assert tagged.get("add").tags == ("math",)
    assert tagged.get("count_chars").tags == ("text", "math")


def test_tag_union_is_deduplicated_in_registration_order(tagged: ToolRegistry) -> None:
    assert tagged.list_tools(["text", "math"]) == ["add", "count_chars", "upper"]
    assert list(tagged.get_tool_info(["text", "math"])) == ["add", "count_chars", "upper"]
    names = [t["name"] for t in tagged.get_tool_list(["math", "text", "math"])]
    assert names == ["add", "count_chars", "upper"]


def test_tags_none_means_all_and_empty_list_means_none(tagged: ToolRegistry) -> None:
    assert tagged.list_tools() == ["add", "count_chars", "upper", "untagged"]
    assert list(tagged.get_tool_info()) == ["add", "count_chars", "upper", "untagged"]
    assert tagged.list_tools([]) == []
    assert tagged.get_tool_info([]) == {}
    assert tagged.get_tool_list([]) == []
    assert tagged.list_tools([], match="all") == []
    assert tagged.get_openai_tools(tags=[]) == []


def test_match_all(tagged: ToolRegistry) -> None:
    assert tagged.list_tools(["text", "math"], match="all") == ["count_chars"]
    assert tagged.list_tools(["math"], match="all") == ["add", "count_chars"]
    assert tagged.list_tools(["math", "nope"], match="all") == []


def test_unknown_tag_selects_nothing(tagged: ToolRegistry) -> None:
    assert tagged.list_tools("nope") == []
    assert tagged.get_tool_info("nope") == {}


def test_exports_take_tags(tagged: ToolRegistry) -> None:
    names = [t["function"]["name"] for t in tagged.get_openai_tools(tags="text")]
    assert names == ["count_chars", "upper"]
    assert [t["name"] for t in tagged.export("anthropic", tags=["math"])] == ["add", "count_chars"]


def test_duplicate_tags_on_one_tool_are_kept_once() -> None:
    registry = ToolRegistry()

    @registry.tool(tags=["a", "b", "a"])
    def f() -> int:
        return 1

    assert registry.get("f").tags == ("a", "b")
    assert registry.list_tools(["a", "b"]) == ["f"]


def test_tag_adds_tags_later(tagged: ToolRegistry) -> None:
    tagged.tag("untagged", ["misc", "text"])
    assert tagged.list_tools("text") == ["count_chars", "upper", "untagged"]
    assert tagged.list_tools("misc") == ["untagged"]


# --- get_tool_func shifts -----------------------------------------------------------------


@pytest.fixture
def shifting() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    async def slow_double(x: int) -> int:
        await asyncio.sleep(0.01)
        return 2 * x

    @registry.tool
    def triple(x: int) -> int:
        return 3 * x

    return registry


def test_shift_none_returns_the_original(shifting: ToolRegistry) -> None:
    func = shifting.get_tool_func("slow_double")
    assert func is shifting.get("slow_double").func
    assert asyncio.iscoroutinefunction(func)
    assert shifting.get_tool_func("triple")(2) == 6


def test_unknown_name_gives_none(shifting: ToolRegistry) -> None:
    assert shifting.get_tool_func("nope") is None
    assert shifting.get_tool_func("nope", shift="sync") is None
    assert shifting.get_tool_func("nope", shift="async") is None


def test_shift_sync_of_async_tool_in_plain_code(shifting: ToolRegistry) -> None:
    func = shifting.get_tool_func("slow_double", shift="sync")
    assert not asyncio.iscoroutinefunction(func)
    assert func(4) == 8


def test_shift_sync_of_async_tool_in_a_plain_thread(shifting: ToolRegistry) -> None:
    func = shifting.get_tool_func("slow_double", shift="sync")
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(func(5)))
    thread.start()
    thread.join(10)
    assert results == [10]


async def test_shift_sync_of_async_tool_inside_a_running_loop(shifting: ToolRegistry) -> None:
    func = shifting.get_tool_func("slow_double", shift="sync")
    assert asyncio.get_running_loop().is_running()
    assert func(6) == 12


async def test_shift_async_of_sync_tool(shifting: ToolRegistry) -> None:
    func = shifting.get_tool_func("triple", shift="async")
    assert asyncio.iscoroutinefunction(func)
    assert await func(3) == 9


async def test_shift_async_of_async_and_sync_of_sync(shifting: ToolRegistry) -> None:
    assert await shifting.get_tool_func("slow_double", shift="async")(1) == 2
    assert shifting.get_tool_func("triple", shift="sync")(1) == 3


def test_bad_shift_raises(shifting: ToolRegistry) -> None:
    with pytest.raises(ValueError):
        shifting.get_tool_func("triple", shift="sideways")  # type: ignore[arg-type]


# --- call_tool / async_call_tool strings --------------------------------------------------


@pytest.fixture
def calls() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def divide(a: float, b: float) -> float:
        return a / b

    @registry.tool
    async def adivide(a: float, b: float) -> float:
        return a / b

    @registry.tool
    def boom() -> None:
        raise RuntimeError("kaboom")

    return registry


async def test_not_found_strings(calls: ToolRegistry) -> None:
    assert calls.call_tool("nope", {}) == "Can not find tool named 'nope'"
    assert await calls.async_call_tool("nope", {}) == "Can not find tool named 'nope'"


async def test_success_returns_the_value(calls: ToolRegistry) -> None:
    assert calls.call_tool("divide", {"a": 1, "b": 4}) == 0.25
    assert await calls.async_call_tool("divide", {"a": 1, "b": 4}) == 0.25
    assert calls.call_tool("adivide", {"a": 1, "b": 4}) == 0.25
    assert await calls.async_call_tool("adivide", {"a": 1, "b": 4}) == 0.25


async def test_exception_strings(calls: ToolRegistry) -> None:
    expected = "Error: " + str(ZeroDivisionError("float division by zero"))
    assert calls.call_tool("divide", {"a": 1, "b": 0}) == expected
    assert await calls.async_call_tool("divide", {"a": 1, "b": 0}) == expected
    assert calls.call_tool("adivide", {"a": 1, "b": 0}) == expected
    assert await calls.async_call_tool("adivide", {"a": 1, "b": 0}) == expected
    assert calls.call_tool("boom", {}) == "Error: kaboom"
    assert await calls.async_call_tool("boom") == "Error: kaboom"


async def test_invalid_arguments_give_an_error_string(calls: ToolRegistry) -> None:
    result = calls.call_tool("divide", {"a": "one", "b": 2})
    assert isinstance(result, str)
    assert result.startswith("Error: ")
    assert "a" in result
    assert "Traceback" not in result
    missing = await calls.async_call_tool("divide", {"a": 1})
    assert missing.startswith("Error: ")
    assert "b" in missing
    unknown = calls.call_tool("divide", {"a": 1, "b": 2, "c": 3})
    assert unknown.startswith("Error: ")
    assert "c" in unknown


def test_json_string_arguments(calls: ToolRegistry) -> None:
    assert calls.call_tool("divide", '{"a": 3, "b": "2"}') == 1.5


def test_tool_result_returned_by_a_function_is_unwrapped() -> None:
    registry = ToolRegistry()

    @registry.tool
    def good() -> ToolResult:
        return ToolResult.ok({"k": 1})

    @registry.tool
    def bad() -> ToolResult:
        return ToolResult.fail("nope")

    assert registry.call_tool("good", {}) == {"k": 1}
    assert registry.call_tool("bad", {}) == "Error: nope"


# --- the manual register ------------------------------------------------------------------


def test_manual_register_keyword_only() -> None:
    registry = ToolRegistry()

    def multiply(a, b=2):
        return a * b

    registered = registry.register(
        name="multiply",
        desc="Multiply two numbers.",
        kwargs={"a": (int, "first factor"), "b": (int, "second factor")},
        func=multiply,
        returns=int,
        tags=["math", "basic"],
    )
    assert isinstance(registered, Tool)
    assert registry.get("multiply") is registered
    info = registry.get_tool_info()["multiply"]
    assert info["name"] == "multiply"
    assert info["desc"] == "Multiply two numbers."
    # Exactly as given, as the real Agently shows a manual registration (the function's
    # default still applies when called; test_agently_differential.py compares them).
    assert info["kwargs"] == {"a": (int, "first factor"), "b": (int, "second factor")}
    assert info["returns"] is int
    assert registry.list_tools("math") == ["multiply"]
    assert registry.list_tools("basic") == ["multiply"]
    assert registry.get("multiply").tags == ("math", "basic")
    assert registry.call_tool("multiply", {"a": "3", "b": 4}) == 12
    assert registry.call_tool("multiply", {"a": 3}) == 6


def test_manual_register_without_returns_and_tags() -> None:
    registry = ToolRegistry()
    registry.register(
        name="shout",
        desc="Shout.",
        kwargs={"text": (str, "what to shout")},
        func=lambda text: text.upper(),
    )
    info = registry.get_tool_info()["shout"]
    assert "returns" not in info
    assert info["kwargs"] == {"text": (str, "what to shout")}
    assert registry.get("shout").tags == ()
    assert registry.call_tool("shout", {"text": "hey"}) == "HEY"
    assert registry.get("shout").parameters == {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "what to shout"}},
        "required": ["text"],
    }


def test_manual_register_with_async_func() -> None:
    registry = ToolRegistry()

    async def fetch(url: str) -> str:
        return "got " + url

    registry.register(name="fetch", desc="Fetch.", kwargs={"url": (str, "a URL")}, func=fetch)
    assert registry.call_tool("fetch", {"url": "x"}) == "got x"


def test_manual_register_duplicate_raises() -> None:
    registry = ToolRegistry()
    registry.register(name="x", desc="x", kwargs={}, func=lambda: 1)
    with pytest.raises(ValueError):
        registry.register(name="x", desc="x", kwargs={}, func=lambda: 2)
    assert registry.call_tool("x", {}) == 1


def test_get_tool_list() -> None:
    registry = ToolRegistry()

    @registry.tool(tags="a")
    def one(x: Annotated[int, "an x"]) -> int:
        """One."""
        return x

    @registry.tool(tags="b")
    def two() -> str:
        """Two."""
        return "2"

    tool_list = registry.get_tool_list()
    assert isinstance(tool_list, list)
    assert tool_list == list(registry.get_tool_info().values())
    assert [t["name"] for t in tool_list] == ["one", "two"]
    assert tool_list[0]["desc"] == "One."
    assert tool_list[0]["kwargs"] == {"x": (int, "an x")}
    assert [t["name"] for t in registry.get_tool_list("b")] == ["two"]
    assert registry.get_tool_list("zzz") == []


def test_reloading_a_module_of_decorated_functions_replaces_its_tools(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DESIGN.md: re-decorating the same function (same module and qualified name), as on
    ``importlib.reload``, replaces the tool instead of raising DuplicateToolError."""
    import importlib
    import sys

    source = tmp_path / "s001_reloaded_tools.py"
    source.write_text(
        "from tooldeck import tool_func\n\n"
        "@tool_func(tags=['reload'])\n"
        "def s001_reloaded() -> str:\n"
        "    return 'first'\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module = importlib.import_module("s001_reloaded_tools")
        assert ToolRegistry.call_tool("s001_reloaded") == "first"
        # a different size: the cached bytecode is stale even within one mtime second
        source.write_text(
            source.read_text(encoding="utf-8").replace("first", "second version"),
            encoding="utf-8",
        )
        importlib.invalidate_caches()
        module = importlib.reload(module)
        assert ToolRegistry.call_tool("s001_reloaded") == "second version"
        assert ToolRegistry.default().get("s001_reloaded") is module.s001_reloaded
        assert ToolRegistry.list_tools("reload") == ["s001_reloaded"]
    finally:
        sys.modules.pop("s001_reloaded_tools", None)
        if "s001_reloaded" in ToolRegistry.default():
            ToolRegistry.default().unregister("s001_reloaded")

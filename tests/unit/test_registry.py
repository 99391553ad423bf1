"""ToolRegistry: registration, duplicates, tags, enable/disable, exports, threads."""

from __future__ import annotations

import copy
import inspect
import json
import threading
from typing import Any

import pytest

from tooldeck import (
    DuplicateToolError,
    Tool,
    ToolDefinitionError,
    ToolNotFoundError,
    ToolRegistry,
    ToolResult,
)


def make(registry: ToolRegistry, name: str, tags: Any = None) -> Tool[..., Any]:
    def f(x: int = 0) -> int:
        return x

    return registry.register(f, name=name, tags=tags)


# -- registration ---------------------------------------------------------------------


def test_register_forms(registry: ToolRegistry) -> None:
    def one(a: int) -> int:
        return a

    def two(a: int) -> int:
        return a * 2

    t1 = registry.register(one)
    t2 = registry.register("double", two, description="Double it.")
    t3 = registry.register_tool(Tool(lambda a: a * 3, name="triple"))
    assert [t.name for t in registry] == ["one", "double", "triple"]
    assert registry.get("double") is t2 and t2.description == "Double it."
    assert isinstance(t1, Tool) and isinstance(t3, Tool)
    assert registry.call_tool("triple", {"a": 2}) == 6


def test_duplicate_is_a_value_error_and_replace_replaces(registry: ToolRegistry) -> None:
    make(registry, "dup")
    with pytest.raises(DuplicateToolError) as info:
        registry.register(Tool(lambda: "other", name="dup"))
    assert isinstance(info.value, ValueError) and info.value.name == "dup"
    replacement = Tool(lambda: "new", name="dup")
    registry.register(replacement, replace=True)
    assert registry.get("dup") is replacement and len(registry) == 1


def test_same_tool_object_twice_is_a_no_op(registry: ToolRegistry) -> None:
    t = make(registry, "same")
    assert registry.register(t) is t
    assert len(registry) == 1


def test_redecorating_the_same_function_replaces_it(registry: ToolRegistry) -> None:
    for value in (1, 2):

        @registry.tool
        def version() -> int:
            return value  # noqa: B023 - each definition captures its own loop value

    assert len(registry) == 1
    assert registry.call_tool("version") == 2


def test_failed_definition_stores_nothing(registry: ToolRegistry) -> None:
    def bad(*args: int) -> None: ...

    with pytest.raises(ToolDefinitionError):
        registry.register(bad)
    assert len(registry) == 0 and "bad" not in registry


def test_register_many_is_atomic(registry: ToolRegistry) -> None:
    make(registry, "taken")
    fresh = Tool(lambda: 1, name="fresh")
    clash = Tool(lambda: 2, name="taken")
    with pytest.raises(DuplicateToolError):
        registry.register_many([fresh, clash])
    assert registry.list_tools() == ["taken"]


def test_unregister_and_unknown_names(registry: ToolRegistry) -> None:
    t = make(registry, "gone", tags="t")
    assert registry.unregister("gone") is t
    assert "gone" not in registry and registry.list_tools("t") == []
    for call in (registry.unregister, registry.enable, registry.disable):
        with pytest.raises(ToolNotFoundError) as info:
            call("gone")
        assert isinstance(info.value, LookupError)
        assert str(info.value) == "Tool 'gone' is not registered"


def test_len_contains_iter_empty(registry: ToolRegistry) -> None:
    assert len(registry) == 0 and not list(registry) and "x" not in registry
    assert registry.export("openai") == [] and registry.list_tools() == []
    make(registry, "x")
    assert len(registry) == 1 and "x" in registry and [t.name for t in registry] == ["x"]
    assert ["unhashable"] not in registry  # type: ignore[comparison-overlap]


# -- tags -------------------------------------------------------------------------------


@pytest.fixture
def tagged(registry: ToolRegistry) -> ToolRegistry:
    make(registry, "a", ["math", "fast"])
    make(registry, "b", "io")
    make(registry, "c", ["math", "io"])
    make(registry, "d")
    return registry


def test_tag_queries(tagged: ToolRegistry) -> None:
    assert tagged.list_tools() == ["a", "b", "c", "d"]
    assert tagged.list_tools("math") == ["a", "c"]
    assert tagged.list_tools(["io", "math"]) == ["a", "b", "c"]  # union, registration order
    assert tagged.list_tools(["math", "math"]) == ["a", "c"]  # each once
    assert tagged.list_tools([]) == []
    assert tagged.list_tools([], match="all") == []
    assert tagged.list_tools(["math", "io"], match="all") == ["c"]
    assert tagged.list_tools("nothing") == []
    with pytest.raises(ValueError, match="match"):
        tagged.list_tools("math", match="some")  # type: ignore[arg-type]


# Methods whose `tags` are tags to add, not a selection of tools.
_TAGS_TO_ADD = {"tool", "tool_func", "register", "tag", "use_mcp", "async_use_mcp"}


def test_every_method_that_selects_by_tags_takes_match() -> None:
    """DESIGN: every method that takes `tags` (listings, exports...) takes `match`."""
    selecting = [
        name
        for name, member in inspect.getmembers(ToolRegistry(), inspect.ismethod)
        if not name.startswith("_")
        and name not in _TAGS_TO_ADD
        and "tags" in inspect.signature(member).parameters
    ]
    assert {"list_tools", "export", "get_openai_tools", "get_declarations"} <= set(selecting)
    for name in selecting:
        assert "match" in inspect.signature(getattr(ToolRegistry(), name)).parameters, name


def test_match_all_on_the_seed_export_names(tagged: ToolRegistry) -> None:
    names = [t["function"]["name"] for t in tagged.get_openai_tools(["math", "io"], match="all")]
    assert names == ["c"]
    declared = [d["name"] for d in tagged.get_declarations(["math", "fast"], match="all")]
    assert declared == ["a"]
    assert [t["function"]["name"] for t in tagged.get_openai_tools("math")] == ["a", "c"]


def test_tag_is_atomic_and_updates_index_and_exports(tagged: ToolRegistry) -> None:
    before = tagged.export("mcp", tags="new")
    assert before == []
    with pytest.raises(ToolNotFoundError):
        tagged.tag(["d", "missing"], "new")
    assert tagged.list_tools("new") == []
    tagged.tag(["d", "b"], ["new"])
    assert tagged.list_tools("new") == ["b", "d"]
    assert tagged.get("d").tags == ("new",)  # type: ignore[union-attr]
    assert [e["name"] for e in tagged.export("openai-responses", tags="new")] == ["b", "d"]


def test_disabled_tools_are_registered_but_unlisted(tagged: ToolRegistry) -> None:
    tagged.disable("a")
    assert "a" in tagged and len(tagged) == 4 and tagged.get("a") is not None
    assert tagged.list_tools() == ["b", "c", "d"]
    assert tagged.list_tools("math") == ["c"]
    assert [e["function"]["name"] for e in tagged.get_openai_tools()] == ["b", "c", "d"]
    assert "a" not in tagged.get_tool_info()
    assert tagged.call_tool("a", {"x": 1}) == "Error: Tool 'a' is disabled"
    tagged.enable("a")
    assert tagged.list_tools("math") == ["a", "c"]
    assert tagged.call_tool("a", {"x": 1}) == 1


# -- calls by name ----------------------------------------------------------------------


async def test_call_faces_by_name(registry: ToolRegistry) -> None:
    make(registry, "echo")
    assert registry.call_tool("echo", {"x": "5"}) == 5
    assert await registry.async_call_tool("echo", '{"x": 6}') == 6
    assert await registry.execute("echo", {"x": 7}) == ToolResult.ok(7)
    assert registry.execute_sync("echo") == ToolResult.ok(0)
    assert registry.call_tool("nope", {}) == "Can not find tool named 'nope'"
    assert await registry.async_call_tool("nope") == "Can not find tool named 'nope'"
    assert await registry.execute("nope", {}) == ToolResult.fail("Tool 'nope' not found")
    assert registry.call_tool(["odd"], {}).startswith("Can not find tool named")  # type: ignore[arg-type]


def test_hostile_names_are_clipped_in_messages(registry: ToolRegistry) -> None:
    text = registry.call_tool("x" * 10_000 + "\x00\n", {})
    assert text.startswith("Can not find tool named 'xxx") and len(text) < 120
    assert "\n" not in text and "\x00" not in text


# -- exports ----------------------------------------------------------------------------


def test_export_shapes_and_cache_isolation(registry: ToolRegistry) -> None:
    make(registry, "e")
    openai = registry.get_openai_tools()
    assert openai == [
        {
            "type": "function",
            "function": {
                "name": "e",
                "description": "e",
                "parameters": {
                    "type": "object",
                    "properties": {"x": {"type": "integer", "default": 0}},
                },
            },
        }
    ]
    with pytest.raises(TypeError, match="read-only"):
        openai[0]["function"]["name"] = "mutated"  # shared definitions refuse changes
    copied = copy.deepcopy(openai[0])
    copied["function"]["name"] = "mutated"  # a deep copy is plain and mutable
    openai.append(copied)  # the list itself is the caller's own
    assert registry.get_openai_tools()[0]["function"]["name"] == "e"
    assert len(registry.get_openai_tools()) == 1
    assert json.loads(json.dumps(openai[0])) == openai[0]
    assert registry.get_declarations()[0]["input_schema"] == registry.get("e").parameters  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="unknown export format"):
        registry.export("yaml")


def test_export_cache_invalidated_by_changes(registry: ToolRegistry) -> None:
    make(registry, "first")
    assert [e["name"] for e in registry.export("anthropic")] == ["first"]
    make(registry, "second")
    assert [e["name"] for e in registry.export("anthropic")] == ["first", "second"]
    registry.disable("first")
    assert [e["name"] for e in registry.export("anthropic")] == ["second"]
    registry.unregister("second")
    assert registry.export("anthropic") == []


# -- the default registry -----------------------------------------------------------------


def test_class_level_calls_act_on_the_default_registry() -> None:
    default = ToolRegistry.default()
    assert ToolRegistry.default() is default
    isolated = ToolRegistry()

    @ToolRegistry.tool(name="reg_default_probe")
    def probe(x: int) -> int:
        return x + 1

    try:
        assert "reg_default_probe" in default and "reg_default_probe" not in isolated
        assert ToolRegistry.call_tool("reg_default_probe", {"x": 1}) == 2
        assert "reg_default_probe" in ToolRegistry.list_tools()
    finally:
        ToolRegistry.unregister("reg_default_probe")
    assert "reg_default_probe" not in default


# -- threads ----------------------------------------------------------------------------


def test_concurrent_register_unregister_and_call_lose_nothing(registry: ToolRegistry) -> None:
    make(registry, "stable", "keep")
    errors: list[BaseException] = []
    stop = threading.Event()

    def churn(worker: int) -> None:
        try:
            for i in range(200):
                name = f"w{worker}_{i}"
                make(registry, name, ["churn", f"w{worker}"])
                assert registry.call_tool(name, {"x": i}) == i
                if i % 2:
                    registry.unregister(name)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def call() -> None:
        while not stop.is_set():
            assert registry.call_tool("stable", {"x": 3}) == 3
            registry.list_tools("churn")
            registry.export("openai", tags="keep")

    callers = [threading.Thread(target=call) for _ in range(2)]
    workers = [threading.Thread(target=churn, args=(w,)) for w in range(4)]
    for t in callers + workers:
        t.start()
    for t in workers:
        t.join()
    stop.set()
    for t in callers:
        t.join()
    assert not errors
    names = set(registry.list_tools())
    expected = {"stable"} | {f"w{w}_{i}" for w in range(4) for i in range(0, 200, 2)}
    assert names == expected
    assert set(registry.list_tools("churn")) == expected - {"stable"}
    for t in registry:  # every tool still has its schema and answers
        assert t.parameters["type"] == "object"

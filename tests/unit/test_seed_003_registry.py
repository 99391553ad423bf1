"""Seed 003 (a Rust ``FunctionRegistry`` plan): its runtime guarantees — no duplicate
names, atomic registration (a tool is never stored without its declaration, nor
half-registered), declarations that match the registered tools, ``len`` / ``contains`` /
empty, and execution by name with JSON arguments."""

from __future__ import annotations

import itertools
import threading
from typing import Annotated, Any

import pytest

from tooldeck import (
    DuplicateToolError,
    Tool,
    ToolDefinitionError,
    ToolNotFoundError,
    ToolRegistry,
    ToolResult,
)


def make_tool(name: str, value: Any = None) -> Tool[..., Any]:
    """A new tool named ``name`` answering ``value`` (or its argument ``x``).

    Each call compiles a function of its own (a distinct ``__qualname__``): two tools
    from a factory closure would share module and qualified name, which DESIGN.md
    treats as the same function decorated again (a replacement, not a clash).
    """
    made = next(_made)  # threads call this concurrently: no read-modify-write race
    namespace: dict[str, Any] = {"value": value}
    exec(
        f"def func_{made}(x: int = 0):\n    return value if value is not None else x\n",
        namespace,
    )
    func = namespace[f"func_{made}"]
    func.__module__ = __name__
    return Tool(func, name=name, description=f"the {name} tool")


_made = itertools.count(1)


class Opaque:
    """A plain class: pydantic has no schema for it."""


# --- duplicates ---------------------------------------------------------------------------


def test_duplicate_tool_error_is_a_value_error() -> None:
    assert issubclass(DuplicateToolError, ValueError)


def test_duplicate_name_raises_and_keeps_the_first() -> None:
    registry = ToolRegistry()
    registry.register(make_tool("calculator", "first"))
    with pytest.raises(DuplicateToolError) as info:
        registry.register(make_tool("calculator", "second"))
    assert info.value.name == "calculator"
    assert "calculator" in str(info.value)
    assert registry.call_tool("calculator", {}) == "first"
    assert len(registry) == 1


def test_duplicate_from_two_different_functions() -> None:
    registry = ToolRegistry()

    @registry.tool(name="calc")
    def one() -> int:
        return 1

    def two() -> int:
        return 2

    with pytest.raises(DuplicateToolError):
        registry.register(two, name="calc")
    assert registry.call_tool("calc") == 1


def test_duplicate_with_register_tool() -> None:
    registry = ToolRegistry()
    registry.register_tool(make_tool("t", "a"))
    with pytest.raises(ValueError):
        registry.register_tool(make_tool("t", "b"))
    registry.register_tool(make_tool("t", "c"), replace=True)
    assert registry.call_tool("t") == "c"


def test_duplicate_lambdas_collide() -> None:
    registry = ToolRegistry()
    registry.register(lambda: 1, name="lam")
    with pytest.raises(DuplicateToolError):
        registry.register(lambda: 2, name="lam")
    assert registry.call_tool("lam") == 1


def test_same_tool_object_in_two_registries() -> None:
    shared = make_tool("shared", "s")
    first, second = ToolRegistry(), ToolRegistry()
    first.register(shared)
    second.register(shared)
    assert first.get("shared") is second.get("shared") is shared


# --- atomicity ----------------------------------------------------------------------------


def test_failing_definition_stores_nothing() -> None:
    registry = ToolRegistry()

    def bad(*args: int) -> int:
        return 0

    with pytest.raises(ToolDefinitionError):
        registry.register(bad)
    assert "bad" not in registry
    assert len(registry) == 0
    assert registry.get_declarations() == []

    with pytest.raises(ToolDefinitionError):

        @registry.tool(tags=["t"])
        def worse(x: Opaque) -> int:  # a type pydantic cannot build a schema for
            return 0

    assert "worse" not in registry
    assert registry.list_tools("t") == []
    assert registry.get_tool_info() == {}


def test_failing_manual_tags_store_nothing() -> None:
    """A bad tag in the manual form must not leave the tool half-registered."""
    registry = ToolRegistry()
    with pytest.raises(ToolDefinitionError):
        registry.register(
            name="m", desc="m", kwargs={"x": (int, "x")}, func=lambda x: x, tags=["ok", ""]
        )
    assert "m" not in registry
    assert len(registry) == 0


def test_failing_tags_on_a_ready_tool_store_nothing() -> None:
    registry = ToolRegistry()
    with pytest.raises(ToolDefinitionError):
        registry.register(make_tool("t"), tags=[""])
    assert "t" not in registry
    assert len(registry) == 0


def test_register_many_with_one_clash_stores_none() -> None:
    registry = ToolRegistry()
    registry.register(make_tool("b", "old"))
    with pytest.raises(DuplicateToolError):
        registry.register_many([make_tool("a"), make_tool("b", "new"), make_tool("c")])
    assert registry.list_tools() == ["b"]
    assert len(registry) == 1
    assert registry.call_tool("b") == "old"
    assert [d["name"] for d in registry.get_declarations()] == ["b"]


def test_register_many_with_a_clash_inside_the_batch_stores_none() -> None:
    registry = ToolRegistry()
    with pytest.raises(DuplicateToolError):
        registry.register_many([make_tool("a", 1), make_tool("a", 2)])
    assert len(registry) == 0


def test_register_many_stores_all() -> None:
    registry = ToolRegistry()
    registry.register_many([make_tool("a"), make_tool("b"), make_tool("c")])
    assert registry.list_tools() == ["a", "b", "c"]


def test_tag_is_atomic() -> None:
    registry = ToolRegistry()
    registry.register(make_tool("a"))
    with pytest.raises(ToolNotFoundError):
        registry.tag(["a", "missing"], "new")
    assert registry.get("a").tags == ()
    assert registry.list_tools("new") == []


def test_developer_calls_on_unknown_names_raise_lookup_error() -> None:
    registry = ToolRegistry()
    for call in (registry.unregister, registry.enable, registry.disable):
        with pytest.raises(LookupError):
            call("missing")


def test_concurrent_registration_loses_nothing() -> None:
    registry = ToolRegistry()
    registry.register(make_tool("base", "b"))
    errors: list[BaseException] = []
    answers: list[Any] = []

    def register(start: int) -> None:
        try:
            for i in range(start, start + 50):
                registry.register(make_tool(f"t{i}", i))
        except BaseException as exc:
            errors.append(exc)

    def call() -> None:
        for _ in range(200):
            answers.append(registry.call_tool("base"))

    threads = [threading.Thread(target=register, args=(k * 50,)) for k in range(4)]
    threads += [threading.Thread(target=call) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert len(registry) == 201
    assert set(answers) == {"b"}
    assert {d["name"] for d in registry.get_declarations()} == set(registry.list_tools())


def test_concurrent_register_unregister_and_calls_never_raise() -> None:
    registry = ToolRegistry()
    names = [f"flip{i}" for i in range(4)]
    tools = {name: make_tool(name, name.upper()) for name in names}
    errors: list[BaseException] = []
    answers: set[Any] = set()
    stop = threading.Event()

    def flip(name: str) -> None:
        try:
            for _ in range(200):
                registry.register(tools[name])
                registry.unregister(name)
        except BaseException as exc:
            errors.append(exc)

    def call() -> None:
        try:
            while not stop.is_set():
                for name in names:
                    answers.add(registry.call_tool(name, {}))
                    registry.get_declarations()
                    registry.list_tools()
        except BaseException as exc:
            errors.append(exc)

    callers = [threading.Thread(target=call) for _ in range(3)]
    flippers = [threading.Thread(target=flip, args=(name,)) for name in names]
    for thread in callers + flippers:
        thread.start()
    for thread in flippers:
        thread.join(60)
    stop.set()
    for thread in callers:
        thread.join(60)
    assert errors == []
    allowed = {name.upper() for name in names} | {
        f"Can not find tool named '{name}'" for name in names
    }
    assert answers <= allowed
    assert len(registry) == 0


# --- declarations match the registered tools ----------------------------------------------


def test_declarations_match_registered_tools() -> None:
    registry = ToolRegistry()

    @registry.tool
    def calculator(a: Annotated[int, "left"], b: Annotated[int, "right"]) -> int:
        """Perform basic arithmetic operations."""
        return a + b

    @registry.tool
    async def fetch(url: str) -> str:
        """Fetch a page."""
        return url

    registry.register(make_tool("third"))

    declarations = registry.get_declarations()
    assert [d["name"] for d in declarations] == registry.list_tools()
    assert [d["name"] for d in declarations] == ["calculator", "fetch", "third"]
    for declaration in declarations:
        assert set(declaration) == {"name", "description", "input_schema"}
        tool = registry.get(declaration["name"])
        assert declaration["description"] == tool.description
        assert declaration["input_schema"] == tool.parameters
    assert declarations[0] == {
        "name": "calculator",
        "description": "Perform basic arithmetic operations.",
        "input_schema": {
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "left"},
                "b": {"type": "integer", "description": "right"},
            },
            "required": ["a", "b"],
        },
    }


def test_declarations_follow_unregister_and_replace() -> None:
    registry = ToolRegistry()
    registry.register_many([make_tool("a"), make_tool("b")])
    assert [d["name"] for d in registry.get_declarations()] == ["a", "b"]
    registry.unregister("a")
    assert [d["name"] for d in registry.get_declarations()] == ["b"]

    def b(y: str) -> str:
        """New b."""
        return y

    registry.register(b, replace=True)
    (declaration,) = registry.get_declarations()
    assert declaration["description"] == "New b."
    assert list(declaration["input_schema"]["properties"]) == ["y"]


def test_declarations_leave_out_disabled_tools() -> None:
    registry = ToolRegistry()
    registry.register_many([make_tool("a"), make_tool("b")])
    registry.disable("a")
    assert [d["name"] for d in registry.get_declarations()] == ["b"]
    assert registry.list_tools() == ["b"]
    registry.enable("a")
    assert [d["name"] for d in registry.get_declarations()] == ["a", "b"]


def test_declarations_of_empty_registry() -> None:
    assert ToolRegistry().get_declarations() == []


# --- len / contains / empty ---------------------------------------------------------------


def test_len_contains_empty() -> None:
    registry = ToolRegistry()
    assert len(registry) == 0
    assert not registry
    assert "a" not in registry
    registry.register(make_tool("a"))
    assert len(registry) == 1
    assert registry
    assert "a" in registry
    assert "b" not in registry
    registry.register(make_tool("b"))
    assert len(registry) == 2
    assert [t.name for t in registry] == ["a", "b"]
    registry.unregister("a")
    assert "a" not in registry
    assert len(registry) == 1


def test_the_class_as_the_default_registry_has_len_contains_iteration() -> None:
    """DESIGN.md: the class itself is usable as the default registry."""
    made = make_tool("s003_class_level")
    ToolRegistry.register_tool(made)
    try:
        assert "s003_class_level" in ToolRegistry
        assert len(ToolRegistry) == len(ToolRegistry.default())
        assert made in list(ToolRegistry)
    finally:
        ToolRegistry.unregister("s003_class_level")
    assert "s003_class_level" not in ToolRegistry.default()


def test_disabled_tool_is_still_contained() -> None:
    registry = ToolRegistry()
    registry.register(make_tool("a"))
    registry.disable("a")
    assert "a" in registry
    assert len(registry) == 1
    assert registry.get("a") is not None
    assert [t.name for t in registry] == ["a"]
    assert registry.list_tools() == []


def test_contains_unhashable_is_false() -> None:
    registry = ToolRegistry()
    registry.register(make_tool("a"))
    assert ["a"] not in registry
    assert registry.get(["a"]) is None  # type: ignore[arg-type]


# --- execute by name with JSON arguments --------------------------------------------------


@pytest.fixture
def calculator() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def calculator(operation: str, a: float, b: float) -> float:
        """Perform basic arithmetic operations."""
        if operation == "add":
            return a + b
        if operation == "divide":
            return a / b
        raise ValueError(f"unknown operation {operation!r}")

    return registry


async def test_execute_with_json_string(calculator: ToolRegistry) -> None:
    result = await calculator.execute("calculator", '{"operation": "add", "a": 2, "b": 3.5}')
    assert result == ToolResult.ok(5.5)
    assert calculator.execute_sync("calculator", b'{"operation": "add", "a": 1, "b": 1}') == (
        ToolResult.ok(2.0)
    )
    assert calculator.call_tool("calculator", '{"operation": "add", "a": 1, "b": 2}') == 3.0
    assert (
        await calculator.async_call_tool("calculator", '{"operation": "add", "a": 1, "b": 2}')
        == 3.0
    )


async def test_execute_with_bad_json(calculator: ToolRegistry) -> None:
    result = await calculator.execute("calculator", '{"operation": "add", "a": 2')
    assert result.success is False
    assert result.error
    assert calculator.call_tool("calculator", "not json").startswith("Error: ")


async def test_execute_with_json_that_is_not_an_object(calculator: ToolRegistry) -> None:
    for text in ("[1, 2, 3]", "42", '"add"', "null"):
        result = await calculator.execute("calculator", text)
        assert result.success is False, text


async def test_execute_unknown_and_failing(calculator: ToolRegistry) -> None:
    assert await calculator.execute("nope", "{}") == ToolResult.fail("Tool 'nope' not found")
    failed = await calculator.execute("calculator", '{"operation": "pow", "a": 1, "b": 2}')
    assert failed == ToolResult.fail("unknown operation 'pow'")
    zero = await calculator.execute("calculator", '{"operation": "divide", "a": 1, "b": 0}')
    assert zero.success is False
    assert "division" in zero.error

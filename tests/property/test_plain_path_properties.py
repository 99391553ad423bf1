"""The plain paths answer exactly as the general pipeline does, for any arguments.

A plain tool's calls are validated and made inline (in `Tool.call` and in the
registry's faces, `tooldeck._named_calls`); everything else takes the general pipeline
(`_prepare` → the runners). The inline copies must not drift from it: for arbitrary
arguments — valid, invalid, JSON text, junk — every face gives what the general path
gives, for a tool with and without injected parameters.
"""

from __future__ import annotations

import asyncio
import json
from types import MappingProxyType
from typing import Annotated, Any, Literal

from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import Injected, Tool, ToolRegistry, ToolResult


def search(
    query: str,
    limit: int = 10,
    mode: Literal["fast", "deep"] = "fast",
    langs: list[str] | None = None,
) -> str:
    if query == "boom":
        raise ValueError("the index is down")
    return f"{query}|{limit}|{mode}|{langs}"


def scoped(query: str, user: Annotated[str, Injected], limit: int = 3) -> str:
    if query == "boom":
        raise ValueError("the index is down")
    return f"{user}:{query}|{limit}"


def scoped_many(
    query: str,
    user: Annotated[str, Injected],
    org: Annotated[str, Injected("tenant")] = "none",
    limit: int = 3,
) -> str:
    if query == "boom":
        raise ValueError("the index is down")
    return f"{user}@{org}:{query}|{limit}"


async def asearch(query: str, limit: int = 10) -> str:
    if query == "boom":
        raise ValueError("the index is down")
    return f"{query}|{limit}"


async def ascoped(query: str, user: Annotated[str, Injected]) -> str:
    return await asearch(f"{user}:{query}" if query != "boom" else query)


async def ascoped_many(
    query: str, user: Annotated[str, Injected], org: Annotated[str, Injected("tenant")] = "none"
) -> str:
    return await asearch(f"{user}@{org}:{query}" if query != "boom" else query)


REGISTRY = ToolRegistry()
for func in (search, scoped, scoped_many, asearch, ascoped, ascoped_many):
    REGISTRY.register(func)
SYNC_NAMES = ["search", "scoped", "scoped_many"]
ASYNC_NAMES = ["asearch", "ascoped", "ascoped_many", "scoped", "scoped_many"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["fast", "deep", "boom", "q", "", "12"]),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=5)
keys = st.sampled_from(["query", "limit", "mode", "langs", "user", "extra"])
argument_dicts = st.dictionaries(keys, values, max_size=5)
arguments = st.one_of(
    argument_dicts,
    argument_dicts.map(json.dumps),
    st.sampled_from([None, "", "  ", "[1]", "{", "null", '{"query": "q"}']),
)
CONTEXT = {"user": "ann", "other": 1}
# Contexts with some of the keys the tools read (a missing one: a default, or a failure).
contexts = st.one_of(
    st.just(CONTEXT),
    st.dictionaries(st.sampled_from(["user", "tenant", "other"]), st.sampled_from(["bob", 7])),
)


def _general(tool: Tool[..., Any], args: Any, context: Any) -> Any:
    """The general pipeline: a context that is not a plain dict takes it."""
    return tool.call(args, context=MappingProxyType(context))


def _result_view(result: ToolResult) -> tuple[bool, Any, str | None]:
    return result.success, result.data, result.error


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(SYNC_NAMES), args=arguments, context=contexts)
def test_sync_faces_answer_as_the_general_pipeline(
    name: str, args: Any, context: dict[str, Any]
) -> None:
    tool = REGISTRY.get(name)
    assert tool is not None
    expected = _general(tool, args, context)
    assert tool.call(args, context=context) == expected
    assert REGISTRY.call_tool(name, args, context=context) == expected
    run = tool.run_sync(args, context=context)
    assert REGISTRY.call_tool(name, args, context=context) == (
        run.data if run.success else f"Error: {run.error}"
    )
    assert _result_view(REGISTRY.execute_sync(name, args, context=context)) == _result_view(run)


@settings(max_examples=100, deadline=None)
@given(name=st.sampled_from(ASYNC_NAMES), args=arguments, context=contexts)
def test_async_faces_answer_as_the_general_pipeline(
    name: str, args: Any, context: dict[str, Any]
) -> None:
    tool = REGISTRY.get(name)
    assert tool is not None

    async def faces() -> None:
        expected = await tool.acall(args, context=MappingProxyType(context))
        assert await tool.acall(args, context=context) == expected
        assert await REGISTRY.async_call_tool(name, args, context=context) == expected
        run = await tool.run(args, context=context)
        assert (run.data if run.success else f"Error: {run.error}") == expected
        executed = await REGISTRY.execute(name, args, context=context)
        assert _result_view(executed) == _result_view(run)

    asyncio.run(faces())


def test_a_missing_context_key_is_the_same_failure_on_every_face() -> None:
    tool = REGISTRY.get("scoped")
    assert tool is not None
    expected = "Error: Tool 'scoped' needs context value 'user'"
    assert tool.call({"query": "q"}, context={"other": 1}) == expected
    assert REGISTRY.call_tool("scoped", {"query": "q"}, context={}) == expected
    assert REGISTRY.call_tool("scoped", {"query": "q"}) == expected
    assert str(REGISTRY.execute_sync("scoped", {"query": "q"}, context={})) == expected
    many = "Error: Tool 'ascoped_many' needs context value 'user'"
    assert REGISTRY.call_tool("ascoped_many", {"query": "q"}, context={"tenant": "t"}) == many
    assert asyncio.run(REGISTRY.async_call_tool("ascoped_many", {"query": "q"}, context={})) == many


def test_every_injected_value_reaches_the_tool_on_every_face() -> None:
    """Tools with one and with two injected parameters, every face, sync and async."""
    context = {"user": "ann", "tenant": "acme"}
    args = {"query": "q"}
    for name, expected in (
        ("scoped", "ann:q|3"),
        ("scoped_many", "ann@acme:q|3"),
        ("ascoped", "ann:q|10"),
        ("ascoped_many", "ann@acme:q|10"),
    ):
        tool = REGISTRY.get(name)
        assert tool is not None
        assert REGISTRY.call_tool(name, args, context=context) == expected
        assert REGISTRY.execute_sync(name, args, context=context).data == expected
        assert tool.call(args, context=context) == expected
        assert tool.run_sync(json.dumps(args), context=context).data == expected

        async def faces(name: str = name, tool: Tool[..., Any] = tool) -> list[Any]:
            return [
                await REGISTRY.async_call_tool(name, args, context=context),
                (await REGISTRY.execute(name, args, context=context)).data,
                await tool.acall(args, context=context),
                (await tool.run(args, context=context)).data,
            ]

        assert asyncio.run(faces()) == [expected] * 4


class Audited(Tool[..., Any]):
    """A subclass with a face of its own: the registry must call through it."""

    calls = 0

    def call(self, arguments: Any = None, /, *, context: Any = None, **kwargs: Any) -> Any:
        Audited.calls += 1
        return super().call(arguments, context=context, **kwargs)


def test_a_subclass_face_is_never_bypassed() -> None:
    registry = ToolRegistry()
    registry.register(Audited(search))
    assert registry.call_tool("search", {"query": "q"}) == "q|10|fast|None"
    assert Audited.calls == 1

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


async def asearch(query: str, limit: int = 10) -> str:
    if query == "boom":
        raise ValueError("the index is down")
    return f"{query}|{limit}"


REGISTRY = ToolRegistry()
for func in (search, scoped, asearch):
    REGISTRY.register(func)

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


def _general(tool: Tool[..., Any], args: Any, context: Any) -> Any:
    """The general pipeline: a context that is not a plain dict takes it."""
    return tool.call(args, context=MappingProxyType(context))


def _result_view(result: ToolResult) -> tuple[bool, Any, str | None]:
    return result.success, result.data, result.error


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(["search", "scoped"]), args=arguments)
def test_sync_faces_answer_as_the_general_pipeline(name: str, args: Any) -> None:
    tool = REGISTRY.get(name)
    assert tool is not None
    expected = _general(tool, args, CONTEXT)
    assert tool.call(args, context=CONTEXT) == expected
    assert REGISTRY.call_tool(name, args, context=CONTEXT) == expected
    run = tool.run_sync(args, context=CONTEXT)
    assert REGISTRY.call_tool(name, args, context=CONTEXT) == (
        run.data if run.success else f"Error: {run.error}"
    )
    assert _result_view(REGISTRY.execute_sync(name, args, context=CONTEXT)) == _result_view(run)


@settings(max_examples=100, deadline=None)
@given(name=st.sampled_from(["asearch", "scoped"]), args=arguments)
def test_async_faces_answer_as_the_general_pipeline(name: str, args: Any) -> None:
    tool = REGISTRY.get(name)
    assert tool is not None

    async def faces() -> None:
        expected = await tool.acall(args, context=MappingProxyType(CONTEXT))
        assert await tool.acall(args, context=CONTEXT) == expected
        assert await REGISTRY.async_call_tool(name, args, context=CONTEXT) == expected
        run = await tool.run(args, context=CONTEXT)
        assert (run.data if run.success else f"Error: {run.error}") == expected
        executed = await REGISTRY.execute(name, args, context=CONTEXT)
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

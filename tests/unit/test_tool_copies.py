"""Copying and pickling a tool: an independent tool that validates and calls as before.

A tool's validator does not keep the core schema it was built from (tooldeck empties
it: most of what a tool would otherwise hold), so these pin that nothing is lost with
it: a pickled spec rebuilds its validators, a copied tool shares them.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import pickle
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel

import tooldeck
from tooldeck import Injected, Tool, ToolRegistry


def search(
    query: Annotated[str, "what to look for"],
    mode: Literal["fast", "deep"] = "fast",
    langs: list[str] | None = None,
) -> str:
    """Search the index."""
    return f"{query}:{mode}:{langs}"


async def fetch(url: str, user: Annotated[str, Injected]) -> str:
    return f"{user}@{url}"


@tooldeck.tool(tags=["math"])
def double(x: int) -> int:
    return 2 * x


class Point(BaseModel):
    x: int
    y: int


def place(point: Point, label: str = "p") -> str:
    return f"{label}{point.x},{point.y}"


def _round_trips(tool: Tool) -> list[Tool]:
    return [pickle.loads(pickle.dumps(tool)), copy.deepcopy(tool), copy.copy(tool)]


@pytest.mark.parametrize("func", [search, place])
def test_a_copy_validates_and_calls_like_the_original(func: object) -> None:
    tool = Tool(func, tags=["a"], timeout=5)
    args = (
        {"query": "q", "mode": "deep"}
        if func is search
        else {"point": {"x": 1, "y": "2"}, "label": "L"}
    )
    tool.call(args)  # runners, caches: built before copying, rebuilt after
    tool.export("openai")
    for copied in _round_trips(tool):
        assert copied is not tool
        assert copied.call(args) == tool.call(args)
        assert copied.call({"nope": 1}) == tool.call({"nope": 1})
        assert copied.call('{"query": 1}') == tool.call('{"query": 1}')
        assert copied.export("openai") == tool.export("openai")
        assert (copied.tags, copied.timeout, copied.enabled) == (("a",), 5, True)


def test_a_pickled_spec_rebuilds_its_validators() -> None:
    spec = Tool(search).spec
    copied = pickle.loads(pickle.dumps(spec))
    assert copied.validate_python({"query": "q"}) == spec.validate_python({"query": "q"})
    assert copied.validate_json('{"query": "q", "mode": null}') == {
        "query": "q",
        "mode": "fast",
        "langs": None,
    }
    assert (copied.name, copied.parameters, copied.params) == (
        spec.name,
        spec.parameters,
        spec.params,
    )


def test_a_deep_copy_is_independent_but_shares_the_compiled_validators() -> None:
    tool = Tool(search, tags=["a"])
    copied = copy.deepcopy(tool)
    copied.spec.parameters["properties"]["query"]["description"] = "changed"
    assert tool.spec.parameters["properties"]["query"]["description"] == "what to look for"
    assert copied.spec.validate_python is tool.spec.validate_python


def test_a_copy_keeps_its_settings_and_its_own_state() -> None:
    tool = Tool(search, enabled=False)
    tool.max_argument_bytes = 10
    for copied in _round_trips(tool):
        assert copied.call({"query": "q"}) == "Error: Tool 'search' is disabled"
        assert copied.max_argument_bytes == 10
    registry = ToolRegistry()
    registry.register(tool)
    registry.enable("search")
    copied = copy.deepcopy(registry.get("search"))
    assert copied.call('{"query": "a long query"}').startswith("Error: ")  # 10 bytes
    assert copied.call({"query": "q"}) == "q:fast:None"


async def test_an_async_tool_with_injected_parameters_stays_one() -> None:
    tool = Tool(fetch)
    for copied in _round_trips(tool):
        assert inspect.iscoroutinefunction(copied) == inspect.iscoroutinefunction(tool)
        assert asyncio.iscoroutinefunction(copied)
        assert await copied.acall({"url": "x"}, context={"user": "ann"}) == "ann@x"
        assert await copied.acall({"url": "x", "user": "eve"}, context={"user": "ann"}) == (
            await tool.acall({"url": "x", "user": "eve"}, context={"user": "ann"})
        )
        assert "user" not in copied.export("openai")["function"]["parameters"]["properties"]


def test_a_decorated_tool_pickles_as_its_module_attribute() -> None:
    assert pickle.loads(pickle.dumps(double)) is double
    copied = copy.deepcopy(double)  # a deep copy is still a tool of its own
    assert copied is not double and copied.call({"x": 2}) == 4 and copied.tags == ("math",)

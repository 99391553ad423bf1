"""A failed call keeps its exception for logs, not the input values behind it.

A pydantic ``ValidationError`` holds every value it refused (and a line error per
problem); kept whole on each failed ``ToolResult`` of a turn, a reply of many bad calls
with big arguments pinned many times its own size until the turn ended. A failed result
keeps the text and a light exception: the first problems, no input values.
"""

from __future__ import annotations

import gc
import json
import tracemalloc
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tooldeck import BaseTool, ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(120)

CALLS = 16


def big_reply(arguments: dict[str, Any]) -> str:
    calls = [
        {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "count", "arguments": json.dumps(arguments)},
        }
        for i in range(CALLS)
    ]
    return json.dumps({"role": "assistant", "content": None, "tool_calls": calls})


class JsonCount(BaseTool):
    name = "count"
    description = "Count (JSON Schema)."
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }

    async def execute(self, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(kwargs["n"])


def registry_of(kind: str) -> ToolRegistry:
    registry = ToolRegistry()
    if kind == "schema":
        registry.register(JsonCount())
    else:

        @registry.tool
        def count(n: int) -> int:
            return n

    return registry


# A big value where a small one belongs: parsed, it is many Python objects (distinct
# strings), several times the size of its JSON text.
BIG = {"n": {f"k{i}": [f"v{i}-{j}" for j in range(4)] for i in range(1_000)}}


@pytest.mark.parametrize("kind", ["signature", "schema"])
@pytest.mark.parametrize("face", ["sync", "async"])
def test_bad_calls_with_big_arguments_pin_no_copies_of_them(kind: str, face: str) -> None:
    import asyncio

    registry = registry_of(kind)
    reply = json.loads(big_reply(BIG))
    size = len(json.dumps(reply))
    gc.collect()
    tracemalloc.start()
    try:
        if face == "sync":
            answers = registry.run_tool_calls(reply)
        else:
            answers = asyncio.run(registry.async_run_tool_calls(reply))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(answers) == CALLS
    assert all(
        a["content"].startswith("Error: Invalid arguments for tool 'count'") for a in answers
    )
    # Kept whole, 16 parsed copies of the arguments (each several times its JSON text)
    # would be many times the reply; one call's parse at a time is a fraction of it.
    assert peak < 3 * size, (peak, size)


def test_a_failed_result_keeps_a_light_validation_error() -> None:
    registry = registry_of("signature")
    bad = {"n": ["x" * 1000] * 50}
    for result in (
        registry.execute_sync("count", bad),
        registry.execute_sync("count", json.dumps(bad)),
        registry.get("count").run_sync(bad, unused=1),  # the path off the plain one
    ):
        assert not result.success
        exception = result.exception
        assert isinstance(exception, ValidationError)  # still the kind of error it was
        assert exception.error_count() <= 20
        assert all(error["input"] is None for error in exception.errors())
        assert "x" * 100 not in str(exception)  # the input values are gone
        assert exception.__traceback__ is not None  # where it was raised, for logs


def test_many_problems_keep_only_the_first() -> None:
    registry = ToolRegistry()

    @registry.tool
    def total(numbers: list[int]) -> int:
        return sum(numbers)

    result = registry.execute_sync("total", {"numbers": [f"bad-{i}" for i in range(5_000)]})
    assert result.error is not None and result.error.endswith("... and 4980 more problems")
    assert isinstance(result.exception, ValidationError)
    assert result.exception.error_count() == 20


def test_one_call_with_many_bad_items_peaks_at_a_few_times_the_error() -> None:
    # errors() makes a dict per problem: 50,000 bad items peaked at ~34 MB (7 times the
    # pydantic error, ~4.6 MB) to show twenty. The first problems are read from the
    # error's JSON text instead: about twice the error.
    registry = ToolRegistry()

    @registry.tool
    def total(xs: list[int]) -> int:
        return sum(xs)

    arguments = json.dumps({"xs": ["x" * 10] * 50_000})
    gc.collect()
    tracemalloc.start()
    try:
        result = registry.execute_sync("total", arguments)
        text = registry.call_tool("total", arguments)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 15 * 2**20, peak / 2**20
    assert str(result) == text
    lines = text.splitlines()
    assert lines[1].startswith("xs.0: Input should be a valid integer, unable to parse")
    assert lines[1].endswith("(got 'xxxxxxxxxx')")
    assert lines[-1] == "... and 49980 more problems"
    assert len(lines) == 22


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(json_values, min_size=1, max_size=30), st.booleans())
def test_the_first_problems_read_from_json_text_are_the_same_text(
    items: list[Any], as_text: bool
) -> None:
    # The reading past _MANY_PROBLEMS words the problems exactly as errors() would.
    from tooldeck import _result

    registry = ToolRegistry()

    @registry.tool
    def shapes(xs: list[int], ys: dict[str, float], z: bool = False) -> int:
        return 0

    arguments: Any = {"xs": items, "ys": {str(i): v for i, v in enumerate(items)}, "z": items}
    if as_text:
        arguments = json.dumps(arguments)
    usual = registry.execute_sync("shapes", arguments)
    saved = _result._MANY_PROBLEMS
    _result._MANY_PROBLEMS = 0
    try:
        from_json = registry.execute_sync("shapes", arguments)
        agently = registry.call_tool("shapes", arguments)
    finally:
        _result._MANY_PROBLEMS = saved
    assert str(from_json) == str(usual) == agently

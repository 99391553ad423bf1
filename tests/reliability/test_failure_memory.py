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
BIG = {"n": {f"k{i}": [f"v{i}-{j}" for j in range(4)] for i in range(4_000)}}


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

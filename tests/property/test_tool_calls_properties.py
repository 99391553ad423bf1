"""Properties of running a model's tool calls, checked with hypothesis.

For any reply — any provider, any level, SDK objects or wire dicts — holding any mix
of valid and invalid calls (unknown or disabled tools, arguments of any JSON shape,
text that is not JSON, tools that raise), ``run_tool_calls`` never raises, answers
every call exactly once, in the reply's order, with what ``execute`` answers for that
call alone; the async twin answers the same; the answer is plain JSON data.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tool_call_replies import FORMATS, WIRE, Call, answered, sdk_reply
from tooldeck import ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(300)

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

registry = ToolRegistry()


@registry.tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@registry.tool
async def shout(text: str) -> str:
    """Upper-case a text."""
    await asyncio.sleep(0)
    return text.upper()


@registry.tool
def boom(x: int = 0) -> str:
    """Always fails."""
    raise ValueError(f"boom {x}")


@registry.tool
def echo(value: Any = None) -> Any:
    """Return the value."""
    return value


@registry.tool(enabled=False)
def retired() -> str:
    """Disabled."""
    return "never"


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=10),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
names = st.one_of(
    st.sampled_from(["add", "shout", "boom", "echo", "retired"]), st.text(max_size=12)
)
# Arguments as a model might send them: right, wrong or missing keys, any JSON values.
objects = st.one_of(
    st.fixed_dictionaries({"a": json_values}, optional={"b": json_values}),
    st.fixed_dictionaries({"text": json_values}),
    st.fixed_dictionaries({}, optional={"value": json_values, "x": json_values}),
    st.dictionaries(st.text(max_size=6), json_values, max_size=3),
)


@st.composite
def replies(draw: st.DrawFn) -> tuple[str, list[Call], Any]:
    fmt = draw(st.sampled_from(FORMATS))
    n = draw(st.integers(min_value=0, max_value=6))
    calls = []
    for i in range(n):
        name = draw(names)
        if fmt in ("openai", "openai-responses"):
            # JSON text of an object, of any JSON value, or text that is no JSON at all.
            arguments: Any = draw(
                st.one_of(
                    objects.map(json.dumps), json_values.map(json.dumps), st.text(max_size=12)
                )
            )
        else:
            arguments = draw(objects)
        call_id = (
            None
            if fmt == "gemini" and draw(st.booleans())
            else f"call_{i}_{draw(st.text(max_size=5))}"
        )
        calls.append(Call(call_id, name, arguments))
    wire = WIRE[fmt](calls)
    level = draw(st.sampled_from(["sdk", "wire", "list"]))
    if level == "sdk":
        return fmt, calls, sdk_reply(fmt, wire)
    if level == "wire":
        return fmt, calls, wire
    items = {
        "openai": lambda: wire["choices"][0]["message"]["tool_calls"] or [],
        "openai-responses": lambda: wire["output"],
        "anthropic": lambda: wire["content"],
        "gemini": lambda: wire["candidates"][0]["content"]["parts"],
    }[fmt]()
    return fmt, calls, items


def expected(fmt: str, call: Call) -> tuple[str | None, Any, bool]:
    result: ToolResult = registry.execute_sync(call.name, call.arguments)
    if fmt == "gemini":
        read = {"output": result.data} if result.success else {"error": result.error}
        return call.id, read, not result.success
    return call.id, str(result), not result.success


@SETTINGS
@given(replies(), st.one_of(st.none(), st.integers(min_value=1, max_value=4)))
def test_every_call_is_answered_once_in_order(
    case: tuple[str, list[Call], Any], max_concurrency: int | None
) -> None:
    fmt, calls, reply = case
    answer = registry.run_tool_calls(reply, max_concurrency=max_concurrency)
    assert json.loads(json.dumps(answer, allow_nan=False)) == answer
    assert answered(fmt, answer) == [expected(fmt, call) for call in calls]
    if not calls:
        assert answer == []


@SETTINGS
@given(replies())
def test_the_async_twin_answers_the_same(case: tuple[str, list[Call], Any]) -> None:
    _, _, reply = case
    assert asyncio.run(registry.async_run_tool_calls(reply)) == registry.run_tool_calls(reply)

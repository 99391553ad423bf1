"""A pass-through middleware never changes an answer, for any arguments and context.

The chain reads what was sent into a dict, hands it on, and validates what was sent
(JSON text in JSON mode) while the arguments are unchanged; what cannot be read fails
before the chain. So a registry whose middleware only call ``call_next`` answers every
call on every face exactly as one without middleware — valid, invalid, JSON text, junk,
missing context values, failing tools — sync and async middleware alike.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_plain_path_properties import (
    ASYNC_NAMES,
    REGISTRY,
    SYNC_NAMES,
    _result_view,
    arguments,
    contexts,
)

from tooldeck import Call, ToolRegistry, ToolResult


def passing(call: Call, call_next: Any) -> ToolResult:
    result: ToolResult = call_next(call)
    return result


async def apassing(call: Call, call_next: Any) -> ToolResult:
    result: ToolResult = await call_next(call)
    return result


CHAINED = {
    "sync": ToolRegistry(middleware=[passing]),
    "async": ToolRegistry(middleware=[apassing]),
    "mixed": ToolRegistry(middleware=[apassing, passing]),
}
for chained in CHAINED.values():
    for tool in REGISTRY:
        chained.register(tool)

chains = st.sampled_from(sorted(CHAINED))


@settings(max_examples=120, deadline=None)
@given(
    name=st.sampled_from([*SYNC_NAMES, "asearch"]), args=arguments, context=contexts, chain=chains
)
def test_sync_faces_answer_as_without_middleware(
    name: str, args: Any, context: dict[str, Any], chain: str
) -> None:
    registry = CHAINED[chain]
    assert registry.call_tool(name, args, context=context) == REGISTRY.call_tool(
        name, args, context=context
    )
    assert _result_view(registry.execute_sync(name, args, context=context)) == _result_view(
        REGISTRY.execute_sync(name, args, context=context)
    )
    assert registry.call(name, args, context=context) == REGISTRY.call(name, args, context=context)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(ASYNC_NAMES), args=arguments, context=contexts, chain=chains)
def test_async_faces_answer_as_without_middleware(
    name: str, args: Any, context: dict[str, Any], chain: str
) -> None:
    registry = CHAINED[chain]

    async def faces() -> None:
        assert await registry.async_call_tool(
            name, args, context=context
        ) == await REGISTRY.async_call_tool(name, args, context=context)
        assert _result_view(await registry.execute(name, args, context=context)) == _result_view(
            await REGISTRY.execute(name, args, context=context)
        )

    asyncio.run(faces())


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(SYNC_NAMES + ASYNC_NAMES), args=arguments, chain=chains)
def test_run_tool_calls_answers_as_without_middleware(name: str, args: Any, chain: str) -> None:
    reply = [
        {"type": "tool_use", "id": "t1", "name": name, "input": args},
        {"type": "tool_use", "id": "t2", "name": "search", "input": {"query": "q"}},
    ]
    expected = REGISTRY.run_tool_calls(reply, context={"user": "ann"})
    assert CHAINED[chain].run_tool_calls(reply, context={"user": "ann"}) == expected


_KEY_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from([0.0, -0.0, 1.0, 2.0, float("nan")]),
    st.sampled_from(["", "1", "0", "True", "a"]),
)
_KEY_VALUES = st.one_of(_KEY_SCALARS, st.tuples(_KEY_SCALARS, _KEY_SCALARS))


@settings(max_examples=150, deadline=None)
@given(first=_KEY_VALUES, second=_KEY_VALUES)
def test_in_process_rate_limit_buckets_are_the_key_texts_redis_keeps(
    first: Any, second: Any
) -> None:
    """Two key values share an in-process bucket exactly when they share Redis's window
    (the key text `RedisRates` is given), so moving to Redis throttles the same callers."""
    from tooldeck.middleware import RateLimit
    from tooldeck.middleware._keys import key_text

    registry = ToolRegistry(middleware=[RateLimit(1, per=3600, key="user")])
    registry.tool(lambda: "ok", name="ping")
    assert registry.call_tool("ping", context={"user": first}) == "ok"
    second_answer = registry.call_tool("ping", context={"user": second})
    one_caller = (first is None and second is None) or (
        first is not None and second is not None and key_text(first) == key_text(second)
    )
    assert (second_answer != "ok") is one_caller

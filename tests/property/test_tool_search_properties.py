"""A conversation's tool search under middleware: for any turn (``search_tools`` calls
valid or not, other tools, unknown names, unreadable arguments, in any order), a
pass-through middleware changes no answer, and it sees every call the chain may see
once, ``search_tools`` included, with the call's id."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tool_call_replies import answered
from tooldeck import Call, ToolRegistry, ToolResult

POOL = [
    ("search_tools", '{"query": "convert currency"}'),
    ("search_tools", '{"query": "zzzz"}'),
    ("search_tools", '{"q": 1}'),
    ("search_tools", "not json"),
    ("get_time", '{"zone": "CET"}'),
    ("convert_currency", '{"amount": 2, "to": "USD"}'),
    ("convert_currency", '{"amount": "many"}'),
    ("nope", "{}"),
]


def _registry(middleware: list[Any]) -> ToolRegistry:
    registry = ToolRegistry(middleware=middleware)
    registry.register(
        lambda zone="UTC": f"12:00 {zone}", name="get_time", description="The time now."
    )
    registry.register(
        lambda amount, to: amount * 2,
        name="convert_currency",
        description="Convert money into another currency.",
        tags="finance",
    )
    return registry


def _reply(picks: list[int]) -> dict[str, Any]:
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
        for i, (name, arguments) in enumerate(POOL[p] for p in picks)
    ]
    return {"role": "assistant", "tool_calls": calls}


def _reaches_the_chain(pick: int) -> bool:
    name, arguments = POOL[pick]
    try:
        json.loads(arguments)
    except ValueError:
        return False  # unreadable arguments fail before the chain, as for any tool
    return name != "nope"


@settings(max_examples=30, deadline=None)
@given(picks=st.lists(st.integers(0, len(POOL) - 1), min_size=1, max_size=5), face=st.booleans())
def test_a_pass_through_middleware_changes_no_answer(picks: list[int], face: bool) -> None:
    seen: list[tuple[str, Any]] = []

    def passing(call: Call, call_next: Any) -> ToolResult:
        seen.append((call.name, call.call_id))
        result: ToolResult = call_next(call)
        return result

    plain = _registry([]).tool_search("openai", defer="finance")
    chained = _registry([passing]).tool_search("openai", defer="finance")
    reply = _reply(picks)
    if face:
        expected, got = plain.run_tool_calls(reply), chained.run_tool_calls(reply)
    else:
        import asyncio

        expected = asyncio.run(plain.async_run_tool_calls(reply))
        got = asyncio.run(chained.async_run_tool_calls(reply))
    assert answered("openai", got) == answered("openai", expected)
    assert chained.loaded == plain.loaded
    reaching = [(POOL[p][0], f"c{i}") for i, p in enumerate(picks) if _reaches_the_chain(p)]
    assert sorted(seen) == sorted(reaching)

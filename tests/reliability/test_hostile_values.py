"""Tools that return hostile values: a lazy proxy outside its context, whose
``__class__``, ``__bool__``, ``__eq__``, ``__str__``... raise.

Whatever a tool returns, no face raises: the value comes back as is (Agently's face,
``ToolResult.data``), its text is something readable (``str(result)``, the agent loop's
answers, MCP), and the other calls of a turn keep their answers. A ``ToolResult`` whose
``success`` is not a bool is refused when made: a failed call.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import Injected, ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(300)

# The dunders a proxy may break (each raises when a face touches it).
DUNDERS = [
    "__class__",
    "__bool__",
    "__eq__",
    "__ne__",
    "__hash__",
    "__str__",
    "__repr__",
    "__len__",
    "__iter__",
    "__getattr__",
    "__int__",
    "__index__",
    "__float__",
    "__format__",
    "__reduce_ex__",
    "__dict__",
]  # (not ``__await__``: a sync tool's awaitable is awaited, by design, so that fails)


class Boom(Exception):
    pass


def hostile_value(broken: frozenset[str], lie: type | None = None) -> Any:
    """An object whose every dunder in ``broken`` raises (``__class__`` may lie instead)."""

    def raising(*_: Any, **__: Any) -> Any:
        raise Boom("outside its context")

    namespace: dict[str, Any] = {}
    for name in broken:
        if name in ("__class__", "__dict__"):
            namespace[name] = property(raising)
        else:
            namespace[name] = raising
    if lie is not None:  # a proxy that passes for what it wraps
        namespace["__class__"] = property(lambda self: lie)
    return type("LazyProxy", (), namespace)()


# What to break, and what ``__class__`` claims (the value is made in the test: hypothesis
# itself would choke printing a drawn proxy).
hostile_values = st.tuples(
    st.frozensets(st.sampled_from(DUNDERS), min_size=1),
    st.sampled_from([None, None, ToolResult, str, dict, int]),
)

# How the tool hands the value back.
WRAPS = ["plain", "ok"]
# What the tool is: each takes a different path (plain, runners, checked, awaited).
KINDS = ["sync", "async", "sync-timeout", "async-timeout", "sync-unannotated", "injected"]


def build(value: Any, wrap: str) -> ToolRegistry:
    registry = ToolRegistry()

    def give() -> Any:
        return value if wrap == "plain" else ToolResult.ok(value)

    def sync_() -> object:
        return give()

    async def async_() -> object:
        await asyncio.sleep(0)
        return give()

    def sync_timeout() -> object:
        return give()

    async def async_timeout() -> object:
        return give()

    def sync_unannotated():  # type: ignore[no-untyped-def]  # the awaits path
        return give()

    async def injected(user: Annotated[str, Injected]) -> object:
        return give()

    registry.tool(sync_, name="sync")
    registry.tool(async_, name="async")
    registry.tool(sync_timeout, name="sync-timeout", timeout=30)
    registry.tool(async_timeout, name="async-timeout", timeout=30)
    registry.tool(sync_unannotated, name="sync-unannotated")
    registry.tool(injected, name="injected")

    @registry.tool
    def add(a: int, b: int) -> int:
        return a + b

    return registry


def every_face(registry: ToolRegistry, name: str) -> dict[str, Any]:
    """Each face's outcome; none may raise. (The async faces run inside one coroutine
    that keeps their outcomes: ``asyncio.run`` itself reprs the value it returns.)"""
    tool = registry.get(name)
    context = {"user": "ann"}
    outcomes: dict[str, Any] = {
        "call_tool": registry.call_tool(name, {}, context=context),
        "execute_sync": registry.execute_sync(name, {}, context=context),
        "registry.call": registry.call(name, context=context),
        "Tool.call": tool.call({}, context=context),
        "Tool.run_sync": tool.run_sync({}, context=context),
    }

    async def async_faces() -> None:
        outcomes["async_call_tool"] = await registry.async_call_tool(name, {}, context=context)
        outcomes["execute"] = await registry.execute(name, {}, context=context)
        outcomes["Tool.acall"] = await tool.acall({}, context=context)
        outcomes["Tool.run"] = await tool.run({}, context=context)
        if name != "injected":  # (`execute(**arguments)` takes no context)
            outcomes["Tool.execute"] = await tool.execute()

    asyncio.run(async_faces())
    return outcomes


def a_turn(*names: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"c{i}",
                "type": "function",
                "function": {"name": name, "arguments": "{}"},
            }
            for i, name in enumerate(names)
        ],
    }


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=hostile_values, wrap=st.sampled_from(WRAPS), kind=st.sampled_from(KINDS))
def test_no_face_raises_for_a_hostile_value(
    value: tuple[frozenset[str], type | None], wrap: str, kind: str
) -> None:
    broken, lie = value
    value = hostile_value(broken, lie)
    registry = build(value, wrap)
    outcomes = every_face(registry, kind)
    # The faces ask a value its class (a proxy's own answer: it may stand for a
    # ToolResult). A class that raises, or a false ToolResult, is a failed call; any
    # other value comes back as is. Every face agrees, sync and async tools alike.
    fails = wrap == "plain" and (lie is ToolResult or ("__class__" in broken and lie is None))
    agently = [outcomes[f] for f in ("call_tool", "async_call_tool", "Tool.call", "Tool.acall")]
    results = [
        outcomes[f]
        for f in ("execute_sync", "execute", "Tool.run_sync", "Tool.run", "Tool.execute")
        if f in outcomes
    ]
    assert all(type(result) is ToolResult for result in results)
    if fails:
        assert type(agently[0]) is str and agently[0].startswith("Error: "), agently[0]
        assert all(answer == agently[0] for answer in agently), agently
        assert all(r == ToolResult.fail(agently[0].removeprefix("Error: ")) for r in results)
        assert outcomes["registry.call"] == agently[0]
    else:
        assert all(answer is value for answer in agently)  # the value itself
        assert all(r.success is True and r.data is value for r in results)
        assert all(type(str(r)) is str for r in results)
        assert type(outcomes["registry.call"]) is str


@settings(max_examples=25, deadline=None)
@given(value=hostile_values, wrap=st.sampled_from(WRAPS), kind=st.sampled_from(KINDS))
def test_a_turn_keeps_every_answer_whatever_a_tool_returns(
    value: tuple[frozenset[str], type | None], wrap: str, kind: str
) -> None:
    value = hostile_value(*value)
    registry = build(value, wrap)
    for turn in (a_turn(kind), a_turn(kind, "add", kind)):
        count = len(turn["tool_calls"])
        answers = registry.run_tool_calls(turn, context={"user": "ann"})
        assert [a["tool_call_id"] for a in answers] == [f"c{i}" for i in range(count)]
        assert all(type(a["content"]) is str for a in answers)
        if count > 1:
            assert answers[1]["content"].startswith("Error: Invalid arguments for tool 'add'")
        async_answers = asyncio.run(registry.async_run_tool_calls(turn, context={"user": "ann"}))
        assert async_answers == answers
    for format_turn in (
        {"content": [{"type": "tool_use", "id": "t", "name": kind, "input": {}}]},
        {"parts": [{"function_call": {"name": kind, "args": {}}}]},
    ):
        answer = registry.run_tool_calls(format_turn, context={"user": "ann"})
        json.dumps(answer)  # JSON data, ready to send


@pytest.mark.parametrize("success", ["yes", 1, 0, None, hostile_value(frozenset({"__bool__"}))])
def test_a_tool_result_whose_success_is_no_bool_is_refused(success: Any) -> None:
    with pytest.raises(TypeError, match="success must be a bool"):
        ToolResult(success)
    registry = ToolRegistry()

    @registry.tool
    async def sloppy() -> ToolResult:
        return ToolResult(success)

    answer = registry.call_tool("sloppy")
    assert answer.startswith("Error: ToolResult.success must be a bool, got ")
    result = registry.execute_sync("sloppy")
    assert result.success is False
    assert isinstance(result.exception, TypeError)


def test_rendering_a_hostile_value_never_raises() -> None:
    from tooldeck._result import clip, echo, to_text

    for broken in ({"__class__", "__str__", "__repr__"}, {"__str__", "__repr__"}, set(DUNDERS)):
        value = hostile_value(frozenset(broken))
        assert to_text(value) == "<LazyProxy object>"
        assert clip(value) == "<LazyProxy object>"
        assert echo(value) == "<LazyProxy object>"
        assert str(ToolResult.ok(value)) == "<LazyProxy object>"


@pytest.mark.timeout(60)
async def test_the_mcp_server_answers_a_hostile_value() -> None:
    fastmcp = pytest.importorskip("fastmcp")
    for broken in ({"__class__"}, {"__class__", "__str__", "__repr__", "__getattr__"}):
        value = hostile_value(frozenset(broken))
        server = build(value, "plain").as_mcp_server()
        async with fastmcp.Client(server, timeout=30) as client:
            for name in ("sync", "async", "async-timeout"):
                result = await client.call_tool_mcp(name, {})
                texts = [item.text for item in result.content]
                assert len(texts) == 1 and texts[0], texts
                assert "Traceback" not in texts[0]
                assert (await client.call_tool_mcp("add", {"a": 1, "b": 2})).content[0].text == "3"


class ResultProxy:
    """A proxy that stands for a `ToolResult` (``__class__`` and attributes forwarded)."""

    def __init__(self, target: ToolResult) -> None:
        self._target = target

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # type: ignore[override]
        return ToolResult

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)


@pytest.mark.parametrize("is_async", [False, True])
def test_a_proxy_of_a_tool_result_is_read_as_the_result_it_stands_for(is_async: bool) -> None:
    registry = ToolRegistry()
    if is_async:

        @registry.tool(name="proxied")
        async def proxied_async(ok: bool) -> object:
            return ResultProxy(ToolResult.ok(1) if ok else ToolResult.fail("nope"))

    else:

        @registry.tool
        def proxied(ok: bool) -> object:
            return ResultProxy(ToolResult.ok(1) if ok else ToolResult.fail("nope"))

    assert registry.call_tool("proxied", {"ok": True}) == 1
    assert registry.call_tool("proxied", {"ok": False}) == "Error: nope"
    for result, expected in (
        (registry.execute_sync("proxied", {"ok": True}), ToolResult.ok(1)),
        (asyncio.run(registry.execute("proxied", {"ok": False})), ToolResult.fail("nope")),
    ):
        assert type(result) is ToolResult  # the genuine article, not the proxy
        assert result == expected


@pytest.mark.parametrize("success", ["no", 1, 0, None])
@pytest.mark.parametrize("is_async", [False, True])
def test_a_proxy_of_a_tool_result_whose_success_is_no_bool_fails_on_every_face(
    success: Any, is_async: bool
) -> None:
    # A truthy non-bool ("no", 1) read as a success by Agently's faces while the
    # ToolResult faces refused it: every face must refuse it alike.
    proxy = hostile_value(frozenset(), ToolResult)
    type(proxy).success = success  # type: ignore[attr-defined]
    type(proxy).data, type(proxy).error = "DATA", "err"  # type: ignore[attr-defined]
    registry = build(proxy, "plain")
    outcomes = every_face(registry, "async" if is_async else "sync")
    expected = "Error: ToolResult.success must be a bool, got "
    for face in ("call_tool", "async_call_tool", "Tool.call", "Tool.acall", "registry.call"):
        assert outcomes[face].startswith(expected), (face, outcomes[face])
    for face in ("execute_sync", "execute", "Tool.run_sync", "Tool.run", "Tool.execute"):
        assert str(outcomes[face]).startswith(expected), (face, outcomes[face])

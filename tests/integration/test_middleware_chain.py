"""One suite of middleware-chain behaviour, run through every entry point of a registry.

Each scenario builds a chain, makes one call of ``add(a, b)`` and checks the answer, the
order the middleware and the tool ran in, and how often the tool ran. The entry
points: the five call faces, ``run_tool_calls`` (sync and async), a fastmcp ``Client``
calling ``as_mcp_server()`` in memory and over HTTP on 127.0.0.1, and an imported
(proxy) tool, called by name and served again. Every entry point must give the same
answer: ``(success, the text a model reads)``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastmcp import Client
from media_samples import served_over_http

from tooldeck import Call, ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(60)

Outcome = tuple[bool, str]  # success, the text a model reads


class Log:
    """What ran, in order (the tool appends "tool")."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.calls: list[Call] = []

    @property
    def tool_runs(self) -> int:
        return self.events.count("tool")


def tools_registry(log: Log, middleware: list[Any]) -> ToolRegistry:
    registry = ToolRegistry(middleware=middleware)

    @registry.tool
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        log.events.append("tool")
        return a + b

    return registry


# -- entry points: each makes one call of add(arguments) and reads the outcome ------------


def _text_of(value: Any) -> Outcome:
    if isinstance(value, str) and value.startswith("Error: "):
        return False, value
    return True, value if isinstance(value, str) else json.dumps(value)


def _reply(arguments: dict[str, Any]) -> list[dict[str, Any]]:
    function = {"name": "add", "arguments": json.dumps(arguments)}
    return [{"id": "call_1", "type": "function", "function": function}]


def _message(messages: list[dict[str, Any]]) -> Outcome:
    content = messages[0]["content"]
    return not content.startswith("Error: "), content


async def _over_mcp(target: Any, arguments: dict[str, Any]) -> Outcome:
    async with Client(target) as client:
        result = await client.call_tool("add", arguments, raise_on_error=False)
    text = result.content[0].text  # type: ignore[union-attr]
    return (False, "Error: " + text) if result.is_error else (True, text)


@contextmanager
def local(log: Log, middleware: list[Any]) -> Iterator[ToolRegistry]:
    yield tools_registry(log, middleware)


@contextmanager
def gateway(log: Log, middleware: list[Any]) -> Iterator[ToolRegistry]:
    """The middleware on a registry that imports ``add`` from another one's server."""
    origin = tools_registry(log, [])
    registry = ToolRegistry(middleware=middleware)
    registry.use_mcp(origin.as_mcp_server("origin"))
    try:
        yield registry
    finally:
        registry.close()


def call_tool(r: ToolRegistry, args: dict[str, Any]) -> Outcome:
    return _text_of(r.call_tool("add", args))


def proxy_call_tool(r: ToolRegistry, args: dict[str, Any]) -> Outcome:
    """`call_tool` of a proxy answers a remote failure as seed 001 §7.2 says."""
    value = r.call_tool("add", args)
    if isinstance(value, dict) and set(value) == {"error"}:
        return False, "Error: " + value["error"]
    return _text_of(value)


def async_call_tool(r: ToolRegistry, args: dict[str, Any]) -> Outcome:
    return _text_of(asyncio.run(r.async_call_tool("add", args)))


def execute(r: ToolRegistry, args: dict[str, Any]) -> Outcome:
    result = asyncio.run(r.execute("add", args))
    return result.success, str(result)


def execute_sync(r: ToolRegistry, args: dict[str, Any]) -> Outcome:
    result = r.execute_sync("add", args)
    return result.success, str(result)


def call(r: ToolRegistry, args: dict[str, Any]) -> Outcome:
    text = r.call("add", **args)
    return not text.startswith("Error: "), text


def run_tool_calls(r: ToolRegistry, args: dict[str, Any]) -> Outcome:
    return _message(r.run_tool_calls(_reply(args)))


def async_run_tool_calls(r: ToolRegistry, args: dict[str, Any]) -> Outcome:
    return _message(asyncio.run(r.async_run_tool_calls(_reply(args))))


def mcp_in_memory(r: ToolRegistry, args: dict[str, Any]) -> Outcome:
    return asyncio.run(_over_mcp(r.as_mcp_server(), args))


def mcp_over_http(r: ToolRegistry, args: dict[str, Any]) -> Outcome:
    with served_over_http(r) as url:
        return asyncio.run(_over_mcp(url, args))


# (name, registry maker, entry point, what Call.call_id, .format, .source hold)
ENTRY_POINTS = [
    ("call_tool", local, call_tool, (None, None, "call")),
    ("async_call_tool", local, async_call_tool, (None, None, "call")),
    ("execute", local, execute, (None, None, "call")),
    ("execute_sync", local, execute_sync, (None, None, "call")),
    ("call", local, call, (None, None, "call")),
    ("run_tool_calls", local, run_tool_calls, ("call_1", "openai", "tool_calls")),
    ("async_run_tool_calls", local, async_run_tool_calls, ("call_1", "openai", "tool_calls")),
    ("mcp_in_memory", local, mcp_in_memory, (None, None, "mcp")),
    ("mcp_over_http", local, mcp_over_http, (None, None, "mcp")),
    ("proxy", gateway, execute_sync, (None, None, "call")),
    ("proxy_call_tool", gateway, proxy_call_tool, (None, None, "call")),
    ("proxy_served", gateway, mcp_in_memory, (None, None, "mcp")),
]


@pytest.fixture(params=ENTRY_POINTS, ids=[entry[0] for entry in ENTRY_POINTS])
def entry(request: pytest.FixtureRequest) -> Any:
    return request.param


def run(entry: Any, log: Log, middleware: list[Any], args: dict[str, Any]) -> Outcome:
    _, make, face, _ = entry
    with make(log, middleware) as registry:
        return face(registry, args)  # type: ignore[no-any-return]


# -- middleware makers: the same behaviour, sync or async ---------------------------------

Maker = Callable[..., Any]


def both(make: Callable[[bool], Any]) -> list[Any]:
    return [pytest.param(make, True, id="async"), pytest.param(make, False, id="sync")]


def tracer(log: Log, label: str, is_async: bool) -> Any:
    if is_async:

        async def traced(call: Call, call_next: Any) -> ToolResult:
            log.events.append(label + ">")
            log.calls.append(call)
            result: ToolResult = await call_next(call)
            log.events.append("<" + label)
            return result

        return traced

    def traced_sync(call: Call, call_next: Any) -> ToolResult:
        log.events.append(label + ">")
        log.calls.append(call)
        result: ToolResult = call_next(call)
        log.events.append("<" + label)
        return result

    return traced_sync


def around(is_async: bool, before: Any = None, after: Any = None, times: int = 1) -> Any:
    """A middleware that changes the call (``before``) and the result (``after``)."""

    def change(call: Call) -> Call:
        return before(call) if before else call

    def finish(result: ToolResult) -> ToolResult:
        return after(result) if after else result

    if is_async:

        async def mw(call: Call, call_next: Any) -> ToolResult:
            result = ToolResult.fail("not called")
            for _ in range(times):
                result = await call_next(change(call))
            return finish(result)

        return mw

    def mw_sync(call: Call, call_next: Any) -> ToolResult:
        result = ToolResult.fail("not called")
        for _ in range(times):
            result = call_next(change(call))
        return finish(result)

    return mw_sync


# -- the scenarios --------------------------------------------------------------------------


def test_order_first_listed_outermost_sync_and_async_mixed(entry: Any) -> None:
    log = Log()
    chain = [tracer(log, "m1", False), tracer(log, "m2", True), tracer(log, "m3", False)]
    assert run(entry, log, chain, {"a": 1, "b": 2}) == (True, "3")
    assert log.events == ["m1>", "m2>", "m3>", "tool", "<m3", "<m2", "<m1"]


def test_what_the_call_holds(entry: Any) -> None:
    log = Log()
    assert run(entry, log, [tracer(log, "m", True), tracer(log, "n", False)], {"a": 4}) == (
        True,
        "4",
    )
    call_id, format, source = entry[3]
    for seen in log.calls:
        assert (seen.name, seen.arguments) == ("add", {"a": 4})
        assert (seen.call_id, seen.format, seen.source) == (call_id, format, source)
        assert seen.tool.name == "add"


@pytest.mark.parametrize("is_async", [True, False], ids=["async", "sync"])
def test_changing_arguments_before_validation(entry: Any, is_async: bool) -> None:
    log = Log()
    # "5" for an int: validated (and coerced) after the middleware, as for any call
    changed = around(is_async, before=lambda c: c.replace(arguments={**c.arguments, "b": "5"}))
    assert run(entry, log, [changed], {"a": 1, "b": 2}) == (True, "6")
    assert log.tool_runs == 1


@pytest.mark.parametrize("is_async", [True, False], ids=["async", "sync"])
def test_answering_without_the_tool(entry: Any, is_async: bool) -> None:
    log = Log()
    if is_async:

        async def answer(call: Call, call_next: Any) -> ToolResult:
            return ToolResult.ok(42)
    else:

        def answer(call: Call, call_next: Any) -> ToolResult:  # type: ignore[misc]
            return ToolResult.ok(42)

    # (an int: served over MCP, an answer must match the tool's output schema too)
    assert run(entry, log, [answer], {"a": 1}) == (True, "42")
    assert log.tool_runs == 0


@pytest.mark.parametrize("is_async", [True, False], ids=["async", "sync"])
def test_calling_the_rest_twice(entry: Any, is_async: bool) -> None:
    log = Log()
    inner = tracer(log, "inner", not is_async)
    assert run(entry, log, [around(is_async, times=2), inner], {"a": 1, "b": 1}) == (True, "2")
    assert log.events == ["inner>", "tool", "<inner"] * 2


@pytest.mark.parametrize("is_async", [True, False], ids=["async", "sync"])
def test_changing_the_result(entry: Any, is_async: bool) -> None:
    log = Log()
    times_100 = around(is_async, after=lambda r: ToolResult.ok(r.data * 100))
    assert run(entry, log, [times_100], {"a": 1, "b": 2}) == (True, "300")
    failing = around(is_async, after=lambda r: ToolResult.fail("refused afterwards"))
    assert run(entry, log, [failing], {"a": 1}) == (False, "Error: refused afterwards")


@pytest.mark.parametrize("is_async", [True, False], ids=["async", "sync"])
def test_a_middleware_raising_is_the_calls_failure(entry: Any, is_async: bool) -> None:
    log = Log()
    seen: list[ToolResult] = []

    def denied(call: Call) -> Call:
        raise PermissionError("not for you")

    def outer(call: Call, call_next: Any) -> ToolResult:
        result: ToolResult = call_next(call)
        seen.append(result)
        return result

    assert run(entry, log, [outer, around(is_async, before=denied)], {"a": 1}) == (
        False,
        "Error: not for you",
    )
    assert log.tool_runs == 0
    assert [(r.success, r.error, type(r.exception)) for r in seen] == [
        (False, "not for you", PermissionError)
    ]


@pytest.mark.parametrize("is_async", [True, False], ids=["async", "sync"])
def test_invalid_arguments_fail_inside_the_chain_alike(entry: Any, is_async: bool) -> None:
    log = Log()
    seen: list[ToolResult] = []
    keep = around(is_async, after=lambda r: seen.append(r) or r)
    success, text = run(entry, log, [keep], {"a": "one"})
    assert not success
    assert text.startswith("Error: Invalid arguments for tool 'add'")
    assert "a: Input should be a valid integer" in text
    assert len(seen) == 1 and not seen[0].success and log.tool_runs == 0


@pytest.mark.parametrize("is_async", [True, False], ids=["async", "sync"])
def test_not_a_tool_result_fails_naming_the_middleware(entry: Any, is_async: bool) -> None:
    log = Log()
    if is_async:

        async def sloppy(call: Call, call_next: Any) -> Any:
            return (await call_next(call)).data
    else:

        def sloppy(call: Call, call_next: Any) -> Any:  # type: ignore[misc]
            return call_next(call).data

    success, text = run(entry, log, [sloppy], {"a": 1})
    assert (success, text) == (False, "Error: Middleware 'sloppy' returned int, not a ToolResult")

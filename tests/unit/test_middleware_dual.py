"""A `DualMiddleware` runs its sync form on the sync faces and its async form on the
async faces, each where the call is: no worker thread, no hop to the background loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from tooldeck import Call, ToolRegistry, ToolResult
from tooldeck.middleware._dual import DualMiddleware


class Where(DualMiddleware):
    """Records which form ran, and on which thread (and loop)."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, Any]] = []

    def __call__(self, call: Call, call_next: Any) -> ToolResult:
        self.seen.append(("sync", threading.get_ident(), None))
        return call_next(call.replace(arguments={**call.arguments, "b": 10}))

    async def acall(self, call: Call, call_next: Any) -> ToolResult:
        self.seen.append(("async", threading.get_ident(), asyncio.get_running_loop()))
        return await call_next(call.replace(arguments={**call.arguments, "b": 10}))


def _registry(*middleware: Any) -> ToolRegistry:
    registry = ToolRegistry(middleware=list(middleware))

    @registry.tool
    def add(a: int, b: int = 0) -> int:
        return a + b

    @registry.tool
    async def aadd(a: int, b: int = 0) -> int:
        return a + b

    return registry


@pytest.mark.parametrize("name", ["add", "aadd"])
def test_sync_faces_run_the_sync_form_in_the_callers_thread(name: str) -> None:
    mw = Where()
    registry = _registry(mw)
    assert registry.call_tool(name, {"a": 1}) == 11
    assert registry.execute_sync(name, {"a": 1}).data == 11
    assert registry.call(name, a=1) == "11"  # (`call` answers text)
    me = threading.get_ident()
    assert mw.seen == [("sync", me, None)] * 3


@pytest.mark.parametrize("name", ["add", "aadd"])
def test_async_faces_run_the_async_form_on_the_callers_loop(name: str) -> None:
    mw = Where()
    registry = _registry(mw)

    async def main() -> tuple[Any, Any, asyncio.AbstractEventLoop]:
        first = await registry.async_call_tool(name, {"a": 1})
        second = await registry.execute(name, {"a": 1})
        return first, second.data, asyncio.get_running_loop()

    first, second, loop = asyncio.run(main())
    assert (first, second) == (11, 11)
    assert mw.seen == [("async", threading.get_ident(), loop)] * 2


def test_outside_plain_middleware_of_both_kinds() -> None:
    order: list[str] = []

    def outer(call: Call, call_next: Any) -> ToolResult:
        order.append("outer")
        return call_next(call)

    async def inner(call: Call, call_next: Any) -> ToolResult:
        order.append("inner")
        return await call_next(call)

    mw = Where()
    registry = _registry(mw, outer, inner)
    assert registry.call_tool("add", {"a": 1}) == 11
    assert asyncio.run(registry.async_call_tool("add", {"a": 2})) == 12
    assert order == ["outer", "inner"] * 2
    assert [kind for kind, _, _ in mw.seen] == ["sync", "async"]


class Raising(DualMiddleware):
    __slots__ = ()

    def __call__(self, call: Call, call_next: Any) -> ToolResult:
        raise RuntimeError("sync form broke")

    async def acall(self, call: Call, call_next: Any) -> ToolResult:
        raise RuntimeError("async form broke")


class NotAResult(DualMiddleware):
    __slots__ = ()

    def __call__(self, call: Call, call_next: Any) -> Any:
        return 42

    async def acall(self, call: Call, call_next: Any) -> Any:
        return 42


def test_either_form_raising_or_not_answering_is_the_calls_failure() -> None:
    registry = _registry(Raising())
    assert registry.call_tool("add", {"a": 1}) == "Error: sync form broke"
    assert asyncio.run(registry.async_call_tool("add", {"a": 1})) == ("Error: async form broke")
    registry = _registry(NotAResult())
    for answer in (
        registry.call_tool("add", {"a": 1}),
        asyncio.run(registry.async_call_tool("add", {"a": 1})),
    ):
        assert answer == "Error: Middleware 'NotAResult' returned int, not a ToolResult"

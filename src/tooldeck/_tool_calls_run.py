"""Running a reply's tool calls concurrently, and the agent loop's step end to end.

The runner takes any ``execute(name, arguments) -> Awaitable[ToolResult]`` (the
registry's), so it never needs the registry: `answer_tool_calls` and
`async_answer_tool_calls` read a reply (`tooldeck._tool_calls`), run its calls, and
write the answer in the reply's own format.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ._result import ToolResult
from ._shifting import run_coroutine
from ._tool_calls import WRITERS, Answer, ToolCall, read_tool_calls

__all__ = ["answer_tool_calls", "async_answer_tool_calls", "check_max_concurrency", "run_calls"]

Execute = Callable[[str, Any], Awaitable[ToolResult]]
ExecuteSync = Callable[[str, Any], ToolResult]


class _Interrupted(Exception):
    """Carries a call's ``KeyboardInterrupt`` or ``SystemExit`` out of its task.

    asyncio re-raises those two out of the event loop itself (stopping tooldeck's
    background loop); as an ``Exception`` it reaches `run_calls`, which re-raises the
    original once the other calls are cancelled.
    """

    def __init__(self, exc: BaseException) -> None:
        super().__init__()
        self.exc = exc


async def run_calls(
    calls: Sequence[ToolCall], execute: Execute, max_concurrency: int | None = None
) -> list[ToolResult]:
    """Run ``calls`` concurrently, at most ``max_concurrency`` at once; results in order.

    Each call's failure is its own (``execute`` never raises for one). Cancelling this
    cancels the calls in flight; a call's ``KeyboardInterrupt`` or ``SystemExit``
    cancels the others and propagates.
    """
    if len(calls) <= 1:
        return [await execute(call.name, call.arguments) for call in calls]
    gate = None
    if max_concurrency is not None and max_concurrency < len(calls):
        gate = asyncio.Semaphore(max_concurrency)

    async def one(call: ToolCall) -> ToolResult:
        try:
            if gate is None:
                return await execute(call.name, call.arguments)
            async with gate:
                return await execute(call.name, call.arguments)
        except (KeyboardInterrupt, SystemExit) as exc:
            raise _Interrupted(exc) from None

    tasks = [asyncio.ensure_future(one(call)) for call in calls]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        await _cancel(tasks)  # cancelled from outside, or a call interrupted
    for task in tasks:
        error = None if task.cancelled() else task.exception()
        if isinstance(error, _Interrupted):
            raise error.exc
    return [task.result() for task in tasks]


async def _cancel(tasks: Sequence[asyncio.Future[ToolResult]]) -> None:
    """Cancel the unfinished tasks and wait until they have stopped."""
    pending = [task for task in tasks if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending)


def check_max_concurrency(value: object) -> None:
    """Refuse anything but a positive ``int``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"max_concurrency must be a positive int or None, not {value!r}")
    if value < 1:
        raise ValueError(f"max_concurrency must be a positive int or None, not {value!r}")


def answer_tool_calls(
    reply: Any,
    execute: Execute,
    execute_sync: ExecuteSync,
    max_concurrency: int | None = None,
    format: str | None = None,
) -> Answer:
    """Read, run and answer a reply's tool calls from synchronous code.

    One call runs directly through ``execute_sync``; several run concurrently on
    tooldeck's background loop (`run_coroutine`: with or without a loop running here).
    """
    if max_concurrency is not None:
        check_max_concurrency(max_concurrency)
    found, calls = read_tool_calls(reply, format)
    if found is None or not calls:
        return []
    if len(calls) == 1:
        results = [execute_sync(calls[0].name, calls[0].arguments)]
    else:
        results = run_coroutine(run_calls(calls, execute, max_concurrency))
    return WRITERS[found](calls, results)


async def async_answer_tool_calls(
    reply: Any, execute: Execute, max_concurrency: int | None = None, format: str | None = None
) -> Answer:
    """Async twin of `answer_tool_calls`: the calls run on the running loop."""
    if max_concurrency is not None:
        check_max_concurrency(max_concurrency)
    found, calls = read_tool_calls(reply, format)
    if found is None or not calls:
        return []
    if len(calls) == 1:  # the usual turn: spare the runner
        results = [await execute(calls[0].name, calls[0].arguments)]
    else:
        results = await run_calls(calls, execute, max_concurrency)
    return WRITERS[found](calls, results)

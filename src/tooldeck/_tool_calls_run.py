"""Running a model's tool calls: concurrently, bounded, each failure its own.

`run_calls` runs the calls of one reply through any ``execute(name, arguments, call_id)
-> Awaitable[ToolResult]`` (the registry's), so nothing here needs the registry. The
registry's `run_tool_calls` is the agent loop's step end to end: read
(`tooldeck._tool_calls`), run (here), write (each provider's ``write``, in
`tooldeck.providers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from . import _shifting
from ._reply_fields import ToolCall
from ._result import ToolResult, clip, failure_text, outside_text
from ._threads import CallTimeout

__all__ = [
    "TurnWatch",
    "check_max_concurrency",
    "native_media",
    "run_calls",
    "run_calls_sync",
]

# ``execute(name, arguments, call_id)``: one call's result, never raising.
Execute = Callable[[str, Any, Any], Awaitable[ToolResult]]


# -- running the calls ------------------------------------------------------------------


class _Interrupted(Exception):
    """Carries a call's ``KeyboardInterrupt`` or ``SystemExit`` out of its task.

    asyncio re-raises those two out of the event loop itself (stopping tooldeck's
    background loop); as an ``Exception`` it reaches `run_calls`, which re-raises the
    original once the other calls are cancelled.
    """

    def __init__(self, exc: BaseException) -> None:
        super().__init__()
        self.exc = exc


class TurnWatch:
    """A turn in flight as its sync caller sees it: when each call started, its result.

    Written on the loop, read by the caller: a loop blocked by a coroutine that never
    yields cannot fire a call's timeout, so the caller stops waiting at `deadline`.
    """

    __slots__ = ("results", "started", "submitted", "timeouts")

    def __init__(self, timeouts: Sequence[float | None]) -> None:
        self.timeouts = timeouts
        self.started: list[float | None] = [None] * len(timeouts)
        self.results: list[ToolResult | None] = [None] * len(timeouts)
        self.submitted = time.monotonic()  # handed to the loop

    def deadline(self) -> float | None:
        """When a timed call in flight is overdue: its start, its timeout, the grace
        the loop has to fire it (``None``: no timed call is in flight).

        Until the loop starts any call, the turn is bounded as one timed call is from
        when it was handed to the loop: a loop blocked before the turn (by an earlier
        turn's call) never starts one, and would hold the turn as long as it is blocked.
        """
        grace = _shifting.LOOP_GRACE  # read now: tests shorten it
        if all(start is None for start in self.started):
            timed = [timeout for timeout in self.timeouts if timeout is not None]
            return self.submitted + min(timed) + grace if timed else None
        ends = [
            start + timeout + grace
            for start, timeout, result in zip(
                self.started, self.timeouts, self.results, strict=True
            )
            if start is not None and timeout is not None and result is None
        ]
        return min(ends, default=None)


def run_calls_sync(
    calls: Sequence[ToolCall],
    execute: Execute,
    max_concurrency: int | None,
    timeouts: Sequence[float | None],
    unanswered: Callable[[str, bool], ToolResult],
) -> list[ToolResult]:
    """`run_calls` for a sync caller, on tooldeck's background loop, bounded like one call.

    ``timeouts``: each call's tool's timeout. Should a timed call overrun its timeout
    (the loop is blocked), the caller stops waiting: each call answered keeps its
    answer, and the rest get ``unanswered(name, started)``.
    """
    if all(timeout is None for timeout in timeouts):  # nothing to watch: as one call is
        return _shifting.run_coroutine(run_calls(calls, execute, max_concurrency))
    watch = TurnWatch(timeouts)
    try:
        return _shifting.run_coroutine(
            run_calls(calls, execute, max_concurrency, watch), deadline=watch.deadline
        )
    except CallTimeout:  # the loop is blocked: answer what is known
        results, started = list(watch.results), list(watch.started)
    return [
        result if result is not None else unanswered(name, started[i] is not None)
        for i, (result, (_, name, _)) in enumerate(zip(results, calls, strict=True))
    ]


async def run_calls(
    calls: Sequence[ToolCall],
    execute: Execute,
    max_concurrency: int | None = None,
    watch: TurnWatch | None = None,
) -> list[ToolResult]:
    """Run ``calls`` concurrently, at most ``max_concurrency`` at once; results in order.

    Each call's failure is its own (``execute`` never raises for one). Cancelling this
    cancels the calls in flight; a call's ``KeyboardInterrupt`` or ``SystemExit``
    cancels the others and propagates. ``watch`` is told when each call starts and
    what it answered.
    """
    if len(calls) <= 1 and watch is None:
        return [await execute(name, arguments, call_id) for call_id, name, arguments in calls]
    gate: Any = contextlib.nullcontext()
    if max_concurrency is not None and max_concurrency < len(calls):
        gate = asyncio.Semaphore(max_concurrency)

    async def one(i: int, call: ToolCall) -> ToolResult:
        call_id, name, arguments = call
        try:
            async with gate:
                if watch is None:
                    return await execute(name, arguments, call_id)
                watch.started[i] = time.monotonic()
                result = watch.results[i] = await execute(name, arguments, call_id)
                return result
        except (KeyboardInterrupt, SystemExit) as exc:
            raise _Interrupted(exc) from None
        except Exception as exc:  # `execute` never raises; were it to, one call fails
            return ToolResult.fail(outside_text(failure_text(exc)), exception=exc)

    tasks = [asyncio.ensure_future(one(i, call)) for i, call in enumerate(calls)]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        await _cancel(tasks)  # cancelled from outside, or a call interrupted
    for task in tasks:
        error = None if task.cancelled() else task.exception()
        if type(error) is _Interrupted:
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


def native_media(media: object) -> bool:
    """``media=``: ``"native"`` → True, ``"text"`` → False; anything else is refused."""
    if isinstance(media, str):  # a str subclass: its characters, none of its methods
        text = media if type(media) is str else str.__getitem__(media, slice(None))
        if text in ("native", "text"):
            return text == "native"
    shown = repr(media) if type(media) is str else clip(media)
    raise ValueError(f"media must be 'native' or 'text', not {shown}")

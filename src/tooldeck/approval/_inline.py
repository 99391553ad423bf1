"""Approval inside one turn: ``run_tool_calls(reply, approve=...)``.

A turn that calls a tool needing approval is read into a batch; ``approve`` is asked
for each pending call, one at a time in the reply's order (a person answering on a
terminal sees one question at a time), before anything runs; then the batch runs as
`ToolCallBatch.run` does. Without ``approve``, a pending call is answered "needs
approval" and does not run. ``approve`` answers ``True`` (run), ``False`` (declined) or
a message (declined with it); anything else, or raising, fails that call.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from tooldeck._calling import SYNC_FAILURES, Context
from tooldeck._reply_fields import ToolCall
from tooldeck._result import clip, failure_text, outside_text
from tooldeck._shifting import is_async_callable, run_coroutine
from tooldeck._threads import to_thread

from ._batch import ToolCallBatch, Turn
from ._record import BatchCall

__all__ = ["arun_approved", "run_approved"]

logger = logging.getLogger("tooldeck")

Approve = Callable[[BatchCall], Any]


def run_approved(
    registry: Turn,
    format: str,
    calls: Sequence[ToolCall],
    context: Context,
    max_concurrency: int | None,
    native: bool,
    approve: Approve | None,
) -> list[dict[str, Any]]:
    """`run_tool_calls` for a turn calling a tool that needs approval."""
    batch = ToolCallBatch._read(registry, format, calls, context)
    if approve is not None:
        for call in batch.pending:
            try:
                answer = approve(call)
                if inspect.isawaitable(answer):  # an async approve, from sync code
                    answer = run_coroutine(_awaited(answer))
            except SYNC_FAILURES as exc:
                _failed(batch, call, exc)
                continue
            _decide(batch, call, answer)
    return batch._run_sync(context, max_concurrency, native, approve is None)


async def arun_approved(
    registry: Turn,
    format: str,
    calls: Sequence[ToolCall],
    context: Context,
    max_concurrency: int | None,
    native: bool,
    approve: Approve | None,
) -> list[dict[str, Any]]:
    """Async twin of `run_approved`: a sync ``approve`` (a prompt that blocks) is asked
    in a worker thread, so the event loop goes on meanwhile."""
    batch = ToolCallBatch._read(registry, format, calls, context)
    if approve is not None:
        asynchronous = is_async_callable(approve)
        for call in batch.pending:
            try:
                answer = approve(call) if asynchronous else await to_thread(approve, call)
                if inspect.isawaitable(answer):
                    answer = await answer
            except Exception as exc:
                _failed(batch, call, exc)
                continue
            _decide(batch, call, answer)
    return await batch._run(context, max_concurrency, native, approve is None)


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _decide(batch: ToolCallBatch, call: BatchCall, answer: Any) -> None:
    if answer is True:
        batch.approve(call.id)
    elif answer is False:
        batch.reject(call.id)
    elif isinstance(answer, str):
        batch.reject(call.id, str.__str__(answer))
    else:  # None (an approve that forgot to answer) must not run the call
        why = f"answered {clip(answer)}, not True, False or a message"
        batch._fail(call.id, f"Tool '{clip(call.name)}' was not run: approve {why}")


def _failed(batch: ToolCallBatch, call: BatchCall, exc: BaseException) -> None:
    logger.debug("approve raised for %r", call.name, exc_info=exc)
    why = outside_text(failure_text(exc))
    batch._fail(call.id, f"Tool '{clip(call.name)}' was not run: approve raised {why}")

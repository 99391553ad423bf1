"""How far a long call is: the ``Progress`` reporter a tool takes as a parameter.

A parameter annotated ``Progress`` is injected like ``Injected`` (absent from the
schema and every export; a model sending it is refused as unexpected). It receives a
reporter ``progress(done, total=None, message=None)``, callable from sync and async
tools, cheap, never raising. Where its reports go is the caller's:

* ``context["progress"]``, a callable ``(done, total, message)``, on the Python faces
  (an exception from it is ignored: reporting never fails a call; an async one is
  awaited on the loop of the async tool reporting, one report at a time, coalesced like
  served ones, and a sync tool's reports to it are dropped);
* ``notifications/progress`` to an MCP client that asked for progress, when served
  (`tooldeck.mcp._progress`, which coalesces reports that come faster than the client
  takes them);
* nowhere otherwise.
"""

from __future__ import annotations

import asyncio
import collections
import inspect
import logging
import types
from collections.abc import Callable, Coroutine
from typing import Any, Union, get_args, get_origin

__all__ = ["PROGRESS_KEY", "Progress", "is_progress", "no_progress", "reporter_of"]

PROGRESS_KEY = "progress"  # the context key a reporter's callback is read from

Report = Callable[[float, "float | None", "str | None"], Any]

logger = logging.getLogger("tooldeck")
_BACKLOG = 16  # an async callback's reports waiting, at most (see `_AsyncReports`)


class Progress:
    """Reports how far a long-running call is: ``progress(done, total=None, message=None)``.

    Annotate a parameter with it and tooldeck passes a reporter in; the model never sees
    the parameter::

        @tool
        async def crawl(url: str, progress: Progress) -> int:
            for page in range(10):
                ...
                progress(page + 1, 10, f"page {page + 1}")
            return 10

    Reports go to ``context["progress"]`` (a callable ``(done, total, message)``) on the
    Python faces, and to the MCP client as ``notifications/progress`` when the tool is
    served; without either, a report does nothing. Calling the reporter never raises.

    Args:
        send: Where reports go: a callable ``(done, total, message)``; ``None``: nowhere.
    """

    __slots__ = ("_queue", "_send")

    def __init__(self, send: Report | None = None) -> None:
        self._send = send
        self._queue = _AsyncReports(send) if send is not None and _is_async(send) else None

    def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Report ``done`` (of ``total``, when known), with an optional ``message``."""
        send = self._send
        if send is None:
            return
        if self._queue is not None:
            self._queue.put((done, total, message))
            return
        try:
            sent = send(done, total, message)
            if sent is not None and inspect.iscoroutine(sent):
                _schedule(sent)
        except Exception:  # a report never fails the call that makes it
            logger.debug("a progress report failed", exc_info=True)

    def __repr__(self) -> str:
        return "Progress()" if self._send is None else f"Progress({self._send!r})"


class _AsyncReports:
    """An async callback's reports, awaited one at a time, in order, on the reporting
    loop. Each report used to be a task of its own: a tool reporting 100,000 times made
    100,000 tasks, all alive at once (the call 46x slower, the callback run concurrently
    with itself, out of order). Reports that come faster than the callback takes them
    are coalesced as served ones are: at most `_BACKLOG` wait, the newest kept."""

    __slots__ = ("_loop", "_send", "_sender", "_waiting")

    def __init__(self, send: Report) -> None:
        self._send = send
        self._waiting: collections.deque[tuple[Any, Any, Any]] = collections.deque(maxlen=_BACKLOG)
        self._sender: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def put(self, report: tuple[Any, Any, Any]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a sync tool's thread has no loop: dropped, as ever
            logger.debug("an async progress callback was called outside an event loop: dropped")
            return
        if loop is not self._loop:  # (a `Progress` a program shares between loops)
            self._loop, self._sender = loop, None
            self._waiting.clear()
        self._waiting.append(report)
        if self._sender is None:  # (one loop's thread: no race with `_drain`'s end)
            self._sender = task = loop.create_task(self._drain())
            _PENDING.add(task)
            task.add_done_callback(_PENDING.discard)

    async def _drain(self) -> None:
        waiting = self._waiting
        try:
            while waiting:
                try:
                    await self._send(*waiting.popleft())
                except Exception:  # a report never fails the call that makes it
                    logger.debug("a progress report failed", exc_info=True)
        finally:
            if self._sender is asyncio.current_task():
                self._sender = None


def _is_async(send: Report) -> bool:
    """Whether ``send`` is an async callable (a coroutine function, or an object whose
    ``__call__`` is one)."""
    return inspect.iscoroutinefunction(send) or inspect.iscoroutinefunction(
        getattr(send, "__call__", None)  # noqa: B004 (its __call__, not whether callable)
    )


_NOWHERE = Progress()
_PENDING: set[asyncio.Task[Any]] = set()  # async callbacks' reports, kept alive until done


def _schedule(sent: Coroutine[Any, Any, Any]) -> None:
    """An async callback's report: run on the caller's loop (an async tool's); a sync
    tool's thread has none, and the report is dropped (never an unawaited coroutine)."""
    try:
        task = asyncio.get_running_loop().create_task(sent)
    except RuntimeError:
        sent.close()
        logger.debug("an async progress callback was called outside an event loop: dropped")
        return
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)


def no_progress() -> Progress:
    """The reporter of a call whose caller asked for no progress: it does nothing."""
    return _NOWHERE


def reporter_of(value: Any) -> Progress:
    """The reporter for ``context["progress"]``: a `Progress` as is, a callable wrapped,
    anything else (``None``, a value that cannot be called) a reporter doing nothing."""
    if isinstance(value, Progress):
        return value
    return Progress(value) if callable(value) else _NOWHERE


def is_progress(tp: Any) -> bool:
    """Whether ``tp`` (without ``Annotated``) is ``Progress`` or ``Progress | None``."""
    if tp is Progress:
        return True
    if get_origin(tp) in (Union, types.UnionType):
        members = set(get_args(tp))
        return Progress in members and members <= {Progress, type(None)}
    return False

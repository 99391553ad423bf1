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

Each call reports through a reporter of its own (`CallProgress`, made by
`reporter_of`), which the call's face ends when the call answers: what was reported
before the answer is delivered before it (an async callback's reports awaited, at most
`_FLUSH_BOUND` seconds), and nothing after it — a sync tool's thread abandoned on a
timeout or a cancellation, or a thread the tool started, reports on into nothing.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import inspect
import logging
import time
import types
from collections.abc import Callable, Coroutine
from typing import Any, Union, get_args, get_origin

__all__ = [
    "PROGRESS_KEY",
    "CallProgress",
    "Progress",
    "end_reports",
    "finish_reports",
    "finish_reports_async",
    "is_progress",
    "no_progress",
    "reporter_of",
]

PROGRESS_KEY = "progress"  # the context key a reporter's callback is read from

Report = Callable[[float, "float | None", "str | None"], Any]

logger = logging.getLogger("tooldeck")
_BACKLOG = 16  # an async callback's reports waiting, at most (see `_AsyncReports`)
_FLUSH_BOUND = 5.0  # seconds an answer waits, at most, for an async callback's reports
_END_WAIT = 1.0  # seconds an answer waits, at most, for a sync callback running then


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

    __slots__ = ("_ended", "_loop", "_send", "_sender", "_waiting")

    def __init__(self, send: Report) -> None:
        self._send = send
        self._waiting: collections.deque[tuple[Any, Any, Any]] = collections.deque(maxlen=_BACKLOG)
        self._sender: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ended = False

    def put(self, report: tuple[Any, Any, Any]) -> None:
        if self._ended:
            return
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
            while waiting and not self._ended:
                try:
                    await self._send(*waiting.popleft())
                except Exception:  # a report never fails the call that makes it
                    logger.debug("a progress report failed", exc_info=True)
        finally:
            if self._sender is asyncio.current_task():
                self._sender = None

    def flush(self) -> None:
        """Wait (at most `_FLUSH_BOUND` seconds) until what waits has been sent, from
        any thread but the reporting loop's own (see `flush_async` there)."""
        loop, sender = self._loop, self._sender
        if loop is None or sender is None or sender.done() or _running_loop() is loop:
            return
        try:
            waited = asyncio.run_coroutine_threadsafe(_quietly(sender), loop)
            waited.result(_FLUSH_BOUND)
        except (RuntimeError, concurrent.futures.TimeoutError):  # a closed loop; too slow
            pass

    async def flush_async(self) -> None:
        """`flush`, awaited on whatever loop the caller runs on."""
        loop, sender = self._loop, self._sender
        if loop is None or sender is None or sender.done():
            return
        if loop is asyncio.get_running_loop():
            await asyncio.wait([sender], timeout=_FLUSH_BOUND)
            return
        try:
            waited = asyncio.run_coroutine_threadsafe(_quietly(sender), loop)
            await asyncio.wait([asyncio.wrap_future(waited)], timeout=_FLUSH_BOUND)
        except RuntimeError:  # its loop has closed
            pass

    def end(self) -> None:
        """Drop what waits and anything put from now on; stop a callback running."""
        self._ended = True
        self._waiting.clear()
        loop, sender = self._loop, self._sender
        if loop is None or sender is None or sender.done():
            return
        if _running_loop() is loop:
            sender.cancel()
        else:
            with contextlib.suppress(RuntimeError):  # its loop has closed: the sender too
                loop.call_soon_threadsafe(sender.cancel)


async def _quietly(task: asyncio.Future[Any]) -> None:
    """Until ``task`` is done, whatever its outcome (awaited without taking it over)."""
    await asyncio.wait([task])


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class CallProgress(Progress):
    """One call's reporter (see the module docstring): reports until `end`, none after.

    A report counts itself in `_active`, then reads its callback again; `end` drops the
    callback, then waits (at most `_END_WAIT` seconds) for reports counted: so no
    callback starts after the call has answered, and no lock is taken per report (a
    list's ``append`` and ``pop`` are atomic).
    """

    __slots__ = ("_active",)

    def __init__(self, send: Report) -> None:
        super().__init__(send)
        self._active: list[None] = []

    def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None:
        if self._send is None:
            return
        active = self._active
        active.append(None)
        try:  # (`Progress.__call__` inline: a tool may report 100,000 times)
            send = self._send  # again, now counted: `end` waits for it, or it sees None
            if send is None:
                return
            if self._queue is not None:
                self._queue.put((done, total, message))
                return
            sent = send(done, total, message)
            if sent is not None and inspect.iscoroutine(sent):
                _schedule(sent)
        except Exception:  # a report never fails the call that makes it
            logger.debug("a progress report failed", exc_info=True)
        finally:
            active.pop()

    def finish(self) -> None:
        """The call answers (from sync code): what waits is delivered, then `end`."""
        queue = self._queue
        if queue is not None:
            queue.flush()
        self.end()

    async def finish_async(self) -> None:
        """The call answers (from async code): what waits is delivered, then `end`."""
        queue = self._queue
        if queue is not None:
            await queue.flush_async()
        self._send = None
        if self._active:  # a sync callback runs in another thread: waited for off the loop
            await asyncio.to_thread(self.end)
        elif queue is not None:
            queue.end()

    def end(self) -> None:
        """Drop every report from now on (and any an async callback has yet to take)."""
        self._send = None
        if self._active:  # a report under way in another thread: until it is done
            deadline = time.monotonic() + _END_WAIT
            while self._active and time.monotonic() < deadline:
                time.sleep(0.001)
        if self._queue is not None:
            self._queue.end()


def finish_reports(args: dict[str, Any]) -> None:
    """A call of these arguments answers (sync): its reporters finish (`CallProgress`)."""
    for value in args.values():
        if type(value) is CallProgress:
            value.finish()


async def finish_reports_async(args: dict[str, Any]) -> None:
    """Async twin of `finish_reports`."""
    for value in args.values():
        if type(value) is CallProgress:
            await value.finish_async()


def end_reports(args: dict[str, Any]) -> None:
    """A call of these arguments is over without an answer to wait for (cancelled):
    its reporters end at once."""
    for value in args.values():
        if type(value) is CallProgress:
            value.end()


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
    """A call's reporter for ``context["progress"]``: a `CallProgress` of its own
    reporting to a callable (to a `Progress`'s own callback for a plain `Progress`,
    which a program may share between calls), else (``None``, a value that cannot be
    called) a reporter doing nothing."""
    if type(value) is Progress:
        send = value._send
        return _NOWHERE if send is None else CallProgress(send)
    return CallProgress(value) if callable(value) else _NOWHERE


def is_progress(tp: Any) -> bool:
    """Whether ``tp`` (without ``Annotated``) is ``Progress`` or ``Progress | None``."""
    if tp is Progress:
        return True
    if get_origin(tp) in (Union, types.UnionType):
        members = set(get_args(tp))
        return Progress in members and members <= {Progress, type(None)}
    return False

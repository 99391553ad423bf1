"""Worker threads: sync tools called from async code, and calls with a timeout.

* An async call of a plain function runs it in a worker thread (`to_thread`), so a
  blocking tool never blocks the event loop.
* A call with a timeout runs in a daemon thread of its own (`call_in_thread`,
  `wait_in_thread`): a thread cannot be killed, so when the timeout fires it is
  abandoned (not joined), logged, and counted in `abandoned_threads`. A `ThreadLot`
  bounds how many of one tool's abandoned threads may still run: past that, its calls
  fail at once instead of piling up threads until none can start.
* `waiting` tells whether a thread is blocked in one of these waits: the background
  loop uses it to know when it is held by a nested sync call.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

__all__ = [
    "CallTimeout",
    "ThreadLot",
    "TooManyAbandoned",
    "abandoned_threads",
    "call_in_thread",
    "to_thread",
    "wait_in_thread",
    "wait_watched",
    "waiting",
]

R = TypeVar("R")

logger = logging.getLogger("tooldeck")

_abandoned = 0
_lock = threading.Lock()
# Threads blocked in a wait of this module, and how deep (their own entries only).
_waits: dict[int, int] = {}


def _fresh_after_fork() -> None:
    """A lock another thread held stays held in a forked child: start afresh."""
    global _lock, _waits
    _lock, _waits = threading.Lock(), {}


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_fresh_after_fork)


class CallTimeout(TimeoutError):
    """A call ran past its timeout (distinct from a ``TimeoutError`` the tool raised)."""


class TooManyAbandoned(RuntimeError):
    """A tool's call was refused: too many of its timed-out threads still run."""


class ThreadLot:
    """The abandoned threads of one tool that still run, at most ``limit()`` of them.

    Args:
        limit: Read on every call (``None``: no limit), so a tool's setting may change.
    """

    __slots__ = ("_limit", "running")

    def __init__(self, limit: Callable[[], int | None]) -> None:
        self._limit = limit
        self.running = 0  # changed under the module lock

    def admit(self) -> None:
        limit = self._limit()
        if limit is not None and self.running >= limit:
            raise TooManyAbandoned(
                f"{self.running} of its calls still run after timing out, the most it may "
                f"leave running ({limit}); try again once they finish"
            )


@contextlib.contextmanager
def _waiting_here() -> Iterator[None]:
    ident = threading.get_ident()
    with _lock:
        _waits[ident] = _waits.get(ident, 0) + 1
    try:
        yield
    finally:
        with _lock:
            depth = _waits.pop(ident) - 1
            if depth:
                _waits[ident] = depth


def waiting(thread: threading.Thread | None) -> bool:
    """Whether ``thread`` is blocked in `call_in_thread` right now."""
    return thread is not None and thread.ident in _waits


async def to_thread(func: Callable[..., R], /, *args: Any, **kwargs: Any) -> R:
    """``asyncio.to_thread``, safe for a function that raises ``StopIteration``.

    asyncio cannot put ``StopIteration`` into a future: the callback copying the
    outcome fails and the awaiting task waits forever. It comes back as a
    ``RuntimeError`` with the same message instead (as PEP 479 does for generators).
    """
    return await asyncio.to_thread(_no_stop_iteration, func, args, kwargs)


def _no_stop_iteration(func: Callable[..., R], args: tuple[Any, ...], kwargs: dict[str, Any]) -> R:
    try:
        return func(*args, **kwargs)
    except StopIteration as exc:
        raise RuntimeError(str(exc) or type(exc).__name__) from exc


class _Outcome:
    __slots__ = ("abandoned", "error", "finished", "lot", "value")

    def __init__(self, lot: ThreadLot | None) -> None:
        self.value: Any = None
        self.error: BaseException | None = None
        self.lot = lot
        self.finished = False
        self.abandoned = False


def _start_daemon(
    func: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    done: Callable[[], Any],
    lot: ThreadLot | None,
) -> _Outcome:
    if lot is not None:
        lot.admit()
    outcome = _Outcome(lot)
    # Like asyncio.to_thread: the tool sees the caller's context variables (a request
    # id, a tracing span), with or without a timeout.
    context = contextvars.copy_context()

    def target() -> None:
        try:
            outcome.value = context.run(_no_stop_iteration, func, args, kwargs)
        except BaseException as exc:  # handed to the caller, who re-raises it
            outcome.error = exc
        _finish(outcome)
        done()

    threading.Thread(target=target, name="tooldeck-call", daemon=True).start()
    return outcome


def _finish(outcome: _Outcome) -> None:
    with _lock:
        outcome.finished = True
        if outcome.abandoned and outcome.lot is not None:
            outcome.lot.running -= 1  # an abandoned thread is done at last


def _abandon(func: Callable[..., Any], timeout: float, outcome: _Outcome) -> None:
    global _abandoned
    with _lock:  # timeouts fire in many threads at once
        if outcome.finished:
            return  # it finished just now: nothing to abandon
        outcome.abandoned = True
        if outcome.lot is not None:
            outcome.lot.running += 1
        _abandoned += 1
        count = _abandoned
    logger.warning(
        "abandoned a worker thread still running %s after its %gs timeout "
        "(threads cannot be killed; %d abandoned so far)",
        getattr(func, "__qualname__", func),
        timeout,
        count,
    )


Deadline = Callable[[], "float | None"]
_POLL = 0.05  # seconds between two looks at a moving deadline


def wait_watched(wait: Callable[[float], bool], deadline: Deadline) -> bool:
    """Wait (``wait(seconds)`` → done) until done or ``deadline()`` has passed; done?

    ``deadline()`` is a `time.monotonic` time, or ``None`` for none yet; it is asked
    again every few hundredths of a second, as it may move (a call of a turn starts).
    """
    while True:
        until = deadline()
        step = _POLL if until is None else min(_POLL, until - time.monotonic())
        if step <= 0:
            return wait(0)
        if wait(step):
            return True


def call_in_thread(
    func: Callable[..., R],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    timeout: float | None,
    lot: ThreadLot | None = None,
    deadline: Deadline | None = None,
) -> R:
    """Run ``func`` in a daemon thread, waiting at most ``timeout`` seconds (or until
    ``deadline``, see `wait_watched`).

    Raises:
        CallTimeout: the thread was still running; it is abandoned.
        TooManyAbandoned: ``lot`` is full; nothing was started.
    """
    finished = threading.Event()
    with _waiting_here():  # marked before the thread starts: it may call back at once
        outcome = _start_daemon(func, args, kwargs, finished.set, lot)
        done = finished.wait(timeout) if deadline is None else wait_watched(finished.wait, deadline)
    if not done:
        _abandon(func, timeout or 0.0, outcome)
        raise CallTimeout
    if outcome.error is not None:
        raise outcome.error
    return cast(R, outcome.value)


async def wait_in_thread(
    func: Callable[..., R],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    timeout: float,
    lot: ThreadLot | None = None,
) -> R:
    """Async twin of `call_in_thread` that keeps the event loop free.

    The default executor is not used: an abandoned thread would hold one of its few
    workers for good.
    """
    loop = asyncio.get_running_loop()
    waiter = loop.create_future()

    def done() -> None:
        # The loop may have closed while an abandoned thread ran on.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_resolve, waiter)

    outcome = _start_daemon(func, args, kwargs, done, lot)
    try:
        await asyncio.wait_for(waiter, timeout)
    except asyncio.TimeoutError:  # the waiter is ours: only the timeout can raise this
        _abandon(func, timeout, outcome)
        raise CallTimeout from None
    if outcome.error is not None:
        raise outcome.error
    return cast(R, outcome.value)


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def abandoned_threads() -> int:
    """How many timed-out worker threads have been abandoned in this process."""
    return _abandoned

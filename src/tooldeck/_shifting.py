"""Moving callables between the sync and async worlds.

* A sync call of a coroutine function runs the coroutine on one long-lived event loop
  in a daemon thread (the *background loop*). That works the same in a plain script,
  in Jupyter, inside an async server and from worker threads, and async resources a
  tool keeps (an HTTP client) live on the same loop.
* A sync call made while that loop cannot take it — from a coroutine running on it
  (an async tool calling ``call_tool``), or while it is held by such a call (a sync
  call waiting there, at any depth) — runs on a fresh loop in a thread of its own
  instead, so nested sync calls never deadlock and never leave the loop blocked.
* An async call of a plain function runs it in a worker thread, so a blocking tool
  never blocks the event loop.
* Threads (a call with a timeout, a sync tool called from async code) are
  `tooldeck._threads`'.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, NoReturn, TypeVar, cast

from typing_extensions import ParamSpec

from ._threads import CallTimeout, Deadline, call_in_thread, to_thread, wait_watched, waiting

__all__ = [
    "LOOP_GRACE",
    "asyncify",
    "background_loop",
    "is_async_callable",
    "run_coroutine",
    "run_in_daemon_thread",
    "syncify",
    "with_timeout",
]

P = ParamSpec("P")
R = TypeVar("R")

logger = logging.getLogger("tooldeck")

_loop: asyncio.AbstractEventLoop | None = None
_loop_thread: threading.Thread | None = None
_loop_lock = threading.Lock()

# Seconds a sync caller waits past an async tool's timeout for the background loop to
# fire it; past that the loop is blocked (a coroutine on it does not yield), and the
# caller gets the timeout anyway instead of waiting for the loop.
LOOP_GRACE = 1.0
WORKERS = 64  # worker threads for sync tools called through the background loop
_workers = threading.local()  # ``.mine`` is set in those threads


def _mark_worker() -> None:
    _workers.mine = True


def _forget_loop_after_fork() -> None:
    """A forked child has the parent's loop object but not its thread: start afresh,
    or every sync call of an async tool in the child (multiprocessing's "fork",
    gunicorn's preloaded workers) would wait forever."""
    global _loop, _loop_thread, _loop_lock
    _loop, _loop_thread, _loop_lock = None, None, threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_forget_loop_after_fork)


def is_async_callable(func: Any) -> bool:
    """True for coroutine functions, also behind ``functools.partial`` or ``__call__``."""
    while isinstance(func, functools.partial):
        func = func.func
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
        getattr(func, "__call__", None)  # noqa: B004 - an async __call__ is what we look for
    )


def background_loop() -> asyncio.AbstractEventLoop:
    """The event loop, running forever in a daemon thread, that sync calls use."""
    global _loop, _loop_thread
    loop = _loop
    if loop is not None:
        return loop
    with _loop_lock:
        if _loop is None:
            new_loop = asyncio.new_event_loop()
            # Sync tools called from here run in its default executor: asyncio's holds
            # min(32, CPUs + 4) threads (6 on 2 cores), so ten blocking calls of one
            # reply would queue. Threads are made as needed, up to this many.
            new_loop.set_default_executor(
                concurrent.futures.ThreadPoolExecutor(
                    WORKERS, thread_name_prefix="tooldeck-worker", initializer=_mark_worker
                )
            )

            _loop_thread = run_in_daemon_thread(new_loop, "tooldeck-loop")
            _loop = new_loop
        return _loop


def run_in_daemon_thread(loop: asyncio.AbstractEventLoop, name: str) -> threading.Thread:
    """Run ``loop`` forever in a daemon thread of its own; return once it runs."""
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    ready.wait()
    return thread


def run_coroutine(
    coro: Coroutine[Any, Any, R], timeout: float | None = None, *, deadline: Deadline | None = None
) -> R:
    """Run ``coro`` to completion from synchronous code and return its result.

    ``deadline`` (a `time.monotonic` time, asked again as it may move; ``None``: none
    yet) is when the caller stops waiting for a loop that cannot finish the coroutine:
    a turn of calls whose timed call overran its timeout, which a loop only misses
    when a coroutine on it blocks.

    Raises:
        CallTimeout: ``timeout`` seconds passed, or ``deadline``; the coroutine is
            cancelled.
    """
    if timeout is not None:
        coro = with_timeout(coro, timeout)
    loop_thread = _loop_thread
    if (
        threading.current_thread() is loop_thread
        or waiting(loop_thread)
        or getattr(_workers, "mine", False)
    ):
        return _run_apart(coro, timeout, deadline)
    future = asyncio.run_coroutine_threadsafe(_capture(coro), background_loop())
    try:
        if timeout is not None and not concurrent.futures.wait((future,), timeout + LOOP_GRACE)[0]:
            _blocked_loop(timeout)
        if deadline is not None and not wait_watched(
            lambda seconds: bool(concurrent.futures.wait((future,), seconds)[0]), deadline
        ):
            _blocked_loop(None)
        return _unwrap(future.result())
    except BaseException:
        future.cancel()  # KeyboardInterrupt while waiting: stop the coroutine too
        raise


def _run_apart(
    coro: Coroutine[Any, Any, R], timeout: float | None, deadline: Deadline | None = None
) -> R:
    """Run ``coro`` on a loop of its own, in a thread of its own, and wait for it.

    For when the background loop cannot take it: this thread *is* that loop (a
    coroutine on it made a sync call), or the loop is held by such a call, which may
    be waiting for this very one. Blocking on the loop would deadlock either way. Or
    this thread is one of the loop's workers (a sync tool the loop runs made the
    call): with every worker so waiting, a sync tool the coroutine calls in turn would
    find no worker left, and each would wait for the others forever.
    """
    wait = None if timeout is None else timeout + LOOP_GRACE  # a coroutine that never yields
    outcome: tuple[R | None, BaseException | None] = call_in_thread(
        asyncio.run, (_capture(coro),), {}, timeout=wait, deadline=deadline
    )
    return _unwrap(outcome)


def _blocked_loop(timeout: float | None) -> NoReturn:
    """The loop did not even fire the timeout: a coroutine on it blocks. Stop waiting."""
    what = "a call's timeout" if timeout is None else f"a {timeout:g}s timeout"
    logger.warning(
        "tooldeck's event loop did not fire %s within %gs: a coroutine on it "
        "blocks (an async tool calling blocking code?); async tools called from sync code "
        "stall until it yields",
        what,
        LOOP_GRACE,
    )
    raise CallTimeout


async def _capture(awaitable: Awaitable[R]) -> tuple[R | None, BaseException | None]:
    """Await, catching ``KeyboardInterrupt``/``SystemExit`` to re-raise at the caller.

    asyncio re-raises those two out of the event loop itself, which would stop the
    background loop (or escape ``asyncio.run``) instead of reaching the caller.
    """
    try:
        return await awaitable, None
    except (KeyboardInterrupt, SystemExit) as exc:
        return None, exc


def _unwrap(outcome: tuple[R | None, BaseException | None]) -> R:
    value, exc = outcome
    if exc is not None:
        raise exc
    return cast(R, value)


async def with_timeout(awaitable: Awaitable[R], timeout: float) -> R:
    """Await ``awaitable`` for at most ``timeout`` seconds, then cancel it.

    Unlike ``asyncio.wait_for``, a ``TimeoutError`` raised by the awaitable itself is
    not mistaken for the timeout.

    Raises:
        CallTimeout: the timeout fired.
    """
    task = asyncio.ensure_future(_capture(awaitable))
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except BaseException:  # cancelled from outside: cancel the work too
        task.cancel()
        raise
    if not done:
        task.cancel()
        raise CallTimeout
    return _unwrap(task.result())


def syncify(func: Callable[P, Awaitable[R]] | Callable[P, R]) -> Callable[P, R]:
    """A synchronous callable for ``func``; plain functions are returned unchanged."""
    if not is_async_callable(func):
        return cast(Callable[P, R], func)
    async_func = cast(Callable[P, Coroutine[Any, Any, R]], func)

    @functools.wraps(async_func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        return run_coroutine(async_func(*args, **kwargs))

    return wrapper


def asyncify(func: Callable[P, Awaitable[R]] | Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """An async callable for ``func``: plain functions run in a worker thread.

    Coroutine functions are returned unchanged.
    """
    if is_async_callable(func):
        return cast(Callable[P, Awaitable[R]], func)
    sync_func = cast(Callable[P, R], func)

    @functools.wraps(sync_func)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        return await to_thread(sync_func, *args, **kwargs)

    return wrapper

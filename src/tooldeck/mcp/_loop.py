"""The event loop MCP sessions live on: a daemon thread of its own.

A session belongs to the loop that opened it (its reader is a task there), so every
session is opened, used and closed on this one loop, and calls from any thread or
event loop are handed to it.

Why not tooldeck's background loop (`tooldeck._shifting.background_loop`): that loop
runs the async tools that sync code calls. An async tool that calls a proxy
synchronously blocks it while it waits, and a session living there could never
answer: the call would wait forever. This loop runs no tool code of tooldeck's
(`tooldeck.mcp._provider` moves a served tool off it), so a sync call waiting on it
always gets its answer.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from tooldeck._shifting import run_in_daemon_thread

__all__ = [
    "call",
    "call_sync",
    "drain",
    "loop",
    "on_loop_thread",
    "settle",
    "settle_sync",
    "spawn",
    "started",
    "track",
]

T = TypeVar("T")

_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
_lock = threading.Lock()
_background: set[asyncio.Task[Any]] = set()  # fire-and-forget tasks, kept alive until done


def _forget_loop_after_fork() -> None:
    """A forked child has the parent's loop object but not its thread: start afresh
    (as `tooldeck._shifting` does), or every MCP call in the child would wait forever."""
    global _loop, _thread, _lock, _background
    _loop, _thread, _lock, _background = None, None, threading.Lock(), set()


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_forget_loop_after_fork)


def loop() -> asyncio.AbstractEventLoop:
    """The MCP loop, running forever in a daemon thread (started on first use)."""
    global _loop, _thread
    current = _loop
    if current is not None:
        return current
    with _lock:
        if _loop is None:
            new_loop = asyncio.new_event_loop()
            _thread = run_in_daemon_thread(new_loop, "tooldeck-mcp")
            _loop = new_loop
        return _loop


def started() -> bool:
    """Whether the MCP loop has been started (in this process)."""
    return _loop is not None


def on_loop_thread() -> bool:
    """Whether the caller runs on the MCP loop's own thread."""
    return _thread is not None and threading.current_thread() is _thread


async def call(coro: Coroutine[Any, Any, T], bound: float | None) -> T:
    """Await ``coro`` on the MCP loop from any event loop, for at most ``bound`` seconds.

    ``coro`` bounds itself; ``bound`` only guards against a loop that stopped
    answering. Cancelling the caller cancels ``coro``.

    Raises:
        TimeoutError: ``bound`` passed (``coro`` is cancelled).
    """
    if on_loop_thread():  # an in-process server's tool, already on this loop
        return await coro
    future = asyncio.run_coroutine_threadsafe(coro, loop())
    try:
        return await asyncio.wait_for(asyncio.wrap_future(future), bound)
    except asyncio.TimeoutError:
        raise TimeoutError(f"tooldeck's MCP loop did not answer within {bound:g} seconds") from None


def call_sync(coro: Coroutine[Any, Any, T], bound: float | None) -> T:
    """Run ``coro`` on the MCP loop from synchronous code and wait at most ``bound`` s.

    Raises:
        RuntimeError: Called from the MCP loop's own thread, which would wait on itself.
        TimeoutError: ``bound`` passed (``coro`` is cancelled).
    """
    if on_loop_thread():
        coro.close()
        raise RuntimeError(
            "a sync call of an MCP proxy from code running on tooldeck's MCP loop (a tool "
            "of an in-process server) would wait on itself; await its async twin instead"
        )
    future = asyncio.run_coroutine_threadsafe(coro, loop())
    try:
        return future.result(bound)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise TimeoutError(f"tooldeck's MCP loop did not answer within {bound:g} seconds") from None
    except BaseException:
        future.cancel()  # interrupted while waiting (KeyboardInterrupt): stop the work too
        raise


def spawn(coro: Coroutine[Any, Any, Any]) -> None:
    """Run ``coro`` on the MCP loop without waiting for it (cleanup that may be slow).

    Callable from any thread, the loop's own included.
    """
    target = loop()

    def start() -> None:
        track(target.create_task(coro))

    if on_loop_thread():
        start()
    else:
        target.call_soon_threadsafe(start)


def settle_sync(coro: Coroutine[Any, Any, Any], bound: float) -> None:
    """Run ``coro`` on the MCP loop (cleanup) and wait at most ``bound`` seconds for it;
    past that it runs on, as with `spawn`. Never raises what ``coro`` does."""
    if on_loop_thread():
        spawn(coro)  # waiting here would wait on ourselves
        return
    future = asyncio.run_coroutine_threadsafe(_tracked(coro), loop())
    with contextlib.suppress(Exception):  # not cancelled when the bound passes
        future.result(max(bound, 0.0))


async def settle(coro: Coroutine[Any, Any, Any], bound: float) -> None:
    """Async twin of `settle_sync`: cancelling the caller does not cancel ``coro``."""
    if on_loop_thread():
        spawn(coro)
        return
    future = asyncio.run_coroutine_threadsafe(_tracked(coro), loop())
    await asyncio.wait([asyncio.wrap_future(future)], timeout=max(bound, 0.0))


async def _tracked(coro: Coroutine[Any, Any, Any]) -> None:
    task = asyncio.current_task()
    if task is not None:
        track(task)  # `drain` waits for it at exit
    with contextlib.suppress(Exception):
        await coro


def track(task: asyncio.Task[Any]) -> None:
    """Keep a fire-and-forget task alive until done, and let `drain` wait for it."""
    _background.add(task)
    task.add_done_callback(_background.discard)


def drain(work: list[Coroutine[Any, Any, Any]], bound: float) -> None:
    """Run ``work`` and every task started with `spawn`/`track`, waiting at most ``bound``
    seconds for all of them (for exit: the loop's thread dies with the interpreter)."""
    current = _loop
    if current is None or current.is_closed():
        for coro in work:
            coro.close()
        return

    async def finish() -> None:
        pending = [*(asyncio.ensure_future(coro) for coro in work), *_background]
        if pending:
            await asyncio.wait(pending, timeout=bound)

    with contextlib.suppress(Exception):  # at exit, nothing is left to report it to
        asyncio.run_coroutine_threadsafe(finish(), current).result(bound + 1)

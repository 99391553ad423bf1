"""`ConcurrencyLimit`: at most ``n`` calls at once, across threads and event loops.

One pool of ``n`` slots per key value, guarded by a `threading.Lock` (held only to count,
never across a wait), shared by every caller: the sync faces' threads and any number of
event loops (an async server's, tooldeck's background loop, another thread's
``asyncio.run``). A per-loop ``asyncio.Semaphore`` could not do this: each loop would
count alone.

A caller that finds no slot free queues a waiter and waits for its turn (first come,
first served): a sync caller blocks its own thread on a lock of its own; an async
caller awaits a future of its own loop, so its loop keeps running. Releasing a slot
hands it to the first waiter directly (a sync one: its lock released; an async one: its
future resolved through ``call_soon_threadsafe``, the thread-safe way into its loop),
so a slot is never free while someone waits for it. A waiter cancelled (or
interrupted) gives back a slot handed to it in the meantime; a waiter whose loop has
closed is skipped.

A sync call made inside a coroutine (an async tool calling ``call_tool``) that finds no
slot free fails at once, saying so, instead of blocking that coroutine's event loop
(tooldeck's background loop, perhaps, where the calls holding the slots run).

A call made from inside a call that holds a slot (a tool calling the registry again,
at any depth, sync or async) runs in that slot: with every slot held by callers
waiting for their own inner calls, nothing could ever run again. The slots a call
holds are a context variable, which follows it into worker threads, tasks and
tooldeck's background loop; each slot is marked given back when its call returns, so
a task the call started that calls the registry later takes a slot of its own.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from tooldeck._result import ToolResult, clip, type_name

from ._call import Call
from ._keys import key_text
from ._select import Builtin, Key, KeyReader, in_a_loop, key_failure

__all__ = ["ConcurrencyLimit"]

W = TypeVar("W", bound="_Waiter")

# The slots the current call holds, outermost first: [pools, key value, still held].
# A task or thread the call started keeps this context after the call has returned its
# slot: the flag, cleared then, keeps its later calls from running in a slot not held.
_held: contextvars.ContextVar[tuple[list[Any], ...]] = contextvars.ContextVar(
    "tooldeck_concurrency_slots", default=()
)


def _holds(held: tuple[list[Any], ...], pools: Any, key: Any) -> bool:
    """Whether the current call holds a slot of ``pools`` for ``key`` (still)."""
    return any(slot[0] is pools and slot[2] and slot[1] == key for slot in held)


class _Waiter:
    """A sync caller waiting for a slot: it blocks on a lock of its own."""

    __slots__ = ("granted", "lock")

    def __init__(self) -> None:
        self.granted = False  # a slot was handed to it
        self.lock = threading.Lock()
        self.lock.acquire()  # released when the slot is handed over

    def wake(self) -> bool:
        """Hand it the slot (under the pool's lock); False when it cannot take it."""
        self.granted = True
        self.lock.release()
        return True

    def wait(self) -> None:
        self.lock.acquire()


class _AsyncWaiter(_Waiter):
    """An async caller waiting for a slot: it awaits a future of its own loop."""

    __slots__ = ("future", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:  # (no lock of its own)
        self.granted = False
        self.loop = loop
        self.future: asyncio.Future[None] = loop.create_future()

    def wake(self) -> bool:
        self.granted = True
        try:
            self.loop.call_soon_threadsafe(_resolve, self.future)
        except RuntimeError:  # its loop is closed: nobody is waiting there any more
            self.granted = False
            return False
        return True


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():  # (cancelled meanwhile: the waiter gives the slot back)
        future.set_result(None)


class _Pools:
    """``n`` slots per key value; a pool is dropped once all its slots are free."""

    __slots__ = ("free", "lock", "n", "waiters")

    def __init__(self, n: int) -> None:
        self.n = n
        self.lock = threading.Lock()
        self.free: dict[Any, int] = {}  # key value -> free slots (absent: n)
        self.waiters: dict[Any, deque[_Waiter]] = {}

    def take(self, key: Any, make: Callable[[], W]) -> W | None:
        """A slot now (None), or the waiter (made by ``make``) to wait on."""
        with self.lock:
            free = self.free.get(key, self.n)
            if free > 0 and key not in self.waiters:
                self.free[key] = free - 1
                return None
            waiter = make()
            self.waiters.setdefault(key, deque()).append(waiter)
            return waiter

    def give_back(self, key: Any) -> None:
        with self.lock:
            queue = self.waiters.get(key)
            while queue:
                waiter = queue.popleft()
                if not queue:
                    del self.waiters[key]
                if waiter.wake():
                    return  # the slot goes straight to it
                queue = self.waiters.get(key)
            free = self.free[key] + 1
            if free == self.n:
                del self.free[key]
            else:
                self.free[key] = free

    def leave(self, key: Any, waiter: _Waiter) -> None:
        """A waiter gives up (cancelled, interrupted): out of the queue, or its slot back."""
        with self.lock:
            granted = waiter.granted
            if not granted:
                queue = self.waiters[key]
                queue.remove(waiter)
                if not queue:
                    del self.waiters[key]
        if granted:
            self.give_back(key)

    def running(self, key: Any = None) -> int:
        with self.lock:
            return self.n - self.free.get(key, self.n)


class ConcurrencyLimit(Builtin):
    """At most ``n`` calls of the chosen tools run at once; the others wait their turn.

    Counted across threads and event loops (one limit for a process's sync callers,
    its async server, tooldeck's own loop). A sync caller waits in its thread; an async
    caller waits without blocking its event loop; a waiting call cancelled takes no
    slot.

    Args:
        n: How many calls may run at once (per key value).
        key: ``None`` (one pool for all calls), a context key (one pool per value of
            ``call.context[key]``; calls whose context lacks it share one), or a
            callable of the `Call` returning a hashable value.
        tools: The names of the tools it applies to.
        tags: It applies to the tools with any of these tags (with ``tools``: either).

    Raises:
        TypeError, ValueError: ``n`` is not a positive int; ``key`` is none of those.
    """

    __slots__ = ("_key", "_pools", "n")

    def __init__(
        self,
        n: int,
        *,
        key: str | Key | None = None,
        tools: str | Iterable[str] | None = None,
        tags: str | Iterable[str] | None = None,
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"ConcurrencyLimit(n): n must be an int, not {type_name(n)}")
        if n < 1:
            raise ValueError(f"ConcurrencyLimit(n): n must be at least 1, not {n}")
        super().__init__(tools, tags)
        self.n = n
        self._key = KeyReader(key)
        self._pools = _Pools(n)

    def _settings(self) -> list[str]:
        return [str(self.n), self._key.settings()]

    def running(self, key: Any = None) -> int:
        """How many calls hold a slot now (of the pool of ``key``'s value)."""
        return self._pools.running(None if key is None else key_text(key))

    def __call__(self, call: Call, call_next: Callable[[Call], ToolResult]) -> ToolResult:
        if not self._selection.chooses(call):
            return call_next(call)
        key = None
        if self._key.read is not None:
            try:
                key = self._key(call)
            except Exception as exc:
                return key_failure("ConcurrencyLimit", call, exc)
        pools = self._pools
        held = _held.get()
        if held and _holds(held, pools, key):  # inside a call holding this slot: run in it
            return call_next(call)
        waiter = pools.take(key, _Waiter)
        if waiter is not None:
            if in_a_loop():  # waiting would block it: a sync call made from a coroutine
                pools.leave(key, waiter)
                return ToolResult.fail(
                    f"ConcurrencyLimit: no slot is free for tool '{clip(call.name)}', and this "
                    "sync call runs inside an event loop, which waiting would block: call it "
                    "with an async face (await async_call_tool or execute)"
                )
            try:
                waiter.wait()
            except BaseException:  # interrupted (KeyboardInterrupt) while waiting
                pools.leave(key, waiter)
                raise
        slot = [pools, key, True]
        token = _held.set((*held, slot))
        try:
            return call_next(call)
        finally:
            slot[2] = False
            _held.reset(token)
            pools.give_back(key)

    async def acall(
        self, call: Call, call_next: Callable[[Call], Awaitable[ToolResult]]
    ) -> ToolResult:
        if not self._selection.chooses(call):
            return await call_next(call)
        key = None
        if self._key.read is not None:
            try:
                key = self._key(call)
            except Exception as exc:
                return key_failure("ConcurrencyLimit", call, exc)
        pools = self._pools
        held = _held.get()
        if held and _holds(held, pools, key):
            return await call_next(call)
        loop = asyncio.get_running_loop()
        waiter = pools.take(key, lambda: _AsyncWaiter(loop))
        if waiter is not None:
            try:
                await waiter.future
            except BaseException:  # cancelled while waiting: no slot kept
                pools.leave(key, waiter)
                raise
        slot = [pools, key, True]
        token = _held.set((*held, slot))
        try:
            return await call_next(call)
        finally:
            slot[2] = False
            _held.reset(token)
            pools.give_back(key)

"""Sync/async shifting: ``syncify`` / ``asyncify``, sync calls of async tools everywhere
(plain code, inside a running loop, from worker threads), async calls of blocking sync
tools that keep the loop free, per-tool timeouts, cancellation, and
``KeyboardInterrupt`` / ``SystemExit`` propagating.

No stopwatch assertions: concurrency is shown by overlapping intervals, a free loop by
ticks that land while a blocking tool runs, abandonment of timed-out threads by a tool
that is still blocked when its call has already answered.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import pytest

from tooldeck import ToolRegistry, ToolResult, abandoned_threads, asyncify, syncify

Interval = tuple[float, float]


def overlap(intervals: list[Interval]) -> bool:
    """True when every interval overlaps every other (they all ran at one moment)."""
    return max(start for start, _ in intervals) < min(end for _, end in intervals)


# --- syncify / asyncify -------------------------------------------------------------------


async def _double(x: int) -> int:
    await asyncio.sleep(0.01)
    return 2 * x


async def _fail(message: str) -> None:
    await asyncio.sleep(0)
    raise LookupError(message)


def _square(x: int) -> int:
    return x * x


def test_syncify_plain_function_is_unchanged() -> None:
    assert syncify(_square) is _square


def test_asyncify_coroutine_function_is_unchanged() -> None:
    assert asyncify(_double) is _double


def test_syncify_in_plain_code() -> None:
    double = syncify(_double)
    assert not asyncio.iscoroutinefunction(double)
    assert double(21) == 42
    assert double.__name__ == "_double"
    assert double.__wrapped__ is _double


async def test_syncify_inside_a_running_loop() -> None:
    assert asyncio.get_running_loop().is_running()
    assert syncify(_double)(5) == 10


def test_syncify_from_threads() -> None:
    double = syncify(_double)
    results: dict[int, int] = {}

    def work(i: int) -> None:
        results[i] = double(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert results == {i: 2 * i for i in range(8)}


def test_syncify_sees_through_partial_and_async_call() -> None:
    class Doubler:
        async def __call__(self, x: int) -> int:
            return await _double(x)

    assert syncify(functools.partial(_double, 4))() == 8
    assert syncify(Doubler())(5) == 10


def test_syncify_propagates_exceptions() -> None:
    with pytest.raises(LookupError, match="missing"):
        syncify(_fail)("missing")


def test_syncify_nested_inside_a_syncified_coroutine() -> None:
    """An async function that itself makes a sync call of another: no deadlock."""

    async def outer(x: int) -> int:
        return syncify(_double)(x) + 1

    assert syncify(outer)(3) == 7


async def test_asyncify_runs_in_a_worker_thread() -> None:
    caller = threading.get_ident()

    def where() -> int:
        return threading.get_ident()

    shifted = asyncify(where)
    assert asyncio.iscoroutinefunction(shifted)
    assert await shifted() != caller
    assert shifted.__name__ == "where"


async def test_asyncify_propagates_exceptions() -> None:
    def boom() -> None:
        raise KeyError("k")

    with pytest.raises(KeyError):
        await asyncify(boom)()


# --- sync calls of async tools ------------------------------------------------------------


@pytest.fixture
def async_registry() -> tuple[ToolRegistry, list[Interval]]:
    registry = ToolRegistry()
    intervals: list[Interval] = []

    @registry.tool
    async def nap(x: int) -> int:
        start = time.monotonic()
        await asyncio.sleep(0.2)
        intervals.append((start, time.monotonic()))
        return x

    return registry, intervals


async def test_sync_call_of_async_tool_inside_a_running_loop(
    async_registry: tuple[ToolRegistry, list[Interval]],
) -> None:
    registry, _ = async_registry
    assert asyncio.get_running_loop().is_running()
    assert registry.call_tool("nap", {"x": 3}) == 3
    assert registry.execute_sync("nap", {"x": 4}) == ToolResult.ok(4)
    assert registry.get("nap").call(x=5) == 5


def test_sync_call_of_async_tool_in_plain_code(
    async_registry: tuple[ToolRegistry, list[Interval]],
) -> None:
    registry, _ = async_registry
    assert registry.call_tool("nap", {"x": "7"}) == 7


def test_sync_calls_of_async_tool_from_eight_threads(
    async_registry: tuple[ToolRegistry, list[Interval]],
) -> None:
    registry, intervals = async_registry
    barrier = threading.Barrier(8)
    results: dict[int, Any] = {}

    def work(i: int) -> None:
        barrier.wait()
        results[i] = registry.call_tool("nap", {"x": i})

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert results == {i: i for i in range(8)}
    assert len(intervals) == 8
    assert overlap(intervals)  # not serialised behind one another


async def test_sync_calls_from_threads_while_the_loop_runs(
    async_registry: tuple[ToolRegistry, list[Interval]],
) -> None:
    """Threads making sync calls while this event loop also awaits async calls."""
    registry, _ = async_registry

    def work(i: int) -> Any:
        return registry.call_tool("nap", {"x": i})

    sync_results = [asyncio.to_thread(work, i) for i in range(4)]
    async_results = [registry.async_call_tool("nap", {"x": 10 + i}) for i in range(4)]
    results = await asyncio.gather(*sync_results, *async_results)
    assert results == [0, 1, 2, 3, 10, 11, 12, 13]


def test_async_tool_making_sync_calls_of_async_tools() -> None:
    """A tool that calls another by name with the sync face, on every path: no deadlock
    on the background loop, inner timeouts still apply."""
    registry = ToolRegistry()

    @registry.tool
    async def inner(x: int) -> int:
        await asyncio.sleep(0)
        return x + 1

    @registry.tool(timeout=0.2)
    async def inner_stuck() -> None:
        await asyncio.sleep(30)

    @registry.tool
    async def outer(x: int) -> list:
        return [registry.call_tool("inner", {"x": x}), registry.call_tool("inner_stuck")]

    expected = [2, "Error: Tool 'inner_stuck' timed out after 0.2 seconds"]
    assert registry.call_tool("outer", {"x": 1}) == expected
    assert asyncio.run(registry.async_call_tool("outer", {"x": 1})) == expected
    assert registry.get_tool_func("outer", shift="sync")(1) == expected


# --- async calls of blocking sync tools ---------------------------------------------------


@pytest.fixture
def blocking_registry() -> tuple[ToolRegistry, list[Interval]]:
    registry = ToolRegistry()
    intervals: list[Interval] = []

    @registry.tool
    def block(x: int) -> int:
        start = time.monotonic()
        time.sleep(0.2)
        intervals.append((start, time.monotonic()))
        return x

    @registry.tool(timeout=30)
    def block_timed(x: int) -> int:
        start = time.monotonic()
        time.sleep(0.2)
        intervals.append((start, time.monotonic()))
        return x

    return registry, intervals


@pytest.mark.parametrize("name", ["block", "block_timed"])
async def test_five_concurrent_async_calls_overlap(
    blocking_registry: tuple[ToolRegistry, list[Interval]], name: str
) -> None:
    registry, intervals = blocking_registry
    results = await asyncio.gather(*(registry.async_call_tool(name, {"x": i}) for i in range(5)))
    assert results == [0, 1, 2, 3, 4]
    assert len(intervals) == 5
    assert overlap(intervals)


async def test_five_concurrent_executes_overlap(
    blocking_registry: tuple[ToolRegistry, list[Interval]],
) -> None:
    registry, intervals = blocking_registry
    results = await asyncio.gather(*(registry.execute("block", {"x": i}) for i in range(5)))
    assert results == [ToolResult.ok(i) for i in range(5)]
    assert overlap(intervals)


@pytest.mark.parametrize("name", ["block", "block_timed"])
async def test_blocking_tool_does_not_block_the_loop(
    blocking_registry: tuple[ToolRegistry, list[Interval]], name: str
) -> None:
    registry, intervals = blocking_registry
    ticks: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            ticks.append(time.monotonic())
            await asyncio.sleep(0.005)

    ticking = asyncio.create_task(ticker())
    try:
        assert await registry.async_call_tool(name, {"x": 1}) == 1
    finally:
        stop.set()
        await ticking
    ((start, end),) = intervals
    during = [t for t in ticks if start < t < end]
    assert len(during) >= 3, "the event loop did not run while the tool blocked"


# --- timeouts -----------------------------------------------------------------------------


@pytest.fixture
def timeouts() -> Any:
    registry = ToolRegistry()
    release = threading.Event()
    finished: list[str] = []
    cancelled: list[str] = []

    @registry.tool(timeout=0.2)
    def stuck_sync() -> str:
        release.wait(30)
        finished.append("stuck_sync")
        return "late"

    @registry.tool(timeout=0.2)
    async def stuck_async() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append("stuck_async")
            raise
        return "late"

    @registry.tool(timeout=0.2)
    def quick_sync(x: int) -> int:
        return x

    @registry.tool(timeout=0.2)
    async def quick_async(x: int) -> int:
        return x

    @registry.tool(timeout=5)
    def own_timeout_error() -> None:
        raise TimeoutError("upstream timed out")

    @registry.tool(timeout=5)
    async def own_async_timeout_error() -> None:
        raise TimeoutError("upstream timed out")

    yield registry, release, finished, cancelled
    release.set()


def message(name: str, seconds: str = "0.2") -> str:
    return f"Tool '{name}' timed out after {seconds} seconds"


def test_sync_tool_timeout_call_tool(timeouts: Any) -> None:
    registry, release, finished, _ = timeouts
    before = abandoned_threads()
    assert registry.call_tool("stuck_sync") == "Error: " + message("stuck_sync")
    # the call answered while the tool is still blocked: its thread was abandoned
    assert finished == []
    assert abandoned_threads() == before + 1
    release.set()


async def test_sync_tool_timeout_async_faces(timeouts: Any) -> None:
    registry, release, finished, _ = timeouts
    assert await registry.async_call_tool("stuck_sync") == "Error: " + message("stuck_sync")
    result = await registry.execute("stuck_sync")
    assert result == ToolResult.fail(message("stuck_sync"))
    assert registry.execute_sync("stuck_sync") == ToolResult.fail(message("stuck_sync"))
    assert finished == []
    release.set()


async def test_async_tool_timeout_async_faces(timeouts: Any) -> None:
    registry, _, _, cancelled = timeouts
    assert await registry.async_call_tool("stuck_async") == "Error: " + message("stuck_async")
    assert await registry.execute("stuck_async") == ToolResult.fail(message("stuck_async"))
    for _ in range(10):
        if len(cancelled) == 2:
            break
        await asyncio.sleep(0.01)
    assert cancelled == ["stuck_async", "stuck_async"]  # the coroutine was cancelled


def test_async_tool_timeout_sync_faces(timeouts: Any) -> None:
    registry, _, _, cancelled = timeouts
    assert registry.call_tool("stuck_async") == "Error: " + message("stuck_async")
    assert registry.execute_sync("stuck_async") == ToolResult.fail(message("stuck_async"))
    deadline = threading.Event()
    for _ in range(100):
        if len(cancelled) == 2:
            break
        deadline.wait(0.01)
    assert cancelled == ["stuck_async", "stuck_async"]


async def test_async_tool_timeout_sync_face_inside_a_loop(timeouts: Any) -> None:
    registry, _, _, _ = timeouts
    assert registry.call_tool("stuck_async") == "Error: " + message("stuck_async")


async def test_fast_tools_with_a_timeout_answer(timeouts: Any) -> None:
    registry, *_ = timeouts
    for name in ("quick_sync", "quick_async"):
        assert registry.call_tool(name, {"x": "3"}) == 3
        assert await registry.async_call_tool(name, {"x": 4}) == 4
        assert await registry.execute(name, {"x": 5}) == ToolResult.ok(5)


async def test_a_tools_own_timeout_error_is_not_the_timeout(timeouts: Any) -> None:
    registry, *_ = timeouts
    for name in ("own_timeout_error", "own_async_timeout_error"):
        assert registry.call_tool(name) == "Error: upstream timed out"
        assert await registry.async_call_tool(name) == "Error: upstream timed out"


async def test_timeout_seconds_use_g_format() -> None:
    registry = ToolRegistry()
    release = threading.Event()

    @registry.tool(timeout=1)
    async def one_second() -> None:
        await asyncio.sleep(30)

    @registry.tool(timeout=0.25)
    def quarter() -> None:
        release.wait(30)

    try:
        results = await asyncio.gather(
            registry.async_call_tool("one_second"), registry.async_call_tool("quarter")
        )
    finally:
        release.set()
    assert results == [
        "Error: Tool 'one_second' timed out after 1 seconds",
        "Error: Tool 'quarter' timed out after 0.25 seconds",
    ]


@pytest.mark.parametrize("bad", [0, -1, "1", True, float("nan")])
def test_bad_timeout_fails_at_definition(bad: Any) -> None:
    from tooldeck import ToolDefinitionError

    with pytest.raises(ToolDefinitionError):

        @ToolRegistry().tool(timeout=bad)
        def f() -> None:
            return None


# --- cancellation -------------------------------------------------------------------------


@pytest.fixture
def hanging() -> Any:
    registry = ToolRegistry()
    started = asyncio.Event()
    cancelled: list[str] = []

    @registry.tool
    async def hang() -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append("hang")
            raise
        return "done"

    @registry.tool(timeout=30)
    async def hang_timed() -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append("hang_timed")
            raise
        return "done"

    return registry, started, cancelled


@pytest.mark.parametrize("name", ["hang", "hang_timed"])
@pytest.mark.parametrize("face", ["async_call_tool", "execute"])
async def test_cancel_an_in_flight_call(hanging: Any, name: str, face: str) -> None:
    registry, started, cancelled = hanging
    task = asyncio.create_task(getattr(registry, face)(name))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    for _ in range(10):
        if cancelled:
            break
        await asyncio.sleep(0)
    assert cancelled == [name]


async def test_cancel_an_in_flight_call_of_a_sync_tool() -> None:
    registry = ToolRegistry()
    entered = threading.Event()
    release = threading.Event()

    @registry.tool
    def wait_here() -> str:
        entered.set()
        release.wait(30)
        return "done"

    try:
        task = asyncio.create_task(registry.async_call_tool("wait_here"))
        while not entered.is_set():
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        release.set()


async def test_cancelled_call_leaves_the_tool_usable(hanging: Any) -> None:
    registry, started, _ = hanging
    task = asyncio.create_task(registry.async_call_tool("hang"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    @registry.tool
    async def ping() -> str:
        return "pong"

    assert await registry.async_call_tool("ping") == "pong"
    assert registry.call_tool("ping") == "pong"


# --- KeyboardInterrupt / SystemExit propagate ---------------------------------------------
#
# Run in a child process: a BaseException escaping an event loop (or killing the
# background loop) must not take pytest's own loop, or the whole session, with it.
# Each combination runs in a thread of its own with a deadline, so a hang is reported
# as "hang" instead of hanging the suite.

_PROPAGATION_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys, threading
    from tooldeck import ToolRegistry

    registry = ToolRegistry()
    EXC = {"KeyboardInterrupt": KeyboardInterrupt, "SystemExit": SystemExit}

    def define(exc_name):
        exc = EXC[exc_name]

        @registry.tool(name=f"sync_{exc_name}")
        def s() -> None:
            raise exc("from the tool")

        @registry.tool(name=f"sync_timed_{exc_name}", timeout=5)
        def st() -> None:
            raise exc("from the tool")

        @registry.tool(name=f"async_{exc_name}")
        async def a() -> None:
            await asyncio.sleep(0)
            raise exc("from the tool")

        @registry.tool(name=f"async_timed_{exc_name}", timeout=5)
        async def at() -> None:
            await asyncio.sleep(0)
            raise exc("from the tool")

    for exc_name in EXC:
        define(exc_name)

    def sync_face(face, name):
        try:
            answer = getattr(registry, face)(name)
        except BaseException as exc:
            return "propagated:" + type(exc).__name__
        return "returned:" + repr(answer)

    def in_loop(make):
        async def main():
            try:
                answer = await make()
            except BaseException as exc:
                return "propagated:" + type(exc).__name__
            return "returned:" + repr(answer)
        try:
            return asyncio.run(main())
        except BaseException as exc:
            return "escaped the event loop:" + type(exc).__name__

    def sync_face_in_loop(face, name):
        async def main():
            return sync_face(face, name)
        try:
            return asyncio.run(main())
        except BaseException as exc:
            return "escaped the event loop:" + type(exc).__name__

    FACES = {
        "call_tool": lambda n: sync_face("call_tool", n),
        "execute_sync": lambda n: sync_face("execute_sync", n),
        "call_tool_in_loop": lambda n: sync_face_in_loop("call_tool", n),
        "async_call_tool": lambda n: in_loop(lambda: registry.async_call_tool(n)),
        "execute": lambda n: in_loop(lambda: registry.execute(n)),
    }

    report = {}
    for key in sys.argv[1:]:
        face, name = key.split(":")
        box = []
        thread = threading.Thread(target=lambda: box.append(FACES[face](name)), daemon=True)
        thread.start()
        thread.join(3)
        report[key] = box[0] if box else "hang"
    print(json.dumps(report))
    """
)

_KINDS = ["sync", "sync_timed", "async", "async_timed"]
_FACES = ["call_tool", "execute_sync", "call_tool_in_loop", "async_call_tool", "execute"]
_EXCEPTIONS = ["KeyboardInterrupt", "SystemExit"]
_COMBOS = [f"{face}:{kind}_{exc}" for exc in _EXCEPTIONS for kind in _KINDS for face in _FACES]


@pytest.fixture(scope="module")
def propagation_report() -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROPAGATION_SCRIPT, *_COMBOS],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


@pytest.mark.parametrize("combo", _COMBOS)
def test_base_exceptions_propagate(propagation_report: dict[str, str], combo: str) -> None:
    exc_name = combo.rsplit("_", 1)[-1]
    assert propagation_report[combo] == f"propagated:{exc_name}"


def test_keyboard_interrupt_from_a_sync_tool_in_process() -> None:
    registry = ToolRegistry()

    @registry.tool
    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        registry.call_tool("interrupted")
    with pytest.raises(KeyboardInterrupt):
        registry.execute_sync("interrupted")


async def test_system_exit_from_a_sync_tool_through_async_faces() -> None:
    registry = ToolRegistry()

    @registry.tool
    def leaving() -> None:
        raise SystemExit(3)

    with pytest.raises(SystemExit):
        await registry.async_call_tool("leaving")
    with pytest.raises(SystemExit):
        await registry.execute("leaving")


# --- context variables reach the tool on every path ----------------------------------------

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="unset")


@pytest.fixture
def context_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def plain() -> str:
        return request_id.get()

    @registry.tool(timeout=5)
    def plain_timed() -> str:
        return request_id.get()

    @registry.tool
    async def coro() -> str:
        return request_id.get()

    @registry.tool(timeout=5)
    async def coro_timed() -> str:
        return request_id.get()

    return registry


CONTEXT_TOOLS = ["plain", "plain_timed", "coro", "coro_timed"]


@pytest.mark.parametrize("name", CONTEXT_TOOLS)
def test_context_reaches_the_tool_from_sync_code(context_registry: ToolRegistry, name: str) -> None:
    """A timeout must not change what the tool sees (a request id, a tracing span)."""

    def in_context() -> Any:
        request_id.set("sync-caller")
        return context_registry.call_tool(name)

    assert contextvars.copy_context().run(in_context) == "sync-caller"


@pytest.mark.parametrize("name", CONTEXT_TOOLS)
async def test_context_reaches_the_tool_from_async_code(
    context_registry: ToolRegistry, name: str
) -> None:
    async def in_context() -> Any:
        request_id.set("async-caller")
        return await context_registry.async_call_tool(name)

    assert await asyncio.create_task(in_context()) == "async-caller"


# --- a forked child starts its own background loop ------------------------------------------


def _sync_call_in_child(results: Any) -> None:
    results.put(syncify(_double)(21))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_sync_call_of_async_function_in_a_forked_child() -> None:
    """The parent's background loop thread does not survive a fork; the child must not
    wait on it forever (multiprocessing's "fork", gunicorn's preloaded workers)."""
    import multiprocessing

    assert syncify(_double)(1) == 2  # the parent's background loop is running
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_sync_call_in_child, args=(results,))
    child.start()
    child.join(20)
    hung = child.is_alive()
    if hung:
        child.kill()
        child.join(5)
    assert not hung, "the child's sync call of an async function hung"
    assert results.get(timeout=5) == 42

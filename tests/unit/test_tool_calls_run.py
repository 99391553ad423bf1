"""Running a reply's calls: concurrently, in order, bounded, cancellable.

Overlap is shown without clocks: a barrier (threads) or a counter (coroutines) that
every call must reach before any may finish; a sequential runner would break the
barrier and fail the calls. Everything runs under a hard timeout.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from tool_call_replies import Call, answered, anthropic_message, gemini_response, openai_completion
from tooldeck import ToolRegistry, ToolResult
from tooldeck._tool_calls_run import run_calls

pytestmark = pytest.mark.timeout(30)

WAIT = 10.0  # seconds a call waits for its siblings before giving up (never, if concurrent)


def reply_of(names: list[str], arguments: Any = None) -> dict[str, Any]:
    return openai_completion(
        [
            Call(f"call_{i}", name, "{}" if arguments is None else arguments)
            for i, name in enumerate(names)
        ]
    )


async def _all_entered(counter: list[int], n: int) -> None:
    """Wait until ``n`` calls have entered (on whichever loop runs the tool)."""
    deadline = time.monotonic() + WAIT
    while counter[0] < n:
        if time.monotonic() > deadline:
            raise TimeoutError(f"only {counter[0]} of {n} calls ran at once")
        await asyncio.sleep(0.001)


# -- concurrency ---------------------------------------------------------------------------


def overlapping_tools(n: int) -> ToolRegistry:
    registry = ToolRegistry()
    barrier = threading.Barrier(n, timeout=WAIT)
    entered = [0]

    @registry.tool
    def blocking(i: int = 0) -> str:
        """A sync tool that returns only once every sibling is running too."""
        barrier.wait()  # BrokenBarrierError (a failed call) unless all n run at once
        return "met"

    @registry.tool
    async def waiting(i: int = 0) -> str:
        """An async tool that returns only once every sibling is running too."""
        entered[0] += 1
        await _all_entered(entered, n)
        return "met"

    return registry


@pytest.mark.parametrize("tool", ["blocking", "waiting"])
def test_the_calls_of_a_reply_run_at_once_sync_face(tool: str) -> None:
    registry = overlapping_tools(4)
    answer = registry.run_tool_calls(reply_of([tool] * 4))
    assert [m["content"] for m in answer] == ["met"] * 4


@pytest.mark.parametrize("tool", ["blocking", "waiting"])
async def test_the_calls_of_a_reply_run_at_once_async_face(tool: str) -> None:
    registry = overlapping_tools(4)
    answer = await registry.async_run_tool_calls(reply_of([tool] * 4))
    assert [m["content"] for m in answer] == ["met"] * 4


async def test_sync_and_async_tools_of_one_reply_overlap() -> None:
    registry = ToolRegistry()
    release = threading.Event()
    started = threading.Event()

    @registry.tool
    def slow_sync() -> str:
        """Blocks until the async sibling has run."""
        started.set()
        return "sync done" if release.wait(WAIT) else "sync gave up"

    @registry.tool
    async def fast_async() -> str:
        """Runs while the sync sibling blocks its worker thread."""
        while not started.is_set():
            await asyncio.sleep(0.001)
        release.set()
        return "async done"

    answer = await registry.async_run_tool_calls(reply_of(["slow_sync", "fast_async"]))
    assert [m["content"] for m in answer] == ["sync done", "async done"]


def test_results_come_in_call_order_whatever_finishes_first() -> None:
    registry = ToolRegistry()
    finished: list[int] = []

    @registry.tool
    async def nap(i: int) -> int:
        """The later the call, the sooner it finishes."""
        await asyncio.sleep(0.02 * (5 - i))
        finished.append(i)
        return i

    calls = [Call(f"c{i}", "nap", {"i": i}) for i in range(5)]
    answer = registry.run_tool_calls(gemini_response(calls))
    assert finished == [4, 3, 2, 1, 0]
    assert answered("gemini", answer) == [(f"c{i}", {"output": i}, False) for i in range(5)]


@pytest.mark.parametrize("limit", [1, 2, 3])
async def test_max_concurrency_bounds_the_calls_in_flight(limit: int) -> None:
    registry = ToolRegistry()
    active, peak = [0], [0]

    @registry.tool
    async def work() -> str:
        """Counts the calls running beside it."""
        active[0] += 1
        peak[0] = max(peak[0], active[0])
        await asyncio.sleep(0.01)
        active[0] -= 1
        return "done"

    answer = await registry.async_run_tool_calls(reply_of(["work"] * 7), max_concurrency=limit)
    assert [m["content"] for m in answer] == ["done"] * 7
    assert peak[0] == limit


def test_max_concurrency_bounds_sync_tools_too() -> None:
    registry = ToolRegistry()
    lock = threading.Lock()
    active, peak = [0], [0]
    barrier = threading.Barrier(3, timeout=WAIT)  # groups of 3 must really run together

    @registry.tool
    def work() -> str:
        """Counts the threads running beside it."""
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        barrier.wait()
        with lock:
            active[0] -= 1
        return "done"

    answer = registry.run_tool_calls(reply_of(["work"] * 9), max_concurrency=3)
    assert [m["content"] for m in answer] == ["done"] * 9
    assert peak[0] == 3


async def test_the_sync_face_works_inside_a_running_loop() -> None:
    registry = overlapping_tools(3)
    # Called synchronously from a coroutine: the calls run on tooldeck's own loop.
    answer = registry.run_tool_calls(reply_of(["waiting"] * 3))
    assert [m["content"] for m in answer] == ["met"] * 3


def test_a_tool_may_run_a_nested_reply_synchronously() -> None:
    registry = ToolRegistry()

    @registry.tool
    async def double(n: int) -> int:
        """Twice n."""
        return 2 * n

    @registry.tool
    async def plan() -> list[str]:
        """Runs a nested turn with the sync face from tooldeck's loop thread."""
        inner = anthropic_message([Call("i1", "double", {"n": 1}), Call("i2", "double", {"n": 2})])
        return [b["content"] for b in registry.run_tool_calls(inner)[0]["content"]]

    answer = registry.run_tool_calls(reply_of(["plan", "plan"]))
    assert [m["content"] for m in answer] == ['["2", "4"]', '["2", "4"]']


# -- cancellation and interrupts -------------------------------------------------------------


async def test_cancelling_cancels_the_calls_in_flight() -> None:
    registry = ToolRegistry()
    entered, cancelled = [0], []

    @registry.tool
    async def forever(i: int) -> str:
        """Waits for good."""
        entered[0] += 1
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(i)
            raise
        return "never"

    calls = [Call(f"c{i}", "forever", {"i": i}) for i in range(3)]
    task = asyncio.ensure_future(registry.async_run_tool_calls(anthropic_message(calls)))
    await _all_entered(entered, 3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(cancelled) == [0, 1, 2]

    @registry.tool
    async def quick() -> str:
        """Answers at once."""
        return "still working"

    answer = await registry.async_run_tool_calls(reply_of(["quick", "quick"]))
    assert [m["content"] for m in answer] == ["still working"] * 2


async def test_cancelling_does_not_wait_for_a_blocking_sync_call() -> None:
    registry = ToolRegistry()
    started, release = threading.Event(), threading.Event()

    @registry.tool
    def blocking() -> str:
        """Blocks its worker thread until released."""
        started.set()
        release.wait(WAIT)
        return "released"

    task = asyncio.ensure_future(registry.async_run_tool_calls(reply_of(["blocking"] * 2)))
    while not started.is_set():
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task  # returns while the thread still runs: a thread cannot be cancelled
    assert not release.is_set()
    release.set()


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, SystemExit])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_interrupt_propagates_and_cancels_the_other_calls(
    interrupt: type[BaseException], kind: str
) -> None:
    registry = ToolRegistry()
    entered, cancelled = [0], []

    @registry.tool
    async def forever() -> str:
        """Waits for good."""
        entered[0] += 1
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append("forever")
            raise
        return "never"

    if kind == "sync":

        @registry.tool
        def stop() -> str:
            """Interrupts, from a worker thread."""
            deadline = time.monotonic() + WAIT
            while entered[0] < 2 and time.monotonic() < deadline:
                time.sleep(0.001)
            raise interrupt
    else:

        @registry.tool
        async def stop() -> str:
            """Interrupts, on the loop."""
            await _all_entered(entered, 2)
            raise interrupt

    with pytest.raises(interrupt):
        registry.run_tool_calls(reply_of(["forever", "stop", "forever"]))
    assert cancelled == ["forever", "forever"]
    # tooldeck's loop survived: the next turn runs.
    answer = registry.run_tool_calls(reply_of(["missing", "missing"]))
    assert [m["content"] for m in answer] == ["Error: Tool 'missing' not found"] * 2


async def test_an_interrupt_propagates_from_the_async_face() -> None:
    registry = ToolRegistry()
    entered, cancelled = [0], []

    @registry.tool
    async def forever() -> str:
        """Waits for good."""
        entered[0] += 1
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append("forever")
            raise
        return "never"

    @registry.tool
    def stop() -> str:
        """Interrupts, from a worker thread."""
        deadline = time.monotonic() + WAIT
        while entered[0] < 1 and time.monotonic() < deadline:
            time.sleep(0.001)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        await registry.async_run_tool_calls(reply_of(["forever", "stop"]))
    assert cancelled == ["forever"]


# -- the runner knows nothing of the registry ---------------------------------------------------


async def test_run_calls_takes_any_execute() -> None:
    seen: list[tuple[str, Any, Any]] = []

    async def execute(name: str, arguments: Any, call_id: Any) -> ToolResult:
        seen.append((name, arguments, call_id))
        await asyncio.sleep(0)
        return ToolResult.ok(name.upper()) if name != "bad" else ToolResult.fail("no")

    calls = [("1", "a", "{}"), ("2", "bad", {"x": 1}), (None, "c", None)]
    results = await run_calls(calls, execute, max_concurrency=2)
    assert results == [ToolResult.ok("A"), ToolResult.fail("no"), ToolResult.ok("C")]
    expected = [("a", "{}", "1"), ("bad", {"x": 1}, "2"), ("c", None, None)]
    assert sorted(seen, key=str) == sorted(expected, key=str)
    assert await run_calls([], execute) == []


async def test_an_execute_that_raises_fails_its_call_not_the_turn() -> None:
    """`execute` never raises; were one to, that call fails and the others answer."""

    async def execute(name: str, arguments: Any, call_id: Any) -> ToolResult:
        if name == "broken":
            raise RuntimeError("broken execute")
        return ToolResult.ok(name)

    calls = [("1", "broken", {}), ("2", "fine", {})]
    results = await run_calls(calls, execute)
    assert results[0] == ToolResult.fail("broken execute")
    assert isinstance(results[0].exception, RuntimeError)
    assert results[1] == ToolResult.ok("fine")

"""`ConcurrencyLimit` under load: threads and event loops share one limit.

The burst: 1,000 calls through `run_tool_calls` from 8 threads (replies of one call run
the sync form in the thread; replies of several run the async form on tooldeck's
background loop) and `async_run_tool_calls` from 2 event loops of their own, never more
than ``n`` running at once, counted inside the tools.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest

from tooldeck import ToolRegistry
from tooldeck.middleware import ConcurrencyLimit
from tooldeck.middleware._keys import key_text

pytestmark = pytest.mark.timeout(60)


class Gauge:
    """How many calls run now, and the most that ever ran at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0
        self.calls = 0

    def enter(self) -> None:
        with self.lock:
            self.now += 1
            self.calls += 1
            self.peak = max(self.peak, self.now)

    def leave(self) -> None:
        with self.lock:
            self.now -= 1


def gauged_registry(gauge: Gauge, limit: ConcurrencyLimit) -> ToolRegistry:
    registry = ToolRegistry(middleware=[limit])

    @registry.tool
    def work(i: int) -> int:
        gauge.enter()
        time.sleep(0.0005)  # overlap, not timing: nothing asserts how long it took
        gauge.leave()
        return i

    @registry.tool
    async def awork(i: int) -> int:
        gauge.enter()
        await asyncio.sleep(0.0005)
        gauge.leave()
        return i

    @registry.tool
    def free(i: int) -> int:  # not chosen: never waits, never counted
        return i

    return registry


def reply(numbers: range) -> list[dict[str, Any]]:
    return [
        {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "work" if i % 3 else "awork", "arguments": json.dumps({"i": i})},
        }
        for i in numbers
    ]


def answers(messages: list[dict[str, Any]]) -> list[int]:
    return [int(message["content"]) for message in messages]


def test_a_burst_of_1000_calls_from_8_threads_and_2_loops_never_exceeds_n() -> None:
    gauge = Gauge()
    limit = ConcurrencyLimit(3, tools=["work", "awork"])
    registry = gauged_registry(gauge, limit)
    failures: list[BaseException] = []
    start = threading.Barrier(10)

    def thread_calls(base: int) -> None:  # 100 calls: 8 replies of 10, 20 of one
        start.wait()
        for r in range(8):
            numbers = range(base + r * 10, base + r * 10 + 10)
            assert answers(registry.run_tool_calls(reply(numbers))) == list(numbers)
        for i in range(base + 80, base + 100):
            assert answers(registry.run_tool_calls(reply(range(i, i + 1)))) == [i]

    def loop_calls(base: int) -> None:  # 100 calls: 10 replies of 10, all at once
        start.wait()

        async def main() -> None:
            turns = [range(base + r * 10, base + r * 10 + 10) for r in range(10)]
            got = await asyncio.gather(*(registry.async_run_tool_calls(reply(t)) for t in turns))
            assert [answers(g) for g in got] == [list(t) for t in turns]

        asyncio.run(main())

    def guarded(target: Any, base: int) -> None:
        try:
            target(base)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=guarded, args=(thread_calls, k * 100)) for k in range(8)]
    threads += [threading.Thread(target=guarded, args=(loop_calls, 800 + k * 100)) for k in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert gauge.calls == 1000
    assert gauge.peak == 3  # never more than n, and the limit was reached
    assert limit.running() == 0  # every slot given back


async def test_a_waiting_call_never_blocks_its_event_loop() -> None:
    limit = ConcurrencyLimit(1)
    registry = ToolRegistry(middleware=[limit])
    held, release = threading.Event(), threading.Event()

    @registry.tool
    def hold(i: int) -> int:
        if i == 0:
            held.set()
            release.wait(10)
        return i

    holder = threading.Thread(target=registry.call_tool, args=("hold", {"i": 0}))
    holder.start()  # a sync caller takes the only slot and keeps it
    assert await asyncio.to_thread(held.wait, 10)
    waiting = asyncio.ensure_future(registry.async_call_tool("hold", {"i": 1}))
    ticks = 0
    for _ in range(20):  # the loop keeps running while the call waits for its turn
        await asyncio.sleep(0)
        ticks += 1
    assert ticks == 20 and not waiting.done()
    release.set()
    assert await asyncio.wait_for(waiting, 10) == 1
    await asyncio.to_thread(holder.join, 10)
    assert limit.running() == 0


async def test_cancelling_a_waiting_call_leaks_no_slot() -> None:
    limit = ConcurrencyLimit(1)
    registry = ToolRegistry(middleware=[limit])
    gate = asyncio.Event()

    @registry.tool
    async def slow(i: int) -> int:
        await gate.wait()
        return i

    first = asyncio.ensure_future(registry.async_call_tool("slow", {"i": 1}))
    second = asyncio.ensure_future(registry.async_call_tool("slow", {"i": 2}))
    await asyncio.sleep(0.01)
    assert limit.running() == 1 and not second.done()
    second.cancel()  # while waiting in the queue
    with pytest.raises(asyncio.CancelledError):
        await second
    gate.set()
    assert await first == 1
    assert limit.running() == 0
    assert await registry.async_call_tool("slow", {"i": 3}) == 3  # the slot is free again


async def test_a_slot_handed_to_a_call_cancelled_before_it_woke_is_given_back() -> None:
    limit = ConcurrencyLimit(1)
    registry = ToolRegistry(middleware=[limit])

    @registry.tool
    async def quick(i: int) -> int:
        return i

    pools = limit._pools
    assert pools.take(None, object) is None  # someone holds the only slot
    waiting = asyncio.ensure_future(registry.async_call_tool("quick", {"i": 1}))
    await asyncio.sleep(0)
    assert not waiting.done()
    pools.give_back(None)  # the slot goes to the waiting call, whose wake-up is scheduled
    waiting.cancel()  # ... and it is cancelled before it runs again
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert limit.running() == 0
    assert await registry.async_call_tool("quick", {"i": 2}) == 2


def test_a_sync_caller_waits_its_turn_in_order() -> None:
    limit = ConcurrencyLimit(1, key="user")
    registry = ToolRegistry(middleware=[limit])
    order: list[str] = []
    inside = threading.Event()
    release = threading.Event()

    @registry.tool
    def step(label: str) -> str:
        order.append(label)
        if label == "a":
            inside.set()
            release.wait(10)
        return label

    first = threading.Thread(
        target=registry.call_tool, args=("step", {"label": "a"}), kwargs={"context": {"user": 1}}
    )
    first.start()
    assert inside.wait(10)
    # another user's pool is free: no wait
    assert registry.call_tool("step", {"label": "x"}, context={"user": 2}) == "x"
    second = threading.Thread(
        target=registry.call_tool, args=("step", {"label": "b"}), kwargs={"context": {"user": 1}}
    )
    second.start()
    while limit._pools.waiters.get(key_text(1)) is None:  # b is queued behind a
        time.sleep(0.001)
    assert order == ["a", "x"]
    release.set()
    first.join(10)
    second.join(10)
    assert order == ["a", "x", "b"]
    assert limit.running(1) == 0 and limit.running(2) == 0


def test_a_call_made_inside_a_limited_call_runs_in_its_slot_never_waiting_for_itself() -> None:
    # A tool that calls the registry again (sync or async, sync tools and async ones):
    # with n=1 the inner call would wait forever for the slot its own caller holds.
    limit = ConcurrencyLimit(1)
    registry = ToolRegistry(middleware=[limit])

    @registry.tool
    def leaf(i: int) -> int:
        return i

    @registry.tool
    def outer_sync(i: int) -> int:
        return int(registry.call_tool("leaf", {"i": i})) + 1

    @registry.tool
    async def outer_async(i: int) -> int:
        inner = await registry.async_call_tool("leaf", {"i": i})
        nested_sync = registry.call_tool("outer_sync", {"i": i})  # a sync call, nested deeper
        return int(inner) + int(nested_sync)

    assert registry.call_tool("outer_sync", {"i": 1}) == 2
    assert asyncio.run(registry.async_call_tool("outer_sync", {"i": 1})) == 2
    assert registry.call_tool("outer_async", {"i": 1}) == 3
    assert asyncio.run(registry.async_call_tool("outer_async", {"i": 1})) == 3
    assert limit.running() == 0


def test_a_sync_call_inside_an_event_loop_never_blocks_it_waiting_for_a_slot() -> None:
    # Waiting there would block the loop (tooldeck's background loop, where the calls
    # holding the slots may run, or any other): the call fails at once, saying why.
    limit = ConcurrencyLimit(1)
    registry = ToolRegistry(middleware=[limit])

    @registry.tool
    def leaf(i: int) -> int:
        return i

    async def inside_a_loop() -> Any:
        return registry.call_tool("leaf", {"i": 1})

    assert asyncio.run(inside_a_loop()) == 1  # a slot free: no wait, it runs
    assert limit._pools.take(None, object) is None  # another caller holds the only slot
    try:
        answer = asyncio.run(inside_a_loop())
    finally:
        limit._pools.give_back(None)
    assert answer == (
        "Error: ConcurrencyLimit: no slot is free for tool 'leaf', and this sync call runs "
        "inside an event loop, which waiting would block: call it with an async face "
        "(await async_call_tool or execute)"
    )
    assert limit.running() == 0


def test_a_waiter_whose_event_loop_closed_is_skipped() -> None:
    limit = ConcurrencyLimit(1)
    registry = ToolRegistry(middleware=[limit])

    @registry.tool
    async def quick(i: int) -> int:
        return i

    pools = limit._pools
    assert pools.take(None, object) is None  # the only slot, held
    loop = asyncio.new_event_loop()
    waiting = loop.create_task(registry.async_call_tool("quick", {"i": 1}))
    loop.run_until_complete(asyncio.sleep(0.01))
    assert not waiting.done() and len(pools.waiters[None]) == 1
    loop.close()  # gone, its task never resumed (nor cancelled)
    pools.give_back(None)  # its waiter cannot take the slot: it stays free
    assert limit.running() == 0 and None not in pools.waiters
    assert registry.call_tool("quick", {"i": 2}) == 2
    waiting._log_destroy_pending = False  # (a task left pending on purpose)


def test_key_values_a_dict_holds_as_one_are_pools_of_their_own() -> None:
    """1, 1.0 and True are three callers (as `RateLimit` counts them, in the process and
    in Redis alike), not one pool."""
    limit = ConcurrencyLimit(1, key="user")
    registry = ToolRegistry(middleware=[limit])
    inside = threading.Event()
    release = threading.Event()

    @registry.tool
    def step(label: str) -> str:
        if label == "hold":
            inside.set()
            release.wait(10)
        return label

    holder = threading.Thread(
        target=registry.call_tool, args=("step", {"label": "hold"}), kwargs={"context": {"user": 1}}
    )
    holder.start()
    try:
        assert inside.wait(10)

        async def others() -> list[Any]:
            calls = [
                registry.async_call_tool("step", {"label": str(user)}, context={"user": user})
                for user in (1.0, True)
            ]
            return list(await asyncio.wait_for(asyncio.gather(*calls), 10))

        assert asyncio.run(others()) == ["1.0", "True"]  # neither waited for user 1
        assert limit.running(1) == 1 and limit.running(1.0) == 0 and limit.running(True) == 0
    finally:
        release.set()
        holder.join(10)
    assert limit.running(1) == 0

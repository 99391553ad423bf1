"""Sync calls nested inside async tools, at any depth, never deadlock (issue 12, item 1).

An async tool that calls ``registry.call_tool(...)`` (the sync face) runs on tooldeck's
background loop and blocks it while it waits; the nested call must run elsewhere, and
so must every call made while the loop is held. Each scenario runs in a subprocess
with a hard timeout: a regression fails fast instead of hanging the suite.
"""

from __future__ import annotations

import textwrap

import pytest

from forkserver import LazyForkServer

PRELOAD = "import asyncio, faulthandler, sys, threading\nfrom tooldeck import ToolRegistry, syncify"
PRELUDE = """
faulthandler.dump_traceback_later(20, exit=True)  # a hang prints where, then exits 1
registry = ToolRegistry()
"""
FORKS = LazyForkServer(PRELOAD)
_close_forks = FORKS.closing()


def run_scenario(body: str) -> str:
    """PRELUDE then ``body`` in a process of its own (forked from one that imported
    tooldeck: tests/forkserver.py); what it printed."""
    done = FORKS().run(code=PRELUDE + textwrap.dedent(body), timeout=60)
    out, err = done.stdout.decode(), done.stderr.decode(errors="replace")
    assert done.returncode == 0, out + err
    return out.strip()


@pytest.mark.parametrize("depth", [1, 2, 3, 6])
def test_a_chain_of_async_tools_calling_sync_faces(depth: int) -> None:
    out = run_scenario(
        f"""
        DEPTH = {depth}

        def make(level):
            async def step(x: int) -> int:
                await asyncio.sleep(0)
                if level == DEPTH:
                    return x
                return registry.call_tool(f"step{{level + 1}}", {{"x": x + 1}})
            registry.register(step, name=f"step{{level}}")

        for level in range(1, DEPTH + 1):
            make(level)

        @registry.tool
        async def other() -> str:
            return "other"

        print(registry.call_tool("step1", {{"x": 0}}))
        print(registry.execute_sync("step1", {{"x": 10}}).data)
        print(asyncio.run(registry.async_call_tool("step1", {{"x": 20}})))
        print(registry.call_tool("other"))  # the shared loop is free afterwards
        """
    )
    assert out.splitlines() == [str(depth - 1), str(depth + 9), str(depth + 19), "other"]


def test_a_chain_through_a_timed_sync_tool() -> None:
    """async → (sync face) timed sync tool in a worker thread → (sync face) async tool:
    the worker's call comes while the loop waits for that very worker."""
    out = run_scenario(
        """
        @registry.tool
        async def leaf() -> str:
            await asyncio.sleep(0)
            return "leaf"

        @registry.tool(timeout=10)
        def middle() -> str:
            return "middle>" + registry.call_tool("leaf")

        @registry.tool
        async def top() -> str:
            return "top>" + registry.call_tool("middle")

        print(registry.call_tool("top"))
        print(registry.call_tool("leaf"))
        """
    )
    assert out.splitlines() == ["top>middle>leaf", "leaf"]


def test_more_nested_calls_than_the_loop_has_workers() -> None:
    """sync → (sync face) async → (async face) sync, once per call of a reply with more
    calls than the background loop's workers: each outer call holds a worker while it
    waits, so the inner sync tools must not need one (it stalled at 64 calls)."""
    out = run_scenario(
        """
        from tooldeck._shifting import WORKERS

        @registry.tool
        def leaf() -> str:
            return "leaf"

        @registry.tool
        async def middle() -> str:
            return await registry.async_call_tool("leaf")

        @registry.tool
        def outer(i: int) -> str:
            return registry.call_tool("middle")

        n = WORKERS * 2
        reply = [
            {"id": f"c{i}", "type": "function",
             "function": {"name": "outer", "arguments": f'{{"i": {i}}}'}}
            for i in range(n)
        ]
        answers = registry.run_tool_calls(reply)
        print(len(answers) == n, {a["content"] for a in answers})
        print(registry.call_tool("middle"))  # the workers are free afterwards
        """
    )
    assert out.splitlines() == ["True {'leaf'}", "leaf"]


def test_other_callers_are_not_stalled_while_the_loop_is_held() -> None:
    """While an async tool holds the loop in a nested sync call, another thread's sync
    call of an async tool still completes — the nested call waits for it to."""
    out = run_scenario(
        """
        started, released = threading.Event(), threading.Event()

        @registry.tool
        async def quick() -> str:
            return "quick"

        @registry.tool
        async def waits_for_the_other_caller() -> str:
            started.set()  # the holder is now blocked in its sync call
            await asyncio.to_thread(released.wait)
            return "inner"

        @registry.tool
        async def holder() -> str:
            return registry.call_tool("waits_for_the_other_caller")

        def other_caller():
            started.wait()
            print(registry.call_tool("quick"), flush=True)
            released.set()

        t = threading.Thread(target=other_caller)
        t.start()
        print(registry.call_tool("holder"), flush=True)
        t.join()
        """
    )
    assert out.splitlines() == ["quick", "inner"]


def test_syncified_coroutines_nest() -> None:
    out = run_scenario(
        """
        async def inner(x):
            await asyncio.sleep(0)
            return x * 2

        async def outer(x):
            return syncify(inner)(x) + 1

        async def top(x):
            return syncify(outer)(x) + 1

        print(syncify(top)(5))
        """
    )
    assert out == "12"


def test_an_inner_timeout_still_applies_when_nested() -> None:
    out = run_scenario(
        """
        @registry.tool(timeout=0.2)
        async def stuck() -> None:
            await asyncio.sleep(30)

        @registry.tool
        async def outer() -> str:
            return registry.call_tool("stuck")

        print(registry.call_tool("outer"))
        """
    )
    assert out == "Error: Tool 'stuck' timed out after 0.2 seconds"

"""Load: many concurrent calls complete, each with its own correct result."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from tooldeck import Tool, ToolRegistry, ToolResult

TOOLS = 100
CALLS = 10_000


def numbered_async_tool(i: int) -> Tool[..., Any]:
    async def scaled(x: int) -> int:
        await asyncio.sleep(0)  # yield, so the calls really interleave
        return x * 1000 + i

    return Tool(scaled, name=f"async_{i}", tags=["even" if i % 2 == 0 else "odd"])


def numbered_sync_tool(i: int) -> Tool[..., Any]:
    def scaled(x: int) -> int:
        return x * 1000 + i

    return Tool(scaled, name=f"sync_{i}")


def registry_of(make: Any) -> ToolRegistry:
    registry = ToolRegistry()
    registry.register_many([make(i) for i in range(TOOLS)])
    return registry


async def test_ten_thousand_concurrent_async_calls_over_a_hundred_tools() -> None:
    registry = registry_of(numbered_async_tool)
    calls = [(f"async_{n % TOOLS}", n) for n in range(CALLS)]
    answers = await asyncio.wait_for(
        asyncio.gather(*(registry.async_call_tool(name, {"x": n}) for name, n in calls)), 60
    )
    assert answers == [n * 1000 + n % TOOLS for _, n in calls]


async def test_ten_thousand_concurrent_executes_with_json_arguments() -> None:
    registry = registry_of(numbered_async_tool)
    results = await asyncio.wait_for(
        asyncio.gather(
            *(registry.execute(f"async_{n % TOOLS}", f'{{"x": "{n}"}}') for n in range(CALLS))
        ),
        60,
    )
    assert results == [ToolResult.ok(n * 1000 + n % TOOLS) for n in range(CALLS)]


async def test_concurrent_calls_with_failures_mixed_in() -> None:
    """Bad calls among good ones fail alone; nothing leaks between calls."""
    registry = registry_of(numbered_async_tool)
    arguments: list[Any] = [{"x": n} if n % 3 else {"x": "bad"} for n in range(3000)]
    answers = await asyncio.gather(
        *(registry.async_call_tool(f"async_{n % TOOLS}", args) for n, args in enumerate(arguments))
    )
    for n, answer in enumerate(answers):
        if n % 3:
            assert answer == n * 1000 + n % TOOLS
        else:
            assert answer.startswith(f"Error: Invalid arguments for tool 'async_{n % TOOLS}':")


async def test_concurrent_async_calls_of_sync_tools() -> None:
    registry = registry_of(numbered_sync_tool)
    answers = await asyncio.wait_for(
        asyncio.gather(
            *(registry.async_call_tool(f"sync_{n % TOOLS}", {"x": n}) for n in range(2000))
        ),
        60,
    )
    assert answers == [n * 1000 + n % TOOLS for n in range(2000)]


def test_threads_calling_sync_and_async_tools_at_once() -> None:
    """Sync calls of async tools from many threads share one background loop."""
    registry = ToolRegistry()
    registry.register_many([numbered_async_tool(i) for i in range(TOOLS)])
    registry.register_many([numbered_sync_tool(i) for i in range(TOOLS)])
    wrong: list[Any] = []

    def worker(k: int) -> None:
        for n in range(k, 4000, 8):
            kind = "async" if n % 2 else "sync"
            answer = registry.call_tool(f"{kind}_{n % TOOLS}", {"x": n})
            if answer != n * 1000 + n % TOOLS:
                wrong.append((n, answer))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    assert wrong == []

"""Latency of a proxied MCP call over stdio: one reused session versus a connection per call.

tooldeck keeps one session per server (for stdio, one server process) and reuses it
for every call. Agently opens a new ``fastmcp.Client`` on every call, which for a
stdio server means starting the server process each time. Both are measured in the
same run against the same server (this file, started with ``--serve``):

* ``reuse``: ``registry.call_tool("add", ...)`` on a proxy imported with ``use_mcp``
  (sync, as an agent loop calls it), and ``await registry.async_call_tool(...)``;
* ``reconnect``: ``async with Client(transport): await client.call_tool(...)`` per call.

    python -m benchmarks.bench_mcp            # 200 reused calls, 15 reconnects
    python -m benchmarks.bench_mcp --quick    # 30 reused calls, 3 reconnects
    python -m benchmarks.bench_mcp --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tooldeck import ToolRegistry

HERE = Path(__file__).resolve()


def serve() -> None:
    """The server under test: one small tool, served over stdio by tooldeck."""
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        return a + b

    registry.serve("stdio")


def transport(*, keep_alive: bool = True) -> Any:
    from fastmcp.client.transports import StdioTransport

    return StdioTransport(sys.executable, [str(HERE), "--serve"], keep_alive=keep_alive)


def timed(call: Callable[[int], Any], n: int) -> list[float]:
    samples = []
    for i in range(n):
        start = time.perf_counter()
        answer = call(i)
        samples.append(time.perf_counter() - start)
        if answer != i + 1:
            raise AssertionError(f"call {i} answered {answer!r}")
    return samples


async def atimed(call: Callable[[int], Awaitable[Any]], n: int) -> list[float]:
    samples = []
    for i in range(n):
        start = time.perf_counter()
        answer = await call(i)
        samples.append(time.perf_counter() - start)
        if answer != i + 1:
            raise AssertionError(f"call {i} answered {answer!r}")
    return samples


def measure_reuse(n: int) -> dict[str, list[float]]:
    with ToolRegistry() as registry:
        registry.use_mcp(transport())
        registry.call_tool("add", {"a": 0, "b": 1})  # warm: the session is open already
        sync = timed(lambda i: registry.call_tool("add", {"a": i, "b": 1}), n)
        asynchronous = asyncio.run(
            atimed(lambda i: registry.async_call_tool("add", {"a": i, "b": 1}), n)
        )
    return {"reuse_sync": sync, "reuse_async": asynchronous}


def measure_reconnect(n: int) -> dict[str, list[float]]:
    from fastmcp import Client

    async def agently_call(i: int) -> Any:
        # Agently's _mcp_tool_func: a new client (here: a new server process) per call.
        async with Client(transport(keep_alive=False)) as client:
            result = await client.call_tool("add", {"a": i, "b": 1}, raise_on_error=False)
            return result.data

    return {"reconnect": asyncio.run(atimed(agently_call, n))}


def summary(samples: dict[str, list[float]]) -> dict[str, Any]:
    medians = {name: statistics.median(values) for name, values in samples.items()}
    return {
        "median_ms": {name: round(m * 1000, 3) for name, m in medians.items()},
        "n": {name: len(values) for name, values in samples.items()},
        "speedup_sync": round(medians["reconnect"] / medians["reuse_sync"], 1),
        "speedup_async": round(medians["reconnect"] / medians["reuse_async"], 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls, for CI")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.serve:
        serve()
        return 0
    reuse_n, reconnect_n = (30, 3) if options.quick else (200, 15)
    samples = {**measure_reuse(reuse_n), **measure_reconnect(reconnect_n)}
    result = {"mode": "quick" if options.quick else "full", **summary(samples)}
    medians = result["median_ms"]
    print(f"median latency of a proxied call over stdio ({result['mode']} run)")
    for name in ("reuse_sync", "reuse_async", "reconnect"):
        print(f"  {name:<12} {medians[name]:>10.3f} ms  (n={result['n'][name]})")
    sync, asynchronous = result["speedup_sync"], result["speedup_async"]
    print(f"  reuse is {sync}x (sync) / {asynchronous}x (async) faster")
    if options.json:
        options.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

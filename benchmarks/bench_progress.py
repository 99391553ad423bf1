"""What reporting progress costs a long call: 100,000 reports against none.

    python -m benchmarks.bench_progress            # 5 rounds of each
    python -m benchmarks.bench_progress --quick    # 2 rounds

A served tool (fastmcp in-memory ``Client``, which asks for progress) does 100,000
steps of work (a small sum each); one version reports after every step, the other
never. The target (issue 25): reporting does not slow the call by more than 2x, and
the client gets far fewer notifications than reports (they are coalesced), the last
one always. Both are printed, with the median wall time of each.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from tooldeck import Progress, ToolRegistry

STEPS = 100_000


def registry() -> ToolRegistry:
    tools = ToolRegistry()

    @tools.tool
    def quiet() -> int:
        total = 0
        for _ in range(STEPS):
            total += sum(range(10))
        return total

    @tools.tool
    def chatty(progress: Progress) -> int:
        total = 0
        for i in range(STEPS):
            total += sum(range(10))
            progress(i + 1, STEPS)
        return total

    return tools


async def measure(rounds: int) -> None:
    from fastmcp import Client

    times: dict[str, list[float]] = {"quiet": [], "chatty": []}
    notified: list[int] = []

    async with Client(registry().as_mcp_server()) as client:
        for _ in range(rounds):
            for name in ("quiet", "chatty"):
                got: list[float] = []

                async def seen(done: float, total: float | None, message: str | None) -> None:
                    got.append(done)  # noqa: B023 - read before the next round

                start = time.perf_counter()
                await client.call_tool(name, {}, progress_handler=seen)
                times[name].append(time.perf_counter() - start)
                if name == "chatty":
                    notified.append(len(got))
                    assert got[-1] == STEPS, "the last report must arrive"
    quiet, chatty = (statistics.median(times[n]) for n in ("quiet", "chatty"))
    print(f"{STEPS:,} steps, no reports:       {quiet * 1000:8.1f} ms (median)")
    print(f"{STEPS:,} steps, a report each:    {chatty * 1000:8.1f} ms (median)")
    print(f"slowdown: {chatty / quiet:.2f}x (target: at most 2x)")
    print(f"notifications sent per call: {min(notified)}-{max(notified)} of {STEPS:,} reports")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds instead of 5")
    args = parser.parse_args()
    asyncio.run(measure(2 if args.quick else 5))


if __name__ == "__main__":
    main()

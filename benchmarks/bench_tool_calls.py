"""What `run_tool_calls` costs over calling the tools directly, and what concurrency buys.

    python -m benchmarks.bench_tool_calls            # 31 paired rounds
    python -m benchmarks.bench_tool_calls --quick    # 5 rounds, shorter sleeps (CI)

Overhead: each reply is built with the provider SDK's own response types (the objects
a user passes), holding 1 or 10 calls of ``add(a, b)``. Baseline: the same calls made
directly with `ToolRegistry.execute_sync` (sync) or ``await execute`` (async), one
after another. Both sides are timed in CPU time (all threads: a worker thread's work
counts) in calibrated batches, interleaved round by round; the ratio is the median of
the per-round ratios. Target: one call costs at most 3x ``execute`` on the same tool.

Concurrency: 10 calls of a tool that takes 50 ms, in wall time, run by
``run_tool_calls`` / ``async_run_tool_calls`` and one after another.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from itertools import repeat
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/bench_tool_calls.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from anthropic.types import Message
from google.genai import types as genai
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from tooldeck import ToolRegistry

TARGET = 3.0  # one call: at most 3x execute
BATCH_SECONDS = 0.004
clock = time.process_time  # CPU time of every thread: a neighbour's load does not count

registry = ToolRegistry()


@registry.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@registry.tool
async def aadd(a: int, b: int) -> int:
    """Add two integers, asynchronously."""
    return a + b


# -- replies, as each provider's SDK returns them -----------------------------------------


def openai_reply(name: str, n: int, arguments: str | None = None) -> ChatCompletion:
    function = {"name": name, "arguments": ARGS if arguments is None else arguments}
    calls = [{"id": f"call_{i}", "type": "function", "function": function} for i in range(n)]
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    choice = {"index": 0, "finish_reason": "tool_calls", "message": message}
    return ChatCompletion.model_validate(
        {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
         "choices": [choice]}
    )  # fmt: skip


def responses_reply(name: str, n: int) -> Response:
    output = [
        {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": name,
         "arguments": ARGS, "status": "completed"}
        for i in range(n)
    ]  # fmt: skip
    return Response.model_validate(
        {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-4.1",
         "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    )  # fmt: skip


def anthropic_reply(name: str, n: int) -> Message:
    content = [
        {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": {"a": 1, "b": 2}}
        for i in range(n)
    ]
    return Message.model_validate(
        {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
         "content": content, "stop_reason": "tool_use", "stop_sequence": None,
         "usage": {"input_tokens": 10, "output_tokens": 10}}
    )  # fmt: skip


def gemini_reply(name: str, n: int) -> genai.GenerateContentResponse:
    parts = [{"functionCall": {"name": name, "args": {"a": 1, "b": 2}}} for _ in range(n)]
    return genai.GenerateContentResponse.model_validate(
        {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}
    )


ARGS = json.dumps({"a": 1, "b": 2})
REPLIES: dict[str, Callable[[str, int], Any]] = {
    "openai": openai_reply,
    "openai-responses": responses_reply,
    "anthropic": anthropic_reply,
    "gemini": gemini_reply,
}
# What each provider sends as the arguments: JSON text for OpenAI, an object otherwise.
DIRECT_ARGS = {"openai": ARGS, "openai-responses": ARGS, "anthropic": {"a": 1, "b": 2}}


# -- timing ------------------------------------------------------------------------------


class Paired:
    """Calibrated batches of several subjects, interleaved round by round."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.loop = asyncio.new_event_loop()

    def batch(self, fn: Callable[[], Any], n: int, is_async: bool) -> float:
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            if is_async:
                return self.loop.run_until_complete(_abatch(fn, n))
            t0 = clock()
            for _ in repeat(None, n):
                fn()
            return clock() - t0
        finally:
            if gc_was_on:
                gc.enable()

    def size(self, fn: Callable[[], Any], is_async: bool) -> int:
        n = 1
        while (elapsed := self.batch(fn, n, is_async)) < BATCH_SECONDS / 4 and n < 1 << 20:
            n *= 4
        return max(1, round(n * BATCH_SECONDS / max(elapsed, 1e-9)))

    def compare(self, base: Callable[[], Any], subject: Callable[[], Any], is_async: bool) -> Row:
        sizes = (self.size(base, is_async), self.size(subject, is_async))
        samples: tuple[list[float], list[float]] = ([], [])
        for r in range(self.rounds):
            order = (0, 1) if r % 2 == 0 else (1, 0)  # who goes first alternates
            for i in order:
                n = sizes[i]
                samples[i].append(self.batch((base, subject)[i], n, is_async) / n)
        return Row(*samples)


async def _abatch(fn: Callable[[], Awaitable[Any]], n: int) -> float:
    t0 = clock()
    for _ in repeat(None, n):
        await fn()
    return clock() - t0


class Row:
    def __init__(self, base: list[float], subject: list[float]) -> None:
        self.base = statistics.median(base) * 1e6
        self.subject = statistics.median(subject) * 1e6
        self.ratio = statistics.median(s / b for s, b in zip(subject, base, strict=True))


# -- the cases ---------------------------------------------------------------------------


def execute_each(tool: str, arguments: Any, n: int) -> None:
    """The calls of a reply made directly, one after another."""
    for _ in range(n):
        registry.execute_sync(tool, arguments)


async def aexecute_each(tool: str, arguments: Any, n: int) -> None:
    for _ in range(n):
        await registry.execute(tool, arguments)


def overhead(timer: Paired) -> list[tuple[str, Row, bool]]:
    """(label, timings, whether the 3x target applies) for each case."""
    rows = []
    for tool, kind in (("add", "sync tool"), ("aadd", "async tool")):
        for fmt, make in REPLIES.items():
            args = DIRECT_ARGS.get(fmt, {"a": 1, "b": 2})
            one = make(tool, 1)
            sync = timer.compare(
                partial(registry.execute_sync, tool, args),
                partial(registry.run_tool_calls, one),
                is_async=False,
            )
            rows.append((f"sync, 1 call, {kind}, {fmt}", sync, True))
            async_ = timer.compare(
                partial(registry.execute, tool, args),
                partial(registry.async_run_tool_calls, one),
                is_async=True,
            )
            rows.append((f"async, 1 call, {kind}, {fmt}", async_, True))
        ten = openai_reply(tool, 10)
        sync = timer.compare(
            partial(execute_each, tool, ARGS, 10),
            partial(registry.run_tool_calls, ten),
            is_async=False,
        )
        rows.append((f"sync, 10 calls, {kind}, openai", sync, False))
        async_ = timer.compare(
            partial(aexecute_each, tool, ARGS, 10),
            partial(registry.async_run_tool_calls, ten),
            is_async=True,
        )
        rows.append((f"async, 10 calls, {kind}, openai", async_, False))
    return rows


def concurrency(seconds: float) -> list[tuple[str, float]]:
    """Wall time of 10 calls of a tool that takes ``seconds``, run four ways."""
    slow = ToolRegistry()

    @slow.tool
    async def nap() -> str:
        """Sleeps without blocking the loop."""
        await asyncio.sleep(seconds)
        return "rested"

    @slow.tool
    def doze() -> str:
        """Blocks its thread."""
        time.sleep(seconds)
        return "rested"

    def one_after_another(tool: str) -> None:
        for _ in range(10):
            slow.execute_sync(tool)

    def in_a_new_loop(reply: Any) -> None:
        asyncio.run(slow.async_run_tool_calls(reply))

    rows = []
    for tool, kind in (("nap", "async tool"), ("doze", "sync tool")):
        ten = openai_reply(tool, 10, "{}")
        ways: dict[str, Callable[[], Any]] = {
            "10 x execute_sync, one after another": partial(one_after_another, tool),
            "run_tool_calls": partial(slow.run_tool_calls, ten),
            "async_run_tool_calls": partial(in_a_new_loop, ten),
            "run_tool_calls, max_concurrency=2": partial(
                slow.run_tool_calls, ten, max_concurrency=2
            ),
        }
        rows += [(f"{kind}: {way}", _wall(run)) for way, run in ways.items()]
    return rows


def _wall(fn: Callable[[], Any], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds, 20 ms tools")
    args = parser.parse_args(argv)
    rounds, seconds = (5, 0.02) if args.quick else (31, 0.05)
    timer = Paired(rounds)
    try:
        rows = overhead(timer)
    finally:
        timer.loop.close()

    print(f"Overhead: CPU µs per reply, medians of {rounds} paired rounds")
    print("| case | execute directly | run_tool_calls | ratio | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    ratios = {}
    for label, row, targeted in rows:
        verdict = ("pass" if row.ratio <= TARGET else "FAIL") if targeted else "—"
        print(f"| {label} | {row.base:.2f} | {row.subject:.2f} | {row.ratio:.2f}x | {verdict} |")
        ratios[label] = row.ratio
    worst = max(row.ratio for _, row, targeted in rows if targeted)
    print(f"\nOne call, worst ratio: {worst:.2f}x (target <= {TARGET:g}x)\n")

    print(f"Concurrency: 10 calls of a {seconds * 1e3:g} ms tool, wall ms (median of 3)")
    print("| how | wall ms |")
    print("| --- | ---: |")
    for label, wall in concurrency(seconds):
        print(f"| {label} | {wall * 1e3:.0f} |")
        ratios[label] = wall
    return ratios


if __name__ == "__main__":
    main()

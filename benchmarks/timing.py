"""How a call is timed: generated loops, calibrated batches, paired rounds.

A measured call is a `Call`: the source of one loop iteration and the names it uses.
Each subject's loop is generated from the same template (`compile_loop`), with the
call's names bound as the loop function's locals, so a subject's loop and its floor's
differ only in the call being measured — no wrapper function around a floor, no
``f(*args)`` indirection around a subject. Within a case every subject runs one
calibrated batch per round, in rotating order; a ratio is the median of the
round-by-round ratios (each pair ran back to back, under the same load).
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

# What a measurement reads. On a shared machine wall time mostly measures the
# neighbours; the process's CPU time (all its threads, the worker threads of a thread
# hop included) does not count the time the scheduler gave to others. `--clock wall`
# for an idle machine.
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


@dataclass(frozen=True)
class Settings:
    quick: bool
    rounds: int  # interleaved rounds per case; one batch per subject per round
    batch_seconds: float  # a batch repeats the call until it takes about this long
    scale_tools: int  # distinct tools registered by tooldeck, the floor and Pydantic AI
    peer_scale_tools: int  # the same for the other peers, which can take minutes
    gather: int  # calls gathered at once in the concurrency cases
    thread_calls: int  # sync-tool calls gathered through worker threads
    tool_seconds: float  # the slow tool of the tool-call concurrency case
    clock: str = "cpu"

    @classmethod
    def make(cls, quick: bool, clock: str = "cpu") -> Settings:
        if quick:
            return cls(quick, 3, 0.002, 300, 100, 300, 100, 0.02, clock)
        return cls(quick, 101, 0.002, 10_000, 2_000, 10_000, 1_000, 0.05, clock)


@dataclass(frozen=True)
class Call:
    """One measured call: `expr` (or a statement block `code`) and the names it uses.

    The loop stores the call's answer in ``out`` (both sides alike), which `once`
    returns for the sanity check. `is_async`: the expression is awaited.
    """

    expr: str | None
    env: Mapping[str, Any] = field(default_factory=dict)
    is_async: bool = False
    code: str | None = None  # a statement block that sets `out` (e.g. try/except)

    @property
    def body(self) -> str:
        if self.code is not None:
            return self.code
        return f"out = {'await ' if self.is_async else ''}{self.expr}"


def call_of(fn: Callable[..., Any], *args: Any, is_async: bool = False) -> Call:
    """``fn(a0, a1, ...)`` with `fn` and its arguments as loop locals."""
    names = [f"a{i}" for i in range(len(args))]
    return Call(
        f"fn({', '.join(names)})",
        {"fn": fn, **dict(zip(names, args, strict=True))},
        is_async=is_async,
    )


_TEMPLATES = {
    "sync": """
def loop(n, {params}):
    t0 = clock()
    for _ in repeat(None, n):
{body}
    return clock() - t0
""",
    "async": """
async def loop(n, {params}):
    t0 = clock()
    for _ in repeat(None, n):
{body}
    return clock() - t0
""",
    # Definitions and registrations: a fresh input per call, made before the clock starts.
    "over": """
def loop(inputs, {params}):
    t0 = clock()
    for item in inputs:
{body}
    return clock() - t0
""",
    # `n` gathers of `fanout` coroutines, each made by the call's expression.
    "gather": """
async def loop(n, fanout, {params}):
    t0 = clock()
    for _ in repeat(None, n):
        await gather(*[{expr} for _ in repeat(None, fanout)])
    return clock() - t0
""",
    # One thread's share of a threaded batch (the batch reads the clock).
    "threads": """
def loop(n, {params}):
    for _ in repeat(None, n):
{body}
""",
    # Once, for the sanity check.
    "once": """
def loop({params}):
{body}
    return out
""",
    "aonce": """
async def loop({params}):
{body}
    return out
""",
}


def loop_source(call: Call, shape: str) -> str:
    """The source of `call`'s loop for `shape` (also recorded in the results)."""
    indent = "        " if shape not in ("once", "aonce") else "    "
    body = "\n".join(indent + line for line in call.body.splitlines())
    params = ", ".join(call.env) or "_unused=None"
    return _TEMPLATES[shape].format(params=params, body=body, expr=call.expr)


def compile_loop(call: Call, shape: str, clock: Callable[[], float]) -> Callable[..., Any]:
    namespace: dict[str, Any] = {"clock": clock, "repeat": repeat, "gather": asyncio.gather}
    exec(compile(loop_source(call, shape), f"<loop {shape}>", "exec"), namespace)
    return namespace["loop"]  # type: ignore[no-any-return]


class Stats:
    """Samples of one subject, one per round (aligned with the other subjects' rounds)."""

    def __init__(self, samples: list[float]) -> None:
        self.samples = samples
        self.median = statistics.median(samples)
        q = statistics.quantiles(samples, n=4) if len(samples) > 1 else [samples[0]] * 3
        self.p25, self.p75 = q[0], q[2]

    def ratio_to(self, base: Stats) -> float:
        """The median of round-by-round ratios: each pair ran back to back, under the
        same load, so this is steadier than a ratio of medians on a shared machine."""
        return statistics.median(a / b for a, b in zip(self.samples, base.samples, strict=True))


class Timer:
    """Calibrated batches, interleaved round by round; one event loop for async loops."""

    THREADS = 8

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.clock = CLOCKS[settings.clock]
        self.loop = asyncio.new_event_loop()
        self._pool: ThreadPoolExecutor | None = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        self.loop.close()

    def once(self, call: Call) -> Any:
        """The call's answer, for the sanity check (async calls run on the timer's loop)."""
        if call.is_async:
            return self.loop.run_until_complete(compile_loop(call, "aonce", self.clock)(**call.env))
        return compile_loop(call, "once", self.clock)(**call.env)

    def runner(
        self, call: Call, shape: str, make: Callable[[], Any] | None = None, fanout: int = 0
    ) -> Callable[[int], float]:
        """A function of the batch size `n` that runs one batch and returns its seconds."""
        if shape == "sync" and call.is_async:
            shape = "async"
        loop, env = compile_loop(call, shape, self.clock), call.env
        if shape == "sync":
            return lambda n: loop(n, **env)  # type: ignore[no-any-return]
        if shape == "async":
            return lambda n: self.loop.run_until_complete(loop(n, **env))
        if shape == "gather":
            return lambda n: self.loop.run_until_complete(loop(n, fanout, **env))
        if shape == "over":
            assert make is not None
            return lambda n: loop([make() for _ in range(n)], **env)  # type: ignore[no-any-return]
        if shape == "threads":
            return lambda n: self._threaded(loop, env, n)
        raise ValueError(shape)

    def _threaded(self, loop: Callable[..., Any], env: Mapping[str, Any], n: int) -> float:
        """`THREADS` threads (started once, kept) each run `n` calls at the same time."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.THREADS, thread_name_prefix="bench")
        pool = self._pool
        t0 = self.clock()
        futures = [pool.submit(loop, n, **env) for _ in range(self.THREADS)]
        wait_all(futures)
        for future in futures:
            future.result()
        return self.clock() - t0

    def _batch(self, run: Callable[[int], float], n: int, keep_gc: bool) -> float:
        # The collector is paused inside a batch, as timeit does, except where its work
        # is part of what is measured (many live coroutines at once).
        gc_was_on = gc.isenabled()
        if keep_gc:
            gc.collect()  # every batch starts from the same collector state
        else:
            gc.disable()
        try:
            return run(n)
        finally:
            if gc_was_on:
                gc.enable()

    def _calibrate(self, run: Callable[[int], float], keep_gc: bool, per_call: int) -> int:
        target = self.settings.batch_seconds * per_call
        n = 1
        while True:
            elapsed = self._batch(run, n, keep_gc)
            if elapsed >= target / 4 or n >= 1 << 20:
                break
            n *= 4
        return max(1, round(n * target / max(elapsed, 1e-9)))

    def compare(
        self,
        subjects: Mapping[str, Call],
        *,
        shape: str = "sync",
        make: Callable[[], Any] | None = None,
        rounds: int | None = None,
        fanout: int = 0,
        keep_gc: bool = False,
        per_batch: float = 1.0,
        divide: int = 1,
    ) -> dict[str, Stats]:
        """Seconds per call for each subject, one sample per round, rounds aligned.

        per_batch: batches this many times longer than the usual ~2 ms (for calls that
        take milliseconds); divide: calls made per loop iteration (a gather's fan-out,
        the threads of a threaded batch), so samples are per call.
        """
        if not subjects:
            return {}
        runs = {name: self.runner(call, shape, make, fanout) for name, call in subjects.items()}
        sizes = {name: self._calibrate(run, keep_gc, int(per_batch)) for name, run in runs.items()}
        per_call: dict[str, list[float]] = {name: [] for name in subjects}
        names = list(subjects)
        for r in range(rounds or self.settings.rounds):
            shift = r % len(names)  # rotate who goes first
            for name in names[shift:] + names[:shift]:
                n = sizes[name]
                per_call[name].append(self._batch(runs[name], n, keep_gc) / (n * divide))
        return {name: Stats(values) for name, values in per_call.items()}

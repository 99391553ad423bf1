"""What one pass-through middleware costs per call, and that no middleware costs nothing.

    python -m benchmarks.bench_middleware            # 101 paired rounds
    python -m benchmarks.bench_middleware --quick    # 5 rounds (CI: it runs end to end)

Each case times, in paired rounds (`benchmarks.timing`), the inline floor (a prebuilt
validator and the direct call, written in the loop), the face on a registry without
middleware, and the same face on a registry with one middleware that only calls
``call_next``. The cost of the middleware is the difference between the last two; it
is compared with the floor of the same round, so the targets hold on any machine:

* ``call_tool`` with a sync middleware: at most 0.5 µs where the floor takes 0.38 µs
  (docs/performance.md's run), so at most 1.3 floors;
* ``await async_call_tool`` with an async middleware: at most 1 µs where the async
  floor takes 0.44 µs, so at most 2.3 floors;
* ``call_tool`` and ``await async_call_tool`` with the `OpenTelemetry` middleware and
  no OpenTelemetry SDK configured (the API's no-op tracer): at most 1 µs each, so at
  most 2.6 and 2.3 floors;
* a registry without middleware: its ``call_tool`` against the floor, as the call
  benchmarks state it (at most 1.5x): adding the chain costs it nothing.

A second table (`run_builtins`) gives what the built-in middleware cost per call, on
the same rounds' plain registry: a `ConcurrencyLimit` with a free slot (sync and
async), an answer from `Cache` (an int; ten rows, which it copies for each caller),
a built-in passing over a tool it does not choose, and a `RateLimit` and a
`ConcurrencyLimit` keyed by a context value (a user).
No target: the figures are for docs/middleware.md's readers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/bench_middleware.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import functions as fn
from benchmarks.subjects import args_validator
from benchmarks.timing import Call, Settings, Timer

SYNC_TARGET = 0.5 / 0.38  # floors: 0.5 µs over a 0.38 µs floor
ASYNC_TARGET = 1.0 / 0.44  # floors: 1 µs over a 0.44 µs async floor
OTEL_TARGET = 1.0 / 0.38  # floors: 1 µs over the sync floor
AOTEL_TARGET = 1.0 / 0.44  # ... over the async floor
PLAIN_TARGET = 1.5  # call_tool without middleware, x the floor (docs/performance.md)


def _passing(call: Any, call_next: Any) -> Any:
    return call_next(call)


async def _apassing(call: Any, call_next: Any) -> Any:
    return await call_next(call)


def _registries() -> tuple[Any, Any, Any, Any]:
    from tooldeck import ToolRegistry
    from tooldeck.middleware import OpenTelemetry

    plain = ToolRegistry()
    synced = ToolRegistry(middleware=[_passing])
    asynced = ToolRegistry(middleware=[_apassing])
    # No SDK is configured in this process: the OpenTelemetry API's no-op.
    traced = ToolRegistry(middleware=[OpenTelemetry()])
    for registry in (plain, synced, asynced, traced):
        registry.register(fn.add)
        registry.register(fn.aadd)
    return plain, synced, asynced, traced


def run(timer: Timer) -> dict[str, dict[str, float]]:
    """Per case: µs per call of each subject, the middleware's cost in µs and in floors."""
    plain, synced, asynced, traced = _registries()
    args = fn.CALL_ARGS
    validate = args_validator(fn.add).validate_python
    avalidate = args_validator(fn.aadd).validate_python
    floor = Call("func(**validate(args))", {"func": fn.add, "validate": validate, "args": args})
    afloor = Call(
        "func(**validate(args))",
        {"func": fn.aadd, "validate": avalidate, "args": args},
        is_async=True,
    )
    without = Call("ct('add', args)", {"ct": plain.call_tool, "args": args})
    awithout = Call("ct('aadd', args)", {"ct": plain.async_call_tool, "args": args}, is_async=True)
    cases = {
        "call_tool, a sync middleware": (
            floor,
            without,
            Call("ct('add', args)", {"ct": synced.call_tool, "args": args}),
        ),
        "await async_call_tool, an async middleware": (
            afloor,
            awithout,
            Call("ct('aadd', args)", {"ct": asynced.async_call_tool, "args": args}, is_async=True),
        ),
        "call_tool, OpenTelemetry without an SDK": (
            floor,
            without,
            Call("ct('add', args)", {"ct": traced.call_tool, "args": args}),
        ),
        "await async_call_tool, OpenTelemetry without an SDK": (
            afloor,
            awithout,
            Call("ct('aadd', args)", {"ct": traced.async_call_tool, "args": args}, is_async=True),
        ),
    }
    measured: dict[str, dict[str, float]] = {}
    for label, (floor, without, with_one) in cases.items():
        for call in (floor, without, with_one):
            assert timer.once(call) == fn.CALL_RESULT
        stats = timer.compare({"floor": floor, "without": without, "with": with_one})
        f, wo, w = (stats[k].samples for k in ("floor", "without", "with"))
        cost = [(b - a) / c for a, b, c in zip(wo, w, f, strict=True)]
        measured[label] = {
            "floor_us": stats["floor"].median * 1e6,
            "without_us": stats["without"].median * 1e6,
            "with_us": stats["with"].median * 1e6,
            "cost_us": statistics.median(b - a for a, b in zip(wo, w, strict=True)) * 1e6,
            "cost_floors": statistics.median(cost),
            "plain_ratio": stats["without"].ratio_to(stats["floor"]),
        }
    return measured


TARGETS = {
    "call_tool, a sync middleware": SYNC_TARGET,
    "await async_call_tool, an async middleware": ASYNC_TARGET,
    "call_tool, OpenTelemetry without an SDK": OTEL_TARGET,
    "await async_call_tool, OpenTelemetry without an SDK": AOTEL_TARGET,
}


def run_builtins(timer: Timer) -> dict[str, dict[str, float]]:
    """Per case: µs per call without middleware and with the built-in, and the cost."""
    from tooldeck import ToolRegistry
    from tooldeck.middleware import Cache, ConcurrencyLimit, RateLimit

    def rows(n: int) -> list[dict[str, Any]]:
        """Rows, as a lookup answers them: what a cached answer must copy per caller."""
        return [{"id": i, "name": f"row {i}", "score": i * 1.5, "tags": ["a"]} for i in range(n)]

    def registry(*middleware: Any) -> Any:
        made = ToolRegistry(middleware=list(middleware))
        made.register(fn.add)
        made.register(fn.aadd)
        made.tool(rows)
        return made

    plain = registry()
    limited = registry(ConcurrencyLimit(1_000))
    cached = registry(Cache(3600, tools=["add", "aadd", "rows"]))
    passed = registry(RateLimit(1, 3600, tools="other"))
    per_user = registry(RateLimit(10**9, 1, key="user"))
    pools_per_user = registry(ConcurrencyLimit(1_000, key="user"))
    args = fn.CALL_ARGS
    user = {"user": "u-42"}

    def sync(face: Any) -> Call:
        return Call("ct('add', args)", {"ct": face.call_tool, "args": args})

    def by_user(face: Any) -> Call:
        return Call(
            "ct('add', args, context=user)", {"ct": face.call_tool, "args": args, "user": user}
        )

    def asynced(face: Any) -> Call:
        return Call("ct('aadd', args)", {"ct": face.async_call_tool, "args": args}, is_async=True)

    cases = {
        "call_tool, ConcurrencyLimit (a slot free)": (sync(plain), sync(limited)),
        "await async_call_tool, ConcurrencyLimit (a slot free)": (
            asynced(plain),
            asynced(limited),
        ),
        "call_tool, an answer from Cache (the tool not run)": (sync(plain), sync(cached)),
        "call_tool, an answer of ten rows from Cache (a copy per caller)": (
            Call("ct('rows', {'n': 10})", {"ct": plain.call_tool}),
            Call("ct('rows', {'n': 10})", {"ct": cached.call_tool}),
        ),
        "call_tool, RateLimit on other tools (passed over)": (sync(plain), sync(passed)),
        "call_tool, RateLimit per user (a token free)": (by_user(plain), by_user(per_user)),
        "call_tool, ConcurrencyLimit per user (a slot free)": (
            by_user(plain),
            by_user(pools_per_user),
        ),
    }
    measured: dict[str, dict[str, float]] = {}
    for label, (without, with_one) in cases.items():
        expected = timer.once(without)
        assert expected == fn.CALL_RESULT or len(expected) == 10
        for call in (without, with_one):
            assert timer.once(call) == expected
        stats = timer.compare({"without": without, "with": with_one})
        wo, w = (stats[k].samples for k in ("without", "with"))
        measured[label] = {
            "without_us": stats["without"].median * 1e6,
            "with_us": stats["with"].median * 1e6,
            "cost_us": statistics.median(b - a for a, b in zip(wo, w, strict=True)) * 1e6,
        }
    return measured


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Run the cases and print their table; the measurements by case."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds")
    opts = parser.parse_args(argv)
    timer = Timer(Settings.make(opts.quick))
    try:
        measured = run(timer)
        builtins = run_builtins(timer)
    finally:
        timer.close()
    print("One pass-through middleware: µs per call (medians of paired rounds)")
    print("| case | floor | without | with | cost | cost in floors | target | no chain, x floor |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    for label, m in measured.items():
        target = TARGETS[label]
        verdict = "pass" if m["cost_floors"] <= target else "FAIL"
        print(
            f"| {label} | {m['floor_us']:.2f} | {m['without_us']:.2f} | {m['with_us']:.2f} | "
            f"{m['cost_us']:.2f} | {m['cost_floors']:.2f} | <= {target:.2f} {verdict} | "
            f"{m['plain_ratio']:.2f}x (<= {PLAIN_TARGET:g}x) |"
        )
    print()
    print("Built-in middleware: µs per call (medians of paired rounds)")
    print("| case | without | with | cost |")
    print("| --- | ---: | ---: | ---: |")
    for label, m in builtins.items():
        print(f"| {label} | {m['without_us']:.2f} | {m['with_us']:.2f} | {m['cost_us']:.2f} |")
    return measured


if __name__ == "__main__":
    main()

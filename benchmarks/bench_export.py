"""Exporting 1,000 registered tools, a first and a second time, in every format.

The first export of a registry runs every tool through its exporter; the second is
answered from the registry's cache. The script reports medians (timeit, fresh
registry per repetition for the first export), the speed-up, and checks that the
second export calls no exporter at all.

    python -m benchmarks.bench_export            # 1,000 tools, 7 repetitions
    python -m benchmarks.bench_export --quick    # 1,000 tools, 3 repetitions
"""

from __future__ import annotations

import argparse
import statistics
import timeit
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

import tooldeck.exporters
from tooldeck import ToolRegistry
from tooldeck.exporters import FORMATS


class Address(BaseModel):
    street: str
    city: str = "Taipei"
    postcode: str | None = None


def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


def search(
    query: Annotated[str, "free-text search terms"],
    mode: Literal["fast", "exact"] = "fast",
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
    languages: list[str] | None = None,
) -> list[str]:
    """Search the documentation index."""
    return [query]


def ship(to: Address, items: list[Address], express: bool = False) -> Address:
    """Ship parcels to an address."""
    return to


TEMPLATES: tuple[Callable[..., Any], ...] = (add, search, ship)


def copy_of(func: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A new function object sharing ``func``'s code, under another name."""
    clone = types.FunctionType(
        func.__code__, func.__globals__, name, func.__defaults__, func.__closure__
    )
    clone.__annotations__ = dict(func.__annotations__)
    clone.__doc__ = func.__doc__
    clone.__qualname__ = name
    return clone


def build_registry(size: int) -> ToolRegistry:
    registry = ToolRegistry()
    for i in range(size):
        template = TEMPLATES[i % len(TEMPLATES)]
        registry.register(copy_of(template, f"{template.__name__}_{i}"), tags=[f"group{i % 10}"])
    return registry


@contextmanager
def counting_exports() -> Iterator[list[int]]:
    """Count calls of ``tooldeck.exporters.export_tool`` (the schema work) meanwhile."""
    calls = [0]
    original = tooldeck.exporters.export_tool

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        calls[0] += 1
        return original(*args, **kwargs)

    tooldeck.exporters.export_tool = counted  # type: ignore[assignment]
    try:
        yield calls
    finally:
        tooldeck.exporters.export_tool = original  # type: ignore[assignment]


def measure(fmt: str, strict: bool, size: int, repeat: int) -> tuple[float, float, int]:
    """Median seconds of the first and the second export, and exporter calls in the second."""
    firsts, seconds = [], []
    for _ in range(repeat):
        export = partial(build_registry(size).export, fmt, strict=strict)
        firsts.append(timeit.timeit(export, number=1))
        seconds.append(timeit.timeit(export, number=1))
    with counting_exports() as calls:
        export()
    return statistics.median(firsts), statistics.median(seconds), calls[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repetitions instead of 7")
    parser.add_argument("--tools", type=int, default=1000, help="registered tools (1000)")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 7

    print(f"{args.tools} tools, median of {repeat}")
    print(
        f"{'format':<18}{'strict':<8}{'first ms':>10}{'second ms':>11}{'speed-up':>10}{'calls':>7}"
    )
    worst = float("inf")
    for fmt in FORMATS:
        for strict in (False, True):
            first, second, calls = measure(fmt, strict, args.tools, repeat)
            speedup = first / second
            worst = min(worst, speedup)
            print(
                f"{fmt:<18}{strict!s:<8}{first * 1e3:>10.2f}{second * 1e3:>11.2f}"
                f"{speedup:>9.1f}x{calls:>7}"
            )
    print(f"smallest speed-up: {worst:.1f}x (second exports call no exporter: 'calls' is 0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The validated call path, re-measured around the reliability checks (issue 7).

The checks added for hostile input (the size limit on JSON text, bounded error text)
must cost nothing on the hot path. This script times, interleaved round by round in
one run, each tooldeck path against its floor — a pydantic-core validator built once
plus the direct call — and reports medians of per-call times and their ratios:

* ``registry.call_tool`` and ``Tool.call`` with a dict  vs  ``validate_python`` + call
* ``registry.call_tool`` with a JSON string            vs  ``validate_json`` + call

    python -m benchmarks.bench_reliability                  # 101 rounds of 2 ms batches
    python -m benchmarks.bench_reliability --quick          # 5 rounds (CI)
    python -m benchmarks.bench_reliability --before REV     # also tooldeck as of REV
    python -m benchmarks.bench_reliability --before DIR     # ... or from a source tree

With ``--before``, the package as of a git revision (or from a tree) is imported alongside (as
``tooldeck_before``) and timed in the same rounds: a before/after comparison that no
change in machine load between two runs can skew.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import io
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/bench_reliability.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic_core import SchemaValidator
from pydantic_core import core_schema as cs

from tooldeck import ToolRegistry

BATCH_SECONDS = 0.002  # a batch repeats one call until it takes about this long

ARGS = {"a": 1, "b": 2}
TEXT = json.dumps(ARGS)


def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


def floor_validator() -> SchemaValidator:
    """``add``'s arguments as pydantic-core validates them: forbid unknown keys, yield a dict."""
    fields = {
        "a": cs.typed_dict_field(cs.int_schema()),
        "b": cs.typed_dict_field(cs.with_default_schema(cs.int_schema(), default=0)),
    }
    return SchemaValidator(cs.typed_dict_schema(fields, extra_behavior="forbid"))


def subjects(before: Any = None) -> dict[str, dict[str, Callable[[], Any]]]:
    """Per case, the subjects to time: zero-argument callables."""
    validator = floor_validator()
    vpy, vjson = validator.validate_python, validator.validate_json
    cases: dict[str, dict[str, Callable[[], Any]]] = {
        "dict arguments": {"floor": lambda: add(**vpy(ARGS))},
        "JSON arguments": {"floor": lambda: add(**vjson(TEXT))},
    }
    versions = [("", ToolRegistry)]
    if before is not None:
        versions.append((" (before)", before.ToolRegistry))
    for suffix, registry_class in versions:
        registry = registry_class()
        tool, call_tool = registry.register(add), registry.call_tool
        assert call_tool("add", ARGS) == call_tool("add", TEXT) == tool.call(ARGS) == 3
        cases["dict arguments"][f"call_tool{suffix}"] = lambda c=call_tool: c("add", ARGS)
        cases["dict arguments"][f"Tool.call{suffix}"] = lambda t=tool: t.call(ARGS)
        cases["JSON arguments"][f"call_tool{suffix}"] = lambda c=call_tool: c("add", TEXT)
    return cases


def load_before(where: str) -> Any:
    """tooldeck as of a git revision, or from a directory, imported as ``tooldeck_before``.

    A directory is a ``tooldeck`` package, or a tree holding ``src/tooldeck``.
    """
    target = Path(tempfile.mkdtemp(prefix="tooldeck_before_"))
    source = Path(where)
    if source.is_dir():
        package = source / "src" / "tooldeck" if (source / "src").is_dir() else source
        shutil.copytree(package, target / "tooldeck_before")
    else:
        root = Path(__file__).resolve().parent.parent
        archive = subprocess.run(
            ["git", "archive", where, "src/tooldeck"], cwd=root, check=True, capture_output=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(target, filter="data")
        (target / "src" / "tooldeck").rename(target / "tooldeck_before")
    sys.path.insert(0, str(target))
    return importlib.import_module("tooldeck_before")


def calibrate(func: Callable[[], Any], seconds: float) -> int:
    """How many calls make a batch of about ``seconds``."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            func()
        if time.perf_counter() - start >= seconds / 10:
            return max(1, number * 10)
        number *= 2


def batch(func: Callable[[], Any], number: int) -> float:
    """Microseconds per call over one batch of ``number`` calls."""
    start = time.perf_counter()
    for _ in range(number):
        func()
    return (time.perf_counter() - start) / number * 1e6


def measure(
    rounds: int, seconds: float = BATCH_SECONDS, before: Any = None
) -> dict[str, dict[str, float]]:
    """Median microseconds per call, per case and subject, interleaved by round."""
    cases = subjects(before)
    samples: dict[str, dict[str, list[float]]] = {
        case: {name: [] for name in subs} for case, subs in cases.items()
    }
    for case, subs in cases.items():
        numbers = {name: calibrate(func, seconds) for name, func in subs.items()}
        names = list(subs)
        for round_ in range(rounds):
            order = names[round_ % len(names) :] + names[: round_ % len(names)]
            gc.disable()
            try:
                for name in order:
                    samples[case][name].append(batch(subs[name], numbers[name]))
            finally:
                gc.enable()
    return {
        case: {name: statistics.median(values) for name, values in subs.items()}
        for case, subs in samples.items()
    }


def report(medians: dict[str, dict[str, float]]) -> str:
    lines = ["| case | subject | median µs | vs floor |", "| --- | --- | --- | --- |"]
    for case, subs in medians.items():
        floor = subs["floor"]
        for name, value in subs.items():
            lines.append(f"| {case} | {name} | {value:.2f} | {value / floor:.2f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 short rounds (CI)")
    parser.add_argument(
        "--before", metavar="REV|DIR", help="also time tooldeck as of a git revision or a tree"
    )
    options = parser.parse_args(argv)
    before = load_before(options.before) if options.before else None
    if options.quick:
        medians = measure(rounds=5, seconds=0.001, before=before)
    else:
        medians = measure(rounds=101, before=before)
    print(report(medians))
    return medians


if __name__ == "__main__":
    main()

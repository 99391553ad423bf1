"""What `run_tool_calls` costs over calling the tools directly, and what concurrency buys.

    python -m benchmarks.bench_tool_calls            # 33 paired rounds, 50 ms tools
    python -m benchmarks.bench_tool_calls --quick    # 5 rounds, 20 ms tools (CI)

The cases are `benchmarks.cases_tool_calls` (part of ``python -m benchmarks.run`` too);
this runs only them and prints their tables. Target: one call costs at most 3x
``execute`` on the same tool.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # `python benchmarks/bench_tool_calls.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.cases_tool_calls import TARGET, run_concurrency, run_overhead
from benchmarks.timing import Settings, Timer


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the cases, print their tables; ratio (overhead) or wall ms (concurrency) by label."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds, 20 ms tools")
    opts = parser.parse_args(argv)
    settings = Settings.make(opts.quick)
    timer = Timer(settings)
    try:
        overhead = run_overhead(timer, lambda _: None)
        concurrency = run_concurrency(timer, lambda _: None)
    finally:
        timer.close()

    rounds = max(5, settings.rounds // 3)
    print(f"Overhead: CPU µs per reply, medians of {rounds} paired rounds")
    print("| case | execute directly | run_tool_calls | ratio | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    measured: dict[str, float] = {}
    for row in overhead.rows:
        ratio, targeted = row.extra["ratio"], row.extra["targeted"]
        verdict = ("pass" if ratio <= TARGET else "FAIL") if targeted else "—"
        base = row.extra["execute_us"]
        print(f"| {row.subject} | {base:.2f} | {row.value:.2f} | {ratio:.2f}x | {verdict} |")
        measured[row.subject] = ratio
    worst = max(r.extra["ratio"] for r in overhead.rows if r.extra["targeted"])
    print(f"\nOne call, worst ratio: {worst:.2f}x (target <= {TARGET:g}x)\n")

    print(f"Concurrency: {concurrency.title}")
    print("| how | wall ms |")
    print("| --- | ---: |")
    for row in concurrency.rows:
        print(f"| {row.subject} | {row.value:.0f} |")
        measured[row.subject] = row.value or 0.0
    return measured


if __name__ == "__main__":
    main()

"""tooldeck against its peers and the inline floors, every path in one run.

    python -m benchmarks.run --runs 3   # three full runs, medians: results/, docs, README
    python -m benchmarks.run            # one full run: results/, docs/performance.md, chart
    python -m benchmarks.run --quick    # every case a handful of times (CI); no docs
    python -m benchmarks.run --only tooldeck,floor --skip scale --out /tmp/bench
    python -m benchmarks.run --runs 3 --update --only tooldeck,floor \
        --skip call,define,scale,tool_calls   # re-measure the concurrency cases only

Case groups (`--skip`): call (paths, faces, injected context), define, scale (distinct
tools), concurrency, tool_calls (a model's reply). Within a case the subjects are
interleaved round by round, so a noisy neighbour slows them all alike, and every ratio
is taken against a baseline measured in the same run. Nothing here asserts a speed:
the targets are evaluated and reported, pass or fail.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/run.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import aggregate, cases_calls, cases_concurrency, cases_define, cases_scale
from benchmarks.peers import ALL_SUBJECTS
from benchmarks.publish import write_outputs
from benchmarks.report import targets_table
from benchmarks.results import Case
from benchmarks.subjects import Subject, version_of
from benchmarks.targets import evaluate
from benchmarks.timing import CLOCKS, Settings, Timer

ROOT = Path(__file__).resolve().parent.parent
GROUPS = ("call", "define", "scale", "concurrency", "tool_calls")
Log = Callable[[str], None]


def load_subjects(only: set[str] | None, skipped: dict[str, str]) -> list[Subject]:
    subjects = []
    for cls in ALL_SUBJECTS:
        if only and cls.name not in only:
            continue
        subject = cls()
        try:
            subject.load()
        except Exception as exc:  # missing or broken: skipped with the reason
            skipped[cls.name] = f"unavailable: {type(exc).__name__}: {exc}"[:300]
            continue
        subjects.append(subject)
    return subjects


def run_cases(
    subjects: list[Subject], timer: Timer, skip: set[str], log: Log
) -> list[dict[str, Any]]:
    out: list[Case] = []
    apart: list[dict[str, Any]] = []  # measured in a process of their own
    if "call" not in skip:
        out += cases_calls.run_path_cases(subjects, timer, log)
        out += cases_calls.run_face_cases(subjects, timer, log)
        out += cases_calls.run_injected_cases(subjects, timer, log)
    if "define" not in skip:
        out += cases_define.run_definition_cases(subjects, timer, log)
    if "concurrency" not in skip:
        apart = cases_concurrency.run_concurrency_cases(subjects, timer, log)
    if "tool_calls" not in skip:
        from benchmarks import cases_tool_calls  # the provider SDKs' types

        out += cases_tool_calls.run_tool_call_cases(timer, log)
    if "scale" not in skip:
        out += cases_scale.run_scale(subjects, timer, log)
    cases = [c.to_dict() for c in out]
    at = next((i for i, c in enumerate(cases) if c["group"] in ("tool_calls", "scale")), len(cases))
    return cases[:at] + apart + cases[at:]


def machine_info(subjects: list[Subject], skipped: dict[str, str]) -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {s.name: s.version for s in subjects}
    versions["pydantic"] = version_of("pydantic")
    versions["pydantic-core"] = version_of("pydantic-core")
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "versions": versions,
        "registers": {s.name: s.registers for s in subjects},
        "skipped": skipped,
    }


def run_once(opts: argparse.Namespace, log: Log) -> dict[str, Any]:
    settings = Settings.make(opts.quick, opts.clock)
    only = set(opts.only.split(",")) if opts.only else None
    skipped: dict[str, str] = {}
    subjects = load_subjects(only, skipped)
    log("subjects: " + ", ".join(s.name for s in subjects))
    started = time.perf_counter()
    timer = Timer(settings)
    try:
        cases = run_cases(subjects, timer, _skip(opts), log)
    finally:
        timer.close()
    return {
        "mode": "quick" if settings.quick else "full",
        "clock": settings.clock,
        "settings": settings.__dict__,
        "runs": 1,
        "seconds": time.perf_counter() - started,
        "meta": machine_info(subjects, skipped),
        "cases": cases,
        "targets": evaluate(cases),
        "full_schema_peers": cases_define.full_schema_peers(cases),
    }


def _skip(opts: argparse.Namespace) -> set[str]:
    skip = set(filter(None, opts.skip.split(",")))
    unknown = skip - set(GROUPS)
    if unknown:
        raise SystemExit(f"--skip: unknown group(s) {sorted(unknown)}; groups: {GROUPS}")
    return skip


def parse(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a handful of repeats (CI)")
    parser.add_argument("--only", help="comma-separated subjects, e.g. tooldeck,floor")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument(
        "--docs",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write docs/performance.md, its chart and the README table (default: full runs)",
    )
    parser.add_argument("--skip", default="", help="comma-separated groups: " + ",".join(GROUPS))
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu", help="what to read")
    parser.add_argument("--runs", type=int, default=1, help="full runs, each a fresh process")
    parser.add_argument(
        "--update",
        action="store_true",
        help="with --runs N: splice the cases measured into the N published runs in --out",
    )
    parser.add_argument(
        "--render", type=Path, metavar="JSON", help="re-render outputs from a result file"
    )
    opts = parser.parse_args(argv)
    if opts.update and opts.runs < 2:
        parser.error("--update splices into the published runs: give --runs N (N >= 2)")
    # What a run in a child process is given again (`--runs`).
    passthrough = ["--quick"] * opts.quick + ["--clock", opts.clock, "--skip", opts.skip]
    passthrough += ["--only", opts.only] if opts.only else []
    return opts, passthrough


def main(argv: list[str] | None = None) -> int:
    opts, passthrough = parse(argv)
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f}s] {message}", file=sys.stderr, flush=True)

    if opts.render:
        result = json.loads(opts.render.read_text())
    elif opts.runs > 1:
        _skip(opts)
        published = aggregate.published_runs(opts.out, opts.runs) if opts.update else []
        runs = aggregate.run_separately(opts.runs, passthrough, opts.out, log)
        if published:
            runs = [aggregate.splice(old, new) for old, new in zip(published, runs, strict=True)]
            aggregate.save_runs(opts.out, runs)
        result = aggregate.aggregate(runs)
    else:
        result = run_once(opts, log)
    docs = result["mode"] == "full" if opts.docs is None else opts.docs
    write_outputs(result, opts.out, docs=docs)
    print(targets_table(result["targets"]))
    log(f"done; results in {opts.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

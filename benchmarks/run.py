"""tooldeck against its peers and the floors, every path in one run.

    python -m benchmarks.run            # full run: results/, docs/performance.md, chart
    python -m benchmarks.run --quick    # every case a handful of times (CI); no docs
    python -m benchmarks.run --only tooldeck,floor --out /tmp/bench

Timings are medians of many batches. Within a case the subjects are interleaved
round by round, so a noisy neighbour slows them all alike, and every ratio is taken
against a baseline measured in the same run. Nothing here asserts a speed: the
targets are evaluated and reported, pass or fail.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import inspect
import itertools
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/run.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import cases, peers
from benchmarks.peers import Prepared, Subject, Unsupported

ROOT = Path(__file__).resolve().parent.parent
perf_counter = time.perf_counter
# What a measurement reads. On a shared machine wall time mostly measures the
# neighbours; the process's CPU time (all its threads, the worker threads of a thread
# hop included) does not count the time the scheduler gave to others. `--clock wall`
# for an idle machine.
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


@dataclass(frozen=True)
class Settings:
    quick: bool
    rounds: int  # interleaved rounds per case; one batch per subject per round
    batch_seconds: float  # a batch repeats the call until it takes about this long
    scale_tools: int  # tools in the big registry (tooldeck and the floor)
    peer_scale_tools: int  # the same for peers, which can take minutes at 10,000

    @classmethod
    def make(cls, quick: bool) -> Settings:
        if quick:
            return cls(
                quick, rounds=5, batch_seconds=0.002, scale_tools=1_000, peer_scale_tools=200
            )
        return cls(
            quick, rounds=101, batch_seconds=0.002, scale_tools=10_000, peer_scale_tools=2_000
        )


@dataclass
class Row:
    subject: str
    version: str
    value: float | None  # the median, in the case's unit
    unit: str
    spread: tuple[float, float] | None = None  # 25th and 75th percentile
    samples: int = 0
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Exception texts span lines and link to docs: one short line for a table cell.
        first = " ".join(self.note.split())
        self.note = first if len(first) <= 160 else first[:157] + "..."


@dataclass
class Case:
    id: str
    title: str
    baseline: str | None  # the subject ratios are taken against
    rows: list[Row] = field(default_factory=list)
    note: str = ""

    def value(self, subject: str) -> float | None:
        return next((r.value for r in self.rows if r.subject == subject), None)

    def to_dict(self) -> dict[str, Any]:
        base = self.value(self.baseline) if self.baseline else None
        td = self.value("tooldeck")
        rows = []
        for r in self.rows:
            d = {
                "subject": r.subject,
                "version": r.version,
                "value": r.value,
                "unit": r.unit,
                "p25": r.spread[0] if r.spread else None,
                "p75": r.spread[1] if r.spread else None,
                "samples": r.samples,
                "ratio_vs_baseline": r.extra.get("paired_ratio", _ratio(r.value, base)),
                "ratio_vs_tooldeck": r.extra.get("paired_vs_tooldeck", _ratio(r.value, td)),
                "note": r.note,
            }
            d.update((k, v) for k, v in r.extra.items() if not k.startswith("paired_"))
            rows.append(d)
        return {
            "id": self.id,
            "title": self.title,
            "baseline": self.baseline,
            "note": self.note,
            "rows": rows,
        }


def _ratio(value: float | None, base: float | None) -> float | None:
    if value is None or not base:
        return None
    return value / base


# -- timing ------------------------------------------------------------------------------


def _batch(fn: Callable[..., Any], args: tuple[Any, ...], n: int) -> float:
    t0 = clock()
    for _ in repeat(None, n):
        fn(*args)
    return clock() - t0


def _batch_over(fn: Callable[[Any], Any], inputs: list[Any]) -> float:
    t0 = clock()
    for item in inputs:
        fn(item)
    return clock() - t0


async def _abatch(fn: Callable[..., Any], args: tuple[Any, ...], n: int) -> float:
    t0 = clock()
    for _ in repeat(None, n):
        await fn(*args)
    return clock() - t0


class Timer:
    """Interleaved, calibrated batches; one event loop for every async subject."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.loop = asyncio.new_event_loop()

    def close(self) -> None:
        self.loop.close()

    def _one_batch(self, kind: str, prepared: Prepared, n: int, make: Any = None) -> float:
        fn, args = prepared
        gc_was_on = gc.isenabled()
        if kind == "over":
            inputs = [make() for _ in range(n)]  # fresh inputs, made outside the clock
        gc.disable()
        try:
            if kind == "async":
                return self.loop.run_until_complete(_abatch(fn, args, n))
            if kind == "over":
                return _batch_over(fn, inputs)
            return _batch(fn, args, n)
        finally:
            if gc_was_on:
                gc.enable()

    def _calibrate(self, kind: str, prepared: Prepared, make: Any) -> int:
        n = 1
        while True:
            elapsed = self._one_batch(kind, prepared, n, make)
            if elapsed >= self.settings.batch_seconds / 4 or n >= 1 << 20:
                break
            n *= 4
        return max(1, round(n * self.settings.batch_seconds / max(elapsed, 1e-9)))

    def compare(
        self,
        subjects: dict[str, Prepared],
        *,
        kind: str = "sync",
        make: Any = None,
        rounds: int | None = None,
    ) -> dict[str, Stats]:
        """Per-call seconds for each subject, one sample per round, rounds aligned.

        kind: "sync" calls `fn(*args)`, "async" awaits it, "over" calls `fn(x)` for
        fresh inputs `x = make()` (a new function object per call).
        """
        sizes = {name: self._calibrate(kind, p, make) for name, p in subjects.items()}
        per_call: dict[str, list[float]] = {name: [] for name in subjects}
        names = list(subjects)
        for r in range(rounds or self.settings.rounds):
            shift = r % len(names)  # rotate who goes first
            for name in names[shift:] + names[:shift]:
                n = sizes[name]
                per_call[name].append(self._one_batch(kind, subjects[name], n, make) / n)
        return {name: Stats(values) for name, values in per_call.items()}


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

    def row(self, subject: str, version: str, note: str = "", **extra: Any) -> Row:
        return Row(
            subject,
            version,
            self.median * 1e6,
            "us",
            (self.p25 * 1e6, self.p75 * 1e6),
            len(self.samples),
            note,
            extra,
        )


# -- the cases ---------------------------------------------------------------------------


def _check(result: Any, expect_error: bool) -> str:
    """A loose sanity check that the prepared path did the work (or failed as asked)."""
    text = repr(result)
    if expect_error:
        return (
            ""
            if ("rror" in text or "nvalid" in text) and "'result': 3" not in text
            else (f"unexpected answer: {text[:80]}")
        )
    return "" if result == cases.CALL_RESULT or "3" in text else f"unexpected answer: {text[:80]}"


def _prepare_all(
    subjects: list[Subject],
    method: str,
    func: Any,
    arg: Any,
    kind: str,
    timer: Timer,
    skipped: dict[str, str],
    expect_error: bool = False,
) -> tuple[dict[str, Prepared], dict[str, str], dict[str, str]]:
    """Each subject's prepared call (variants expanded), its version and any note."""
    prepared: dict[str, Prepared] = {}
    versions: dict[str, str] = {}
    notes: dict[str, str] = {}
    for subject in subjects:
        try:
            made = getattr(subject, method)(cases.fresh(func), arg)
        except Unsupported as exc:
            skipped[subject.name] = str(exc)
            continue
        except Exception as exc:
            skipped[subject.name] = f"failed to prepare: {type(exc).__name__}: {exc}"
            continue
        variants = made if isinstance(made, dict) else {None: made}
        for variant, (fn, args) in variants.items():
            label = subject.label(variant)
            try:
                result = fn(*args)
                if kind == "async":
                    result = timer.loop.run_until_complete(result)
            except Exception as exc:
                skipped[label] = f"failed: {type(exc).__name__}: {exc}"
                continue
            prepared[label] = (fn, args)
            versions[label] = subject.version
            notes[label] = _check(result, expect_error)
    return prepared, versions, notes


CALL_CASES = [
    # id, title, method, function, argument, kind, error expected
    (
        "call_sync",
        "Sync call by name with a dict: add(a=1, b=2)",
        "prepare_sync",
        cases.add,
        cases.CALL_ARGS,
        "sync",
        False,
    ),
    (
        "call_async",
        "Async call of an async tool",
        "prepare_async",
        cases.aadd,
        cases.CALL_ARGS,
        "async",
        False,
    ),
    (
        "call_async_sync",
        "Async call of a sync tool (worker thread)",
        "prepare_async_sync",
        cases.add,
        cases.CALL_ARGS,
        "async",
        False,
    ),
    (
        "call_json",
        "Call with a JSON string of arguments",
        "prepare_json",
        cases.add,
        cases.CALL_JSON,
        "sync",
        False,
    ),
    (
        "call_invalid",
        "Invalid arguments: the error path (a='one')",
        "prepare_error",
        cases.add,
        cases.BAD_ARGS,
        "sync",
        True,
    ),
    (
        "call_invalid_async",
        "Invalid arguments, async: the error path of an async tool (a='one')",
        "prepare_error_async",
        cases.aadd,
        cases.BAD_ARGS,
        "async",
        True,
    ),
]


def run_call_cases(subjects: list[Subject], timer: Timer, log: Callable[[str], None]) -> list[Case]:
    out = []
    for case_id, title, method, func, arg, kind, expect_error in CALL_CASES:
        log(f"case {case_id}")
        skipped: dict[str, str] = {}
        prepared, versions, notes = _prepare_all(
            subjects, method, func, arg, kind, timer, skipped, expect_error
        )
        measured = timer.compare(prepared, kind=kind)
        case = Case(case_id, title, baseline="floor")
        floor, td = measured.get("floor"), measured.get("tooldeck")
        for label, stats in measured.items():
            paired = {"paired_ratio": stats.ratio_to(floor)} if floor else {}
            if td:
                paired["paired_vs_tooldeck"] = stats.ratio_to(td)
            case.rows.append(stats.row(label, versions[label], notes[label], **paired))
        for label, reason in skipped.items():
            case.rows.append(Row(label, "", None, "us", note=f"not measured: {reason}"))
        out.append(case)
    return out


def run_definition_cases(
    subjects: list[Subject], timer: Timer, log: Callable[[str], None]
) -> list[Case]:
    out = []
    for key, func in cases.DEFINITION_FUNCS.items():
        log(f"case define_{key}")
        prepared: dict[str, Prepared] = {}
        versions: dict[str, str] = {}
        notes: dict[str, str] = {}
        case = Case(
            f"define_{key}",
            f"Definition to finished JSON schema: {func.__name__}",
            baseline=None,
            note="fresh function object per definition",
        )
        full: dict[str, bool] = {}
        for subject in subjects:
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    schema = subject.define(cases.fresh(func))
                if not isinstance(schema, dict) or not schema:
                    raise TypeError(f"no schema: {schema!r}")
                full[subject.name] = subject.full_schema and is_full_schema(
                    schema, func, cases.DESCRIBED[key]
                )
                dropped = [
                    p
                    for p in cases.ANNOTATED_DESCRIBED.get(key, ())
                    if "description" not in schema.get("properties", {}).get(p, {})
                ]
                notes[subject.name] = "; ".join(
                    (
                        [f"drops the Annotated[str, ...] description of {', '.join(dropped)}"]
                        if dropped
                        else []
                    )
                    + ([f"warns: {caught[0].message}"] if caught else [])
                )
            except Unsupported as exc:
                case.rows.append(Row(subject.name, subject.version, None, "us", note=str(exc)))
                continue
            except Exception as exc:
                case.rows.append(
                    Row(
                        subject.name,
                        subject.version,
                        None,
                        "us",
                        note=f"failed: {type(exc).__name__}: {exc}"[:200],
                    )
                )
                continue
            prepared[subject.name] = (subject.define, ())
            versions[subject.name] = subject.version
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            measured = timer.compare(
                prepared,
                kind="over",
                make=lambda f=func: cases.fresh(f),
                rounds=max(3, timer.settings.rounds // 3),
            )
        by_name = {s.name: s for s in subjects}
        td = measured.get("tooldeck")
        timed = []
        for label, stats in measured.items():
            note = notes.get(label, "")
            if not by_name[label].full_schema:
                note = "no JSON schema (its own kwargs format)"
            elif not full[label]:
                note = ("incomplete JSON schema (types or descriptions missing); " + note).strip(
                    "; "
                )
            if label == "floor":
                note = "reference: create_model + model_json_schema, no docstring parsing"
            paired = {"paired_vs_tooldeck": stats.ratio_to(td)} if td else {}
            timed.append(stats.row(label, versions[label], note, full_schema=full[label], **paired))
        case.rows[:0] = timed
        out.append(case)
    return out


def is_full_schema(schema: dict[str, Any], func: Any, described: tuple[str, ...]) -> bool:
    """Whether every parameter got a typed property (not a fallback `{}`) and every
    parameter the function documents (in `Annotated` or its docstring) a description."""
    props = schema.get("properties", {})
    typed = ("type", "$ref", "anyOf", "allOf", "oneOf", "enum", "const")
    params = list(inspect.signature(func).parameters)
    return all(p in props and any(k in props[p] for k in typed) for p in params) and all(
        "description" in props.get(p, {}) for p in described
    )


# -- scale -------------------------------------------------------------------------------


def _register_all(subject: Subject, tools: list[tuple[Any, list[str]]]) -> tuple[Any, float]:
    registry = subject.new_registry()
    t0 = clock()
    for func, tags in tools:
        subject.register(registry, func, tags)
    return registry, clock() - t0


def _memory(subject: Subject, count: int) -> tuple[float, float]:
    """Peak and held bytes while registering `count` tools (functions made beforehand)."""
    tools = cases.numbered_tools(count)
    gc.collect()
    tracemalloc.start()
    try:
        registry, _ = _register_all(subject, tools)
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del registry
    return float(peak), float(held)


def run_register_one(
    subjects: list[Subject], timer: Timer, log: Callable[[str], None]
) -> list[Case]:
    """Registering one more tool, interleaved round by round, for a paired ratio.

    The 10,000-tool totals below are one measurement each, taken minutes apart; this
    compares the same work (a fresh 2-int function into a registry that grows to a few
    hundred tools) back to back.
    """
    log("case register_one")
    case = Case("register_one", "Registering one more tool (µs per tool, paired)", baseline=None)
    names = itertools.count()
    prepared: dict[str, Prepared] = {}
    for subject in subjects:
        try:
            registry = subject.new_registry()
            subject.register(registry, cases.fresh(cases.add, f"warm_{next(names)}"), ["warm"])
        except Unsupported as exc:
            case.rows.append(Row(subject.name, subject.version, None, "us", note=str(exc)))
            continue
        except Exception as exc:
            case.rows.append(
                Row(
                    subject.name,
                    subject.version,
                    None,
                    "us",
                    note=f"failed: {type(exc).__name__}: {exc}",
                )
            )
            continue

        def register(func: Any, subject: Subject = subject, registry: Any = registry) -> None:
            subject.register(registry, func, ["grp0"])

        prepared[subject.name] = (register, ())
    measured = timer.compare(
        prepared,
        kind="over",
        make=lambda: cases.fresh(cases.add, f"tool_{next(names)}"),
        rounds=max(3, timer.settings.rounds // 3),
    )
    td = measured.get("tooldeck")
    by_name = {s.name: s for s in subjects}
    case.rows[:0] = [
        stats.row(
            label,
            by_name[label].version,
            by_name[label].registers,
            **({"paired_vs_tooldeck": stats.ratio_to(td)} if td else {}),
        )
        for label, stats in measured.items()
    ]
    return [case]


def run_scale(subjects: list[Subject], timer: Timer, log: Callable[[str], None]) -> list[Case]:
    settings = timer.settings
    register = Case("scale_register", "Registering N tools (total seconds)", baseline=None)
    memory = Case("scale_memory", "Memory while registering N tools (tracemalloc)", baseline=None)
    call = Case("scale_call", "Call by name: 10 tools vs N tools (µs)", baseline=None)
    tags = Case(
        "scale_tags", "Tag query for a tag held by 10 tools: 100 vs N tools (µs)", baseline=None
    )
    export = Case(
        "scale_export", "Export all N tools, OpenAI format: first vs second (ms)", baseline=None
    )
    for subject in subjects:
        count = (
            settings.scale_tools
            if subject.name in ("tooldeck", "floor")
            else min(settings.peer_scale_tools, subject.scale_cap or settings.peer_scale_tools)
        )
        label = subject.name
        try:
            subject.new_registry()
        except Unsupported as exc:
            register.rows.append(Row(label, subject.version, None, "s", note=str(exc)))
            continue
        log(f"scale {label}: registering {count} tools")
        try:
            _scale_subject(subject, count, timer, register, memory, call, tags, export)
        except Exception as exc:  # a peer that breaks at scale is recorded, not fatal
            register.rows.append(
                Row(label, subject.version, None, "s", note=f"failed: {type(exc).__name__}: {exc}")
            )
    return [register, memory, call, tags, export]


def _scale_subject(
    subject: Subject,
    count: int,
    timer: Timer,
    register: Case,
    memory: Case,
    call: Case,
    tags: Case,
    export: Case,
) -> None:
    label = subject.name
    big, seconds = _register_all(subject, cases.numbered_tools(count))
    per_tool = seconds / count
    register.rows.append(
        Row(
            label,
            subject.version,
            seconds,
            "s",
            note=f"N = {count:,}",
            extra={
                "tools": count,
                "us_per_tool": per_tool * 1e6,
                "projected_10000_s": per_tool * 10_000,
            },
        )
    )
    peak, held = _memory(subject, count)
    memory.rows.append(
        Row(
            label,
            subject.version,
            peak / 2**20,
            "MB",
            note=f"N = {count:,}",
            extra={
                "tools": count,
                "peak_mb": peak / 2**20,
                "held_mb": held / 2**20,
                "kb_per_tool_held": held / count / 1024,
                "projected_10000_peak_mb": peak / count * 10_000 / 2**20,
            },
        )
    )
    small, _ = _register_all(subject, cases.numbered_tools(10))
    _scale_call(subject, small, big, count, timer, call)
    _scale_tags(subject, big, count, timer, tags)
    _scale_export(subject, big, count, export)


def _scale_call(
    subject: Subject, small: Any, big: Any, count: int, timer: Timer, case: Case
) -> None:
    try:
        pair = {
            "10": subject.prepare_call_by_name(small, "tool_00005", cases.CALL_ARGS),
            str(count): subject.prepare_call_by_name(big, "tool_00005", cases.CALL_ARGS),
        }
    except Unsupported as exc:
        case.rows.append(Row(subject.name, subject.version, None, "us", note=str(exc)))
        return
    kind = "async" if asyncio.iscoroutinefunction(pair["10"][0]) else "sync"
    measured = timer.compare(pair, kind=kind)
    small_us, big_us = measured["10"].median * 1e6, measured[str(count)].median * 1e6
    ratio = measured[str(count)].ratio_to(measured["10"])
    case.rows.append(
        Row(
            subject.name,
            subject.version,
            big_us,
            "us",
            note=f"N = {count:,}",
            extra={
                "tools": count,
                "at_10_us": small_us,
                "at_n_us": big_us,
                "n_over_10": ratio,
            },
        )
    )


def _scale_tags(subject: Subject, big: Any, count: int, timer: Timer, case: Case) -> None:
    try:
        small, _ = _register_all(subject, cases.numbered_tools(100))
        pair = {
            "100": subject.prepare_tag_query(small, "grp0"),
            str(count): subject.prepare_tag_query(big, "grp0"),
        }
    except Unsupported as exc:
        case.rows.append(Row(subject.name, subject.version, None, "us", note=str(exc)))
        return
    found = pair[str(count)][0](*pair[str(count)][1])
    measured = timer.compare(pair)
    small_us, big_us = measured["100"].median * 1e6, measured[str(count)].median * 1e6
    ratio = measured[str(count)].ratio_to(measured["100"])
    case.rows.append(
        Row(
            subject.name,
            subject.version,
            big_us,
            "us",
            note=f"N = {count:,}",
            extra={
                "tools": count,
                "at_100_us": small_us,
                "at_n_us": big_us,
                "n_over_100": ratio,
                "found": len(found),
            },
        )
    )


def _scale_export(subject: Subject, big: Any, count: int, case: Case) -> None:
    try:
        fn, args = subject.prepare_export(big)
    except Unsupported as exc:
        case.rows.append(Row(subject.name, subject.version, None, "ms", note=str(exc)))
        return
    t0 = clock()
    exported = fn(*args)
    first = clock() - t0
    again = []
    for _ in range(5):
        t0 = clock()
        fn(*args)
        again.append(clock() - t0)
    second = statistics.median(again)
    case.rows.append(
        Row(
            subject.name,
            subject.version,
            second * 1e3,
            "ms",
            note=f"N = {count:,}",
            extra={
                "tools": count,
                "first_ms": first * 1e3,
                "second_ms": second * 1e3,
                "first_over_second": first / second if second else None,
                "exported": len(exported),
            },
        )
    )


# -- targets -----------------------------------------------------------------------------


def _row(case_list: list[Case], case_id: str, subject: str) -> dict[str, Any] | None:
    for case in case_list:
        if case.id == case_id:
            for row in case.to_dict()["rows"]:
                if row["subject"] == subject and row["value"] is not None:
                    return row
    return None


def full_schema_peers(all_cases: list[Case]) -> list[str]:
    """Peers whose definition gave a full JSON schema for every one of the four functions
    (typed properties and the docstring's descriptions): the ones the targets compare with."""
    define = [c for c in all_cases if c.id.startswith("define_")]
    names = {r.subject for c in define for r in c.rows} - {"tooldeck", "floor"}
    return sorted(
        name
        for name in names
        if define
        and all(
            any(
                r.subject == name and r.value is not None and r.extra.get("full_schema")
                for r in c.rows
            )
            for c in define
        )
    )


def evaluate_targets(all_cases: list[Case]) -> list[dict[str, Any]]:
    """Issue 8's targets, each with the measured figure and a verdict (None: not measured)."""
    targets: list[dict[str, Any]] = []
    full_peers = set(full_schema_peers(all_cases))

    def add(path: str, target: str, measured: str, ok: bool | None) -> None:
        targets.append({"path": path, "target": target, "measured": measured, "pass": ok})

    for case_id, path, limit in [
        ("call_sync", "sync `call_tool` with a dict", 2.0),
        ("call_async", "async call of an async tool", 2.0),
        ("call_json", "call with a JSON string", 2.0),
        ("call_invalid", "invalid-arguments error path", 3.0),
        ("call_invalid_async", "invalid-arguments error path, async tool", 3.0),
        ("call_async_sync", "async call of a sync tool (threaded)", 1.3),
    ]:
        row = _row(all_cases, case_id, "tooldeck")
        floor = _row(all_cases, case_id, "floor")
        if row and floor:
            ratio = row["ratio_vs_baseline"]
            add(
                path,
                f"<= {limit:g}x the floor",
                f"{ratio:.2f}x ({row['value']:.2f} vs {floor['value']:.2f} µs)",
                ratio <= limit,
            )
        else:
            add(path, f"<= {limit:g}x the floor", "not measured", None)

    for key in cases.DEFINITION_FUNCS:
        case = next((c for c in all_cases if c.id == f"define_{key}"), Case("", "", None))
        td = case.value("tooldeck")
        rivals = [r for r in case.rows if r.value is not None and r.subject in full_peers]
        if td is None or not rivals:
            add(f"definition: {key}", "faster than every full-schema peer", "not measured", None)
            continue
        # Round-by-round ratios peer / tooldeck: above 1, tooldeck was faster.
        closest = min(rivals, key=lambda r: r.extra.get("paired_vs_tooldeck", 0.0))
        ratio = closest.extra.get("paired_vs_tooldeck", 0.0)
        add(
            f"definition: {key}",
            "faster than every full-schema peer",
            f"{td:.0f} µs; closest peer {closest.subject} {closest.value:.0f} µs "
            f"({ratio:.2f}x tooldeck's time)",
            ratio > 1,
        )

    reg = next((c for c in all_cases if c.id == "scale_register"), Case("", "", None))
    mem = next((c for c in all_cases if c.id == "scale_memory"), Case("", "", None))
    td_reg = next((r for r in reg.rows if r.subject == "tooldeck" and r.value is not None), None)
    peer_reg = [r for r in reg.rows if r.value is not None and r.subject in full_peers]
    one = next((c for c in all_cases if c.id == "register_one"), Case("", "", None))
    paired = [r for r in one.rows if r.value is not None and r.subject in full_peers]
    if td_reg and peer_reg and paired:
        best = min(peer_reg, key=lambda r: r.extra["us_per_tool"])
        closest = min(paired, key=lambda r: r.extra.get("paired_vs_tooldeck", 0.0))
        ratio = closest.extra.get("paired_vs_tooldeck", 0.0)
        add(
            "registering 10,000 tools",
            "faster than every full-schema peer",
            f"{td_reg.value:.2f} s for {td_reg.extra['tools']:,} "
            f"({td_reg.extra['us_per_tool']:.0f} µs/tool) vs fastest peer {best.subject} "
            f"{best.extra['us_per_tool']:.0f} µs/tool at {best.extra['tools']:,}; one more tool, "
            f"paired: closest peer {closest.subject} takes {ratio:.2f}x tooldeck's time",
            ratio > 1,
        )
    else:
        add("registering 10,000 tools", "faster than every full-schema peer", "not measured", None)
    td_mem = next((r for r in mem.rows if r.subject == "tooldeck"), None)
    peer_mem = [r for r in mem.rows if r.subject in full_peers]
    if td_mem and peer_mem:
        best = min(peer_mem, key=lambda r: r.extra["peak_mb"] / r.extra["tools"])
        td_per = td_mem.extra["peak_mb"] / td_mem.extra["tools"] * 1024
        best_per = best.extra["peak_mb"] / best.extra["tools"] * 1024
        add(
            "memory held by 10,000 tools",
            "at most the leanest full-schema peer",
            f"peak {td_per:.1f} KB/tool ({td_mem.extra['peak_mb']:.0f} MB for "
            f"{td_mem.extra['tools']:,}; held {td_mem.extra['held_mb']:.0f} MB) vs {best.subject} "
            f"{best_per:.1f} KB/tool",
            td_per <= best_per,
        )
    else:
        add(
            "memory held by 10,000 tools",
            "at most the leanest full-schema peer",
            "not measured",
            None,
        )

    call = _row(all_cases, "scale_call", "tooldeck")
    if call:
        ratio = call["n_over_10"]
        add(
            "call by name in a 10,000-tool registry",
            "the same as in a 10-tool one",
            f"{call['at_n_us']:.2f} µs at {call['tools']:,} vs {call['at_10_us']:.2f} µs at 10 "
            f"({ratio:.2f}x)",
            ratio <= 1.25,
        )
    tags = _row(all_cases, "scale_tags", "tooldeck")
    if tags:
        ratio = tags["n_over_100"]
        add(
            "tag query in a 10,000-tool registry",
            "independent of registry size",
            f"{tags['at_n_us']:.2f} µs at {tags['tools']:,} vs {tags['at_100_us']:.2f} µs at 100 "
            f"({ratio:.2f}x)",
            ratio <= 1.5,
        )
    export = _row(all_cases, "scale_export", "tooldeck")
    if export:
        ratio = export["first_over_second"]
        add(
            "second export of 10,000 tools",
            ">= 20x faster than the first",
            f"first {export['first_ms']:.1f} ms, second {export['second_ms']:.3f} ms "
            f"({ratio:.0f}x)",
            ratio >= 20,
        )
    return targets


# -- output ------------------------------------------------------------------------------


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
    versions["pydantic"] = peers._version("pydantic")
    versions["pydantic-core"] = peers._version("pydantic-core")
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


def _fmt(value: float | None, unit: str = "us") -> str:
    if value is None:
        return "—"
    if unit in ("us", "ms"):
        return f"{value:,.2f}" if value < 100 else f"{value:,.0f}"
    return f"{value:,.2f}"


def _fmt_n(n: int | None) -> str:
    return "—" if not n else f"{n:,}"


def _fmt_ratio(ratio: float | None) -> str:
    return "—" if ratio is None else (f"{ratio:.2f}x" if ratio < 100 else f"{ratio:,.0f}x")


def render_markdown(result: dict[str, Any]) -> str:
    meta = result["meta"]
    lines = [
        f"Run {meta['date']} ({result['mode']} mode) on {meta['cpu']}, {meta['cores']} cores, "
        f"{meta['implementation']} {meta['python']}, {meta['platform']}. Clock: "
        + ("process CPU time" if result.get("clock", "cpu") == "cpu" else "wall time")
        + f"; the run took {result.get('seconds', 0):.0f} s.",
        "",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items() if v) + ".",
        "",
    ]
    if result.get("full_schema_peers") is not None:
        lines += [
            "Peers with a full JSON schema for all four definition functions (the ones the "
            "targets compare with): " + (", ".join(result["full_schema_peers"]) or "none") + ".",
            "",
        ]
    if meta.get("registers"):
        lines += ["What registering a tool means for each subject:", ""]
        lines += [f"- {k}: {v}" for k, v in meta["registers"].items()] + [""]
    if meta["skipped"]:
        lines += ["Skipped: " + "; ".join(f"{k}: {v}" for k, v in meta["skipped"].items()), ""]
    for case in result["cases"]:
        lines += [f"### {case['title']}", ""]
        if case["note"]:
            lines += [f"_{case['note']}_", ""]
        lines += _case_table(case)
        lines.append("")
    return "\n".join(lines)


def _case_table(case: dict[str, Any]) -> list[str]:
    cid = case["id"]
    rows = case["rows"]
    if cid.startswith(("call_", "define_")) or cid == "register_one":
        head = ["subject", "version", "median µs", "p25–p75 µs", "vs floor", "vs tooldeck", "note"]
        body = [
            [
                r["subject"],
                r["version"],
                _fmt(r["value"]),
                f"{_fmt(r['p25'])}–{_fmt(r['p75'])}" if r["p25"] is not None else "—",
                _fmt_ratio(r["ratio_vs_baseline"]) if cid.startswith("call_") else "—",
                _fmt_ratio(r["ratio_vs_tooldeck"]),
                r["note"],
            ]
            for r in rows
        ]
        if cid == "register_one":
            head[4] = "—"
        if cid.startswith("define_"):
            head[4] = "full JSON schema"
            for b, r in zip(body, rows, strict=True):
                b[4] = {True: "yes", False: "no"}.get(r.get("full_schema"), "—")
    elif cid == "scale_register":
        head = ["subject", "tools", "total s", "µs per tool", "projected s at 10,000", "note"]
        body = [
            [
                r["subject"],
                _fmt_n(r.get("tools")),
                _fmt(r["value"], "s"),
                _fmt(r.get("us_per_tool")),
                _fmt(r.get("projected_10000_s"), "s"),
                r["note"],
            ]
            for r in rows
        ]
    elif cid == "scale_memory":
        head = [
            "subject",
            "tools",
            "peak MB",
            "held MB",
            "KB per tool held",
            "projected peak MB at 10,000",
        ]
        body = [
            [
                r["subject"],
                _fmt_n(r.get("tools")),
                _fmt(r["peak_mb"], "s"),
                _fmt(r["held_mb"], "s"),
                _fmt(r["kb_per_tool_held"], "s"),
                _fmt(r["projected_10000_peak_mb"], "s"),
            ]
            for r in rows
        ]
    elif cid == "scale_call":
        head = ["subject", "N", "µs at 10 tools", "µs at N tools", "N / 10", "note"]
        body = [
            [
                r["subject"],
                _fmt_n(r.get("tools")),
                _fmt(r.get("at_10_us")),
                _fmt(r.get("at_n_us")),
                _fmt_ratio(r.get("n_over_10")),
                r["note"],
            ]
            for r in rows
        ]
    elif cid == "scale_tags":
        head = ["subject", "N", "µs at 100 tools", "µs at N tools", "N / 100", "note"]
        body = [
            [
                r["subject"],
                _fmt_n(r.get("tools")),
                _fmt(r.get("at_100_us")),
                _fmt(r.get("at_n_us")),
                _fmt_ratio(r.get("n_over_100")),
                r["note"],
            ]
            for r in rows
        ]
    else:
        head = ["subject", "N", "first ms", "second ms", "first / second", "note"]
        body = [
            [
                r["subject"],
                _fmt_n(r.get("tools")),
                _fmt(r.get("first_ms"), "ms"),
                _fmt(r.get("second_ms"), "ms"),
                _fmt_ratio(r.get("first_over_second")),
                r["note"],
            ]
            for r in rows
        ]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in b) + " |" for b in body]
    return out


def render_targets(targets: list[dict[str, Any]]) -> str:
    verdict = {True: "pass", False: "**fail**", None: "not measured"}
    lines = ["| path | target | measured | verdict |", "|---|---|---|---|"]
    lines += [
        f"| {t['path']} | {t['target']} | {t['measured']} | {verdict[t['pass']]} |" for t in targets
    ]
    return "\n".join(lines)


def render_chart(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    groups = [c for c in result["cases"] if c["id"].startswith(("call_", "define_"))]
    subjects: list[str] = []
    for case in groups:
        for row in case["rows"]:
            if row["value"] is not None and row["subject"] not in subjects:
                subjects.append(row["subject"])
    fig, axes = plt.subplots(1, 2, figsize=(15, 7))
    palette = plt.get_cmap("tab10")
    colour = {s: palette(i % 10) for i, s in enumerate(subjects)}
    for ax, prefix, title in [
        (axes[0], "call_", "Per call (µs, log scale)"),
        (axes[1], "define_", "Definition to JSON schema (µs, log; hatched: not a full schema)"),
    ]:
        chosen = [c for c in groups if c["id"].startswith(prefix)]
        height = 0.8 / max(1, len(subjects))
        for i, case in enumerate(chosen):
            rows = {r["subject"]: r for r in case["rows"] if r["value"] is not None}
            for j, subject in enumerate(subjects):
                if subject in rows:
                    partial = rows[subject].get("full_schema") is False
                    ax.barh(
                        i + j * height,
                        rows[subject]["value"],
                        height,
                        color=colour[subject],
                        hatch="///" if partial else None,
                        edgecolor="white" if partial else None,
                        label=subject,
                    )
        ax.set_yticks([i + 0.4 - height / 2 for i in range(len(chosen))])
        ax.set_yticklabels([c["id"].removeprefix(prefix) for c in chosen])
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(title)
        ax.grid(axis="x", which="both", alpha=0.3)
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="lower center", ncol=min(5, len(labels)), fontsize=9)
    meta = result["meta"]
    fig.suptitle(
        f"tooldeck vs peers — {meta['cpu']}, {meta['cores']} cores, "
        f"Python {meta['python']}, {meta['date'][:10]} (shorter is faster)"
    )
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


DOC_HEAD = """# Performance

A tool call sits inside every step of an agent loop, and registries grow to thousands of
tools. This page is generated by the benchmark harness; every figure below comes from one
run in which tooldeck, the installable peers and the floors were measured side by side.

Run it yourself (the `bench` extra installs the peers):

```bash
python3 -m venv .benchvenv && .benchvenv/bin/pip install -e ".[bench]"
.benchvenv/bin/python -m benchmarks.run          # full run, 5-10 minutes
.benchvenv/bin/python -m benchmarks.run --quick  # every case a few times (CI)
```

It writes `benchmarks/results/latest.json` and `latest.md`, this page and the chart.

## How it measures

- **CPU time, medians of interleaved batches.** The clock is the process's CPU time
  (all its threads, so a thread hop's worker counts): on a shared machine wall time
  mostly measures the neighbours (`--clock wall` on an idle one). A batch repeats one
  call until it takes about 2 ms; within a case every subject runs one batch per round,
  in rotating order, for 101 rounds (33 for definitions). The tables show each
  subject's median per call; a ratio ("vs floor", "vs tooldeck") is the median of the
  round-by-round ratios, each pair having run back to back under the same load —
  absolute figures drift between runs on a busy machine, these ratios hardly do. The
  garbage collector is paused inside a batch, as `timeit` does.
- **The floors** are what a validated call cannot avoid: a `pydantic-core` validator
  built once for the arguments (a `TypedDict` that forbids unknown keys, yielding the
  keyword arguments) and the direct call — `validate_json` for a JSON string,
  `asyncio.to_thread` for a sync tool called from async code, and validate + `except` +
  one line per problem for the error path.
- **Definitions** use a fresh function object each time (same code, new function), so
  nothing is answered from a cache keyed by the function. tooldeck's figure is the
  module-level `@tool`, which also registers the tool in the default registry.
- **Peers are called in their own idiom**: LangChain `tool.invoke`/`ainvoke`; OpenAI
  Agents `on_invoke_tool` with the JSON arguments (its only call path, async); FastMCP
  `Tool.run` (async; sync tools run in a worker thread by default) and, for call by
  name, `FastMCP.call_tool`; Pydantic AI the prebuilt validator plus
  `FunctionSchema.call` (what its tool manager does per call); Agently
  `call_tool` (no argument validation); toolregistry `ToolRegistry.invoke` by name and
  `Tool.run` directly. A peer that raises on invalid arguments is wrapped in the
  `try`/`except` its caller would need, answering `"Error: " + str(exc)` (so for
  Pydantic AI the error path is its validator's exception text, not the retry prompt
  its agent loop would build); the floor formats one line per problem, as tooldeck
  does. OpenAI Agents and Pydantic AI call only asynchronously, so their error path
  shows in the async error case.
- **Full schema.** A definition counts as a full JSON schema when every parameter has
  a typed property and every parameter the docstring documents has its description.
  The definition, registration and memory targets compare tooldeck with the peers that
  manage that for all four functions (listed under the results); the others are shown
  for reference.
- **Scale**: 10,000 tools (`tool_00000`…, each `add(a: int, b: int)` with its own
  docstring and one tag `grp<i // 10>`, so every tag is held by ten tools), registered
  one by one, for tooldeck and the floor. Peers are registered at 2,000 tools (1,000
  for LangChain, about 5 ms a tool, and FastMCP, whose registration grows faster than
  linearly: 10,000 take minutes) to keep the run near ten minutes, and compared per
  tool, with the linear projection to 10,000 shown — for FastMCP an underestimate.
  Memory is the `tracemalloc` peak while registering (the function objects are made
  before tracing starts) and what is still held afterwards. Because each total is a
  single measurement taken minutes apart from the others, registration is also
  measured paired: one more tool into a growing registry, interleaved round by round
  ("Registering one more tool"); the registration target reads that ratio.
- Nothing asserts a speed: CI runs `--quick` to prove the harness works.
"""


def render_docs(result: dict[str, Any], md: str) -> str:
    return "\n".join(
        [
            DOC_HEAD,
            "## Targets",
            "",
            render_targets(result["targets"]),
            "",
            "## Chart",
            "",
            "![tooldeck vs peers](img/performance.png)",
            "",
            "## Latest results",
            "",
            md,
        ]
    )


def write_outputs(result: dict[str, Any], out: Path, docs: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    md = render_markdown(result)
    (out / "latest.md").write_text(
        "# Benchmark results\n\n## Targets\n\n"
        + render_targets(result["targets"])
        + "\n\n"
        + md
        + "\n"
    )
    if docs:
        (ROOT / "docs").mkdir(exist_ok=True)
        (ROOT / "docs" / "performance.md").write_text(render_docs(result, md) + "\n")
        try:
            render_chart(result, ROOT / "docs" / "img" / "performance.png")
        except ImportError as exc:
            print(f"no chart: {exc}", file=sys.stderr)


# -- main --------------------------------------------------------------------------------


def load_subjects(only: set[str] | None, skipped: dict[str, str]) -> list[Subject]:
    subjects = []
    for cls in peers.ALL_SUBJECTS:
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a handful of repeats (CI)")
    parser.add_argument("--only", help="comma-separated subjects, e.g. tooldeck,floor")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument(
        "--docs",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write docs/performance.md and the chart (default: full runs)",
    )
    parser.add_argument("--skip", default="", help="comma-separated case groups: call,define,scale")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu", help="what to read")
    parser.add_argument(
        "--render", type=Path, metavar="JSON", help="re-render outputs from a result file"
    )
    opts = parser.parse_args(argv)

    if opts.render:
        result = json.loads(opts.render.read_text())
        write_outputs(
            result, opts.out, docs=result["mode"] == "full" if opts.docs is None else opts.docs
        )
        print(render_targets(result["targets"]))
        return 0
    global clock
    clock = CLOCKS[opts.clock]
    settings = Settings.make(opts.quick)
    only = set(opts.only.split(",")) if opts.only else None
    skip_groups = set(filter(None, opts.skip.split(",")))
    started = perf_counter()

    def log(message: str) -> None:
        print(f"[{perf_counter() - started:6.1f}s] {message}", file=sys.stderr, flush=True)

    skipped: dict[str, str] = {}
    subjects = load_subjects(only, skipped)
    log("subjects: " + ", ".join(s.name for s in subjects))
    timer = Timer(settings)
    all_cases: list[Case] = []
    try:
        if "call" not in skip_groups:
            all_cases += run_call_cases(subjects, timer, log)
        if "define" not in skip_groups:
            all_cases += run_definition_cases(subjects, timer, log)
        if "scale" not in skip_groups:
            all_cases += run_register_one(subjects, timer, log)
            all_cases += run_scale(subjects, timer, log)
    finally:
        timer.close()
    result = {
        "mode": "quick" if settings.quick else "full",
        "clock": opts.clock,
        "settings": settings.__dict__,
        "seconds": perf_counter() - started,
        "meta": machine_info(subjects, skipped),
        "cases": [c.to_dict() for c in all_cases],
        "targets": evaluate_targets(all_cases),
        "full_schema_peers": full_schema_peers(all_cases),
    }
    write_outputs(result, opts.out, docs=not settings.quick if opts.docs is None else opts.docs)
    print(render_targets(result["targets"]))
    log(f"done; results in {opts.out}")
    return 0


def iter_rows(result: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every row of a result file (for tests and tools reading latest.json)."""
    for case in result["cases"]:
        yield from case["rows"]


if __name__ == "__main__":
    raise SystemExit(main())

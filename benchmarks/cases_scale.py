"""Distinct tools at scale: registration, memory, call by name, tags, export.

Every tool is a different function (`functions.distinct_tools`): its own name,
parameter names, descriptions, `Literal` and optional list, so nothing a framework
builds from a signature is shared between two tools.

* Registration is paired: the subjects register their tools in chunks, one chunk each
  per round, in rotating order, into registries that grow side by side to N; a
  ratio is the median of the per-round ratios (same registry size, same load).
* Memory is measured in a fresh process per subject (`benchmarks.memory`).
* Call by name at 10 vs N tools, a tag query at 100 vs N, and the first vs a second
  export of all N, on the registries the paired registration built.
"""

from __future__ import annotations

import gc
import json
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import functions as fn
from benchmarks.results import Case, Row, missing_row
from benchmarks.subjects import Subject, Unsupported
from benchmarks.timing import Call, Timer, compile_loop

ROOT = Path(__file__).resolve().parent.parent
Log = Callable[[str], None]
CHUNKS = 100  # registration rounds at the full count


def scale_count(subject: Subject, timer: Timer) -> int:
    settings = timer.settings
    if subject.scale_cap is None and subject.name in ("tooldeck", "floor", "pydantic-ai-slim"):
        return settings.scale_tools
    return min(settings.peer_scale_tools, subject.scale_cap or settings.peer_scale_tools)


def run_scale(subjects: list[Subject], timer: Timer, log: Log) -> list[Case]:
    register = Case("scale_register", "Registering N distinct tools, paired", None, group="scale")
    registries, counts = _register_paired(subjects, timer, log, register)
    memory = _memory(subjects, counts, log)
    call = Case("scale_call", "Call by name: 10 vs N distinct tools (µs)", None, group="scale")
    tags = Case("scale_tags", "Tag query, a tag held by 10 tools: 100 vs N tools (µs)", None)
    export = Case("scale_export", "Export all N tools, OpenAI format: first vs second (ms)", None)
    for subject in subjects:
        if subject.name not in registries:
            continue
        big, count = registries[subject.name], counts[subject.name]
        log(f"scale {subject.name}: call, tags, export at {count:,}")
        for case, measure in ((call, _scale_call), (tags, _scale_tags), (export, _scale_export)):
            try:
                measure(subject, big, count, timer, case)
            except Unsupported as exc:
                case.rows.append(missing_row(subject.name, subject.version, str(exc)))
            except Exception as exc:  # a peer that breaks at scale is recorded, not fatal
                reason = f"failed: {type(exc).__name__}: {exc}"
                case.rows.append(missing_row(subject.name, subject.version, reason))
    for case in (tags, export):
        case.group = "scale"
    return [register, memory, call, tags, export]


def _register_paired(
    subjects: list[Subject], timer: Timer, log: Log, case: Case
) -> tuple[dict[str, Any], dict[str, int]]:
    """Register each subject's N tools in chunks, one chunk per subject per round."""
    chunk = max(1, timer.settings.scale_tools // CHUNKS)
    pending: dict[str, list[list[tuple[Any, list[str]]]]] = {}
    loops: dict[str, Callable[..., float]] = {}
    registries: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for subject in subjects:
        try:
            registry = subject.new_registry()
        except Unsupported as exc:
            case.rows.append(missing_row(subject.name, subject.version, str(exc), "s"))
            continue
        count = scale_count(subject, timer)
        tools = fn.distinct_tools(count)
        pending[subject.name] = [tools[i : i + chunk] for i in range(0, count, chunk)]
        call = Call(
            "register(registry, item[0], item[1])",
            {"register": subject.register, "registry": registry},
        )
        loops[subject.name] = _chunk_loop(call, timer)
        registries[subject.name], counts[subject.name] = registry, count
    log("scale: registering " + ", ".join(f"{n} {c:,}" for n, c in counts.items()))
    seconds: dict[str, list[float | None]] = {name: [] for name in pending}
    failed: dict[str, str] = {}
    names = list(pending)
    for r in range(max((len(p) for p in pending.values()), default=0)):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            chunks = pending[name]
            if r >= len(chunks) or name in failed:
                seconds[name].append(None)
                continue
            try:
                seconds[name].append(loops[name](chunks[r]))
            except Exception as exc:
                failed[name] = f"failed: {type(exc).__name__}: {exc}"
                seconds[name].append(None)
    by_name = {s.name: s for s in subjects}
    tooldeck = seconds.get("tooldeck")
    for name, taken in seconds.items():
        subject = by_name[name]
        if name in failed:
            case.rows.append(missing_row(name, subject.version, failed[name], "s"))
            registries.pop(name)
            continue
        case.rows.append(_register_row(subject, counts[name], taken, tooldeck))
    return registries, counts


def _chunk_loop(call: Call, timer: Timer) -> Callable[..., float]:
    loop = compile_loop(call, "over", timer.clock)
    env = call.env

    def run(items: list[Any]) -> float:
        gc_was_on = gc.isenabled()
        gc.disable()  # as in every batch; what the collector would traverse is in memory
        try:
            return loop(items, **env)  # type: ignore[no-any-return]
        finally:
            if gc_was_on:
                gc.enable()

    return run


def _register_row(
    subject: Subject, count: int, seconds: list[float | None], tooldeck: list[float | None] | None
) -> Row:
    """Total seconds; the paired ratio is over the rounds both registered a chunk in
    (chunks are the same size, so the ratio of chunk times is the ratio per tool)."""
    taken = [s for s in seconds if s is not None]
    total = sum(taken)
    extra: dict[str, Any] = {
        "tools": count,
        "us_per_tool": total / count * 1e6,
        "projected_10000_s": total / count * 10_000,
    }
    if tooldeck is not None:
        pairs = [s / t for s, t in zip(seconds, tooldeck, strict=False) if s and t]
        if pairs:
            extra["paired_vs_tooldeck"] = statistics.median(pairs)
    note = f"N = {count:,} in {len(taken)} chunks"
    return Row(subject.name, subject.version, total, "s", None, len(taken), note, extra)


def _memory(subjects: list[Subject], counts: dict[str, int], log: Log) -> Case:
    case = Case(
        "scale_memory",
        "Memory held by N distinct tools (a fresh process per subject)",
        None,
        group="scale",
    )
    for subject in subjects:
        if subject.name not in counts:
            continue
        count = counts[subject.name]
        log(f"memory {subject.name}: {count:,} tools, in a fresh process")
        try:
            found = _memory_of(subject.name, count)
        except Exception as exc:
            case.rows.append(missing_row(subject.name, subject.version, str(exc)[-300:], "KB"))
            continue
        kb_held = found["held"] / count / 1024
        extra = {
            "tools": count,
            "kb_per_tool_held": kb_held,
            "kb_per_tool_rss": found["rss"] / count / 1024,
            "held_mb": found["held"] / 2**20,
            "peak_mb": found["peak"] / 2**20,
            "projected_10000_held_mb": kb_held * 10_000 / 1024,
        }
        note = f"N = {count:,}"
        case.rows.append(Row(subject.name, subject.version, kb_held, "KB", None, 1, note, extra))
    return case


def _memory_of(name: str, count: int) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.memory", name, str(count)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip() or f"exit status {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _scale_call(subject: Subject, big: Any, count: int, timer: Timer, case: Case) -> None:
    small = subject.new_registry()
    for func, tags in fn.distinct_tools(10):
        subject.register(small, func, tags)
    args = fn.distinct_args("tool_00005")
    pair = {
        "10": subject.prepare_call_by_name(small, "tool_00005", args),
        "N": subject.prepare_call_by_name(big, "tool_00005", args),
    }
    for call in pair.values():
        answer = timer.once(call)
        if "needle" not in repr(answer):
            raise RuntimeError(f"unexpected answer: {answer!r}"[:120])
    measured = timer.compare(pair)
    extra = {
        "tools": count,
        "at_10_us": measured["10"].median * 1e6,
        "at_n_us": measured["N"].median * 1e6,
        "n_over_10": measured["N"].ratio_to(measured["10"]),
    }
    row = Row(subject.name, subject.version, extra["at_n_us"], "us", None, 0, f"N = {count:,}")
    row.samples, row.extra = len(measured["N"].samples), extra
    case.rows.append(row)


def _scale_tags(subject: Subject, big: Any, count: int, timer: Timer, case: Case) -> None:
    small = subject.new_registry()
    for func, tags in fn.distinct_tools(100):
        subject.register(small, func, tags)
    pair = {
        "100": subject.prepare_tag_query(small, "grp0"),
        "N": subject.prepare_tag_query(big, "grp0"),
    }
    found = timer.once(pair["N"])
    measured = timer.compare(pair)
    extra = {
        "tools": count,
        "at_100_us": measured["100"].median * 1e6,
        "at_n_us": measured["N"].median * 1e6,
        "n_over_100": measured["N"].ratio_to(measured["100"]),
        "found": len(found),
    }
    note = f"N = {count:,}"
    case.rows.append(
        Row(subject.name, subject.version, extra["at_n_us"], "us", None, 0, note, extra)
    )


def _scale_export(subject: Subject, big: Any, count: int, timer: Timer, case: Case) -> None:
    call = subject.prepare_export(big)
    export, env, clock = compile_loop(call, "once", timer.clock), call.env, timer.clock
    t0 = clock()
    exported = export(**env)
    first = clock() - t0
    again = []
    for _ in range(5):
        t0 = clock()
        export(**env)
        again.append(clock() - t0)
    second = statistics.median(again)
    extra = {
        "tools": count,
        "first_ms": first * 1e3,
        "second_ms": second * 1e3,
        "first_over_second": first / second if second else None,
        "exported": len(exported),
    }
    note = f"N = {count:,}"
    case.rows.append(Row(subject.name, subject.version, second * 1e3, "ms", None, 5, note, extra))

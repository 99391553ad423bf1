"""Concurrency: many calls in flight at once, on the event loop and across threads.

* `conc_gather`: one ``asyncio.gather`` of N calls of an async tool that awaits once
  (``await asyncio.sleep(0)``), against a floor that keeps tooldeck's contract — one
  coroutine per call that validates, awaits the tool and turns its exception into an
  answer — and, for reference, the bare gather of N direct calls of the function (no
  validation, nothing caught).
* `conc_to_thread`: one gather of M calls of a sync tool from async code (each in a
  worker thread), against a gather of M ``asyncio.to_thread(func, **validate(args))``.
* `conc_sync_face`: 8 threads at once, each calling the sync face (``call_tool``) of
  an async tool, against 8 threads each handing a validated call to one event-loop
  thread with ``asyncio.run_coroutine_threadsafe(...).result()`` — what any sync face
  of async code must do at least, and what tooldeck's background loop does.

The collector stays on in these batches: thousands of live coroutines and their
frames are what it has to traverse, a cost of concurrency that a paused collector
would hide. Each batch starts from a full collection. Because a full collection
traverses every live object in the process, its cost grows with the heap: the cases
run in a fresh process holding only tooldeck and the floors (not the peers the
benchmark imports), and `conc_gather_heap` repeats the gather with 200,000 more live
objects the collector tracks, as an application's heap (the peers' modules alone
hold about that many). Ratios are of time per call; the gather target
reads their inverse (throughput relative to the floor) in the small process.

    python -m benchmarks.cases_concurrency SETTINGS_JSON   # prints the cases as JSON
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/cases_concurrency.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import functions as fn
from benchmarks.results import Case
from benchmarks.subjects import Floor, Subject, Tooldeck, args_validator
from benchmarks.timing import Call, Settings, Timer

BARE = "bare gather (direct calls, no validation)"
GUARDED = "floor (validate, await, catch: one coroutine)"
Log = Callable[[str], None]


ROOT = Path(__file__).resolve().parent.parent
HEAP = 200_000  # extra live objects of the big-heap gather


def run_concurrency_cases(subjects: list[Subject], timer: Timer, log: Log) -> list[dict[str, Any]]:
    """The cases, measured in a fresh process (as JSON case dicts)."""
    if not {"tooldeck", "floor"} <= {s.name for s in subjects}:
        return []
    log("cases conc_* in a fresh process holding only tooldeck and the floors")
    settings = json.dumps(dataclasses.asdict(timer.settings))
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.cases_concurrency", settings],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    sys.stderr.write(proc.stderr)
    if proc.returncode != 0:
        raise RuntimeError(f"the concurrency cases failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def measure_here(settings: Settings, log: Log) -> list[Case]:
    tooldeck, floor = Tooldeck(), Floor()
    tooldeck.load()
    timer = Timer(settings)
    try:
        cases = [_gather(tooldeck, floor, timer, log)]
        # Lists, which the collector always tracks (a dict of ints it would not).
        heap = [[i] for i in range(HEAP)]  # live until measured: the point
        cases.append(_gather(tooldeck, floor, timer, log, heap=len(heap)))
        del heap
        cases.append(_to_thread(tooldeck, floor, timer, log))
        cases.append(_sync_face(tooldeck, floor, timer, log))
    finally:
        timer.close()
    return cases


def guarded(func: Callable[..., Any], validate: Callable[[Any], Any]) -> Callable[..., Any]:
    """The least a call that never raises does: one coroutine that validates the
    arguments, awaits the tool and turns an exception into an answer."""

    async def call(args: Any) -> Any:
        try:
            return await func(**validate(args))
        except Exception as exc:
            return f"Error: {exc}"

    return call


def _rounds(timer: Timer) -> int:
    return max(5, timer.settings.rounds // 3)


def _gather(tooldeck: Tooldeck, floor: Floor, timer: Timer, log: Log, heap: int = 0) -> Case:
    n = timer.settings.gather
    case_id = "conc_gather_heap" if heap else "conc_gather"
    log(f"case {case_id} ({n:,} calls)")
    tick = fn.fresh(fn.tick)
    registry = tooldeck.registry_with(tick)
    validate = args_validator(tick).validate_python
    args = fn.CALL_ARGS
    calls = {
        BARE: Call("func(**args)", {"func": tick, "args": args}),
        GUARDED: Call("call(args)", {"call": guarded(tick, validate), "args": args}),
        "tooldeck": Call(
            "async_call_tool('tick', args)",
            {"async_call_tool": registry.async_call_tool, "args": args},
        ),
    }
    return _measure(
        Case(
            case_id,
            f"asyncio.gather of {n:,} calls of an async tool that awaits once (µs per call)"
            + (f", {heap:,} more live objects in the process" if heap else ""),
            baseline=GUARDED,
            group="concurrency",
            note="floor: `async def call(args)`: `try: return await func(**validate(args))`, "
            "`except Exception as exc: return f'Error: {exc}'`",
        ),
        calls,
        timer,
        shape="gather",
        fanout=n,
        versions={BARE: "", GUARDED: floor.version, "tooldeck": tooldeck.version},
    )


def _to_thread(tooldeck: Tooldeck, floor: Floor, timer: Timer, log: Log) -> Case:
    n = timer.settings.thread_calls
    log(f"case conc_to_thread ({n:,} calls)")
    add = fn.fresh(fn.add)
    registry = tooldeck.registry_with(add)
    env = {
        "func": add,
        "validate": args_validator(add).validate_python,
        "to_thread": asyncio.to_thread,
        "args": fn.CALL_ARGS,
    }
    calls = {
        "floor": Call("to_thread(func, **validate(args))", env),
        "tooldeck": Call(
            "async_call_tool('add', args)",
            {"async_call_tool": registry.async_call_tool, "args": fn.CALL_ARGS},
        ),
    }
    return _measure(
        Case(
            "conc_to_thread",
            f"asyncio.gather of {n:,} calls of a sync tool, each in a worker thread (µs per call)",
            baseline="floor",
            group="concurrency",
            note="floor: asyncio.to_thread (the loop's default executor); tooldeck: its own "
            "worker threads",
        ),
        calls,
        timer,
        shape="gather",
        fanout=n,
        versions={"floor": floor.version, "tooldeck": tooldeck.version},
    )


def _sync_face(tooldeck: Tooldeck, floor: Floor, timer: Timer, log: Log) -> Case:
    log("case conc_sync_face (8 threads)")
    aadd = fn.fresh(fn.aadd)
    registry = tooldeck.registry_with(aadd)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="bench-loop", daemon=True)
    thread.start()
    env = {
        "func": aadd,
        "validate": args_validator(aadd).validate_python,
        "submit": asyncio.run_coroutine_threadsafe,
        "loop": loop,
        "args": fn.CALL_ARGS,
    }
    calls = {
        "floor": Call("submit(func(**validate(args)), loop).result()", env),
        "tooldeck": Call(
            "call_tool('aadd', args)", {"call_tool": registry.call_tool, "args": fn.CALL_ARGS}
        ),
    }
    try:
        return _measure(
            Case(
                "conc_sync_face",
                f"{timer.THREADS} threads at once calling the sync face of an async tool "
                "(µs per call)",
                baseline="floor",
                group="concurrency",
                note="floor: asyncio.run_coroutine_threadsafe on one event-loop thread, .result()",
            ),
            calls,
            timer,
            shape="threads",
            divide=timer.THREADS,
            versions={"floor": floor.version, "tooldeck": tooldeck.version},
        )
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


def _measure(
    case: Case,
    calls: dict[str, Call],
    timer: Timer,
    *,
    shape: str,
    versions: dict[str, str],
    fanout: int = 1,
    divide: int = 1,
) -> Case:
    for label, call in calls.items():  # the sanity check: one call gives the sum
        probe = Call(call.expr, call.env, is_async=shape == "gather" and call.expr is not None)
        answer = timer.once(probe)
        if answer != fn.CALL_RESULT:
            case.note = (case.note + f"; {label}: unexpected answer {answer!r}").strip("; ")
    measured = timer.compare(
        calls,
        shape=shape,
        fanout=fanout,
        divide=fanout if shape == "gather" else divide,
        keep_gc=True,
        rounds=_rounds(timer),
        per_batch=5,
    )
    extra: dict[str, dict[str, Any]] = {label: {"loop": c.expr or ""} for label, c in calls.items()}
    case.add_measured(measured, versions, **extra)
    return case


if __name__ == "__main__":

    def _log(message: str) -> None:
        print(f"    [concurrency] {message}", file=sys.stderr, flush=True)

    found = measure_here(Settings(**json.loads(sys.argv[1])), _log)
    print(json.dumps([case.to_dict() for case in found]))

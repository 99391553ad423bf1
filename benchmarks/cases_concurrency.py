"""Concurrency: many calls in flight at once, on the event loop and across threads.

* `conc_gather`: one ``asyncio.gather`` of N calls of an async tool that awaits once
  (``await asyncio.sleep(0)``), against the bare gather of N direct calls of the
  function (no validation) and, for reference, of N validated direct calls.
* `conc_to_thread`: one gather of M calls of a sync tool from async code (each in a
  worker thread), against a gather of M ``asyncio.to_thread(func, **validate(args))``.
* `conc_sync_face`: 8 threads at once, each calling the sync face (``call_tool``) of
  an async tool, against 8 threads each handing a validated call to one event-loop
  thread with ``asyncio.run_coroutine_threadsafe(...).result()`` — what any sync face
  of async code must do at least, and what tooldeck's background loop does.

The collector stays on in these batches: thousands of live coroutines and their
frames are what it has to traverse, a cost of concurrency that a paused collector
would hide. Ratios are of time per call; the gather target reads their inverse
(throughput relative to the bare gather).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from benchmarks import functions as fn
from benchmarks.results import Case
from benchmarks.subjects import Floor, Subject, Tooldeck, args_validator
from benchmarks.timing import Call, Timer

BARE = "bare gather (direct calls, no validation)"
VALIDATED = "floor (validate + direct call)"
Log = Callable[[str], None]


def run_concurrency_cases(subjects: list[Subject], timer: Timer, log: Log) -> list[Case]:
    tooldeck = next((s for s in subjects if isinstance(s, Tooldeck)), None)
    floor = next((s for s in subjects if isinstance(s, Floor)), None)
    if tooldeck is None or floor is None:
        return []
    return [
        _gather(tooldeck, floor, timer, log),
        _to_thread(tooldeck, floor, timer, log),
        _sync_face(tooldeck, floor, timer, log),
    ]


def _rounds(timer: Timer) -> int:
    return max(5, timer.settings.rounds // 3)


def _gather(tooldeck: Tooldeck, floor: Floor, timer: Timer, log: Log) -> Case:
    n = timer.settings.gather
    log(f"case conc_gather ({n:,} calls)")
    tick = fn.fresh(fn.tick)
    registry = tooldeck.registry_with(tick)
    validate = args_validator(tick).validate_python
    args = fn.CALL_ARGS
    calls = {
        BARE: Call("func(**args)", {"func": tick, "args": args}),
        VALIDATED: Call(
            "func(**validate(args))", {"func": tick, "validate": validate, "args": args}
        ),
        "tooldeck": Call(
            "async_call_tool('tick', args)",
            {"async_call_tool": registry.async_call_tool, "args": args},
        ),
    }
    return _measure(
        Case(
            "conc_gather",
            f"asyncio.gather of {n:,} calls of an async tool that awaits once (µs per call)",
            baseline=BARE,
            group="concurrency",
        ),
        calls,
        timer,
        shape="gather",
        fanout=n,
        versions={BARE: "", VALIDATED: floor.version, "tooldeck": tooldeck.version},
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

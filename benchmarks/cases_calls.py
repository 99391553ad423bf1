"""Calls: every face of tooldeck against an inline floor, and the peers on theirs.

Three groups, each a list of cases measured in paired rounds:

* `PATH_CASES` — one path (sync, async, JSON, errors, the realistic `search` tool)
  measured for every subject that offers it, each in its own idiom;
* `FACE_CASES` — tooldeck's other faces (`tool.call`, `execute_sync`, `await execute`,
  `registry.call`) against the same floor as `call_tool`;
* `INJECTED_CASES` — a tool with one injected parameter against the same tool without.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks import functions as fn
from benchmarks.results import Case, missing_row
from benchmarks.subjects import Floor, Subject, Tooldeck, Unsupported, args_validator
from benchmarks.timing import Call, Timer

ERROR = object()  # the answer expected is an error message

Log = Callable[[str], None]


@dataclass(frozen=True)
class PathCase:
    id: str
    title: str
    method: str  # the `Subject.prepare_*` method
    func: Callable[..., Any]
    arg: Any
    expect: Any


PATH_CASES = [
    PathCase("call_sync", "Sync call by name with a dict: add(a=1, b=2)", "prepare_sync",
             fn.add, fn.CALL_ARGS, fn.CALL_RESULT),
    PathCase("call_async", "Async call of an async tool, a dict", "prepare_async",
             fn.aadd, fn.CALL_ARGS, fn.CALL_RESULT),
    PathCase("call_async_sync", "Async call of a sync tool (worker thread)",
             "prepare_async_sync", fn.add, fn.CALL_ARGS, fn.CALL_RESULT),
    PathCase("call_json", "Sync call with the arguments as JSON text", "prepare_json",
             fn.add, fn.CALL_JSON, fn.CALL_RESULT),
    PathCase("call_async_json", "Async call of an async tool with JSON text (an OpenAI "
             "reply's arguments)", "prepare_async_json", fn.aadd, fn.CALL_JSON, fn.CALL_RESULT),
    PathCase("call_invalid", "Invalid arguments: the error path (a='one')", "prepare_error",
             fn.add, fn.BAD_ARGS, ERROR),
    PathCase("call_invalid_async", "Invalid arguments, async: the error path of an async "
             "tool (a='one')", "prepare_error_async", fn.aadd, fn.BAD_ARGS, ERROR),
    PathCase("call_search_all", "A realistic tool, every argument given: search(query, "
             "limit, mode, langs)", "prepare_sync", fn.search, fn.SEARCH_ALL,
             fn.SEARCH_ALL_RESULT),
    PathCase("call_search_query", "A realistic tool, only `query` given (three defaults)",
             "prepare_sync", fn.search, fn.SEARCH_QUERY, fn.SEARCH_QUERY_RESULT),
]  # fmt: skip


def check(answer: Any, expect: Any) -> str:
    """A loose sanity check that the loop did the work (or failed as asked): a note."""
    text = repr(answer)
    if expect is ERROR:
        failed = ("rror" in text or "nvalid" in text) and "'result': 3" not in text
        return "" if failed else f"unexpected answer: {text[:80]}"
    ok = answer == expect or getattr(answer, "data", None) == expect or str(expect) in text
    return "" if ok else f"unexpected answer: {text[:80]}"


def measure(
    case: Case, calls: dict[str, Call], versions: dict[str, str], timer: Timer, expect: Any
) -> Case:
    """Check each call's answer once, time the ones that ran, add their rows."""
    timed: dict[str, Call] = {}
    notes: dict[str, str] = {}
    for label, call in calls.items():
        try:
            notes[label] = check(timer.once(call), expect)
        except Exception as exc:
            case.rows.append(missing_row(label, versions[label], f"{type(exc).__name__}: {exc}"))
            continue
        timed[label] = call
    measured = timer.compare(timed)
    loops = {label: {"loop": call.body} for label, call in timed.items()}
    case.add_measured(measured, versions, notes, **loops)
    return case


def run_path_cases(subjects: list[Subject], timer: Timer, log: Log) -> list[Case]:
    out = []
    for spec in PATH_CASES:
        log(f"case {spec.id}")
        case = Case(spec.id, spec.title, baseline="floor", group="calls")
        calls: dict[str, Call] = {}
        versions: dict[str, str] = {}
        for subject in subjects:
            try:
                made = getattr(subject, spec.method)(fn.fresh(spec.func), spec.arg)
            except Unsupported as exc:
                case.rows.append(missing_row(subject.name, subject.version, str(exc)))
                continue
            except Exception as exc:
                reason = f"failed to prepare: {type(exc).__name__}: {exc}"
                case.rows.append(missing_row(subject.name, subject.version, reason))
                continue
            variants = made if isinstance(made, dict) else {None: made}
            for variant, call in variants.items():
                calls[subject.label(variant)] = call
                versions[subject.label(variant)] = subject.version
        out.append(measure(case, calls, versions, timer, spec.expect))
    return out


# -- tooldeck's other faces ----------------------------------------------------------------


def _face_calls(tooldeck: Tooldeck, floor: Floor) -> list[tuple[str, str, Call, Call, Any]]:
    """(case id, title, floor call, tooldeck call, expected answer) per face."""
    add, aadd = fn.fresh(fn.add), fn.fresh(fn.aadd)
    registry = tooldeck.registry_with(add, aadd)
    sync_floor = floor.prepare_sync(add, fn.CALL_ARGS)
    assert isinstance(sync_floor, Call)  # `add` has no defaults: one floor
    async_floor = floor.prepare_async(aadd, fn.CALL_ARGS)
    args = {"name": "add", "args": fn.CALL_ARGS}
    return [
        ("face_tool_call", "`tool.call(args)` on the Tool itself", sync_floor,
         Call("call(args)", {"call": registry.get("add").call, "args": fn.CALL_ARGS}),
         fn.CALL_RESULT),
        ("face_execute_sync", "`registry.execute_sync(name, args)` → ToolResult", sync_floor,
         Call("execute_sync(name, args)", {"execute_sync": registry.execute_sync, **args}),
         fn.CALL_RESULT),
        ("face_execute", "`await registry.execute(name, args)` → ToolResult, async tool",
         async_floor,
         Call("execute(name, args)", {"execute": registry.execute, "name": "aadd",
                                      "args": fn.CALL_ARGS}, is_async=True),
         fn.CALL_RESULT),
        ("face_registry_call", "`registry.call(name, args)` → the result's text", sync_floor,
         Call("call(name, args)", {"call": registry.call, **args}), str(fn.CALL_RESULT)),
    ]  # fmt: skip


def run_face_cases(subjects: list[Subject], timer: Timer, log: Log) -> list[Case]:
    tooldeck, floor = _pair(subjects)
    if tooldeck is None or floor is None:
        return []
    out = []
    versions = {"floor": floor.version, "tooldeck": tooldeck.version}
    for case_id, title, floor_call, subject_call, expect in _face_calls(tooldeck, floor):
        log(f"case {case_id}")
        case = Case(case_id, title, baseline="floor", group="faces")
        calls = {"floor": floor_call, "tooldeck": subject_call}
        out.append(measure(case, calls, versions, timer, expect))
    return out


# -- injected context ------------------------------------------------------------------------

WITHOUT = "tooldeck, no Injected parameter"
WITH = "tooldeck, one Injected parameter"
WITHOUT_CTX = "tooldeck, no Injected parameter, context given"


def run_injected_cases(subjects: list[Subject], timer: Timer, log: Log) -> list[Case]:
    """`add_for(a, b, user: Annotated[str, Injected])` against `add(a, b)`, both faces."""
    tooldeck, floor = _pair(subjects)
    if tooldeck is None or floor is None:
        return []
    add, add_for = fn.fresh(fn.add), fn.fresh(fn.add_for)
    registry = tooldeck.registry_with(add, add_for)
    floor_env = {
        "func": add_for,
        "validate": args_validator(add_for).validate_python,
        "args": fn.CALL_ARGS,
        "context": fn.CONTEXT,
    }
    floor_call = Call("func(**validate(args), **context)", floor_env)
    versions = dict.fromkeys(["floor", WITHOUT, WITH, WITHOUT_CTX], tooldeck.version)
    versions["floor"] = floor.version
    out = []
    for face in ("call_tool", "execute_sync"):
        log(f"case injected_{face}")
        method = getattr(registry, face)
        env = {face: method, "args": fn.CALL_ARGS, "context": fn.CONTEXT}
        calls = {
            "floor": floor_call,
            WITHOUT: Call(f"{face}('add', args)", env),
            WITH: Call(f"{face}('add_for', args, context=context)", env),
            WITHOUT_CTX: Call(f"{face}('add', args, context=context)", env),
        }
        case = Case(
            f"injected_{face}",
            f"`{face}` of a tool with one injected parameter vs the same tool without",
            baseline=WITHOUT,
            group="injected",
            note="the floor passes the context values as keyword arguments",
        )
        out.append(measure(case, calls, versions, timer, fn.CALL_RESULT))
    return out


def _pair(subjects: list[Subject]) -> tuple[Tooldeck | None, Floor | None]:
    tooldeck = next((s for s in subjects if isinstance(s, Tooldeck)), None)
    floor = next((s for s in subjects if isinstance(s, Floor)), None)
    return tooldeck, floor

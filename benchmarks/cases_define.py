"""Definitions: a function to a finished JSON schema, for the four functions.

Each definition gets a fresh function object (same code, new function), so nothing is
answered from a cache keyed by the function. tooldeck's figure is the module-level
`@tool`, which also registers the tool in the default registry.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

from benchmarks import functions as fn
from benchmarks.results import Case, Row
from benchmarks.subjects import Subject, Unsupported
from benchmarks.timing import Call, Timer

FLOOR_NOTE = "reference: create_model + model_json_schema, no docstring parsing"


def is_full_schema(schema: dict[str, Any], func: Any, described: tuple[str, ...]) -> bool:
    """Whether every parameter got a typed property (not a fallback `{}`) and every
    parameter the function documents (in `Annotated` or its docstring) a description."""
    props = schema.get("properties", {})
    typed = ("type", "$ref", "anyOf", "allOf", "oneOf", "enum", "const")
    params = list(inspect.signature(func).parameters)
    return all(p in props and any(k in props[p] for k in typed) for p in params) and all(
        "description" in props.get(p, {}) for p in described
    )


def _probe(subject: Subject, key: str, func: Any) -> tuple[bool, str]:
    """Define once: whether the schema is full, and a note on what it drops or warns."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema = subject.define(fn.fresh(func))
    if not isinstance(schema, dict) or not schema:
        raise TypeError(f"no schema: {schema!r}")
    full = subject.full_schema and is_full_schema(schema, func, fn.DESCRIBED[key])
    dropped = [
        p
        for p in fn.ANNOTATED_DESCRIBED.get(key, ())
        if "description" not in schema.get("properties", {}).get(p, {})
    ]
    notes = []
    if dropped:
        notes.append(f"drops the Annotated[str, ...] description of {', '.join(dropped)}")
    if caught:
        notes.append(f"warns: {caught[0].message}")
    if not subject.full_schema:
        notes = ["no JSON schema (its own kwargs format)"]
    elif not full:
        notes.insert(0, "incomplete JSON schema (types or descriptions missing)")
    return full, "; ".join(notes)


def run_definition_cases(
    subjects: list[Subject], timer: Timer, log: Callable[[str], None]
) -> list[Case]:
    out = []
    for key, func in fn.DEFINITION_FUNCS.items():
        log(f"case define_{key}")
        case = Case(
            f"define_{key}",
            f"Definition to finished JSON schema: {func.__name__}",
            baseline=None,
            note="fresh function object per definition",
            group="define",
        )
        calls: dict[str, Call] = {}
        extra: dict[str, dict[str, Any]] = {}
        notes: dict[str, str] = {}
        versions: dict[str, str] = {}
        for subject in subjects:
            try:
                full, note = _probe(subject, key, func)
            except Unsupported as exc:
                case.rows.append(Row(subject.name, subject.version, None, "us", note=str(exc)))
                continue
            except Exception as exc:
                note = f"failed: {type(exc).__name__}: {exc}"[:200]
                case.rows.append(Row(subject.name, subject.version, None, "us", note=note))
                continue
            calls[subject.name] = Call("define(item)", {"define": subject.define})
            extra[subject.name] = {"full_schema": full}
            notes[subject.name] = FLOOR_NOTE if subject.name == "floor" else note
            versions[subject.name] = subject.version
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            measured = timer.compare(
                calls,
                shape="over",
                make=lambda f=func: fn.fresh(f),
                rounds=max(3, timer.settings.rounds // 3),
            )
        timed = Case(case.id, case.title, None)
        timed.add_measured(measured, versions, notes, **extra)
        case.rows[:0] = timed.rows
        out.append(case)
    return out


def full_schema_peers(cases: list[dict[str, Any]]) -> list[str]:
    """Peers whose definition gave a full JSON schema for every one of the four functions
    (typed properties and the docstring's descriptions): the ones the targets compare with."""
    define = [c for c in cases if c["id"].startswith("define_")]
    names = {r["subject"] for c in define for r in c["rows"]} - {"tooldeck", "floor"}
    return sorted(
        name
        for name in names
        if define
        and all(
            any(
                r["subject"] == name and r["value"] is not None and r.get("full_schema")
                for r in c["rows"]
            )
            for c in define
        )
    )

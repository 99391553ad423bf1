"""Null means the default, at every level of nesting: a plan per type, built once.

Strict exports make every defaulted field nullable, so a model may send ``null`` for
any of them, however deep; that ``null`` must act exactly as if the field were left
out. A *plan* is a function that drops such nulls from an argument value before it is
validated. It is built once per parameter at definition time, and only where the type
has such a field somewhere (most parameters get none and pay nothing).

Plans walk unions, lists, tuples, sets, dict values, Pydantic models, dataclasses and
TypedDicts; recursive types are handled. In a union of several structured types, the
value's shape (an object's keys) picks the branch; where several branches fit and
would drop different nulls, the value is left as it is, for validation to judge.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Union, get_args, get_origin

from ._typing import admits_none, object_fields, split_annotated, validates_to_itself

__all__ = ["Plan", "null_default_plan"]

Plan = Callable[[Any], Any]

_UNIONS: tuple[Any, ...] = (Union, types.UnionType)
_SEQUENCES = (list, set, frozenset, tuple)


@dataclass(frozen=True, slots=True)
class _Branch:
    """A plan, and the shape of value it is for: ``object`` (with its keys), ``array``,
    ``mapping`` (a dict's values) or ``any``."""

    apply: Plan
    shape: str
    keys: frozenset[str] = frozenset()

    def fits(self, value: Any) -> bool:
        if self.shape == "any":
            return True
        if isinstance(value, Mapping):
            return self.shape == "mapping" or (self.shape == "object" and value.keys() <= self.keys)
        return self.shape == "array" and isinstance(value, (list, tuple))


_PENDING: Any = object()  # a type whose plan is being built (recursion)


def null_default_plan(tp: Any) -> Plan | None:
    """A function dropping the nulls sent for defaulted, non-nullable fields of ``tp``.

    ``None`` when ``tp`` has no such field at any depth.
    """
    branch = _plan(tp, {})
    return None if branch is None else branch.apply


def _plan(tp: Any, seen: dict[Any, Any]) -> _Branch | None:
    tp = split_annotated(tp)[0]
    if not isinstance(tp, type):
        return _build(tp, seen)
    found: _Branch | None = seen.get(tp)
    if found is _PENDING:  # recursion: the plan is looked up when a value comes
        keys = frozenset(f.key for f in object_fields(tp) or ())
        return _Branch(lambda value: _late(seen, tp, value), "object", keys)
    if tp in seen:
        return found
    seen[tp] = _PENDING
    seen[tp] = branch = _build(tp, seen)
    return branch


def _late(seen: dict[Any, Any], tp: Any, value: Any) -> Any:
    branch = seen.get(tp)
    return value if branch is None or branch is _PENDING else branch.apply(value)


def _build(tp: Any, seen: dict[Any, Any]) -> _Branch | None:
    origin, args = get_origin(tp), get_args(tp)
    if origin in _UNIONS:
        return _union([b for b in (_plan(a, seen) for a in args) if b is not None])
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        return _positions([_plan(a, seen) for a in args])
    if origin in _SEQUENCES and args:
        item = _plan(args[0], seen)
        return None if item is None else _Branch(_each(item.apply), "array")
    if origin is dict and len(args) == 2:
        value = _plan(args[1], seen)
        return None if value is None else _Branch(_each_value(value.apply), "mapping")
    fields = object_fields(tp)
    if fields is None:
        return None
    defaulted = [f for f in fields if f.has_default and not admits_none(f.annotation)]
    # A null for a field whose default validates to itself (a literal, an enum member, a
    # plain scalar) becomes that default: the same outcome as leaving it out, and the
    # key stays, which a discriminated union needs to find its branch. Other nulls go.
    fill = {f.key: f.default for f in defaulted if validates_to_itself(f.annotation, f.default)}
    droppable = frozenset(f.key for f in defaulted) - fill.keys()
    nested = {f.key: b.apply for f in fields if (b := _plan(f.annotation, seen)) is not None}
    if not (droppable or fill or nested):
        return None
    keys = frozenset(f.key for f in fields)
    return _Branch(_object(droppable, fill, nested), "object", keys)


def _union(branches: list[_Branch]) -> _Branch | None:
    if len(branches) <= 1:
        return branches[0] if branches else None

    def plan(value: Any) -> Any:
        results = [b.apply(value) for b in branches if b.fits(value)]
        if results and all(r == results[0] for r in results[1:]):
            return results[0]
        return value  # no branch fits, or the ones that fit disagree: leave it alone

    return _Branch(plan, "any")


def _object(droppable: frozenset[str], fill: dict[str, Any], nested: dict[str, Plan]) -> Plan:
    def plan(value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        out = {}
        for k, v in value.items():
            if v is None and k in fill:
                out[k] = fill[k]
            elif v is None and k in droppable:
                continue
            else:
                out[k] = nested[k](v) if k in nested else v
        return out

    return plan


def _positions(branches: list[_Branch | None]) -> _Branch | None:
    if all(b is None for b in branches):
        return None
    plans = [b.apply if b is not None else None for b in branches]

    def each_position(value: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            return value
        return [p(v) if i < len(plans) and (p := plans[i]) else v for i, v in enumerate(value)]

    return _Branch(each_position, "array")


def _each(plan: Plan) -> Plan:
    def each(value: Any) -> Any:
        return [plan(v) for v in value] if isinstance(value, (list, tuple)) else value

    return each


def _each_value(plan: Plan) -> Plan:
    def each_value(value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        return {k: plan(v) for k, v in value.items()}

    return each_value

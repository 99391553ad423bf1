"""Small pure helpers over type annotations.

They answer the questions the lenient argument rules ask of a parameter's type:
does it admit ``None``, does it admit a string, does it take a list or an object —
and they build the *null-default plan* that strict mode needs at every level of
nesting (a ``null`` sent for a field that has a default and does not admit ``None``
means "use the default", so the key is dropped before validation).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pydantic
from typing_extensions import NotRequired, Required, is_typeddict

__all__ = [
    "admits_container",
    "admits_none",
    "admits_text",
    "null_default_plan",
    "split_annotated",
    "union_members",
]

Plan = Callable[[Any], Any]

_CONTAINERS = (list, tuple, set, frozenset, dict)
_UNIONS: tuple[Any, ...] = (Union, types.UnionType)


def split_annotated(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    """``Annotated[T, *meta]`` → ``(T, meta)``; anything else → ``(tp, ())``."""
    if get_origin(tp) is Annotated:
        return tp.__origin__, tuple(tp.__metadata__)
    return tp, ()


def union_members(tp: Any) -> tuple[Any, ...]:
    """The members of a union (each without ``Annotated``), or ``(tp,)``."""
    tp = split_annotated(tp)[0]
    if get_origin(tp) in _UNIONS:
        return tuple(m for arg in get_args(tp) for m in union_members(arg))
    return (tp,)


def _is_anything(tp: Any) -> bool:
    return tp is Any or tp is object or isinstance(tp, typing.TypeVar)


def admits_none(tp: Any) -> bool:
    """Whether ``None`` is a valid value of ``tp``."""
    for member in union_members(tp):
        if member is None or member is type(None) or _is_anything(member):
            return True
        if get_origin(member) is Literal and None in get_args(member):
            return True
    return False


def admits_text(tp: Any) -> bool:
    """Whether ``tp`` takes a string as such (``str``, ``Any``, a string literal or enum)."""
    for member in union_members(tp):
        if _is_anything(member):
            return True
        if get_origin(member) is Literal and any(isinstance(a, str) for a in get_args(member)):
            return True
        if isinstance(member, type) and issubclass(member, (str, bytes)):
            return True
        if (
            isinstance(member, type)
            and issubclass(member, enum.Enum)
            and any(isinstance(m.value, str) for m in member)
        ):
            return True
    return False


def admits_container(tp: Any) -> bool:
    """Whether ``tp`` takes a JSON array or object (list, dict, model, dataclass...)."""
    return any(_is_structured(m) for m in union_members(tp))


def _is_structured(tp: Any) -> bool:
    origin = get_origin(tp) or tp
    if isinstance(origin, type) and issubclass(origin, _CONTAINERS):
        return True
    if origin in (typing.Sequence, typing.Mapping, typing.MutableMapping):
        return True
    return _is_model(tp) or dataclasses.is_dataclass(tp) or is_typeddict(tp)


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def null_default_plan(tp: Any, _seen: dict[Any, Plan | None] | None = None) -> Plan | None:
    """A function that drops ``None`` values sent for defaulted, non-nullable fields.

    Returns ``None`` when ``tp`` has no such field at any depth, so that most
    parameters pay nothing. Works through unions, lists, tuples, sets, dict values,
    Pydantic models, dataclasses and TypedDicts; recursive types are handled.
    """
    seen = {} if _seen is None else _seen
    tp = split_annotated(tp)[0]
    key = tp if isinstance(tp, type) else None
    if key is not None:
        if key in seen:
            return lambda value: _late(seen, key, value)
        seen[key] = None  # placeholder while this type is being analysed
    plan = _build_plan(tp, seen)
    if key is not None:
        seen[key] = plan
    return plan


def _late(seen: dict[Any, Plan | None], key: Any, value: Any) -> Any:
    plan = seen.get(key)
    return value if plan is None else plan(value)


def _build_plan(tp: Any, seen: dict[Any, Plan | None]) -> Plan | None:
    origin, args = get_origin(tp), get_args(tp)
    if origin in _UNIONS:
        plans = [p for p in (null_default_plan(a, seen) for a in args) if p is not None]
        return plans[0] if len(plans) == 1 else None  # ambiguous unions are left alone
    if origin in (list, set, frozenset, tuple) and args:
        item_plan = null_default_plan(args[0], seen)
        return None if item_plan is None else _each(item_plan)
    if origin is dict and len(args) == 2:
        value_plan = null_default_plan(args[1], seen)
        return None if value_plan is None else _each_value(value_plan)
    fields = _defaulted_fields(tp, seen)
    if fields is None:
        return None
    droppable, nested = fields
    if not droppable and not nested:
        return None
    return _object_plan(droppable, nested)


def _defaulted_fields(
    tp: Any, seen: dict[Any, Plan | None]
) -> tuple[frozenset[str], dict[str, Plan]] | None:
    entries: list[tuple[str, Any, bool]] = []  # (input key, annotation, has default)
    if _is_model(tp):
        for name, info in tp.model_fields.items():
            entries.append((info.alias or name, info.annotation, not info.is_required()))
    elif dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = typing.get_type_hints(tp, include_extras=True)
        for f in dataclasses.fields(tp):
            has_default = (
                f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            )
            entries.append((f.name, hints.get(f.name, Any), has_default))
    elif is_typeddict(tp):
        hints = typing.get_type_hints(tp, include_extras=True)
        required = getattr(tp, "__required_keys__", frozenset(hints))
        entries = [
            (name, hint, not _typeddict_required(name, hint, required))
            for name, hint in hints.items()
        ]
    else:
        return None
    droppable = frozenset(k for k, hint, dflt in entries if dflt and not admits_none(hint))
    nested = {k: p for k, hint, _ in entries if (p := null_default_plan(hint, seen)) is not None}
    return droppable, nested


def _typeddict_required(name: str, hint: Any, required_keys: frozenset[str]) -> bool:
    # With string annotations (``from __future__ import annotations``) Python < 3.12
    # puts NotRequired keys in __required_keys__; the resolved hint says the truth.
    origin = get_origin(hint)
    if origin is NotRequired:
        return False
    if origin is Required:
        return True
    return name in required_keys


def _object_plan(droppable: frozenset[str], nested: dict[str, Plan]) -> Plan:
    def plan(value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        return {
            k: (nested[k](v) if k in nested else v)
            for k, v in value.items()
            if not (v is None and k in droppable)
        }

    return plan


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

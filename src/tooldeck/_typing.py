"""Small pure helpers over type annotations.

They answer the questions the lenient argument rules ask of a parameter's type:
does it admit ``None``, does it admit a string, does it take a list or an object,
which fields does a model, dataclass or TypedDict have.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from typing import Annotated, Any, Literal, NamedTuple, Union, get_args, get_origin

import pydantic
from pydantic.fields import FieldInfo
from typing_extensions import Doc, NotRequired, ReadOnly, Required, is_typeddict

__all__ = [
    "ObjectField",
    "admits_container",
    "admits_none",
    "admits_text",
    "object_fields",
    "parse_container",
    "split_annotated",
    "union_members",
    "validates_to_itself",
]

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


def parse_container(text: str) -> Any:
    """The lenient rule for a container argument sent as JSON text: the list or object
    it holds, else the text as it was (for validation to report)."""
    if not text.lstrip().startswith(("[", "{")):
        return text
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return text
    return parsed if isinstance(parsed, (list, dict)) else text


def _is_structured(tp: Any) -> bool:
    origin = get_origin(tp) or tp
    if isinstance(origin, type) and issubclass(origin, _CONTAINERS):
        return True
    if origin in (typing.Sequence, typing.Mapping, typing.MutableMapping):
        return True
    return _is_model(tp) or dataclasses.is_dataclass(tp) or is_typeddict(tp)


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def _is_v1_model(tp: Any) -> bool:
    """A ``pydantic.v1`` model class (known by its metaclass, without importing v1)."""
    return isinstance(tp, type) and type(tp).__module__ == "pydantic.v1.main"


class ObjectField(NamedTuple):
    """One field of a model, dataclass or TypedDict, as arguments spell it."""

    key: str  # the input key (a model field's alias, if it has one)
    annotation: Any
    has_default: bool
    default: Any = None  # the default value, where there is one (not a factory's)


def object_fields(tp: Any) -> list[ObjectField] | None:
    """The fields of a model, dataclass or TypedDict; ``None`` for any other type."""
    if _is_model(tp):
        return [
            ObjectField(
                _input_key(name, info),
                info.rebuild_annotation(),  # with its constraints, as Annotated metadata
                not info.is_required(),
                info.default,
            )
            for name, info in tp.model_fields.items()
        ]
    if _is_v1_model(tp):
        return [
            ObjectField(f.alias, f.annotation, not f.required, f.default)
            for f in tp.__fields__.values()
        ]
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = typing.get_type_hints(tp, include_extras=True)
        return [
            ObjectField(f.name, hints.get(f.name, Any), _has_default(f), f.default)
            for f in dataclasses.fields(tp)
        ]
    if is_typeddict(tp):
        hints = typing.get_type_hints(tp, include_extras=True)
        required = getattr(tp, "__required_keys__", frozenset(hints))
        return [
            ObjectField(name, _unqualified(hint), not _typeddict_required(name, hint, required))
            for name, hint in hints.items()
        ]
    return None


def _input_key(name: str, info: FieldInfo) -> str:
    """The key a model's field is sent under (its schema's): a validation alias first."""
    if isinstance(info.validation_alias, str):
        return info.validation_alias
    return info.alias or name


def _unqualified(hint: Any) -> Any:
    """A TypedDict key's type without ``Required``/``NotRequired``/``ReadOnly``."""
    while get_origin(hint) in (Required, NotRequired, ReadOnly):
        hint = get_args(hint)[0]
    return hint


def _has_default(f: dataclasses.Field[Any]) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def _typeddict_required(name: str, hint: Any, required_keys: frozenset[str]) -> bool:
    # With string annotations (``from __future__ import annotations``) Python < 3.12
    # puts NotRequired keys in __required_keys__; the resolved hint says the truth.
    origin = get_origin(hint)
    if origin is NotRequired:
        return False
    if origin is Required:
        return True
    return name in required_keys


def validates_to_itself(annotation: Any, default: Any) -> bool:
    """Whether validating ``default`` against ``annotation`` surely returns ``default``
    itself: a plain scalar, enum member or literal value, and no constraint (``ge``, a
    pattern, a validator) in its ``Annotated`` metadata that the default might fail."""
    base, meta = split_annotated(annotation)
    if not all(_describes_only(m) for m in meta):
        return False
    if base in (int, str, float, bool):
        return type(default) is base
    if isinstance(base, type) and issubclass(base, enum.Enum):
        return isinstance(default, base)
    if get_origin(base) is Literal:
        return any(
            default is arg or (type(default) is type(arg) and default == arg)
            for arg in get_args(base)
        )
    return False


def _describes_only(meta: Any) -> bool:
    """Metadata that says something about a value without checking it."""
    if isinstance(meta, FieldInfo):
        return not meta.metadata
    return isinstance(meta, (str, Doc))

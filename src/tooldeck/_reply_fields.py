"""The pieces of a model's reply, read alike from dicts and SDK objects.

`fields_of` reads one piece of a reply (a dict's keys, a pydantic model's ``__dict__``,
any other object's attributes); `not_a_reply` is the one ``TypeError`` for anything
that is no reply. Each provider (`tooldeck.providers`) reads its replies with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._result import clip, type_name

__all__ = [
    "LIST",
    "MISSING",
    "PYDANTIC",
    "Fields",
    "NotAReply",
    "ToolCall",
    "fields_of",
    "not_a_reply",
]

# One call a model asked for: ``(id, name, arguments)``. The provider's id (``None`` for
# a Gemini call without one), the tool's name, and the arguments as the provider sent
# them: JSON text (OpenAI) or an object. A plain tuple: a named tuple costs four times as
# much to make (~100 ns against ~25), a thirtieth of a one-call turn.
ToolCall = tuple[str | None, str, Any]


# -- reading a reply's fields, from dicts and SDK objects alike ------------------------


class _Attributes:
    """An object's attributes read like a dict's keys (``None`` when missing)."""

    __slots__ = ("_obj",)

    def __init__(self, obj: object) -> None:
        self._obj = obj

    def get(self, key: str, default: Any = None, /) -> Any:
        return getattr(self._obj, key, default)

    def __contains__(self, key: str) -> bool:
        return hasattr(self._obj, key)


Fields = Mapping[str, Any] | _Attributes
MISSING: Any = object()  # ``fields.get(key, MISSING)``: a key absent, not set to None


def fields_of(obj: Any) -> Fields:
    """The fields of one piece of a reply: a dict's keys, an SDK object's attributes.

    The readers inline its first case (``obj.__dict__ if type(obj) in PYDANTIC``), the
    SDKs' objects, and skip ``isinstance`` checks for them (~60 ns each on a pydantic
    model, which has a deep class hierarchy): the readers are most of `run_tool_calls`.
    """
    cls = type(obj)
    if cls in PYDANTIC:
        # pydantic models keep their fields in ``__dict__``: reading it spares
        # pydantic's ``__getattr__``, ~2 µs for each name the model does not have.
        return obj.__dict__  # type: ignore[no-any-return]
    if cls is dict or cls in _MAPPINGS:
        return obj  # type: ignore[no-any-return]
    if cls in _OBJECTS:
        return _Attributes(obj)
    _learn(cls)
    return fields_of(obj)


# How to read each class met (a few: the SDKs' reply classes), learned on first sight.
PYDANTIC: set[type] = set()
_MAPPINGS: set[type] = set()
_OBJECTS: set[type] = set()


def _learn(cls: type) -> None:
    if issubclass(cls, Mapping):
        _MAPPINGS.add(cls)
    elif hasattr(cls, "__pydantic_fields__") or hasattr(cls, "__fields__"):  # pydantic 2 or 1
        PYDANTIC.add(cls)
    else:
        _OBJECTS.add(cls)


LIST = (list, tuple)  # a list of calls, parts or blocks (``isinstance(x, LIST)``)


class NotAReply(TypeError):
    """tooldeck's own word that something is no reply (a plain ``TypeError`` outside)."""


def not_a_reply(value: Any, shape: str | None = None) -> TypeError:
    """The ``TypeError`` for ``value``, which is no reply of the ``shape`` expected
    (a provider's ``Provider.shape``; ``None``: no provider's)."""
    what = shape or "a model's reply"
    return NotAReply(
        f"expected {what}, or a part of one, or its tool calls; "
        f"got {type_name(value)} {clip(value)}"
    )

"""Attributes kept without an instance ``__dict__``: a tool's hot path reads them fast.

On CPython 3.11 (and 3.12) an object's attributes live inline, and the interpreter
specialises every ``obj.attr`` load for them. Reading ``obj.__dict__`` — as
`functools.cached_property` and `functools.update_wrapper` do — moves them into a dict
for good, and a load from that dict is no longer specialised: about 15 ns more each,
and a call face reads two or three of a tool's attributes (~5% of ``call_tool``). So a
`tooldeck.Tool` sets its attributes one by one, and computes its lazy ones with `lazy`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, overload

__all__ = ["lazy", "set_attributes"]

T = TypeVar("T")


class lazy(Generic[T]):
    """`functools.cached_property`, stored with ``object.__setattr__``."""

    def __init__(self, build: Callable[[Any], T]) -> None:
        self._build = build
        self._name = build.__name__
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> lazy[T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...
    def __get__(self, instance: object, owner: type | None = None) -> T | lazy[T]:
        if instance is None:
            return self
        value = self._build(instance)
        object.__setattr__(instance, self._name, value)  # shadows this descriptor
        return value


def set_attributes(obj: object, values: Mapping[str, Any]) -> None:
    """``obj.__dict__.update(values)``, but attribute by attribute (see the module).

    A name the object's class holds a read-only attribute under (a property such as
    `Tool.name`) is skipped: in ``__dict__`` it would be shadowed by that attribute
    and never read.
    """
    for name, value in values.items():
        with contextlib.suppress(AttributeError, TypeError):  # read-only, or no str name
            object.__setattr__(obj, name, value)

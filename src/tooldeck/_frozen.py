"""Read-only JSON data, for exports computed once and shared by every caller.

Handing out copies would cost as much as computing the exports again. These are plain
dict/list subclasses (json.dumps, the provider SDKs and jsonschema take them as they
are) that refuse to be changed in place.
"""

from __future__ import annotations

from typing import Any, NoReturn

from ._jsonschema import copy_json

__all__ = ["FrozenDict", "FrozenList", "freeze"]


_READ_ONLY = (
    "exported tool definitions are shared and read-only; copy before changing one: "
    "copy.deepcopy(tool) or {**tool, ...}"
)


def _read_only(self: object, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(_READ_ONLY)


class FrozenDict(dict[str, Any]):
    """A ``dict`` that cannot be changed; ``copy.deepcopy`` gives a plain, mutable one."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        copied: dict[str, Any] = copy_json(self)
        return copied

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


class FrozenList(list[Any]):
    """A ``list`` that cannot be changed; ``copy.deepcopy`` gives a plain, mutable one."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = pop = remove = clear = sort = reverse = _read_only

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        copied: list[Any] = copy_json(self)
        return copied

    def __copy__(self) -> list[Any]:
        return list(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


def freeze(value: Any) -> Any:
    """A read-only deep copy of JSON-shaped data."""
    if isinstance(value, dict):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return FrozenList([freeze(v) for v in value])
    return value

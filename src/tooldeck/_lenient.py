"""The lenient rules for arguments checked against a JSON Schema by someone else (an MCP
server, a framework's own validator): only what cannot change meaning.

* JSON text for a parameter whose schema admits neither a string nor anything, parsed
  when it is a list or an object (some clients stringify nested arguments);
* ``null`` for a defaulted parameter whose schema does not admit ``null``, left out so
  the validator applies its default (strict exports send defaulted parameters as
  nullable).

Planned once per schema; a call pays two set intersections.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import from_json

__all__ = ["Lenient"]


class Lenient:
    """The lenient rules for one input schema, planned once (see the module docstring)."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        properties = schema.get("properties")
        self.parse: frozenset[str] = frozenset()
        self.null_is_default: frozenset[str] = frozenset()
        if not isinstance(properties, Mapping):
            return
        parse, null = set(), set()
        for key, prop in properties.items():
            kinds = _json_types(prop)
            if kinds is None:
                continue  # anything goes: the value is passed as it is
            if "string" not in kinds and kinds & {"array", "object"}:
                parse.add(key)
            if isinstance(prop, Mapping) and "default" in prop and "null" not in kinds:
                null.add(key)
        self.parse, self.null_is_default = frozenset(parse), frozenset(null)

    def __call__(self, arguments: dict[str, Any]) -> dict[str, Any]:
        for key in self.null_is_default & arguments.keys():
            if arguments[key] is None:
                del arguments[key]  # the server applies its default
        for key in self.parse & arguments.keys():
            value = arguments[key]
            if isinstance(value, str):
                arguments[key] = _parsed(value)
        return arguments


def _parsed(text: str) -> Any:
    """A list or object some clients sent as JSON text, parsed; anything else as it is."""
    try:
        value = from_json(text, allow_inf_nan=False)
    except ValueError:
        return text
    return value if isinstance(value, (list, dict)) else text


_TYPE_OF: dict[type, str] = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}


def _json_types(schema: Any) -> frozenset[str] | None:
    """The JSON types a schema admits, or ``None`` when it may admit anything."""
    if not isinstance(schema, Mapping):
        return None
    kind = schema.get("type")
    if isinstance(kind, str):
        return frozenset([kind])
    if isinstance(kind, list) and all(isinstance(k, str) for k in kind):
        return frozenset(kind)
    if "const" in schema:
        return frozenset([_TYPE_OF.get(type(schema["const"]), "?")])
    if isinstance(schema.get("enum"), list):
        return frozenset(_TYPE_OF.get(type(v), "?") for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            kinds = [_json_types(branch) for branch in branches]
            if any(k is None for k in kinds):
                return None
            return frozenset().union(*(k for k in kinds if k is not None))
    return None

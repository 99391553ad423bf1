"""What the schema transforms share: walking a clean JSON Schema, with paths for errors.

The transforms (`tooldeck._strict`, `tooldeck._gemini`) build new dicts while they
walk a tool's ``parameters``; a `Walk` carries what every step needs besides the node —
the tool's name for errors and its ``$defs`` for ``$ref``s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._jsonschema import copy_json
from .errors import ToolDefinitionError

__all__ = [
    "ANNOTATIONS",
    "NULL",
    "Schema",
    "Walk",
    "admits_null",
    "child",
    "copy_schema",
    "is_any",
    "is_object",
]

Schema = dict[str, Any]

NULL: Schema = {"type": "null"}  # never handed out: copied wherever it is used
ANNOTATIONS = ("title", "description")


def copy_schema(schema: Mapping[str, Any]) -> Schema:
    return {k: copy_json(v) for k, v in schema.items()}


def child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@dataclass(frozen=True)
class Walk:
    """What every step of a walk needs besides the node: for errors and ``$ref``s."""

    tool: str
    defs: Mapping[str, Any]

    def fail(self, path: str, reason: str) -> ToolDefinitionError:
        return ToolDefinitionError(reason, tool=self.tool, param=path or None)

    def resolve(self, ref: str, path: str) -> Mapping[str, Any]:
        prefix = "#/$defs/"
        target = self.defs.get(ref[len(prefix) :]) if ref.startswith(prefix) else None
        if not isinstance(target, Mapping):
            raise self.fail(path, f"cannot resolve $ref {ref!r} (only '#/$defs/<name>' is)")
        return target


def is_any(node: Mapping[str, Any]) -> bool:
    """True for a schema that accepts every value: no keyword but annotations."""
    return not node.keys() - {"title", "description", "default", "examples"}


def is_object(node: Mapping[str, Any]) -> bool:
    return node.get("type") == "object" or "properties" in node or "additionalProperties" in node


def admits_null(node: Mapping[str, Any]) -> bool:
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in node:
        return node["const"] is None
    if None in node.get("enum", ()):
        return True
    branches = node.get("anyOf", []) + node.get("oneOf", [])
    return any(isinstance(b, Mapping) and admits_null(b) for b in branches)

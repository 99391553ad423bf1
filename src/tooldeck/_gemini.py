"""Gemini's schema subset: a tool's ``parameters`` as ``google.genai.types.Schema`` takes it.

An OpenAPI 3.0 subset: ``nullable`` instead of null unions, ``$ref``s inlined, string
enums, a few formats. What the subset cannot say is said in the description, or —
for what cannot be inlined or has no type — raises `ToolDefinitionError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ._jsonschema import copy_json
from ._schema_walk import NULL, Schema, Walk, child

__all__ = ["to_gemini_schema"]

# google.genai.types.Schema fields (an OpenAPI 3.0 subset), kept as they are. Not
# `additionalProperties`: the SDK type has it (for Vertex AI), but the Gemini API answers
# 400 "Unknown name \"additionalProperties\"", so it is dropped, `false` included.
_GEMINI_KEEP = frozenset(
    {
        "title", "description", "default", "example", "pattern", "minLength", "maxLength",
        "minimum", "maximum", "minItems", "maxItems", "minProperties", "maxProperties",
        "required", "nullable", "propertyOrdering",
    }
)  # fmt: skip
_UNION_OUTER = ("title", "description", "default")
# Keywords that narrow what a value may be in ways Gemini's Schema cannot state: dropping
# them would tell the model it may send what the tool refuses.
_UNSAYABLE = frozenset(
    {"not", "if", "then", "else", "dependentSchemas", "dependentRequired", "contains"}
)
# Gemini rejects other `format` values with a 400 ("only 'enum' and 'date-time' are
# supported for STRING type"); the dropped format is kept as a note in the description.
_GEMINI_FORMATS = {
    "string": {"enum", "date-time"},
    "number": {"float", "double"},
    "integer": {"int32", "int64"},
}


@dataclass(frozen=True)
class _GeminiWalk(Walk):
    expanding: tuple[str, ...] = ()  # the $refs being inlined, outermost first

    def enter(self, ref: str, path: str) -> _GeminiWalk:
        if ref in self.expanding:
            raise self.fail(path, "a recursive model cannot be inlined for Gemini")
        return _GeminiWalk(self.tool, self.defs, (*self.expanding, ref))


def to_gemini_schema(parameters: Mapping[str, Any], *, tool: str) -> Schema:
    """Gemini's form of a ``parameters`` schema, built anew (the input is untouched).

    ``$ref``s are inlined; a null union becomes ``nullable: true``; ``const`` becomes a
    one-value ``enum``; enums of non-strings, ``format``s Gemini rejects and exclusive
    bounds are translated (see docs/exports.md); keywords outside
    ``google.genai.types.Schema`` are dropped (the tool's own validation still applies
    them).

    Raises:
        ToolDefinitionError: For a recursive model (it cannot be inlined), a value of any
            type (Gemini's ``Schema`` needs a type), and a keyword that narrows values in
            a way the subset cannot state (``not``, several ``allOf`` branches...). The
            ``gemini`` export then sends the full JSON Schema instead.
    """
    return _gemini(parameters, _GeminiWalk(tool, parameters.get("$defs", {})), "")


def _gemini(node: Any, walk: _GeminiWalk, path: str) -> Schema:
    if not isinstance(node, Mapping):
        raise walk.fail(path, "accepts any value; Gemini needs a type, annotate it")
    if "$ref" in node:
        inner = walk.enter(node["$ref"], path)
        merged = {**walk.resolve(node["$ref"], path), **node}
        del merged["$ref"]
        return _gemini(merged, inner, path)
    if "allOf" in node and len(node["allOf"]) == 1:
        merged = {**node["allOf"][0], **node}
        del merged["allOf"]
        return _gemini(merged, walk, path)
    union = _as_union(node)
    if union is not None or "anyOf" in node or "oneOf" in node:
        return _gemini_union(union or node, walk, path)
    out = _gemini_typed(node, walk, path)
    if "type" not in out:
        raise walk.fail(path, "accepts any value; Gemini needs a type, annotate it")
    if out["type"] == "array" and "items" not in out:
        raise walk.fail(path, "a list of any values; Gemini needs its item type")
    return out


def _as_union(node: Mapping[str, Any]) -> Schema | None:
    """A node Gemini's one-valued ``type`` cannot say, as a union: ``type: [A, B]``, or an
    enum mixing strings, numbers and null."""
    outer = {k: node[k] for k in _UNION_OUTER if k in node}
    rest = {k: v for k, v in node.items() if k not in _UNION_OUTER}
    kinds = node.get("type")
    if isinstance(kinds, list):
        return {**outer, "anyOf": [{**rest, "type": kind} for kind in kinds]}
    values = _enum_values(node)
    groups: dict[str, list[Any]] = {}
    for value in values or ():
        groups.setdefault(_json_type(value), []).append(value)
    if len(groups) < 2 or groups.keys() == {"integer", "number"}:
        return None
    return {**outer, "anyOf": [{"enum": group} for group in groups.values()]}


def _enum_values(node: Mapping[str, Any]) -> list[Any] | None:
    return [node["const"]] if "const" in node else node.get("enum")


def _gemini_typed(node: Mapping[str, Any], walk: _GeminiWalk, path: str) -> Schema:
    out: Schema = {} if node.get("type") is None else {"type": node["type"]}
    notes: list[str] = []
    for key, value in node.items():
        _gemini_keyword(out, notes, key, value, walk, path)
    _gemini_enum(out, notes, _enum_values(node))
    if notes:  # what Gemini's Schema cannot say is said in words
        text = "; ".join(notes)
        description = out.get("description")
        out["description"] = (
            f"{description} ({text})" if description else text[0].upper() + text[1:]
        )
    return out


def _gemini_keyword(
    out: Schema, notes: list[str], key: str, value: Any, walk: _GeminiWalk, path: str
) -> None:
    if key in _GEMINI_KEEP:
        out[key] = copy_json(value)
    elif key == "properties":
        out[key] = {k: _gemini(v, walk, child(path, k)) for k, v in value.items()}
        out.setdefault("type", "object")
    elif key == "items":
        out[key] = _gemini(value, walk, path + "[]")
    elif key == "prefixItems":  # a tuple: any of its item types, at its fixed length
        out["items"] = _gemini({"anyOf": _unique(value)}, walk, path + "[]")
    elif key == "format":
        if value in _GEMINI_FORMATS.get(out.get("type", ""), ()):
            out[key] = value
        else:
            notes.append(f"format: {value}")
    elif key in ("exclusiveMinimum", "exclusiveMaximum"):
        _gemini_exclusive(out, notes, key == "exclusiveMinimum", value)
    elif key in _UNSAYABLE or (key == "allOf" and len(value) > 1):
        raise walk.fail(path, f"Gemini's schema has no {key!r} and no words for it")


def _gemini_exclusive(out: Schema, notes: list[str], lower: bool, bound: Any) -> None:
    # An integer's exclusive bound is an inclusive one, one step in; a number's becomes
    # inclusive (Gemini has no exclusive bounds) and the description says it exactly.
    exact = out.get("type") == "integer" and isinstance(bound, int)
    step = (1 if lower else -1) if exact else 0
    out["minimum" if lower else "maximum"] = bound + step
    if not exact:
        notes.append(f"{'greater' if lower else 'less'} than {bound}")


def _gemini_enum(out: Schema, notes: list[str], values: list[Any] | None) -> None:
    if values is None:
        return
    if None in values:
        values = [v for v in values if v is not None]
        out["nullable"] = True
    if not values:
        return
    if all(isinstance(v, str) for v in values):  # Gemini's enums are lists of strings
        out["enum"] = list(values)
        out.setdefault("type", "string")
        return
    notes.append("one of: " + ", ".join(json.dumps(v, ensure_ascii=False) for v in values))
    kinds = {_json_type(v) for v in values}
    out.setdefault("type", kinds.pop() if len(kinds) == 1 else "number")


def _gemini_union(node: Mapping[str, Any], walk: _GeminiWalk, path: str) -> Schema:
    raw = [*node.get("anyOf", []), *node.get("oneOf", [])]
    branches: list[Schema] = []
    for branch in raw:
        if not _is_null(branch):  # a nested union's branches join this one's
            converted = _gemini(branch, walk, path)
            branches.extend(converted.get("anyOf", [converted]))
    outer = {k: copy_json(node[k]) for k in _UNION_OUTER if k in node}
    if outer.get("default", 0) is None:  # the default of `X | None = None` says nothing more
        del outer["default"]
    if any(_is_null(b) for b in raw):
        outer["nullable"] = True
    if not branches:  # null alone
        return {**NULL, **{k: v for k, v in outer.items() if k != "nullable"}}
    if len(branches) == 1:  # X | None: one schema, nullable
        return {**branches[0], **outer}
    # Gemini 3 wants anyOf alone on its node ("When using any_of, it must be the only
    # field set"), so the annotations go into every branch; a union's default is dropped.
    outer.pop("default", None)
    return {"anyOf": [{**b, **outer} for b in branches]}


def _is_null(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    return schema.get("type") == "null" or _enum_values(schema) == [None]


def _unique(schemas: Iterable[Any]) -> list[Any]:
    seen: list[Any] = []
    for schema in schemas:
        if schema not in seen:
            seen.append(schema)
    return seen


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return "number" if isinstance(value, float) else "string"

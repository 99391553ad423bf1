"""Provider exports: pure functions from a tool's clean JSON Schema to provider dicts.

Nothing here knows about the registry or the ``Tool`` class: the core hands over plain
data (name, description, the ``parameters`` and ``returns`` schemas, tags) and gets a
fresh dict back, which it caches per tool, format and strictness. Three transforms do
the work, each a pure function that builds new dicts while it walks:

* `to_strict_schema` — OpenAI's strict subset (every object closed, every
  property required, defaulted ones nullable); applied to every format when
  ``strict=True``.
* `to_gemini_schema` — the OpenAPI-3.0 subset Gemini's ``FunctionDeclaration``
  takes (``nullable`` instead of null unions, ``$ref`` inlined, string enums).
* `to_mcp_output_schema` — an MCP ``outputSchema``, wrapped as fastmcp wraps
  non-object results.

What a provider cannot express faithfully raises
`ToolDefinitionError` naming the tool and the parameter path
(``address.zip``, ``items[]``, ``$defs.Node.children``). docs/exports.md lists every
rule and every difference from ``openai.pydantic_function_tool``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tooldeck._jsonschema import copy_json as _copy
from tooldeck.errors import ToolDefinitionError

__all__ = [
    "FORMATS",
    "export_tool",
    "to_gemini_schema",
    "to_mcp_output_schema",
    "to_strict_schema",
]

FORMATS: tuple[str, ...] = ("openai", "openai-responses", "anthropic", "gemini", "mcp")

Schema = dict[str, Any]

_NULL: Schema = {"type": "null"}  # never handed out: copied wherever it is used
_ANNOTATIONS = ("title", "description")

# --- shared helpers -------------------------------------------------------------------


def _copy_schema(schema: Mapping[str, Any]) -> Schema:
    return {k: _copy(v) for k, v in schema.items()}


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@dataclass(frozen=True)
class _Walk:
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


def _is_any(node: Mapping[str, Any]) -> bool:
    """True for a schema that accepts every value: no keyword but annotations."""
    return not node.keys() - {"title", "description", "default", "examples"}


def _is_object(node: Mapping[str, Any]) -> bool:
    return node.get("type") == "object" or "properties" in node or "additionalProperties" in node


def _admits_null(node: Mapping[str, Any]) -> bool:
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in node:
        return node["const"] is None
    if None in node.get("enum", ()):
        return True
    branches = node.get("anyOf", []) + node.get("oneOf", [])
    return any(isinstance(b, Mapping) and _admits_null(b) for b in branches)


# --- OpenAI strict mode -----------------------------------------------------------------

# Keywords inside OpenAI's strict subset, kept as they are (structured-outputs guide,
# "Supported schemas"; string/number/array constraints since May 2025).
_STRICT_KEEP = frozenset(
    {
        "type", "enum", "const", "title", "description", "$ref", "pattern",
        "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip
# Dropped without changing what the tool accepts: annotations, `default` (strict mode
# rejects it; null stands for the default instead) and `uniqueItems` (a `set` parameter
# validates a list with duplicates too).
_STRICT_DROP = frozenset(
    {
        "default", "uniqueItems", "examples", "deprecated", "readOnly", "writeOnly",
        "$comment", "$schema", "$id", "discriminator", "contentEncoding", "contentMediaType",
    }
)  # fmt: skip
# The string formats strict mode knows; JSON Schema 2020-12 makes `format` an annotation,
# so dropping any other one changes nothing the schema asserts.
_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_NO_STRICT_FORM = {
    "prefixItems": "a fixed-length tuple has no strict-mode form; use a list or a model",
    "not": "'not' is outside OpenAI's strict subset",
    "patternProperties": "an object with patternProperties is free-form",
    "propertyNames": "an object with propertyNames is free-form",
}


def to_strict_schema(parameters: Mapping[str, Any], *, tool: str) -> Schema:
    """OpenAI's strict form of a ``parameters`` schema, built anew (the input is untouched).

    Every object is closed (``additionalProperties: false``) and lists every property as
    required; a property that had a default or was not required becomes nullable (null
    stands for the default) and loses its ``default``; a disjoint ``oneOf`` becomes
    ``anyOf``; a ``$ref`` with sibling keywords is inlined; annotations, ``uniqueItems``
    and formats strict mode does not know are dropped. This holds at every level:
    properties, array items, union branches and ``$defs``.

    Raises:
        ToolDefinitionError: For what strict mode cannot express faithfully: a free-form
            object (``dict[str, X]``, an object without properties), a value of any type
            (an unannotated or ``Any`` parameter, a list without an item type), a
            fixed-length tuple, ``allOf`` with several branches, ``not``, a ``oneOf``
            whose branches may overlap, or another keyword outside OpenAI's strict subset.
    """
    walk = _Walk(tool, parameters.get("$defs", {}))
    if not _is_object(parameters):
        raise walk.fail("", "the parameters schema must be an object")
    return _strict(parameters, walk, "")


def _strict(node: Any, walk: _Walk, path: str) -> Schema:
    if not isinstance(node, Mapping) or not node.keys() - _ANNOTATIONS - _STRICT_DROP:
        raise walk.fail(path, "accepts any value, which strict mode cannot express; annotate it")
    if "$ref" in node and len(node) > 1:  # strict mode takes a bare $ref only
        merged = {**walk.resolve(node["$ref"], path), **node}
        del merged["$ref"]
        return _strict(merged, walk, path)
    if "allOf" in node:
        return _strict(_merge_all_of(node, walk, path), walk, path)
    if "oneOf" in node:
        _check_one_of(node, walk, path)
    out: Schema = {}
    for key, value in node.items():
        _strict_keyword(out, key, value, walk, path)
    if _is_object(node):
        _close_object(out, node, walk, path)
    elif node.get("type") == "array" and "items" not in node:
        raise walk.fail(path, "a list of any values cannot be strict; give its item type")
    return out


def _strict_keyword(out: Schema, key: str, value: Any, walk: _Walk, path: str) -> None:
    if key in _STRICT_KEEP:
        out[key] = _copy(value)
    elif key == "format":
        if value in _STRICT_FORMATS:
            out[key] = value
    elif key == "items":
        out[key] = _strict(value, walk, path + "[]")
    elif key in ("anyOf", "oneOf"):  # oneOf → anyOf once _check_one_of found them disjoint
        out.setdefault("anyOf", []).extend(_strict(b, walk, path) for b in value)
    elif key == "$defs":
        out[key] = {k: _strict(v, walk, f"$defs.{k}") for k, v in value.items()}
    elif key in _NO_STRICT_FORM:
        raise walk.fail(path, _NO_STRICT_FORM[key])
    elif key not in _STRICT_DROP and key not in ("properties", "required", "additionalProperties"):
        raise walk.fail(path, f"keyword {key!r} is outside OpenAI's strict subset")


def _check_one_of(node: Mapping[str, Any], walk: _Walk, path: str) -> None:
    """``oneOf`` may become ``anyOf`` only where no value matches two branches: a
    discriminated union (Pydantic's only source of ``oneOf``), or one type per branch."""
    if "discriminator" in node:
        return
    kinds = [b.get("type") if isinstance(b, Mapping) else None for b in node["oneOf"]]
    distinct = all(isinstance(k, str) for k in kinds) and len(set(kinds)) == len(kinds)
    if not distinct or {"integer", "number"} <= set(kinds):
        raise walk.fail(
            path, "'oneOf' whose branches may overlap has no strict form; use a discriminated union"
        )


def _merge_all_of(node: Mapping[str, Any], walk: _Walk, path: str) -> Schema:
    branches = node["allOf"]
    if len(branches) != 1:
        raise walk.fail(path, "'allOf' with several branches is outside OpenAI's strict subset")
    merged = {**branches[0], **node}
    del merged["allOf"]
    return merged


def _close_object(out: Schema, node: Mapping[str, Any], walk: _Walk, path: str) -> None:
    extra = node.get("additionalProperties", False)
    if "properties" not in node or extra is not False:
        raise walk.fail(
            path, "a free-form object (a dict) cannot be strict; use a model or a list of pairs"
        )
    required = node.get("required", ())
    properties: Schema = {}
    for name, schema in node["properties"].items():
        prop = _strict(schema, walk, _child(path, name))
        optional = name not in required or "default" in schema
        properties[name] = _nullable(prop) if optional else prop
    out["properties"] = properties
    out["required"] = list(properties)
    out["additionalProperties"] = False


def _nullable(schema: Schema) -> Schema:
    """``schema`` or null: as Pydantic writes ``X | None`` (annotations outside the union)."""
    if _admits_null(schema):
        return schema
    if "anyOf" in schema and schema.keys() <= {"anyOf", *_ANNOTATIONS}:
        return {**schema, "anyOf": [*schema["anyOf"], dict(_NULL)]}
    inner = {k: v for k, v in schema.items() if k not in _ANNOTATIONS}
    outer = {k: schema[k] for k in _ANNOTATIONS if k in schema}
    return {"anyOf": [inner, dict(_NULL)], **outer}


# --- Gemini -----------------------------------------------------------------------------

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
# Gemini rejects other `format` values with a 400 ("only 'enum' and 'date-time' are
# supported for STRING type"); the dropped format is kept as a note in the description.
_GEMINI_FORMATS = {
    "string": {"enum", "date-time"},
    "number": {"float", "double"},
    "integer": {"int32", "int64"},
}


@dataclass(frozen=True)
class _GeminiWalk(_Walk):
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
        ToolDefinitionError: For a recursive model (it cannot be inlined) and for a value
            of any type (Gemini's ``Schema`` needs a type).
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
        out[key] = _copy(value)
    elif key == "properties":
        out[key] = {k: _gemini(v, walk, _child(path, k)) for k, v in value.items()}
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
    outer = {k: _copy(node[k]) for k in _UNION_OUTER if k in node}
    if outer.get("default", 0) is None:  # the default of `X | None = None` says nothing more
        del outer["default"]
    if any(_is_null(b) for b in raw):
        outer["nullable"] = True
    if not branches:  # null alone
        return {**_NULL, **{k: v for k, v in outer.items() if k != "nullable"}}
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


# --- MCP --------------------------------------------------------------------------------


def to_mcp_output_schema(returns: Mapping[str, Any] | None) -> Schema | None:
    """An MCP ``outputSchema`` for a return schema, as fastmcp 4 computes it.

    An object schema is used as is (a root ``$ref`` is inlined, ``$defs`` kept); any
    other is wrapped as ``{"result": <schema>}`` and marked ``x-fastmcp-wrap-result``,
    so fastmcp clients unwrap it. ``None``, ``Any`` (``{}``) and ``None``-returning
    tools (``{"type": "null"}``) have no output schema.
    """
    if returns is None or returns.get("type") == "null" or _is_any(returns):
        return None
    defs = returns.get("$defs")
    root = dict(returns)
    ref = root.get("$ref")
    if isinstance(ref, str) and isinstance(defs, Mapping):
        target = defs.get(ref.removeprefix("#/$defs/"))
        if isinstance(target, Mapping) and _is_object(target):
            root = {**target, **{k: v for k, v in root.items() if k != "$ref"}}
    if _is_object(root):
        return _copy_schema(root)
    inner = _copy_schema({k: v for k, v in returns.items() if k != "$defs"})
    wrapped: Schema = {
        "type": "object",
        "properties": {"result": inner},
        "required": ["result"],
        "x-fastmcp-wrap-result": True,
    }
    if defs:
        wrapped["$defs"] = _copy_schema(defs)
    return wrapped


def _mcp_meta(tags: Sequence[str]) -> Schema:
    # fastmcp 4 writes and reads `_meta.fastmcp.tags` (sorted); fastmcp 2 used
    # `_meta._fastmcp.tags`, which fastmcp 4 still reads as a fallback. Both are written.
    ordered = sorted(set(tags))
    return {"fastmcp": {"tags": ordered}, "_fastmcp": {"tags": list(ordered)}}


# --- formats ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    name: str
    description: str
    parameters: Mapping[str, Any]
    returns: Mapping[str, Any] | None
    tags: Sequence[str]
    strict: bool
    annotations: Mapping[str, Any] | None = None

    def input_schema(self) -> Schema:
        if self.strict:
            return to_strict_schema(self.parameters, tool=self.name)
        return _copy_schema(self.parameters)


def _openai(spec: _Spec) -> Schema:
    function: Schema = {
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.input_schema(),
    }
    if spec.strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def _openai_responses(spec: _Spec) -> Schema:
    # The Responses API treats a missing `strict` as true, so it is always written.
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.input_schema(),
        "strict": spec.strict,
    }


def _anthropic(spec: _Spec) -> Schema:
    # Anthropic's own `strict` flag is not set: its strict tool use has a narrower
    # keyword subset (no numeric or length bounds) than OpenAI's.
    return {"name": spec.name, "description": spec.description, "input_schema": spec.input_schema()}


def _gemini_declaration(spec: _Spec) -> Schema:
    source = to_strict_schema(spec.parameters, tool=spec.name) if spec.strict else spec.parameters
    declaration: Schema = {"name": spec.name, "description": spec.description}
    # A declaration without parameters omits them: Gemini rejects an OBJECT with empty
    # `properties` ("should be non-empty for OBJECT type").
    if source.get("properties"):
        declaration["parameters"] = to_gemini_schema(source, tool=spec.name)
    return declaration


def _mcp(spec: _Spec) -> Schema:
    tool: Schema = {
        "name": spec.name,
        "description": spec.description,
        "inputSchema": spec.input_schema(),
    }
    output = to_mcp_output_schema(spec.returns)
    if output is not None:
        tool["outputSchema"] = output
    if spec.annotations:
        tool["annotations"] = dict(spec.annotations)
    tool["_meta"] = _mcp_meta(spec.tags)
    return tool


_BUILDERS: dict[str, Callable[[_Spec], Schema]] = {
    "openai": _openai,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini_declaration,
    "mcp": _mcp,
}


def export_tool(
    fmt: str,
    *,
    name: str,
    description: str,
    parameters: Mapping[str, Any],
    returns: Mapping[str, Any] | None,
    tags: Sequence[str],
    strict: bool = False,
    annotations: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One tool in one provider format. Never mutates its inputs; returns fresh dicts.

    Args:
        fmt: One of `FORMATS`.
        name: The tool's name.
        description: The tool's description.
        parameters: The clean ``parameters`` JSON Schema (an object).
        returns: The clean JSON Schema of the return value, or ``None``.
        tags: The tool's tags (MCP carries them in ``_meta``).
        strict: Apply OpenAI's strict transform (`to_strict_schema`).
        annotations: MCP tool annotations (``readOnlyHint``...), written in the
            ``mcp`` format only.

    Raises:
        ValueError: For an unknown ``fmt``.
        ToolDefinitionError: For a schema the format cannot express.
    """
    builder = _BUILDERS.get(fmt)
    if builder is None:
        known = ", ".join(repr(f) for f in FORMATS)
        raise ValueError(f"Unknown export format {fmt!r}; expected one of {known}")
    return builder(_Spec(name, description, parameters, returns, tags, strict, annotations))

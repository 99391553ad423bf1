"""OpenAI's strict mode: a tool's ``parameters`` schema in the strict subset.

Every object closed, every property required, the defaulted ones nullable (``null``
stands for the default) — at every level. What strict mode cannot say faithfully
raises `ToolDefinitionError` naming the tool and the parameter path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._jsonschema import copy_json
from ._schema_walk import ANNOTATIONS, NULL, Schema, Walk, admits_null, child, is_object

__all__ = ["to_strict_schema"]

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
# The string formats strict mode knows.
_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
# Formats a tool's validation does not enforce beyond "a string" (bytes, SecretStr, Path
# take any text): dropping them changes nothing. Any other format (a URL, JSON text, an IP
# network...) is enforced, so a schema without it would admit what the tool refuses.
_FREE_FORMATS = frozenset({"binary", "password", "path"})
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
    and the formats that assert nothing (``binary``, ``password``, ``path``) are
    dropped. This holds at every level:
    properties, array items, union branches and ``$defs``.

    Raises:
        ToolDefinitionError: For what strict mode cannot express faithfully: a free-form
            object (``dict[str, X]``, an object without properties), a value of any type
            (an unannotated or ``Any`` parameter, a list without an item type), a
            fixed-length tuple, ``allOf`` with several branches, ``not``, a ``oneOf``
            whose branches may overlap, a ``format`` strict mode does not know that the
            tool enforces (``uri``...), or another keyword outside OpenAI's strict subset.
    """
    walk = Walk(tool, parameters.get("$defs", {}))
    if not is_object(parameters):
        raise walk.fail("", "the parameters schema must be an object")
    return _strict(parameters, walk, "")


def _strict(node: Any, walk: Walk, path: str) -> Schema:
    if not isinstance(node, Mapping) or not node.keys() - ANNOTATIONS - _STRICT_DROP:
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
    if is_object(node):
        _close_object(out, node, walk, path)
    elif node.get("type") == "array" and "items" not in node:
        raise walk.fail(path, "a list of any values cannot be strict; give its item type")
    return out


def _strict_keyword(out: Schema, key: str, value: Any, walk: Walk, path: str) -> None:
    if key in _STRICT_KEEP:
        out[key] = copy_json(value)
    elif key == "format":
        if value in _STRICT_FORMATS:
            out[key] = value
        elif value not in _FREE_FORMATS:
            raise walk.fail(
                path,
                f"format {value!r} has no strict-mode form (strict mode knows "
                f"{', '.join(sorted(_STRICT_FORMATS))}); take a str and check it in the tool, "
                "or export without strict",
            )
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


def _check_one_of(node: Mapping[str, Any], walk: Walk, path: str) -> None:
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


def _merge_all_of(node: Mapping[str, Any], walk: Walk, path: str) -> Schema:
    branches = node["allOf"]
    if len(branches) != 1:
        raise walk.fail(path, "'allOf' with several branches is outside OpenAI's strict subset")
    merged = {**branches[0], **node}
    del merged["allOf"]
    return merged


def _close_object(out: Schema, node: Mapping[str, Any], walk: Walk, path: str) -> None:
    extra = node.get("additionalProperties", False)
    if "properties" not in node or extra is not False:
        raise walk.fail(
            path, "a free-form object (a dict) cannot be strict; use a model or a list of pairs"
        )
    required = node.get("required", ())
    properties: Schema = {}
    for name, schema in node["properties"].items():
        prop = _strict(schema, walk, child(path, name))
        optional = name not in required or "default" in schema
        properties[name] = _nullable(prop) if optional else prop
    out["properties"] = properties
    out["required"] = list(properties)
    out["additionalProperties"] = False


def _nullable(schema: Schema) -> Schema:
    """``schema`` or null: as Pydantic writes ``X | None`` (annotations outside the union)."""
    if admits_null(schema):
        return schema
    if "anyOf" in schema and schema.keys() <= {"anyOf", *ANNOTATIONS}:
        return {**schema, "anyOf": [*schema["anyOf"], dict(NULL)]}
    inner = {k: v for k, v in schema.items() if k not in ANNOTATIONS}
    outer = {k: schema[k] for k in ANNOTATIONS if k in schema}
    return {"anyOf": [inner, dict(NULL)], **outer}

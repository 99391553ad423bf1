"""Hypothesis strategies for the values a JSON Schema in OpenAI's strict subset admits.

Strict schemas are a small, closed subset (the keywords `tooldeck._strict` keeps), so
every keyword that subset allows is honoured here and anything else fails loudly:
a generator that silently ignored a keyword would generate values the schema refuses.
(hypothesis-jsonschema would do this job, but its last release does not run on current
Hypothesis.)
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

_KNOWN = frozenset(
    {
        "type", "enum", "const", "title", "description", "$ref", "$defs", "pattern",
        "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "format", "items",
        "anyOf", "properties", "required", "additionalProperties",
    }
)  # fmt: skip

_FORMATS: dict[str, st.SearchStrategy[str]] = {
    "date-time": st.datetimes(timezones=st.just(dt.timezone.utc)).map(dt.datetime.isoformat),
    "date": st.dates().map(dt.date.isoformat),
    "time": st.times().map(dt.time.isoformat),
    "uuid": st.uuids().map(str),
    "email": st.emails(),
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "duration": st.integers(0, 10**6).map(lambda s: f"PT{s}S"),
}


def from_strict_schema(schema: Mapping[str, Any], max_depth: int = 3) -> st.SearchStrategy[Any]:
    """Values ``schema`` (a strict-mode schema, ``$defs`` at its root) admits."""
    return _values(schema, schema.get("$defs", {}), max_depth)


def _values(node: Mapping[str, Any], defs: Mapping[str, Any], depth: int) -> st.SearchStrategy[Any]:
    unknown = node.keys() - _KNOWN
    if unknown:
        raise ValueError(f"keywords outside the strict subset: {sorted(unknown)}")
    if "$ref" in node:
        if depth <= 0:  # deep enough: recursion stops (an empty list, a null branch)
            return st.nothing()
        target = defs[node["$ref"].removeprefix("#/$defs/")]
        return st.deferred(lambda: _values(target, defs, depth - 1))
    if "anyOf" in node:
        return st.one_of([_values(b, defs, depth) for b in node["anyOf"]])
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return st.one_of([_typed(k, node, defs, depth) for k in kinds])


def _typed(
    kind: Any, node: Mapping[str, Any], defs: Mapping[str, Any], depth: int
) -> st.SearchStrategy[Any]:
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return _integers(node)
    if kind == "number":
        return _numbers(node)
    if kind == "string":
        return _strings(node)
    if kind == "array":
        items = _values(node["items"], defs, depth)
        if items.is_empty:  # recursion stopped at the items: only the empty list
            return st.just([]) if node.get("minItems", 0) == 0 else st.nothing()
        return st.lists(items, min_size=node.get("minItems", 0), max_size=node.get("maxItems", 4))
    if kind == "object":
        fields = {k: _values(v, defs, depth) for k, v in node.get("properties", {}).items()}
        return st.fixed_dictionaries(fields)  # strict: every property is required
    raise ValueError(f"no values for type {kind!r}")


def _integers(node: Mapping[str, Any]) -> st.SearchStrategy[int]:
    low = node.get("minimum", -(10**6))
    high = node.get("maximum", 10**6)
    if "exclusiveMinimum" in node:
        low = math.floor(node["exclusiveMinimum"]) + 1
    if "exclusiveMaximum" in node:
        high = math.ceil(node["exclusiveMaximum"]) - 1
    values = st.integers(math.ceil(low), math.floor(high))
    step = node.get("multipleOf")
    return values.filter(lambda v: v % step == 0) if step else values


def _numbers(node: Mapping[str, Any]) -> st.SearchStrategy[float]:
    return st.floats(
        min_value=node.get("minimum", node.get("exclusiveMinimum", -1e9)),
        max_value=node.get("maximum", node.get("exclusiveMaximum", 1e9)),
        exclude_min="exclusiveMinimum" in node,
        exclude_max="exclusiveMaximum" in node,
        allow_nan=False,
        allow_infinity=False,
    )


def _strings(node: Mapping[str, Any]) -> st.SearchStrategy[str]:
    if "format" in node:
        return _FORMATS[node["format"]]
    low, high = node.get("minLength", 0), node.get("maxLength", 20)
    if "pattern" in node:
        pattern = st.from_regex(node["pattern"], fullmatch=True)
        return pattern.filter(lambda s: low <= len(s) <= high)
    return st.text(min_size=low, max_size=high)

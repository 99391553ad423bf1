"""Strict mode keeps its promise at every level (issue 11, item 3).

For every tool of the export corpus that has a strict form: every argument object its
strict schema admits is accepted by the call, and a ``null`` sent for a defaulted field
(strict mode makes those nullable) means exactly what leaving the field out means —
the default — at any depth.
"""

from __future__ import annotations

import copy
import functools
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "integration"))

from export_corpus import CORPUS, STRICT_REFUSED
from schema_strategies import from_strict_schema

from tooldeck import Tool

STRICT_TOOLS = [t for t in CORPUS if t.name not in STRICT_REFUSED]


def _strict_parameters(tool: Tool[..., Any]) -> dict[str, Any]:
    return copy.deepcopy(tool.export("openai", strict=True)["function"]["parameters"])


@functools.cache
def _strict_validator(name: str) -> jsonschema.protocols.Validator:
    """A validator of the strict schema of the corpus tool ``name``: the schema checked
    against its meta-schema once (most of a jsonschema.validate call's time), not once
    per example."""
    [tool] = [t for t in STRICT_TOOLS if t.name == name]
    strict = _strict_parameters(tool)
    validator_class = jsonschema.validators.validator_for(strict)
    validator_class.check_schema(strict)
    return validator_class(strict)


def _admits_null(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    return None in schema.get("enum", ()) or any(_admits_null(b) for b in schema.get("anyOf", ()))


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = {
            **defs[schema["$ref"].rsplit("/", 1)[-1]],
            **{k: v for k, v in schema.items() if k != "$ref"},
        }
    return schema


def _object_branch(value: dict[str, Any], schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """The branch of a union an object value belongs to (all its keys are properties)."""
    for branch in schema.get("anyOf", []):
        branch = _resolve(branch, defs)
        props = branch.get("properties")
        if props is not None and value.keys() <= props.keys():
            consts = [(k, p["const"]) for k, p in props.items() if "const" in p and k in value]
            if all(value[k] == c for k, c in consts):
                return branch
    return None


def omit_defaulted_nulls(value: Any, schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """``value`` with every ``null`` that stands for a default left out instead.

    Walks the tool's own (non-strict) schema: a field with a ``default`` whose schema
    does not admit ``null`` is one whose ``null`` strict mode introduced.
    """
    schema = _resolve(schema, defs)
    if isinstance(value, list) and "items" in schema:
        return [omit_defaulted_nulls(v, schema["items"], defs) for v in value]
    if not isinstance(value, dict):
        return value
    if "properties" not in schema:
        branch = _object_branch(value, schema, defs)
        return value if branch is None else omit_defaulted_nulls(value, branch, defs)
    out = {}
    for key, item in value.items():
        prop = _resolve(schema["properties"].get(key, {}), defs)
        if item is None and "default" in prop and not _admits_null(prop):
            continue
        out[key] = omit_defaulted_nulls(item, prop, defs)
    return out


@pytest.mark.parametrize("tool", STRICT_TOOLS, ids=lambda t: t.name)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_the_strict_schema_admits_the_call_accepts(tool: Tool[..., Any], data: Any) -> None:
    strict = _strict_parameters(tool)
    arguments = data.draw(from_strict_schema(strict))
    _strict_validator(tool.name).validate(arguments)  # the generator is honest
    validated = tool.spec.validate_python(copy.deepcopy(arguments))  # never refused
    original = tool.spec.parameters
    omitted = omit_defaulted_nulls(arguments, original, original.get("$defs", {}))
    assert validated == tool.spec.validate_python(omitted)  # null is the default
    result = tool.run_sync(json.dumps(arguments))  # as a model sends them: JSON text
    assert result.success, result.error


def test_every_corpus_tool_with_a_strict_form_is_checked() -> None:
    assert len(STRICT_TOOLS) >= 20
    for tool in STRICT_TOOLS:
        from_strict_schema(_strict_parameters(tool))  # raises on an unknown keyword

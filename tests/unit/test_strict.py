"""OpenAI strict mode: snapshots, what cannot be made strict, and properties for every
input (the differential test against the OpenAI SDK is in
tests/integration/test_export_sdk_types.py)."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck.errors import ToolDefinitionError
from tooldeck.exporters import to_strict_schema

NULL = {"type": "null"}


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    return to_strict_schema(schema, tool="t")


# --- snapshots ---------------------------------------------------------------------------


def test_weather_parameters_become_strict() -> None:
    params = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "城市"},
            "include_details": {"type": "boolean", "description": "詳細", "default": False},
        },
        "required": ["city"],
    }
    assert strict(params) == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "城市"},
            "include_details": {"anyOf": [{"type": "boolean"}, NULL], "description": "詳細"},
        },
        "required": ["city", "include_details"],
        "additionalProperties": False,
    }


def test_nested_objects_arrays_and_unions_are_strict_at_every_level() -> None:
    point = {
        "type": "object",
        "properties": {"x": {"type": "number"}, "y": {"type": "number", "default": 0}},
        "required": ["x"],
    }
    params = {
        "type": "object",
        "properties": {
            "points": {"type": "array", "items": point},
            "shape": {"anyOf": [point, {"type": "string"}]},
        },
        "required": ["points", "shape"],
    }
    closed_point = {
        "type": "object",
        "properties": {"x": {"type": "number"}, "y": {"anyOf": [{"type": "number"}, NULL]}},
        "required": ["x", "y"],
        "additionalProperties": False,
    }
    assert strict(params) == {
        "type": "object",
        "properties": {
            "points": {"type": "array", "items": closed_point},
            "shape": {"anyOf": [closed_point, {"type": "string"}]},
        },
        "required": ["points", "shape"],
        "additionalProperties": False,
    }


def test_optional_parameter_already_nullable_stays_as_is_without_its_default() -> None:
    params = {
        "type": "object",
        "properties": {"n": {"anyOf": [{"type": "integer"}, NULL], "default": None}},
        "required": [],
    }
    assert strict(params)["properties"]["n"] == {"anyOf": [{"type": "integer"}, NULL]}


def test_defaulted_union_gains_a_null_branch() -> None:
    params = {
        "type": "object",
        "properties": {
            "v": {
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "default": 1,
                "description": "d",
            }
        },
    }
    assert strict(params)["properties"]["v"] == {
        "anyOf": [{"type": "integer"}, {"type": "string"}, NULL],
        "description": "d",
    }


def test_defaulted_enum_is_wrapped_not_typed_as_a_list() -> None:
    # `type: ["string", "null"]` next to `enum` would still reject null: wrap instead.
    params = {
        "type": "object",
        "properties": {"unit": {"type": "string", "enum": ["C", "F"], "default": "C"}},
    }
    assert strict(params)["properties"]["unit"] == {
        "anyOf": [{"type": "string", "enum": ["C", "F"]}, NULL]
    }


def test_recursive_defs_are_strict_and_keep_their_refs() -> None:
    params = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node", "description": "the tree"}},
        "required": ["tree"],
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "default": []},
                },
                "required": ["value"],
            }
        },
    }
    node = {
        "type": "object",
        "properties": {
            "value": {"type": "integer"},
            "children": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Node"}}, NULL]},
        },
        "required": ["value", "children"],
        "additionalProperties": False,
    }
    out = strict(params)
    assert out["$defs"] == {"Node": node}
    # A $ref with siblings is inlined one level, as the OpenAI SDK does.
    assert out["properties"]["tree"] == {**node, "description": "the tree"}


def test_translations_that_keep_the_meaning() -> None:
    params = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "blob": {"type": "string", "format": "binary", "minLength": 1},
            "when": {"type": "string", "format": "date-time"},
            "pet": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "cat"}},
                        "required": ["kind"],
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "dog"}},
                        "required": ["kind"],
                    },
                ],
                "discriminator": {"propertyName": "kind"},
            },
            "wrapped": {"allOf": [{"type": "integer", "minimum": 0}], "description": "d"},
        },
        "required": ["tags", "blob", "when", "pet", "wrapped"],
    }
    out = strict(params)["properties"]
    assert out["tags"] == {"type": "array", "items": {"type": "string"}}
    assert out["blob"] == {"type": "string", "minLength": 1}  # bytes take any text
    assert out["when"] == {"type": "string", "format": "date-time"}
    assert [b["properties"]["kind"] for b in out["pet"]["anyOf"]] == [
        {"const": "cat"},
        {"const": "dog"},
    ]
    assert set(out["pet"]) == {"anyOf"}
    assert out["wrapped"] == {"type": "integer", "minimum": 0, "description": "d"}


@pytest.mark.parametrize("fmt", ["uri", "json-string", "ipvanyaddress", "file-path"])
def test_a_format_the_tool_enforces_and_strict_mode_does_not_know_is_refused(fmt: str) -> None:
    """Dropping it would admit values the tool refuses (a URL field taking any text)."""
    params = {
        "type": "object",
        "properties": {"links": {"type": "array", "items": {"type": "string", "format": fmt}}},
        "required": ["links"],
    }
    with pytest.raises(ToolDefinitionError) as caught:
        strict(params)
    assert caught.value.param == "links[]"
    assert f"format {fmt!r} has no strict-mode form" in str(caught.value)


@pytest.mark.parametrize("fmt", ["binary", "password", "path"])
def test_a_format_that_asserts_nothing_more_than_a_string_is_dropped(fmt: str) -> None:
    params = {
        "type": "object",
        "properties": {"x": {"type": "string", "format": fmt}},
        "required": ["x"],
    }
    assert strict(params)["properties"]["x"] == {"type": "string"}


def test_empty_parameter_list() -> None:
    out = strict({"type": "object", "properties": {}, "required": []})
    assert out == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }


# --- what cannot be strict --------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "param", "words"),
    [
        ({"type": "object", "additionalProperties": {"type": "integer"}}, "p", "free-form"),
        ({"type": "object", "additionalProperties": True}, "p", "free-form"),
        ({"type": "object"}, "p", "free-form"),
        ({}, "p", "any value"),
        ({"description": "anything"}, "p", "any value"),
        ({"type": "array", "items": {}}, "p[]", "any value"),
        ({"type": "array"}, "p", "item type"),
        (
            {"type": "array", "prefixItems": [{"type": "integer"}], "minItems": 1},
            "p",
            "tuple",
        ),
        ({"allOf": [{"type": "integer"}, {"minimum": 1}]}, "p", "allOf"),
        ({"oneOf": [{"type": "integer"}, {"minimum": 1}]}, "p", "'oneOf'"),
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, "p", "'oneOf'"),
        ({"type": "integer", "not": {"const": 3}}, "p", "'not'"),
        ({"type": "string", "x-secret": 1}, "p", "'x-secret'"),
        (
            {"type": "object", "properties": {"q": {"type": "object"}}, "required": ["q"]},
            "p.q",
            "free-form",
        ),
    ],
)
def test_unrepresentable_schemas_raise_naming_tool_and_parameter(
    schema: dict[str, Any], param: str, words: str
) -> None:
    params = {"type": "object", "properties": {"p": schema}, "required": ["p"]}
    with pytest.raises(ToolDefinitionError) as info:
        to_strict_schema(params, tool="my_tool")
    assert info.value.tool == "my_tool"
    assert info.value.param == param
    assert words in info.value.reason


def test_error_inside_defs_names_the_definition() -> None:
    params = {
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/N"}},
        "required": ["n"],
        "$defs": {
            "N": {
                "type": "object",
                "properties": {"meta": {"type": "object"}, "next": {"$ref": "#/$defs/N"}},
            }
        },
    }
    with pytest.raises(ToolDefinitionError) as info:
        strict(params)
    assert info.value.param == "$defs.N.meta"


def test_root_must_be_an_object() -> None:
    with pytest.raises(ToolDefinitionError):
        strict({"type": "string"})


# --- properties for every input ---------------------------------------------------------

NAMES = st.text("abcdefgh_", min_size=1, max_size=6)
LEAVES = st.one_of(
    st.just({"type": "string"}),
    st.just({"type": "string", "format": "date"}),
    st.just({"type": "integer", "minimum": 0}),
    st.just({"type": "number"}),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    st.just({"type": "string", "enum": ["a", "b"]}),
    st.just({"const": 3, "type": "integer"}),
    st.just({"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
    st.just({"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}),
)


@st.composite
def objects(draw: st.DrawFn, children: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    props = draw(st.dictionaries(NAMES, children, max_size=4))
    required = [n for n in props if draw(st.booleans())]
    out: dict[str, Any] = {"type": "object", "properties": {}, "required": required}
    for name, schema in props.items():
        extra: dict[str, Any] = {}
        if name not in required:
            extra["default"] = draw(st.sampled_from([None, 0, "x", [], {}]))
        if draw(st.booleans()):
            extra["description"] = f"about {name}"
        out["properties"][name] = {**schema, **extra}
    return out


def discriminated(branches: list[dict[str, Any]]) -> dict[str, Any]:
    """A discriminated union, as Pydantic writes one: disjoint by a `kind` constant."""
    tagged = [
        {
            **b,
            "properties": {**b["properties"], "kind": {"const": f"k{i}", "type": "string"}},
            "required": [*(r for r in b["required"] if r != "kind"), "kind"],
        }
        for i, b in enumerate(branches)
    ]
    return {"oneOf": tagged, "discriminator": {"propertyName": "kind"}}


SCHEMAS = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        objects(children),
        children.map(lambda s: {"type": "array", "items": s}),
        st.lists(children, min_size=2, max_size=3).map(lambda bs: {"anyOf": bs}),
        st.lists(objects(children), min_size=2, max_size=3).map(discriminated),
    ),
    max_leaves=12,
)
ROOTS = objects(SCHEMAS)


def walk(node: Any) -> Any:
    """Every dict in a schema, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def containers(node: Any) -> set[int]:
    found = {id(node)} if isinstance(node, (dict, list)) else set()
    for child in (
        node.values() if isinstance(node, dict) else node if isinstance(node, list) else []
    ):
        found |= containers(child)
    return found


@settings(max_examples=200, deadline=None)
@given(ROOTS)
def test_strict_output_is_closed_required_and_valid(params: dict[str, Any]) -> None:
    before = copy.deepcopy(params)
    out = strict(params)
    assert params == before  # never mutates its input
    assert not containers(out) & containers(params)  # and shares nothing with it
    jsonschema.Draft202012Validator.check_schema(out)
    for node in walk(out):
        assert "default" not in node
        assert "oneOf" not in node
        if "properties" in node:
            assert node["additionalProperties"] is False
            assert node["required"] == list(node["properties"])


@settings(max_examples=200, deadline=None)
@given(ROOTS)
def test_what_was_optional_admits_null_and_what_was_required_is_unchanged(
    params: dict[str, Any],
) -> None:
    out = strict(params)
    for name, before in params["properties"].items():
        after = jsonschema.Draft202012Validator(out["properties"][name])
        if name in params["required"]:  # only made strict, never widened to null
            assert after.is_valid(None) == jsonschema.Draft202012Validator(before).is_valid(None)
        else:  # null stands for the default
            assert after.is_valid(None)

"""Gemini's schema subset: snapshots of each translation, what raises, and properties that
hold for every input (each output accepted by ``google.genai.types.FunctionDeclaration``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from google.genai import types as genai
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck.errors import ToolDefinitionError
from tooldeck.exporters import export_tool, to_gemini_schema

NULL = {"type": "null"}


def gemini(props: dict[str, Any], **root: Any) -> dict[str, Any]:
    """The Gemini form of one-parameter-per-key parameters, checked by the SDK type."""
    params = {"type": "object", "properties": props, "required": list(props), **root}
    out = to_gemini_schema(params, tool="t")
    genai.FunctionDeclaration.model_validate({"name": "t", "description": "", "parameters": out})
    assert out["required"] == list(props)
    return out["properties"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"anyOf": [{"type": "integer"}, NULL], "default": None, "description": "n"},
            {"type": "integer", "nullable": True, "description": "n"},
        ),
        ({"type": ["string", "null"]}, {"type": "string", "nullable": True}),
        (
            {"type": ["string", "integer"], "description": "d"},
            {
                "anyOf": [
                    {"type": "string", "description": "d"},
                    {"type": "integer", "description": "d"},
                ]
            },
        ),
        ({"const": "only", "type": "string"}, {"type": "string", "enum": ["only"]}),
        ({"const": "only"}, {"type": "string", "enum": ["only"]}),
        ({"enum": ["a", "b"], "type": "string"}, {"type": "string", "enum": ["a", "b"]}),
        ({"enum": ["a", None]}, {"type": "string", "enum": ["a"], "nullable": True}),
        ({"enum": [1, 2], "type": "integer"}, {"type": "integer", "description": "One of: 1, 2"}),
        (
            {"const": 3, "type": "integer", "description": "three"},
            {"type": "integer", "description": "three (one of: 3)"},
        ),
        ({"type": "string", "format": "uuid"}, {"type": "string", "description": "Format: uuid"}),
        ({"type": "string", "format": "date-time"}, {"type": "string", "format": "date-time"}),
        ({"type": "integer", "format": "int64"}, {"type": "integer", "format": "int64"}),
        ({"type": "integer", "exclusiveMinimum": 0}, {"type": "integer", "minimum": 1}),
        ({"type": "integer", "exclusiveMaximum": 10}, {"type": "integer", "maximum": 9}),
        (
            {"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 2},
            {
                "type": "number",
                "minimum": 0.5,
                "maximum": 2,
                "description": "Greater than 0.5; less than 2",
            },
        ),
        (
            {"type": "number", "multipleOf": 2, "minimum": 0, "examples": [2]},
            {"type": "number", "minimum": 0},
        ),
        (
            {"type": "array", "items": {"type": "integer"}, "uniqueItems": True, "default": []},
            {"type": "array", "items": {"type": "integer"}, "default": []},
        ),
        (
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
            {
                "type": "array",
                "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (
            {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]},
            {"type": "array", "items": {"type": "number"}},
        ),
        (
            {"type": "object", "additionalProperties": {"type": "integer"}},
            {"type": "object"},
        ),
        (
            {
                "type": "object",
                "properties": {"q": {"type": "string"}},
                "additionalProperties": False,
            },
            {"type": "object", "properties": {"q": {"type": "string"}}},
        ),
        (
            {
                "anyOf": [{"type": "integer"}, {"type": "string"}, NULL],
                "default": 1,
                "description": "u",
            },
            {
                "anyOf": [
                    {"type": "integer", "description": "u", "nullable": True},
                    {"type": "string", "description": "u", "nullable": True},
                ]
            },
        ),
        (
            {"oneOf": [{"type": "integer"}, {"type": "boolean"}], "discriminator": {}},
            {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
        ),
        ({"anyOf": [NULL], "description": "nothing"}, {"type": "null", "description": "nothing"}),
        (
            {"allOf": [{"type": "integer"}], "description": "d"},
            {"type": "integer", "description": "d"},
        ),
    ],
)
def test_translations(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert gemini({"p": schema})["p"] == expected


def test_nested_models_and_enums_are_inlined() -> None:
    address = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "default": "Taipei"},
            "kind": {"$ref": "#/$defs/Kind"},
        },
        "required": ["kind"],
    }
    props = gemini(
        {
            "home": {"$ref": "#/$defs/Address", "description": "where"},
            "all": {"type": "array", "items": address},
        },
        **{"$defs": {"Address": address, "Kind": {"enum": ["house", "flat"], "type": "string"}}},
    )
    inlined = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "default": "Taipei"},
            "kind": {"type": "string", "enum": ["house", "flat"]},
        },
        "required": ["kind"],
    }
    assert props["home"] == {**inlined, "description": "where"}
    assert props["all"] == {"type": "array", "items": inlined}


def test_recursive_model_raises_naming_the_parameter() -> None:
    params = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "required": ["tree"],
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
    }
    with pytest.raises(ToolDefinitionError) as info:
        to_gemini_schema(params, tool="grow")
    assert (info.value.tool, info.value.param) == ("grow", "tree.kids[]")
    assert "recursive" in info.value.reason


@pytest.mark.parametrize(
    ("schema", "param"),
    [
        ({}, "p"),
        ({"description": "anything"}, "p"),
        ({"type": "array", "items": {}}, "p[]"),
        ({"type": "array"}, "p"),
    ],
)
def test_a_value_of_any_type_raises(schema: dict[str, Any], param: str) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        to_gemini_schema({"type": "object", "properties": {"p": schema}}, tool="t")
    assert info.value.param == param
    assert "Gemini needs" in info.value.reason


@pytest.mark.parametrize(
    "schema",
    [
        {"not": {"type": "string"}},
        {"allOf": [{"type": "integer", "minimum": 0}, {"type": "integer", "maximum": 9}]},
        {"type": "array", "items": {"type": "integer"}, "contains": {"const": 1}},
    ],
)
def test_a_keyword_gemini_cannot_state_raises_in_the_transform(schema: dict[str, Any]) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        to_gemini_schema({"type": "object", "properties": {"p": schema}}, tool="t")
    assert info.value.param == "p"


RECURSIVE = {
    "type": "object",
    "properties": {"tree": {"$ref": "#/$defs/Node"}, "note": {}},
    "required": ["tree"],
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
        }
    },
}


@pytest.mark.parametrize(
    "parameters",
    [
        RECURSIVE,
        {"type": "object", "properties": {"anything": {}}},
        {"type": "object", "properties": {"p": {"not": {"type": "null"}}}},
    ],
)
def test_what_the_subset_cannot_say_is_exported_as_the_full_json_schema(
    parameters: dict[str, Any],
) -> None:
    """DESIGN: a valid tool never makes a non-strict Gemini export raise."""
    out = export_tool(
        "gemini", name="t", description="d", parameters=parameters, returns=None, tags=()
    )
    assert out == {"name": "t", "description": "d", "parametersJsonSchema": parameters}
    assert out["parametersJsonSchema"] is not parameters  # a copy: the spec stays untouched
    declaration = genai.FunctionDeclaration.model_validate(out)
    assert declaration.parameters is None
    assert declaration.parameters_json_schema == parameters


def test_a_strict_gemini_export_falls_back_to_the_strict_schema() -> None:
    strict_recursive = {**RECURSIVE, "properties": {"tree": {"$ref": "#/$defs/Node"}}}
    out = export_tool(
        "gemini",
        name="t",
        description="d",
        parameters=strict_recursive,
        returns=None,
        tags=(),
        strict=True,
    )
    fallback = out["parametersJsonSchema"]
    assert fallback["additionalProperties"] is False
    assert fallback["$defs"]["Node"]["required"] == ["kids"]


def test_declaration_without_parameters_omits_them() -> None:
    out = export_tool(
        "gemini",
        name="now",
        description="The time.",
        parameters={"type": "object", "properties": {}, "required": []},
        returns=None,
        tags=[],
    )
    assert out == {"name": "now", "description": "The time."}
    genai.FunctionDeclaration.model_validate(out)


def test_strict_gemini_declaration() -> None:
    params = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "default": 1, "minimum": 1},
        },
        "required": ["city"],
    }
    out = export_tool(
        "gemini", name="f", description="d", parameters=params, returns=None, tags=[], strict=True
    )
    genai.FunctionDeclaration.model_validate(out)
    assert out["parameters"] == {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "minimum": 1, "nullable": True},
        },
        "required": ["city", "days"],
    }  # no additionalProperties: the Gemini API rejects the keyword ("Unknown name")


# --- properties for every input ---------------------------------------------------------

NAMES = st.text("abcdefgh_", min_size=1, max_size=6)
LEAVES = st.one_of(
    st.just({"type": "string"}),
    st.just({"type": "string", "format": "email"}),
    st.just({"type": "integer", "exclusiveMinimum": 0}),
    st.just({"type": "number", "multipleOf": 0.5}),
    st.just({"type": "boolean", "default": True}),
    st.just({"type": ["string", "null"]}),
    st.just({"enum": ["a", "b", None]}),
    st.just({"enum": [1, 2.5]}),
    st.just({"enum": ["a", 1, None], "description": "mixed"}),
    st.just({"const": "x"}),
    st.just({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}),
    st.just({"$ref": "#/$defs/Kind"}),
)
SCHEMAS = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        st.dictionaries(NAMES, children, max_size=3).map(
            lambda props: {"type": "object", "properties": props, "required": list(props)[:1]}
        ),
        children.map(lambda s: {"type": "array", "items": s, "description": "many"}),
        st.lists(children, min_size=1, max_size=3).map(lambda bs: {"anyOf": [*bs, NULL]}),
        st.lists(children, min_size=2, max_size=3).map(lambda bs: {"oneOf": bs, "title": "T"}),
    ),
    max_leaves=10,
)
ROOTS = st.dictionaries(NAMES, SCHEMAS, min_size=1, max_size=4).map(
    lambda props: {
        "type": "object",
        "properties": props,
        "required": list(props),
        "$defs": {"Kind": {"enum": ["k1", "k2"], "type": "string"}},
    }
)
GEMINI_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}


def nodes(schema: dict[str, Any]) -> Any:
    """Every schema in a Gemini schema, depth first."""
    yield schema
    children = [*schema.get("anyOf", []), *schema.get("properties", {}).values()]
    for child in [schema["items"], *children] if "items" in schema else children:
        yield from nodes(child)


@settings(max_examples=200, deadline=None)
@given(ROOTS)
def test_every_output_is_a_gemini_schema(params: dict[str, Any]) -> None:
    before = copy.deepcopy(params)
    out = to_gemini_schema(params, tool="t")
    assert params == before
    genai.FunctionDeclaration.model_validate({"name": "t", "description": "", "parameters": out})
    for node in nodes(out):
        assert (
            not {"$ref", "$defs", "const", "oneOf", "prefixItems", "additionalProperties"}
            & node.keys()
        )
        if "anyOf" in node:
            assert set(node) == {"anyOf"}  # Gemini 3: anyOf is the only field on its node
        else:
            assert node["type"] in GEMINI_TYPES
        assert all(isinstance(v, str) for v in node.get("enum", []))

"""Every export of the corpus, checked against the providers' own SDK types.

OpenAI Chat Completions and Responses, Anthropic, Gemini and MCP each ship a type for a
tool definition; each export of each corpus tool, strict or not, must validate against
it, and every ``parameters`` schema must be valid JSON Schema (2020-12 metaschema).
Strict exports are also checked against OpenAI's documented strict subset, and
differentially against the OpenAI SDK's own ``pydantic_function_tool``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import enum
import uuid
from typing import Annotated, Any, Literal

import anthropic.types
import jsonschema
import mcp.types
import openai
import pytest
from export_corpus import CORPUS, GEMINI_JSON_SCHEMA, STRICT_REFUSED
from google.genai import types as genai
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import AnyUrl, BaseModel, Field, TypeAdapter, create_model

from tooldeck import Tool
from tooldeck._jsonschema import clean_schema
from tooldeck.errors import ToolDefinitionError
from tooldeck.exporters import FORMATS, to_strict_schema

NULL = {"type": "null"}
OPENAI_CHAT = TypeAdapter(ChatCompletionToolParam)
OPENAI_RESPONSES = TypeAdapter(FunctionToolParam)
ANTHROPIC = TypeAdapter(anthropic.types.ToolParam)

TOOLS = list(CORPUS)
IDS = [t.name for t in TOOLS]


def test_the_corpus_is_large_enough() -> None:
    assert len(TOOLS) >= 25


def parameters_of(fmt: str, exported: dict[str, Any]) -> dict[str, Any] | None:
    if fmt == "openai":
        return exported["function"]["parameters"]  # type: ignore[no-any-return]
    key = {"openai-responses": "parameters", "anthropic": "input_schema", "mcp": "inputSchema"}
    if fmt == "gemini" and "parametersJsonSchema" in exported:
        return exported["parametersJsonSchema"]  # type: ignore[no-any-return]
    return exported.get(key.get(fmt, "parameters"))


def check_sdk_type(fmt: str, exported: dict[str, Any]) -> None:
    if fmt == "openai":
        OPENAI_CHAT.validate_python(exported)
        assert set(exported) == {"type", "function"}
    elif fmt == "openai-responses":
        OPENAI_RESPONSES.validate_python(exported)
    elif fmt == "anthropic":
        ANTHROPIC.validate_python(exported)
        assert set(exported) == {"name", "description", "input_schema"}
    elif fmt == "gemini":
        genai.FunctionDeclaration.model_validate(exported)  # extra="forbid": no stray keys
    else:
        declared = mcp.types.Tool.model_validate(exported)
        assert declared.input_schema == exported["inputSchema"]


@pytest.mark.parametrize("strict", [False, True], ids=["loose", "strict"])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_export_validates_against_the_sdk_type(tool: Tool, fmt: str, strict: bool) -> None:
    refused = STRICT_REFUSED if strict else {}
    if tool.name in refused:
        with pytest.raises(ToolDefinitionError) as info:
            tool.export(fmt, strict=strict)
        assert info.value.tool == tool.name
        assert (info.value.param or "").startswith(refused[tool.name])
        return
    exported = tool.export(fmt, strict=strict)
    check_sdk_type(fmt, exported)
    if fmt == "gemini":  # the subset where it says the tool faithfully, else the full schema
        subset = tool.name not in GEMINI_JSON_SCHEMA
        assert ("parametersJsonSchema" in exported) is not subset, exported
    params = parameters_of(fmt, exported)
    if params is not None:
        jsonschema.Draft202012Validator.check_schema(params)
    if strict and fmt != "gemini":
        assert params is not None
        assert_openai_strict(params)


# OpenAI's strict subset (structured-outputs guide, "Supported schemas").
STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum",
    "const", "description", "title", "$defs", "$ref", "pattern", "format", "minLength",
    "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minItems", "maxItems",
}  # fmt: skip
STRICT_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
}


def assert_openai_strict(schema: dict[str, Any], path: str = "$") -> None:
    assert schema.keys() <= STRICT_KEYWORDS, (path, schema.keys() - STRICT_KEYWORDS)
    if "$ref" in schema:
        assert set(schema) == {"$ref"}, path  # a bare $ref only
    if "format" in schema:
        assert schema["format"] in STRICT_FORMATS, path
    if "properties" in schema or schema.get("type") == "object":
        assert schema["additionalProperties"] is False, path
        assert schema["required"] == list(schema["properties"]), path
    children = [
        *schema.get("properties", {}).items(),
        *schema.get("$defs", {}).items(),
        *((f"anyOf[{i}]", b) for i, b in enumerate(schema.get("anyOf", []))),
        *([("items", schema["items"])] if "items" in schema else []),
    ]
    for name, child in children:
        assert_openai_strict(child, f"{path}.{name}")


@pytest.mark.parametrize("fmt", FORMATS)
def test_registry_exports_every_tool_a_format_accepts(fmt: str) -> None:
    exported = CORPUS.export(fmt)  # one tool Gemini's subset cannot say breaks nothing
    assert len(exported) == len(TOOLS)
    for item in exported:
        check_sdk_type(fmt, item)


def test_strict_nulls_stand_for_defaults_when_calling() -> None:
    # What strict mode lets a model send for every defaulted parameter is null.
    tool = CORPUS.get("scalar_defaults")
    assert tool is not None
    params = tool.export("openai", strict=True)["function"]["parameters"]
    nulls = dict.fromkeys(params["required"])
    assert tool.call(nulls) == "hi"


def test_served_tools_equal_the_mcp_export() -> None:
    # What a fastmcp 4 client lists from `as_mcp_server` is exactly export("mcp"),
    # tags included (read where fastmcp reads them).
    from fastmcp import Client
    from fastmcp.utilities.components import get_fastmcp_metadata

    async def listed() -> list[mcp.types.Tool]:
        async with Client(CORPUS.as_mcp_server(name="corpus")) as client:
            return await client.list_tools()

    exported = {t["name"]: t for t in CORPUS.export("mcp")}
    served = asyncio.run(listed())
    assert [t.name for t in served] == list(exported)
    for tool in served:
        expected = exported[tool.name]
        assert tool.description == expected["description"]
        assert tool.input_schema == expected["inputSchema"]
        assert tool.output_schema == expected.get("outputSchema")
        assert get_fastmcp_metadata(tool.meta).get("tags") == expected["_meta"]["fastmcp"]["tags"]


def test_mcp_tags_and_wrapped_results() -> None:
    exported = {t["name"]: t for t in CORPUS.export("mcp")}
    assert exported["scalars"]["_meta"]["fastmcp"]["tags"] == ["scalars"]
    assert exported["lists"]["outputSchema"]["x-fastmcp-wrap-result"] is True
    assert "x-fastmcp-wrap-result" not in exported["nested_model"]["outputSchema"]
    assert "outputSchema" not in exported["any_payload"]  # -> None


# --- differential test against the OpenAI SDK -------------------------------------------
#
# `openai.pydantic_function_tool(Model)` and tooldeck's strict export of the same fields
# must be equal once the SDK's output goes through the differences docs/exports.md lists
# (each step of `as_tooldeck_would_say_it` is one line of that list).

_OPENAI_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
}


# 8. The strings a Decimal parses (Pydantic's `build_decimal_pattern`, no digit limits).
DECIMAL = r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$"


def as_tooldeck_would_say_it(
    sdk_parameters: dict[str, Any], original: dict[str, Any]
) -> dict[str, Any]:
    # 1. No titles, no root description, non-recursive $refs inlined (the clean schema).
    cleaned = clean_schema(sdk_parameters)
    cleaned["additionalProperties"] = False
    return _normalise(cleaned, (), set(_optional_paths(original, ())))


def _optional_paths(node: Any, path: tuple[Any, ...]) -> Any:
    """Where the original schema has a property that is not required."""
    if isinstance(node, dict):
        for name in node.get("properties", {}) if isinstance(node.get("properties"), dict) else ():
            if name not in node.get("required", ()):
                yield (*path, "properties", name)
        for key, value in node.items():
            yield from _optional_paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _optional_paths(value, (*path, i))


def _normalise(node: Any, path: tuple[Any, ...], optional: set[tuple[Any, ...]]) -> Any:
    if isinstance(node, list):
        return [_normalise(n, (*path, i), optional) for i, n in enumerate(node)]
    if not isinstance(node, dict):
        return node
    if node == {"anyOf": [{"type": "number"}, {"type": "string"}]}:  # a plain Decimal
        node = {"anyOf": [{"type": "number"}, {"type": "string", "pattern": DECIMAL}]}  # 8.
    out = {}
    for key, value in node.items():
        if key == "uniqueItems":
            continue  # 3. uniqueItems dropped (a set parameter takes duplicates anyway)
        if key == "format" and value not in _OPENAI_FORMATS:
            assert value in ("binary", "password", "path"), value  # 4. others are refused
            continue  # 4. formats that assert nothing beyond a string dropped
        if key == "discriminator":
            continue  # 7. oneOf becomes anyOf, its OpenAPI discriminator dropped
        if key == "oneOf":
            out["anyOf"] = _normalise(value, (*path, key), optional)
        elif key == "properties":
            out[key] = {
                k: _property(_normalise(v, (*path, key, k), optional), (*path, key, k) in optional)
                for k, v in value.items()
            }
        elif key != "default":
            out[key] = _normalise(value, (*path, key), optional)
    return out


def _property(schema: dict[str, Any], optional: bool) -> dict[str, Any]:
    # 2. What had a default (was not required) is nullable, without its `default`; the
    #    SDK makes it required as it is (non-null, keeping a non-None default).
    if not optional or _nullable(schema):
        return schema
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], NULL]}
    notes = {k: schema[k] for k in ("description",) if k in schema}
    inner = {k: v for k, v in schema.items() if k not in notes}
    return {"anyOf": [inner, NULL], **notes}


def _nullable(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "null" or any(_nullable(b) for b in schema.get("anyOf", []))


def sdk_model(tool: Tool) -> type[BaseModel]:
    """The Pydantic model equivalent to a tool's signature, for the OpenAI SDK."""
    fields: dict[str, Any] = {}
    for param in tool.spec.params:
        info = Field(description=param.description) if param.description else Field()
        default: Any = ... if param.required else param.default
        if param.default_factory is not None:
            default = Field(default_factory=param.default_factory)
        fields[param.name] = (Annotated[param.annotation, info], default)
    return create_model(f"{tool.name.replace('-', '_')}_args", **fields)


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_differential_corpus_against_openai_pydantic_function_tool(tool: Tool) -> None:
    sdk = openai.pydantic_function_tool(sdk_model(tool))["function"]
    if tool.name in STRICT_REFUSED:
        # 5/6. The SDK passes a free-form object, a tuple or an any-value schema on
        #      (the API then refuses the tool); tooldeck raises at export instead.
        with pytest.raises(ToolDefinitionError):
            tool.export("openai", strict=True)
        return
    ours = tool.export("openai", strict=True)["function"]["parameters"]
    assert ours == as_tooldeck_would_say_it(dict(sdk["parameters"]), tool.parameters)


# Hand-written models, beside the corpus: every difference on one model.


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Address(BaseModel):
    street: str
    city: str = Field("Taipei", description="the city")
    zip: str | None = None


class Node(BaseModel):
    value: int
    children: list[Node] = []


class Everything(BaseModel):
    name: Annotated[str, Field(description="who", min_length=1, max_length=20)]
    count: int = 3
    ratio: float = Field(0.5, ge=0, le=1)
    flag: bool = False
    color: Color = Color.RED
    mode: Literal["fast", "slow"] = "fast"
    one: Literal["only"] = "only"
    when: dt.datetime
    day: dt.date | None = None
    ident: uuid.UUID
    blob: bytes = b""
    tags: set[str] = set()
    numbers: list[int] = Field(default_factory=list, max_length=5)
    address: Address
    addresses: list[Address] = []
    maybe_address: Address | None = None
    either: int | str = 0
    tree: Node | None = None


class Flat(BaseModel):
    a: str
    b: int = 1


class Forest(BaseModel):
    trees: list[Node]
    root: Node | None = None


class Deep(BaseModel):
    matrix: list[list[Address]]
    pair_of: dict[Literal["x"], int] | None = None


@pytest.mark.parametrize("model", [Everything, Flat, Address, Forest])
def test_differential_against_openai_pydantic_function_tool(model: type[BaseModel]) -> None:
    sdk = openai.pydantic_function_tool(model)["function"]
    original = clean_schema(model.model_json_schema())
    ours = to_strict_schema(original, tool=model.__name__)
    assert sdk["strict"] is True
    assert ours == as_tooldeck_would_say_it(dict(sdk["parameters"]), original)


def test_differential_free_form_dict_the_sdk_passes_and_tooldeck_refuses() -> None:
    # 5. The SDK leaves `additionalProperties: {schema}` in place (the API then rejects
    #    the tool); tooldeck raises at export instead.
    sdk = openai.pydantic_function_tool(Deep)["function"]["parameters"]
    assert "additionalProperties" in str(sdk)
    with pytest.raises(ToolDefinitionError) as info:
        to_strict_schema(clean_schema(Deep.model_json_schema()), tool="Deep")
    assert info.value.param == "pair_of"


def test_differential_uri_format_the_sdk_passes_and_tooldeck_refuses() -> None:
    # 4. The SDK keeps `format: uri`, which strict mode does not know; dropping it would
    #    admit any text for a field whose validation wants a URL. tooldeck raises.
    class Link(BaseModel):
        site: AnyUrl

    assert "uri" in str(openai.pydantic_function_tool(Link))
    with pytest.raises(ToolDefinitionError) as info:
        to_strict_schema(clean_schema(Link.model_json_schema()), tool="Link")
    assert info.value.param == "site"


def test_differential_tuple_the_sdk_passes_and_tooldeck_refuses() -> None:
    # 6. The SDK keeps `prefixItems` (outside the strict subset); tooldeck raises.
    class Pair(BaseModel):
        pair: tuple[int, str]

    assert "prefixItems" in str(openai.pydantic_function_tool(Pair))
    with pytest.raises(ToolDefinitionError, match="tuple"):
        to_strict_schema(clean_schema(Pair.model_json_schema()), tool="Pair")

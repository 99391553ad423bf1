"""Every export of the corpus, checked against the providers' own SDK types.

OpenAI Chat Completions and Responses, Anthropic, Gemini and MCP each ship a type for a
tool definition; each export of each corpus tool, strict or not, must validate against
it, and every ``parameters`` schema must be valid JSON Schema (2020-12 metaschema).
Strict exports are also checked against OpenAI's documented strict subset.
"""

from __future__ import annotations

from typing import Any

import anthropic.types
import jsonschema
import mcp.types
import pytest
from export_corpus import CORPUS, GEMINI_REFUSED, STRICT_REFUSED
from google.genai import types as genai
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

from tooldeck import Tool
from tooldeck.errors import ToolDefinitionError
from tooldeck.exporters import FORMATS

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
    refused = {**(STRICT_REFUSED if strict else {}), **(GEMINI_REFUSED if fmt == "gemini" else {})}
    if tool.name in refused:
        with pytest.raises(ToolDefinitionError) as info:
            tool.export(fmt, strict=strict)
        assert info.value.tool == tool.name
        assert (info.value.param or "").startswith(refused[tool.name])
        return
    exported = tool.export(fmt, strict=strict)
    check_sdk_type(fmt, exported)
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
    exportable = [t.name for t in TOOLS if fmt != "gemini" or t.name not in GEMINI_REFUSED]
    if fmt == "gemini":
        with pytest.raises(ToolDefinitionError):
            CORPUS.export(fmt)
        return
    exported = CORPUS.export(fmt)
    assert len(exported) == len(exportable)
    for item in exported:
        check_sdk_type(fmt, item)


def test_strict_nulls_stand_for_defaults_when_calling() -> None:
    # What strict mode lets a model send for every defaulted parameter is null.
    tool = CORPUS.get("scalar_defaults")
    assert tool is not None
    params = tool.export("openai", strict=True)["function"]["parameters"]
    nulls = dict.fromkeys(params["required"])
    assert tool.call(nulls) == "hi"


def test_mcp_tags_and_wrapped_results() -> None:
    exported = {t["name"]: t for t in CORPUS.export("mcp")}
    assert exported["scalars"]["_meta"]["fastmcp"]["tags"] == ["scalars"]
    assert exported["lists"]["outputSchema"]["x-fastmcp-wrap-result"] is True
    assert "x-fastmcp-wrap-result" not in exported["nested_model"]["outputSchema"]
    assert "outputSchema" not in exported["any_payload"]  # -> None

"""export_tool: the shape of each format, purity, and MCP output schemas and tags as
fastmcp 4 writes them."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from fastmcp import FastMCP
from pydantic import BaseModel, TypeAdapter

from tooldeck._jsonschema import clean_schema
from tooldeck.errors import ToolDefinitionError
from tooldeck.exporters import FORMATS, export_tool, to_mcp_output_schema

PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "a": {"type": "integer", "description": "first addend"},
        "b": {"type": "integer", "description": "second addend", "default": 0},
    },
    "required": ["a"],
}
STRICT_PARAMS = {
    "type": "object",
    "properties": {
        "a": {"type": "integer", "description": "first addend"},
        "b": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "second addend"},
    },
    "required": ["a", "b"],
    "additionalProperties": False,
}


def export(fmt: str, **options: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": "add",
        "description": "Add two integers.",
        "parameters": PARAMS,
        "returns": {"type": "integer"},
        "tags": ["math"],
    }
    return export_tool(fmt, **{**spec, **options})


# --- shapes -----------------------------------------------------------------------------


def test_openai_chat_completions() -> None:
    assert export("openai") == {
        "type": "function",
        "function": {"name": "add", "description": "Add two integers.", "parameters": PARAMS},
    }
    assert export("openai", strict=True) == {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two integers.",
            "parameters": STRICT_PARAMS,
            "strict": True,
        },
    }


@pytest.mark.parametrize(("strict", "params"), [(False, PARAMS), (True, STRICT_PARAMS)])
def test_openai_responses_always_says_strict(strict: bool, params: dict[str, Any]) -> None:
    assert export("openai-responses", strict=strict) == {
        "type": "function",
        "name": "add",
        "description": "Add two integers.",
        "parameters": params,
        "strict": strict,
    }


@pytest.mark.parametrize(("strict", "params"), [(False, PARAMS), (True, STRICT_PARAMS)])
def test_anthropic(strict: bool, params: dict[str, Any]) -> None:
    assert export("anthropic", strict=strict) == {
        "name": "add",
        "description": "Add two integers.",
        "input_schema": params,
    }


def test_gemini() -> None:
    assert export("gemini") == {
        "name": "add",
        "description": "Add two integers.",
        "parameters": {
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "first addend"},
                "b": {"type": "integer", "description": "second addend", "default": 0},
            },
            "required": ["a"],
        },
    }


@pytest.mark.parametrize(("strict", "params"), [(False, PARAMS), (True, STRICT_PARAMS)])
def test_mcp(strict: bool, params: dict[str, Any]) -> None:
    assert export("mcp", strict=strict, tags=["math", "arith", "math"]) == {
        "name": "add",
        "description": "Add two integers.",
        "inputSchema": params,
        "outputSchema": {
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
            "x-fastmcp-wrap-result": True,
        },
        "_meta": {"fastmcp": {"tags": ["arith", "math"]}, "_fastmcp": {"tags": ["arith", "math"]}},
    }


def test_mcp_without_returns_or_tags() -> None:
    out = export("mcp", returns=None, tags=[])
    assert "outputSchema" not in out
    assert out["_meta"] == {"fastmcp": {"tags": []}, "_fastmcp": {"tags": []}}


def test_weather_tool_equals_seed_002() -> None:
    seed = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": (
                "查詢台灣城市的即時天氣資訊。可查詢溫度、天氣狀況、濕度、風速等。"
                "支援的城市：台北、新北、桃園、台中、台南、高雄、基隆、新竹、嘉義、屏東、宜蘭、花蓮、台東。"
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {
                        "type": "string",
                        "description": "要查詢的城市名稱，例如：台北、高雄、台中",
                    },
                    "include_details": {
                        "type": "boolean",
                        "description": "是否包含詳細資訊（濕度、風速、體感溫度）",
                        "default": False,
                    },
                },
                "required": ["city"],
            },
        },
    }
    function = seed["function"]
    assert (
        export_tool(
            "openai",
            name=function["name"],
            description=function["description"],
            parameters=function["parameters"],
            returns=None,
            tags=["weather"],
        )
        == seed
    )


def test_unknown_format_lists_the_formats() -> None:
    with pytest.raises(ValueError, match="'openai', 'openai-responses', 'anthropic'") as info:
        export("langchain")
    assert not isinstance(info.value, ToolDefinitionError)
    assert "agently" not in FORMATS  # the registry's own format, not an exporter's


def test_strict_errors_surface_in_every_format() -> None:
    params = {"type": "object", "properties": {"kw": {"type": "object"}}, "required": ["kw"]}
    for fmt in FORMATS:
        with pytest.raises(ToolDefinitionError) as info:
            export(fmt, parameters=params, strict=True)
        assert (info.value.tool, info.value.param) == ("add", "kw")


# --- purity -----------------------------------------------------------------------------


def containers(node: Any) -> set[int]:
    found = {id(node)} if isinstance(node, (dict, list)) else set()
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else []
    for child in children:
        found |= containers(child)
    return found


NESTED = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"q": {"enum": ["a", "b"]}}},
            "default": [],
        },
        "when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
    },
    "required": ["when"],
}
RETURNS = {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("strict", [False, True])
def test_exports_never_mutate_and_never_share_their_inputs(fmt: str, strict: bool) -> None:
    params, returns, tags = copy.deepcopy(NESTED), copy.deepcopy(RETURNS), ["b", "a"]
    out = export(fmt, parameters=params, returns=returns, tags=tags, strict=strict)
    assert (params, returns, tags) == (NESTED, RETURNS, ["b", "a"])
    assert not containers(out) & (containers(params) | containers(returns) | containers(tags))
    again = export(fmt, parameters=params, returns=returns, tags=tags, strict=strict)
    assert again == out
    assert not containers(out) & containers(again)


# --- MCP output schemas, as fastmcp 4 computes them -------------------------------------


class Point(BaseModel):
    x: int
    y: int = 0


class Node(BaseModel):
    value: int
    children: list[Node] = []


RETURN_TYPES: list[Any] = [
    int,
    str,
    list[int],
    list[Point],
    Point,
    Node,
    Node | None,
    list[Node],
    dict[str, int],
    tuple[int, str],
    None,
    Any,
]


def fastmcp_output_schema(annotation: Any) -> dict[str, Any] | None:
    server = FastMCP("probe")

    def probe() -> None: ...

    probe.__annotations__["return"] = annotation
    server.tool(probe)
    (tool,) = asyncio.run(server.list_tools())
    return tool.to_mcp_tool().output_schema


@pytest.mark.parametrize("annotation", RETURN_TYPES, ids=repr)
def test_output_schema_matches_fastmcp(annotation: Any) -> None:
    returns = clean_schema(TypeAdapter(annotation).json_schema(mode="serialization"))
    ours = to_mcp_output_schema(returns)
    theirs = fastmcp_output_schema(annotation)
    if theirs is None:
        assert ours is None
    else:
        # fastmcp keeps $defs for every nested model where tooldeck inlines them (and a
        # recursive result's root is already inlined: cleaning it again would unroll it).
        assert ours in (clean_schema(theirs), theirs)


def test_output_schema_of_recursive_result_keeps_defs_at_the_root() -> None:
    node = {
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
    }
    out = to_mcp_output_schema(
        {"type": "array", "items": {"$ref": "#/$defs/Node"}, "$defs": {"Node": node}}
    )
    assert out == {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
        "required": ["result"],
        "x-fastmcp-wrap-result": True,
        "$defs": {"Node": node},
    }
    root = to_mcp_output_schema({"$ref": "#/$defs/Node", "$defs": {"Node": node}})
    assert root == {**node, "$defs": {"Node": node}}


@pytest.mark.parametrize("returns", [None, {}, {"type": "null"}, {"description": "anything"}])
def test_no_output_schema(returns: dict[str, Any] | None) -> None:
    assert to_mcp_output_schema(returns) is None

"""Provider exports: pure functions from a tool's clean JSON Schema to provider dicts.

Nothing here knows about the registry or the ``Tool`` class: the core hands over plain
data (name, description, the ``parameters`` and ``returns`` schemas, tags) and gets a
fresh dict back, which it caches per tool, format and strictness. Each provider's shape
is its module's ``export`` (`tooldeck.providers`); MCP's is here. Three transforms do
the work, each a pure function that builds new dicts while it walks:

* `to_strict_schema` — OpenAI's strict subset (every object closed, every
  property required, defaulted ones nullable); applied to every format when
  ``strict=True``.
* `to_gemini_schema` — the OpenAPI-3.0 subset Gemini's ``FunctionDeclaration``
  takes (``nullable`` instead of null unions, ``$ref`` inlined, string enums).
* `to_mcp_output_schema` — an MCP ``outputSchema``, wrapped as fastmcp wraps
  non-object results.

What strict mode cannot express faithfully raises `ToolDefinitionError` naming the tool
and the parameter path (``address.zip``, ``items[]``, ``$defs.Node.children``); what
Gemini's subset cannot say goes to Gemini as the full JSON Schema instead
(``parametersJsonSchema``), so a valid tool never makes a non-strict export raise.
docs/exports.md lists every rule and every difference from
``openai.pydantic_function_tool``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._gemini import to_gemini_schema
from ._schema_walk import Schema, copy_schema, is_any, is_object
from ._strict import to_strict_schema
from .providers import PROVIDERS, ExportSpec

__all__ = [
    "FORMATS",
    "export_tool",
    "to_gemini_schema",
    "to_mcp_output_schema",
    "to_strict_schema",
]

FORMATS: tuple[str, ...] = (*PROVIDERS, "mcp")


# --- MCP --------------------------------------------------------------------------------


def to_mcp_output_schema(returns: Mapping[str, Any] | None) -> Schema | None:
    """An MCP ``outputSchema`` for a return schema, as fastmcp 4 computes it.

    An object schema is used as is (a root ``$ref`` is inlined, ``$defs`` kept); any
    other is wrapped as ``{"result": <schema>}`` and marked ``x-fastmcp-wrap-result``,
    so fastmcp clients unwrap it. ``None``, ``Any`` (``{}``) and ``None``-returning
    tools (``{"type": "null"}``) have no output schema.
    """
    if returns is None or returns.get("type") == "null" or is_any(returns):
        return None
    defs = returns.get("$defs")
    root = dict(returns)
    ref = root.get("$ref")
    if isinstance(ref, str) and isinstance(defs, Mapping):
        target = defs.get(ref.removeprefix("#/$defs/"))
        if isinstance(target, Mapping) and is_object(target):
            root = {**target, **{k: v for k, v in root.items() if k != "$ref"}}
    if is_object(root):
        return copy_schema(root)
    inner = copy_schema({k: v for k, v in returns.items() if k != "$defs"})
    wrapped: Schema = {
        "type": "object",
        "properties": {"result": inner},
        "required": ["result"],
        "x-fastmcp-wrap-result": True,
    }
    if defs:
        wrapped["$defs"] = copy_schema(defs)
    return wrapped


def _mcp_meta(tags: Sequence[str]) -> Schema:
    # fastmcp 4 writes and reads `_meta.fastmcp.tags` (sorted); fastmcp 2 used
    # `_meta._fastmcp.tags`, which fastmcp 4 still reads as a fallback. Both are written.
    ordered = sorted(set(tags))
    return {"fastmcp": {"tags": ordered}, "_fastmcp": {"tags": list(ordered)}}


# --- formats: the providers', and MCP's -------------------------------------------------


def _mcp(spec: ExportSpec) -> Schema:
    tool: Schema = {"name": spec.name}
    title = (spec.annotations or {}).get("title")
    if isinstance(title, str):
        # MCP clients show `Tool.title` first; the annotation's title is only a fallback
        # some clients skip. Where both are, fastmcp's own tools say it in both.
        tool["title"] = title
    tool["description"] = spec.description
    tool["inputSchema"] = spec.input_schema()
    output = to_mcp_output_schema(spec.returns)
    if output is not None:
        tool["outputSchema"] = output
    if spec.annotations:
        tool["annotations"] = dict(spec.annotations)
    tool["_meta"] = _mcp_meta(spec.tags)
    return tool


# MCP is an export target, not a provider whose replies are read: its builder lives here.
_BUILDERS: dict[str, Callable[[ExportSpec], Schema]] = {
    **{fmt: provider.export for fmt, provider in PROVIDERS.items()},
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
    return builder(ExportSpec(name, description, parameters, returns, tags, strict, annotations))

"""A served tool's result holding media, as the MCP content it answers with.

One media value, or a list of parts holding media (`tooldeck._media.media_parts`), is
one content item per part, in order: an `Image` an ``ImageContent``, `Audio` an
``AudioContent``, a `File` an ``EmbeddedResource`` (a blob; a ``text/*`` file its text),
a URL-only value a ``ResourceLink`` — each exactly its ``to_mcp()``; a ``str`` part a
``TextContent`` as it is, any other part the JSON text of its ``to_dict()`` form.

A tool whose output schema admits the value (``-> list``) also answers with that
``to_dict()`` form as ``structuredContent``, wrapped as fastmcp wraps a non-object
result (``{"result": ...}``, marked in ``_meta``). Media annotations (``-> Image``,
``-> list[str | Image]``) give no output schema, so most media results carry none.

This module imports fastmcp at the top: only `tooldeck.mcp._provider` imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastmcp.tools.base import ToolResult as FastMCPResult
from mcp_types import AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent

from tooldeck._media import MEDIA_TYPES, mcp_form
from tooldeck._result import to_text

__all__ = ["media_result", "structured_form"]

_BLOCKS: dict[str, Any] = {
    "image": ImageContent,
    "audio": AudioContent,
    "resource": EmbeddedResource,
    "resource_link": ResourceLink,
}


def structured_form(value: Any, output_schema: Mapping[str, Any] | None) -> Any:
    """``value``'s ``structuredContent`` for a tool with ``output_schema`` (``None``
    without one): its ``to_dict()`` form, ``{"result": ...}`` when fastmcp wraps."""
    if output_schema is None:
        return None
    form = mcp_form(value)
    return {"result": form} if output_schema.get("x-fastmcp-wrap-result") else form


def media_result(
    parts: list[Any], structured: Any, output_schema: Mapping[str, Any] | None
) -> FastMCPResult:
    """The answer: one content item per part, in order, and ``structured`` (its
    `structured_form`, checked against ``output_schema`` by the caller) when there is one."""
    content = [_block(part) for part in parts]
    if structured is None or output_schema is None:
        return FastMCPResult(content=content)
    # A wrapped value is marked as fastmcp marks it, so its clients unwrap it.
    wrapped = output_schema.get("x-fastmcp-wrap-result")
    meta = {"fastmcp": {"wrap_result": True}} if wrapped else None
    return FastMCPResult(content=content, structured_content=structured, meta=meta)


def _block(part: Any) -> Any:
    if type(part) in MEDIA_TYPES:
        form = part.to_mcp()
        return _BLOCKS[form["type"]].model_validate(form)
    return TextContent(type="text", text=to_text(mcp_form(part)))

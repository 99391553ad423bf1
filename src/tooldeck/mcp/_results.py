"""What an MCP server's tool result means to tooldeck: `to_value`, seed 001 §7.2's
answer (what a proxy's ``call_tool`` returns), its error text, and the problems of its
structured content with an output schema."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic_core import from_json

if TYPE_CHECKING:
    import mcp_types

__all__ = ["error_text", "output_problems", "to_value"]


def to_value(result: mcp_types.CallToolResult, *, wrapped: bool = False) -> Any:
    """A tool call's answer as seed 001 §7.2 defines it.

    ``is_error`` → ``{"error": <text>}``; structured content → it (fastmcp's
    ``{"result": x}`` → ``x`` when the tool's output schema or the result's meta marks
    it wrapped); else the first content item: text → ``json.loads`` of it or the text
    itself (text nested too deeply to parse is text too); anything else (image,
    audio, resource) → its ``.model_dump()``.
    """
    if result.is_error:
        return {"error": error_text(result)}
    structured = result.structured_content
    if structured is not None:
        if (wrapped or _marked_wrapped(result.meta)) and "result" in structured:
            return structured["result"]
        return structured
    if not result.content:
        return None
    first = result.content[0]
    if first.type == "text":
        return _json_or_text(first.text)
    return first.model_dump()


def _json_or_text(text: str) -> Any:
    """``text`` parsed as JSON (NaN and Infinity too, as ``json.loads`` reads them), or
    the text as it came when it is not JSON.

    Parsed by jiter, whose nesting is bounded: a server's 100,000 ``[`` is text, not a
    ``RecursionError`` (nor a value nested too deeply for whatever walks it next).
    """
    try:
        return from_json(text, allow_inf_nan=True)
    except ValueError:
        return text


def error_text(result: mcp_types.CallToolResult) -> str:
    """The text of an error result: its text items, one per line."""
    texts = [item.text for item in result.content if item.type == "text"]
    return "\n".join(texts) if texts else "the tool failed without saying why"


def output_problems(check: Callable[[Any], list[str]], structured: Any) -> list[str]:
    """``check``'s problems with a result's structured content, one per line.

    The checker names the root ``arguments`` (it was written for them): here it is the
    result.
    """
    if structured is None:
        return ["no structured content"]
    return [
        "the result" + line.removeprefix("arguments") if line.startswith("arguments:") else line
        for line in check(structured)
    ]


def _marked_wrapped(meta: Mapping[str, Any] | None) -> bool:
    section = (meta or {}).get("fastmcp")
    return isinstance(section, Mapping) and bool(section.get("wrap_result"))

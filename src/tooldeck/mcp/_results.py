"""What an MCP server's tool result means to tooldeck.

Two readings of one ``CallToolResult``:

* `to_value`, seed 001 §7.2's answer (what a proxy's ``call_tool`` returns): the
  structured content, or the first content item (text parsed as JSON, anything else
  its ``.model_dump()``);
* `media_value`, for a result holding media (any content item that is not text):
  every content item as a tooldeck value, in order (text → ``str``, image and audio →
  `Image` / `Audio`, an embedded resource → `File`, a resource link → a URL-only value)
  — what a proxy's `execute` and ``run_tool_calls`` get, so a remote screenshot
  reaches a provider as an image.

An item the media core refuses (base64 that does not decode, bytes its MIME type
contradicts, a link of a scheme other than http, https or data) is never an exception:
it becomes a text placeholder naming the item, the server and what is wrong, and the
rest of the result still arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic_core import from_json

from tooldeck._media import is_media, media_from_mcp
from tooldeck._result import clip

from ._extra import logger

if TYPE_CHECKING:
    import mcp_types

__all__ = ["error_text", "media_value", "output_problems", "to_value"]


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


def media_value(result: mcp_types.CallToolResult, *, server: str | None = None) -> Any:
    """The result's content as tooldeck values when it holds media, else ``None``.

    One item → its value (an `Image`, say); several → the list of them, in order: text
    as its ``str`` (never parsed), media as `Image`, `Audio` or `File`. ``server``
    (as `describe` names it) is named in the placeholder of an item that makes no
    valid media value; when no item made one, the items are one text, one per line.
    """
    content = result.content
    if all(item.type == "text" for item in content):
        return None
    parts = [_part(item, server) for item in content]
    if len(parts) == 1:
        return parts[0]
    if not any(is_media(part) for part in parts):  # every media item was refused
        return "\n".join(parts)  # text, one item per line, as a list of parts reads
    return parts


def _part(item: Any, server: str | None) -> Any:
    if item.type == "text":
        return item.text
    try:
        return media_from_mcp(item.model_dump(by_alias=True, mode="json", exclude_none=True))
    except Exception as exc:  # ValueError from the core; anything else must not escape either
        what = item.type
        uri = getattr(item, "uri", None)
        if isinstance(uri, str):
            what += " " + clip(uri, 200)
        where = f" from MCP server {server}" if server else ""
        reason = clip(str(exc) or type(exc).__name__, 300)
        logger.warning("MCP content item kept as text: %s%s: %s", what, where, reason)
        return f"[{what}{where}, not usable as media: {reason}]"


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

"""Anthropic Messages: ``{"name", "description", "input_schema"}`` tools, a message's
``tool_use`` blocks, and one user message holding every ``tool_result``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooldeck._reply_fields import LIST, Fields, ToolCall
from tooldeck._result import ToolResult
from tooldeck._schema_walk import Schema

from ._base import Answer, ExportSpec, Provider
from ._media import MB, MIB, Budget, b64_size, content, not_sent, parts_of
from ._shared import call, has_type, read_typed, text

__all__ = ["PROVIDER", "SHAPE", "export", "read", "write"]

SHAPE = "an Anthropic Messages reply (a message, its content)"


def export(spec: ExportSpec) -> Schema:
    # Anthropic's own `strict` flag is not set: its strict tool use has a narrower
    # keyword subset (no numeric or length bounds) than OpenAI's.
    return {"name": spec.name, "description": spec.description, "input_schema": spec.input_schema()}


def read(reply: Any) -> list[ToolCall]:
    """Messages: a message (its ``content``), the content list, or ``tool_use`` blocks.

    Blocks of other types (text, thinking, server tools run by Anthropic) are left out.
    """
    return read_typed(reply, "content", "tool_use", SHAPE, _call)


def _call(fields: Fields) -> ToolCall:
    return call("anthropic", fields.get("id"), fields.get("name"), fields.get("input"))


def write(calls: Sequence[ToolCall], results: Sequence[ToolResult], native: bool = True) -> Answer:
    """One user message holding every ``tool_result``: Anthropic wants all of a turn's
    results in the next user message (results split over messages teach the model to
    stop calling tools in parallel). A result holding media (``native``) has a list of
    ``text``, ``image`` and ``document`` blocks as its content, in the parts' order."""
    if not calls:
        return []
    blocks = []
    budget: Budget | None = None
    i = 0
    for call_id, _, _ in calls:
        result = results[i]
        i += 1  # noqa: SIM113 (not enumerate, not zip: see providers._shared)
        kind = type(result.data)
        if native and kind is not str and kind is not int and (parts := parts_of(result)):
            budget = budget or Budget(REQUEST_LIMIT)
            content: Any = _content(parts, budget)
        else:
            content = text(result)
        blocks.append(
            {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": content,
                "is_error": not result.success,
            }
        )
    return [{"role": "user", "content": blocks}]


# Anthropic's limits: an image whose base64 text passes 5 MB is refused ("image exceeds
# 5 MB maximum: N bytes > 5242880 bytes", github.com/anthropics/claude-code/issues/14887);
# a whole request at most 32 MB (docs.claude.com/en/docs/build-with-claude/pdf-support,
# "Maximum request size"), which bounds the base64 of every value in the answer.
IMAGE_LIMIT = 5 * MIB
REQUEST_LIMIT = 32 * MB
# The image types Claude reads (docs.claude.com/en/docs/build-with-claude/vision).
IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def _text(line: str) -> dict[str, Any]:
    return {"type": "text", "text": line}


def _content(parts: list[Any], budget: Budget) -> list[dict[str, Any]]:
    items = content(parts, _text, lambda part: _block(part, budget))
    # Anthropic refuses an empty text block (a part that is ""): left out.
    return [item for item in items if item["type"] != "text" or item["text"].strip()]


def _block(part: Any, budget: Budget) -> dict[str, Any] | str:
    """The block for one media value, or the text naming it when it is not sent."""
    if part.kind == "image":
        return _image(part, budget)
    if part.kind == "file":
        return _file(part, budget)
    return not_sent(part, "Anthropic takes no audio")


def _image(part: Any, budget: Budget) -> dict[str, Any] | str:
    size = b64_size(part)
    if part.mime_type not in IMAGE_TYPES:
        return not_sent(part, "Claude reads JPEG, PNG, GIF and WebP images only")
    if part.url is not None:
        return {"type": "image", "source": {"type": "url", "url": part.url}}
    if size > IMAGE_LIMIT:
        return not_sent(part, "over Anthropic's 5 MB image limit")
    if not budget.take(size):
        return not_sent(part, "over Anthropic's 32 MB request limit")
    source = {"type": "base64", "media_type": part.mime_type, "data": part.base64}
    return {"type": "image", "source": source}


def _file(part: Any, budget: Budget) -> dict[str, Any] | str:
    size = b64_size(part)
    pdf = part.mime_type == "application/pdf"
    if part.url is not None:
        if not pdf:
            return not_sent(part, "Anthropic takes a URL for a PDF only")
        return _document(part, {"type": "url", "url": part.url})
    if pdf or part.mime_type.startswith("text/"):
        if not budget.take(size):
            return not_sent(part, "over Anthropic's 32 MB request limit")
        if pdf:
            return _document(
                part, {"type": "base64", "media_type": "application/pdf", "data": part.base64}
            )
        data = part.data.decode("utf-8")  # a text/* value is UTF-8 (checked when made)
        return _document(part, {"type": "text", "media_type": "text/plain", "data": data})
    return not_sent(part, "Anthropic reads PDF and text documents only")


def _document(part: Any, source: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "document", "source": source}
    if part.name is not None:
        block["title"] = part.name
    return block


def claims_item(item: Any, fields: Fields) -> bool:
    return fields.get("type") == "tool_use"


def claims_reply(fields: Fields) -> bool:
    return isinstance(fields.get("content"), LIST)


PROVIDER = Provider(
    name="anthropic",
    shape=SHAPE,
    sdk_modules=("anthropic.types.",),
    export=export,
    read=read,
    write=write,
    claims_item=claims_item,
    claims_reply=claims_reply,
    knows_item=has_type,
)

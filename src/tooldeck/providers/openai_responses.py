"""OpenAI Responses: flat ``{"type": "function", "name", ...}`` tools, a response's
``function_call`` items, and one ``function_call_output`` item per result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooldeck._reply_fields import LIST, Fields, ToolCall
from tooldeck._result import ToolResult
from tooldeck._schema_walk import Schema

from ._base import Answer, ExportSpec, Provider
from ._media import Budget, content, filename, not_sent, parts_of
from ._openai import FILE_REQUEST_LIMIT, IMAGE_REQUEST_LIMIT, IMAGE_TYPES, reads_file
from ._shared import call, has_type, read_typed, text

__all__ = ["PROVIDER", "SHAPE", "export", "read", "write"]

SHAPE = "an OpenAI Responses reply (a response, its output)"


def export(spec: ExportSpec) -> Schema:
    # The Responses API treats a missing `strict` as true, so it is always written.
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.input_schema(),
        "strict": spec.strict,
    }


def read(reply: Any) -> list[ToolCall]:
    """Responses: a response (its ``output``), the output list, or ``function_call`` items.

    Items of other types (messages, reasoning, built-in tools' calls) are left out.
    """
    return read_typed(reply, "output", "function_call", SHAPE, _call)


def _call(fields: Fields) -> ToolCall:
    return call(
        "openai-responses", fields.get("call_id"), fields.get("name"), fields.get("arguments")
    )


def write(calls: Sequence[ToolCall], results: Sequence[ToolResult], native: bool = True) -> Answer:
    """One ``{"type": "function_call_output", "call_id", "output"}`` item per call: the
    text, or for a result holding media (``native``) a list of ``input_text``,
    ``input_image`` and ``input_file`` items in the parts' order."""
    items = []
    budget: _Limits | None = None
    i = 0
    for call_id, _, _ in calls:
        result = results[i]
        i += 1  # noqa: SIM113 (not enumerate, not zip: see providers._shared)
        kind = type(result.data)
        if native and kind is not str and kind is not int and (parts := parts_of(result)):
            budget = budget or _Limits()
            output: Any = _output(parts, budget)
        else:
            output = text(result)
        items.append({"type": "function_call_output", "call_id": call_id, "output": output})
    return items


class _Limits:
    __slots__ = ("files", "images")

    def __init__(self) -> None:
        self.images = Budget(IMAGE_REQUEST_LIMIT)
        self.files = Budget(FILE_REQUEST_LIMIT)


def _input_text(line: str) -> dict[str, Any]:
    return {"type": "input_text", "text": line}


def _output(parts: list[Any], limits: _Limits) -> list[dict[str, Any]]:
    return content(parts, _input_text, lambda part: _item(part, limits))


def _item(part: Any, limits: _Limits) -> dict[str, Any] | str:
    """The output item for one media value, or the text naming it when it is not sent."""
    if part.kind == "image":
        if part.mime_type not in IMAGE_TYPES:
            return not_sent(part, "OpenAI reads PNG, JPEG, WebP and GIF images only")
        if part.url is not None:
            return {"type": "input_image", "image_url": part.url, "detail": "auto"}
        if not limits.images.take(part.size):
            return not_sent(part, "over OpenAI's 50 MB image limit per request")
        return {"type": "input_image", "image_url": part.data_url(), "detail": "auto"}
    if part.kind == "file":
        if not reads_file(part.mime_type):
            return not_sent(part, "OpenAI reads PDF and text files only")
        if part.url is not None:
            return {"type": "input_file", "file_url": part.url}
        if not limits.files.take(part.size):
            return not_sent(part, "over OpenAI's 50 MB file limit per request")
        return {"type": "input_file", "file_data": part.data_url(), "filename": filename(part)}
    # audio: the Responses API takes none, in a tool result or elsewhere
    return not_sent(part, "the Responses API takes no audio")


def claims_item(item: Any, fields: Fields) -> bool:
    return fields.get("type") == "function_call"


def claims_reply(fields: Fields) -> bool:
    return isinstance(fields.get("output"), LIST)


PROVIDER = Provider(
    name="openai-responses",
    shape=SHAPE,
    sdk_modules=("openai.types.responses.",),
    export=export,
    read=read,
    write=write,
    claims_item=claims_item,
    claims_reply=claims_reply,
    knows_item=has_type,
)

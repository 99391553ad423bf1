"""OpenAI Responses: flat ``{"type": "function", "name", ...}`` tools, a response's
``function_call`` items, and one ``function_call_output`` item per result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooldeck._reply_fields import LIST, Fields, ToolCall
from tooldeck._result import ToolResult
from tooldeck._schema_walk import Schema

from ._base import Answer, ExportSpec, Provider
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


def write(calls: Sequence[ToolCall], results: Sequence[ToolResult]) -> Answer:
    """One ``{"type": "function_call_output", "call_id", "output"}`` item per call."""
    items = []
    i = 0
    for call_id, _, _ in calls:
        output = text(results[i])
        items.append({"type": "function_call_output", "call_id": call_id, "output": output})
        i += 1  # noqa: SIM113 (not enumerate, not zip: see providers._shared)
    return items


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

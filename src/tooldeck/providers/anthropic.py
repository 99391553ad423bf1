"""Anthropic Messages: ``{"name", "description", "input_schema"}`` tools, a message's
``tool_use`` blocks, and one user message holding every ``tool_result``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooldeck._reply_fields import LIST, Fields, ToolCall
from tooldeck._result import ToolResult
from tooldeck._schema_walk import Schema

from ._base import Answer, ExportSpec, Provider
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


def write(calls: Sequence[ToolCall], results: Sequence[ToolResult]) -> Answer:
    """One user message holding every ``tool_result``: Anthropic wants all of a turn's
    results in the next user message (results split over messages teach the model to
    stop calling tools in parallel)."""
    if not calls:
        return []
    blocks = []
    i = 0
    for call_id, _, _ in calls:
        result = results[i]
        i += 1  # noqa: SIM113 (not enumerate, not zip: see providers._shared)
        blocks.append(
            {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": text(result),
                "is_error": not result.success,
            }
        )
    return [{"role": "user", "content": blocks}]


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

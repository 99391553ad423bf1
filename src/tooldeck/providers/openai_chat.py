"""OpenAI Chat Completions: ``{"type": "function", "function": {...}}`` tools, a
completion's ``tool_calls``, and one ``{"role": "tool"}`` message per result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooldeck._reply_fields import LIST, PYDANTIC, Fields, ToolCall, fields_of, not_a_reply
from tooldeck._result import ToolResult
from tooldeck._schema_walk import Schema

from ._base import Answer, ExportSpec, Provider
from ._shared import CALL_TYPES, call, has_type, text

__all__ = ["PROVIDER", "SHAPE", "export", "read", "write"]

SHAPE = "an OpenAI Chat Completions reply (a completion, a message)"


def export(spec: ExportSpec) -> Schema:
    function: Schema = {
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.input_schema(),
    }
    if spec.strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def read(reply: Any) -> list[ToolCall]:
    """Chat Completions: a completion (its first choice), a message, or its ``tool_calls``.

    Calls of other kinds (a custom tool's) are not tooldeck's: they are left out.
    """
    items = reply
    if type(reply) in PYDANTIC or not isinstance(reply, LIST):
        fields = reply.__dict__ if type(reply) in PYDANTIC else fields_of(reply)
        choices = fields.get("choices")
        if choices is not None:
            if not isinstance(choices, LIST):
                raise not_a_reply(reply, SHAPE)
            if not choices:
                return []
            fields = fields_of(fields_of(choices[0]).get("message"))
        elif fields.get("function") is not None:
            return _calls([reply])
        tool_calls = fields.get("tool_calls")
        if tool_calls is None and (
            fields.get("role") is None or _holds_calls(fields.get("content"))
        ):
            raise not_a_reply(reply, SHAPE)  # not a chat message, or Anthropic's
        items = tool_calls or []
    return _calls(items)


def _holds_calls(content: Any) -> bool:
    """A content list holding a call (Anthropic's ``tool_use``): no OpenAI message's.

    An OpenAI message's content may be a list of parts too (text, refusal).
    """
    if not isinstance(content, LIST):
        return False
    kinds = [fields_of(item).get("type") for item in content]
    return any(isinstance(kind, str) and kind in CALL_TYPES for kind in kinds)


def _calls(items: Any) -> list[ToolCall]:
    calls = []
    for item in items:
        fields = item.__dict__ if type(item) in PYDANTIC else fields_of(item)
        function = fields.get("function")
        if function is None:
            kind = fields.get("type")
            if isinstance(kind, str) and kind not in CALL_TYPES:
                continue  # {"type": "custom", "custom": {...}}
            raise not_a_reply(item, SHAPE)  # no call, or another provider's
        function = function.__dict__ if type(function) in PYDANTIC else fields_of(function)
        calls.append(
            call("openai", fields.get("id"), function.get("name"), function.get("arguments"))
        )
    return calls


def write(calls: Sequence[ToolCall], results: Sequence[ToolResult]) -> Answer:
    """One ``{"role": "tool", "tool_call_id", "content"}`` message per call."""
    messages = []
    i = 0
    for call_id, _, _ in calls:
        messages.append({"role": "tool", "tool_call_id": call_id, "content": text(results[i])})
        i += 1  # noqa: SIM113 (not enumerate, not zip: see providers._shared)
    return messages


def claims_item(item: Any, fields: Fields) -> bool:
    kind = fields.get("type")
    return kind in (None, "function") and fields.get("function") is not None


def claims_reply(fields: Fields) -> bool:
    return fields.get("choices") is not None or fields.get("tool_calls") is not None


def claims_plain(fields: Fields) -> bool:
    """A chat message without calls (after Gemini's: its ``Content`` has a role too)."""
    content = fields.get("content")
    return fields.get("role") == "assistant" and (content is None or isinstance(content, str))


PROVIDER = Provider(
    name="openai",
    shape=SHAPE,
    sdk_modules=("openai.types.chat.",),
    export=export,
    read=read,
    write=write,
    claims_item=claims_item,
    claims_reply=claims_reply,
    knows_item=has_type,
    claims_plain=claims_plain,
)

"""OpenAI Chat Completions: ``{"type": "function", "function": {...}}`` tools, a
completion's ``tool_calls``, and one ``{"role": "tool"}`` message per result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooldeck._media import is_media
from tooldeck._reply_fields import LIST, PYDANTIC, Fields, ToolCall, fields_of, not_a_reply
from tooldeck._result import ToolResult, part_text
from tooldeck._schema_walk import Schema

from ._base import Answer, ExportSpec, Provider
from ._media import Budget, Trailing, filename, not_sent, parts_of
from ._openai import FILE_REQUEST_LIMIT, IMAGE_REQUEST_LIMIT, IMAGE_TYPES, reads_file
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


def write(calls: Sequence[ToolCall], results: Sequence[ToolResult], native: bool = True) -> Answer:
    """One ``{"role": "tool", "tool_call_id", "content"}`` message per call.

    A tool message holds text only: media (``native``) is its placeholder there, and one
    user message after the last tool message carries it, each call's media introduced
    by a text part naming its call id.
    """
    messages: Answer = []
    trailing: _Trailing | None = None
    i = 0
    for call_id, _, _ in calls:
        result = results[i]
        i += 1  # noqa: SIM113 (not enumerate, not zip: see providers._shared)
        kind = type(result.data)
        if native and kind is not str and kind is not int and (parts := parts_of(result)):
            trailing = trailing or _Trailing()
            content = trailing.render(call_id, parts)
        else:
            content = text(result)
        messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
    if trailing is not None and trailing.items:
        messages.append({"role": "user", "content": trailing.items})
    return messages


AUDIO_FORMATS = {"audio/wav": "wav", "audio/mpeg": "mp3"}  # what input_audio's format says


def _text_part(line: str) -> dict[str, Any]:
    return {"type": "text", "text": line}


class _Trailing(Trailing):
    __slots__ = ("files", "images")

    def __init__(self) -> None:
        super().__init__(_text_part)
        self.images = Budget(IMAGE_REQUEST_LIMIT)
        self.files = Budget(FILE_REQUEST_LIMIT)

    def render(self, call_id: Any, parts: list[Any]) -> str:
        """The tool message's text; the media that can go, gathered for the user message."""
        lines = []
        media = []
        for part in parts:
            if not is_media(part):
                lines.append(part_text(part))
                continue
            item = self._part(part)
            if type(item) is str:
                lines.append(item)
            else:
                lines.append(part.placeholder)
                media.append(item)
        self.group(call_id, media)  # type: ignore[arg-type]
        return "\n".join(lines)

    def _part(self, part: Any) -> dict[str, Any] | str:
        """The user message's part for a media value, or the text naming it when not sent."""
        if part.kind == "image":
            if part.mime_type not in IMAGE_TYPES:
                return not_sent(part, "OpenAI reads PNG, JPEG, WebP and GIF images only")
            if part.url is not None:
                return {"type": "image_url", "image_url": {"url": part.url}}
            if not self.images.take(part.size):
                return not_sent(part, "over OpenAI's 50 MB image limit per request")
            return {"type": "image_url", "image_url": {"url": part.data_url()}}
        return self._file(part)

    def _file(self, part: Any) -> dict[str, Any] | str:
        """A file or audio value's part (data only: no URL in Chat Completions)."""
        if part.kind == "file" and not reads_file(part.mime_type):
            return not_sent(part, "OpenAI reads PDF and text files only")
        if part.url is not None:
            return not_sent(part, "Chat Completions takes files and audio as data only")
        if part.kind == "file":
            if not self.files.take(part.size):
                return not_sent(part, "over OpenAI's 50 MB file limit per request")
            file = {"file_data": part.data_url(), "filename": filename(part)}
            return {"type": "file", "file": file}
        audio_format = AUDIO_FORMATS.get(part.mime_type)
        if audio_format is None:
            return not_sent(part, "Chat Completions takes WAV and MP3 audio only")
        if not self.files.take(part.size):
            return not_sent(part, "over OpenAI's 50 MB file limit per request")
        return {"type": "input_audio", "input_audio": {"data": part.base64, "format": audio_format}}


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

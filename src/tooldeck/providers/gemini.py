"""Gemini: function declarations, a response's ``function_call`` parts (snake_case from
the SDK, camelCase from REST), and one user ``Content`` of ``function_response`` parts.

Gemini's Schema subset (`tooldeck._gemini`) is a shared transform; what it cannot say
faithfully goes to Gemini as the full JSON Schema (``parametersJsonSchema``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tooldeck._gemini import to_gemini_schema
from tooldeck._media import is_media
from tooldeck._reply_fields import LIST, MISSING, PYDANTIC, Fields, ToolCall, fields_of, not_a_reply
from tooldeck._result import ToolResult, part_text, to_text
from tooldeck._schema_walk import Schema, copy_schema
from tooldeck._strict import to_strict_schema
from tooldeck.errors import ToolDefinitionError

from ._base import Answer, ExportSpec, Provider
from ._media import MB, Budget, Trailing, b64_size, not_sent, parts_of
from ._shared import HUGE, MIN, call, to_json_value

__all__ = ["PROVIDER", "SHAPE", "export", "read", "write"]

SHAPE = "a Gemini reply (a response, a candidate, a Content, its parts)"


# -- the export --------------------------------------------------------------------------


def export(spec: ExportSpec) -> Schema:
    source = to_strict_schema(spec.parameters, tool=spec.name) if spec.strict else spec.parameters
    declaration: Schema = {"name": spec.name, "description": spec.description}
    # A declaration without parameters omits them: Gemini rejects an OBJECT with empty
    # `properties` ("should be non-empty for OBJECT type").
    if source.get("properties"):
        try:
            declaration["parameters"] = to_gemini_schema(source, tool=spec.name)
        except ToolDefinitionError:
            # What Gemini's Schema subset cannot say faithfully (a recursion, a value of
            # any type, a keyword with no translation): the full JSON Schema, which
            # Gemini takes as `parametersJsonSchema` (FunctionDeclaration's field).
            declaration["parametersJsonSchema"] = copy_schema(source)
    return declaration


# -- the pieces of a reply -----------------------------------------------------------------


def _call_of(part: Fields) -> Any:
    """A Gemini part's ``function_call`` (snake_case: the SDK; camelCase: REST)."""
    found = part.get("function_call")
    return part.get("functionCall") if found is None else found


_FUNCTION_CALL_KEYS = frozenset(
    {"id", "name", "args", "partial_args", "partialArgs", "will_continue", "willContinue"}
)


def _is_function_call(item: Any, fields: Fields) -> bool:
    """A Gemini ``FunctionCall`` itself (not a part holding one)."""
    if isinstance(item, Mapping):
        return "name" in item and item.keys() <= _FUNCTION_CALL_KEYS
    return isinstance(fields.get("name"), str) and hasattr(item, "args")


def _is_part(item: Any) -> bool:
    """A Gemini part: a text, a thought, inline data... (with or without a call)."""
    if isinstance(item, Mapping):  # a part holds at least one of Part's fields
        return not item.keys() & {"type", "role", "content"} and bool(item.keys() & _PART_KEYS)
    return hasattr(item, "function_call")


# The fields of google-genai's `Part` (1.x), snake_case and REST's camelCase. A dict with
# none of them is no part: a call of another shape in a list is refused, not skipped.
_PART_FIELDS = [
    "audio_metadata", "audio_transcription", "code_execution_result", "document_metadata",
    "executable_code", "file_data", "function_call", "function_response", "inline_data",
    "media_processing", "media_resolution", "part_metadata", "speech_metadata",
    "spreadsheet_metadata", "text", "thought", "thought_signature", "tool_call",
    "tool_response", "video_metadata",
]  # fmt: skip
_PART_KEYS = frozenset(
    _PART_FIELDS + [re.sub(r"_(\w)", lambda m: m[1].upper(), f) for f in _PART_FIELDS]
)

_ROLES = ("model", "user")  # a Content's roles ("assistant" is OpenAI's)


def _is_candidate(fields: Fields) -> bool:
    # OpenAI's choices have a finish_reason too, and a message.
    return ("finish_reason" in fields or "finishReason" in fields) and "message" not in fields


def _is_response(fields: Fields) -> bool:
    # A prompt blocked by Gemini's safety filters comes back without candidates.
    return "candidates" in fields or "prompt_feedback" in fields or "promptFeedback" in fields


# -- recognising the shape -------------------------------------------------------------------


def claims_item(item: Any, fields: Fields) -> bool:
    return fields.get("type") is None and (
        _call_of(fields) is not None or _is_function_call(item, fields)
    )


def claims_reply(fields: Fields) -> bool:
    if _is_response(fields) or "parts" in fields:
        return True
    content = fields.get("content")
    if content is not None:
        return "parts" in fields_of(content)  # a candidate
    # a candidate without content (blocked, or cut at the token limit); a Content
    # without parts
    return _is_candidate(fields) or fields.get("role") in _ROLES


def knows_item(item: Any, fields: Fields) -> bool:
    return _is_part(item)


# -- reading --------------------------------------------------------------------------------


def read(reply: Any) -> list[ToolCall]:
    """Gemini: a response (its first candidate), a candidate, a ``Content``, its parts,
    or ``function_call``\\ s; snake_case (the SDK) or camelCase (REST).

    Parts without a call (text, thoughts) are left out.
    """
    items = reply if type(reply) not in PYDANTIC and isinstance(reply, LIST) else _parts(reply)
    calls = []
    for item in items:
        fields = item.__dict__ if type(item) in PYDANTIC else fields_of(item)
        found = fields.get("function_call")  # the SDK's snake_case, else REST's camelCase
        if found is None:
            found = fields.get("functionCall")
        if found is not None:
            fields = found.__dict__ if type(found) in PYDANTIC else fields_of(found)
        elif not _is_function_call(item, fields):
            if _is_part(item):
                continue
            raise not_a_reply(item, SHAPE)
        call_id, name = fields.get("id"), fields.get("name")
        if type(name) is str and (call_id is None or type(call_id) is str):  # `call`, inline
            calls.append((call_id, name, fields.get("args")))
        else:
            calls.append(call("gemini", call_id, name, fields.get("args")))
    return calls


def _parts(reply: Any) -> Any:
    fields = reply.__dict__ if type(reply) in PYDANTIC else fields_of(reply)
    candidates = fields.get("candidates", MISSING)
    if candidates is not MISSING or _is_response(fields):  # a response
        if candidates is MISSING or not candidates:
            return []  # a prompt blocked by Gemini's safety filters
        if not isinstance(candidates, LIST):
            raise not_a_reply(reply, SHAPE)
        # The first candidate, as the SDK's own shortcuts (``response.text``) read.
        first = candidates[0]
        if type(first) in PYDANTIC:  # the SDK's Candidate: `_candidate_parts`, inline
            content = first.__dict__.get("content")
            if type(content) in PYDANTIC:
                return content.__dict__.get("parts") or []
        return _candidate_parts(reply, fields_of(first), True)
    if "content" in fields or _is_candidate(fields):
        return _candidate_parts(reply, fields, False)
    parts = fields.get("parts", MISSING)
    if parts is not MISSING:  # a Content
        return parts or []
    if fields.get("role") in _ROLES and "content" not in fields:
        return []  # a Content without parts: cut at the token limit before any
    if _call_of(fields) is not None or _is_function_call(reply, fields):
        return [reply]
    raise not_a_reply(reply, SHAPE)


def _candidate_parts(reply: Any, candidate: Fields, in_response: bool) -> Any:
    content = candidate.get("content")
    if content is None and (in_response or _is_candidate(candidate)):
        return []  # blocked, or cut at the token limit before any part
    if type(content) in PYDANTIC:  # the SDK's Content
        return content.__dict__.get("parts") or []
    if content is None or isinstance(content, (str, list, tuple)):
        raise not_a_reply(reply, SHAPE)
    return fields_of(content).get("parts") or []


# -- writing --------------------------------------------------------------------------------


def write(calls: Sequence[ToolCall], results: Sequence[ToolResult], native: bool = True) -> Answer:
    """One user ``Content`` holding a ``function_response`` part per call: the value as
    ``{"output": ...}``, a failure as ``{"error": <message>}`` (Gemini's own keys).

    A result holding media (``native``): ``{"output": <its text, with placeholders>}``
    and ``parts`` (``inline_data``) for the media a function response takes; the media
    Gemini reads only in a user turn goes in one user ``Content`` after (the "Chat way").
    """
    if not calls:
        return []
    parts = []
    trailing: _Trailing | None = None
    i = 0
    for call_id, name, _ in calls:
        result = results[i]
        i += 1  # noqa: SIM113 (not enumerate, not zip: see providers._shared)
        media: list[dict[str, Any]] | None = None
        if result.success:
            data = result.data
            kind = type(data)
            if not (kind is str or (kind is int and MIN < data < HUGE)):
                if native and (found := parts_of(result)):
                    trailing = trailing or _Trailing()
                    data, media = trailing.render(name if call_id is None else call_id, found)
                else:
                    data = to_json_value(data)
            response = {"output": data}
        else:
            error = result.error
            response = {"error": error if type(error) is str else to_text(error)}
        answer: dict[str, Any]
        if call_id is None:
            answer = {"name": name, "response": response}
        else:
            answer = {"id": call_id, "name": name, "response": response}
        if media:
            answer["parts"] = media
        parts.append({"function_response": answer})
    answer_content: Answer = [{"role": "user", "parts": parts}]
    if trailing is not None and trailing.items:
        answer_content.append({"role": "user", "parts": trailing.items})
    return answer_content


# What a function response's ``parts`` take (Gemini 3's multimodal function responses,
# ai.google.dev/gemini-api/docs/function-calling): PNG, JPEG and WebP images, PDF and
# plain text. Their ``file_data`` (a URI) is "not supported in Gemini API" (Vertex AI
# only: googleapis.github.io/kotlin-genai, FunctionResponsePart), so a URL goes the
# Chat way, as a ``file_data`` part of a user turn (the Gemini API fetches public and
# signed http(s) URLs there: blog.google, "Increased file size limits and expanded
# inputs support in Gemini API", January 2026).
RESPONSE_TYPES = frozenset(
    {"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"}
)
# What a user turn takes besides (ai.google.dev/gemini-api/docs: image, audio and
# document understanding).
USER_TYPES = frozenset(
    {
        "image/heic", "image/heif",
        "audio/wav", "audio/mpeg", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac",
        "text/html", "text/css", "text/csv", "text/xml", "text/markdown", "text/md",
        "text/javascript", "text/x-python", "text/rtf",
    }
) | RESPONSE_TYPES  # fmt: skip
# Inline data: at most 100 MB of base64 per request (the same blog post), and a PDF at
# most 50 MB (ai.google.dev/gemini-api/docs/file-input-methods).
REQUEST_LIMIT = 100 * MB
PDF_LIMIT = 50 * MB


class _Trailing(Trailing):
    __slots__ = ("budget",)

    def __init__(self) -> None:
        super().__init__(lambda line: {"text": line})
        self.budget = Budget(REQUEST_LIMIT)

    def render(self, call: str, parts: list[Any]) -> tuple[str, list[dict[str, Any]]]:
        """The output text, and the function response's media parts; what goes the
        Chat way is gathered for the user turn after."""
        lines: list[str] = []
        inline: list[dict[str, Any]] = []
        after: list[dict[str, Any]] = []
        for part in parts:
            if not is_media(part):
                lines.append(part_text(part))
                continue
            mime = part.mime_type
            if mime not in USER_TYPES:
                lines.append(not_sent(part, f"Gemini does not read {mime}"))
            elif part.url is not None:
                lines.append(part.placeholder)
                after.append({"file_data": {"file_uri": part.url, "mime_type": mime}})
            elif mime == "application/pdf" and (part.size or 0) > PDF_LIMIT:
                lines.append(not_sent(part, "over Gemini's 50 MB PDF limit"))
            elif not self.budget.take(b64_size(part)):
                lines.append(not_sent(part, "over Gemini's 100 MB inline data limit"))
            else:
                lines.append(part.placeholder)
                blob = {"inline_data": {"mime_type": mime, "data": part.base64}}
                (inline if mime in RESPONSE_TYPES else after).append(blob)
        self.group(call, after)
        return "\n".join(lines), inline


PROVIDER = Provider(
    name="gemini",
    shape=SHAPE,
    sdk_modules=("google.genai.types",),
    export=export,
    read=read,
    write=write,
    claims_item=claims_item,
    claims_reply=claims_reply,
    knows_item=knows_item,
)

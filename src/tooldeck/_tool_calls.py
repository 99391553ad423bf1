"""Reading a model's tool calls: what each provider's reply asks for.

The mirror image of `tooldeck.exporters`, which writes the tool definitions these calls
name. Small pure functions per provider take a reply at any level (a whole reply, a
message, its list of calls; an SDK's pydantic objects or plain dicts from the wire,
Gemini's REST camelCase too) and give `ToolCall` records, in the reply's order;
`detect_format` recognises the provider from the shape. `tooldeck._tool_calls_run`
answers the calls. Nothing here knows the registry, and no provider SDK is imported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ._reply_fields import (
    LIST,
    MISSING,
    PYDANTIC,
    SDK_FORMATS,
    Fields,
    NotAReply,
    ToolCall,
    fields_of,
    not_a_reply,
    sdk_format,
)
from ._result import clip

__all__ = [
    "FORMATS",
    "READERS",
    "SDK_FORMATS",
    "ToolCall",
    "detect_format",
    "read_tool_calls",
]

FORMATS = ("openai", "openai-responses", "anthropic", "gemini")


def _gemini_call_of(part: Fields) -> Any:
    """A Gemini part's ``function_call`` (snake_case: the SDK; camelCase: REST)."""
    found = part.get("function_call")
    return part.get("functionCall") if found is None else found


_FUNCTION_CALL_KEYS = frozenset(
    {"id", "name", "args", "partial_args", "partialArgs", "will_continue", "willContinue"}
)


def _is_gemini_function_call(item: Any, fields: Fields) -> bool:
    """A Gemini ``FunctionCall`` itself (not a part holding one)."""
    if isinstance(item, Mapping):
        return "name" in item and item.keys() <= _FUNCTION_CALL_KEYS
    return isinstance(fields.get("name"), str) and hasattr(item, "args")


def _is_gemini_part(item: Any) -> bool:
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


# -- recognising the provider ------------------------------------------------------------


def _item_format(item: Any) -> str | None:
    """The provider of one call item (``None``: not a call, or not a known item)."""
    fields = fields_of(item)
    kind = fields.get("type")
    if kind == "function_call":
        return "openai-responses"
    if kind == "tool_use":
        return "anthropic"
    if kind in (None, "function") and fields.get("function") is not None:
        return "openai"
    if kind is None and (
        _gemini_call_of(fields) is not None or _is_gemini_function_call(item, fields)
    ):
        return "gemini"
    return None


def _is_known_item(item: Any) -> bool:
    """An item of some provider's reply that is not a call (a text block, a part...)."""
    return isinstance(fields_of(item).get("type"), str) or _is_gemini_part(item)


def detect_format(reply: Any) -> str | None:
    """The provider whose shape ``reply`` has; ``None`` for a list holding no call.

    Raises:
        TypeError: ``reply`` is no provider's reply, nor a part of one.
    """
    if isinstance(reply, LIST):
        for item in reply:
            found = _item_format(item)
            if found is not None:
                return found
            if not _is_known_item(item):
                raise not_a_reply(item)
        return None
    found = SDK_FORMATS.get(type(reply)) or sdk_format(type(reply))
    if found is None:  # read from this reply's own shape, every time
        found = _reply_format(fields_of(reply)) or _item_format(reply)
        if found is None:
            raise not_a_reply(reply)
    return found


def _reply_format(fields: Fields) -> str | None:
    """The provider of a whole reply or a message (``None``: neither)."""
    if fields.get("choices") is not None or fields.get("tool_calls") is not None:
        return "openai"
    content = fields.get("content")
    if isinstance(content, LIST):
        return "anthropic"
    if isinstance(fields.get("output"), LIST):
        return "openai-responses"
    if _is_gemini_response(fields) or "parts" in fields:
        return "gemini"
    if content is not None and "parts" in fields_of(content):
        return "gemini"  # a candidate
    if content is None and _is_gemini_candidate(fields):
        return "gemini"  # a candidate without content: blocked, or cut at the token limit
    if content is None and fields.get("role") in _GEMINI_ROLES:
        return "gemini"  # a Content without parts
    if fields.get("role") == "assistant" and (content is None or isinstance(content, str)):
        return "openai"  # a chat message without calls
    return None


_GEMINI_ROLES = ("model", "user")  # a Content's roles ("assistant" is OpenAI's)


def _is_gemini_candidate(fields: Fields) -> bool:
    # OpenAI's choices have a finish_reason too, and a message.
    return ("finish_reason" in fields or "finishReason" in fields) and "message" not in fields


def _is_gemini_response(fields: Fields) -> bool:
    # A prompt blocked by Gemini's safety filters comes back without candidates.
    return "candidates" in fields or "prompt_feedback" in fields or "promptFeedback" in fields


# -- the readers, one per provider ---------------------------------------------------------


def _call(format: str, call_id: Any, name: Any, arguments: Any) -> ToolCall:
    """A `ToolCall`, once its id and name are known to be strings (Gemini's id optional)."""
    if type(name) is str and (type(call_id) is str or (call_id is None and format == "gemini")):
        return (call_id, name, arguments)  # what the SDKs and JSON decoders give
    if not isinstance(name, str) or not (
        isinstance(call_id, str) or (call_id is None and format == "gemini")
    ):
        bad, what = (call_id, "id") if isinstance(name, str) else (name, "name")
        raise NotAReply(f"a {format} tool call's {what} must be a string, got {clip(bad)}")
    return (call_id, name, arguments)


def read_openai(reply: Any) -> list[ToolCall]:
    """Chat Completions: a completion (its first choice), a message, or its ``tool_calls``.

    Calls of other kinds (a custom tool's) are not tooldeck's: they are left out.
    """
    items = reply
    if type(reply) in PYDANTIC or not isinstance(reply, LIST):
        fields = reply.__dict__ if type(reply) in PYDANTIC else fields_of(reply)
        choices = fields.get("choices")
        if choices is not None:
            if not isinstance(choices, LIST):
                raise not_a_reply(reply, "openai")
            if not choices:
                return []
            fields = fields_of(fields_of(choices[0]).get("message"))
        elif fields.get("function") is not None:
            return _openai_calls([reply])
        tool_calls = fields.get("tool_calls")
        if tool_calls is None and (
            fields.get("role") is None or _holds_calls(fields.get("content"))
        ):
            raise not_a_reply(reply, "openai")  # not a chat message, or Anthropic's
        items = tool_calls or []
    return _openai_calls(items)


def _holds_calls(content: Any) -> bool:
    """A content list holding a call (Anthropic's ``tool_use``): no OpenAI message's.

    An OpenAI message's content may be a list of parts too (text, refusal).
    """
    if not isinstance(content, LIST):
        return False
    kinds = [fields_of(item).get("type") for item in content]
    return any(isinstance(kind, str) and kind in _CALL_TYPES for kind in kinds)


def _openai_calls(items: Any) -> list[ToolCall]:
    calls = []
    for item in items:
        fields = item.__dict__ if type(item) in PYDANTIC else fields_of(item)
        function = fields.get("function")
        if function is None:
            kind = fields.get("type")
            if isinstance(kind, str) and kind not in _CALL_TYPES:
                continue  # {"type": "custom", "custom": {...}}
            raise not_a_reply(item, "openai")  # no call, or another provider's
        function = function.__dict__ if type(function) in PYDANTIC else fields_of(function)
        calls.append(
            _call("openai", fields.get("id"), function.get("name"), function.get("arguments"))
        )
    return calls


def read_openai_responses(reply: Any) -> list[ToolCall]:
    """Responses: a response (its ``output``), the output list, or ``function_call`` items.

    Items of other types (messages, reasoning, built-in tools' calls) are left out.
    """
    return _read_typed(reply, "output", "function_call", "openai-responses", _responses_call)


def _responses_call(fields: Fields) -> ToolCall:
    return _call(
        "openai-responses", fields.get("call_id"), fields.get("name"), fields.get("arguments")
    )


def read_anthropic(reply: Any) -> list[ToolCall]:
    """Messages: a message (its ``content``), the content list, or ``tool_use`` blocks.

    Blocks of other types (text, thinking, server tools run by Anthropic) are left out.
    """
    return _read_typed(reply, "content", "tool_use", "anthropic", _anthropic_call)


def _anthropic_call(fields: Fields) -> ToolCall:
    return _call("anthropic", fields.get("id"), fields.get("name"), fields.get("input"))


def _read_typed(
    reply: Any, container: str, call_type: str, format: str, read: Callable[[Fields], ToolCall]
) -> list[ToolCall]:
    """Providers whose items all carry a ``type``: keep the calls, skip the rest."""
    items = reply
    if type(reply) in PYDANTIC or not isinstance(reply, LIST):
        fields = reply.__dict__ if type(reply) in PYDANTIC else fields_of(reply)
        items = fields.get(container)
        if not isinstance(items, LIST):
            if fields.get("type") != call_type:
                raise not_a_reply(reply, format)
            items = [reply]
    calls = []
    for item in items:
        fields = item.__dict__ if type(item) in PYDANTIC else fields_of(item)
        kind = fields.get("type")
        if kind == call_type:
            calls.append(read(fields))
        elif not isinstance(kind, str) or kind in _CALL_TYPES:  # another provider's call
            raise not_a_reply(item, format)
    return calls


# The "type" of each provider's tool-call items. A reply read as one provider's holding
# another's calls is refused: skipped as "other blocks", its calls would go unanswered.
_CALL_TYPES = frozenset({"function", "function_call", "tool_use"})


def read_gemini(reply: Any) -> list[ToolCall]:
    """Gemini: a response (its first candidate), a candidate, a ``Content``, its parts,
    or ``function_call``\\ s; snake_case (the SDK) or camelCase (REST).

    Parts without a call (text, thoughts) are left out.
    """
    if type(reply) not in PYDANTIC and isinstance(reply, LIST):
        items = reply
    else:
        items = _gemini_parts(reply)
    calls = []
    for item in items:
        fields = item.__dict__ if type(item) in PYDANTIC else fields_of(item)
        call = fields.get("function_call")  # the SDK's snake_case, else REST's camelCase
        if call is None:
            call = fields.get("functionCall")
        if call is not None:
            fields = call.__dict__ if type(call) in PYDANTIC else fields_of(call)
        elif not _is_gemini_function_call(item, fields):
            if _is_gemini_part(item):
                continue
            raise not_a_reply(item, "gemini")
        call_id, name = fields.get("id"), fields.get("name")
        if type(name) is str and (call_id is None or type(call_id) is str):  # `_call`, inline
            calls.append((call_id, name, fields.get("args")))
        else:
            calls.append(_call("gemini", call_id, name, fields.get("args")))
    return calls


def _gemini_parts(reply: Any) -> Any:
    fields = reply.__dict__ if type(reply) in PYDANTIC else fields_of(reply)
    candidates = fields.get("candidates", MISSING)
    if candidates is not MISSING or _is_gemini_response(fields):  # a response
        if candidates is MISSING or not candidates:
            return []  # a prompt blocked by Gemini's safety filters
        if not isinstance(candidates, LIST):
            raise not_a_reply(reply, "gemini")
        # The first candidate, as the SDK's own shortcuts (``response.text``) read.
        first = candidates[0]
        if type(first) in PYDANTIC:  # the SDK's Candidate: `_candidate_parts`, inline
            content = first.__dict__.get("content")
            if type(content) in PYDANTIC:
                return content.__dict__.get("parts") or []
        return _candidate_parts(reply, fields_of(first), True)
    if "content" in fields or _is_gemini_candidate(fields):
        return _candidate_parts(reply, fields, False)
    parts = fields.get("parts", MISSING)
    if parts is not MISSING:  # a Content
        return parts or []
    if fields.get("role") in _GEMINI_ROLES and "content" not in fields:
        return []  # a Content without parts: cut at the token limit before any
    if _gemini_call_of(fields) is not None or _is_gemini_function_call(reply, fields):
        return [reply]
    raise not_a_reply(reply, "gemini")


def _candidate_parts(reply: Any, candidate: Fields, in_response: bool) -> Any:
    content = candidate.get("content")
    if content is None and (in_response or _is_gemini_candidate(candidate)):
        return []  # blocked, or cut at the token limit before any part
    if type(content) in PYDANTIC:  # the SDK's Content
        return content.__dict__.get("parts") or []
    if content is None or isinstance(content, (str, list, tuple)):
        raise not_a_reply(reply, "gemini")
    return fields_of(content).get("parts") or []


READERS: dict[str, Callable[[Any], list[ToolCall]]] = {
    "openai": read_openai,
    "openai-responses": read_openai_responses,
    "anthropic": read_anthropic,
    "gemini": read_gemini,
}


def read_tool_calls(reply: Any, format: str | None = None) -> tuple[str | None, list[ToolCall]]:
    """The format (recognised unless given) and the tool calls of ``reply``, in order.

    Raises:
        ValueError: an unknown ``format``.
        TypeError: ``reply`` has no shape of that format (or of any, when not given).
    """
    # (type first: a list is unhashable, a str subclass may make hashing raise)
    if format is not None and (type(format) is not str or format not in READERS):
        shown = repr(format) if type(format) is str else clip(format)
        raise ValueError(f"unknown format {shown}; one of {', '.join(FORMATS)}")
    try:
        found = format or SDK_FORMATS.get(type(reply)) or detect_format(reply)
        return found, (READERS[found](reply) if found is not None else [])
    except NotAReply:
        raise
    except Exception as exc:  # its own code raised (a property, __iter__), or a misfit part
        raise not_a_reply(reply, format) from exc

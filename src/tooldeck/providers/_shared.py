"""Reading and writing helpers that more than one provider uses.

`call` checks one call's id and name; `read_typed` reads the providers whose reply
items all carry a ``type`` (OpenAI Responses, Anthropic); `text` and `to_json_value`
turn a result into what a model reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic_core import to_jsonable_python

from tooldeck._reply_fields import (
    LIST,
    PYDANTIC,
    Fields,
    NotAReply,
    ToolCall,
    fields_of,
    not_a_reply,
)
from tooldeck._result import ToolResult, clip, to_text

__all__ = ["CALL_TYPES", "HUGE", "MIN", "call", "has_type", "read_typed", "text", "to_json_value"]


# The "type" of each provider's tool-call items. A reply read as one provider's holding
# another's calls is refused: skipped as "other blocks", its calls would go unanswered.
CALL_TYPES = frozenset({"function", "function_call", "tool_use"})


def call(format: str, call_id: Any, name: Any, arguments: Any) -> ToolCall:
    """A `ToolCall`, once its id and name are known to be strings (Gemini's id optional)."""
    if type(name) is str and (type(call_id) is str or (call_id is None and format == "gemini")):
        return (call_id, name, arguments)  # what the SDKs and JSON decoders give
    if not isinstance(name, str) or not (
        isinstance(call_id, str) or (call_id is None and format == "gemini")
    ):
        bad, what = (call_id, "id") if isinstance(name, str) else (name, "name")
        raise NotAReply(f"a {format} tool call's {what} must be a string, got {clip(bad)}")
    return (call_id, name, arguments)


def has_type(item: Any, fields: Fields) -> bool:
    """An item that carries a ``type`` (a text block, a message, a call...)."""
    return isinstance(fields.get("type"), str)


def read_typed(
    reply: Any, container: str, call_type: str, shape: str, read: Callable[[Fields], ToolCall]
) -> list[ToolCall]:
    """Providers whose items all carry a ``type``: keep the calls, skip the rest.

    ``container``: the field holding a reply's items; ``shape``: the provider's.
    """
    items = reply
    if type(reply) in PYDANTIC or not isinstance(reply, LIST):
        fields = reply.__dict__ if type(reply) in PYDANTIC else fields_of(reply)
        items = fields.get(container)
        if not isinstance(items, LIST):
            if fields.get("type") != call_type:
                raise not_a_reply(reply, shape)
            items = [reply]
    calls = []
    for item in items:
        fields = item.__dict__ if type(item) in PYDANTIC else fields_of(item)
        kind = fields.get("type")
        if kind == call_type:
            calls.append(read(fields))
        elif not isinstance(kind, str) or kind in CALL_TYPES:  # another provider's call
            raise not_a_reply(item, shape)
    return calls


# The writers take one result per call, in the calls' order, as the runner made them,
# and walk both with one counter: setting up ``zip`` costs ~0.1 µs more, ``enumerate``
# ~0.05, and a whole one-call turn is ~2.7 µs (docs/performance.md).


def text(result: ToolResult) -> str:
    """``str(result)``, a text value or an int without the detour."""
    if result.success:
        data = result.data
        kind = type(data)
        if kind is str:
            return data  # type: ignore[no-any-return]
        if kind is int and MIN < data < HUGE:
            return int.__repr__(data)
    return str(result)


# Beyond these bounds an int goes the long way (past 4300 digits, str() refuses it).
HUGE = 10**1000
MIN = -HUGE  # computed once: negating a 1000-digit int on every check is not free


def to_json_value(value: Any) -> Any:
    """``value`` as plain JSON data (a Gemini response is a JSON object, not text).

    What has no strict JSON form (a circular list, ``NaN``, an object pydantic cannot
    serialise) becomes its text (`to_text`), so the request that carries it can be sent.
    """
    kind = type(value)
    if value is None or kind is str or kind is bool or (kind is int and MIN < value < HUGE):
        return value  # JSON as is (an int too long for Python to print is not)
    try:
        data = to_jsonable_python(value)
        json.dumps(data, allow_nan=False)  # the check the SDKs' request encoders make
    except Exception:  # not JSON data: what str(ToolResult) shows instead
        return to_text(value)
    return data

"""Reading a model's tool calls: which provider's reply this is, and what it asks for.

The providers (`tooldeck.providers`) each read their own replies; this module tells
which one a reply is from its shape (`detect_format`), asking each provider's
recognisers in the order of `RECOGNISING`, and reads it (`read_tool_calls`), giving
`ToolCall` records in the reply's order. A reply is taken at any level (a whole reply,
a message, its list of calls; an SDK's pydantic objects or plain dicts from the wire).
Nothing here knows the registry, and no provider SDK is imported.
"""

from __future__ import annotations

from typing import Any

from ._reply_fields import LIST, NotAReply, ToolCall, fields_of, not_a_reply
from ._result import clip
from .providers import FORMATS, PROVIDERS, RECOGNISING

__all__ = [
    "FORMATS",
    "SDK_FORMATS",
    "ToolCall",
    "detect_format",
    "read_tool_calls",
]


# The provider SDKs' own classes, known by the module that defines them: a fact of the
# class, never learned from a reply (an OpenAI message whose content is a list has
# Anthropic's shape; it must not make later OpenAI messages read as Anthropic's).
_SDK_MODULES = tuple(
    (prefix, provider.name) for provider in PROVIDERS.values() for prefix in provider.sdk_modules
)
SDK_FORMATS: dict[type, str] = {}  # `sdk_format`'s answers so far (read on the hot path)


def sdk_format(cls: type) -> str | None:
    """The provider whose SDK defines ``cls``, or ``None`` (then a reply's shape tells)."""
    module = getattr(cls, "__module__", None)
    if type(module) is not str:
        return None
    for prefix, format in _SDK_MODULES:
        if module.startswith(prefix):
            SDK_FORMATS[cls] = format
            return format
    return None


def _item_format(item: Any) -> str | None:
    """The provider of one call item (``None``: not a call, or not a known item)."""
    fields = fields_of(item)
    for provider in RECOGNISING:
        if provider.claims_item(item, fields):
            return provider.name
    return None


def _is_known_item(item: Any) -> bool:
    """An item of some provider's reply that is not a call (a text block, a part...)."""
    fields = fields_of(item)
    return any(provider.knows_item(item, fields) for provider in RECOGNISING)


def _reply_format(fields: Any) -> str | None:
    """The provider of a whole reply or a message (``None``: neither)."""
    for provider in RECOGNISING:
        if provider.claims_reply(fields):
            return provider.name
    for provider in RECOGNISING:
        if provider.claims_plain(fields):
            return provider.name
    return None


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


def read_tool_calls(reply: Any, format: str | None = None) -> tuple[str | None, list[ToolCall]]:
    """The format (recognised unless given) and the tool calls of ``reply``, in order.

    Raises:
        ValueError: an unknown ``format``.
        TypeError: ``reply`` has no shape of that format (or of any, when not given).
    """
    # (type first: a list is unhashable, a str subclass may make hashing raise)
    if format is not None and (type(format) is not str or format not in PROVIDERS):
        shown = repr(format) if type(format) is str else clip(format)
        raise ValueError(f"unknown format {shown}; one of {', '.join(FORMATS)}")
    try:
        found = format or SDK_FORMATS.get(type(reply)) or detect_format(reply)
        return found, (PROVIDERS[found].read(reply) if found is not None else [])
    except NotAReply:
        raise
    except Exception as exc:  # its own code raised (a property, __iter__), or a misfit part
        raise not_a_reply(reply, format and PROVIDERS[format].shape) from exc

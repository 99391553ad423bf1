"""Media inside results: finding it, and its MCP content form both ways."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any, cast, get_args
from urllib.parse import unquote

from ._values import MEDIA_TYPES, Audio, File, Image, Media, class_for

__all__ = ["mcp_form", "media_from_mcp", "media_parts", "mentions_media"]


def media_parts(value: object) -> list[Any] | None:
    """The parts of a result holding media: ``[value]`` for one media value, the items of
    a list or tuple holding at least one; ``None`` when ``value`` holds no media there."""
    kind = type(value)
    if kind in MEDIA_TYPES:
        return [value]
    if kind is not list and kind is not tuple:
        return None
    parts = cast("list[Any] | tuple[Any, ...]", value)
    for part in parts:
        if type(part) in MEDIA_TYPES:
            return list(parts)
    return None


def mentions_media(annotation: object, _depth: int = 0) -> bool:
    """Whether a type annotation names a media class anywhere (``list[str | Image]``)."""
    if annotation in MEDIA_TYPES:
        return True
    if _depth > 20:
        return False
    try:
        args = get_args(annotation)
    except Exception:  # an annotation object typing cannot read
        return False
    return any(mentions_media(arg, _depth + 1) for arg in args)


def mcp_form(value: Any, depth: int = 0) -> Any:
    """``value`` with every media value in it (through lists, tuples and dicts, their
    subclasses too: a ``defaultdict``, a ``NamedTuple``) replaced by its MCP content
    dict; the very same object when there is none. A container holding media comes
    back as a plain ``list`` or ``dict``."""
    kind = type(value)
    if kind in MEDIA_TYPES:
        return value.to_mcp()
    if depth > 100:
        return value
    # By the type's own methods: a subclass's overrides (or a proxy's __class__) never run.
    if issubclass(kind, dict):
        items: Any = dict.items(value)
    elif issubclass(kind, (list, tuple)):
        items = enumerate(list.__iter__(value) if issubclass(kind, list) else tuple.__iter__(value))
    else:
        return value
    pairs = list(items)
    changed = {key: new for key, item in pairs if (new := mcp_form(item, depth + 1)) is not item}
    if not changed:
        return value
    if issubclass(kind, dict):
        return {key: changed.get(key, item) for key, item in pairs}
    return [changed.get(index, item) for index, item in pairs]


def media_from_mcp(item: Mapping[str, Any]) -> Media | str:
    """The value an MCP content item (as a dict) stands for.

    ``text`` → its ``str``; ``image`` / ``audio`` → `Image` / `Audio`; an embedded
    ``resource`` → a `File` (a text resource holds its text's UTF-8 bytes; the name
    comes back from a ``file:///<name>`` uri); ``resource_link`` → a URL-only value of
    the class its ``mimeType`` says (`File` when none).

    Raises:
        ValueError: an unknown content type, or content that makes no valid media value.
    """
    kind = item.get("type")
    if kind == "text":
        return str(item["text"])
    if kind in ("image", "audio"):
        made: type[Media] = Image if kind == "image" else Audio
        return made(_b64decode(item.get("data")), mime_type=item.get("mimeType"))
    if kind == "resource":
        return _file_from_resource(item.get("resource") or {})
    if kind == "resource_link":
        mime, uri = item.get("mimeType"), item.get("uri")
        cls = class_for(mime)
        name = item.get("name")
        if cls is not File or name == uri:
            return cls(url=uri, mime_type=mime)
        return File(url=uri, mime_type=mime, name=name)
    raise ValueError(f"unknown MCP content type {kind!r}")


def _file_from_resource(resource: Mapping[str, Any]) -> File:
    uri, mime = str(resource.get("uri", "")), resource.get("mimeType")
    name = unquote(uri[len("file:///") :]) if uri.startswith("file:///") else None
    if "blob" in resource:
        data = _b64decode(resource["blob"])
    else:
        data = str(resource.get("text", "")).encode("utf-8", "surrogatepass")
        mime = mime or "text/plain"
    return File(data, mime_type=mime, name=name or None)


def _b64decode(text: object) -> bytes:
    if type(text) is not str:
        raise ValueError(f"MCP content data must be base64 text, got {type(text).__name__}")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"MCP content data is not valid base64: {exc}") from exc

"""Media in the writers' answers: what the providers share.

A result holding media at its top (one media value, or a list of parts holding one)
is rendered natively, part by part, in order; media deeper inside a value stays its
placeholder in the JSON text (`tooldeck._result.to_text`). Each provider module says
which media it takes where, and its size limits; here are the pieces they share:
finding a result's parts (`parts_of`), the text of the parts that are not media
(`Texts`), the placeholder of a value not sent (`not_sent`), a request's size budget
(`Budget`), and the trailing user message of the "Chat way" (`Trailing`).
"""

from __future__ import annotations

import mimetypes
from collections.abc import Callable
from typing import Any

from tooldeck._media import Media, is_media, media_parts
from tooldeck._result import ToolResult, part_text

__all__ = [
    "KB",
    "MB",
    "MIB",
    "Budget",
    "Texts",
    "Trailing",
    "b64_size",
    "content",
    "filename",
    "not_sent",
    "parts_of",
]

KB = 1000
MB = 1000 * KB  # the limits providers write as "MB" (read as decimal: the stricter one)
MIB = 1024 * 1024  # where a provider's own message gives the bytes (Anthropic: 5242880)


def parts_of(result: ToolResult) -> list[Any] | None:
    """The parts of a successful result holding media at its top, else ``None``.

    The writers call it only for a result whose data is no ``str`` or ``int`` (the
    text-only turn pays one type check per result, no more).
    """
    return media_parts(result.data) if result.success else None


def b64_size(media: Media) -> int:
    """How long a value's base64 text is (without computing it)."""
    return 4 * (((media.size or 0) + 2) // 3)


def not_sent(media: Media, why: str) -> str:
    """A value's placeholder saying why it was not sent, e.g.
    ``[image: image/png, 52428800 bytes: over Anthropic's 5 MB image limit, not sent]``."""
    return f"{media.placeholder[:-1]}: {why}, not sent]"


def filename(media: Media) -> str:
    """The file name a provider shows: the value's ``name``, else one made from its
    kind and type (``file.pdf``)."""
    if media.name is not None:
        return media.name
    suffix = mimetypes.guess_extension(media.mime_type, strict=False) or ""
    return media.kind + suffix


class Budget:
    """What is left of one request's limit for some media (in bytes of base64 text or
    of data, as the provider counts it); a value that does not fit is not sent."""

    __slots__ = ("left",)

    def __init__(self, limit: int) -> None:
        self.left = limit

    def take(self, size: int | None) -> bool:
        size = size or 0
        if size > self.left:
            return False
        self.left -= size
        return True


class Texts:
    """A provider's content list being built: media items as given, and the text
    between them (text parts, JSON values, placeholders) merged into one text item,
    one part per line, as ``str(ToolResult)`` writes them."""

    __slots__ = ("items", "lines", "make")

    def __init__(self, make: Callable[[str], dict[str, Any]]) -> None:
        self.make = make  # text -> the provider's text item
        self.items: list[dict[str, Any]] = []
        self.lines: list[str] = []

    def text(self, line: str) -> None:
        self.lines.append(line)

    def part(self, part: Any) -> None:
        """A part that is not media: its text as ``str(ToolResult)`` shows it."""
        self.lines.append(part_text(part))

    def add(self, item: dict[str, Any]) -> None:
        self._flush()
        self.items.append(item)

    def _flush(self) -> None:
        if self.lines:
            self.items.append(self.make("\n".join(self.lines)))
            self.lines = []

    def done(self) -> list[dict[str, Any]]:
        self._flush()
        return self.items


def content(
    parts: list[Any],
    make_text: Callable[[str], dict[str, Any]],
    convert: Callable[[Any], dict[str, Any] | str],
) -> list[dict[str, Any]]:
    """A result's parts as a provider's content list (see `Texts`): each media part as
    ``convert`` gives it (an item, or a placeholder line when the provider cannot take
    it), the text between merged."""
    out = Texts(make_text)
    for part in parts:
        if not is_media(part):
            out.part(part)
            continue
        item = convert(part)
        if type(item) is str:
            out.text(item)
        else:
            out.add(item)  # type: ignore[arg-type]
    return out.done()


class Trailing:
    """The "Chat way": media a provider takes in a user message but not in a tool
    result, gathered after the results in one user message, each call's group
    introduced by a text naming its call."""

    __slots__ = ("items", "make_text")

    def __init__(self, make_text: Callable[[str], dict[str, Any]]) -> None:
        self.make_text = make_text
        self.items: list[dict[str, Any]] = []

    def group(self, call: Any, media: list[dict[str, Any]]) -> None:
        if media:
            self.items.append(self.make_text(f"Media from tool call {call}:"))
            self.items.extend(media)

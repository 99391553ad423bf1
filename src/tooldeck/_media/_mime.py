"""Telling a media value's type: magic bytes, MIME type spellings, file suffixes.

Sniffing knows the formats models read (PNG, JPEG, GIF, WebP; WAV, MP3, OGG, FLAC;
PDF) by their magic bytes; other types come from ``mime_type=`` or a file's suffix
(the stdlib's `mimetypes`).
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from urllib.parse import unquote_to_bytes

__all__ = ["SNIFFED", "decode_data_url", "guess", "mime_of", "sniff"]

_MAGIC: tuple[tuple[str, tuple[tuple[int, bytes], ...]], ...] = (
    ("image/png", ((0, b"\x89PNG\r\n\x1a\n"),)),
    ("image/jpeg", ((0, b"\xff\xd8\xff"),)),
    ("image/gif", ((0, b"GIF87a"),)),
    ("image/gif", ((0, b"GIF89a"),)),
    ("image/webp", ((0, b"RIFF"), (8, b"WEBP"))),
    ("audio/wav", ((0, b"RIFF"), (8, b"WAVE"))),
    ("audio/mpeg", ((0, b"ID3"),)),
    ("audio/ogg", ((0, b"OggS"),)),
    ("audio/flac", ((0, b"fLaC"),)),
    ("application/pdf", ((0, b"%PDF-"),)),
)
SNIFFED = frozenset(mime for mime, _ in _MAGIC)

# Other spellings of the sniffed types (and what `mimetypes` says on some systems).
_ALIASES = {
    "image/jpg": "image/jpeg",
    "image/pjpeg": "image/jpeg",
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "audio/mp3": "audio/mpeg",
    "audio/x-flac": "audio/flac",
    "application/x-pdf": "application/pdf",
}
_MIME = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*")


def sniff(data: bytes) -> str | None:
    """The MIME type ``data``'s magic bytes say, or ``None``."""
    for mime, checks in _MAGIC:
        if all(data[at : at + len(magic)] == magic for at, magic in checks):
            return mime
    return "audio/mpeg" if _is_mp3_frame(data) else None


def _is_mp3_frame(data: bytes) -> bool:
    """An MPEG audio frame header without ID3 tag: sync bits, no reserved fields."""
    if len(data) < 4 or data[0] != 0xFF or data[1] & 0xE0 != 0xE0:
        return False
    version, layer = (data[1] >> 3) & 3, (data[1] >> 1) & 3
    bitrate, rate = data[2] >> 4, (data[2] >> 2) & 3
    return version != 1 and layer != 0 and bitrate not in (0, 15) and rate != 3


def mime_of(value: object) -> str:
    """A given ``mime_type``, normalised: lower case, parameters dropped, aliases resolved."""
    if type(value) is not str:
        raise ValueError(f"mime_type must be a str like 'image/png', got {type(value).__name__}")
    mime = value.split(";", 1)[0].strip().lower()
    if not _MIME.fullmatch(mime):
        raise ValueError(f"mime_type {value[:64]!r} is not a MIME type like 'image/png'")
    return _ALIASES.get(mime, mime)


def guess(name: str) -> str | None:
    """The MIME type a file name's suffix says (stdlib `mimetypes`), or ``None``."""
    guessed = mimetypes.guess_type(name, strict=False)[0]
    return _ALIASES.get(guessed, guessed) if guessed else None


def decode_data_url(url: str) -> tuple[bytes, str | None]:
    """A ``data:`` URL's bytes and the MIME type it names (``None`` if none)."""
    head, comma, payload = url[5:].partition(",")
    if not comma:
        raise ValueError("a data: URL needs a ',' before its data (data:<mime>;base64,<data>)")
    params = head.split(";")
    raw = unquote_to_bytes(payload)
    if params[-1].strip().lower() == "base64":
        params.pop()
        try:
            raw = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"a data: URL's base64 data is invalid: {exc}") from exc
    return raw, (params[0] or None)

"""Reading an HTTP response body from an untrusted server, within a bound.

At most ``MAX_BODY_BYTES`` are read, counted as they arrive and after decompression,
and the body is decoded as strict JSON: a 400 MB body, a gzip bomb, 100,000 nested
``[``, invalid UTF-8 or a number no double can hold is a `BodyError`, never a process
running out of memory or a ``RecursionError``. `clip` makes server text safe to show.
"""

from __future__ import annotations

import json
import math
import zlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import httpx

__all__ = ["MAX_BODY_BYTES", "BodyError", "Inflater", "clip", "decode_json", "read_body"]

# A weather answer is under 2 KB; a body past this is not one, and reading it whole (or
# inflating a small gzip bomb) would take the process's memory with it.
MAX_BODY_BYTES: Final = 1024 * 1024


def clip(text: str, limit: int, marker: str = "…") -> str:
    """``text`` on one printable line, cut to ``limit`` characters plus ``marker``.

    What reaches a model from outside (the city it sent, a server's ``reason``) must not
    carry control characters or terminal escapes: those are shown escaped (``\\x1b``), as
    are line breaks and lone surrogates (``\\udc80``).
    """
    shown = text[: limit + 1].encode("utf-8", "backslashreplace").decode("utf-8")
    if not shown.isprintable():
        shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)
    return shown if len(shown) <= limit else shown[:limit] + marker


class BodyError(ValueError):
    """The response body cannot be used: too large, badly compressed, or not JSON."""


class Inflater:
    """Decodes a body's Content-Encoding chunk by chunk, never past a given length."""

    def __init__(self, content_encoding: str) -> None:
        codings = [coding.strip().lower() for coding in content_encoding.split(",")]
        codings = [coding for coding in codings if coding not in ("", "identity")]
        if codings and codings not in (["gzip"], ["x-gzip"], ["deflate"]):
            # br, zstd, stacked encodings: never asked for, so never read.
            raise BodyError(f"unsupported Content-Encoding {content_encoding!r}")
        # 32 + MAX_WBITS reads a zlib or a gzip header, whichever comes.
        self._zlib = zlib.decompressobj(32 + zlib.MAX_WBITS) if codings else None

    def inflate(self, chunk: bytes, room: int) -> bytes:
        """At most ``room`` (> 0) bytes of ``chunk``, decoded."""
        if self._zlib is None:
            return chunk[:room]
        try:
            return self._zlib.decompress(chunk, room)
        except zlib.error as error:
            raise BodyError(f"the compressed body is damaged ({error})") from error

    def check_complete(self) -> None:
        if self._zlib is not None and not self._zlib.eof:
            raise BodyError("the compressed body ends early")


async def read_body(response: httpx.Response) -> bytes:
    """The body, decoded, reading at most ``MAX_BODY_BYTES`` before and after decoding.

    A streamed body's raw bytes are read and decompressed here because httpx inflates
    each network chunk whole: one 64 KiB read of a gzip bomb becomes 64 MiB at once. A
    body already in memory (what ``httpx.MockTransport`` and respx give for
    ``httpx.Response(200, json=...)``) was decoded by httpx when it was built: it is
    held to the same limit.

    Raises:
        BodyError: The body is larger than the limit or badly compressed.
    """
    import httpx  # (imported by the caller already: the module stays light to import)

    try:
        content = response.content
    except httpx.ResponseNotRead:  # streamed: read here, within the limit
        pass
    else:
        if len(content) > MAX_BODY_BYTES:
            raise BodyError(f"the body is larger than {MAX_BODY_BYTES} bytes")
        return content
    inflater = Inflater(response.headers.get("Content-Encoding", ""))
    body = bytearray()
    received = 0
    async for chunk in response.aiter_raw():
        received += len(chunk)
        body += inflater.inflate(chunk, MAX_BODY_BYTES + 1 - len(body))
        if received > MAX_BODY_BYTES or len(body) > MAX_BODY_BYTES:
            raise BodyError(f"the body is larger than {MAX_BODY_BYTES} bytes")
    inflater.check_complete()
    return bytes(body)


def decode_json(body: bytes) -> Any:
    """Strict JSON in UTF-8: no NaN or Infinity, no number a double cannot hold.

    Raises:
        BodyError: The body is not such JSON, or nests too deeply to decode.
    """
    try:
        return json.loads(
            body.decode("utf-8-sig"),
            parse_constant=_refuse_constant,
            parse_int=_json_int,
            parse_float=_json_float,
        )
    except RecursionError:  # 100,000 nested '[' is not a forecast
        raise BodyError("the JSON nests too deeply") from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError and the hooks'
        raise BodyError(f"the body is not JSON: {error}") from error


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_int(text: str) -> int:
    # 308 digits still fit a double; past them a number cannot be compared or converted.
    digits = len(text.lstrip("-"))
    if digits > 308:
        raise ValueError(f"a number of {digits} digits is out of range")
    return int(text)


def _json_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{clip(text, 40)} is out of range")
    return number

"""`Image`, `Audio` and `File`: media a tool returns, checked once when made.

A media value holds its bytes (or only a URL, which tooldeck never fetches) and a
MIME type read from the bytes when not given. It is checked once, when made: every
renderer (the text a model reads, each provider's answer, MCP content) trusts it.
Values are compared, hashed and shown by what they are, never by printing the
bytes; ``base64`` is computed once, when first asked, and kept.
"""

from __future__ import annotations

import base64 as _b64
import hashlib
import os
import stat
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar, final
from urllib.parse import quote, unquote, urlsplit

from typing_extensions import Self

from ._mime import SNIFFED, decode_data_url, guess, mime_of, sniff

# The type of bytes of no known type: says nothing any bytes could contradict.
_ANY_BYTES = "application/octet-stream"

__all__ = ["MEDIA_TYPES", "Audio", "File", "Image", "Media", "class_for", "is_media"]


class Media:
    """What `Image`, `Audio` and `File` share; use those classes."""

    __slots__ = ("_b64", "data", "mime_type", "name", "url")
    kind: ClassVar[str] = "media"
    data: bytes | None
    url: str | None
    mime_type: str
    name: str | None
    _b64: str | None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Results know media by its exact class (one identity check per value); a
        # subclass of Image would pass as a plain value: its repr, and no JSON.
        if Media not in cls.__bases__:
            raise TypeError(
                f"{cls.__bases__[0].__name__} cannot be subclassed: tooldeck knows media by "
                "its exact class; make an Image, Audio or File and keep anything more beside it"
            )
        super().__init_subclass__(**kwargs)

    def __init__(
        self,
        data: bytes | None = None,
        *,
        url: str | None = None,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        try:
            mime = None if mime_type is None else mime_of(mime_type)
        except ValueError as exc:
            raise ValueError(f"{self._cls()}: {exc}") from None
        if mime is not None:
            self._check_family(mime)  # before the bytes: the clearer message
        if url is not None:
            if data is not None:
                raise ValueError(f"{self._cls()}: give data or url, not both")
            url, data, mime = self._read_url(url, mime)
        if data is None and url is None:
            raise ValueError(f"{self._cls()} needs data (bytes) or url=")
        if url is None:
            data = self._bytes(data)
            mime = self._check_bytes(data, mime)
        elif mime is None:
            mime = self._from_suffix(urlsplit(url).path, url)
        self._check_family(mime)
        if name is not None and (type(name) is not str or not name.strip()):
            raise ValueError(f"{self._cls()}: name must be a non-empty str")
        _set = object.__setattr__
        _set(self, "data", data if url is None else None)
        _set(self, "url", url)
        _set(self, "mime_type", mime)
        _set(self, "name", name)
        _set(self, "_b64", None)

    @classmethod
    def _cls(cls) -> str:
        return cls.__name__

    def _read_url(self, url: object, mime: str | None) -> tuple[str | None, Any, str | None]:
        """``(url, None, mime)`` for an http(s) URL; ``(None, bytes, mime)`` for a data: URL."""
        if type(url) is not str:
            raise ValueError(f"{self._cls()}: url must be a str, got {type(url).__name__}")
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme == "data":
            try:
                raw, named = decode_data_url(url)
                named = None if named is None else mime_of(named)
            except ValueError as exc:
                raise ValueError(f"{self._cls()}: {exc}") from exc
            if named is not None and mime is not None and mime != named:
                raise ValueError(
                    f"{self._cls()}: mime_type {mime!r} contradicts the data: URL's {named!r}"
                )
            return None, raw, mime or named
        if scheme not in ("http", "https"):
            raise ValueError(
                f"{self._cls()}: url must be an http, https or data URL, got "
                f"{(scheme or url[:40])!r}; tooldeck never fetches other schemes"
            )
        if not urlsplit(url).netloc or any(c.isspace() or not c.isprintable() for c in url):
            raise ValueError(f"{self._cls()}: {url[:80]!r} is not a valid URL")
        return url, None, mime

    def _bytes(self, data: object) -> bytes:
        if type(data) is not bytes:
            if not isinstance(data, (bytearray, memoryview)):
                raise ValueError(
                    f"{self._cls()}: data must be bytes, got {type(data).__name__}"
                    " (for text, encode it: File(text.encode(), mime_type='text/plain'))"
                )
            data = bytes(data)
        if not data:
            raise ValueError(f"{self._cls()}: data is empty (0 bytes)")
        return data

    def _check_bytes(self, data: bytes, mime: str | None) -> str:
        """The type the bytes and ``mime`` agree on; ``ValueError`` if they cannot."""
        found = sniff(data)
        if mime is None:
            if found is None:
                raise ValueError(
                    f"{self._cls()}: cannot tell the type of these bytes; pass mime_type="
                )
            return found
        if found == "audio/mpeg" != mime and not data.startswith(b"ID3"):
            # An MPEG frame sync (no ID3 tag) is a weak sign: it tells a type when none
            # is given, never refuses a given one (UTF-16 text starts like a frame).
            found = None
        if mime.startswith("text/"):
            # Text is told by being UTF-8, not by magic numbers: those UTF-8 text can
            # start with are ASCII words ("ID3", "OggS", "%PDF-"), PNG's and JPEG's are not.
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                if found is not None:
                    raise ValueError(
                        f"{self._cls()}: the bytes are {found}, not {mime} as mime_type says"
                    ) from None
                raise ValueError(f"{self._cls()}: {mime} data must be UTF-8 text ({exc})") from None
            return mime
        if found is not None and found != mime and mime != _ANY_BYTES:
            raise ValueError(f"{self._cls()}: the bytes are {found}, not {mime} as mime_type says")
        if found is None and mime in SNIFFED:
            raise ValueError(f"{self._cls()}: the bytes are not {mime} as mime_type says")
        return mime

    def _from_suffix(self, path: str, where: str) -> str:
        mime = guess(path)
        if mime is None:
            raise ValueError(
                f"{self._cls()}: cannot tell the type of {where[:80]!r} from its name; "
                "pass mime_type="
            )
        return mime

    def _check_family(self, mime: str) -> None:
        family = self.kind
        if family in ("image", "audio") and not mime.startswith(family + "/"):
            raise ValueError(
                f"{self._cls()}: the type is {mime}, not {family}/*; "
                f"use {class_for(mime).__name__} for {mime}"
            )

    @classmethod
    def from_path(
        cls, path: str | PathLike[str], *, mime_type: str | None = None, name: str | None = None
    ) -> Self:
        """A value made from a file's bytes: its type from the bytes, else the suffix.

        Raises:
            ValueError: the path is missing, a directory or unreadable, the file is
                empty, or its type cannot be told.
        """
        where = Path(path)
        try:
            data = _read_regular(where)
        except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
            raise ValueError(f"{cls.__name__}.from_path: cannot read {str(path)!r}: {exc}") from exc
        if not data:
            raise ValueError(f"{cls.__name__}.from_path: {str(path)!r} is empty (0 bytes)")
        if mime_type is None and sniff(data) is None:
            mime_type = guess(where.name)
        if cls is not File:
            if name is not None:
                raise ValueError(f"{cls.__name__}.from_path: only a File has a name")
            return cls(data, mime_type=mime_type)
        return cls(data, mime_type=mime_type, name=where.name if name is None else name)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"{self._cls()} is immutable")

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"{self._cls()} is immutable")

    def _key(self) -> tuple[Any, ...]:
        return (type(self), self.data, self.url, self.mime_type, self.name)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined,unused-ignore]

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        shown = [f"name={self.name!r}"] if self.name is not None else []
        shown += [f"url={self.url!r}"] if self.url is not None else [f"size={self.size}"]
        return f"{self._cls()}({', '.join([*shown, f'mime_type={self.mime_type!r}'])})"

    def __reduce__(self) -> tuple[Any, ...]:
        args = {"url": self.url, "mime_type": self.mime_type}
        if self.name is not None:
            args["name"] = self.name
        return (_rebuild, (type(self), self.data, args))

    @property
    def size(self) -> int | None:
        """The data's length in bytes; ``None`` for a URL-only value."""
        return None if self.data is None else len(self.data)

    @property
    def base64(self) -> str | None:
        """The data as base64 text (computed once, then kept); ``None`` for a URL-only value."""
        if self._b64 is None and self.data is not None:
            object.__setattr__(self, "_b64", _b64.b64encode(self.data).decode("ascii"))
        return self._b64

    def data_url(self) -> str:
        """``data:<mime>;base64,<data>``; ``ValueError`` for a URL-only value."""
        if self.data is None:
            raise ValueError(f"{self!r} is URL-only: it has no data for a data: URL")
        return f"data:{self.mime_type};base64,{self.base64}"

    @property
    def placeholder(self) -> str:
        """What a model reads where the media cannot go, e.g. ``[image: image/png, 5 bytes]``.

        ``[<kind>: <name>, <mime>, <size> bytes]`` (the name when it has one), or
        ``[<kind>: <name>, <url>]`` for a URL-only value.
        """
        named = f"{_shown(self.name)}, " if self.name is not None else ""
        what = self.url if self.url is not None else f"{self.mime_type}, {self.size} bytes"
        return f"[{self.kind}: {named}{what}]"

    def to_mcp(self) -> dict[str, Any]:
        """The MCP content this value is (``ImageContent``, ``AudioContent``,
        ``EmbeddedResource``, or ``ResourceLink`` for a URL-only value), as a dict."""
        if self.url is not None:
            name = self.name or _url_name(self.url) or self.url
            return {
                "type": "resource_link",
                "uri": self.url,
                "name": name,
                "mimeType": self.mime_type,
            }
        if self.kind != "file":
            return {"type": self.kind, "data": self.base64, "mimeType": self.mime_type}
        resource: dict[str, Any] = {"uri": self._uri(), "mimeType": self.mime_type}
        if self.mime_type.startswith("text/"):
            resource["text"] = self.data.decode("utf-8")  # type: ignore[union-attr]
        else:
            resource["blob"] = self.base64
        return {"type": "resource", "resource": resource}

    def _uri(self) -> str:
        """``file:///<name>`` for a named file, else ``tooldeck://media/<sha256 prefix>``."""
        if self.name is not None:
            return "file:///" + quote(self.name, safe="")
        return "tooldeck://media/" + hashlib.sha256(self.data or b"").hexdigest()[:32]


def _read_regular(path: Path) -> bytes:
    """A regular file's bytes. Anything else is refused before a byte is read: a FIFO
    would block (opened without waiting here), a device could be endless (/dev/zero)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{str(path)!r} is not a regular file")
        return file.read()


_MAX_NAME = 120  # characters of a name a placeholder shows


def _shown(name: str) -> str:
    """A name as a placeholder shows it: on one line (control and line-breaking
    characters escaped, as ``\\n``), at most `_MAX_NAME` characters. A model reads it;
    a name must not add lines of its own to that text."""
    if not name.isprintable():
        name = "".join(c if c.isprintable() else repr(c)[1:-1] for c in name)
    return name if len(name) <= _MAX_NAME else name[: _MAX_NAME - 1] + "…"


def _rebuild(cls: type[Media], data: bytes | None, args: dict[str, Any]) -> Media:
    return cls(data, **args)


@final
class Image(Media):
    """An image a tool returns: PNG, JPEG, GIF, WebP, or another ``image/*`` type.

    ``Image(data=None, *, url=None, mime_type=None)``: from bytes (the type read from
    them when not given) or from an http(s) URL (never fetched; the type from
    ``mime_type`` or the URL's suffix). A ``data:`` URL is decoded into ``data``.
    Immutable; ``ValueError`` when it cannot be a valid image.
    """

    __slots__ = ()
    kind: ClassVar[str] = "image"

    def __init__(
        self, data: bytes | None = None, *, url: str | None = None, mime_type: str | None = None
    ) -> None:
        super().__init__(data, url=url, mime_type=mime_type)


@final
class Audio(Media):
    """Audio a tool returns: WAV, MP3, OGG, FLAC, or another ``audio/*`` type.

    Made like `Image`; ``ValueError`` when it cannot be valid audio.
    """

    __slots__ = ()
    kind: ClassVar[str] = "audio"

    def __init__(
        self, data: bytes | None = None, *, url: str | None = None, mime_type: str | None = None
    ) -> None:
        super().__init__(data, url=url, mime_type=mime_type)


@final
class File(Media):
    """A file a tool returns (a PDF, a text file, any type), with an optional ``name``.

    ``File(data=None, *, url=None, mime_type=None, name=None)``; ``from_path`` names it
    after the file. A ``text/*`` file must be UTF-8. A URL-only file without a name is
    named after the URL's last path segment.
    """

    __slots__ = ()
    kind: ClassVar[str] = "file"

    def __init__(
        self,
        data: bytes | None = None,
        *,
        url: str | None = None,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        if name is None and type(url) is str and url[:5].lower() != "data:":
            name = _url_name(url)
        super().__init__(data, url=url, mime_type=mime_type, name=name)


def _url_name(url: str) -> str | None:
    """The last segment of a URL's path (``chart.png``), or ``None``."""
    return unquote(urlsplit(url).path.rpartition("/")[2]).strip() or None


MEDIA_TYPES: frozenset[type[Media]] = frozenset({Image, Audio, File})
for _cls in MEDIA_TYPES:
    _cls.__module__ = "tooldeck"  # where users import them from (reprs, pickles, docs)


def class_for(mime: str | None) -> type[Media]:
    family = (mime or "").split("/", 1)[0]
    return Image if family == "image" else Audio if family == "audio" else File


def is_media(value: object) -> bool:
    """Whether ``value`` is an `Image`, `Audio` or `File` (its exact class)."""
    return type(value) in MEDIA_TYPES

"""Media values, for all inputs: made or refused with ValueError, and lossless as MCP content."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import Audio, File, Image, ToolResult
from tooldeck._media import media_from_mcp

CLASSES = st.sampled_from([Image, Audio, File])
HEADERS = [
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"GIF89a",
    b"RIFF\x00\x00\x00\x00WEBP",
    b"RIFF\x00\x00\x00\x00WAVE",
    b"ID3",
    b"\xff\xfb\x90\x64",
    b"OggS",
    b"fLaC",
    b"%PDF-",
]
MIMES = st.sampled_from(
    [
        None,
        "image/png",
        "image/jpeg",
        "image/svg+xml",
        "audio/wav",
        "audio/mpeg",
        "audio/x-wav",
        "application/pdf",
        "application/octet-stream",
        "text/plain",
        "text/csv; charset=utf-8",
        "video/mp4",
        "nonsense",
        "",
    ]
)
# Bytes that start like a known format about half the time, arbitrary otherwise.
DATA = st.one_of(
    st.binary(max_size=64),
    st.builds(lambda head, tail: head + tail, st.sampled_from(HEADERS), st.binary(max_size=32)),
    st.text(max_size=32).map(lambda text: text.encode("utf-8", "surrogatepass")),
)
URLS = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda scheme, path, suffix: f"{scheme}://example.com/{path}{suffix}",
        st.sampled_from(["http", "https", "ftp", "file", "HTTPS", "data"]),
        st.text(alphabet="abc/%20é", max_size=8),
        st.sampled_from(["", ".png", ".pdf", ".wav", ".txt", ".bin"]),
    ),
)


def _made(make: Any) -> Any:
    """The value ``make()`` makes, or ``None`` when it is refused with ValueError (only)."""
    try:
        return make()
    except ValueError:
        return None


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(cls=CLASSES, data=DATA, mime=MIMES, name=st.one_of(st.none(), st.text(max_size=10)))
def test_any_bytes_make_a_valid_value_or_a_value_error(
    cls: Any, data: bytes, mime: str | None, name: str | None
) -> None:
    named = {"name": name} if cls is File else {}
    value = _made(lambda: cls(data, mime_type=mime, **named))
    if value is None:
        return
    assert value.data == data and value.size == len(data)
    if cls is not File:
        assert value.mime_type.startswith(cls.kind + "/")
    _check_round_trips(value)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(cls=CLASSES, url=URLS, mime=MIMES)
def test_any_url_makes_a_valid_value_or_a_value_error(cls: Any, url: str, mime: str | None) -> None:
    value = _made(lambda: cls(url=url, mime_type=mime))
    if value is None:
        return
    assert value.data is None and value.url == url and value.size is None
    assert url.split(":")[0].lower() in ("http", "https")
    _check_round_trips(value)


def _check_round_trips(value: Any) -> None:
    """MCP content and back is the same value; every text and dict form works."""
    content = value.to_mcp()
    json.dumps(content)
    back = media_from_mcp(json.loads(json.dumps(content)))
    if value.url is not None and value.mime_type.split("/")[0] in ("image", "audio"):
        # DESIGN: a resource link is read as the class its type says (a File's name is lost)
        cls = Image if value.mime_type.startswith("image/") else Audio
        assert back == cls(url=value.url, mime_type=value.mime_type)
    else:
        assert back == value
    parts = ["caption", value, {"n": value}]
    result = ToolResult.ok(parts)
    assert value.placeholder in str(result)
    assert repr(value).startswith(type(value).__name__ + "(")
    assert json.loads(json.dumps(result.to_dict()))["data"][1] == content


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)
MEDIA = st.sampled_from(
    [
        Image(HEADERS[0] + b"x"),
        Audio(HEADERS[4] + b"x"),
        File(b"%PDF-1", name="r.pdf"),
        Image(url="https://x.org/a.png"),
    ]
)


@given(value=JSON)
def test_values_without_media_keep_their_json_text(value: Any) -> None:
    expected = value if type(value) is str else json.dumps(value, ensure_ascii=False)
    assert str(ToolResult.ok(value)) == expected
    assert ToolResult.ok(value).to_dict()["data"] is value


class _Opaque:
    def __str__(self) -> str:
        return "opaque"


@given(parts=st.lists(JSON | MEDIA | st.just(_Opaque()), max_size=6), media=MEDIA)
def test_parts_holding_media_are_one_line_each_and_to_dict_is_json(
    parts: list[Any], media: Any
) -> None:
    parts = [*parts, media]
    text = str(ToolResult.ok(parts))
    assert media.placeholder in text
    assert media.base64 is None or media.base64 not in text  # never the bytes
    data = json.loads(
        json.dumps(ToolResult.ok([p for p in parts if type(p) is not _Opaque]).to_dict())
    )["data"]
    assert data[-1] == media.to_mcp()

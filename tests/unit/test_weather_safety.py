"""The weather tool's safety helpers: strict JSON, bounded inflation, clipped text.

What the server sends (and what a model sends as a city) never reaches the model
unbounded or with control characters, and a malformed body never escapes as anything
but ``api_error``. The HTTP side is in tests/integration/test_weather_limits.py.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import AsyncMock, patch

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry
from tooldeck.tools import _http_body as body_reader
from tooldeck.tools import weather
from tooldeck.tools._http_body import MAX_BODY_BYTES
from tooldeck.tools.weather import get_weather

DOCS_PAGE = Path(__file__).parents[2] / "docs" / "weather.md"
REQUEST = httpx.Request("GET", "https://api.open-meteo.com/v1/forecast")
ESCAPES = "\x1b[2J\x1b[31m\x1b]0;title\x07\x00\r\n\u202e\x7f\ud800"
CLIPPED = "…（已截斷）"


@pytest.fixture
def fetch() -> Iterator[AsyncMock]:
    with patch.object(weather, "_fetch_weather") as mock:
        yield mock


def is_safe(text: str) -> bool:
    """Printable on one line, and encodable (no lone surrogates)."""
    text.encode("utf-8")
    return text.isprintable()


# --- _clip -----------------------------------------------------------------------------


@given(text=st.text(), limit=st.integers(1, 300))
def test_clip_is_printable_and_bounded(text: str, limit: int) -> None:
    shown = body_reader.clip(text, limit, CLIPPED)
    assert is_safe(shown)
    assert len(shown) <= limit + len(CLIPPED)
    if text.isprintable() and len(text) <= limit:
        assert shown == text
    else:
        assert shown != text


@given(text=st.text(st.characters(blacklist_categories=["Cs"]), min_size=1))
def test_clip_keeps_a_prefix_of_printable_text(text: str) -> None:
    shown = body_reader.clip(text, 10)
    if text[:11].isprintable():
        assert shown == (text if len(text) <= 10 else text[:10] + "…")


def test_clip_escapes_control_characters_and_escapes() -> None:
    shown = body_reader.clip(ESCAPES, 200)
    assert shown == r"\x1b[2J\x1b[31m\x1b]0;title\x07\x00\r\n\u202e\x7f\ud800"


def test_clip_of_megabytes_keeps_only_the_head() -> None:
    shown = body_reader.clip("\x00" * 5_000_000, 2000, CLIPPED)
    assert shown == r"\x00" * 500 + CLIPPED


# --- _decode_json --------------------------------------------------------------------------


@settings(max_examples=300)
@given(body=st.binary(max_size=200))
def test_any_bytes_decode_or_raise_a_body_error(body: bytes) -> None:
    # Anything but a _BodyError (a RecursionError, an UnicodeDecodeError) fails the test.
    with contextlib.suppress(body_reader.BodyError):
        body_reader.decode_json(body)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(value=JSON_VALUES)
def test_plain_json_round_trips(value: Any) -> None:
    assert body_reader.decode_json(json.dumps(value).encode()) == value


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000,
        b"[" * 100_000 + b"]" * 100_000,  # well-formed, and still too deep
        b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    ],
)
def test_deep_nesting_is_a_body_error(body: bytes) -> None:
    with pytest.raises(body_reader.BodyError, match="the JSON nests too deeply"):
        body_reader.decode_json(body)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"NaN", "NaN is not JSON"),
        (b"[Infinity]", "Infinity is not JSON"),
        (b"-Infinity", "-Infinity is not JSON"),
        (b"1e400", "1e400 is out of range"),
        (b"-1.5e999", "-1.5e999 is out of range"),
        (b"9" * 309, "a number of 309 digits is out of range"),
        (b"-" + b"9" * 5000, "a number of 5000 digits is out of range"),
        (b'"\xff"', "'utf-8' codec can't decode byte 0xff"),
        (b'"\xed\xa0\x80"', "'utf-8' codec can't decode byte 0xed"),  # an encoded surrogate
        ('{"a": 1}'.encode("utf-16"), "'utf-8' codec can't decode byte 0xff"),
        (b"", "Expecting value"),
    ],
)
def test_not_strict_json_is_a_body_error(body: bytes, message: str) -> None:
    with pytest.raises(body_reader.BodyError, match="the body is not JSON") as caught:
        body_reader.decode_json(body)
    assert message in str(caught.value)


def test_largest_numbers_a_double_holds_are_json() -> None:
    assert body_reader.decode_json(b"9" * 308) == int("9" * 308)
    assert body_reader.decode_json(b"1.7976931348623157e308") == 1.7976931348623157e308
    assert body_reader.decode_json(b"\xef\xbb\xbf{}") == {}  # a UTF-8 BOM is tolerated


# --- _Inflater -------------------------------------------------------------------------------


@functools.cache  # 64 MiB of zeros packed at level 9: ~0.35 s of CPU, made once
def bomb_head(size: int) -> bytes:
    """The first ``size`` bytes of gzip'd zeros: each KiB inflates to about 1 MiB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1024 * 1024)
    head = bytearray()
    while len(head) < size:
        head += packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    return bytes(head[:size])


@pytest.mark.parametrize("room", [1, 1000, MAX_BODY_BYTES + 1])
@pytest.mark.parametrize("encoding", ["gzip", "x-gzip", "GZIP", "identity, gzip"])
def test_one_read_of_a_bomb_inflates_no_further_than_asked(encoding: str, room: int) -> None:
    # One 64 KiB network read of gzip'd zeros is 64 MiB inflated: never made at once.
    inflater = body_reader.Inflater(encoding)
    assert len(inflater.inflate(bomb_head(64 * 1024), room)) == room


@pytest.mark.parametrize("encoding", ["", "identity", " Identity "])
def test_identity_bodies_are_cut_at_the_room_left(encoding: str) -> None:
    inflater = body_reader.Inflater(encoding)
    assert inflater.inflate(b"abcdef", 4) == b"abcd"
    inflater.check_complete()


@pytest.mark.parametrize("encoding", ["deflate", "gzip"])
def test_deflate_and_gzip_both_inflate(encoding: str) -> None:
    data = zlib.compress(b"{}") if encoding == "deflate" else gzip.compress(b"{}")
    inflater = body_reader.Inflater(encoding)
    assert inflater.inflate(data, 100) == b"{}"
    inflater.check_complete()


@pytest.mark.parametrize("encoding", ["br", "zstd", "compress", "gzip, gzip", "gzip, br", "x"])
def test_other_encodings_are_refused(encoding: str) -> None:
    with pytest.raises(body_reader.BodyError, match="unsupported Content-Encoding"):
        body_reader.Inflater(encoding)


def test_an_unfinished_stream_is_incomplete() -> None:
    inflater = body_reader.Inflater("gzip")
    inflater.inflate(bomb_head(100), 10)
    with pytest.raises(body_reader.BodyError, match="ends early"):
        inflater.check_complete()


# --- what reaches the model ----------------------------------------------------------------


def status_error(status: int, content: bytes) -> httpx.HTTPStatusError:
    response = httpx.Response(status, content=content, request=REQUEST)
    return httpx.HTTPStatusError("bad status", request=REQUEST, response=response)


async def test_a_reason_of_megabytes_is_clipped_and_printable(fetch: AsyncMock) -> None:
    reason = ESCAPES + "R" * 2_000_000
    fetch.side_effect = status_error(400, json.dumps({"error": True, "reason": reason}).encode())
    result = await get_weather(city="台北")
    head = "api_error: 天氣服務回應錯誤（HTTP 400）："
    assert result.error.startswith(head + r"\x1b[2J\x1b[31m\x1b]0;title\x07\x00\r\n\u202e")
    assert result.error.endswith("R" + CLIPPED)
    assert len(result.error) == len(head) + 2000 + len(CLIPPED)
    assert is_safe(result.error)


@pytest.mark.parametrize(
    "content",
    [b"[" * 100_000, b'{"reason": NaN}', b"\xff", b'{"reason": 5}', b"", b'"reason"'],
)
async def test_an_unusable_error_body_gives_the_status_alone(
    fetch: AsyncMock, content: bytes
) -> None:
    fetch.side_effect = status_error(503, content)
    assert (await get_weather(city="台北")).error == "api_error: 天氣服務回應錯誤（HTTP 503）"


async def test_an_unread_streamed_error_response_gives_the_status_alone(
    fetch: AsyncMock,
) -> None:
    response = httpx.Response(502, stream=httpx.ByteStream(b"{}"), request=REQUEST)
    fetch.side_effect = httpx.HTTPStatusError("bad", request=REQUEST, response=response)
    assert (await get_weather(city="台北")).error == "api_error: 天氣服務回應錯誤（HTTP 502）"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (httpx.RemoteProtocolError("illegal status line: " + ESCAPES * 5000), "network_error"),
        (httpx.ReadError(ESCAPES * 5000), "network_error"),
        (httpx.DecodingError(ESCAPES * 5000), "api_error"),
        (ValueError(ESCAPES * 5000), "api_error"),
    ],
)
async def test_exception_text_is_clipped_and_printable(
    fetch: AsyncMock, error: Exception, code: str
) -> None:
    fetch.side_effect = error
    result = await get_weather(city="台北")
    assert result.error.startswith(f"{code}: ")
    assert result.error.endswith(CLIPPED + "）")
    assert "\x1b" not in result.error
    assert len(result.error) < 2100
    assert is_safe(result.error)


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("temperature", "shown"),
    [
        # Past a double's range: no OverflowError.
        pytest.param(10**400, "100000000000000000...0000000000000000000", id="10**400"),
        # Past Python's digit limit for str().
        pytest.param(10**5000, "<int>", id="10**5000"),
        pytest.param("x" * 1_000_000, "'xxxxxxxxxxxx...xxxxxxxxxxxxx'", id="long-str"),
        pytest.param(nested(500), "[[[[...]]]]", id="deep-list"),
        pytest.param(
            {"k": ESCAPES},
            r"{'k': '\x1b[2J\x1b[...02e\x7f\ud800'}",
            id="escapes",
        ),
    ],
)
async def test_a_wrong_value_is_shown_short(fetch: AsyncMock, temperature: Any, shown: str) -> None:
    fetch.return_value = {"current": {"temperature_2m": temperature, "weather_code": 1}}
    result = await get_weather(city="台北")
    assert result.error == (
        "api_error: 無法取得天氣資訊，天氣服務的回應無法使用"
        f"（current.temperature_2m should be a number, got {shown}）"
    )


async def test_a_city_with_escapes_is_echoed_printable() -> None:
    result = await get_weather(city="\x1b[2J東京\x00\u202e")
    assert result.error.startswith(
        "unsupported_city: 目前僅支援台灣主要城市的天氣查詢，無法查詢「\\x1b[2J東京\\x00\\u202e」"
    )
    assert is_safe(result.error)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reason=st.text(max_size=3000), status=st.integers(400, 599))
async def test_every_reason_reaches_the_model_safe(
    fetch: AsyncMock, reason: str, status: int
) -> None:
    body = json.dumps({"reason": reason}).encode()
    fetch.side_effect = status_error(status, body)
    registry = ToolRegistry()
    registry.register(get_weather)
    answer = await registry.async_call_tool("get_weather", {"city": "台北"})
    assert answer.startswith(f"Error: api_error: 天氣服務回應錯誤（HTTP {status}）")
    assert is_safe(answer)
    assert len(answer) < 2100


async def test_docs_page_quotes_the_body_errors() -> None:
    page = DOCS_PAGE.read_text(encoding="utf-8")
    with pytest.raises(body_reader.BodyError) as not_json:
        body_reader.decode_json(b"<html><body>Service Unavailable</body></html>")
    too_large = httpx.Response(200, stream=httpx.ByteStream(b" " * (MAX_BODY_BYTES + 1)))
    with pytest.raises(body_reader.BodyError) as too_much:
        await body_reader.read_body(too_large)
    for caught in (not_json, too_much):
        assert f"{weather._describe_failure(caught.value, 10)}\n" in page

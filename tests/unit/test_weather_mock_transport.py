"""The weather tool under ``httpx.MockTransport``: what the standard httpx mocks give.

``httpx.MockTransport`` (and respx) answer with an ``httpx.Response`` already in memory
(``httpx.Response(200, json=...)``), or one with a stream of its own; a transport may
also raise anything. Whatever comes back, the answer is a forecast or an error starting
with one of the four codes (DESIGN, fine print), and the 1 MiB body cap holds for
in-memory and streamed bodies alike.

The tool's shared client is built with ``httpx.AsyncClient(...)``: the tests make that
a client on a ``MockTransport``.
"""

from __future__ import annotations

import asyncio
import builtins
import functools
import gzip
import json
import ssl
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import ToolResult
from tooldeck.tools import weather
from tooldeck.tools._http_body import MAX_BODY_BYTES
from tooldeck.tools.weather import aclose_clients, get_weather

CODES = ("unsupported_city:", "api_timeout:", "api_error:", "network_error:")
FORECAST = {
    "current": {
        "time": "2025-12-25T14:30",
        "temperature_2m": 22.5,
        "apparent_temperature": 24.1,
        "relative_humidity_2m": 75,
        "weather_code": 2,
        "wind_speed_10m": 12.3,
    }
}
Handler = Callable[[httpx.Request], httpx.Response]

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def mock_transport(monkeypatch: pytest.MonkeyPatch) -> Callable[[Handler], None]:
    """Route the tool's HTTP client through ``httpx.MockTransport(handler)``."""
    monkeypatch.delenv(weather.URL_ENV, raising=False)
    monkeypatch.delenv(weather.TIMEOUT_ENV, raising=False)
    real = httpx.AsyncClient

    def use(handler: Handler) -> None:
        transport = httpx.MockTransport(handler)
        monkeypatch.setattr(httpx, "AsyncClient", functools.partial(real, transport=transport))

    return use


def ask(**arguments: Any) -> ToolResult:
    async def call() -> ToolResult:
        try:
            return await get_weather.run({"city": "台北", **arguments})
        finally:
            await aclose_clients()

    return asyncio.run(call())


def assert_coded(result: ToolResult, code: str) -> None:
    assert not result.success
    assert result.error is not None and result.error.startswith(code), result.error


# -- in-memory responses ---------------------------------------------------------------------


def test_a_forecast_in_memory_is_read(mock_transport: Callable[[Handler], None]) -> None:
    mock_transport(lambda request: httpx.Response(200, json=FORECAST))
    result = ask(include_details=True)
    assert result.success, result.error
    assert result.data["temperature"] == 22.5
    assert result.data["wind_speed"] == 12.3
    assert result.data["weather"] == "多雲"


def test_a_gzipped_forecast_in_memory_is_read(mock_transport: Callable[[Handler], None]) -> None:
    body = gzip.compress(json.dumps(FORECAST).encode())
    mock_transport(
        lambda request: httpx.Response(200, content=body, headers={"Content-Encoding": "gzip"})
    )
    assert ask().success


@pytest.mark.parametrize("status", [400, 404, 429, 500, 503])
def test_an_error_status_in_memory_is_api_error(
    mock_transport: Callable[[Handler], None], status: int
) -> None:
    reason = {"error": True, "reason": "Latitude must be in range of -90 to 90°."}
    mock_transport(lambda request: httpx.Response(status, json=reason))
    result = ask()
    assert_coded(result, "api_error:")
    assert f"HTTP {status}" in (result.error or "")
    assert "Latitude must be in range" in (result.error or "")


def test_a_body_past_the_cap_in_memory_is_api_error(
    mock_transport: Callable[[Handler], None],
) -> None:
    mock_transport(lambda request: httpx.Response(200, content=b" " * (MAX_BODY_BYTES + 1)))
    result = ask()
    assert_coded(result, "api_error:")
    assert str(MAX_BODY_BYTES) in (result.error or "")


def test_a_body_of_exactly_the_cap_in_memory_is_read(
    mock_transport: Callable[[Handler], None],
) -> None:
    text = json.dumps(FORECAST).encode()
    mock_transport(
        lambda request: httpx.Response(200, content=text + b" " * (MAX_BODY_BYTES - len(text)))
    )
    assert ask().success


# -- streamed responses --------------------------------------------------------------------------


class Endless(httpx.AsyncByteStream):
    """A body that never ends; counts what was taken from it."""

    def __init__(self) -> None:
        self.sent = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            self.sent += 65536
            yield b" " * 65536


def test_an_endless_streamed_body_stops_at_the_cap(
    mock_transport: Callable[[Handler], None],
) -> None:
    stream = Endless()
    mock_transport(lambda request: httpx.Response(200, stream=stream))
    result = ask()
    assert_coded(result, "api_error:")
    assert str(MAX_BODY_BYTES) in (result.error or "")
    assert stream.sent <= MAX_BODY_BYTES + 2 * 65536


def test_a_streamed_forecast_is_read(mock_transport: Callable[[Handler], None]) -> None:
    class Chunks(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            text = json.dumps(FORECAST).encode()
            for start in range(0, len(text), 7):
                yield text[start : start + 7]

    mock_transport(lambda request: httpx.Response(200, stream=Chunks()))
    assert ask().success


# -- transports that raise --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (OSError("no route to host"), "network_error:"),
        (ConnectionResetError(104, "Connection reset by peer"), "network_error:"),
        (
            ssl.SSLError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"),
            "network_error:",
        ),
        (httpx.ConnectError("refused"), "network_error:"),
        (httpx.ReadTimeout("slow"), "api_timeout:"),
        (TimeoutError(), "api_timeout:"),
        (RuntimeError("a bug in the mock"), "api_error:"),
        (KeyError("x"), "api_error:"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else value,
)
def test_a_transport_that_raises_is_answered_with_a_code(
    mock_transport: Callable[[Handler], None], error: Exception, code: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error

    mock_transport(handler)
    assert_coded(ask(), code)


# -- whatever the transport does ------------------------------------------------------------------


def _exception_classes() -> list[type[Exception]]:
    found: list[type[Exception]] = []
    pending: list[type[Exception]] = [Exception]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    # Built-in and httpx exceptions that can be made from a message.
    usable = []
    for cls in found:
        if cls.__module__ not in ("builtins", "httpx", "ssl", "json.decoder", "httpx._exceptions"):
            continue
        if _made(cls) is not None:
            usable.append(cls)
    return sorted(set(usable), key=lambda cls: cls.__qualname__)


def _made(cls: type[Exception]) -> Exception | None:
    """``cls("message")``, or ``cls()`` (httpx's StreamConsumed takes no message)."""
    for arguments in (("message",), ()):
        try:
            return cls(*arguments)
        except Exception:
            continue
    return None


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


EXCEPTIONS = [*_exception_classes(), Unprintable]
RAISED = st.sampled_from(EXCEPTIONS).map(_made)
BODIES = st.one_of(
    st.binary(max_size=300),
    st.just(json.dumps(FORECAST).encode()),
    st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    ).map(lambda value: json.dumps({"current": value}).encode()),
)
ANSWERS = st.tuples(st.integers(100, 599), BODIES, st.booleans())


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(outcome=st.one_of(RAISED, ANSWERS))
def test_whatever_the_transport_does_the_answer_is_a_forecast_or_coded(
    mock_transport: Callable[[Handler], None], outcome: Exception | tuple[int, bytes, bool]
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if isinstance(outcome, Exception):
            raise outcome
        status, body, streamed = outcome
        if not streamed:
            return httpx.Response(status, content=body)

        class Once(httpx.AsyncByteStream):
            async def __aiter__(self) -> AsyncIterator[bytes]:
                yield body

        return httpx.Response(status, stream=Once())

    mock_transport(handler)
    result = ask()
    if result.success:
        assert not isinstance(outcome, Exception) and 200 <= outcome[0] < 300
        assert set(result.data) == {"city", "temperature", "weather", "queried_at"}
    else:
        assert result.error is not None and result.error.startswith(CODES), result.error


def test_the_exceptions_tried_cover_the_usual_suspects() -> None:
    names = {cls.__name__ for cls in EXCEPTIONS}
    assert {"OSError", "SSLError", "ValueError", "RuntimeError", "KeyError"} <= names
    assert {"ConnectError", "ReadTimeout", "DecodingError", "StreamConsumed"} <= names
    assert builtins.BaseException not in EXCEPTIONS

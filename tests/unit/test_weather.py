"""tooldeck.tools.weather without a network: the HTTP edge (_fetch_weather) is patched."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from unittest.mock import AsyncMock, patch

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry, ToolResult
from tooldeck.tools import weather
from tooldeck.tools.weather import SUPPORTED_CITIES, aclose_clients, get_weather

DOCS_PAGE = Path(__file__).parents[2] / "docs" / "weather.md"

# Seed 002, "OpenAI Function Calling Format", verbatim.
SEED_OPENAI_JSON = json.loads("""
{
  "type": "function",
  "function": {
    "name": "get_weather",
    "description": "查詢台灣城市的即時天氣資訊。可查詢溫度、天氣狀況、濕度、風速等。支援的城市：台北、新北、桃園、台中、台南、高雄、基隆、新竹、嘉義、屏東、宜蘭、花蓮、台東。",
    "parameters": {
      "type": "object",
      "properties": {
        "city": {
          "type": "string",
          "description": "要查詢的城市名稱，例如：台北、高雄、台中"
        },
        "include_details": {
          "type": "boolean",
          "description": "是否包含詳細資訊（濕度、風速、體感溫度）",
          "default": false
        }
      },
      "required": ["city"]
    }
  }
}
""")  # noqa: E501

# The body api.open-meteo.com/v1/forecast answers with (trimmed to what matters).
OPEN_METEO_BODY: dict[str, Any] = {
    "latitude": 25.0,
    "longitude": 121.5,
    "timezone": "Asia/Taipei",
    "current_units": {"wind_speed_10m": "km/h"},
    "current": {
        "time": "2025-12-25T14:30",
        "interval": 900,
        "temperature_2m": 22.5,
        "apparent_temperature": 24.1,
        "relative_humidity_2m": 75,
        "weather_code": 2,
        "wind_speed_10m": 12.3,
    },
}

ALL_WMO_CODES = [0, 1, 2, 3, 45, 48, 51, 53, 55, 56, 57, 61, 63, 65, 66, 67]
ALL_WMO_CODES += [71, 73, 75, 77, 80, 81, 82, 85, 86, 95, 96, 99]


def body_with(**current: Any) -> dict[str, Any]:
    return {**OPEN_METEO_BODY, "current": {**OPEN_METEO_BODY["current"], **current}}


@pytest.fixture
def fetch() -> Iterator[AsyncMock]:
    with patch.object(weather, "_fetch_weather", return_value=OPEN_METEO_BODY) as mock:
        yield mock


@pytest.fixture
def registry() -> ToolRegistry:
    fresh = ToolRegistry()
    fresh.register(get_weather)
    return fresh


class TestWeatherTool:
    """Seed 002's own test class, adapted from the WeatherTool class to the function."""

    @pytest.fixture
    def weather_tool(self) -> Any:
        from tooldeck.tools.weather import get_weather

        return get_weather

    def test_implements_base_tool(self, weather_tool: Any) -> None:
        """驗證實作 BaseTool"""
        assert hasattr(weather_tool, "name")
        assert hasattr(weather_tool, "description")
        assert hasattr(weather_tool, "parameters")
        assert hasattr(weather_tool, "execute")

    def test_name(self, weather_tool: Any) -> None:
        """驗證工具名稱"""
        assert weather_tool.name == "get_weather"

    def test_parameters_schema(self, weather_tool: Any) -> None:
        """驗證參數 schema"""
        params = weather_tool.parameters
        assert params["type"] == "object"
        assert "city" in params["properties"]
        assert "city" in params["required"]

    async def test_execute_success(self, weather_tool: Any) -> None:
        """測試成功查詢"""
        with patch.object(weather, "_fetch_weather") as mock:
            mock.return_value = OPEN_METEO_BODY
            result = await weather_tool.execute(city="台北")
            assert result.success is True
            assert "temperature" in result.data

    async def test_execute_unsupported_city(self, weather_tool: Any) -> None:
        """測試不支援的城市"""
        result = await weather_tool.execute(city="東京")
        assert result.success is False
        assert "unsupported_city" in result.error


# --- schema and registration -----------------------------------------------------


def test_openai_export_equals_seed_json(registry: ToolRegistry) -> None:
    assert registry.get_openai_tools() == [SEED_OPENAI_JSON]
    assert get_weather.export("openai") == SEED_OPENAI_JSON


def test_builtin_registered_in_default_registry() -> None:
    import tooldeck.tools

    assert tooldeck.tools.get_weather is get_weather
    assert ToolRegistry.default().get("get_weather") is get_weather
    assert sorted(weather.__all__) == ["SUPPORTED_CITIES", "aclose_clients", "get_weather"]


def test_tagged_weather(registry: ToolRegistry) -> None:
    assert registry.list_tools(tags="weather") == ["get_weather"]


def test_is_still_the_coroutine_function() -> None:
    assert inspect.iscoroutinefunction(inspect.unwrap(get_weather))
    assert get_weather.__name__ == "get_weather"


async def test_direct_call_returns_tool_result(fetch: AsyncMock) -> None:
    result = await get_weather(city="台北")
    assert isinstance(result, ToolResult)
    assert result.success


async def test_registry_faces(registry: ToolRegistry, fetch: AsyncMock) -> None:
    answer = await registry.async_call_tool("get_weather", {"city": "台北"})
    assert answer["city"] == "台北"
    assert answer["weather"] == "多雲"
    executed = await registry.execute("get_weather", {"city": "台北", "include_details": True})
    assert executed.success
    assert executed.data["wind_speed"] == 12.3
    refused = await registry.async_call_tool("get_weather", {"city": "東京"})
    assert refused.startswith("Error: unsupported_city: ")


@pytest.mark.parametrize("fmt", ["openai", "openai-responses", "anthropic", "gemini", "mcp"])
@pytest.mark.parametrize("strict", [False, True])
def test_exports_in_every_format(registry: ToolRegistry, fmt: str, strict: bool) -> None:
    [exported] = registry.export(fmt, strict=strict)
    assert "get_weather" in json.dumps(exported)


async def test_strict_null_means_the_default(registry: ToolRegistry, fetch: AsyncMock) -> None:
    # Strict exports make include_details required and nullable; null is its default.
    result = await registry.execute("get_weather", {"city": "台北", "include_details": None})
    assert result.success, result.error
    assert "humidity" not in result.data


# --- answers ----------------------------------------------------------------------


async def test_basic_answer_is_the_seeds(fetch: AsyncMock) -> None:
    result = await get_weather(city="台北")
    assert result.success
    data = dict(result.data)
    queried_at = data.pop("queried_at")
    assert data == {"city": "台北", "temperature": 22.5, "weather": "多雲"}
    assert list(result.data) == ["city", "temperature", "weather", "queried_at"]
    stamp = datetime.fromisoformat(queried_at)
    assert stamp.utcoffset() == timedelta(hours=8)
    assert stamp.microsecond == 0


async def test_detailed_answer_is_the_seeds(fetch: AsyncMock) -> None:
    result = await get_weather(city="台北", include_details=True)
    assert result.success
    assert list(result.data) == [
        "city",
        "temperature",
        "apparent_temperature",
        "humidity",
        "weather",
        "wind_speed",
        "queried_at",
    ]
    assert result.data["apparent_temperature"] == 24.1
    assert result.data["humidity"] == 75
    assert result.data["wind_speed"] == 12.3


async def test_fetch_gets_coordinates_and_config_at_call_time(
    fetch: AsyncMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(weather.URL_ENV, raising=False)
    monkeypatch.delenv(weather.TIMEOUT_ENV, raising=False)
    await get_weather(city="高雄")
    fetch.assert_awaited_once_with(
        22.6273, 120.3014, url="https://api.open-meteo.com/v1/forecast", timeout=10.0
    )
    monkeypatch.setenv(weather.URL_ENV, "http://127.0.0.1:9/v1/forecast")
    monkeypatch.setenv(weather.TIMEOUT_ENV, "2.5")
    await get_weather(city="高雄")
    assert fetch.await_args.kwargs == {"url": "http://127.0.0.1:9/v1/forecast", "timeout": 2.5}


@pytest.mark.parametrize("code", ALL_WMO_CODES)
def test_every_wmo_code_has_chinese_text(code: int) -> None:
    text = weather._describe_weather(code)
    assert text
    assert "未知" not in text
    assert all(not ch.isascii() for ch in text)


def test_wmo_table_is_exactly_open_meteos_codes() -> None:
    assert sorted(weather._WMO_DESCRIPTIONS) == ALL_WMO_CODES


@pytest.mark.parametrize("code", [4, 100, -1])
async def test_unknown_wmo_code_falls_back(fetch: AsyncMock, code: int) -> None:
    fetch.return_value = body_with(weather_code=code)
    result = await get_weather(city="台北")
    assert result.success
    assert result.data["weather"] == f"未知天氣（代碼 {code}）"


async def test_integral_float_weather_code_is_accepted(fetch: AsyncMock) -> None:
    fetch.return_value = body_with(weather_code=3.0)
    result = await get_weather(city="台北")
    assert result.data["weather"] == "陰天"


def test_fixed_offset_when_tz_database_is_missing() -> None:
    def missing(key: str) -> Any:
        raise weather.ZoneInfoNotFoundError(key)

    with patch.object(weather, "ZoneInfo", missing):
        zone = weather._taipei_zone()
    assert datetime(2025, 12, 25, tzinfo=zone).utcoffset() == timedelta(hours=8)


# --- city normalisation ------------------------------------------------------------

CITY_SPELLINGS = {
    "台北": ["台北", "台北市", "臺北", "臺北市", "Taipei", "taipei city", "TAIPEI CITY"],
    "新北": ["新北", "新北市", "New Taipei", "new taipei city", "NEW  TAIPEI"],
    "桃園": ["桃園", "桃園市", "Taoyuan", "Taoyuan City"],
    "台中": ["台中", "台中市", "臺中", "臺中市", "Taichung", "taichung city"],
    "台南": ["台南", "台南市", "臺南", "臺南市", "Tainan", "Tainan City"],
    "高雄": ["高雄", "高雄市", "Kaohsiung", "kaohsiung city"],
    "基隆": ["基隆", "基隆市", "Keelung", "Keelung City"],
    "新竹": ["新竹", "新竹市", "新竹縣", "Hsinchu", "Hsinchu City", "hsinchu county"],
    "嘉義": ["嘉義", "嘉義市", "嘉義縣", "Chiayi", "Chiayi City", "Chiayi County"],
    "屏東": ["屏東", "屏東縣", "Pingtung", "Pingtung County"],
    "宜蘭": ["宜蘭", "宜蘭縣", "Yilan", "Yilan County"],
    "花蓮": ["花蓮", "花蓮縣", "Hualien", "Hualien County"],
    "台東": ["台東", "台東縣", "臺東", "臺東縣", "Taitung", "taitung county"],
}
SPELLINGS = [(spelling, city) for city, names in CITY_SPELLINGS.items() for spelling in names]


def test_spelling_table_covers_every_city() -> None:
    assert tuple(CITY_SPELLINGS) == SUPPORTED_CITIES


@pytest.mark.parametrize(("spelling", "canonical"), SPELLINGS)
async def test_spelling_answers_for_canonical_city(
    fetch: AsyncMock, spelling: str, canonical: str
) -> None:
    result = await get_weather(city=f"  {spelling}\t")
    assert result.success, result.error
    assert result.data["city"] == canonical
    place = weather._find_city(canonical)
    assert place is not None
    fetch.assert_awaited_once()
    assert fetch.await_args.args == (place.latitude, place.longitude)


@pytest.mark.parametrize(
    "city",
    [
        "東京",
        "Tokyo",
        "",
        "   ",
        "台灣",
        "北京",
        "台北縣",  # former name of New Taipei: not an alias of either
        "臺北縣",
        "Taipei County",
        "Taoyuan County",
        "Kaohsiung County",
        "Taipei, Taiwan",
        "台北101",
        "x" * 500,
    ],
)
async def test_unsupported_city_fails_before_any_request(fetch: AsyncMock, city: str) -> None:
    result = await get_weather(city=city)
    assert result.success is False
    assert result.error.startswith("unsupported_city: 目前僅支援台灣主要城市的天氣查詢")
    for name in SUPPORTED_CITIES:
        assert name in result.error
    assert len(result.error) < 300
    fetch.assert_not_called()


@pytest.mark.parametrize(
    ("former", "today"),
    [
        ("台北縣", "新北"),
        ("臺北縣", "新北"),
        ("taipei county", "新北"),
        ("桃園縣", "桃園"),
        ("Taichung County", "台中"),
        ("臺南縣", "台南"),
        ("Kaohsiung County", "高雄"),
    ],
)
async def test_former_name_is_refused_with_todays_city(
    fetch: AsyncMock, former: str, today: str
) -> None:
    result = await get_weather(city=former)
    assert result.success is False
    assert f"（舊名，今屬{today}）" in result.error
    fetch.assert_not_called()


def test_cities_have_distinct_plausible_coordinates() -> None:
    places = [weather._find_city(name) for name in SUPPORTED_CITIES]
    coordinates = {(p.latitude, p.longitude) for p in places if p is not None}
    assert len(coordinates) == 13
    for latitude, longitude in coordinates:
        assert 21.8 < latitude < 25.4
        assert 119.9 < longitude < 122.1


# --- error mapping -------------------------------------------------------------------

REQUEST = httpx.Request("GET", "https://api.open-meteo.com/v1/forecast")


def status_error(status: int, body: Any = None) -> httpx.HTTPStatusError:
    if body is None:
        response = httpx.Response(status, text="oops", request=REQUEST)
    else:
        response = httpx.Response(status, json=body, request=REQUEST)
    return httpx.HTTPStatusError("bad status", request=REQUEST, response=response)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (httpx.ReadTimeout("timed out", request=REQUEST), "api_timeout"),
        (httpx.ConnectTimeout("timed out", request=REQUEST), "api_timeout"),
        (httpx.PoolTimeout("timed out", request=REQUEST), "api_timeout"),
        (asyncio.TimeoutError(), "api_timeout"),
        (status_error(500), "api_error"),
        (status_error(404), "api_error"),
        (status_error(400, {"error": True, "reason": "bad latitude"}), "api_error"),
        (ValueError("Expecting value: line 1 column 1"), "api_error"),
        (httpx.DecodingError("bad gzip", request=REQUEST), "api_error"),
        (httpx.TooManyRedirects("loop", request=REQUEST), "api_error"),
        (httpx.InvalidURL("bad url"), "api_error"),
        (httpx.ConnectError("connection refused", request=REQUEST), "network_error"),
        (httpx.ReadError("connection reset by peer", request=REQUEST), "network_error"),
        (httpx.RemoteProtocolError("peer closed", request=REQUEST), "network_error"),
        (httpx.UnsupportedProtocol("ftp", request=REQUEST), "network_error"),
    ],
)
async def test_http_failures_map_to_seed_codes(
    fetch: AsyncMock, error: Exception, code: str
) -> None:
    fetch.side_effect = error
    result = await get_weather(city="台北")
    assert result.success is False
    assert result.error.startswith(f"{code}: ")
    assert "Traceback" not in result.error


async def test_api_error_carries_open_meteo_reason(fetch: AsyncMock) -> None:
    fetch.side_effect = status_error(400, {"error": True, "reason": "Latitude must be in range"})
    result = await get_weather(city="台北")
    assert result.error == "api_error: 天氣服務回應錯誤（HTTP 400）：Latitude must be in range"


@pytest.mark.parametrize(
    "body",
    [
        None,
        [],
        "sunny",
        {},
        {"current": None},
        {"current": []},
        {"error": True, "reason": "x"},
        body_with(temperature_2m=None),
        body_with(temperature_2m="22.5"),
        body_with(temperature_2m=True),
        body_with(temperature_2m=float("nan")),
        body_with(weather_code=None),
        body_with(weather_code=2.5),
        body_with(weather_code="2"),
    ],
)
async def test_wrong_shape_is_api_error(fetch: AsyncMock, body: Any) -> None:
    fetch.return_value = body
    result = await get_weather(city="台北", include_details=True)
    assert result.success is False
    assert result.error.startswith("api_error: ")


@pytest.mark.parametrize(
    "missing", ["apparent_temperature", "relative_humidity_2m", "wind_speed_10m"]
)
async def test_detail_fields_are_checked_only_when_asked(fetch: AsyncMock, missing: str) -> None:
    fetch.return_value = body_with(**{missing: None})
    assert (await get_weather(city="台北")).success
    detailed = await get_weather(city="台北", include_details=True)
    assert detailed.error.startswith("api_error: ")
    assert missing in detailed.error


async def test_whole_request_is_bounded_by_the_timeout(
    fetch: AsyncMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    never = asyncio.Event()

    async def trickle(*args: Any, **kwargs: Any) -> Any:
        await never.wait()

    fetch.side_effect = trickle
    monkeypatch.setenv(weather.TIMEOUT_ENV, "0.05")
    result = await get_weather(city="台北")
    assert result.error == "api_timeout: 天氣服務在 0.05 秒內沒有回應，請稍後再試"


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(city=st.text(max_size=30))
async def test_any_text_gives_a_result_never_an_exception(fetch: AsyncMock, city: str) -> None:
    result = await get_weather(city=city)
    assert isinstance(result, ToolResult)
    assert result.success or result.error.startswith("unsupported_city: ")


# --- configuration -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [(None, 10.0), ("", 10.0), ("  ", 10.0), ("3", 3.0), (" 0.3 ", 0.3), ("1e1", 10.0)],
)
def test_timeout_from_env(monkeypatch: pytest.MonkeyPatch, raw: str | None, seconds: float) -> None:
    if raw is None:
        monkeypatch.delenv(weather.TIMEOUT_ENV, raising=False)
    else:
        monkeypatch.setenv(weather.TIMEOUT_ENV, raw)
    assert weather._weather_timeout() == seconds


@pytest.mark.parametrize("raw", ["soon", "0", "-1", "nan", "inf", "10s"])
def test_unusable_timeout_falls_back_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, raw: str
) -> None:
    monkeypatch.setenv(weather.TIMEOUT_ENV, raw)
    with caplog.at_level(logging.WARNING, logger=weather.__name__):
        assert weather._weather_timeout() == weather.DEFAULT_TIMEOUT
    assert weather.TIMEOUT_ENV in caplog.text


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        (None, "https://api.open-meteo.com/v1/forecast"),
        ("", "https://api.open-meteo.com/v1/forecast"),
        (" http://127.0.0.1:8080/v1/forecast ", "http://127.0.0.1:8080/v1/forecast"),
    ],
)
def test_url_from_env(monkeypatch: pytest.MonkeyPatch, raw: str | None, url: str) -> None:
    if raw is None:
        monkeypatch.delenv(weather.URL_ENV, raising=False)
    else:
        monkeypatch.setenv(weather.URL_ENV, raw)
    assert weather._weather_url() == url


# --- the shared clients ----------------------------------------------------------------


async def test_one_client_per_loop_reused() -> None:
    first = weather._client()
    assert weather._client() is first

    def other_loop_client() -> httpx.AsyncClient:
        async def make() -> httpx.AsyncClient:
            return weather._client()

        return asyncio.run(make())

    other = await asyncio.to_thread(other_loop_client)
    assert other is not first
    await aclose_clients()
    assert first.is_closed
    assert weather._client() is not first  # a closed client is replaced
    await aclose_clients()


async def test_aclose_clients_closes_a_client_on_a_running_loop_in_another_thread() -> None:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:

        async def make() -> httpx.AsyncClient:
            return weather._client()

        theirs = asyncio.run_coroutine_threadsafe(make(), loop).result(timeout=5)
        await aclose_clients()
        assert theirs.is_closed
        assert loop not in weather._clients
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()


async def test_aclose_clients_with_nothing_open() -> None:
    await aclose_clients()
    await aclose_clients()


# --- docs ------------------------------------------------------------------------------


def test_docs_page_shows_the_current_source() -> None:
    source = inspect.getsource(inspect.unwrap(get_weather))
    assert source in DOCS_PAGE.read_text(encoding="utf-8")


def test_docs_page_shows_the_seed_schema() -> None:
    page = DOCS_PAGE.read_text(encoding="utf-8")
    assert json.dumps(SEED_OPENAI_JSON, ensure_ascii=False, indent=2) in page


def test_docs_page_lists_every_weather_code() -> None:
    page = DOCS_PAGE.read_text(encoding="utf-8")
    for code, text in weather._WMO_DESCRIPTIONS.items():
        assert f"| {code} | {text} |" in page


async def test_docs_page_quotes_the_unsupported_answer() -> None:
    result = await get_weather(city="東京")
    assert f"Error: {result.error}\n" in DOCS_PAGE.read_text(encoding="utf-8")

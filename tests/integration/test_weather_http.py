"""get_weather against a real HTTP server on 127.0.0.1, started by these tests.

The server speaks Open-Meteo's forecast JSON (the real shape, checked query and all);
the first path segment of TOOLDECK_WEATHER_URL picks how it behaves. Nothing here
reaches the internet.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from listening import closed_port
from tooldeck import ToolRegistry, ToolResult
from tooldeck.tools import weather
from tooldeck.tools.weather import aclose_clients, get_weather

CURRENT_FIELDS = {
    "temperature_2m",
    "apparent_temperature",
    "relative_humidity_2m",
    "weather_code",
    "wind_speed_10m",
}
PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)


def open_meteo_body(query: dict[str, list[str]]) -> dict[str, Any]:
    """What api.open-meteo.com/v1/forecast answers, in the units the query asked for."""
    kmh = query.get("wind_speed_unit") == ["kmh"]
    return {
        "latitude": round(float(query["latitude"][0]), 2),
        "longitude": round(float(query["longitude"][0]), 2),
        "generationtime_ms": 0.0401,
        "utc_offset_seconds": 28800,
        "timezone": "Asia/Taipei",
        "timezone_abbreviation": "GMT+8",
        "elevation": 9.0,
        "current_units": {
            "time": "iso8601",
            "interval": "seconds",
            "temperature_2m": "°C",
            "apparent_temperature": "°C",
            "relative_humidity_2m": "%",
            "weather_code": "wmo code",
            "wind_speed_10m": "km/h" if kmh else "m/s",
        },
        "current": {
            "time": "2025-12-25T14:30",
            "interval": 900,
            "temperature_2m": 22.5,
            "apparent_temperature": 24.1,
            "relative_humidity_2m": 75,
            "weather_code": 2,
            "wind_speed_10m": 12.3 if kmh else 3.4,
        },
    }


def query_problem(query: dict[str, list[str]]) -> str | None:
    """Why the real API would refuse this query (HTTP 400), if it would."""
    if "latitude" not in query or "longitude" not in query:
        return "Parameter 'latitude' and 'longitude' must have the same number of elements"
    asked = set(query.get("current", [""])[0].split(","))
    if not asked >= CURRENT_FIELDS:
        return f"missing current variables: {sorted(CURRENT_FIELDS - asked)}"
    if query.get("timezone") != ["Asia/Taipei"]:
        return "expected timezone=Asia/Taipei"
    return None


@dataclass
class Seen:
    scenario: str
    query: dict[str, list[str]]
    client_port: int


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256  # 100 concurrent connects must not overflow the backlog

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.seen: list[Seen] = []
        self.release = threading.Event()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so client reuse shows
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        scenario = url.path.strip("/").split("/")[0]
        query = parse_qs(url.query)
        self.server.seen.append(Seen(scenario, query, self.client_address[1]))
        getattr(self, f"scenario_{scenario}")(query)

    def send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status: int, data: Any) -> None:
        self.send(status, json.dumps(data).encode())

    def scenario_ok(self, query: dict[str, list[str]]) -> None:
        problem = query_problem(query)
        if problem:
            self.send_json(400, {"error": True, "reason": problem})
        else:
            self.send_json(200, open_meteo_body(query))

    def scenario_status500(self, query: dict[str, list[str]]) -> None:
        self.send(500, b"Internal Server Error", "text/plain")

    def scenario_bad_request(self, query: dict[str, list[str]]) -> None:
        self.send_json(400, {"error": True, "reason": "Cannot initialize WeatherVariable"})

    def scenario_not_json(self, query: dict[str, list[str]]) -> None:
        self.send(200, b"<html><body>Service Unavailable</body></html>", "text/html")

    def scenario_wrong_shape(self, query: dict[str, list[str]]) -> None:
        self.send_json(200, {"hourly": {"time": [], "temperature_2m": []}})

    def scenario_stall(self, query: dict[str, list[str]]) -> None:
        self.server.release.wait(timeout=30)
        self.scenario_ok(query)

    def scenario_close_mid(self, query: dict[str, list[str]]) -> None:
        body = json.dumps(open_meteo_body(query)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        self.close_connection = True  # the handler returns and the socket closes


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    httpd = _Server()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.release.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


@pytest.fixture
def use(server: _Server, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], list[Seen]]:
    """Point TOOLDECK_WEATHER_URL at one scenario; returns the requests it will see."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv(weather.TIMEOUT_ENV, raising=False)
    server.seen.clear()

    def point_at(scenario: str) -> list[Seen]:
        port = server.server_address[1]
        monkeypatch.setenv(weather.URL_ENV, f"http://127.0.0.1:{port}/{scenario}/v1/forecast")
        return server.seen

    return point_at


@pytest.fixture(autouse=True)
async def _close_clients() -> Any:
    yield
    await aclose_clients()


def assert_queried_now(queried_at: str) -> None:
    stamp = datetime.fromisoformat(queried_at)
    assert stamp.utcoffset() == timedelta(hours=8)
    assert abs(datetime.now(stamp.tzinfo) - stamp) < timedelta(minutes=5)


async def test_success_basic(use: Callable[[str], list[Seen]]) -> None:
    seen = use("ok")
    result = await get_weather(city="台北")
    assert isinstance(result, ToolResult)
    assert result.success, result.error
    assert list(result.data) == ["city", "temperature", "weather", "queried_at"]
    assert result.data["city"] == "台北"
    assert result.data["temperature"] == 22.5
    assert result.data["weather"] == "多雲"
    assert_queried_now(result.data["queried_at"])
    [request] = seen
    assert request.query["latitude"] == ["25.0375"]
    assert request.query["longitude"] == ["121.5637"]
    assert request.query["wind_speed_unit"] == ["kmh"]
    assert request.query["timezone"] == ["Asia/Taipei"]


async def test_success_with_details(use: Callable[[str], list[Seen]]) -> None:
    use("ok")
    result = await get_weather(city="Kaohsiung City", include_details=True)
    assert result.success, result.error
    queried_at = result.data.pop("queried_at")
    assert result.data == {
        "city": "高雄",
        "temperature": 22.5,
        "apparent_temperature": 24.1,
        "humidity": 75,
        "weather": "多雲",
        "wind_speed": 12.3,  # km/h: the server answers 3.4 unless asked for kmh
    }
    assert list(result.data) == [
        "city",
        "temperature",
        "apparent_temperature",
        "humidity",
        "weather",
        "wind_speed",
    ]
    assert_queried_now(queried_at)


async def test_client_is_shared_and_connection_reused(use: Callable[[str], list[Seen]]) -> None:
    seen = use("ok")
    first = await get_weather(city="台中")
    second = await get_weather(city="台南")
    assert first.success
    assert second.success
    assert len(weather._clients) == 1
    assert seen[0].client_port == seen[1].client_port  # one keep-alive connection


@pytest.mark.parametrize(
    ("scenario", "code", "detail"),
    [
        ("status500", "api_error", "HTTP 500"),
        ("bad_request", "api_error", "Cannot initialize WeatherVariable"),
        ("not_json", "api_error", ""),
        ("wrong_shape", "api_error", "current"),
        ("close_mid", "network_error", "RemoteProtocolError"),
    ],
)
async def test_failures_map_to_codes(
    use: Callable[[str], list[Seen]], scenario: str, code: str, detail: str
) -> None:
    use(scenario)
    result = await get_weather(city="新竹縣", include_details=True)
    assert result.success is False
    assert result.error.startswith(f"{code}: ")
    assert detail in result.error


async def test_stall_past_timeout_is_api_timeout(
    use: Callable[[str], list[Seen]], monkeypatch: pytest.MonkeyPatch
) -> None:
    use("stall")
    monkeypatch.setenv(weather.TIMEOUT_ENV, "0.3")
    result = await get_weather(city="基隆")
    assert result.success is False
    assert result.error.startswith("api_timeout: ")
    assert "0.3 秒" in result.error


async def test_refused_connection_is_network_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with closed_port() as port:
        monkeypatch.setenv(weather.URL_ENV, f"http://127.0.0.1:{port}/v1/forecast")
        result = await get_weather(city="花蓮")
    assert result.success is False
    assert result.error.startswith("network_error: ")
    assert "ConnectError" in result.error


async def test_unsupported_city_makes_no_request(use: Callable[[str], list[Seen]]) -> None:
    seen = use("ok")
    result = await get_weather(city="東京")
    assert result.success is False
    assert result.error.startswith("unsupported_city: ")
    assert seen == []


async def test_100_concurrent_calls_through_registry(use: Callable[[str], list[Seen]]) -> None:
    seen = use("ok")
    registry = ToolRegistry()
    registry.register(get_weather)
    cities = list(weather.SUPPORTED_CITIES) * 8
    cities = cities[:100]
    answers = await asyncio.gather(
        *(
            registry.async_call_tool("get_weather", {"city": city, "include_details": True})
            for city in cities
        )
    )
    assert len(seen) == 100
    for city, answer in zip(cities, answers, strict=True):
        assert isinstance(answer, dict), answer
        assert answer["city"] == city
        assert answer["wind_speed"] == 12.3


async def test_execute_through_registry(use: Callable[[str], list[Seen]]) -> None:
    use("ok")
    registry = ToolRegistry()
    registry.register(get_weather)
    result = await registry.execute("get_weather", {"city": "Taitung", "include_details": "true"})
    assert result.success, result.error
    assert result.data["city"] == "台東"
    assert result.data["humidity"] == 75


def test_sync_call_runs_on_tooldeck_loop_and_closes(use: Callable[[str], list[Seen]]) -> None:
    use("ok")
    registry = ToolRegistry()
    registry.register(get_weather)
    answer = registry.call_tool("get_weather", {"city": "宜蘭"})
    assert isinstance(answer, dict), answer
    assert answer["city"] == "宜蘭"
    # The client lives on tooldeck's event-loop thread; closing from another loop works.
    clients = list(weather._clients.values())
    assert clients
    asyncio.run(aclose_clients())
    assert all(client.is_closed for client in clients)
    assert len(weather._clients) == 0

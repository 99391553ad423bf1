"""The Taiwan weather tool (seed 002) as one decorated async function.

``get_weather`` answers current conditions for 13 Taiwanese cities from Open-Meteo's
forecast endpoint (no API key). Everything around it is plain, private helpers:

1. city normalisation (seed aliases, 臺 spellings, English names) — before any I/O;
2. ``_fetch_weather`` — the one HTTP call, the seam tests patch (as the seed does); it
   reads at most 1 MiB of the body, before and after decompression, and decodes strict
   JSON (`tooldeck.tools._http_body`);
3. ``_conditions`` — checks the JSON shape and turns it into the seed's answer;
4. ``_describe_failure`` — maps every expected failure to the seed's error codes; text
   that came from the server is clipped and shown printable (``clip``).

Configuration is read from the environment at call time, so it never touches the
tool's schema: ``TOOLDECK_WEATHER_URL`` (the full forecast endpoint) and
``TOOLDECK_WEATHER_TIMEOUT`` (seconds).

The HTTP client is shared, one per running event loop: an ``httpx.AsyncClient`` is
bound to the loop it first ran on, and tooldeck runs sync calls of async tools on
its own event-loop thread while applications call from theirs. Close them with
``await aclose_clients()`` when shutting down.
"""

import asyncio
import logging
import math
import os
import reprlib
import threading
import weakref
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING, Annotated, Any, Final, TypeGuard
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tooldeck import ToolResult, tool
from tooldeck.tools._http_body import BodyError, clip, decode_json, read_body

if TYPE_CHECKING:
    import httpx

__all__ = ["SUPPORTED_CITIES", "aclose_clients", "get_weather"]

logger = logging.getLogger(__name__)

DEFAULT_URL: Final = "https://api.open-meteo.com/v1/forecast"
DEFAULT_TIMEOUT: Final = 10.0
URL_ENV: Final = "TOOLDECK_WEATHER_URL"
TIMEOUT_ENV: Final = "TOOLDECK_WEATHER_TIMEOUT"

# Characters of server-sent text (a ``reason``, a protocol error) in one error message.
_MAX_DETAIL: Final = 2000
_CLIPPED: Final = "…（已截斷）"

_CURRENT_FIELDS: Final = (
    "temperature_2m,apparent_temperature,relative_humidity_2m,weather_code,wind_speed_10m"
)


@dataclass(frozen=True)
class _City:
    name: str  # canonical, as the seed writes it and as answers carry it
    english: str
    latitude: float
    longitude: float
    # Designations the place bears today: 市 / 縣 and "City" / "County" alike.
    designations: tuple[str, ...]


_CITIES: Final = (
    _City("台北", "Taipei", 25.0375, 121.5637, ("市",)),
    _City("新北", "New Taipei", 25.0120, 121.4657, ("市",)),
    _City("桃園", "Taoyuan", 24.9936, 121.3010, ("市",)),
    _City("台中", "Taichung", 24.1477, 120.6736, ("市",)),
    _City("台南", "Tainan", 22.9999, 120.2270, ("市",)),
    _City("高雄", "Kaohsiung", 22.6273, 120.3014, ("市",)),
    _City("基隆", "Keelung", 25.1276, 121.7392, ("市",)),
    _City("新竹", "Hsinchu", 24.8138, 120.9675, ("市", "縣")),
    _City("嘉義", "Chiayi", 23.4801, 120.4491, ("市", "縣")),
    _City("屏東", "Pingtung", 22.6690, 120.4862, ("縣",)),
    _City("宜蘭", "Yilan", 24.7570, 121.7533, ("縣",)),
    _City("花蓮", "Hualien", 23.9769, 121.6044, ("縣",)),
    _City("台東", "Taitung", 22.7554, 121.1503, ("縣",)),
)

SUPPORTED_CITIES: Final[tuple[str, ...]] = tuple(city.name for city in _CITIES)

_ENGLISH_DESIGNATION: Final = {"市": "City", "縣": "County"}


def _lookup_key(text: str) -> str:
    # 臺 and 台 are the same character in place names (臺北 is the official form);
    # whitespace runs collapse so " New  Taipei " finds New Taipei.
    return " ".join(text.split()).replace("臺", "台").casefold()


def _build_lookup() -> dict[str, _City]:
    lookup: dict[str, _City] = {}
    for city in _CITIES:
        names = [city.name, city.english]
        for designation in city.designations:
            names.append(city.name + designation)
            names.append(f"{city.english} {_ENGLISH_DESIGNATION[designation]}")
        lookup.update((_lookup_key(name), city) for name in names)
    return lookup


_LOOKUP: Final = _build_lookup()

# Former names are not aliases (DESIGN): "Taipei County" / 台北縣 is today's New Taipei,
# and answering it as Taipei would be wrong. They are refused, with a hint naming the
# city the place belongs to today, so a model can ask again.
_FORMER_NAMES: Final = {
    _lookup_key(former): today
    for chinese, english, today in [
        ("台北縣", "Taipei County", "新北"),
        ("桃園縣", "Taoyuan County", "桃園"),
        ("台中縣", "Taichung County", "台中"),
        ("台南縣", "Tainan County", "台南"),
        ("高雄縣", "Kaohsiung County", "高雄"),
    ]
    for former in (chinese, english)
}


def _find_city(text: str) -> _City | None:
    return _LOOKUP.get(_lookup_key(text))


def _unsupported_message(text: str) -> str:
    # A model may send a sentence; echo enough to recognise it.
    asked = clip(" ".join(text.split()), 40)
    today = _FORMER_NAMES.get(_lookup_key(text))
    return (
        "unsupported_city: 目前僅支援台灣主要城市的天氣查詢"
        + (f"，無法查詢「{asked}」" if asked else "")
        + (f"（舊名，今屬{today}）" if today else "")
        + f"。支援的城市：{'、'.join(SUPPORTED_CITIES)}"
        "（也可寫「臺」、加上市／縣，或用英文名稱，例如 Taipei、Kaohsiung）。"
    )


# WMO weather interpretation codes, every one Open-Meteo documents.
# 0-3 follow the Central Weather Administration's words (晴、晴時多雲、多雲、陰).
_WMO_DESCRIPTIONS: Final[dict[int, str]] = {
    0: "晴朗",
    1: "晴時多雲",
    2: "多雲",
    3: "陰天",
    45: "霧",
    48: "霧淞",
    51: "輕微毛毛雨",
    53: "毛毛雨",
    55: "濃密毛毛雨",
    56: "輕微凍毛毛雨",
    57: "濃密凍毛毛雨",
    61: "小雨",
    63: "中雨",
    65: "大雨",
    66: "輕微凍雨",
    67: "強烈凍雨",
    71: "小雪",
    73: "中雪",
    75: "大雪",
    77: "雪粒",
    80: "小陣雨",
    81: "中陣雨",
    82: "強烈陣雨",
    85: "小陣雪",
    86: "大陣雪",
    95: "雷雨",
    96: "雷雨伴隨小冰雹",
    99: "雷雨伴隨大冰雹",
}


def _describe_weather(code: int) -> str:
    return _WMO_DESCRIPTIONS.get(code, f"未知天氣（代碼 {code}）")


def _taipei_zone() -> tzinfo:
    try:
        return ZoneInfo("Asia/Taipei")
    except ZoneInfoNotFoundError:
        # No tz database (e.g. Windows without the tzdata package). Taiwan has kept
        # UTC+8 without daylight saving since 1979, so a fixed offset is exact.
        return timezone(timedelta(hours=8), "Asia/Taipei")


_TAIPEI: Final = _taipei_zone()


def _weather_url() -> str:
    return os.environ.get(URL_ENV, "").strip() or DEFAULT_URL


def _weather_timeout() -> float:
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        logger.warning(
            "Ignoring %s=%r: not a positive number of seconds; using %g",
            TIMEOUT_ENV,
            raw,
            DEFAULT_TIMEOUT,
        )
        return DEFAULT_TIMEOUT
    return seconds


# One client per running event loop (see the module docstring). Weak keys: a loop
# that is garbage-collected takes its entry with it.
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, "httpx.AsyncClient"] = (
    weakref.WeakKeyDictionary()
)
_clients_lock = threading.Lock()


def _client() -> "httpx.AsyncClient":
    import httpx  # on the first call: `tooldeck list` and a schema need no HTTP client

    loop = asyncio.get_running_loop()
    with _clients_lock:
        client = _clients.get(loop)
        if client is None or client.is_closed:
            for stale in [other for other in _clients if other.is_closed()]:
                del _clients[stale]
            client = httpx.AsyncClient(headers={"User-Agent": "tooldeck-weather"})
            _clients[loop] = client
        return client


async def aclose_clients() -> None:
    """Close the shared HTTP clients of every event loop still running.

    Call it from your application's shutdown (any running loop will do). A client
    whose loop is the caller's is closed directly; one whose loop runs in another
    thread (such as tooldeck's own loop for sync calls) is closed on that loop. A
    client whose loop has stopped cannot be closed any more and is dropped. The next
    weather call simply opens a new client.
    """
    with _clients_lock:
        entries = list(_clients.items())
        _clients.clear()
    current = asyncio.get_running_loop()
    for loop, client in entries:
        if loop is current:
            await client.aclose()
        elif loop.is_running():
            closing = asyncio.run_coroutine_threadsafe(client.aclose(), loop)
            await asyncio.wrap_future(closing)


async def _fetch_weather(latitude: float, longitude: float, *, url: str, timeout: float) -> Any:
    """GET the current conditions at a point and return the decoded JSON body.

    Raises httpx's errors as they come (``HTTPStatusError`` for a non-2xx status, its
    response holding the body as read here) and ``ValueError`` for a body that cannot be
    used; ``get_weather`` turns them into error codes.
    """
    import httpx

    params: dict[str, str | float] = {
        "latitude": latitude,
        "longitude": longitude,
        "current": _CURRENT_FIELDS,
        "timezone": "Asia/Taipei",
        "wind_speed_unit": "kmh",
    }
    # Only gzip is asked for: _read_body decompresses it itself (see there).
    headers = {"Accept-Encoding": "gzip"}
    request = _client().stream("GET", url, params=params, headers=headers, timeout=timeout)
    async with request as response:
        if response.is_success:
            return decode_json(await read_body(response))
        try:
            body = await read_body(response)
        except BodyError:  # the status still says what went wrong; only the reason is lost
            body = b""
    raise httpx.HTTPStatusError(
        f"HTTP {response.status_code}",
        request=response.request,
        response=httpx.Response(response.status_code, content=body, request=response.request),
    )


class _ShapeError(ValueError):
    """The body is JSON, but not the shape Open-Meteo answers with."""


def _is_finite_number(value: Any) -> TypeGuard[float]:
    # bool is an int subclass; true is no temperature.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int past a double's range
        return False


_REPR: Final = reprlib.Repr()
_REPR.maxlevel = 3


def _shown(value: Any) -> str:
    """A short repr of a value from the body: bounded however large or deep it is."""
    try:
        return _REPR.repr(value)
    except ValueError:  # an int past sys.get_int_max_str_digits()
        return f"<{type(value).__name__}>"


def _number(current: dict[str, Any], key: str) -> float:
    value = current.get(key)
    if not _is_finite_number(value):
        raise _ShapeError(f"current.{key} should be a number, got {_shown(value)}")
    return value


def _weather_code(current: dict[str, Any]) -> int:
    code = _number(current, "weather_code")
    if code != int(code):
        raise _ShapeError(f"current.weather_code should be an integer, got {code!r}")
    return int(code)


def _conditions(body: Any, *, include_details: bool) -> dict[str, Any]:
    """The seed's fields between ``city`` and ``queried_at``, in the seed's order."""
    current = body.get("current") if isinstance(body, dict) else None
    if not isinstance(current, dict):
        raise _ShapeError("the body has no 'current' object")
    temperature = _number(current, "temperature_2m")
    weather = _describe_weather(_weather_code(current))
    if not include_details:
        return {"temperature": temperature, "weather": weather}
    return {
        "temperature": temperature,
        "apparent_temperature": _number(current, "apparent_temperature"),
        "humidity": _number(current, "relative_humidity_2m"),
        "weather": weather,
        "wind_speed": _number(current, "wind_speed_10m"),
    }


def _api_reason(response: "httpx.Response") -> str:
    import httpx

    # Open-Meteo explains a 400 as {"error": true, "reason": "..."}.
    try:
        body = decode_json(response.content)
    except (ValueError, httpx.ResponseNotRead):
        return ""
    reason = body.get("reason") if isinstance(body, dict) else None
    return f"：{clip(reason, _MAX_DETAIL, _CLIPPED)}" if isinstance(reason, str) else ""


def _describe_failure(error: Exception, timeout: float) -> str:
    """The answer for any failure: it starts with one of the four codes (DESIGN).

    Whatever a transport raised counts: httpx's errors, and a plain ``OSError`` or
    ``ssl.SSLError`` from a transport that does not translate them (a mock, a custom
    one) are ``network_error``; anything else is ``api_error``.
    """
    import httpx

    # An exception's text may quote the server (h11 quotes a bad status line): clipped.
    detail = clip(_text_of(error), _MAX_DETAIL, _CLIPPED)
    if isinstance(error, (httpx.TimeoutException, asyncio.TimeoutError, TimeoutError)):
        return f"api_timeout: 天氣服務在 {timeout:g} 秒內沒有回應，請稍後再試"
    if isinstance(error, httpx.HTTPStatusError):
        status = error.response.status_code
        return f"api_error: 天氣服務回應錯誤（HTTP {status}）{_api_reason(error.response)}"
    if isinstance(error, (httpx.TransportError, OSError)):
        # Refused, DNS, reset, TLS, and closed mid-response (RemoteProtocolError) alike.
        return f"network_error: 無法連線到天氣服務（{type(error).__name__}: {detail}）"
    return f"api_error: 無法取得天氣資訊，天氣服務的回應無法使用（{detail}）"


def _text_of(error: Exception) -> str:
    try:
        text = str(error)
    except Exception:  # a __str__ that raises still leaves the class name
        text = ""
    return text if isinstance(text, str) and text else type(error).__name__


@tool(tags=["weather"])
async def get_weather(
    city: Annotated[str, "要查詢的城市名稱，例如：台北、高雄、台中"],
    include_details: Annotated[bool, "是否包含詳細資訊（濕度、風速、體感溫度）"] = False,
) -> ToolResult:
    """查詢台灣城市的即時天氣資訊。可查詢溫度、天氣狀況、濕度、風速等。支援的城市：台北、新北、桃園、台中、台南、高雄、基隆、新竹、嘉義、屏東、宜蘭、花蓮、台東。

    Returns:
        成功時的資料含 city（標準城市名）、temperature、weather、queried_at；
        include_details 時另含 apparent_temperature、humidity、wind_speed（km/h）。
        失敗時的錯誤以 unsupported_city、api_timeout、api_error 或 network_error 開頭。
    """
    place = _find_city(city)
    if place is None:
        return ToolResult.fail(_unsupported_message(city))
    timeout = _weather_timeout()
    fetch = _fetch_weather(place.latitude, place.longitude, url=_weather_url(), timeout=timeout)
    try:
        # httpx times each phase; this bounds the whole request (a trickling server).
        body = await asyncio.wait_for(fetch, timeout)
        conditions = _conditions(body, include_details=include_details)
    except Exception as error:  # whatever the transport raised: coded (DESIGN, fine print)
        return ToolResult.fail(_describe_failure(error, timeout))
    queried_at = datetime.now(_TAIPEI).isoformat(timespec="seconds")
    return ToolResult.ok({"city": place.name, **conditions, "queried_at": queried_at})

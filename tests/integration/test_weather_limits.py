"""get_weather against hostile bodies from a real HTTP server on 127.0.0.1.

A 400 MB body, a gzip bomb, 100,000 nested '[', invalid UTF-8, a server ``reason`` of
megabytes full of terminal escapes: each is answered with ``api_error`` at once, the
text a model reads stays small and printable, and the process's memory stays far below
the body's size. The large bodies are generated as they are sent, never built whole,
and the calls that meet them run in a child process whose peak memory is measured.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import struct
import sys
import threading
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest

from forkserver import LazyForkServer
from tooldeck.tools import weather
from tooldeck.tools._http_body import MAX_BODY_BYTES
from tooldeck.tools.weather import aclose_clients, get_weather

MIB = 1024 * 1024
HUGE_BODY = 400 * 1000 * 1000  # 400 MB
BOMB_INFLATED_MIB = 1000  # about 1 MiB of gzip, 1000 MiB inflated
# The child peaks near 60 MiB (Python, httpx, tooldeck, a 1 MiB body); this is far below
# every body here, and below what inflating one 64 KiB read of the bomb whole costs
# (+64 MiB, as httpx's own decoding does: about 170 MiB at peak).
MAX_CHILD_RSS = 120 * MIB
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")
PROXY_VARIABLES += ("all_proxy",)

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
ESCAPES = "\x1b[2J\x1b[31mrm -rf /\x1b]0;pwned\x07\x00\r\n\u202e\x7f"
BIG_REASON = ESCAPES + "R" * (900 * 1024)  # inside the body limit: shown, clipped
HUGE_REASON = ESCAPES * 1000 + "R" * (2 * MIB)  # past the body limit: not read


def gzip_bomb(inflated_mib: int) -> Iterator[bytes]:
    """A valid gzip stream of ``inflated_mib`` MiB of zeros, made as it is sent.

    After a full flush deflate starts afresh, so every further MiB of zeros compresses
    to the very same block: the bomb costs one block of memory and a CRC pass.
    """
    zeros = bytes(MIB)
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    yield packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(zeros)
    for _ in range(inflated_mib - 2):
        yield block
        crc = zlib.crc32(zeros, crc)
    last = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    crc = zlib.crc32(zeros, crc)
    size = (inflated_mib * MIB) & 0xFFFFFFFF
    yield last.compress(zeros) + last.flush() + struct.pack("<II", crc, size)


def batched(chunks: Iterator[bytes], size: int) -> Iterator[bytes]:
    """``chunks`` joined into pieces of at least ``size`` bytes (the last may be less)."""
    pending = bytearray()
    for chunk in chunks:
        pending += chunk
        if len(pending) >= size:
            yield bytes(pending)
            pending.clear()
    yield bytes(pending)


def filler(size: int) -> Iterator[bytes]:
    """``size`` bytes of JSON whitespace, 64 KiB at a time."""
    chunk = b" " * (64 * 1024)
    for _ in range(size // len(chunk)):
        yield chunk
    yield chunk[: size % len(chunk)]


def padded(data: Any, size: int) -> bytes:
    """``data`` as JSON, padded with whitespace to exactly ``size`` bytes."""
    text = json.dumps(data).encode()
    return text + b" " * (size - len(text))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.accept_encodings: list[str | None] = []

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up on a hostile body is the point, not a server error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.accept_encodings.append(self.headers.get("Accept-Encoding"))
        scenario = urlsplit(self.path).path.strip("/").split("/")[0]
        # The client hanging up mid-body is what it should do with the hostile ones.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            getattr(self, f"scenario_{scenario}")()

    def head(self, status: int, length: int | None, encoding: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        if length is None:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def send(self, status: int, body: bytes, encoding: str | None = None) -> None:
        self.head(status, len(body), encoding)
        self.wfile.write(body)

    def stream(self, status: int, chunks: Iterator[bytes], encoding: str | None = None) -> None:
        self.head(status, None, encoding)
        for chunk in chunks:
            if chunk:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.write(b"0\r\n\r\n")
        self.close_connection = True

    # --- a usable forecast, however it is sent ---

    def scenario_ok(self) -> None:
        self.send(200, json.dumps(FORECAST).encode())

    def scenario_gzip(self) -> None:
        self.send(200, gzip.compress(json.dumps(FORECAST).encode()), "gzip")

    def scenario_deflate(self) -> None:
        self.send(200, zlib.compress(json.dumps(FORECAST).encode()), "deflate")

    def scenario_identity(self) -> None:
        self.send(200, json.dumps(FORECAST).encode(), "identity")

    def scenario_exactly_the_limit(self) -> None:
        self.send(200, padded(FORECAST, MAX_BODY_BYTES))

    def scenario_exactly_the_limit_gzip(self) -> None:
        self.send(200, gzip.compress(padded(FORECAST, MAX_BODY_BYTES)), "gzip")

    # --- too large ---

    def scenario_one_past_the_limit(self) -> None:
        self.send(200, padded(FORECAST, MAX_BODY_BYTES + 1))

    def scenario_one_past_the_limit_gzip(self) -> None:
        self.send(200, gzip.compress(padded(FORECAST, MAX_BODY_BYTES + 1)), "gzip")

    def scenario_huge_with_length(self) -> None:
        self.head(200, HUGE_BODY)
        for chunk in filler(HUGE_BODY):
            self.wfile.write(chunk)

    def scenario_huge_chunked(self) -> None:
        self.stream(200, filler(HUGE_BODY))

    def scenario_gzip_bomb(self) -> None:
        # In writes of ~256 KiB, so the client's reads come full (64 KiB of gzip each).
        self.stream(200, batched(gzip_bomb(BOMB_INFLATED_MIB), 256 * 1024), "gzip")

    def scenario_huge_reason(self) -> None:
        self.send(400, json.dumps({"error": True, "reason": HUGE_REASON}).encode())

    # --- malformed ---

    def scenario_nested(self) -> None:
        self.send(200, b"[" * 100_000)

    def scenario_invalid_utf8(self) -> None:
        self.send(200, b'{"current": {"temperature_2m": 22.5, "x": "\xff\xfe\xc0\x80"}}')

    def scenario_nan(self) -> None:
        self.send(200, json.dumps(FORECAST).replace("22.5", "NaN").encode())

    def scenario_infinity(self) -> None:
        self.send(200, json.dumps(FORECAST).replace("22.5", "-Infinity").encode())

    def scenario_huge_float(self) -> None:
        self.send(200, json.dumps(FORECAST).replace("22.5", "1e999").encode())

    def scenario_huge_int(self) -> None:
        self.send(200, json.dumps(FORECAST).replace("22.5", "9" * 400).encode())

    def scenario_utf16(self) -> None:
        self.send(200, json.dumps(FORECAST).encode("utf-16"))

    def scenario_big_reason(self) -> None:
        self.send(400, json.dumps({"error": True, "reason": BIG_REASON}).encode())

    def scenario_brotli(self) -> None:
        self.send(200, json.dumps(FORECAST).encode(), "br")

    def scenario_stacked(self) -> None:
        self.send(200, gzip.compress(gzip.compress(json.dumps(FORECAST).encode())), "gzip, gzip")

    def scenario_truncated_gzip(self) -> None:
        self.send(200, gzip.compress(json.dumps(FORECAST).encode())[:-12], "gzip")

    def scenario_damaged_gzip(self) -> None:
        data = bytearray(gzip.compress(json.dumps(FORECAST).encode()))
        data[12:20] = b"\xff" * 8
        self.send(200, bytes(data), "gzip")

    def scenario_bad_status_line(self) -> None:
        line = ESCAPES.replace("\r\n", "") + "\x07" * 15_000
        self.wfile.write(b"HTTP/1.1 200 " + line.encode() + b"\r\n\r\n")
        self.close_connection = True


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    httpd = _Server()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def url_of(server: _Server, scenario: str) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/{scenario}/v1/forecast"


@pytest.fixture
def use(server: _Server, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv(weather.TIMEOUT_ENV, raising=False)

    def point_at(scenario: str) -> None:
        monkeypatch.setenv(weather.URL_ENV, url_of(server, scenario))

    return point_at


@pytest.fixture(autouse=True)
async def _close_clients() -> Any:
    yield
    await aclose_clients()


def assert_small_and_printable(error: str) -> None:
    assert len(error) < 2500
    assert error.isprintable(), error[:200]


# --- in this process: what the model reads ----------------------------------------------


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "scenario", ["ok", "gzip", "deflate", "identity", "exactly_the_limit", "exactly_the_limit_gzip"]
)
async def test_usable_forecast_however_sent(use: Callable[[str], None], scenario: str) -> None:
    use(scenario)
    result = await get_weather(city="台北", include_details=True)
    assert result.success, result.error
    assert result.data["temperature"] == 22.5
    assert result.data["wind_speed"] == 12.3


async def test_asks_only_for_gzip(use: Callable[[str], None], server: _Server) -> None:
    use("gzip")
    server.accept_encodings.clear()
    assert (await get_weather(city="台北")).success
    assert server.accept_encodings == ["gzip"]


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("scenario", "detail"),
    [
        ("one_past_the_limit", f"the body is larger than {MAX_BODY_BYTES} bytes"),
        ("one_past_the_limit_gzip", f"the body is larger than {MAX_BODY_BYTES} bytes"),
        ("huge_with_length", f"the body is larger than {MAX_BODY_BYTES} bytes"),
        ("huge_chunked", f"the body is larger than {MAX_BODY_BYTES} bytes"),
        ("gzip_bomb", f"the body is larger than {MAX_BODY_BYTES} bytes"),
        ("nested", "the JSON nests too deeply"),
        ("invalid_utf8", "the body is not JSON: 'utf-8' codec can't decode byte 0xff"),
        ("utf16", "the body is not JSON: 'utf-8' codec can't decode byte 0xff"),
        ("nan", "the body is not JSON: NaN is not JSON"),
        ("infinity", "the body is not JSON: -Infinity is not JSON"),
        ("huge_float", "the body is not JSON: 1e999 is out of range"),
        ("huge_int", "the body is not JSON: a number of 400 digits is out of range"),
        ("brotli", "unsupported Content-Encoding 'br'"),
        ("stacked", "unsupported Content-Encoding 'gzip, gzip'"),
        ("truncated_gzip", "the compressed body ends early"),
        ("damaged_gzip", "the compressed body is damaged (Error -3 while decompressing"),
    ],
)
async def test_unusable_body_is_api_error(
    use: Callable[[str], None], scenario: str, detail: str
) -> None:
    use(scenario)
    result = await get_weather(city="台北", include_details=True)
    assert result.success is False
    assert result.error.startswith("api_error: 無法取得天氣資訊，天氣服務的回應無法使用（")
    assert detail in result.error
    assert_small_and_printable(result.error)


@pytest.mark.timeout(30)
async def test_long_reason_is_clipped_and_printable(use: Callable[[str], None]) -> None:
    use("big_reason")
    result = await get_weather(city="台北")
    shown = r"\x1b[2J\x1b[31mrm -rf /\x1b]0;pwned\x07\x00\r\n\u202e\x7f"  # escaped, not obeyed
    assert result.error.startswith(f"api_error: 天氣服務回應錯誤（HTTP 400）：{shown}RRR")
    assert result.error.endswith("R…（已截斷）")
    assert "\x1b" not in result.error
    assert_small_and_printable(result.error)


@pytest.mark.timeout(30)
async def test_reason_past_the_body_limit_is_not_read(use: Callable[[str], None]) -> None:
    use("huge_reason")
    result = await get_weather(city="台北")
    assert result.error == "api_error: 天氣服務回應錯誤（HTTP 400）"


@pytest.mark.timeout(30)
async def test_protocol_error_quoting_the_server_is_clipped(use: Callable[[str], None]) -> None:
    use("bad_status_line")
    result = await get_weather(city="台北")
    assert result.error.startswith(
        "network_error: 無法連線到天氣服務（RemoteProtocolError: illegal status line: "
    )
    assert result.error.endswith("…（已截斷））")
    assert_small_and_printable(result.error)


# --- in a child process: memory -----------------------------------------------------------

# VmHWM, the peak RSS of this process image: ru_maxrss would also count the pytest
# process this child was forked from (Linux carries it across exec). The child is forked
# from a process that imported the weather tool (tests/forkserver.py): its peak starts at
# that process's size, as a new interpreter's would once it had imported the same.
PRELOAD = "import asyncio, json, re\nfrom tooldeck.tools.weather import get_weather"
CHILD = """
result = asyncio.run(get_weather(city="台北"))
with open("/proc/self/status") as status:
    peak = int(re.search(r"VmHWM:\\s*(\\d+) kB", status.read()).group(1)) * 1024
print(json.dumps({"error": result.error, "peak": peak}))
"""
CHILDREN = LazyForkServer(
    PRELOAD, env={k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
)
_close_children = CHILDREN.closing()


def call_in_child(url: str) -> dict[str, Any]:
    done = CHILDREN().run(
        code=CHILD, env={weather.URL_ENV: url}, unset=[weather.TIMEOUT_ENV], timeout=90
    )
    stdout, stderr = done.stdout.decode(), done.stderr.decode(errors="replace")
    assert done.returncode == 0, stderr[-3000:]
    answer: dict[str, Any] = json.loads(stdout)
    return answer


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("scenario", "detail"),
    [
        ("huge_with_length", "larger than"),
        ("huge_chunked", "larger than"),
        ("gzip_bomb", "larger than"),
        ("nested", "nests too deeply"),
        ("invalid_utf8", "can't decode"),
        ("huge_reason", "HTTP 400"),
        ("big_reason", "HTTP 400"),
    ],
)
async def test_hostile_body_leaves_memory_bounded(
    server: _Server, scenario: str, detail: str
) -> None:
    answer = await asyncio.to_thread(call_in_child, url_of(server, scenario))
    assert answer["error"].startswith("api_error: ")
    assert detail in answer["error"]
    assert_small_and_printable(answer["error"])
    assert answer["peak"] < MAX_CHILD_RSS, f"{answer['peak'] / MIB:.0f} MiB at peak"


def test_the_bomb_is_what_it_claims() -> None:
    # ~1 MiB on the wire (under the raw limit: only the inflated size can stop it)...
    assert sum(map(len, gzip_bomb(BOMB_INFLATED_MIB))) < MAX_BODY_BYTES
    # ...inflating to the full size asked for with a valid CRC and length: the same code
    # for any size from 2 MiB, inflated here at a few (the full 1000 MiB took seconds of CPU).
    for inflated_mib in (2, 3, 8):
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        inflated = sum(len(inflater.decompress(part, 0)) for part in gzip_bomb(inflated_mib))
        assert inflater.eof
        assert inflated == inflated_mib * MIB

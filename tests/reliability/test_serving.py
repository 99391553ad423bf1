"""Serving over MCP: loopback by default, a token keeps others out, failures are messages.

One server subprocess (``servers/serve_defaults.py``: ``registry.serve("http",
port=..., token=...)``, every other setting default) serves the HTTP tests; the
in-process tests use ``as_mcp_server`` directly.
"""

from __future__ import annotations

import asyncio
import inspect
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

fastmcp = pytest.importorskip("fastmcp")

from fastmcp.client.transports import StreamableHttpTransport  # noqa: E402

import tooldeck.mcp  # noqa: E402
from tooldeck import ToolRegistry  # noqa: E402

SCRIPT = Path(__file__).parent / "servers" / "serve_defaults.py"
TOKEN = "s3cret-token"
STARTUP = 30.0  # seconds the server may take to listen (a cold import of fastmcp is slow)
LEAKS = ("Traceback", 'File "', ".py", "secret.txt", "FileNotFoundError")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

pytestmark = pytest.mark.timeout(120)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[int, str]]:
    """The served registry: its port and URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), str(port), TOKEN],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + STARTUP
        while True:
            assert process.poll() is None, f"the server exited with {process.returncode}"
            assert time.monotonic() < deadline, "the server did not start listening"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield port, f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(10)


# -- loopback by default ---------------------------------------------------------------------


def test_the_default_host_is_loopback() -> None:
    for serve in (ToolRegistry.serve, tooldeck.mcp.serve):
        assert inspect.signature(serve).parameters["host"].default == "127.0.0.1"


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket table")
def test_the_server_listens_on_loopback_only(server: tuple[int, str]) -> None:
    port, _ = server
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                listening.append(address)
    assert listening == ["0100007F"]  # 127.0.0.1, and nothing else (no 0.0.0.0, no ::)


# -- the token -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong", f"Bearer {TOKEN}x", TOKEN, f"Basic {TOKEN}"]
)
def test_requests_without_the_token_are_rejected(
    server: tuple[int, str], authorization: str | None
) -> None:
    _, url = server
    headers = HEADERS if authorization is None else {**HEADERS, "Authorization": authorization}
    response = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
    assert response.status_code == 401
    assert "serverInfo" not in response.text


def test_requests_with_the_token_are_served(server: tuple[int, str]) -> None:
    _, url = server
    headers = {**HEADERS, "Authorization": f"Bearer {TOKEN}"}
    response = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
    assert response.status_code == 200
    assert "serverInfo" in response.text


async def test_a_client_without_the_token_imports_nothing(server: tuple[int, str]) -> None:
    _, url = server
    registry = ToolRegistry()
    with pytest.raises(Exception):  # noqa: B017 - fastmcp's own error for a 401
        await asyncio.wait_for(registry.async_use_mcp(url), STARTUP)
    assert len(registry) == 0
    await registry.aclose()


# -- failures reach the client as messages --------------------------------------------------


async def test_failures_over_http_are_messages_not_tracebacks(server: tuple[int, str]) -> None:
    _, url = server
    client = fastmcp.Client(StreamableHttpTransport(url, auth=TOKEN), timeout=STARTUP)
    async with client:
        result = await client.call_tool_mcp("explode", {})
        assert result.is_error
        assert [item.text for item in result.content] == ["the archive is unavailable"]
        result = await client.call_tool_mcp("add", {"a": "x" * 5000})
        assert result.is_error
        assert [item.text for item in result.content] == [
            "Invalid arguments for tool 'add':\na: Input should be a valid integer, unable to "
            f"parse string as an integer (got '{'x' * 62}…)"
        ]
        result = await client.call_tool_mcp("opaque", {})
        assert not result.is_error  # served as text the client can read
        assert result.content[0].text.startswith('{"handle":"<object object at')
        assert (await client.call_tool_mcp("add", {"a": 1, "b": 2})).structured_content == {
            "result": 3
        }


def served_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def explode() -> str:
        raise RuntimeError("the archive is unavailable")

    @registry.tool(timeout=0.1)
    async def slow() -> str:
        await asyncio.sleep(10)
        return "late"

    @registry.tool
    def hostile() -> str:
        class Hostile(Exception):
            def __str__(self) -> str:
                raise ValueError("no")

        raise Hostile

    return registry


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("explode", "the archive is unavailable"),
        ("slow", "Tool 'slow' timed out after 0.1 seconds"),
        ("hostile", "Hostile"),
    ],
)
async def test_in_process_failures_are_messages(name: str, message: str) -> None:
    server = served_registry().as_mcp_server()
    async with fastmcp.Client(server, timeout=STARTUP) as client:
        result = await client.call_tool_mcp(name, {})
        assert result.is_error
        texts = [item.text for item in result.content]
        assert texts == [message]
        for leak in LEAKS:
            assert leak not in texts[0]
        assert (await client.call_tool_mcp("explode", {})).is_error  # still serving


async def test_unknown_arguments_and_tools_are_refused_as_messages() -> None:
    server = served_registry().as_mcp_server()
    async with fastmcp.Client(server, timeout=STARTUP) as client:
        result = await client.call_tool_mcp("explode", {"__class__": 1})
        assert result.is_error
        assert [item.text for item in result.content] == [
            "Invalid arguments for tool 'explode':\n__class__: unexpected argument"
        ]
        answer: Any
        try:
            answer = await client.call_tool_mcp("no_such_tool", {})
        except Exception as exc:  # fastmcp may answer an unknown tool with a protocol error
            answer = str(exc)
        for leak in LEAKS:
            assert leak not in str(answer)

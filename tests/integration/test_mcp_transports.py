"""Over real transports: a served registry in a subprocess, over stdio and streamable HTTP.

The server is ``mcp_servers/serve_registry.py`` (``registry.serve(...)`` from argv), over
HTTP a process forked by ``server_forks`` (tests/conftest.py).
Each test imports it with ``use_mcp``, calls it 50 times at once over the one session,
kills the server, sees the §7.2 failure value (``None``), brings the server back and
sees the next call succeed. HTTP servers bind to 127.0.0.1 on a free port.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from mcp.shared.exceptions import MCPError

from forkserver import ForkedProcess, ForkServer
from listening import started, wait_listening
from tooldeck import ToolRegistry
from tooldeck.errors import MCPAuthError

SCRIPT = Path(__file__).parent / "mcp_servers" / "serve_registry.py"
STARTUP = 30.0  # seconds a server may take to listen (a cold import of fastmcp is slow)

pytestmark = pytest.mark.timeout(120)


class HttpServer:
    """``serve_registry.py http PORT`` in a process of its own; killed and restarted at will
    (on the same port)."""

    def __init__(self, forks: ForkServer, env: dict[str, str] | None = None) -> None:
        self.forks = forks
        self.env = env
        self.process, self.port = started(self._start, STARTUP)
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def _start(self, port: int) -> ForkedProcess:
        return self.forks.start(SCRIPT, "http", str(port), env=self.env)

    def start(self) -> None:
        self.process = self._start(self.port)
        wait_listening(self.process, self.port, STARTUP)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture
def http_server(server_forks: ForkServer) -> Iterator[HttpServer]:
    server = HttpServer(server_forks)
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
async def registry() -> AsyncIterator[ToolRegistry]:
    registry = ToolRegistry()
    try:
        yield registry
    finally:
        await registry.aclose()


async def fifty_concurrent_calls(registry: ToolRegistry) -> None:
    answers = await asyncio.gather(
        *(registry.async_call_tool("shout", {"text": f"hi{i}"}) for i in range(50))
    )
    assert answers == [{"text": f"HI{i} "} for i in range(50)]


def gone(pid: int) -> bool:
    """Whether a process has exited (a zombie counts: it no longer runs)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # gone, or going
        return True
    return stat.rsplit(")", 1)[1].split()[0] in {"Z", "X"}


async def test_stdio_concurrency_death_and_return() -> None:
    registry = ToolRegistry()
    proxies = await registry.async_use_mcp(StdioTransport(sys.executable, [str(SCRIPT), "stdio"]))
    assert [p.name for p in proxies] == ["add", "shout", "pid", "refuse"]
    assert registry.get("add").tags == ("math",)  # type: ignore[union-attr]
    await fifty_concurrent_calls(registry)
    pids = {await registry.async_call_tool("pid", {}) for _ in range(5)}
    assert len(pids) == 1  # one server process served every call
    assert await registry.async_call_tool("refuse", {"reason": "no"}) == {"error": "no"}

    first = pids.pop()
    os.kill(first, signal.SIGKILL)
    assert await registry.async_call_tool("add", {"a": 1, "b": 2}) is None
    # the next call starts the server again
    assert await registry.async_call_tool("add", {"a": 1, "b": 2}) == 3
    second = await registry.async_call_tool("pid", {})
    assert second != first

    # a registry dropped without close() still stops the server it started
    del registry, proxies
    gc.collect()
    deadline = time.monotonic() + 15
    while not gone(second) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert gone(second)


async def test_http_concurrency_death_and_return(
    registry: ToolRegistry, http_server: HttpServer
) -> None:
    proxies = await registry.async_use_mcp(http_server.url, tags="remote")
    assert [p.name for p in proxies] == ["add", "shout", "pid", "refuse"]
    assert registry.get("add").tags == ("math", "remote")  # type: ignore[union-attr]
    await fifty_concurrent_calls(registry)
    assert len({await registry.async_call_tool("pid", {}) for _ in range(5)}) == 1

    http_server.kill()
    assert await registry.async_call_tool("add", {"a": 1}) is None
    assert await registry.async_call_tool("add", {"a": 1}) is None  # still down
    http_server.start()
    assert await registry.async_call_tool("add", {"a": 1}) == 1
    await fifty_concurrent_calls(registry)


def test_http_from_sync_code(http_server: HttpServer) -> None:
    with ToolRegistry() as registry:
        registry.use_mcp(http_server.url)
        assert registry.call_tool("add", {"a": 20, "b": 22}) == 42
        # the server validates, and its refusal comes back with its text (§7.2)
        refused = registry.call_tool("add", {"a": "x"})
        assert refused["error"].startswith("Invalid arguments for tool 'add':\na: ")
        assert registry.execute_sync("add", {"a": "x"}).error == refused["error"]


async def test_a_token_protected_server_rejects_a_client_without_it(
    registry: ToolRegistry, server_forks: ForkServer
) -> None:
    server = HttpServer(server_forks, env={"TOOLDECK_MCP_TOKEN": "s3cret"})
    try:
        for auth, says in ((None, "requires a bearer token"), ("wrong", "is not valid")):
            # any MCP client reads the server's own words (a JSON-RPC error body)
            with pytest.raises(MCPError, match=says):
                async with Client(server.url, auth=auth) as client:
                    await client.list_tools()
            # use_mcp names the refusal, the URL and the status
            with pytest.raises(MCPAuthError, match=says) as refused:
                await registry.async_use_mcp(StreamableHttpTransport(server.url, auth=auth))
            assert refused.value.status == 401
            assert refused.value.url == server.url
            assert server.url in str(refused.value)
            assert "401 Unauthorized" in str(refused.value)
        assert len(registry) == 0

        await registry.async_use_mcp(StreamableHttpTransport(server.url, auth="s3cret"))
        assert await registry.async_call_tool("add", {"a": 2}) == 2
    finally:
        server.kill()


def test_serve_rejects_an_unknown_transport_and_a_token_on_stdio() -> None:
    registry = ToolRegistry()
    with pytest.raises(ValueError, match="unknown MCP transport"):
        registry.serve("sse")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="token"):
        registry.serve("stdio", token="x")

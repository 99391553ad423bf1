"""Cancellation across the MCP edge: a client cancelling a request (or dropping its HTTP
connection) cancels the served call, and through a gateway the remote server gets
``notifications/cancelled`` and its tool stops."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tooldeck import ToolRegistry

pytest.importorskip("fastmcp")

pytestmark = pytest.mark.timeout(30)


class Watch:
    """A slow async tool's life, seen from a test on any loop or thread."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()
        self.finished = threading.Event()

    def registry(self, timeout: float | None = None) -> ToolRegistry:
        registry = ToolRegistry()
        watch = self

        @registry.tool(timeout=timeout)
        async def slow(seconds: float = 20) -> str:
            """Sleep, unless cancelled."""
            watch.started.set()
            try:
                await asyncio.sleep(seconds)
            except asyncio.CancelledError:
                watch.cancelled.set()
                raise
            watch.finished.set()
            return "woke"

        return registry


async def wait_for(event: threading.Event, seconds: float = 10) -> bool:
    return await asyncio.to_thread(event.wait, seconds)


async def cancel_midway(client: Any, watch: Watch) -> None:
    """Start a call of ``slow``, cancel it once the tool runs, and see the tool stop."""
    call = asyncio.ensure_future(client.call_tool("slow", {}))
    assert await wait_for(watch.started)
    call.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await call
    assert await wait_for(watch.cancelled), "the tool never saw CancelledError"
    assert not watch.finished.is_set()


async def test_a_client_cancelling_cancels_the_served_async_tool() -> None:
    from fastmcp import Client

    watch = Watch()
    async with Client(watch.registry().as_mcp_server()) as client:
        await cancel_midway(client, watch)
        # The session is still usable afterwards.
        assert (await client.call_tool("slow", {"seconds": 0})).data == "woke"


@contextlib.asynccontextmanager
async def http_client(app: Any) -> AsyncIterator[Any]:
    import httpx2
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport
    from fastmcp.utilities.asgi_transport import StreamingASGITransport, run_asgi_lifespan

    def factory(**kwargs: Any) -> httpx2.AsyncClient:
        kwargs.pop("follow_redirects", None)
        return httpx2.AsyncClient(
            transport=StreamingASGITransport(app), base_url="http://127.0.0.1", **kwargs
        )

    transport = StreamableHttpTransport("http://127.0.0.1/mcp", httpx_client_factory=factory)
    async with run_asgi_lifespan(app), Client(transport) as client:
        yield client


async def test_over_http_a_client_cancelling_cancels_the_tool() -> None:
    watch = Watch()
    async with http_client(watch.registry().http_app()) as client:
        await cancel_midway(client, watch)


async def test_through_a_gateway_the_remote_tool_is_cancelled() -> None:
    from fastmcp import Client

    watch = Watch()
    gateway = ToolRegistry()
    await gateway.async_use_mcp(watch.registry().as_mcp_server())
    try:
        async with Client(gateway.as_mcp_server()) as client:
            await cancel_midway(client, watch)
    finally:
        await gateway.aclose()


async def test_cancelling_a_proxy_call_from_python_cancels_the_remote_tool() -> None:
    watch = Watch()
    gateway = ToolRegistry()
    await gateway.async_use_mcp(watch.registry().as_mcp_server())
    try:
        call = asyncio.ensure_future(gateway.async_call_tool("slow", {}))
        assert await wait_for(watch.started)
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        assert await wait_for(watch.cancelled)
        assert not watch.finished.is_set()
    finally:
        await gateway.aclose()


async def test_a_tool_with_a_timeout_is_cancelled_too() -> None:
    from fastmcp import Client

    watch = Watch()
    async with Client(watch.registry(timeout=60).as_mcp_server()) as client:
        await cancel_midway(client, watch)


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.mark.parametrize("stateless", [False, True])
async def test_an_http_client_dropping_its_connection_cancels_the_tool(stateless: bool) -> None:
    import httpx2
    from fastmcp.utilities.asgi_transport import StreamingASGITransport, run_asgi_lifespan

    watch = Watch()
    app = watch.registry().http_app(stateless=stateless)
    transport = StreamingASGITransport(app)
    async with (
        run_asgi_lifespan(app),
        httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http,
    ):
        opened = await http.post("/mcp", json=INIT, headers=HEADERS)
        headers = dict(HEADERS)
        session = opened.headers.get("mcp-session-id")
        if session:
            headers["mcp-session-id"] = session
            headers["mcp-protocol-version"] = "2025-06-18"
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await http.post("/mcp", json=note, headers=headers)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
        call["params"] = {"name": "slow", "arguments": {}}
        async with http.stream("POST", "/mcp", json=call, headers=headers) as response:
            assert response.status_code == 200
            assert await wait_for(watch.started)
        # The response is closed: the client went away mid-call.
        assert await wait_for(watch.cancelled), "the tool never saw CancelledError"
        assert not watch.finished.is_set()


async def test_a_cancelled_sync_tools_thread_is_abandoned() -> None:
    """The served call ends at once; the worker thread runs on, as on a timeout."""
    from fastmcp import Client

    started, release, ended = threading.Event(), threading.Event(), threading.Event()
    registry = ToolRegistry()

    @registry.tool
    def blocking() -> str:
        started.set()
        release.wait(20)
        return "late"

    @registry.middleware
    async def watch(call: Any, call_next: Any) -> Any:
        try:
            return await call_next(call)
        except asyncio.CancelledError:
            ended.set()
            raise

    try:
        async with Client(registry.as_mcp_server()) as client:
            call = asyncio.ensure_future(client.call_tool("blocking", {}))
            assert await wait_for(started)
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await call
            assert await wait_for(ended), "the served call was not cancelled"
            assert not release.is_set()  # the tool's thread is still in it: abandoned
    finally:
        release.set()

"""Progress over MCP: a served tool's reports reach a client that asked for them, in
memory and over HTTP, directly and through a gateway (``B.use_mcp(A)`` served again),
coalesced when they come faster than the client takes them."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tooldeck import Progress, ToolRegistry

pytest.importorskip("fastmcp")

STEPS = [(float(i), 5.0, f"step {i}") for i in range(1, 6)]
BURST = 100_000


def source() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    async def build(progress: Progress) -> str:
        """Five steps, async."""
        for i in range(1, 6):
            await asyncio.sleep(0.005)
            progress(i, 5, f"step {i}")
        return "built"

    @registry.tool
    def build_sync(progress: Progress) -> str:
        """Five steps, in a worker thread."""
        for i in range(1, 6):
            time.sleep(0.005)
            progress(i, 5, f"step {i}")
        return "built"

    @registry.tool
    def flood(progress: Progress) -> int:
        """Report far faster than any client takes it."""
        for i in range(1, BURST + 1):
            progress(i, BURST)
        return BURST

    return registry


class Seen:
    def __init__(self) -> None:
        self.reports: list[tuple[float, Any, Any]] = []

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        self.reports.append((done, total, message))


async def call(client: Any, name: str) -> tuple[Any, list[tuple[float, Any, Any]]]:
    seen = Seen()
    result = await client.call_tool(name, {}, progress_handler=seen)
    return result.data, seen.reports


@contextlib.asynccontextmanager
async def http_client(app: Any) -> AsyncIterator[Any]:
    """A fastmcp Client over streamable HTTP to ``app``, in process (a real HTTP stack:
    Starlette, the session manager, SSE; no socket)."""
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


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", ["build", "build_sync"])
async def test_in_memory_a_client_receives_the_five_reports_in_order(name: str) -> None:
    from fastmcp import Client

    async with Client(source().as_mcp_server()) as client:
        assert await call(client, name) == ("built", STEPS)
        plain = await client.call_tool(name, {})  # no handler: no progress asked, same answer
        assert plain.data == "built"


@pytest.mark.timeout(30)
async def test_over_http_a_client_receives_the_five_reports_in_order() -> None:
    async with http_client(source().http_app()) as client:
        assert await call(client, "build") == ("built", STEPS)
        assert await call(client, "build_sync") == ("built", STEPS)


@pytest.mark.timeout(60)
async def test_over_a_socket_on_127_0_0_1_the_five_reports_arrive_in_order() -> None:
    from fastmcp import Client
    from media_samples import served_over_http  # uvicorn in a thread, a port of its own

    with served_over_http(source()) as url:
        async with Client(url) as client:
            assert await call(client, "build") == ("built", STEPS)
            assert await call(client, "build_sync") == ("built", STEPS)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("middleware", [False, True])
async def test_through_a_gateway_the_same_five_arrive(middleware: bool) -> None:
    from fastmcp import Client

    gateway = ToolRegistry()
    if middleware:  # served calls then go through the chain, context and all

        @gateway.middleware
        async def passing(call: Any, call_next: Any) -> Any:
            return await call_next(call)

    await gateway.async_use_mcp(source().as_mcp_server())
    try:
        async with Client(gateway.as_mcp_server()) as client:
            for name in ("build", "build_sync"):
                assert await call(client, name) == ("built", STEPS)
        # Called from Python: the context's callback sees them, every face.
        seen: list[tuple[float, Any, Any]] = []
        context = {"progress": lambda *report: seen.append(report)}
        assert await gateway.async_call_tool("build", {}, context=context) == "built"
        assert seen == STEPS
        seen.clear()
        result = await asyncio.to_thread(gateway.execute_sync, "build_sync", {}, context=context)
        assert result.data == "built"
        assert seen == STEPS
    finally:
        await gateway.aclose()


@pytest.mark.timeout(60)
async def test_a_flood_of_reports_is_coalesced_and_the_last_arrives() -> None:
    from fastmcp import Client

    async with Client(source().as_mcp_server()) as client:
        value, reports = await call(client, "flood")
    assert value == BURST
    assert 1 <= len(reports) <= BURST // 10  # coalesced: not one notification per report
    assert reports[-1] == (BURST, BURST, None)  # the final one always arrives, last
    done = [r[0] for r in reports]
    assert done == sorted(done)  # in order


@pytest.mark.timeout(60)
async def test_a_flood_through_a_gateway_is_coalesced_and_the_last_arrives() -> None:
    from fastmcp import Client

    gateway = ToolRegistry()
    await gateway.async_use_mcp(source().as_mcp_server())
    try:
        async with Client(gateway.as_mcp_server()) as client:
            value, reports = await call(client, "flood")
    finally:
        await gateway.aclose()
    assert value == BURST
    assert 1 <= len(reports) <= BURST // 10
    assert reports[-1] == (BURST, BURST, None)
    done = [r[0] for r in reports]
    assert done == sorted(done)

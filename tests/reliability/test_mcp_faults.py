"""MCP servers that fail: each fault gives seed 001 §7.2's failure value, and the next call
recovers.

The server is ``servers/faulty_mcp.py``, a stdio MCP server written by hand so it can
break the protocol on purpose. Requests are bounded by a timeout — the client's own
(``fastmcp.Client(..., timeout=...)`` passed as the transport) or ``use_mcp``'s
``timeout=``: a server that hangs, writes garbage or answers the wrong request gives
``None`` once it passes.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

fastmcp = pytest.importorskip("fastmcp")

from fastmcp.client.transports import StdioTransport  # noqa: E402

from tooldeck import ToolRegistry  # noqa: E402

SCRIPT = Path(__file__).parent / "servers" / "faulty_mcp.py"
REQUEST_TIMEOUT = 1.0  # the client's bound on one request
BOUND = 30.0  # what a test waits at most for anything

pytestmark = pytest.mark.timeout(120)


def faulty_client(timeout: float | None = REQUEST_TIMEOUT) -> Any:
    return fastmcp.Client(StdioTransport(sys.executable, [str(SCRIPT)]), timeout=timeout)


@pytest.fixture
async def remote() -> AsyncIterator[ToolRegistry]:
    registry = ToolRegistry()
    await asyncio.wait_for(registry.async_use_mcp(faulty_client()), BOUND)
    try:
        yield registry
    finally:
        await asyncio.wait_for(registry.aclose(), BOUND)


async def call(registry: ToolRegistry, name: str) -> Any:
    return await asyncio.wait_for(registry.async_call_tool(name, {}), BOUND)


@pytest.mark.parametrize(
    "fault",
    ["bad_content", "unknown_type", "rpc_error", "not_object", "hang", "garbage", "wrong_id"],
)
async def test_a_fault_gives_none_and_the_next_call_recovers(
    remote: ToolRegistry, fault: str
) -> None:
    pid = await call(remote, "good")
    assert isinstance(pid, int)
    assert await call(remote, fault) is None
    assert await call(remote, "good") == pid  # the same session, still healthy


async def test_is_error_without_text_is_still_an_error_dict(remote: ToolRegistry) -> None:
    assert await call(remote, "error_no_text") == {"error": "the tool failed without saying why"}


async def test_a_server_that_crashes_mid_call(remote: ToolRegistry) -> None:
    first = await call(remote, "good")
    assert await call(remote, "crash") is None
    second = await call(remote, "good")  # a new server process, started on demand
    assert isinstance(second, int)
    assert second != first


async def test_a_crash_fails_every_call_in_flight_then_recovers(remote: ToolRegistry) -> None:
    answers = await asyncio.wait_for(
        asyncio.gather(
            remote.async_call_tool("hang", {}),
            remote.async_call_tool("hang", {}),
            remote.async_call_tool("crash", {}),
        ),
        BOUND,
    )
    assert answers == [None, None, None]
    assert isinstance(await call(remote, "good"), int)


async def test_a_hanging_call_does_not_hold_up_the_others(remote: ToolRegistry) -> None:
    hanging = asyncio.ensure_future(remote.async_call_tool("hang", {}))
    goods = await asyncio.wait_for(
        asyncio.gather(*(remote.async_call_tool("good", {}) for _ in range(20))), BOUND
    )
    assert len(set(goods)) == 1  # answered while the hanging call waited
    assert not hanging.done()
    assert await asyncio.wait_for(hanging, BOUND) is None


def test_faults_from_sync_code() -> None:
    """The sync face goes through the same sessions, on tooldeck's background loop."""
    registry = ToolRegistry()
    registry.use_mcp(faulty_client())
    try:
        pid = registry.call_tool("good", {})
        assert registry.call_tool("hang", {}) is None
        assert registry.call_tool("good", {}) == pid
        assert registry.call_tool("crash", {}) is None
        assert isinstance(registry.call_tool("good", {}), int)
        assert registry.execute_sync("garbage", {}).data is None
    finally:
        registry.close()


async def test_use_mcp_bounds_a_hanging_server_by_itself() -> None:
    registry = ToolRegistry()
    transport = StdioTransport(sys.executable, [str(SCRIPT)])
    try:
        await asyncio.wait_for(
            registry.async_use_mcp(transport, timeout=REQUEST_TIMEOUT),
            BOUND,
        )
        assert await asyncio.wait_for(registry.async_call_tool("hang", {}), BOUND) is None
    finally:
        await registry.aclose()

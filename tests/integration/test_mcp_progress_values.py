"""Progress values a tool should not have sent, served (found in review): the MCP spec
wants each notification's progress to increase, and JSON has no NaN or infinity (sent,
they went out as ``null``, which clients refuse as an invalid notification). What a
client receives is always a valid, increasing sequence, and messages are bounded;
directly, over HTTP, and through a gateway whose remote sends such values."""

from __future__ import annotations

import math
from typing import Any

import pytest
from test_mcp_progress import Seen, http_client

from tooldeck import Progress, ToolRegistry

pytest.importorskip("fastmcp")

NAN, INF = math.nan, math.inf
SENT: list[tuple[Any, Any, Any]] = [
    (1, 5, "m"),
    (NAN, 5, "m"),
    (2, 5, "m"),
    (INF, 5, "m"),
    (-5, 5, "m"),
    (3, 5, "m"),
    (3, 5, "again"),
    (2.5, 5, "m"),
    (4, INF, "m"),
    (5, 5, "x" * 50_000),
]
RECEIVED = [
    (1.0, 5.0, "m"),
    (2.0, 5.0, "m"),
    (3.0, 5.0, "m"),
    (4.0, None, "m"),
    (5.0, 5.0, "x" * 999 + "…"),
]


def source() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    async def odd(progress: Progress) -> str:
        """Reports what a careless tool might (fewer than the backlog: none coalesced)."""
        for report in SENT:
            progress(*report)
        return "done"

    return registry


async def received(client: Any) -> list[tuple[Any, Any, Any]]:
    seen = Seen()
    result = await client.call_tool("odd", {}, progress_handler=seen)
    assert result.data == "done"
    return seen.reports


@pytest.mark.timeout(30)
async def test_in_memory_only_finite_increasing_reports_are_sent() -> None:
    from fastmcp import Client

    async with Client(source().as_mcp_server()) as client:
        assert await received(client) == RECEIVED


@pytest.mark.timeout(30)
async def test_over_http_no_invalid_notification_goes_out() -> None:
    async with http_client(source().http_app()) as client:
        assert await received(client) == RECEIVED


@pytest.mark.timeout(30)
async def test_a_gateway_passes_on_only_what_a_client_may_receive() -> None:
    from fastmcp import Client

    gateway = ToolRegistry()
    await gateway.async_use_mcp(source().as_mcp_server())
    try:
        async with Client(gateway.as_mcp_server()) as client:
            assert await received(client) == RECEIVED
    finally:
        await gateway.aclose()

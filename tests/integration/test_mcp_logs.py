"""A gateway passes its remote servers' log messages on to the client calling it
(unchanged: level, logger, data), and still to the ``tooldeck.mcp`` logger; never to a
client they may not be for."""

# (No `from __future__ import annotations`: fastmcp resolves the tool's `ctx: Context`
# hint when it is decorated, and Context is imported inside, not at collection.)
import asyncio
import logging
from typing import Any

import pytest

from tooldeck import ToolRegistry

pytest.importorskip("fastmcp")

pytestmark = [
    pytest.mark.timeout(30),
    # fastmcp's own `Context.info` (the upstream server here) warns of SEP-2577.
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]


def upstream() -> Any:
    from fastmcp import Context, FastMCP

    server = FastMCP("upstream")

    @server.tool
    async def noisy(who: str, ctx: Context, pause: float = 0) -> str:
        """Log as it works."""
        await ctx.info(f"starting for {who}", logger_name="builder")
        await asyncio.sleep(pause)
        await ctx.warning(f"almost done for {who}", logger_name="builder", extra={"n": 2})
        return f"done for {who}"

    return server


class Logs:
    def __init__(self) -> None:
        self.seen: list[tuple[str, Any, Any]] = []

    async def __call__(self, message: Any) -> None:
        self.seen.append((str(message.level), message.logger, message.data))


async def test_a_remote_servers_logs_reach_the_gateways_client_unchanged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from fastmcp import Client

    direct_logs, through_logs = Logs(), Logs()
    gateway = ToolRegistry()
    server = upstream()
    await gateway.async_use_mcp(server)
    try:
        async with (
            Client(server, log_handler=direct_logs) as direct,
            Client(gateway.as_mcp_server(), log_handler=through_logs) as through,
        ):
            with caplog.at_level(logging.INFO, logger="tooldeck.mcp"):
                got = await through.call_tool("noisy", {"who": "ann"})
            sent = await direct.call_tool("noisy", {"who": "ann"})
    finally:
        await gateway.aclose()
    assert got.data == sent.data == "done for ann"
    assert len(direct_logs.seen) == 2
    assert through_logs.seen == direct_logs.seen
    # ...and, as before, to the gateway's own logger
    logged = [r.getMessage() for r in caplog.records if r.name == "tooldeck.mcp"]
    assert any("starting for ann" in line for line in logged)


async def test_logs_of_concurrent_calls_never_reach_another_client() -> None:
    from fastmcp import Client

    gateway = ToolRegistry()
    await gateway.async_use_mcp(upstream())
    served = gateway.as_mcp_server()
    try:
        logs = {"ann": Logs(), "bob": Logs()}
        async with (
            Client(served, log_handler=logs["ann"]) as ann,
            Client(served, log_handler=logs["bob"]) as bob,
        ):
            answers = await asyncio.gather(
                ann.call_tool("noisy", {"who": "ann", "pause": 0.2}),
                bob.call_tool("noisy", {"who": "bob", "pause": 0.2}),
            )
    finally:
        await gateway.aclose()
    assert [a.data for a in answers] == ["done for ann", "done for bob"]
    # An MCP log message names no request: with two calls in flight, none is passed on
    # rather than one to the wrong client.
    for who, seen in logs.items():
        for _, _, data in seen.seen:
            assert who in str(data), (who, seen.seen)

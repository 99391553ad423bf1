"""Logs of concurrent calls through a gateway each reach their own client.

A remote server's ``notifications/message`` names no request. The MCP SDK's client
runs each notification's handler in the context of the task that read it, and that
task, for a message on a call's own stream (streamable HTTP: the call's POST
response; in process: the server's handler of that call), runs in the context the
call was sent from. So the gateway knows whose a log is whenever the transport carries
it on the call's own stream, however many calls are in flight; a log it cannot place
(stdio, the HTTP GET stream) is still passed on only while one call is in flight.
"""

# (No `from __future__ import annotations`: fastmcp resolves the tool's `ctx: Context`
# hint when it is decorated.)
import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tooldeck import ToolRegistry

pytest.importorskip("fastmcp")

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]

WHO = ("ann", "bob", "cy")


def upstream() -> Any:
    """A server whose tool logs only once every caller's call is in flight."""
    from fastmcp import Context, FastMCP

    server = FastMCP("upstream")
    arrived: list[str] = []
    together: dict[str, asyncio.Event] = {}

    @server.tool
    async def noisy(who: str, ctx: Context) -> str:
        """Wait for the others, then log twice."""
        everyone = together.setdefault("event", asyncio.Event())
        arrived.append(who)
        if len(arrived) == len(WHO):
            everyone.set()
        await asyncio.wait_for(everyone.wait(), 20)
        await ctx.info(f"working for {who}", logger_name="builder")
        await asyncio.sleep(0)
        await ctx.warning(f"done for {who}", logger_name="builder")
        return f"done for {who}"

    return server


class Logs:
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def __call__(self, message: Any) -> None:
        data = message.data
        self.seen.append(str(data.get("msg") if isinstance(data, dict) else data))


@contextlib.asynccontextmanager
async def over_http(server: Any) -> AsyncIterator[str]:
    from listening import served

    with served(server.http_app(path="/mcp")) as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize("transport", ["in process", "http"])
async def test_each_client_gets_its_own_calls_logs_with_several_in_flight(transport: str) -> None:
    from fastmcp import Client

    server = upstream()
    async with contextlib.AsyncExitStack() as stack:
        target: Any = server
        if transport == "http":
            target = await stack.enter_async_context(over_http(server))
        gateway = ToolRegistry()
        await gateway.async_use_mcp(target)
        stack.push_async_callback(gateway.aclose)
        served = gateway.as_mcp_server()
        logs = {who: Logs() for who in WHO}
        clients = [
            await stack.enter_async_context(Client(served, log_handler=logs[who])) for who in WHO
        ]
        answers = await asyncio.gather(
            *(
                client.call_tool("noisy", {"who": who})
                for client, who in zip(clients, WHO, strict=True)
            )
        )
    assert [a.data for a in answers] == [f"done for {who}" for who in WHO]
    for who in WHO:
        assert logs[who].seen == [f"working for {who}", f"done for {who}"], {
            name: log.seen for name, log in logs.items()
        }


def test_a_placed_message_goes_to_its_call_only_and_never_once_it_is_over() -> None:
    """What the session does with a message, by the context it is handled in."""
    import contextvars

    from tooldeck.mcp import _session

    session = _session.Session("http://127.0.0.1:9/mcp", timeout=None)
    got: dict[str, list[str]] = {"a": [], "b": []}
    a = _session._Call(session, got["a"].append)
    b = _session._Call(session, got["b"].append)

    def handled(call: Any, message: str) -> None:
        def run() -> None:
            if call is not None:
                _session._CALL.set(call)
            session.on_log(message)

        contextvars.copy_context().run(run)

    session._calls[:] = [a, b]
    handled(a, "a1")
    handled(b, "b1")
    handled(None, "unplaced")  # two in flight: whose? nobody's
    assert got == {"a": ["a1"], "b": ["b1"]}
    a.ended = True
    session._calls[:] = [b]
    handled(a, "a-late")  # a's, though a is over: never b's
    handled(None, "unplaced")  # one in flight: it can be no other's
    other = _session._Call(_session.Session("http://127.0.0.1:9/mcp", None), got["a"].append)
    handled(other, "another session's call")  # not placed here: b is the only one
    assert got == {"a": ["a1"], "b": ["b1", "unplaced", "another session's call"]}

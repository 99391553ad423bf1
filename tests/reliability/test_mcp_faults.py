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
from fastmcp.tools import ToolResult as FastMCPResult  # noqa: E402
from mcp_types import TextContent  # noqa: E402

from tooldeck import ToolRegistry, ToolResult  # noqa: E402

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


# -- hostile results: nesting no parser's stack holds (issue 21, item 1) ------------------------

DEEP = "[" * 100_000


def text_only(text: str) -> FastMCPResult:
    """A result of one text item, no structured content: the proxy parses the text."""
    return FastMCPResult(content=[TextContent(type="text", text=text)])


def every_face(registry: ToolRegistry, name: str) -> tuple[list[Any], list[Any]]:
    """The answers of the Agently faces and of the ToolResult faces, sync and async."""
    proxy = registry.get(name)
    assert proxy is not None

    async def both() -> tuple[Any, ...]:
        return (
            await registry.async_call_tool(name, {}),
            await proxy.acall({}),
            await registry.execute(name, {}),
            await proxy.run({}),
        )

    values = [registry.call_tool(name, {}), proxy.call({})]
    results = [registry.execute_sync(name, {}), proxy.run_sync({})]
    answers = asyncio.run(asyncio.wait_for(both(), BOUND))
    return [*values, *answers[:2]], [*results, *answers[2:]]


def test_a_result_too_deep_to_parse_is_the_text_as_it_came() -> None:
    registry = ToolRegistry()
    registry.use_mcp(faulty_client())
    try:
        values, results = every_face(registry, "deep_text")
        assert values == [DEEP] * 4  # never a RecursionError, never "Invalid arguments"
        assert results == [ToolResult.ok(DEEP)] * 4
        values, results = every_face(registry, "deep_error")
        assert values == [{"error": DEEP}] * 4
        assert results == [ToolResult.fail(DEEP)] * 4
        replies = registry.run_tool_calls(
            {"tool_calls": [{"id": "c1", "function": {"name": "deep_text", "arguments": "{}"}}]}
        )
        assert replies == [{"role": "tool", "tool_call_id": "c1", "content": DEEP}]
    finally:
        registry.close()


def test_structured_content_too_deep_to_parse_is_a_failure_naming_the_server() -> None:
    # The MCP SDK cannot parse the message (its JSON parser bounds nesting) and drops it:
    # the call is unanswered, so it fails at the timeout, naming the server.
    registry = ToolRegistry()
    registry.use_mcp(faulty_client())
    try:
        values, results = every_face(registry, "deep_structured")
        assert values == [None] * 4
        for result in results:
            assert not result.success
            assert "MCP server" in result.error and "deep_structured" in result.error
            assert "Invalid arguments" not in result.error
    finally:
        registry.close()


def test_an_in_process_result_too_deep_to_parse_is_the_text() -> None:
    server = fastmcp.FastMCP("deep")

    @server.tool(output_schema=None)
    def deep() -> FastMCPResult:
        return text_only(DEEP)

    registry = ToolRegistry()
    registry.use_mcp(server)
    values, results = every_face(registry, "deep")
    assert values == [DEEP] * 4
    assert results == [ToolResult.ok(DEEP)] * 4


def test_json_text_a_little_too_deep_is_text_and_shallower_is_parsed() -> None:
    # The bound is the parser's (jiter: 200 levels), not Python's stack: what comes back
    # parsed can be walked by anything after (rendering, serving again).
    server = fastmcp.FastMCP("nests")

    @server.tool(output_schema=None)
    def nest(n: int) -> FastMCPResult:
        return text_only("[" * n + "]" * n)

    registry = ToolRegistry()
    registry.use_mcp(server)
    parsed = registry.call_tool("nest", {"n": 150})
    depth = 0
    while isinstance(parsed, list):
        depth, parsed = depth + 1, parsed[0] if parsed else None
    assert depth == 150
    assert registry.call_tool("nest", {"n": 5000}) == "[" * 5000 + "]" * 5000

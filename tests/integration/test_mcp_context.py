"""Context per request over MCP: injected parameters of served tools (issue 15).

``as_mcp_server`` / ``serve`` / ``http_app`` take ``context=``: a mapping, or a callable
given the request's ``fastmcp.Context`` — so a server over HTTP derives the user from
who is calling. Tested with two real clients holding two tokens, over 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest

fastmcp = pytest.importorskip("fastmcp")

from fastmcp.client.transports import StreamableHttpTransport  # noqa: E402

from forkserver import ForkedProcess, ForkServer  # noqa: E402
from listening import started  # noqa: E402
from tooldeck import Injected, ToolRegistry  # noqa: E402

SCRIPT = Path(__file__).parent / "mcp_servers" / "multi_tenant.py"
STARTUP = 30.0

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def shop(server_forks: ForkServer) -> Iterator[Any]:
    """``shop("token" | "header")``: the multi-tenant server in a process of its own; its URL."""
    processes: list[ForkedProcess] = []

    def start(how: str) -> str:
        process, port = started(lambda port: server_forks.start(SCRIPT, str(port), how), STARTUP)
        processes.append(process)
        return f"http://127.0.0.1:{port}/mcp"

    yield start
    for process in processes:
        process.kill()
        process.wait(10)


async def test_two_clients_with_two_tokens_each_see_only_their_own_data(shop: Any) -> None:
    url = shop("token")
    alice = fastmcp.Client(StreamableHttpTransport(url, auth="t-alice"), timeout=STARTUP)
    bob = fastmcp.Client(StreamableHttpTransport(url, auth="t-bob"), timeout=STARTUP)
    async with alice, bob:  # both connected at once
        listed = {t.name: t for t in await alice.list_tools()}
        assert "user" not in listed["my_orders"].input_schema["properties"]
        assert (await alice.call_tool("my_orders", {})).data == ["open:book", "open:pen"]
        assert (await bob.call_tool("my_orders", {"status": "done"})).data == ["done:lamp"]
        assert (await bob.call_tool("whoami", {})).data == "bob"
        forged = await bob.call_tool_mcp("my_orders", {"user": "alice"})
        assert forged.is_error
        assert forged.content[0].text == (
            "Invalid arguments for tool 'my_orders':\nuser: unexpected argument"
        )
        assert (await alice.call_tool("whoami", {})).data == "alice"


async def test_the_user_can_come_from_a_header(shop: Any) -> None:
    url = shop("header")
    for user, orders in (("alice", ["open:book", "open:pen"]), ("bob", ["open:lamp"])):
        transport = StreamableHttpTransport(url, headers={"X-User": user})
        async with fastmcp.Client(transport, timeout=STARTUP) as client:
            assert (await client.call_tool("my_orders", {})).data == orders
    async with fastmcp.Client(url, timeout=STARTUP) as nobody:  # no header: no user
        answer = await nobody.call_tool_mcp("whoami", {})
        assert answer.is_error
        assert answer.content[0].text == "Tool 'whoami' needs context value 'user'"


def registry_with_injected() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def tenant(user: Annotated[str, Injected], plan: Annotated[str, Injected] = "free") -> str:
        """The tenant's plan."""
        return f"{user}:{plan}"

    @registry.tool
    def plain(x: int) -> int:
        """No context needed."""
        return x

    return registry


async def test_a_mapping_context_in_process() -> None:
    registry = registry_with_injected()
    server = registry.as_mcp_server(context={"user": "u1", "unused": 0})
    async with fastmcp.Client(server) as client:
        assert (await client.call_tool("tenant", {})).data == "u1:free"
        assert (await client.call_tool("plain", {"x": 2})).data == 2


async def test_a_context_callable_is_called_per_request_and_only_when_needed() -> None:
    registry = registry_with_injected()
    calls: list[Any] = []

    async def per_request(context: Any) -> dict[str, str]:
        calls.append(context)
        return {"user": f"u{len(calls)}", "plan": "pro"}

    async with fastmcp.Client(registry.as_mcp_server(context=per_request)) as client:
        assert (await client.call_tool("tenant", {})).data == "u1:pro"
        assert (await client.call_tool("tenant", {})).data == "u2:pro"
        assert (await client.call_tool("plain", {"x": 1})).data == 1
    assert len(calls) == 2
    assert all(isinstance(c, fastmcp.Context) for c in calls)


async def test_a_failing_context_callable_is_a_failed_call_not_a_traceback() -> None:
    registry = registry_with_injected()

    def broken(context: Any) -> dict[str, str]:
        raise PermissionError("unknown tenant")

    async with fastmcp.Client(registry.as_mcp_server(context=broken)) as client:
        answer = await client.call_tool_mcp("tenant", {})
        assert answer.is_error
        assert answer.content[0].text == (
            "Tool 'tenant' has no context for this request: unknown tenant"
        )


def test_context_must_be_a_mapping_or_a_callable() -> None:
    with pytest.raises(TypeError, match="mapping or a callable"):
        registry_with_injected().as_mcp_server(context=3)  # type: ignore[arg-type]

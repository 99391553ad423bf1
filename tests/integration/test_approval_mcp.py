"""Approval at the MCP edge: served tools ask the client by elicitation; proxies need it.

A real fastmcp ``Client`` with an elicitation handler, in memory on both protocol eras
(handshake-era: the server asks during the call; 2026-07-28: the call answers with the
question and the client calls again), and once over HTTP: accepting runs the tool,
declining answers the decline, a client without elicitation gets "needs approval".
``use_mcp(..., requires_approval=...)`` makes a gateway's proxies wait for approval too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

import pytest

pytest.importorskip("fastmcp")

from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult

from listening import served
from tooldeck import Injected, ToolRegistry

pytestmark = pytest.mark.timeout(60)


def make_registry(ran: list[Any]) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(requires_approval=True)
    def delete_branch(name: str) -> str:
        """Delete a git branch."""
        ran.append(name)
        return f"deleted {name}"

    @registry.tool(requires_approval=lambda arguments, context: context.get("user") != "admin")
    def restart(service: str, user: Annotated[str, Injected] = "nobody") -> str:
        """Restart a service."""
        ran.append(service)
        return f"{user} restarted {service}"

    return registry


def answering(action: str, value: Any = True) -> Any:
    asked: list[str] = []

    async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
        asked.append(message)
        if action == "accept":
            return ElicitResult(action="accept", content={"value": value})
        return ElicitResult(action=action)

    handler.asked = asked  # type: ignore[attr-defined]
    return handler


CASES = [
    ("accept", True, False, "deleted main"),
    ("accept", False, True, "The user declined to run tool 'delete_branch'"),
    ("decline", None, True, "The user declined to run tool 'delete_branch'"),
    ("cancel", None, True, "The user declined to run tool 'delete_branch'"),
    (None, None, True, "Tool 'delete_branch' needs approval"),
]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(("action", "value", "is_error", "text"), CASES)
async def test_a_served_tool_asks_the_client(
    mode: str, action: str | None, value: Any, is_error: bool, text: str
) -> None:
    ran: list[Any] = []
    server = make_registry(ran).as_mcp_server()
    handler = answering(action, value) if action else None
    async with Client(server, elicitation_handler=handler, mode=mode) as client:
        result = await client.call_tool("delete_branch", {"name": "main"}, raise_on_error=False)
    assert (result.is_error, result.content[0].text) == (is_error, text)  # type: ignore[union-attr]
    assert ran == (["main"] if not is_error else [])
    if handler is not None:
        assert handler.asked == [
            'Allow tool \'delete_branch\' to run with these arguments? {"name": "main"}'
        ]


async def test_a_client_that_never_answers_does_not_hold_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio

    from tooldeck.mcp import _approval

    monkeypatch.setattr(_approval, "ASK_TIMEOUT", 0.2)

    async def never(message: str, response_type: Any, params: Any, context: Any) -> Any:
        await asyncio.Event().wait()  # asked, and never answers

    ran: list[Any] = []
    server = make_registry(ran).as_mcp_server()
    async with Client(server, elicitation_handler=never, mode="legacy") as client:
        result = await client.call_tool("delete_branch", {"name": "main"}, raise_on_error=False)
    assert result.is_error
    assert result.content[0].text == (  # type: ignore[union-attr]
        "Tool 'delete_branch' needs approval: no answer within 0.2 s"
    )
    assert ran == []


async def test_the_policy_sees_the_served_context_and_bad_arguments_are_refused() -> None:
    ran: list[Any] = []
    registry = make_registry(ran)
    users = iter(["admin", "guest", "guest"])  # read once per call, by policy and tool alike
    server = registry.as_mcp_server(context=lambda ctx: {"user": next(users)})
    async with Client(server) as client:  # no elicitation: only the admin's call runs
        first = await client.call_tool("restart", {"service": "db"}, raise_on_error=False)
        second = await client.call_tool("restart", {"service": "db"}, raise_on_error=False)
        bad = await client.call_tool("delete_branch", {"name": 3}, raise_on_error=False)
    assert first.content[0].text == "admin restarted db"  # type: ignore[union-attr]
    assert second.content[0].text == "Tool 'restart' needs approval"  # type: ignore[union-attr]
    assert bad.is_error and "Invalid arguments for tool 'delete_branch'" in bad.content[0].text  # type: ignore[union-attr]
    assert ran == ["db"]


async def test_proxies_imported_with_requires_approval_wait_for_it() -> None:
    ran: list[Any] = []
    origin = ToolRegistry()

    @origin.tool
    def drop_table(table: str) -> str:
        """Drop a table."""
        ran.append(table)
        return f"dropped {table}"

    async with ToolRegistry() as gateway:
        await gateway.async_use_mcp(origin.as_mcp_server(), requires_approval=True)
        assert gateway.get("drop_table").requires_approval is True  # type: ignore[union-attr]
        reply = {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "drop_table", "input": {"table": "x"}}
            ],
        }
        (refused,) = await gateway.async_run_tool_calls(reply)
        assert refused["content"][0]["content"] == "Error: Tool 'drop_table' needs approval"
        assert ran == []
        (done,) = await gateway.async_run_tool_calls(reply, approve=lambda call: True)
        assert done["content"][0]["content"] == "dropped x"
        handler = answering("decline")
        async with Client(gateway.as_mcp_server(), elicitation_handler=handler) as client:
            served = await client.call_tool("drop_table", {"table": "y"}, raise_on_error=False)
        assert served.content[0].text == "The user declined to run tool 'drop_table'"  # type: ignore[union-attr]
        assert ran == ["x"]
    with pytest.raises(Exception, match="requires_approval must be"):
        ToolRegistry().use_mcp(origin.as_mcp_server(), requires_approval="yes")  # type: ignore[arg-type]


# -- over HTTP ---------------------------------------------------------------------------------


@pytest.fixture
def served_over_http() -> Iterator[tuple[str, list[Any]]]:
    ran: list[Any] = []
    with served(make_registry(ran).http_app()) as port:
        yield f"http://127.0.0.1:{port}/mcp", ran


async def test_over_http_accept_runs_and_decline_answers_the_decline(
    served_over_http: tuple[str, list[Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastmcp.client.transports import StreamableHttpTransport

    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    url, ran = served_over_http
    results = []
    for action in ("accept", "decline"):
        transport = StreamableHttpTransport(url)
        async with Client(transport, elicitation_handler=answering(action), timeout=30) as client:
            result = await client.call_tool("delete_branch", {"name": action}, raise_on_error=False)
            results.append((result.is_error, result.content[0].text))  # type: ignore[union-attr]
    assert results == [
        (False, "deleted accept"),
        (True, "The user declined to run tool 'delete_branch'"),
    ]
    assert ran == ["accept"]

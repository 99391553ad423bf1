"""Stateful HTTP serving: one client cannot take every session.

The MCP SDK holds at most 10,000 sessions per server and answers 503 beyond that, idle
ones living 30 minutes: a client with a valid token could open them all and lock every
other client out. ``max_sessions_per_client`` caps each client instead (its token's
client id, else its address), ``session_idle_timeout`` ends idle sessions.

Real servers on 127.0.0.1 (a socket bound to port 0), called with raw HTTP requests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastmcp")

from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

import tooldeck.mcp
from forkserver import ForkedProcess, ForkServer
from listening import served, started
from mcp_probe import HEADERS, INITIALIZE
from tooldeck import ToolRegistry

SERVE_OPTIONS = Path(__file__).parent / "servers" / "serve_options.py"
STARTUP = 60.0
TOKENS = {"t-alice": "alice", "t-bob": "bob"}

pytestmark = pytest.mark.timeout(120)


def registry() -> ToolRegistry:
    tools = ToolRegistry()

    @tools.tool
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        return a + b

    return tools


def run_app(app: Any) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 (a socket bound here) in a thread; yield its URL."""
    with served(app, STARTUP) as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture
def capped() -> Iterator[str]:
    """Tokens for alice and bob, at most 2 sessions each (idle ones live 10 minutes)."""
    app = registry().http_app(token=TOKENS, max_sessions_per_client=2, session_idle_timeout=600)
    yield from run_app(app)


@pytest.fixture
def capped_briefly() -> Iterator[str]:
    """As `capped`, but idle sessions are closed after 1 s."""
    app = registry().http_app(token=TOKENS, max_sessions_per_client=2, session_idle_timeout=1)
    yield from run_app(app)


@pytest.fixture
def capped_without_tokens() -> Iterator[str]:
    yield from run_app(registry().http_app(max_sessions_per_client=2))


def open_session(url: str, token: str | None) -> httpx.Response:
    headers = dict(HEADERS)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)


def session_request(url: str, token: str, session: str, method: str = "POST") -> httpx.Response:
    headers = {**HEADERS, "Authorization": f"Bearer {token}", "mcp-session-id": session}
    if method == "DELETE":
        return httpx.delete(url, headers=headers, timeout=30)
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    return httpx.post(url, json=ping, headers=headers, timeout=30)


def test_a_client_over_its_cap_is_refused_by_name_and_others_keep_working(capped: str) -> None:
    first, second = open_session(capped, "t-alice"), open_session(capped, "t-alice")
    assert first.status_code == second.status_code == 200
    sessions = [first.headers["mcp-session-id"], second.headers["mcp-session-id"]]

    refused = open_session(capped, "t-alice")
    assert refused.status_code == 429
    message = refused.json()["error"]["message"]
    assert "max_sessions_per_client=2" in message
    assert "mcp-session-id" not in refused.headers
    assert int(refused.headers["retry-after"]) >= 1

    # Another client opens sessions and calls; alice's own sessions still answer.
    bob = open_session(capped, "t-bob")
    assert bob.status_code == 200 and bob.headers.get("mcp-session-id")
    for session in sessions:
        assert session_request(capped, "t-alice", session).status_code == 200


def test_deleting_a_session_frees_its_place(capped: str) -> None:
    sessions = [open_session(capped, "t-alice").headers["mcp-session-id"] for _ in range(2)]
    assert open_session(capped, "t-alice").status_code == 429
    assert session_request(capped, "t-alice", sessions[0], "DELETE").status_code < 400
    assert open_session(capped, "t-alice").status_code == 200
    assert open_session(capped, "t-alice").status_code == 429


def test_idle_sessions_expire_and_free_their_place(capped_briefly: str) -> None:
    url = capped_briefly
    sessions = [open_session(url, "t-alice").headers["mcp-session-id"] for _ in range(2)]
    deadline = time.monotonic() + 20  # the timeout is 1 s; this only bounds the wait
    while (reopened := open_session(url, "t-alice")).status_code == 429:
        assert time.monotonic() < deadline, "idle sessions never expired"
        time.sleep(0.2)
    assert reopened.status_code == 200
    # The expired sessions are closed on the server too, not only uncounted (the
    # session manager's deadline passed before the cap's: it counts from the same
    # request's end, seen later). Its reaping is a task of the server's loop, which a
    # loaded machine may run late: one more idle timeout lets it, before each session is
    # asked once (a request to a live session would renew it).
    time.sleep(1.0)
    for session in sessions:
        assert session_request(url, "t-alice", session).status_code == 404


@pytest.mark.timeout(60)
def test_concurrent_opening_requests_cannot_slip_past_the_cap(capped: str) -> None:
    statuses: list[int] = []

    def attempt() -> None:
        statuses.append(open_session(capped, "t-alice").status_code)

    threads = [threading.Thread(target=attempt) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(statuses) == [200, 200] + [429] * 10


def test_without_tokens_the_cap_is_per_address(capped_without_tokens: str) -> None:
    for _ in range(2):
        assert open_session(capped_without_tokens, None).status_code == 200
    refused = open_session(capped_without_tokens, None)
    assert refused.status_code == 429
    assert "max_sessions_per_client=2" in refused.json()["error"]["message"]


async def test_a_real_client_works_within_the_cap(capped: str) -> None:
    for _ in range(4):  # each client ends its session on exit: the place is freed
        transport = StreamableHttpTransport(capped, auth="t-alice")
        async with Client(transport, mode="legacy", timeout=STARTUP) as client:
            assert (await client.call_tool("add", {"a": 2, "b": 3})).data == 5


async def test_sessionless_requests_are_neither_counted_nor_refused(capped: str) -> None:
    # The protocol's sessionless era (no initialize handshake) opens no session: a client
    # at its cap still calls that way, and such calls leave no place taken.
    for _ in range(2):
        assert open_session(capped, "t-alice").status_code == 200
    assert open_session(capped, "t-alice").status_code == 429
    for _ in range(3):
        transport = StreamableHttpTransport(capped, auth="t-alice")
        async with Client(transport, mode="auto", timeout=STARTUP) as client:
            assert (await client.call_tool("add", {"a": 2, "b": 3})).data == 5
            assert client.transport.get_session_id() is None


def test_serve_takes_the_limits(server_forks: ForkServer) -> None:
    def start(port: int) -> ForkedProcess:  # serve() binds the port itself
        options = f'{{"port": {port}, "token": "tok", "max_sessions_per_client": 1}}'
        return server_forks.start(SERVE_OPTIONS, options)

    process, port = started(start, STARTUP)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        assert open_session(url, "tok").status_code == 200
        refused = open_session(url, "tok")
        assert refused.status_code == 429
        assert "max_sessions_per_client=1" in refused.json()["error"]["message"]
    finally:
        process.kill()
        process.wait(10)


# -- usage mistakes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "limits",
    [
        {"max_sessions_per_client": 0},
        {"max_sessions_per_client": -1},
        {"max_sessions_per_client": 1.5},
        {"max_sessions_per_client": True},
        {"session_idle_timeout": 0},
        {"session_idle_timeout": -2},
        {"session_idle_timeout": float("nan")},
        {"session_idle_timeout": float("inf")},
        {"session_idle_timeout": "60"},
    ],
)
def test_limits_that_are_not_positive_numbers_are_refused(limits: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(limits))):
        registry().http_app(**limits)


@pytest.mark.parametrize("limit", ["max_sessions_per_client", "session_idle_timeout"])
def test_limits_with_stateless_serving_are_refused(limit: str) -> None:
    with pytest.raises(ValueError, match=f"{limit}: stateless serving keeps no sessions"):
        registry().http_app(stateless=True, **{limit: 5})


@pytest.mark.parametrize("limit", ["max_sessions_per_client", "session_idle_timeout"])
def test_limits_with_stdio_are_refused(limit: str) -> None:
    with pytest.raises(ValueError, match=f"^{limit}: an HTTP-only option"):
        tooldeck.mcp.serve(registry(), transport="stdio", **{limit: 5})

"""A request that repeats a header whose copies could be read differently is refused.

Two ``Authorization`` headers are two credentials: a proxy may have appended one, and
this server (the first copy) and whatever stands before it (perhaps the last) could each
believe a different one. So could two ``Host``, ``Origin``, ``Content-Type``,
``Mcp-Session-Id``, ``MCP-Protocol-Version`` or ``Last-Event-ID`` headers. Such a request
is answered 400 with a JSON-RPC error saying so, and no tool runs. Over real HTTP
(uvicorn on 127.0.0.1) with raw, repeated headers; the middleware alone for the rule
over all inputs; a real fastmcp client for what a caller reads.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("fastmcp")

from listening import served
from mcp_probe import INITIALIZE
from tooldeck import ToolRegistry

pytestmark = pytest.mark.timeout(60)

TOKEN = "k2-good-token"
OTHER = "k2-other-token"
CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "touch", "arguments": {}},
}
BASE = [
    ("accept", "application/json, text/event-stream"),
    ("content-type", "application/json"),
]


@pytest.fixture(scope="module")
def stateless() -> Iterator[tuple[str, list[int]]]:
    """A served registry (stateless: a call needs no session) whose tool counts its runs."""
    runs: list[int] = []
    registry = ToolRegistry()

    @registry.register
    def touch() -> str:
        """Counts a run."""
        runs.append(1)
        return "touched"

    app = registry.http_app(token={TOKEN: "good", OTHER: "other"}, stateless=True)
    with served(app) as port:
        yield f"http://127.0.0.1:{port}/mcp", runs


def post(url: str, headers: list[tuple[str, str]], body: Any = CALL) -> httpx.Response:
    return httpx.post(url, content=json.dumps(body), headers=headers, timeout=30)


def good(*more: tuple[str, str]) -> list[tuple[str, str]]:
    return [*BASE, ("authorization", f"Bearer {TOKEN}"), *more]


def test_one_credential_runs_the_call(stateless: tuple[str, list[int]]) -> None:
    url, runs = stateless
    before = len(runs)
    response = post(url, good())
    assert response.status_code == 200, response.text
    assert "touched" in response.text
    assert len(runs) == before + 1


@pytest.mark.parametrize(
    "credentials",
    [
        [f"Bearer {TOKEN}", "Bearer evil"],
        ["Bearer evil", f"Bearer {TOKEN}"],
        [f"Bearer {TOKEN}", f"Bearer {TOKEN}"],  # the same twice: still two
        [f"Bearer {TOKEN}", f"Bearer {OTHER}"],  # two valid ones: which client is it?
        [f"Bearer {TOKEN}", "Basic dXNlcjpwdw=="],
    ],
)
def test_two_authorization_headers_are_refused_and_nothing_runs(
    stateless: tuple[str, list[int]], credentials: list[str]
) -> None:
    url, runs = stateless
    before = len(runs)
    headers = [*BASE, *(("authorization", value) for value in credentials)]
    response = post(url, headers)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert "two credentials were sent" in error["message"]
    assert "two 'Authorization' headers" in error["message"]
    assert response.json()["jsonrpc"] == "2.0"
    assert TOKEN not in response.text  # never echoed
    assert len(runs) == before


@pytest.mark.parametrize(
    "value",
    [
        f"Bearer {TOKEN}, Bearer evil",  # a proxy merged two headers into one
        f"Bearer evil, Bearer {TOKEN}",
        f"Bearer {TOKEN},Bearer {OTHER}",
        f"bearer {TOKEN},\tBasic dXNlcjpwdw==",
    ],
)
def test_two_credentials_joined_by_a_comma_are_refused(
    stateless: tuple[str, list[int]], value: str
) -> None:
    url, runs = stateless
    before = len(runs)
    response = post(url, [*BASE, ("authorization", value)])
    assert response.status_code == 400, response.text
    message = response.json()["error"]["message"]
    assert "two credentials were sent (joined by a comma" in message
    assert len(runs) == before


@pytest.mark.parametrize(
    ("value", "status"),
    [
        (f"bearer {TOKEN}", 200),  # the scheme is case-insensitive (RFC 9110)
        (f"BEARER {TOKEN}", 200),
        (f"Bearer  {TOKEN}", 200),  # 1*SP
        (f"Bearer\t{TOKEN}", 401),  # not a space: no bearer credential at all
        (f"Bearer {TOKEN},", 401),  # one credential, and not the token
        (f"Bearer{TOKEN}", 401),
    ],
)
def test_odd_spellings_of_one_credential(
    stateless: tuple[str, list[int]], value: str, status: int
) -> None:
    url, runs = stateless
    before = len(runs)
    response = post(url, [*BASE, ("authorization", value)])
    assert response.status_code == status, response.text
    assert len(runs) == before + (status == 200)


@pytest.mark.parametrize(
    ("name", "first", "second"),
    [
        ("origin", "http://127.0.0.1", "http://evil.example"),
        ("content-type", "application/json", "text/plain"),
        ("mcp-session-id", "a" * 32, "b" * 32),
        ("mcp-protocol-version", "2025-06-18", "2025-03-26"),
        ("last-event-id", "1", "2"),
    ],
)
def test_other_repeated_headers_whose_copies_could_differ_are_refused(
    stateless: tuple[str, list[int]], name: str, first: str, second: str
) -> None:
    url, runs = stateless
    before = len(runs)
    response = post(url, good((name, first), (name, second)))
    assert response.status_code == 400, response.text
    assert "was sent more than once" in response.json()["error"]["message"]
    assert len(runs) == before


@pytest.mark.parametrize("hosts", [["127.0.0.1", "evil.example"], ["evil.example", "127.0.0.1"]])
async def test_two_host_headers_are_refused_whatever_the_http_server(hosts: list[str]) -> None:
    """uvicorn's h11 refuses them itself; its httptools and other ASGI servers pass them
    on, and the Host guard reads the first only (in process: no HTTP parser between)."""
    import httpx2
    from fastmcp.utilities.asgi_transport import StreamingASGITransport, run_asgi_lifespan

    runs: list[int] = []
    registry = ToolRegistry()
    registry.register(lambda: runs.append(1) or "touched", name="touch")
    app = registry.http_app(stateless=True)
    async with run_asgi_lifespan(app):
        transport = StreamingASGITransport(app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            answer = await http.post("/mcp", content=json.dumps(CALL), headers=BASE)
            assert answer.status_code == 200, answer.text  # one Host: served
            headers = [*BASE, *(("host", host) for host in hosts)]
            answer = await http.post("/mcp", content=json.dumps(CALL), headers=headers)
    assert answer.status_code in (400, 421), answer.text  # 421: the guard's, on evil first
    assert runs == [1]


def test_a_repeated_harmless_header_is_served(stateless: tuple[str, list[int]]) -> None:
    url, runs = stateless
    before = len(runs)
    response = post(url, good(("x-trace", "1"), ("x-trace", "2"), ("accept", "*/*")))
    assert response.status_code == 200, response.text
    assert len(runs) == before + 1


# -- the rule, over all inputs (the middleware alone) -----------------------------------------

SINGLE = [
    "authorization",
    "host",
    "origin",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
]
text = st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=12)


def _through(headers: list[tuple[bytes, bytes]]) -> tuple[bool, list[dict[str, Any]]]:
    from tooldeck.mcp._auth import SingleHeaders

    reached: list[bool] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    asyncio.run(SingleHeaders(app)(scope, receive, send))
    return bool(reached), sent


@settings(max_examples=60, deadline=None)
@given(
    others=st.lists(st.tuples(st.sampled_from(["accept", "x-a", "user-agent"]), text)),
    single=st.dictionaries(st.sampled_from(SINGLE), text),
    repeated=st.sampled_from(SINGLE),
    values=st.tuples(text, text),
    upper=st.booleans(),
    data=st.randoms(use_true_random=False),
)
def test_any_repeat_of_a_single_header_never_reaches_the_app(
    others: list[tuple[str, str]],
    single: dict[str, str],
    repeated: str,
    values: tuple[str, str],
    upper: bool,
    data: Any,
) -> None:
    once = [*others, *single.items()]
    reached, sent = _through([(k.encode(), v.encode()) for k, v in once])
    assert reached and not sent  # each at most once: passed on untouched

    single.pop(repeated, None)
    name = repeated.upper() if upper else repeated
    twice = [*once, (name, values[0]), (name, values[1])]
    data.shuffle(twice)
    reached, sent = _through([(k.encode(), v.encode()) for k, v in twice])
    assert not reached
    assert sent[0]["status"] == 400
    assert b'"code": -32600' in sent[1]["body"]


# -- what a real client reads -------------------------------------------------------------------


async def test_a_fastmcp_client_sending_two_credentials_is_told_so(
    stateless: tuple[str, list[int]],
) -> None:
    import httpx2
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    url, runs = stateless

    class Twice(httpx2.Auth):
        """A confused client (or proxy) adding a second credential."""

        def auth_flow(self, request: httpx2.Request) -> Iterator[httpx2.Request]:
            request.headers = httpx2.Headers(
                [
                    *request.headers.multi_items(),
                    ("authorization", f"Bearer {TOKEN}"),
                    ("authorization", "Bearer evil"),
                ]
            )
            yield request

    before = len(runs)
    with pytest.raises(Exception, match="two credentials were sent"):
        async with Client(StreamableHttpTransport(url, auth=Twice()), timeout=20) as client:
            await client.call_tool("touch", {})
    assert len(runs) == before
    async with Client(StreamableHttpTransport(url, auth=TOKEN), timeout=20) as client:
        assert (await client.call_tool("touch", {})).data == "touched"
    assert len(runs) == before + 1


def test_initialize_with_two_credentials_is_refused_on_a_stateful_server() -> None:
    registry = ToolRegistry()
    registry.register(lambda: 1, name="one")
    with served(registry.http_app(token=TOKEN)) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        twice = [*BASE, ("authorization", "Bearer evil"), ("authorization", f"Bearer {TOKEN}")]
        response = post(url, twice, INITIALIZE)
        assert response.status_code == 400
        assert "mcp-session-id" not in response.headers  # no session was opened
        assert post(url, good(), INITIALIZE).status_code == 200

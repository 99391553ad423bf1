"""Serving beyond one process: the stateless ASGI app under ``uvicorn --workers 2``, and
the app mounted inside a Starlette app.

Both run real servers on 127.0.0.1 (uvicorn in a subprocess, or in a thread of this
process) and are called by real ``fastmcp.Client``s.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

import listening
from mcp_probe import HEADERS, INITIALIZE
from tooldeck import ToolRegistry

SERVERS = Path(__file__).parent / "mcp_servers"
STARTUP = 60.0
TOKEN = "s3cret-stateless"  # stateless_app.TOKEN

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def two_workers() -> Iterator[str]:
    """``uvicorn stateless_app:app --workers 2``, once both workers have started (three
    processes, each importing fastmcp: started once for the module's tests)."""

    def start(port: int) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [
                sys.executable, "-m", "uvicorn", "stateless_app:app", "--workers", "2",
                "--host", "127.0.0.1", "--port", str(port), "--log-level", "info",
            ],
            cwd=SERVERS,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip

    process, port = listening.started(start, STARTUP)  # the parent holds the socket
    started = threading.Event()

    def watch() -> None:
        ready = 0
        for line in process.stderr or ():
            ready += "Application startup complete" in line
            if ready == 2:
                started.set()

    threading.Thread(target=watch, daemon=True).start()
    try:
        assert started.wait(STARTUP), "the two workers did not start"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(15)


async def test_two_stateless_workers_answer_the_calls_of_10_clients(two_workers: str) -> None:
    async def client_calls(n: int) -> tuple[list[int], set[int]]:
        # Half the clients speak the 2025 handshake era (with its session), half the
        # stateless 2026 era: neither needs the same worker twice.
        mode = "legacy" if n % 2 else "auto"
        transport = StreamableHttpTransport(two_workers, auth=TOKEN)
        async with Client(transport, mode=mode, timeout=STARTUP) as client:
            sums = [(await client.call_tool("add", {"a": n * 100, "b": i})).data for i in range(6)]
            pids = {(await client.call_tool("pid", {})).data for _ in range(3)}
        return sums, pids

    results = await asyncio.wait_for(asyncio.gather(*(client_calls(n) for n in range(10))), STARTUP)
    for n, (sums, _) in enumerate(results):
        assert sums == [n * 100 + i for i in range(6)]
    served_by = set().union(*(pids for _, pids in results))
    assert len(served_by) == 2, f"expected both workers to answer, got {served_by}"


def test_the_stateless_workers_still_check_the_token(two_workers: str) -> None:
    refused = httpx.post(two_workers, json=INITIALIZE, headers=HEADERS, timeout=30)
    assert refused.status_code == 401
    assert "requires a bearer token" in refused.json()["error"]["message"]


# -- mounted in a Starlette app -------------------------------------------------------------------


def build_site() -> tuple[Starlette, ToolRegistry]:
    registry = ToolRegistry()

    @registry.tool
    def greet(name: str) -> str:
        """Say hello."""
        return f"hello {name}"

    tools = registry.http_app(token={"t-web": "web"}, allowed_hosts=["site.example"])

    async def home(request: Any) -> PlainTextResponse:
        return PlainTextResponse("the site itself")

    # The MCP app's lifespan runs its session manager: the parent app must run it.
    site = Starlette(routes=[Route("/", home), Mount("/tools", app=tools)], lifespan=tools.lifespan)
    return site, registry


@pytest.fixture
def site() -> Iterator[str]:
    app, _ = build_site()
    with listening.served(app, STARTUP) as port:
        yield f"http://127.0.0.1:{port}"


async def test_the_app_mounted_in_a_starlette_site(site: str) -> None:
    url = f"{site}/tools/mcp"
    async with Client(StreamableHttpTransport(url, auth="t-web"), timeout=STARTUP) as client:
        assert [t.name for t in await client.list_tools()] == ["greet"]
        assert (await client.call_tool("greet", {"name": "Ada"})).data == "hello Ada"
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        assert (await http.get(f"{site}/")).text == "the site itself"  # the rest of the site
        for headers, status in [
            ({}, 401),
            ({"Authorization": "Bearer wrong"}, 401),
            ({"Authorization": "Bearer t-web", "Host": "evil.example"}, 421),
            ({"Authorization": "Bearer t-web", "Host": "site.example"}, 200),
            ({"Authorization": "Bearer t-web", "Origin": "https://evil.example"}, 403),
        ]:
            response = await http.post(url, json=INITIALIZE, headers={**HEADERS, **headers})
            assert response.status_code == status, (headers, response.text)


def test_a_token_refused_after_the_import_is_named_on_the_call() -> None:
    """The token worked for the import, then the server refuses it (expired, rotated):
    the failed call says HTTP 401, not an opaque "Server returned an error response"."""
    served = ToolRegistry()

    @served.tool
    def greet(name: str) -> str:
        """Greet someone."""
        return f"hello {name}"

    app = served.http_app(token="t-1")
    revoked = threading.Event()

    async def gate(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and revoked.is_set():
            headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
            await send({"type": "http.response.start", "status": 401, "headers": headers})
            await send({"type": "http.response.body", "body": b'{"error": "invalid_token"}'})
            return
        await app(scope, receive, send)

    with listening.served(gate, STARTUP) as port, ToolRegistry() as registry:
        url = f"http://127.0.0.1:{port}/mcp"
        registry.use_mcp(StreamableHttpTransport(url, auth="t-1"), timeout=30)
        assert registry.call_tool("greet", {"name": "Ada"}) == "hello Ada"
        revoked.set()
        failed = registry.execute_sync("greet", {"name": "Ada"})
        assert not failed.success
        assert "HTTP 401 Unauthorized: the credentials sent were refused" in failed.error

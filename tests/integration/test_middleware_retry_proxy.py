"""`Retry` in front of a proxy: a transport failure (an HTTP 503, a refused connection,
the import's timeout) is a ``ConnectionError`` / ``TimeoutError`` it retries; the remote
tool's own error answer (the server answered) is never retried; when the attempts run
out, the answer is the same text as without `Retry`.

A real fastmcp server over 127.0.0.1 (uvicorn in a thread), behind an ASGI gate that
answers 503 to the next calls it is told to; or stopped, then started again on its port.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from listening import served
from tooldeck import ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(60)


class Gate:
    """An ASGI app in front of an MCP server's: the next ``refuse`` tool calls get 503."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.refuse = 0
        self.refused = 0
        self.calls = 0  # tool calls that reached the server

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.inner(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if b'"tools/call"' in body:
            if self.refuse > 0:
                self.refuse -= 1
                self.refused += 1
                await send({"type": "http.response.start", "status": 503, "headers": []})
                await send({"type": "http.response.body", "body": b"busy, try later"})
                return
            self.calls += 1
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.inner(scope, replay, send)


def origin() -> Any:
    from fastmcp import FastMCP

    server: FastMCP[Any] = FastMCP("origin")

    @server.tool
    def hello(name: str) -> str:
        """Greets."""
        return f"hi {name}"

    @server.tool
    def fails() -> str:
        """Always answers with an error."""
        raise ConnectionError("the tool's own words")

    return server


@pytest.fixture
def gate() -> Iterator[tuple[Gate, str]]:
    gate = Gate(origin().http_app())
    with served(gate, lifespan="on") as port:
        yield gate, f"http://127.0.0.1:{port}/mcp"


def registry(url: str, *middleware: Any) -> ToolRegistry:
    gateway = ToolRegistry(middleware=list(middleware))
    gateway.use_mcp(url, timeout=10)
    return gateway


def no_wait(attempt: int) -> float:
    return 0.0


@pytest.mark.parametrize("face", ["sync", "async"])
def test_a_503_is_retried_until_the_server_answers(gate: tuple[Gate, str], face: str) -> None:
    from tooldeck.middleware import Retry

    server, url = gate
    gateway = registry(url, Retry(3, backoff=no_wait))
    try:
        server.refuse = 2
        if face == "sync":
            result = gateway.execute_sync("hello", {"name": "ada"})
            server.refuse = 2
            value = gateway.call_tool("hello", {"name": "bo"})
        else:

            async def both() -> tuple[ToolResult, Any]:
                result = await gateway.execute("hello", {"name": "ada"})
                server.refuse = 2
                return result, await gateway.async_call_tool("hello", {"name": "bo"})

            result, value = asyncio.run(both())
    finally:
        gateway.close()
    assert result.success and result.data == "hi ada"
    assert value == "hi bo"
    assert server.refused == 4 and server.calls == 2


def test_a_gateway_serving_the_proxy_retries_it(gate: tuple[Gate, str]) -> None:
    from fastmcp import Client

    from tooldeck.middleware import Retry

    server, url = gate
    gateway = registry(url, Retry(3, backoff=no_wait))

    async def through() -> Any:
        async with Client(gateway.as_mcp_server()) as client:
            server.refuse = 2
            return await client.call_tool("hello", {"name": "cy"}, raise_on_error=False)

    try:
        answer = asyncio.run(through())
    finally:
        gateway.close()
    assert answer.is_error is False and answer.content[0].text == "hi cy"
    assert server.refused == 2 and server.calls == 1


def test_when_the_attempts_run_out_the_answer_is_as_without_retry(
    gate: tuple[Gate, str],
) -> None:
    from tooldeck.middleware import Retry

    server, url = gate
    plain = registry(url)
    retried = registry(url, Retry(2, backoff=no_wait))
    try:
        server.refuse = 1
        alone = plain.execute_sync("hello", {"name": "x"})
        alone_text = plain.call_tool("hello", {"name": "x"})  # (this one answered)
        server.refuse = 2
        after = retried.execute_sync("hello", {"name": "x"})
    finally:
        plain.close()
        retried.close()
    assert alone_text == "hi x"
    assert not alone.success and not after.success
    assert str(after) == str(alone)
    assert str(alone) == (
        f"Error: MCP server {url} failed to answer a call of 'hello': "
        "Server returned an error response"
    )
    assert isinstance(after.exception, ConnectionError)
    assert server.refused == 3  # one without Retry, two with


@pytest.mark.parametrize("face", ["sync", "async"])
def test_the_remote_tools_own_error_answer_is_never_retried(
    gate: tuple[Gate, str], face: str
) -> None:
    from tooldeck.middleware import Retry

    server, url = gate
    gateway = registry(url, Retry(3, backoff=no_wait, retry_on=Exception))
    try:
        if face == "sync":
            result = gateway.execute_sync("fails", {})
        else:
            result = asyncio.run(gateway.execute("fails", {}))
    finally:
        gateway.close()
    assert not result.success and "the tool's own words" in str(result)
    assert result.exception is None  # the server answered: nothing to match
    assert server.calls == 1


@contextmanager
def restartable(app: Any) -> Iterator[tuple[int, Any, Any]]:
    """``app`` served on a port of 127.0.0.1; ``stop()`` stops it (the port then refuses),
    ``start()`` starts it again on the same port (False if another process took it)."""
    import uvicorn

    state: dict[str, Any] = {}

    def start(port: int = 0) -> bool:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(("127.0.0.1", port))
        except OSError:
            listener.close()
            return False
        server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "did not start"
            time.sleep(0.01)
        state.update(server=server, thread=thread, port=listener.getsockname()[1])
        return True

    def stop() -> None:
        state["server"].should_exit = True
        state["thread"].join(15)

    start()
    try:
        yield state["port"], stop, lambda: start(state["port"])
    finally:
        stop()


@pytest.mark.parametrize("face", ["sync", "async"])
def test_a_server_down_is_retried_until_it_is_up_again(face: str) -> None:
    from tooldeck.middleware import Retry

    restarted: list[bool] = []

    with restartable(origin().http_app()) as (port, stop, start):

        def wait(attempt: int) -> float:
            if attempt == 2:  # down for two attempts, then up
                restarted.append(start())
            return 0.0

        gateway = registry(f"http://127.0.0.1:{port}/mcp", Retry(3, backoff=wait))
        try:
            stop()  # the port refuses connections now
            if face == "sync":
                result = gateway.execute_sync("hello", {"name": "up"})
            else:
                result = asyncio.run(gateway.execute("hello", {"name": "up"}))
        finally:
            gateway.close()
    if restarted == [False]:
        pytest.skip("another process took the port meanwhile")
    assert restarted == [True]  # retried past the refusals
    assert result.success and result.data == "hi up"


def test_the_imports_timeout_is_a_timeout_retry_retries() -> None:
    from fastmcp import FastMCP

    from tooldeck.middleware import Retry

    server: FastMCP[Any] = FastMCP("slow")
    stalls = [True]

    @server.tool
    async def slow() -> str:
        """Stalls on the first call only."""
        if stalls:
            stalls.pop()
            await asyncio.sleep(30)
        return "done"

    plain = ToolRegistry()
    plain.use_mcp(server, timeout=0.5)
    gateway = ToolRegistry(middleware=[Retry(2, backoff=no_wait)])
    gateway.use_mcp(server, timeout=0.5)
    try:
        first = plain.execute_sync("slow")
        stalls.append(True)
        again = gateway.execute_sync("slow")
    finally:
        plain.close()
        gateway.close()
    assert isinstance(first.exception, TimeoutError) and "within 0.5 seconds" in str(first)
    assert again.success and again.data == "done"

"""Serving over MCP: loopback by default, a token keeps others out, failures are messages.

One server process (``servers/serve_defaults.py``: ``registry.serve("http",
port=..., token=...)``, every other setting default; forked by ``server_forks``,
tests/conftest.py) serves the HTTP tests; the in-process tests use ``as_mcp_server``
directly.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

fastmcp = pytest.importorskip("fastmcp")

from fastmcp.client.transports import StreamableHttpTransport  # noqa: E402

import tooldeck.mcp  # noqa: E402
from forkserver import ForkedProcess, ForkServer  # noqa: E402
from listening import free_port, started  # noqa: E402
from mcp_probe import HEADERS, INITIALIZE  # noqa: E402
from tooldeck import ToolRegistry  # noqa: E402

SCRIPT = Path(__file__).parent / "servers" / "serve_defaults.py"
TOKEN = "s3cret-token"
STARTUP = 30.0  # seconds the server may take to listen (a cold import of fastmcp is slow)
LEAKS = ("Traceback", 'File "', ".py", "secret.txt", "FileNotFoundError")

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(server_forks: ForkServer) -> Iterator[tuple[int, str]]:
    """The served registry: its port and URL."""
    process, port = started(lambda port: server_forks.start(SCRIPT, str(port), TOKEN), STARTUP)
    try:
        yield port, f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(10)


# -- loopback by default ---------------------------------------------------------------------


def test_the_default_host_is_loopback() -> None:
    for serve in (ToolRegistry.serve, tooldeck.mcp.serve):
        assert inspect.signature(serve).parameters["host"].default == "127.0.0.1"


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket table")
def test_the_server_listens_on_loopback_only(server: tuple[int, str]) -> None:
    port, _ = server
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                listening.append(address)
    assert listening == ["0100007F"]  # 127.0.0.1, and nothing else (no 0.0.0.0, no ::)


# -- the token -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong", f"Bearer {TOKEN}x", TOKEN, f"Basic {TOKEN}"]
)
def test_requests_without_the_token_are_rejected(
    server: tuple[int, str], authorization: str | None
) -> None:
    _, url = server
    headers = HEADERS if authorization is None else {**HEADERS, "Authorization": authorization}
    response = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
    assert response.status_code == 401
    assert "serverInfo" not in response.text


def test_requests_with_the_token_are_served(server: tuple[int, str]) -> None:
    _, url = server
    headers = {**HEADERS, "Authorization": f"Bearer {TOKEN}"}
    response = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
    assert response.status_code == 200
    assert "serverInfo" in response.text


async def test_a_client_without_the_token_imports_nothing(server: tuple[int, str]) -> None:
    _, url = server
    registry = ToolRegistry()
    with pytest.raises(Exception):  # noqa: B017 - fastmcp's own error for a 401
        await asyncio.wait_for(registry.async_use_mcp(url), STARTUP)
    assert len(registry) == 0
    await registry.aclose()


# -- failures reach the client as messages --------------------------------------------------


async def test_failures_over_http_are_messages_not_tracebacks(server: tuple[int, str]) -> None:
    _, url = server
    client = fastmcp.Client(StreamableHttpTransport(url, auth=TOKEN), timeout=STARTUP)
    async with client:
        result = await client.call_tool_mcp("explode", {})
        assert result.is_error
        assert [item.text for item in result.content] == ["the archive is unavailable"]
        result = await client.call_tool_mcp("add", {"a": "x" * 5000})
        assert result.is_error
        assert [item.text for item in result.content] == [
            "Invalid arguments for tool 'add':\na: Input should be a valid integer, unable to "
            f"parse string as an integer (got '{'x' * 62}…)"
        ]
        result = await client.call_tool_mcp("opaque", {})
        assert not result.is_error  # served as text the client can read
        assert result.content[0].text.startswith('{"handle":"<object object at')
        assert (await client.call_tool_mcp("add", {"a": 1, "b": 2})).structured_content == {
            "result": 3
        }


def served_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def explode() -> str:
        raise RuntimeError("the archive is unavailable")

    @registry.tool(timeout=0.1)
    async def slow() -> str:
        await asyncio.sleep(10)
        return "late"

    @registry.tool
    def hostile() -> str:
        class Hostile(Exception):
            def __str__(self) -> str:
                raise ValueError("no")

        raise Hostile

    return registry


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("explode", "the archive is unavailable"),
        ("slow", "Tool 'slow' timed out after 0.1 seconds"),
        ("hostile", "Hostile"),
    ],
)
async def test_in_process_failures_are_messages(name: str, message: str) -> None:
    server = served_registry().as_mcp_server()
    async with fastmcp.Client(server, timeout=STARTUP) as client:
        result = await client.call_tool_mcp(name, {})
        assert result.is_error
        texts = [item.text for item in result.content]
        assert texts == [message]
        for leak in LEAKS:
            assert leak not in texts[0]
        assert (await client.call_tool_mcp("explode", {})).is_error  # still serving


async def test_unknown_arguments_and_tools_are_refused_as_messages() -> None:
    server = served_registry().as_mcp_server()
    async with fastmcp.Client(server, timeout=STARTUP) as client:
        result = await client.call_tool_mcp("explode", {"__class__": 1})
        assert result.is_error
        assert [item.text for item in result.content] == [
            "Invalid arguments for tool 'explode':\n__class__: unexpected argument"
        ]
        answer: Any
        try:
            answer = await client.call_tool_mcp("no_such_tool", {})
        except Exception as exc:  # fastmcp may answer an unknown tool with a protocol error
            answer = str(exc)
        for leak in LEAKS:
            assert leak not in str(answer)


# -- the 401 names the bearer token, and starts no OAuth flow ----------------------------------


@pytest.mark.parametrize(
    ("authorization", "says"),
    [
        (None, "requires a bearer token: send the header 'Authorization: Bearer <token>'"),
        (f"Basic {TOKEN}", "requires a bearer token"),
        ("Bearer wrong", "the bearer token sent is not valid for this MCP server"),
    ],
)
def test_a_refused_request_says_a_bearer_token_is_required(
    server: tuple[int, str], authorization: str | None, says: str
) -> None:
    _, url = server
    headers = HEADERS if authorization is None else {**HEADERS, "Authorization": authorization}
    response = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
    assert response.status_code == 401
    # a JSON-RPC error, which MCP clients show as the error's message
    error = response.json()["error"]
    assert says in error["message"]
    assert "re-register" not in response.text
    assert "OAuth" not in response.text
    # what sends MCP clients into an OAuth flow: none of it
    assert response.headers["www-authenticate"] == 'Bearer realm="tooldeck"'


@pytest.mark.parametrize(
    "path",
    [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
        "/register",
        "/authorize",
    ],
)
def test_no_oauth_metadata_or_endpoint_is_served(server: tuple[int, str], path: str) -> None:
    port, _ = server
    for method in ("GET", "POST"):
        response = httpx.request(method, f"http://127.0.0.1:{port}{path}", timeout=30)
        assert response.status_code in (401, 404, 405)
        assert "authorization_servers" not in response.text


# -- Host and Origin (DNS rebinding) --------------------------------------------------------------


def authorized(**extra: str) -> dict[str, str]:
    return {**HEADERS, "Authorization": f"Bearer {TOKEN}", **extra}


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "evil.example"}, 421),  # a name rebound to 127.0.0.1
        ({"Host": "evil.example:80"}, 421),
        ({"Host": "127.0.0.1.evil.example"}, 421),
        ({"Origin": "http://evil.example"}, 403),  # a page elsewhere calling in
        ({"Origin": "https://evil.example"}, 403),
        ({"Origin": "null"}, 403),  # a sandboxed page or a file
        ({"Host": "localhost", "Origin": "http://evil.example"}, 403),
        ({}, 200),
        ({"Host": "localhost"}, 200),
        ({"Origin": "http://localhost:3000"}, 200),  # a local page: loopback to loopback
        ({"Origin": "http://127.0.0.1"}, 200),
    ],
)
def test_host_and_origin_are_checked(
    server: tuple[int, str], headers: dict[str, str], status: int
) -> None:
    _, url = server
    if "Host" in headers and ":" not in headers["Host"] and headers["Host"] == "localhost":
        headers = {**headers, "Host": f"localhost:{server[0]}"}
    response = httpx.post(url, json=INITIALIZE, headers=authorized(**headers), timeout=30)
    assert response.status_code == status, response.text
    if status != 200:
        assert "serverInfo" not in response.text


def test_host_and_origin_are_checked_before_the_token(server: tuple[int, str]) -> None:
    _, url = server
    headers = {**HEADERS, "Host": "evil.example"}  # and no token
    assert httpx.post(url, json=INITIALIZE, headers=headers, timeout=30).status_code == 421


SERVE_OPTIONS = Path(__file__).parent / "servers" / "serve_options.py"


@pytest.fixture
def served_with(server_forks: ForkServer) -> Iterator[Any]:
    """``served_with(**options)``: a server (``serve("http", **options)``); its URL."""
    processes: list[ForkedProcess] = []

    def start(**options: Any) -> str:
        process, port = started(
            lambda port: server_forks.start(SERVE_OPTIONS, json.dumps({"port": port, **options})),
            STARTUP,
        )
        processes.append(process)
        return f"http://127.0.0.1:{port}/mcp"

    yield start
    for process in processes:
        process.kill()
        process.wait(10)


def test_listed_hosts_are_allowed_and_their_pages_too(served_with: Any) -> None:
    url = served_with(allowed_hosts=["tools.example.com", "*.internal.example"])
    for host, origin, status in [
        ("tools.example.com", None, 200),
        ("tools.example.com:8443", "https://tools.example.com", 200),
        ("api.internal.example", "http://api.internal.example:8080", 200),
        ("tools.example.com", "https://evil.example", 403),
        ("other.example.com", None, 421),
        ("internal.example", None, 421),
    ]:
        headers = {**HEADERS, "Host": host, **({"Origin": origin} if origin else {})}
        response = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
        assert response.status_code == status, (host, origin, response.text)


def test_any_host_still_checks_the_origin(served_with: Any) -> None:
    # "*" turns the Host check off for a balancer that checks Host itself; it used to
    # let a page from any site call in too.
    url = served_with(allowed_hosts=["*"])
    for host, origin, status in [
        ("tools.example.com", None, 200),
        ("anything.example", None, 200),
        ("tools.example.com", "https://evil.example", 403),
        ("127.0.0.1", "http://attacker.test:8080", 403),
        ("127.0.0.1", "http://localhost:3000", 200),  # a local page: loopback to loopback
    ]:
        headers = {**HEADERS, "Host": host, **({"Origin": origin} if origin else {})}
        response = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
        assert response.status_code == status, (host, origin, response.text)


# -- several clients, each known by its token --------------------------------------------------


async def test_each_token_is_a_client_id_a_served_call_can_read(served_with: Any) -> None:
    url = served_with(token={"t-alice": "alice", "t-bob": "bob"})
    for token, client in (("t-alice", "alice"), ("t-bob", "bob")):
        transport = StreamableHttpTransport(url, auth=token)
        async with fastmcp.Client(transport, timeout=STARTUP) as connected:
            assert (await connected.call_tool("whoami", {})).data == client
    for token in ("alice", "t-carol", "t-alicex"):
        headers = {**HEADERS, "Authorization": f"Bearer {token}"}
        assert httpx.post(url, json=INITIALIZE, headers=headers, timeout=30).status_code == 401


async def test_without_a_token_there_is_no_client_id(served_with: Any) -> None:
    url = served_with()
    async with fastmcp.Client(url, timeout=STARTUP) as connected:
        assert (await connected.call_tool("whoami", {})).data is None


# -- usage errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("", "token is empty"),
        ({}, "non-empty mapping"),
        ({"": "alice"}, "non-empty str"),
        ({"t": ""}, "client id"),
        (3, "str or a non-empty mapping"),
        ("pässwörd", "outside printable ASCII"),
        ({"t-ok": "bob", "pässwörd": "alice"}, "client 'alice' has a character outside"),
        ("token ", "ends with a space"),
    ],
)
def test_an_empty_token_is_a_usage_error(token: Any, message: str) -> None:
    registry = served_registry()
    with pytest.raises(ValueError, match=message):
        registry.http_app(token=token)
    with pytest.raises(ValueError, match=message):
        registry.serve("http", token=token, port=free_port())


def test_an_empty_token_in_the_environment_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLDECK_MCP_TOKEN", "")
    with pytest.raises(ValueError, match="TOOLDECK_MCP_TOKEN is set but empty"):
        served_registry().http_app()


@pytest.mark.parametrize("port", [-1, 65536, 99999, "8000", True, 1.5])
def test_a_port_out_of_range_is_a_usage_error(port: Any) -> None:
    with pytest.raises(ValueError, match="port must be an integer from 0 to 65535"):
        served_registry().serve("http", port=port)


def test_a_port_in_use_is_an_error_saying_so() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"cannot serve MCP on 127.0.0.1:{port}: .*in use"):
            served_registry().serve("http", port=port)


@pytest.mark.parametrize(
    "option",
    [
        {"stateless": True},
        {"allowed_hosts": ["x"]},
        {"token": "t"},
        {"host": "0.0.0.0"},
        {"port": 9000},
        {"max_sessions_per_client": 3},
        {"session_idle_timeout": 60},
    ],
)
def test_http_only_options_are_refused_on_stdio(option: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=f"^{next(iter(option))}: an HTTP-only option"):
        served_registry().serve("stdio", **option)


def test_the_empty_token_message_reads_for_python_and_the_cli_alike() -> None:
    with pytest.raises(ValueError, match="token is empty") as refused:
        served_registry().http_app(token="")
    assert "None" not in str(refused.value)


@pytest.mark.parametrize("face", ["method", "function"])
def test_no_token_beyond_loopback_warns_at_the_caller_s_line(face: str) -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        registry = served_registry()
        serve = (
            functools.partial(registry.serve, "http")
            if face == "method"
            else functools.partial(tooldeck.mcp.serve, registry, transport="http")
        )
        # Warned first; then the port in use ends it.
        with (
            pytest.warns(UserWarning, match="on 0.0.0.0 without a token") as warned,
            pytest.raises(OSError),
        ):
            serve(host="0.0.0.0", port=port)
    assert [Path(w.filename).name for w in warned] == [Path(__file__).name]

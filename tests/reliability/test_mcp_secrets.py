"""Failure text names an imported server without its secrets (issue 21, item 9).

DESIGN, fine print: an imported server is named by its MCP name, its command's base
name, or its URL without query string or credentials — never a command line, a
secret or a local path. The text reaches the model, and every client of a gateway.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

fastmcp = pytest.importorskip("fastmcp")

from fastmcp.client.transports import StdioTransport, StreamableHttpTransport  # noqa: E402

from listening import closed_port  # noqa: E402
from tooldeck import ToolRegistry  # noqa: E402
from tooldeck.errors import MCPConnectionError  # noqa: E402
from tooldeck.mcp._transports import describe, redactor  # noqa: E402

FAULTY = Path(__file__).parent / "servers" / "faulty_mcp.py"
SECRET = "sk-live-0123456789abcdef"

pytestmark = pytest.mark.timeout(120)


def assert_no_secret(text: str, *secrets: str) -> None:
    for secret in (SECRET, *secrets):
        assert secret not in text, (secret, text)


async def test_a_stdio_server_is_named_without_its_command_line(tmp_path: Path) -> None:
    private = tmp_path / "private-dir"
    private.mkdir()
    script = private / "faulty_mcp.py"
    script.write_text(FAULTY.read_text())
    transport = StdioTransport(sys.executable, [str(script), f"--api-key={SECRET}"])
    async with ToolRegistry() as gateway:
        await gateway.async_use_mcp(transport, timeout=10)
        assert await gateway.async_call_tool("crash", {}) is None
        script.unlink()  # it cannot start again: the failure quotes what it ran
        failed = await gateway.execute("good", {})
        async with fastmcp.Client(gateway.as_mcp_server()) as through:
            served = await through.call_tool_mcp("good", {})
    texts = [failed.error or "", served.content[0].text]  # type: ignore[union-attr]
    for text in texts:
        assert text.startswith(f"MCP server {Path(sys.executable).name} faulty_mcp.py failed")
        assert_no_secret(text, str(private), str(Path(sys.executable).parent))


async def test_a_url_is_named_without_credentials_or_query() -> None:
    with closed_port() as port:
        url = f"http://admin:{SECRET}@127.0.0.1:{port}/mcp?api_key={SECRET}&x=1#frag"
        for transport in (url, StreamableHttpTransport(url, headers={"X-Key": SECRET})):
            registry = ToolRegistry()
            with pytest.raises(MCPConnectionError) as failed:
                await registry.async_use_mcp(transport, timeout=10)
            text = str(failed.value)
            assert f"MCP server http://127.0.0.1:{port}/mcp:" in text
            assert failed.value.server == f"http://127.0.0.1:{port}/mcp"
            assert_no_secret(text, "admin", "api_key", "frag")


@pytest.mark.parametrize("shape", ["transport", "config"])
async def test_a_command_that_does_not_start_is_named_by_its_base_name(
    tmp_path: Path, shape: str
) -> None:
    command = str(tmp_path / "private-dir" / "mcp-server-bin")  # does not exist
    args = [f"--api-key={SECRET}"]
    transport: Any = (
        StdioTransport(command, args)
        if shape == "transport"
        else {"mcpServers": {"tools": {"command": command, "args": args}}}
    )
    registry = ToolRegistry()
    with pytest.raises(MCPConnectionError) as failed:
        await registry.async_use_mcp(transport, timeout=10)
    assert_no_secret(str(failed.value), str(tmp_path))
    assert_no_secret(failed.value.server, str(tmp_path))


@pytest.mark.parametrize("shape", ["transport", "config"])
async def test_a_working_directory_that_does_not_exist_is_not_shown(
    tmp_path: Path, shape: str
) -> None:
    # The OS error quotes the directory the server was to start in: a local path.
    cwd = str(tmp_path / "private-dir" / "project")  # does not exist
    args = ["-c", "pass"]
    transport: Any = (
        StdioTransport(sys.executable, args, cwd=cwd)
        if shape == "transport"
        else {"mcpServers": {"tools": {"command": sys.executable, "args": args, "cwd": cwd}}}
    )
    registry = ToolRegistry()
    with pytest.raises(MCPConnectionError) as failed:
        await registry.async_use_mcp(transport, timeout=10)
    assert_no_secret(str(failed.value), str(tmp_path))


def test_an_unknown_transport_is_named_by_its_type_not_its_repr() -> None:
    class Custom:
        def __repr__(self) -> str:
            return f"Custom(token={SECRET!r})"

    assert describe(Custom()) == "over Custom"


# -- every hostile URL and command line -------------------------------------------------------

secret = st.text(st.sampled_from("abcXYZ0189-_.~"), min_size=6, max_size=20).map(lambda s: "S3" + s)
host = st.sampled_from(["example.com", "127.0.0.1", "[::1]", "mcp.internal"])


@given(
    scheme=st.sampled_from(["http", "https"]),
    host=host,
    user=secret,
    password=secret,
    query=secret,
    fragment=secret,
    path=st.sampled_from(["/mcp", "/", "", "/a/b/mcp"]),
)
@settings(max_examples=200, deadline=None)
def test_a_url_never_shows_its_credentials_query_or_fragment(
    scheme: str, host: str, user: str, password: str, query: str, fragment: str, path: str
) -> None:
    url = f"{scheme}://{user}:{password}@{host}:8443{path}?token={query}#{fragment}"
    shown = describe(url)
    assert shown == f"{scheme}://{host}:8443{path}"
    assert describe(StreamableHttpTransport(url)) == shown
    # ... and an exception quoting the URL is cleaned the same way.
    said = redactor(url)(f"Client error '404 Not Found' for url '{url}'")
    for part in (user, password, query, fragment):
        assert part not in said


@given(
    directory=st.lists(secret, min_size=1, max_size=3).map("/".join),
    args=st.lists(st.sampled_from(["--api-key={}", "--token", "{}", "-y", "{}.json"]), max_size=4),
    value=secret,
    env_value=secret,
)
@settings(max_examples=200, deadline=None)
def test_a_command_line_shows_only_base_names(
    directory: str, args: list[str], value: str, env_value: str
) -> None:
    command = f"/{directory}/python3"
    argv = [f"/{directory}/server.py", *(a.format(value) for a in args)]
    transport = StdioTransport(command, argv, env={"API_KEY": env_value})
    assert describe(transport) == "python3 server.py"
    said = redactor(transport)(
        f"[Errno 2] No such file: '{command}' {' '.join(argv)} with API_KEY={env_value}"
    )
    for part in (directory, value, env_value):
        assert part not in said, said
    assert "python3" in said


@pytest.mark.parametrize(
    ("transport", "shown"),
    [
        ("/home/me/secret-dir/server.py", "server.py"),
        (Path("/home/me/secret-dir/server.py"), "server.py"),
        ({"mcpServers": {"git": {"command": "uvx", "args": ["x", SECRET]}}}, "MCP config (git)"),
    ],
)
def test_other_transports_are_named_without_paths_or_secrets(transport: Any, shown: str) -> None:
    assert describe(transport) == shown

"""Importing: ``use_mcp`` against a server written with fastmcp's own decorators.

Every rule of seed 001 §7.2 is met by a tool built to produce it; tags are read where
fastmcp 4 puts them and where fastmcp 2 did; names, clashes, re-imports, sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.transports import FastMCPTransport
from fastmcp.exceptions import ToolError
from fastmcp.tools import Tool as FastMCPTool
from fastmcp.tools.base import ToolResult as FastMCPResult
from fastmcp.utilities.types import Audio, File, Image
from mcp_types import TextContent

from tooldeck import ToolRegistry
from tooldeck.errors import DuplicateToolError
from tooldeck.mcp import sanitise_name

PNG = b"\x89PNG\r\n\x1a\n-not-really"


class CountingTransport(FastMCPTransport):
    """An in-process transport that counts the sessions opened through it."""

    def __init__(self, server: FastMCP[Any]) -> None:
        super().__init__(server)
        self.sessions = 0

    @contextlib.asynccontextmanager
    async def connect_session(self, **kwargs: Any) -> AsyncIterator[Any]:
        self.sessions += 1
        async with super().connect_session(**kwargs) as session:
            yield session


class LegacyTagged(FastMCPTool):
    """A tool whose tags sit where fastmcp 2.x put them: ``_meta._fastmcp.tags``."""

    def get_meta(self) -> dict[str, Any]:
        return {"_fastmcp": {"tags": ["legacy", "v2"]}}

    async def run(self, arguments: dict[str, Any]) -> FastMCPResult:
        return FastMCPResult(content=[TextContent(type="text", text="old")])


def build_server(calls: list[str]) -> FastMCP[Any]:
    server: FastMCP[Any] = FastMCP("fixture")

    @server.tool(tags={"math", "core"})
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        calls.append("add")
        return a + b

    @server.tool
    def profile(user: str) -> dict[str, Any]:
        """Structured content: an object."""
        return {"user": user, "roles": ["admin"]}

    @server.tool(output_schema=None)
    def json_text() -> str:
        """Text that is JSON."""
        return '{"k": [1, 2]}'

    @server.tool(output_schema=None)
    def plain_text() -> str:
        """Text that is not JSON."""
        return "hello, world"

    @server.tool(output_schema=None)
    def empty() -> None:
        """No content at all."""

    @server.tool
    def picture() -> Image:
        """An image."""
        return Image(data=PNG, format="png")

    @server.tool
    def sound() -> Audio:
        """Audio."""
        return Audio(data=b"RIFF....WAVE", format="wav")

    @server.tool
    def document() -> File:
        """An embedded resource."""
        return File(data=b"plain words", format="txt", name="notes")

    @server.tool
    def fail(reason: str) -> str:
        """An error result."""
        raise ToolError(reason)

    @server.tool(output_schema={"type": "object", "properties": {"n": {"type": "integer"}}})
    def liar() -> dict[str, Any]:
        """Breaks its own output schema: the client raises, the proxy answers None."""
        return {"n": "not a number"}

    @server.tool(name="weird.name/v1")
    def weird() -> str:
        """A name outside tooldeck's rule."""
        return "weird reached"

    server.add_tool(
        LegacyTagged(name="legacy", description="2.x tags", parameters={"type": "object"})
    )
    return server


@pytest.fixture
def calls() -> list[str]:
    return []


@pytest.fixture
def server(calls: list[str]) -> FastMCP[Any]:
    return build_server(calls)


@pytest.fixture
def transport(server: FastMCP[Any]) -> CountingTransport:
    return CountingTransport(server)


@pytest.fixture
async def imported(transport: CountingTransport) -> Any:
    registry = ToolRegistry()
    await registry.async_use_mcp(transport, tags=["remote"])
    yield registry
    await registry.aclose()


# -- what is registered ------------------------------------------------------------------------


async def test_one_proxy_per_server_tool(server: FastMCP[Any], imported: ToolRegistry) -> None:
    remote = [t.name for t in await server.list_tools()]
    assert imported.list_tools() == [sanitise_name(n) for n in remote]


async def test_schemas_and_description_come_from_the_server(
    server: FastMCP[Any], imported: ToolRegistry
) -> None:
    add = imported.get("add")
    assert add is not None
    assert add.description == "Add two integers."
    remote = (await server.get_tool("add")).to_mcp_tool()  # type: ignore[union-attr]
    assert add.parameters == remote.input_schema
    assert add.returns == {"type": "integer"}  # what the proxy returns: x of {"result": x}
    assert imported.export("mcp")[0]["outputSchema"] == remote.output_schema
    profile = imported.get("profile")
    assert profile is not None
    assert profile.returns == {"type": "object", "additionalProperties": True}


async def test_tags_of_both_fastmcp_majors_plus_our_own(imported: ToolRegistry) -> None:
    assert imported.get("add").tags == ("core", "math", "remote")  # type: ignore[union-attr]
    assert imported.get("legacy").tags == ("legacy", "v2", "remote")  # type: ignore[union-attr]
    assert imported.get("profile").tags == ("remote",)  # type: ignore[union-attr]
    assert imported.list_tools(tags="v2") == ["legacy"]


# -- seed 001 §7.2, rule by rule -------------------------------------------------------------


async def test_is_error_gives_an_error_dict(imported: ToolRegistry) -> None:
    assert await imported.async_call_tool("fail", {"reason": "no way"}) == {"error": "no way"}


async def test_structured_content_as_is(imported: ToolRegistry) -> None:
    answer = await imported.async_call_tool("profile", {"user": "ada"})
    assert answer == {"user": "ada", "roles": ["admin"]}


async def test_fastmcp_wrapped_result_is_unwrapped(imported: ToolRegistry) -> None:
    assert await imported.async_call_tool("add", {"a": 2, "b": 3}) == 5


async def test_json_text_is_parsed(imported: ToolRegistry) -> None:
    assert await imported.async_call_tool("json_text", {}) == {"k": [1, 2]}


async def test_plain_text_as_is(imported: ToolRegistry) -> None:
    assert await imported.async_call_tool("plain_text", {}) == "hello, world"
    assert await imported.async_call_tool("legacy", {}) == "old"


async def test_no_content_is_none(imported: ToolRegistry) -> None:
    assert await imported.async_call_tool("empty", {}) is None


@pytest.mark.parametrize("name", ["picture", "sound", "document"])
async def test_image_audio_and_resource_are_the_items_model_dump(
    server: FastMCP[Any], imported: ToolRegistry, name: str
) -> None:
    # Seed 001 §7.2: `.model_dump()` of the first item, exactly (Python field names,
    # `annotations` and `meta` included), as the server sent it.
    async with Client(server) as direct:
        sent = (await direct.call_tool_mcp(name, {})).content[0]
    answer = await imported.async_call_tool(name, {})
    assert answer == sent.model_dump()
    assert answer["type"] in ("image", "audio", "resource")
    assert {"annotations", "meta"} <= answer.keys()
    if answer["type"] != "resource":
        assert answer["mime_type"] == {"picture": "image/png", "sound": "audio/wav"}[name]


async def test_an_exception_in_the_client_is_none(
    imported: ToolRegistry, transport: CountingTransport
) -> None:
    assert await imported.async_call_tool("liar", {}) is None
    # the session survived: the server answered, only its result was rejected
    assert await imported.async_call_tool("add", {"a": 1}) == 1
    assert transport.sessions == 1


# -- arguments and names ------------------------------------------------------------------------


async def test_the_server_owns_validation(imported: ToolRegistry, calls: list[str]) -> None:
    # A proxy accepts what its remote tool accepts: fastmcp's server takes "1" for an
    # int, so the proxy passes it on rather than refusing it.
    assert await imported.async_call_tool("add", {"a": "1", "b": 2}) == 3
    assert calls == ["add"]
    # What the server refuses comes back as its error, with its text.
    answer = await imported.async_call_tool("add", {"a": "one"})
    assert isinstance(answer, dict)
    assert "a" in answer["error"]
    assert "valid integer" in answer["error"]
    assert calls == ["add"]  # the server refused it before calling the function


async def test_a_foreign_name_is_sanitised_and_called_by_its_own(imported: ToolRegistry) -> None:
    assert "weird.name/v1" not in imported
    assert await imported.async_call_tool("weird_name_v1", {}) == "weird reached"


def test_sanitise_name() -> None:
    assert sanitise_name("a.b c/d") == "a_b_c_d"
    assert sanitise_name("ok-name_1") == "ok-name_1"
    assert sanitise_name("x" * 80) == "x" * 64
    assert sanitise_name("工具") == "__"
    assert sanitise_name("") == "_"


# -- clashes and re-imports ---------------------------------------------------------------------


async def test_a_clash_with_a_local_tool_registers_nothing(server: FastMCP[Any]) -> None:
    registry = ToolRegistry()

    @registry.tool
    def profile(user: str) -> str:
        """A local tool that the server's would shadow."""
        return user

    with pytest.raises(DuplicateToolError) as caught:
        await registry.async_use_mcp(server)
    assert caught.value.name == "profile"
    assert registry.list_tools() == ["profile"]
    assert registry.get("profile") is profile
    assert registry._mcp_state.sessions == {}  # the session it opened is closed again

    proxies = await registry.async_use_mcp(server, replace=True)
    assert registry.get("profile") in proxies
    answer = await registry.async_call_tool("profile", {"user": "x"})
    assert answer == {"user": "x", "roles": ["admin"]}
    await registry.aclose()


async def test_two_remote_names_that_sanitise_alike_get_distinct_names() -> None:
    server: FastMCP[Any] = FastMCP("twins")
    server.tool(name="a.b")(lambda: 1)
    server.tool(name="a_b")(lambda: 2)
    server.tool(name="a/b")(lambda: 3)
    registry = ToolRegistry()
    await registry.async_use_mcp(server)
    # the name that fits keeps it; the others take the next free suffix, in order
    assert registry.list_tools() == ["a_b_2", "a_b", "a_b_3"]
    assert [await registry.async_call_tool(n, {}) for n in ("a_b_2", "a_b", "a_b_3")] == [1, 2, 3]
    await registry.aclose()


async def test_importing_the_same_server_again_replaces_its_proxies(
    server: FastMCP[Any], transport: CountingTransport, imported: ToolRegistry
) -> None:
    old = imported.get("add")
    server.local_provider.remove_tool("plain_text")
    again = await imported.async_use_mcp(transport, tags=["second"])
    assert imported.get("add") is not old
    assert imported.get("add") in again
    assert "plain_text" not in imported  # gone from the server, gone here
    assert imported.get("add").tags == ("core", "math", "second")  # type: ignore[union-attr]


async def test_another_server_with_the_same_names_clashes(imported: ToolRegistry) -> None:
    with pytest.raises(DuplicateToolError):
        await imported.async_use_mcp(build_server([]))


# -- sessions -----------------------------------------------------------------------------------


async def test_one_session_shared_by_concurrent_calls(
    imported: ToolRegistry, transport: CountingTransport
) -> None:
    answers = await asyncio.gather(
        *(imported.async_call_tool("add", {"a": i, "b": 1}) for i in range(50))
    )
    assert answers == [i + 1 for i in range(50)]
    assert transport.sessions == 1  # the one use_mcp opened to list the tools


async def test_close_ends_the_session_and_the_next_call_opens_one(
    imported: ToolRegistry, transport: CountingTransport
) -> None:
    await imported.aclose()
    assert transport.sessions == 1
    assert await imported.async_call_tool("add", {"a": 1}) == 1
    assert await imported.async_call_tool("add", {"a": 2}) == 2
    assert transport.sessions == 2


async def test_concurrent_imports_of_one_server_share_a_session(
    transport: CountingTransport,
) -> None:
    async with ToolRegistry() as registry:
        first, second = await asyncio.gather(
            registry.async_use_mcp(transport), registry.async_use_mcp(transport)
        )
        assert {p.name for p in first} == {p.name for p in second}
        assert set(registry.list_tools()) == {p.name for p in second}
        assert await registry.async_call_tool("add", {"a": 1}) == 1
        assert transport.sessions == 1


async def test_a_server_that_cannot_be_reached_registers_nothing() -> None:
    registry = ToolRegistry()
    with pytest.raises(Exception):  # noqa: B017 - whatever the client raises, it propagates
        await registry.async_use_mcp("http://127.0.0.1:9/mcp")
    assert len(registry) == 0
    assert registry._mcp_state.sessions == {}


def test_sync_import_and_calls_share_one_session(transport: CountingTransport) -> None:
    with ToolRegistry() as registry:
        proxies = registry.use_mcp(transport)
        assert len(proxies) == len(registry)
        assert registry.call_tool("add", {"a": 4, "b": 4}) == 8
        assert asyncio.run(registry.async_call_tool("add", {"a": 1})) == 1  # another loop
        assert asyncio.run(registry.async_call_tool("add", {"a": 2})) == 2  # and another
        assert transport.sessions == 1
    assert registry.call_tool("add", {"a": 3}) == 3  # closed by `with`, reopened on use
    assert transport.sessions == 2
    registry.close()


async def test_sync_call_inside_a_running_loop(imported: ToolRegistry) -> None:
    assert imported.call_tool("add", {"a": 1, "b": 1}) == 2


# -- the extra ----------------------------------------------------------------------------------


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_import_tooldeck_does_not_load_fastmcp() -> None:
    done = run_python(
        """
        import sys, json
        import tooldeck, tooldeck.mcp
        roots = {"fastmcp", "mcp", "mcp_types"}
        print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in roots)))
        """
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_without_fastmcp_every_entry_point_names_the_extra() -> None:
    done = run_python(
        """
        import sys, json
        sys.modules["fastmcp"] = None  # as if the extra were not installed
        from tooldeck import ToolRegistry
        registry = ToolRegistry()
        out = {}
        for name, call in {
            "use_mcp": lambda: registry.use_mcp("http://127.0.0.1:9/mcp"),
            "as_mcp_server": lambda: registry.as_mcp_server(),
            "serve": lambda: registry.serve("http"),
        }.items():
            try:
                call()
            except ImportError as exc:
                out[name] = str(exc)
        print(json.dumps(out))
        """
    )
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)
    assert set(messages) == {"use_mcp", "as_mcp_server", "serve"}
    for message in messages.values():
        assert "pip install 'tooldeck[mcp]'" in message


# -- odds and ends ------------------------------------------------------------------------------


async def test_a_fastmcp_client_is_a_transport_too(server: FastMCP[Any]) -> None:
    async with ToolRegistry() as registry:
        await registry.async_use_mcp(Client(server))
        assert await registry.async_call_tool("add", {"a": 5}) == 5


def test_to_value_reads_wrapping_from_the_result_meta_and_errors_without_text() -> None:
    from mcp_types import CallToolResult, ImageContent

    from tooldeck.mcp import to_value

    wrapped = CallToolResult(
        content=[TextContent(type="text", text="5")],
        structured_content={"result": 5},
        _meta={"fastmcp": {"wrap_result": True}},  # type: ignore[call-arg]
    )
    assert to_value(wrapped) == 5
    plain = CallToolResult(content=[], structured_content={"result": 5})
    assert to_value(plain) == {"result": 5}  # not marked: as is
    silent = CallToolResult(
        content=[ImageContent(type="image", data="AA==", mime_type="image/png")], is_error=True
    )
    assert to_value(silent) == {"error": "the tool failed without saying why"}

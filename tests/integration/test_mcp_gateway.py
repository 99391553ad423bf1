"""A registry as a faithful MCP gateway: what a client gets through it is what the server sent.

Each test puts a server behind a tooldeck gateway (``gateway.use_mcp(server)``, served
again with ``gateway.as_mcp_server()``), calls the same tools directly and through the
gateway with a plain ``fastmcp.Client``, and compares: every content item, ``isError``,
``structuredContent``, ``_meta``, and in the listing the schemas, annotations and title.

The servers: fastmcp's own (in process), a tooldeck registry, and two real
third-party ones — ``mcp-server-time`` (PyPI, in the ``dev`` extra) and
``@modelcontextprotocol/server-everything`` (npm; ``.ci/run`` installs it into
``.cache/npm`` when ``npm`` exists, and its tests are skipped without it).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError
from fastmcp.tools.base import ToolResult as FastMCPResult
from fastmcp.utilities.types import Audio, File, Image
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_types import TextContent, ToolAnnotations

from tooldeck import ToolRegistry, ToolResult

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / ".cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
PNG = b"\x89PNG\r\n\x1a\n-not-really"
FAULTY = ROOT / "tests" / "reliability" / "servers" / "faulty_mcp.py"

pytestmark = pytest.mark.timeout(120)


def origin_server() -> FastMCP[Any]:
    """A fastmcp server whose tools produce every kind of result."""
    server: FastMCP[Any] = FastMCP("origin")

    @server.tool(output_schema=None)
    def gallery() -> list[Any]:
        """Three items: text, an image, text."""
        return ["before", Image(data=PNG, format="png"), "after"]

    @server.tool
    def media() -> list[Any]:
        """Audio and an embedded resource."""
        return [Audio(data=b"RIFF....WAVE", format="wav"), File(data=b"words", format="txt")]

    @server.tool(tags={"math"})
    def add(a: int, b: int = 0) -> int:
        """Structured content, wrapped by fastmcp."""
        return a + b

    @server.tool
    def profile(user: str) -> dict[str, Any]:
        """Structured content, an object."""
        return {"user": user, "roles": ["admin"]}

    @server.tool
    def refuse(reason: str) -> str:
        """An error result."""
        raise ToolError(reason)

    @server.tool(
        title="A pretty title",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    def annotated() -> str:
        """Carries a title and annotations."""
        return "ok"

    @server.tool
    def with_meta() -> FastMCPResult:
        """A result with `_meta` and two text items."""
        return FastMCPResult(
            content=[TextContent(type="text", text="one"), TextContent(type="text", text="two")],
            meta={"trace": "abc"},
        )

    @server.tool
    def bare(x: int) -> int:  # no docstring: no description, and none made up downstream
        return x

    @server.tool
    def error_items() -> FastMCPResult:
        """An error result with two items."""
        return FastMCPResult(
            content=[TextContent(type="text", text="bad"), TextContent(type="text", text="worse")],
            is_error=True,
        )

    return server


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("gallery", {}),
    ("media", {}),
    ("add", {"a": 2, "b": 3}),
    ("add", {"a": "3"}),  # fastmcp's server coerces; the gateway passes it on
    ("add", {"a": "three"}),  # refused by the server: its error, unchanged
    ("add", {}),
    ("profile", {"user": "ada"}),
    ("refuse", {"reason": "quota exceeded"}),
    ("annotated", {}),
    ("with_meta", {}),
    ("error_items", {}),
]


@pytest.fixture
async def origin() -> FastMCP[Any]:
    return origin_server()


@pytest.fixture
async def gateway(origin: FastMCP[Any]) -> AsyncIterator[ToolRegistry]:
    async with ToolRegistry() as registry:
        await registry.async_use_mcp(origin, tags="remote")
        yield registry


SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def wire(result: Any) -> dict[str, Any]:
    """A result as sent, less the one key that names the server answering.

    On the 2026 protocol every result's `_meta` says which server answered (the
    MCP SDK stamps it per connection): through a gateway that is the gateway.
    """
    dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    meta = {k: v for k, v in dumped.pop("_meta", {}).items() if k != SERVER_INFO}
    return {**dumped, "_meta": meta} if meta else dumped


# A time of day in a result's text ("created at 2:40:55 AM"): the direct and the gateway
# call run a moment apart, so a clock in the text may tick between them.
CLOCK = re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:\s?[AP]M)?\b")


async def compare_calls(
    direct: Client[Any], through: Client[Any], calls: list[tuple[str, dict[str, Any]]]
) -> None:
    for name, arguments in calls:
        sent = await direct.call_tool_mcp(name, arguments)
        got = await through.call_tool_mcp(name, arguments)
        assert steady(wire(got)) == steady(wire(sent)), name


def steady(dumped: dict[str, Any]) -> str:
    return CLOCK.sub("<time>", json.dumps(dumped, sort_keys=True, ensure_ascii=False))


async def compare_listings(direct: Client[Any], through: Client[Any]) -> None:
    sent = {t.name: t for t in await direct.list_tools()}
    got = {t.name: t for t in await through.list_tools()}
    assert got.keys() <= sent.keys()
    for name, tool in got.items():
        original = sent[name]
        fields = ("title", "description", "input_schema", "output_schema", "annotations")
        for field in (*fields, "execution"):  # execution.taskSupport: issue 25
            assert getattr(tool, field) == getattr(original, field), (name, field)
        assert tool.icons == original.icons


async def test_every_result_arrives_as_the_server_sent_it(
    origin: FastMCP[Any], gateway: ToolRegistry
) -> None:
    async with Client(origin) as direct, Client(gateway.as_mcp_server()) as through:
        await compare_calls(direct, through, CALLS)


async def test_the_listing_keeps_schemas_annotations_and_title(
    origin: FastMCP[Any], gateway: ToolRegistry
) -> None:
    async with Client(origin) as direct, Client(gateway.as_mcp_server()) as through:
        await compare_listings(direct, through)
        listed = {t.name: t for t in await through.list_tools()}
    assert listed["annotated"].title == "A pretty title"
    assert listed["annotated"].annotations == ToolAnnotations(
        read_only_hint=True, open_world_hint=False
    )
    assert listed["add"].meta["fastmcp"]["tags"] == ["math", "remote"]  # type: ignore[index]


async def test_a_remote_failure_stays_a_failure_on_every_face(gateway: ToolRegistry) -> None:
    assert await gateway.async_call_tool("refuse", {"reason": "no"}) == {"error": "no"}
    assert await gateway.execute("refuse", {"reason": "no"}) == ToolResult.fail("no")
    assert await gateway.execute("error_items", {}) == ToolResult.fail("bad\nworse")
    async with Client(gateway.as_mcp_server()) as through:
        result = await through.call_tool_mcp("refuse", {"reason": "no"})
    assert result.is_error
    assert [item.text for item in result.content] == ["no"]  # type: ignore[union-attr]


async def test_a_chain_of_gateways_changes_nothing(origin: FastMCP[Any]) -> None:
    async with ToolRegistry() as first, ToolRegistry() as second:
        await first.async_use_mcp(origin)
        await second.async_use_mcp(first.as_mcp_server())
        async with Client(origin) as direct, Client(second.as_mcp_server()) as through:
            await compare_calls(direct, through, CALLS)
            await compare_listings(direct, through)


async def test_a_server_that_is_gone_is_a_failure_naming_it(tmp_path: Path) -> None:
    # A stdio server that crashes, and cannot be started again (its script is gone).
    script = tmp_path / "faulty_mcp.py"
    script.write_text(FAULTY.read_text())
    transport = StdioTransport(sys.executable, [str(script)])
    async with ToolRegistry() as gateway:
        await gateway.async_use_mcp(transport, timeout=10)
        assert isinstance(await gateway.async_call_tool("good", {}), int)
        assert await gateway.async_call_tool("crash", {}) is None  # seed 001 §7.2
        script.unlink()
        assert await gateway.async_call_tool("good", {}) is None
        failed = await gateway.execute("good", {})
        assert not failed.success
        # named by base names: never a command line or a local path (DESIGN, fine print)
        named = f"MCP server {Path(sys.executable).name} {script.name}"
        assert (failed.error or "").startswith(f"{named} failed")
        async with Client(gateway.as_mcp_server()) as through:
            result = await through.call_tool_mcp("good", {})
        assert result.is_error
        assert result.content[0].text.startswith(named)  # type: ignore[union-attr]


# -- a tooldeck registry behind a tooldeck gateway ------------------------------------------------


def tooldeck_origin() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(annotations={"readOnlyHint": True, "title": "Adder"})
    def add(a: Annotated[int, "first"], b: int = 0) -> int:
        """Add two integers."""
        return a + b

    @registry.tool
    def pair(point: dict[str, int], scale: float = 1.0) -> list[float]:
        """A nested argument (some clients send it as JSON text)."""
        return [point.get("x", 0) * scale, point.get("y", 0) * scale]

    @registry.tool
    def explode(why: str) -> str:
        """Raises."""
        raise RuntimeError(why)

    @registry.tool
    def liar() -> int:
        """Returns what its annotation says it does not."""
        return "x"  # type: ignore[return-value]

    return registry


ORIGIN = tooldeck_origin()
GATEWAY = ToolRegistry()
GATEWAY.use_mcp(ORIGIN.as_mcp_server())

VALUES = st.one_of(
    st.integers(-(10**6), 10**6),
    st.integers(-(10**6), 10**6).map(str),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)
ARGUMENTS = st.dictionaries(st.sampled_from(["a", "b", "c"]), VALUES, max_size=3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=ARGUMENTS)
def test_through_a_gateway_a_call_answers_what_the_server_answers(
    arguments: dict[str, Any],
) -> None:
    direct = ORIGIN.call_tool("add", arguments)
    through = GATEWAY.call_tool("add", arguments)
    if isinstance(direct, str) and direct.startswith("Error: "):
        assert through == {"error": direct.removeprefix("Error: ")}  # the same text
    else:
        assert through == direct
    assert GATEWAY.execute_sync("add", arguments) == ORIGIN.execute_sync("add", arguments)


def test_nested_arguments_sent_as_json_text_are_accepted_as_the_server_does() -> None:
    point = '{"x": 2, "y": 3}'
    assert ORIGIN.call_tool("pair", {"point": point}) == [2.0, 3.0]
    assert GATEWAY.call_tool("pair", {"point": point}) == [2.0, 3.0]
    # null for a defaulted parameter means its default, on both sides
    assert GATEWAY.call_tool("pair", {"point": {"x": 1}, "scale": None}) == [1.0, 0.0]


def test_a_value_that_breaks_its_output_schema_is_an_error_not_invalid_content() -> None:
    message = (
        "Tool 'liar' returned a value that does not match its output schema:\n"
        "result: 'x' is not of type 'integer'"
    )
    assert GATEWAY.call_tool("liar") == {"error": message}
    assert GATEWAY.execute_sync("liar") == ToolResult.fail(message)
    assert GATEWAY.call_tool("explode", {"why": "boom"}) == {"error": "boom"}


def test_annotations_cross_the_gateway() -> None:
    assert GATEWAY.get("add").annotations == {"readOnlyHint": True, "title": "Adder"}  # type: ignore[union-attr]
    assert GATEWAY.export("mcp")[0]["annotations"] == ORIGIN.export("mcp")[0]["annotations"]


# -- real third-party servers -------------------------------------------------------------------


def time_server() -> StdioTransport:
    return StdioTransport(
        sys.executable, ["-m", "mcp_server_time", "--local-timezone", "Asia/Taipei"]
    )


@pytest.mark.skipif(
    importlib.util.find_spec("mcp_server_time") is None,
    reason="mcp-server-time is not installed (pip install -e '.[dev]')",
)
async def test_mcp_server_time_through_a_gateway() -> None:
    convert = {"source_timezone": "Asia/Taipei", "time": "12:00", "target_timezone": "Europe/Paris"}
    calls = [
        ("convert_time", convert),
        ("convert_time", {**convert, "source_timezone": "Nowhere/Else"}),  # isError
        ("convert_time", {"time": "12:00"}),  # refused by the server's validation
    ]
    async with ToolRegistry() as gateway:
        proxies = await gateway.async_use_mcp(time_server())
        assert {p.name for p in proxies} == {"get_current_time", "convert_time"}
        async with Client(time_server()) as direct, Client(gateway.as_mcp_server()) as through:
            await compare_listings(direct, through)
            await compare_calls(direct, through, calls)
        answer = await gateway.async_call_tool("convert_time", convert)
        assert answer["source"]["timezone"] == "Asia/Taipei"


def everything_server() -> StdioTransport:
    return StdioTransport("node", [str(EVERYTHING), "stdio"])


@pytest.mark.skipif(
    shutil.which("node") is None or not EVERYTHING.exists(),
    reason="@modelcontextprotocol/server-everything is not installed: .ci/run installs it "
    "into .cache/npm when npm exists",
)
async def test_server_everything_through_a_gateway() -> None:
    calls = [
        ("get-tiny-image", {}),  # [text, image, text]: every item arrives
        ("echo", {"message": "hi"}),
        ("get-sum", {"a": 2, "b": 3}),
        ("get-structured-content", {"location": "Chicago"}),
        ("get-annotated-message", {"messageType": "error", "includeImage": True}),
        ("get-resource-reference", {"resourceType": "Text", "resourceId": 1}),
        ("get-sum", {"a": "two", "b": 3}),  # the server's own refusal
    ]
    async with ToolRegistry() as gateway:
        await gateway.async_use_mcp(everything_server())
        # A task-only tool is imported, listed with its taskSupport, and run as a task
        # (created, polled, its result fetched) by a plain call of the gateway.
        assert "simulate-research-query" in gateway
        research = {t["name"]: t for t in gateway.export("mcp")}["simulate-research-query"]
        assert research["execution"] == {"taskSupport": "required"}
        async with (
            Client(everything_server()) as direct,
            # The handshake era (2025-11-25), whose listings have `execution`, as the
            # server's own does; 2026-07-28 moved tasks to an extension and dropped it.
            Client(gateway.as_mcp_server(), mode="legacy") as through,
        ):
            assert through.protocol_version == direct.protocol_version == "2025-11-25"
            await compare_listings(direct, through)
            await compare_calls(direct, through, calls)
            image = await through.call_tool_mcp("get-tiny-image", {})
            report = await through.call_tool_mcp("simulate-research-query", {"topic": "tides"})
        assert [item.type for item in image.content] == ["text", "image", "text"]
        assert not report.is_error
        assert "Research Report: tides" in report.content[0].text
        # Bounded by the import's timeout like any proxied call (the task takes ~4 s):
        # the failure value, promptly; the task is cancelled on the way out.
        proxy = gateway.get("simulate-research-query")
        proxy.session.timeout = 1.0  # type: ignore[union-attr]
        started = time.monotonic()
        assert await gateway.async_call_tool("simulate-research-query", {"topic": "x"}) is None
        assert time.monotonic() - started < 3.5

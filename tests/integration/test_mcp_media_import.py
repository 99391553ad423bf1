"""Media over MCP, imported: a proxy keeps every content item of its server's result.

``call_tool`` answers as seed 001 §7.2 says (the first item; an image's
``.model_dump()``); ``execute`` (sync and async) and ``run_tool_calls`` get all of it:
text → ``str``, image and audio → `Image` / `Audio`, an embedded resource → `File`, a
resource link → a URL-only value, the media value itself for a one-item result. A
gateway serving the proxy passes the content on unchanged. Content the media core
refuses is a text placeholder naming the server, never an exception.

Servers: a tooldeck registry (``media_samples``), fastmcp's own, and
``@modelcontextprotocol/server-everything`` (npm, skipped without it).
"""

from __future__ import annotations

import base64
import logging
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.transports import StdioTransport
from fastmcp.tools.base import ToolResult as FastMCPResult
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_types import AudioContent, ImageContent, ResourceLink, TextContent
from media_samples import KINDS, PNG, WAV, media_registry, served_over_http

from tool_call_replies import FORMATS, WIRE, Call, sdk_reply
from tooldeck import Audio, File, Image, ToolRegistry, ToolResult

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / ".cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
CAPTION = "Sales by month, 2024:"

pytestmark = pytest.mark.timeout(60)


def dumped(items: list[Any]) -> list[dict[str, Any]]:
    return [item.model_dump(by_alias=True, mode="json", exclude_none=True) for item in items]


@pytest.fixture
async def origin() -> ToolRegistry:
    return media_registry()


@pytest.fixture
async def imported(origin: ToolRegistry) -> AsyncIterator[ToolRegistry]:
    async with ToolRegistry() as registry:
        await registry.async_use_mcp(origin.as_mcp_server())
        yield registry


# -- execute gets every item; call_tool answers as seed 001 says ------------------------------


@pytest.mark.parametrize("kind", list(KINDS))
async def test_each_kind_comes_back_as_the_value_it_was(
    origin: ToolRegistry, imported: ToolRegistry, kind: str
) -> None:
    assert await imported.execute(kind, {}) == ToolResult.ok(KINDS[kind])
    assert imported.execute_sync(kind, {}) == ToolResult.ok(KINDS[kind])
    # call_tool: §7.2, the first item's .model_dump(), exactly as before
    async with Client(origin.as_mcp_server()) as direct:
        sent = (await direct.call_tool_mcp(kind, {})).content[0]
    assert await imported.async_call_tool(kind, {}) == sent.model_dump()
    assert imported.call_tool(kind, {}) == sent.model_dump()


async def test_a_caption_and_an_image_round_trip(imported: ToolRegistry) -> None:
    result = await imported.execute("chart", {"year": 2024})
    assert result == ToolResult.ok([CAPTION, Image(PNG)])
    image = result.data[1]
    assert type(image) is Image and image.data == PNG and image.mime_type == "image/png"
    assert imported.execute_sync("chart", {"year": 2024}) == result
    assert await imported.async_call_tool("chart", {"year": 2024}) == CAPTION  # the first item
    assert str(result) == f"{CAPTION}\n[image: image/png, {len(PNG)} bytes]"


async def test_every_kind_in_order(imported: ToolRegistry) -> None:
    result = await imported.execute("gallery", {})
    assert result == ToolResult.ok(["first", *KINDS.values(), "last"])
    # With an output schema (-> list): execute still reads the content items (JSON parts
    # are their text), call_tool its structured content, as §7.2 says.
    mixed = await imported.execute("every_kind", {})
    assert mixed.data == ["first", *KINDS.values(), '{"months": 12, "ok": true}', "7", "last"]
    answer = await imported.async_call_tool("every_kind", {})
    assert (
        answer
        == ToolResult.ok(
            ["first", *KINDS.values(), {"months": 12, "ok": True}, 7, "last"]
        ).to_dict()["data"]
    )


async def test_a_gateway_serves_the_same_content(
    origin: ToolRegistry, imported: ToolRegistry
) -> None:
    async with (
        Client(origin.as_mcp_server()) as direct,
        Client(imported.as_mcp_server()) as through,
    ):
        for name, arguments in [
            ("chart", {"year": 2024}),
            ("gallery", {}),
            ("every_kind", {}),
            *((k, {}) for k in KINDS),
        ]:
            sent = await direct.call_tool_mcp(name, arguments)
            got = await through.call_tool_mcp(name, arguments)
            assert dumped(got.content) == dumped(sent.content), name
            assert got.structured_content == sent.structured_content
            assert got.is_error is sent.is_error is False


async def test_over_http_an_import_and_a_gateway_keep_the_media(origin: ToolRegistry) -> None:
    with served_over_http(origin) as url:
        async with ToolRegistry() as imported:
            await imported.async_use_mcp(url)
            assert await imported.execute("chart", {"year": 2024}) == ToolResult.ok(
                [CAPTION, Image(PNG)]
            )
            gallery = ToolResult.ok(["first", *KINDS.values(), "last"])
            assert imported.execute_sync("gallery", {}) == gallery
            with served_over_http(imported) as gateway:
                async with Client(url) as direct, Client(gateway) as through:
                    sent = await direct.call_tool_mcp("gallery", {})
                    got = await through.call_tool_mcp("gallery", {})
    assert dumped(got.content) == dumped(sent.content)
    assert [item["type"] for item in dumped(got.content)].count("image") == 2


async def test_two_gateways_deep_keep_the_values(imported: ToolRegistry) -> None:
    async with ToolRegistry() as outer:
        await outer.async_use_mcp(imported.as_mcp_server())
        assert await outer.execute("chart", {"year": 2024}) == ToolResult.ok([CAPTION, Image(PNG)])
        assert await outer.execute("gallery", {}) == ToolResult.ok(
            ["first", *KINDS.values(), "last"]
        )


def test_run_tool_calls_gets_the_image_not_a_json_dump(imported: ToolRegistry) -> None:
    # Chat Completions tool messages hold text: the image is its placeholder there,
    # never the base64 of a .model_dump() (what the proxy's call_tool gives).
    reply = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "chart", "arguments": '{"year": 2024}'},
            }
        ],
    }
    messages = imported.run_tool_calls(reply)
    tool_message = next(m for m in messages if m.get("role") == "tool")
    assert tool_message["content"] == f"{CAPTION}\n[image: image/png, {len(PNG)} bytes]"
    assert all("model_dump" not in str(m) and "'mime_type'" not in str(m) for m in messages)


@pytest.mark.parametrize("format", FORMATS)
def test_run_tool_calls_answers_as_for_the_local_tool(
    origin: ToolRegistry, imported: ToolRegistry, format: str
) -> None:
    # Whatever a provider's answer holds for ["caption", Image(png)], the imported tool's
    # answer is the very same: the image's bytes natively, in every provider's format.
    openai = format.startswith("openai")
    calls = [
        Call("call_1", "chart", '{"year": 2024}' if openai else {"year": 2024}),
        Call("call_2", "gallery", "{}" if openai else {}),
    ]
    png = base64.b64encode(PNG).decode()
    for reply in (WIRE[format](calls), sdk_reply(format, WIRE[format](calls))):
        local = origin.run_tool_calls(reply)
        assert imported.run_tool_calls(reply) == local
        assert str(local).count(png) >= 2  # the chart's and the gallery's, as data


# -- content the core refuses: a placeholder naming the server, never an exception -----------


def odd_server() -> FastMCP[Any]:
    server: FastMCP[Any] = FastMCP("odd")
    png64 = base64.b64encode(PNG).decode()

    @server.tool
    def odd() -> FastMCPResult:
        """Content a media value cannot be made from, between good items."""
        return FastMCPResult(
            content=[
                ImageContent(type="image", data="not base64!", mime_type="image/png"),
                ImageContent(type="image", data=png64, mime_type="image/jpeg"),
                ResourceLink(type="resource_link", uri="test://static/resource/1", name="r1"),
                AudioContent(
                    type="audio", data=base64.b64encode(WAV).decode(), mime_type="audio/wav"
                ),
                TextContent(type="text", text="end"),
            ]
        )

    @server.tool
    def links() -> FastMCPResult:
        """Text and links of a scheme no media value takes: one text."""
        return FastMCPResult(
            content=[
                TextContent(type="text", text="Two resources:"),
                ResourceLink(type="resource_link", uri="demo://a", name="a"),
                ResourceLink(type="resource_link", uri="demo://b", name="b"),
            ]
        )

    @server.tool
    def lone() -> FastMCPResult:
        """One refused item."""
        return FastMCPResult(content=[ImageContent(type="image", data="@@", mime_type="image/png")])

    return server


async def test_refused_content_is_a_placeholder_naming_the_server(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = odd_server()
    async with ToolRegistry() as registry:
        await registry.async_use_mcp(server)
        with caplog.at_level(logging.WARNING, logger="tooldeck.mcp"):
            result = await registry.execute("odd", {})
            lone = registry.execute_sync("lone", {})
            links = await registry.execute("links", {})
        assert result.success and lone.success
        bad64, contradicted, link, audio, end = result.data
        where = "from MCP server in-process server 'odd', not usable as media: "
        assert bad64.startswith(f"[image {where}MCP content data is not valid base64")
        assert (
            contradicted
            == f"[image {where}Image: the bytes are image/png, not image/jpeg as mime_type says]"
        )
        assert link.startswith(
            f"[resource_link test://static/resource/1 {where}"
            "File: url must be an http, https or data URL"
        )
        assert (audio, end) == (Audio(WAV), "end")
        assert lone.data.startswith(f"[image {where}")
        assert type(links.data) is str
        lines = links.data.splitlines()
        assert lines[0] == "Two resources:" and len(lines) == 3
        assert lines[1].startswith(f"[resource_link demo://a {where}File: url must be")
        assert lines[2].startswith(f"[resource_link demo://b {where}File: url must be")
        assert len(caplog.records) == 6 and all("odd" in r.getMessage() for r in caplog.records)
        # call_tool: §7.2 as before (the first item's model_dump)
        first = await registry.async_call_tool("odd", {})
        assert first["type"] == "image" and first["data"] == "not base64!"
        # and a gateway hands the items on exactly as they came
        async with Client(server) as direct, Client(registry.as_mcp_server()) as through:
            sent, got = (
                await direct.call_tool_mcp("odd", {}),
                await through.call_tool_mcp("odd", {}),
            )
        assert dumped(got.content) == dumped(sent.content)


async def test_a_text_only_result_reads_as_before() -> None:
    server: FastMCP[Any] = FastMCP("texts")

    @server.tool
    def two() -> FastMCPResult:
        """Two text items: §7.2's first, parsed as JSON."""
        return FastMCPResult(
            content=[TextContent(type="text", text="[1, 2]"), TextContent(type="text", text="x")]
        )

    async with ToolRegistry() as registry:
        await registry.async_use_mcp(server)
        assert await registry.execute("two", {}) == ToolResult.ok([1, 2])
        assert await registry.async_call_tool("two", {}) == [1, 2]


# -- a real third-party server --------------------------------------------------------------


@pytest.mark.skipif(
    shutil.which("node") is None or not EVERYTHING.exists(),
    reason="@modelcontextprotocol/server-everything is not installed: .ci/run installs it "
    "into .cache/npm when npm exists",
)
async def test_server_everything_tiny_image_is_an_image() -> None:
    transport = StdioTransport("node", [str(EVERYTHING), "stdio"])
    async with Client(StdioTransport("node", [str(EVERYTHING), "stdio"])) as direct:
        sent = await direct.call_tool_mcp("get-tiny-image", {})
    items = dumped(sent.content)
    assert [item["type"] for item in items] == ["text", "image", "text"]
    async with ToolRegistry() as registry:
        await registry.async_use_mcp(transport)  # its task-only tool too (issue 25)
        result = await registry.execute("get-tiny-image", {})
    assert result.success
    before, image, after = result.data
    assert (before, after) == (items[0]["text"], items[2]["text"])
    assert type(image) is Image
    assert image.data == base64.b64decode(items[1]["data"])
    assert image.mime_type == items[1]["mimeType"] == "image/png"


# -- for every list of parts ----------------------------------------------------------------

PART = st.one_of(st.text(max_size=20), st.sampled_from(list(KINDS.values())))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(PART, min_size=1, max_size=6))
def test_any_parts_round_trip_through_serving_and_importing(parts: list[Any]) -> None:
    held: list[Any] = []
    origin = ToolRegistry()

    @origin.tool
    def parts_tool() -> list[str | Image | Audio | File]:
        """Returns the parts held."""
        return held[0]  # type: ignore[no-any-return]

    held.append(parts)
    with ToolRegistry() as imported:
        imported.use_mcp(origin.as_mcp_server())
        result = imported.execute_sync("parts_tool", {})
    has_media = any(type(part) in (Image, Audio, File) for part in parts)
    expected = parts[0] if has_media and len(parts) == 1 else parts
    assert result == ToolResult.ok(expected)

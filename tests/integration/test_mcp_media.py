"""Media over MCP, served: a tool's `Image`, `Audio` or `File` is MCP content.

The MCP column of the media conformance matrix: every kind (``media_samples.KINDS``)
served by a tooldeck registry and read by a real ``fastmcp.Client``, in memory and over
streamable HTTP on 127.0.0.1: the exact content type, the bytes (base64 decoding to the
same bytes), ``mimeType``, and the order of a list's parts. Imports and gateways are in
``test_mcp_media_import.py``.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from media_samples import KINDS, PNG, WIRE, media_registry, served_over_http

from tooldeck import Image, ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(60)


def dumped(item: Any) -> dict[str, Any]:
    """A content item as it is on the wire."""
    wire: dict[str, Any] = item.model_dump(by_alias=True, mode="json", exclude_none=True)
    return wire


def wire_bytes(item: dict[str, Any]) -> bytes | str:
    """The bytes an item carries (base64 decoded), a text resource's UTF-8, or a link's URL."""
    kind = item["type"]
    if kind in ("image", "audio"):
        return base64.b64decode(item["data"], validate=True)
    if kind == "resource":
        resource = item["resource"]
        if "blob" in resource:
            return base64.b64decode(resource["blob"], validate=True)
        return str(resource["text"]).encode()
    assert kind == "resource_link"
    return str(item["uri"])


def mime_of(item: dict[str, Any]) -> str:
    return str(item["resource"]["mimeType"] if item["type"] == "resource" else item["mimeType"])


def check_kind(item: dict[str, Any], kind: str) -> None:
    content_type, mime, raw = WIRE[kind]
    assert item["type"] == content_type
    assert mime_of(item) == mime
    assert wire_bytes(item) == raw
    assert item == KINDS[kind].to_mcp()  # the core's MCP form, exactly


@pytest.fixture(scope="module")
def served() -> ToolRegistry:
    return media_registry()


@pytest.fixture(params=["memory", "http"])
async def client(
    request: pytest.FixtureRequest, served: ToolRegistry
) -> AsyncIterator[Client[Any]]:
    if request.param == "memory":
        async with Client(served.as_mcp_server()) as connected:
            yield connected
        return
    with served_over_http(served) as url:
        async with Client(url) as connected:
            yield connected


# -- each kind alone, then all of them in order ----------------------------------------------


@pytest.mark.parametrize("kind", list(KINDS))
async def test_each_kind_is_its_mcp_content(client: Client[Any], kind: str) -> None:
    result = await client.call_tool_mcp(kind, {})
    assert not result.is_error
    assert result.structured_content is None  # `-> Image | Audio | File`: no output schema
    assert len(result.content) == 1
    check_kind(dumped(result.content[0]), kind)


async def test_a_list_of_parts_is_the_content_items_in_order(client: Client[Any]) -> None:
    result = await client.call_tool_mcp("gallery", {})
    items = [dumped(item) for item in result.content]
    assert [item["type"] for item in items] == [
        "text", "image", "image", "resource", "resource", "audio",
        "resource_link", "resource_link", "text",
    ]  # fmt: skip
    assert items[0] == {"type": "text", "text": "first"}
    assert items[-1] == {"type": "text", "text": "last"}
    for item, kind in zip(items[1:-1], KINDS, strict=True):
        check_kind(item, kind)
    assert result.structured_content is None


async def test_media_annotations_list_no_output_schema(client: Client[Any]) -> None:
    listed = {tool.name: tool for tool in await client.list_tools()}
    for name in [*KINDS, "chart", "gallery"]:
        assert listed[name].output_schema is None, name
    assert listed["every_kind"].output_schema is not None


async def test_an_output_schema_that_admits_the_value_also_gets_structured_content(
    client: Client[Any], served: ToolRegistry
) -> None:
    # `-> list`: the content items in order, and to_dict()'s JSON form of the value as
    # structuredContent, wrapped as fastmcp wraps a non-object result.
    result = await client.call_tool_mcp("every_kind", {})
    assert not result.is_error
    items = [dumped(item) for item in result.content]
    assert items[0] == {"type": "text", "text": "first"}
    for item, kind in zip(items[1:8], KINDS, strict=True):
        check_kind(item, kind)
    assert items[8:] == [
        {"type": "text", "text": json.dumps({"months": 12, "ok": True})},  # JSON parts: JSON text
        {"type": "text", "text": "7"},
        {"type": "text", "text": "last"},
    ]
    expected = served.execute_sync("every_kind", {}).to_dict()["data"]
    assert result.structured_content == {"result": expected}
    assert (result.meta or {}).get("fastmcp", {}).get("wrap_result") is True
    # fastmcp's client reads it back (it checks structuredContent against the schema)
    called = await client.call_tool("every_kind", {})
    assert called.data == expected


# -- what did not change: failures, and values without media ---------------------------------


def odd_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def broken() -> Image:
        """Fails before returning its image."""
        raise RuntimeError("renderer crashed")

    @registry.tool
    def liar() -> list[int]:
        """Declares ints, returns an image."""
        return [Image(PNG)]  # type: ignore[list-item]

    @registry.tool
    def wrong_shape() -> dict[str, int]:
        """Declares an object, returns a list of parts."""
        return ["caption", Image(PNG)]  # type: ignore[return-value]

    @registry.tool
    def failed() -> ToolResult:
        """A failed ToolResult."""
        return ToolResult.fail("no chart for that year")

    @registry.tool
    def nested() -> dict[str, Any]:
        """Media inside a dict: its MCP form inside the JSON (text and structured)."""
        return {"chart": Image(PNG), "months": 12}

    @registry.tool
    def plain() -> list[int]:
        """No media: as before."""
        return [1, 2, 3]

    return registry


async def test_failures_and_values_without_media_are_unchanged() -> None:
    registry = odd_registry()
    async with Client(registry.as_mcp_server()) as client:
        broken = await client.call_tool_mcp("broken", {})
        liar = await client.call_tool_mcp("liar", {})
        failed = await client.call_tool_mcp("failed", {})
        wrong = await client.call_tool_mcp("wrong_shape", {})
        nested = await client.call_tool_mcp("nested", {})
        plain = await client.call_tool_mcp("plain", {})
    assert broken.is_error and [dumped(i) for i in broken.content] == [
        {"type": "text", "text": "renderer crashed"}
    ]
    assert liar.is_error and liar.structured_content is None
    text = dumped(liar.content[0])["text"]
    assert text.startswith("Tool 'liar' returned a value that does not match its output schema:")
    assert "is not of type 'integer'" in text
    assert wrong.is_error and wrong.structured_content is None
    text = dumped(wrong.content[0])["text"]
    assert text.startswith(
        "Tool 'wrong_shape' returned a value that does not match its output schema:\n"
        "the result: ['caption', {'type': 'image', 'data': 'iVBOR"
    )
    assert text.endswith("… is not of type 'object'")  # the base64 clipped, never all of it
    assert len(text) < 300
    assert failed.is_error and dumped(failed.content[0])["text"] == "no chart for that year"
    image = Image(PNG).to_mcp()
    assert not nested.is_error
    assert nested.structured_content == {"chart": image, "months": 12}
    assert json.loads(dumped(nested.content[0])["text"]) == {"chart": image, "months": 12}
    assert plain.structured_content == {"result": [1, 2, 3]}
    assert [dumped(i) for i in plain.content] == [{"type": "text", "text": "[1,2,3]"}]


# -- another language's client ----------------------------------------------------------------

SERVERS = Path(__file__).parent / "mcp_servers"
SDK = Path(__file__).resolve().parents[2] / ".cache/npm/node_modules/@modelcontextprotocol/sdk"


@pytest.mark.skipif(
    shutil.which("node") is None or not SDK.exists(),
    reason="the MCP TypeScript SDK is not installed: .ci/run installs it into .cache/npm "
    "when npm exists",
)
def test_the_typescript_sdk_reads_the_media_content() -> None:
    done = subprocess.run(
        [
            "node", str(SERVERS / "ts_client.mjs"), sys.executable,
            str(SERVERS / "media_tools.py"), "--", "chart={}", "every_kind={}",
        ],
        env={**os.environ, "SDK": str(SDK)},
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    chart, every_kind = json.loads(done.stdout)["calls"]
    assert chart == {
        "isError": False,
        "content": [{"type": "text", "text": "Sales by month, 2024:"}, Image(PNG).to_mcp()],
        "structuredContent": None,
    }
    # the SDK checked the structured content against the output schema, and kept it
    assert not every_kind["isError"] and "threw" not in every_kind
    for item, kind in zip(every_kind["content"][1:8], KINDS, strict=True):
        check_kind(item, kind)
    assert every_kind["structuredContent"]["result"][1] == Image(PNG).to_mcp()

"""The built-ins through every entry point of a registry (the chain suite's, sync and
async faces, MCP in memory and over HTTP, a proxy): the same answers everywhere.

One chain per entry point, three calls of ``add``: a retry past a flaky step, an answer
from the cache, a refusal past the rate.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_middleware_chain import ENTRY_POINTS, Log

from tooldeck import Call, ToolResult
from tooldeck.middleware import Cache, ConcurrencyLimit, LimitOutput, RateLimit, Retry

pytestmark = pytest.mark.timeout(60)

# A real 1x1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201e3a7b8f90000000049454e44ae426082"
)


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=[entry[0] for entry in ENTRY_POINTS])
def test_the_built_ins_answer_alike_on_every_entry_point(entry: Any) -> None:
    log = Log()
    failures = [ConnectionError("reset")]

    def flaky_once(call: Call, call_next: Any) -> ToolResult:
        log.events.append("flaky")
        if failures:
            raise failures.pop()
        result: ToolResult = call_next(call)
        return result

    chain = [
        RateLimit(2, per=3600),
        Cache(60, tools="add"),
        Retry(2, backoff=0, retry_on=ConnectionError),
        flaky_once,
        ConcurrencyLimit(1),
        LimitOutput(64),
    ]
    _, make, face, _ = entry
    with make(log, chain) as registry:
        assert face(registry, {"a": 1, "b": 2}) == (True, "3")  # retried once
        assert log.events == ["flaky", "flaky", "tool"]
        assert face(registry, {"a": 1, "b": 2}) == (True, "3")  # from the cache
        assert log.tool_runs == 1
        success, text = face(registry, {"a": 5})
        assert not success
        assert text.startswith(
            "Error: Rate limit reached for tool 'add' (2 calls per 3600 seconds): try again in"
        )
        assert log.tool_runs == 1


async def test_limit_output_over_mcp_serves_the_cut_text_or_says_why_it_cannot() -> None:
    from fastmcp import Client

    from tooldeck import Image, ToolRegistry

    registry = ToolRegistry(middleware=[LimitOutput(100)])

    @registry.tool
    def text(n: int) -> str:
        return "x" * n

    @registry.tool
    def untyped(n: int):  # type: ignore[no-untyped-def]  # no output schema
        return list(range(n))

    @registry.tool
    def rows(n: int) -> list[int]:  # an array: a cut text would break its schema
        return list(range(n))

    @registry.tool
    def parts(n: int) -> list[Any]:  # media: the parts that fit, then the notice
        return ["y" * n, Image(PNG), "z" * n]

    async with Client(registry.as_mcp_server()) as client:
        for name in ("text", "untyped"):
            served = await client.call_tool(name, {"n": 200}, raise_on_error=False)
            assert not served.is_error
            assert served.content[0].text == registry.call_tool(name, {"n": 200})  # type: ignore[union-attr]
            assert len(served.content[0].text) == 100  # type: ignore[union-attr]
        served = await client.call_tool("rows", {"n": 200}, raise_on_error=False)
        assert served.is_error
        assert served.content[0].text == (  # type: ignore[union-attr]
            "An answer of 890 characters, over 100: its output schema admits no cut text"
        )
        served = await client.call_tool("parts", {"n": 38}, raise_on_error=False)
        assert not served.is_error
        assert [getattr(item, "text", item.type) for item in served.content] == [
            "y" * 38,
            "image",
            "z",
            "[… cut: 106 characters in all]",
        ]
        fits = await client.call_tool("rows", {"n": 5}, raise_on_error=False)
        assert fits.structured_content == {"result": [0, 1, 2, 3, 4]}
    cut = registry.call_tool("rows", {"n": 200})  # elsewhere the cut text, as for any tool
    assert isinstance(cut, str) and len(cut) == 100

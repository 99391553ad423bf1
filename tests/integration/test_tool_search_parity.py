"""``search_tools`` on a par with every other call: the registry's middleware sees it
(a conversation's `tool_search` helper, sync and async, and a server served with
``defer=``), ``approve=`` and ``prepare_tool_calls`` work beside it, and ``strict=``
gives the export's strict transform."""

from __future__ import annotations

from typing import Any

import pytest

from tool_call_replies import Call, answered, gemini_response, openai_completion
from tooldeck import Call as ToolCall
from tooldeck import ToolRegistry, ToolResult
from tooldeck.middleware import LimitOutput, RateLimit

pytestmark = pytest.mark.timeout(30)

SEARCH = Call("c_search", "search_tools", {"query": "convert money between currencies"})
TIME = Call("c_time", "get_time", {"zone": "CET"})


def _registry(*middleware: Any) -> ToolRegistry:
    registry = ToolRegistry(middleware=list(middleware))

    @registry.tool(tags=["core"])
    def get_time(zone: str = "UTC") -> str:
        """The current time in a time zone."""
        return f"12:00 {zone}"

    @registry.tool(tags=["finance"])
    def convert_currency(amount: float, to: str) -> float:
        """Convert an amount of money from one currency to another."""
        return amount * 2

    @registry.tool(tags=["finance"])
    def stock_price(ticker: str) -> float:
        """The latest price of a company's stock."""
        return 1.5

    return registry


class Seen:
    """A middleware recording what it sees, sync or async."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, Any, str, bool]] = []

    def sync(self, call: ToolCall, call_next: Any) -> ToolResult:
        result: ToolResult = call_next(call)
        self.calls.append((call.name, call.call_id, call.format, call.source, result.success))
        return result

    async def asynchronous(self, call: ToolCall, call_next: Any) -> ToolResult:
        result: ToolResult = await call_next(call)
        self.calls.append((call.name, call.call_id, call.format, call.source, result.success))
        return result


# -- 1. middleware ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sync", "asynchronous"])
@pytest.mark.parametrize("face", ["sync", "async"])
@pytest.mark.parametrize("calls", [[SEARCH], [TIME, SEARCH]], ids=["alone", "beside"])
async def test_middleware_sees_a_search_tools_call(kind: str, face: str, calls: Any) -> None:
    seen = Seen()
    registry = _registry(getattr(seen, kind))
    search = registry.tool_search("openai", defer="finance")
    reply = openai_completion(calls)
    if face == "sync":
        answers = search.run_tool_calls(reply)
    else:
        answers = await search.async_run_tool_calls(reply)
    assert "- convert_currency" in answered("openai", answers)[-1][1]
    assert search.loaded == ["convert_currency"]
    expected = {(c.name, c.id, "openai", "tool_calls", True) for c in calls}
    assert set(seen.calls) == expected


async def test_limits_and_output_limits_apply_to_search_tools() -> None:
    registry = _registry(RateLimit(1, per=3600), LimitOutput(64))
    search = registry.tool_search("gemini", defer="finance")
    first = answered("gemini", search.run_tool_calls(gemini_response([SEARCH])))[0]
    assert len(first[1]["output"]) <= 64 and "Tools found" in first[1]["output"]
    (second,) = answered("gemini", await search.async_run_tool_calls(gemini_response([SEARCH])))
    assert second[2] is True and "try again" in second[1]["error"].lower()


def test_middleware_selecting_tools_by_name_or_tag_sees_search_tools_by_its_name() -> None:
    named, tagged = Seen(), Seen()
    registry = _registry()
    registry.add_middleware(_only(named.sync, names={"search_tools"}))
    registry.add_middleware(_only(tagged.sync, tags={"finance"}))
    search = registry.tool_search("openai", defer="finance")
    search.run_tool_calls(openai_completion([SEARCH, TIME]))
    assert [c[0] for c in named.calls] == ["search_tools"]
    assert tagged.calls == []  # search_tools carries no tag
    # The built-ins select it the same way: by its name, never by a tag.
    limited = _registry(RateLimit(1, per=3600, tags="finance"))
    search = limited.tool_search("openai", defer="finance")
    for _ in range(2):
        text = answered("openai", search.run_tool_calls(openai_completion([SEARCH])))[0][1]
        assert text.startswith("Tools found")


def _only(mw: Any, names: set[str] = frozenset(), tags: set[str] = frozenset()) -> Any:  # type: ignore[assignment]
    def select(call: ToolCall, call_next: Any) -> ToolResult:
        if call.name in names or tags & set(call.tool.tags):
            return mw(call, call_next)  # type: ignore[no-any-return]
        return call_next(call)  # type: ignore[no-any-return]

    return select


@pytest.mark.parametrize("kind", ["sync", "asynchronous"])
async def test_a_served_search_tools_goes_through_the_middleware(kind: str) -> None:
    from fastmcp import Client

    seen = Seen()
    registry = _registry(getattr(seen, kind), LimitOutput(64))
    async with Client(registry.as_mcp_server(defer="finance")) as client:
        found = await client.call_tool("search_tools", {"query": "convert currency"})
    text = found.content[0].text  # type: ignore[union-attr]
    assert len(text) <= 64 and text.startswith("Tools found")
    assert seen.calls == [("search_tools", None, None, "mcp", True)]


async def test_a_served_search_tools_is_rate_limited() -> None:
    from fastmcp import Client

    registry = _registry(RateLimit(1, per=3600))
    async with Client(registry.as_mcp_server(defer="finance")) as client:
        await client.call_tool("search_tools", {"query": "currency"})
        again = await client.call_tool("search_tools", {"query": "currency"}, raise_on_error=False)
    assert again.is_error


def test_a_search_tools_call_has_its_span() -> None:
    from otel_spans import Spans

    spans = Spans()
    registry = _registry(spans.middleware())
    search = registry.tool_search("openai", defer="finance")
    search.run_tool_calls(openai_completion([SEARCH]))
    span = spans.one("execute_tool search_tools")
    assert span.attributes["gen_ai.tool.call.id"] == "c_search"


# -- 2. approval ----------------------------------------------------------------------------

WIRE = Call("c_wire", "wire_money", {"amount": 5})


def _gated(ran: list[str]) -> ToolRegistry:
    registry = _registry()

    @registry.tool(requires_approval=True)
    def wire_money(amount: float) -> str:
        """Send money."""
        ran.append("wire")
        return "sent"

    return registry


@pytest.mark.parametrize("face", ["sync", "async"])
async def test_approve_decides_a_call_beside_a_search(face: str) -> None:
    ran: list[str] = []
    asked: list[str] = []
    search = _gated(ran).tool_search("openai", defer="finance")
    reply = openai_completion([SEARCH, WIRE])

    async def run(approve: Any) -> list[Any]:
        if face == "sync":
            return answered("openai", search.run_tool_calls(reply, approve=approve))
        return answered("openai", await search.async_run_tool_calls(reply, approve=approve))

    def yes(call: Any) -> bool:
        asked.append(call.name)
        return True

    answers = await run(yes)
    assert asked == ["wire_money"] and ran == ["wire"]
    assert answers[1] == ("c_wire", "sent", False)
    assert "- convert_currency" in answers[0][1] and search.loaded == ["convert_currency"]
    answers = await run(lambda call: "not today")
    assert answers[1] == ("c_wire", "Error: not today", True) and ran == ["wire"]
    assert answers[0][1].startswith("Tools found")


@pytest.mark.parametrize("face", ["sync", "async"])
async def test_a_prepared_batch_answers_search_tools_from_the_conversation(face: str) -> None:
    ran: list[str] = []
    seen = Seen()
    registry = _gated(ran)
    registry.add_middleware(seen.sync)
    search = registry.tool_search("openai", defer="finance")
    batch = search.prepare_tool_calls(openai_completion([SEARCH, WIRE, TIME]))
    assert [c.status for c in batch.calls] == ["ready", "pending", "ready"]
    # The decision may wait: the batch goes through its text form and back.
    batch = search.load_tool_calls(batch.to_json(key=b"k"), key=b"k")
    batch.approve("c_wire")
    answers = answered("openai", batch.run() if face == "sync" else await batch.arun())
    assert answers[0][1].startswith("Tools found") and "- convert_currency" in answers[0][1]
    assert answers[1:] == [("c_wire", "sent", False), ("c_time", "12:00 CET", False)]
    assert ran == ["wire"] and search.loaded == ["convert_currency"]
    assert sorted(c[0] for c in seen.calls) == ["get_time", "search_tools", "wire_money"]


def test_a_prepared_batch_without_calls_answers_nothing() -> None:
    search = _registry().tool_search("openai", defer="finance")
    batch = search.prepare_tool_calls({"role": "assistant", "content": "hi"})
    assert batch.calls == () and batch.run() == []


# -- 3. strict ------------------------------------------------------------------------------


def _check_sdk_type(fmt: str, exported: dict[str, Any]) -> None:
    """The provider SDK's own type for a tool definition accepts ``exported``."""
    from pydantic import TypeAdapter

    if fmt == "openai":
        from openai.types.chat import ChatCompletionToolParam

        TypeAdapter(ChatCompletionToolParam).validate_python(exported)
    elif fmt == "openai-responses":
        from openai.types.responses import FunctionToolParam

        TypeAdapter(FunctionToolParam).validate_python(exported)
    elif fmt == "anthropic":
        from anthropic.types import ToolParam

        TypeAdapter(ToolParam).validate_python(exported)
    else:
        from google.genai import types as genai

        genai.FunctionDeclaration.model_validate(exported)  # extra="forbid": no stray keys


@pytest.mark.parametrize("strict", [False, True, "best-effort"])
@pytest.mark.parametrize("fmt", ["openai", "openai-responses", "anthropic", "gemini"])
def test_tools_are_exported_as_export_exports_them(fmt: str, strict: Any) -> None:
    registry = _registry()
    search = registry.tool_search(fmt, defer="finance", strict=strict)
    search.find("convert currency")
    expected = [
        registry.export(fmt, strict=strict, tags="core")[0],
        _search_declaration(registry, fmt, strict),
        registry.export(fmt, strict=strict, tags="finance")[0],  # convert_currency
    ]
    assert search.tools == expected
    for exported in search.tools:
        _check_sdk_type(fmt, exported)
    if strict is True and fmt in ("openai", "openai-responses"):
        get_time = search.tools[0]
        params = get_time["parameters"] if fmt != "openai" else get_time["function"]["parameters"]
        assert params["required"] == ["zone"]  # strict: every parameter required, nullable


def _search_declaration(registry: ToolRegistry, fmt: str, strict: Any) -> Any:
    """``search_tools`` as ``export(fmt, defer=..., strict=...)`` adds it (the formats with
    a native search add that instead: the declaration's own export, then)."""
    if fmt in ("openai", "gemini"):
        return registry.export(fmt, strict=strict, defer="finance")[-1]
    from tooldeck.search._defer import search_tool

    return search_tool().export(fmt, strict=strict is not False)


def test_a_tool_that_cannot_be_strict_is_refused_or_sent_loose_as_export_does() -> None:
    from tooldeck.errors import ToolDefinitionError

    registry = _registry()

    @registry.tool(tags=["finance"])
    def book_trade(order: dict[str, Any]) -> str:
        """Book a trade order on the stock exchange."""
        return "booked"

    strict = registry.tool_search("openai", defer="finance", strict=True)
    assert [t["function"]["name"] for t in strict.tools] == ["get_time", "search_tools"]
    strict.find("book a trade order")
    with pytest.raises(ToolDefinitionError) as refused:
        strict.tools  # noqa: B018
    assert refused.value.tool == "book_trade"
    loose = registry.tool_search("openai", defer="finance", strict="best-effort")
    loose.find("book a trade order")
    with pytest.warns(UserWarning, match="book_trade"):
        tools = loose.tools
    assert tools[-1] == registry.get("book_trade").export("openai")  # type: ignore[union-attr]
    assert tools[0]["function"]["strict"] is True
    with pytest.raises(ValueError, match="strict"):
        registry.tool_search("openai", strict="yes")  # type: ignore[arg-type]

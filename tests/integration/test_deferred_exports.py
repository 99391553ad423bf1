"""``export(fmt, defer=...)``: each provider's deferred loading, checked against its SDK's
request types; without ``defer``, exports exactly as before."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry
from tooldeck.errors import ToolNotFoundError
from tooldeck.exporters import FORMATS

ALL_FORMATS = (*FORMATS, "agently")


def _catalog() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(tags=["money"])
    def convert_currency(amount: float, source: str, target: str) -> float:
        """Convert an amount of money from one currency to another.

        Args:
            amount: How much money.
            source: The currency code to convert from, like EUR.
            target: The currency code to convert to.
        """
        return amount

    @registry.tool(tags=["money"])
    def stock_price(ticker: str) -> float:
        """The latest price of a company's stock."""
        return 1.0

    @registry.tool
    def get_time(zone: str = "UTC") -> str:
        """The current time in a time zone."""
        return zone

    @registry.tool(tags=["money"])
    def disabled_loan(amount: float) -> float:
        """A loan calculator that is switched off."""
        return amount

    registry.disable("disabled_loan")
    return registry


def _name(fmt: str, entry: dict[str, Any]) -> str | None:
    if fmt == "openai":
        return entry["function"]["name"]  # type: ignore[no-any-return]
    return entry.get("name")


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_without_defer_the_export_is_exactly_as_today(fmt: str) -> None:
    registry = _catalog()
    plain = copy.deepcopy(registry.export(fmt))
    assert [_name(fmt, e) for e in plain] == ["convert_currency", "stock_price", "get_time"]
    for none in (None, False, [], "no-such-tag"):
        assert registry.export(fmt, defer=none) == plain
    assert registry.export(fmt, tags="money", defer=["get_time"]) == registry.export(
        fmt, tags="money"
    )


def test_anthropic_marks_deferred_tools_and_adds_its_search_tool() -> None:
    import anthropic.types
    from pydantic import TypeAdapter

    registry = _catalog()
    exported = registry.export("anthropic", defer="money")
    search = TypeAdapter(anthropic.types.ToolSearchToolBm25_20251119Param)
    search.validate_python(exported[-1])
    assert exported[-1] == {
        "type": "tool_search_tool_bm25_20251119",
        "name": "tool_search_tool_bm25",
    }
    flags = {e["name"]: e.get("defer_loading") for e in exported[:-1]}
    assert flags == {"convert_currency": True, "stock_price": True, "get_time": None}
    tool_param = TypeAdapter(anthropic.types.ToolParam)
    plain = registry.export("anthropic")
    for entry, before in zip(exported[:-1], plain, strict=True):
        tool_param.validate_python(entry)
        assert {k: v for k, v in entry.items() if k != "defer_loading"} == before


def test_openai_responses_marks_deferred_tools_and_adds_tool_search() -> None:
    from openai.types.responses import FunctionToolParam, ToolSearchToolParam
    from pydantic import TypeAdapter

    registry = _catalog()
    exported = registry.export("openai-responses", defer=True, strict=True)
    TypeAdapter(ToolSearchToolParam).validate_python(exported[-1])
    assert exported[-1] == {"type": "tool_search"}
    function = TypeAdapter(FunctionToolParam)
    for entry in exported[:-1]:
        function.validate_python(entry)
        assert entry["defer_loading"] is True
        assert entry["strict"] is True
    assert [e["name"] for e in exported[:-1]] == ["convert_currency", "stock_price", "get_time"]


@pytest.mark.parametrize("fmt", ["openai", "gemini", "mcp", "agently"])
def test_formats_without_native_search_leave_deferred_out_and_add_search_tools(
    fmt: str,
) -> None:
    registry = _catalog()
    exported = registry.export(fmt, defer=["stock_price", "convert_currency"])
    assert [_name(fmt, e) for e in exported] == ["get_time", "search_tools"]
    assert exported[0] == registry.export(fmt)[2]
    if fmt == "openai":
        from openai.types.chat import ChatCompletionToolParam
        from pydantic import TypeAdapter

        TypeAdapter(list[ChatCompletionToolParam]).validate_python(exported)
        parameters = exported[1]["function"]["parameters"]
        assert parameters["required"] == ["query"]
    elif fmt == "gemini":
        from google.genai import types as genai

        for entry in exported:
            genai.FunctionDeclaration.model_validate(entry)
    elif fmt == "mcp":
        import mcp.types

        for entry in exported:
            mcp.types.Tool.model_validate(entry)


def test_defer_refuses_what_it_cannot_read() -> None:
    registry = _catalog()
    with pytest.raises(ToolNotFoundError):
        registry.export("openai", defer=["no_such_tool"])
    with pytest.raises(TypeError):
        registry.export("openai", defer=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        registry.export("openai", defer=[1])  # type: ignore[list-item]


def test_a_tool_named_search_tools_clashes_with_the_added_one() -> None:
    registry = _catalog()

    @registry.tool
    def search_tools(query: str) -> str:
        """Mine."""
        return query

    with pytest.raises(ValueError, match="search_tools"):
        registry.export("openai", defer=["get_time"])
    # Native search adds no function of that name: no clash there.
    assert registry.export("anthropic", defer=["get_time"])[-1]["type"].startswith("tool_search")


def test_the_deferred_export_follows_the_catalog() -> None:
    registry = _catalog()
    first = registry.export("openai", defer="money")
    registry.tag("get_time", "money")
    assert [_name("openai", e) for e in first] == ["get_time", "search_tools"]
    after = registry.export("openai", defer="money")
    assert [_name("openai", e) for e in after] == ["search_tools"]
    registry.enable("disabled_loan")
    names = [_name("anthropic", e) for e in registry.export("anthropic", defer=["get_time"])]
    assert names == [
        "convert_currency",
        "stock_price",
        "get_time",
        "disabled_loan",
        "tool_search_tool_bm25",
    ]


@settings(max_examples=40, deadline=None)
@given(
    deferred=st.sets(st.sampled_from(["convert_currency", "stock_price", "get_time"])),
    fmt=st.sampled_from(ALL_FORMATS),
)
def test_deferring_any_subset_keeps_every_other_tool_as_it_was(
    deferred: set[str], fmt: str
) -> None:
    registry = _catalog()
    plain = {_name(fmt, e): e for e in registry.export(fmt)}
    exported = registry.export(fmt, defer=sorted(deferred))
    if not deferred:
        assert exported == list(plain.values())
        return
    if fmt in ("anthropic", "openai-responses"):
        body = exported[:-1]
        assert [_name(fmt, e) for e in body] == list(plain)
        for entry in body:
            name = _name(fmt, entry)
            assert entry.get("defer_loading") is (True if name in deferred else None)
            assert {k: v for k, v in entry.items() if k != "defer_loading"} == plain[name]
    else:
        kept = [name for name in plain if name not in deferred]
        assert [_name(fmt, e) for e in exported] == [*kept, "search_tools"]
        assert exported[:-1] == [plain[name] for name in kept]

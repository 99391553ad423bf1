"""``registry.tool_search(fmt, defer=...)``: a scripted loop per format without native
search (Chat Completions, Gemini), with the real SDK clients against a scripted model
on 127.0.0.1: the model calls ``search_tools``, the next request's ``tools`` holds what
was found, the model calls it, the call runs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted_model import ScriptedModel

from tool_call_replies import Call, answered, gemini_response, openai_completion
from tooldeck import ToolRegistry

FINAL = "100 EUR is 108 USD."
SEARCH = Call("call_search", "search_tools", {"query": "convert money between currencies"})
CONVERT = Call("call_convert", "convert_currency", {"amount": 100, "source": "EUR", "to": "USD"})


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(tags=["core"])
    def get_time(zone: str = "UTC") -> str:
        """The current time in a time zone."""
        return f"12:00 {zone}"

    @registry.tool(tags=["finance"])
    def convert_currency(amount: float, source: str, to: str) -> float:
        """Convert an amount of money from one currency to another.

        Args:
            amount: How much money.
            source: The currency to convert from (EUR).
            to: The currency to convert to (USD).
        """
        return amount * 1.08

    @registry.tool(tags=["finance"])
    def stock_price(ticker: str) -> float:
        """The latest price of a company's stock on the exchange."""
        return 1.0

    @registry.tool(tags=["home"])
    def set_thermostat(degrees: float) -> str:
        """Set the home thermostat's target temperature."""
        return "ok"

    return registry


def _chat_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body["tools"]]


def _gemini_names(body: dict[str, Any]) -> list[str]:
    (tool,) = body["tools"]
    return [d["name"] for d in tool["functionDeclarations"]]


def _turns(names: Any, last_result: Any, respond: Any) -> list[Any]:
    def first(body: dict[str, Any]) -> None:
        assert names(body) == ["get_time", "search_tools"]

    def second(body: dict[str, Any]) -> None:
        assert names(body) == ["get_time", "search_tools", "convert_currency"]
        assert "convert_currency" in last_result(body)

    def third(body: dict[str, Any]) -> None:
        assert names(body) == ["get_time", "search_tools", "convert_currency"]
        assert last_result(body) == "108.0"

    final = respond([])
    return [(first, respond([SEARCH])), (second, respond([CONVERT])), (third, final)]


@pytest.mark.timeout(60)
def test_chat_completions_finds_a_deferred_tool_then_calls_it() -> None:
    import openai

    def last_result(body: dict[str, Any]) -> str:
        message = body["messages"][-1]
        assert message["role"] == "tool"
        return message["content"]  # type: ignore[no-any-return]

    def respond(calls: list[Call]) -> dict[str, Any]:
        reply = openai_completion(calls)
        if not calls:
            reply["choices"][0]["message"]["content"] = FINAL
        return reply

    registry = _registry()
    search = registry.tool_search("openai", defer=["convert_currency", "stock_price",
                                                   "set_thermostat"])  # fmt: skip
    with ScriptedModel(_turns(_chat_names, last_result, respond)) as model:
        client = openai.OpenAI(api_key="sk-test", base_url=f"{model.url}/v1", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "100 EUR in USD?"}]
        while True:
            reply = client.chat.completions.create(
                model="gpt-4.1", messages=messages, tools=search.tools
            )
            messages.append(reply.choices[0].message)
            results = search.run_tool_calls(reply)
            if not results:
                break
            messages += results
    assert model.problems == [] and len(model.requests) == 3
    assert reply.choices[0].message.content == FINAL
    assert search.loaded[0] == "convert_currency"


@pytest.mark.timeout(60)
async def test_gemini_finds_a_deferred_tool_then_calls_it() -> None:
    from google import genai
    from google.genai import types

    def last_result(body: dict[str, Any]) -> str:
        (part,) = body["contents"][-1]["parts"]
        response = part["functionResponse"]["response"]
        return str(response["output"])

    def respond(calls: list[Call]) -> dict[str, Any]:
        reply = gemini_response(calls)
        if not calls:
            reply["candidates"][0]["content"]["parts"] = [{"text": FINAL}]
        return reply

    registry = _registry()
    search = registry.tool_search("gemini", defer="finance")
    registry.tag("set_thermostat", "finance")  # deferred too, found or not: never shown
    with ScriptedModel(_turns(_gemini_names, last_result, respond)) as model:
        client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=model.url))
        contents: list[Any] = [types.Content(role="user", parts=[types.Part(text="100 EUR?")])]
        while True:
            config = types.GenerateContentConfig(
                tools=[types.Tool(function_declarations=search.tools)]
            )
            response = await client.aio.models.generate_content(
                model="gemini-2.5-flash", contents=contents, config=config
            )
            results = await search.async_run_tool_calls(response)
            if not results:
                break
            contents += [response.candidates[0].content, *results]  # type: ignore[index]
    assert model.problems == [] and len(model.requests) == 3
    assert response.text == FINAL


def test_a_turn_mixing_search_and_other_calls_answers_each_in_order() -> None:
    registry = _registry()
    search = registry.tool_search("openai", defer="finance", k=1)
    calls = [
        Call("c1", "get_time", {"zone": "CET"}),
        SEARCH,
        Call("c3", "search_tools", {"q": "oops"}),
        Call("c4", "search_tools", "not json"),
        Call("c5", "search_tools", {"query": "zzzz qqqq"}),
    ]
    answers = answered("openai", search.run_tool_calls(openai_completion(calls)))
    assert [a[0] for a in answers] == ["c1", "call_search", "c3", "c4", "c5"]
    assert answers[0][1] == "12:00 CET"
    assert "- convert_currency: Convert an amount" in answers[1][1]
    assert "stock_price" not in answers[1][1]  # k=1
    for _, text, _ in answers[2:4]:  # the pipeline's words, as for any tool's call
        assert text.startswith("Error: Invalid arguments for tool 'search_tools':")
    assert "query: missing required argument" in answers[2][1]
    assert answers[4][1].startswith("No tool matches")
    assert search.loaded == ["convert_currency"]
    names = [t["function"]["name"] for t in search.tools]
    assert names == ["get_time", "set_thermostat", "search_tools", "convert_currency"]


async def test_a_tool_that_needs_approval_never_runs_beside_a_search() -> None:
    # A turn with search_tools cannot ask anyone: such a call is answered as
    # run_tool_calls answers it without approve=, on both faces, and does not run.
    registry = _registry()
    ran: list[str] = []

    @registry.tool(requires_approval=True)
    def wire_money(amount: float) -> str:
        ran.append("wire")
        return "sent"

    search = registry.tool_search("openai", defer="finance")
    reply = openai_completion([SEARCH, Call("c2", "wire_money", {"amount": 5})])
    for answers in (
        search.run_tool_calls(reply),
        await search.async_run_tool_calls(reply),
        registry.run_tool_calls(openai_completion([Call("c2", "wire_money", {"amount": 5})])),
    ):
        assert answered("openai", answers)[-1][:2] == (
            "c2",
            "Error: Tool 'wire_money' needs approval",
        )
    assert ran == []


async def test_the_async_twin_answers_like_the_sync_one() -> None:
    registry = _registry()
    one = registry.tool_search("anthropic", defer=True)
    two = registry.tool_search("anthropic", defer=True)
    from tool_call_replies import anthropic_message

    reply = anthropic_message([SEARCH, Call("c2", "get_time", {"zone": "UTC"})])
    sync = one.run_tool_calls(reply)
    assert await two.async_run_tool_calls(reply) == sync
    assert one.loaded == two.loaded
    assert one.loaded[0] == "convert_currency"
    assert one.tools[0]["name"] == "search_tools"


def test_only_deferred_tools_are_searched_and_found_tools_follow_the_catalog() -> None:
    registry = _registry()
    search = registry.tool_search("openai", defer=["stock_price"], k=5)
    found = search.find("price of a stock, and the time, and currency")
    assert [t.name for t in found] == ["stock_price"]
    registry.disable("stock_price")
    assert "stock_price" not in json.dumps(search.tools)
    registry.enable("stock_price")
    assert [t["function"]["name"] for t in search.tools][-1] == "stock_price"


def test_tool_search_refuses_what_it_cannot_do() -> None:
    registry = _registry()
    with pytest.raises(ValueError):
        registry.tool_search("mcp")
    with pytest.raises(ValueError):
        registry.tool_search("openai", k=0)
    with pytest.raises(ValueError):
        registry.tool_search("openai", defer=False)
    with pytest.raises(LookupError):
        registry.tool_search("openai", defer=["nope"])

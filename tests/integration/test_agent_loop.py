"""The agent loop end to end: each provider's real SDK client against a scripted model.

Turn 1 offers the registry's exported tools and the model asks for three calls at
once: one succeeds, one fails inside the tool, one names a tool that does not exist.
The loop appends the model's turn and ``run_tool_calls``'s answer; the scripted
server checks that turn 2 carries every result, in the provider's own format and in
call order, and answers with text. Sync and async clients alike.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import types
from scripted_model import ScriptedModel

from tool_call_replies import (
    Call,
    anthropic_message,
    gemini_response,
    openai_completion,
    responses_response,
)
from tooldeck import ToolRegistry

pytestmark = pytest.mark.timeout(60)

QUESTION = "Weather in 台北, and what is 1 / 0?"
FINAL = "台北 is 22.5 °C; 1 / 0 has no answer, and I cannot check the stock price."
CALLS = [
    Call("call_weather", "get_weather", {"location": "台北"}),
    Call("call_divide", "divide", {"a": 1, "b": 0}),
    Call("call_ghost", "get_stock_price", {"ticker": "ACME"}),
]
WEATHER = {"location": "台北", "temperature": 22.5}
RESULTS = [  # (id, text, is_error) the next request must carry, in call order
    ("call_weather", json.dumps(WEATHER, ensure_ascii=False), False),
    ("call_divide", "Error: float division by zero", True),
    ("call_ghost", "Error: Tool 'get_stock_price' not found", True),
]


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    async def get_weather(location: str) -> dict[str, Any]:
        """Current weather for a place."""
        await asyncio.sleep(0)
        return {"location": location, "temperature": 22.5}

    @registry.tool
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        return a / b

    return registry


def offers_tools(key: str, expected: list[dict[str, Any]]) -> Any:
    def check(body: dict[str, Any]) -> None:
        assert body[key] == expected

    return check


# -- OpenAI Chat Completions -----------------------------------------------------------------


def chat_turn_2(body: dict[str, Any]) -> None:
    *_, assistant, r1, r2, r3 = body["messages"]
    assert assistant["role"] == "assistant"
    assert [(c["id"], c["function"]["name"]) for c in assistant["tool_calls"]] == [
        (c.id, c.name) for c in CALLS
    ]
    assert [r1, r2, r3] == [
        {"role": "tool", "tool_call_id": i, "content": text} for i, text, _ in RESULTS
    ]


def chat_final() -> dict[str, Any]:
    done = openai_completion([])
    done["choices"][0]["message"]["content"] = FINAL
    return done


@pytest.fixture
def chat_model(registry: ToolRegistry) -> Iterator[ScriptedModel]:
    turns = [
        (offers_tools("tools", registry.get_openai_tools()), openai_completion(CALLS)),
        (chat_turn_2, chat_final()),
    ]
    with ScriptedModel(turns) as model:
        yield model


def test_openai_chat_completions(registry: ToolRegistry, chat_model: ScriptedModel) -> None:
    client = openai.OpenAI(api_key="sk-test", base_url=f"{chat_model.url}/v1", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    tools = registry.get_openai_tools()
    while True:
        reply = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
        messages.append(reply.choices[0].message)
        results = registry.run_tool_calls(reply)
        if not results:
            break
        messages += results
    assert reply.choices[0].message.content == FINAL
    assert chat_model.problems == [] and len(chat_model.requests) == 2


async def test_openai_chat_completions_async(
    registry: ToolRegistry, chat_model: ScriptedModel
) -> None:
    client = openai.AsyncOpenAI(api_key="sk-test", base_url=f"{chat_model.url}/v1", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    tools = registry.get_openai_tools()
    reply = await client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
    while results := await registry.async_run_tool_calls(reply):
        messages += [reply.choices[0].message, *results]
        reply = await client.chat.completions.create(
            model="gpt-4.1", messages=messages, tools=tools
        )
    assert reply.choices[0].message.content == FINAL
    assert chat_model.problems == [] and len(chat_model.requests) == 2


# -- OpenAI Responses ----------------------------------------------------------------------


def responses_turn_2(body: dict[str, Any]) -> None:
    items = body["input"]
    calls = [i for i in items if i.get("type") == "function_call"]
    assert [(c["call_id"], c["name"]) for c in calls] == [(c.id, c.name) for c in CALLS]
    assert any(i.get("type") == "reasoning" for i in items)  # passed back, as required
    assert items[-3:] == [
        {"type": "function_call_output", "call_id": i, "output": text} for i, text, _ in RESULTS
    ]


def responses_final() -> dict[str, Any]:
    done = responses_response([])
    done["output"] = [
        {"type": "message", "id": "msg_6808ba2b", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": FINAL, "annotations": []}]}
    ]  # fmt: skip
    return done


@pytest.fixture
def responses_model(registry: ToolRegistry) -> Iterator[ScriptedModel]:
    turns = [
        (offers_tools("tools", registry.export("openai-responses")), responses_response(CALLS)),
        (responses_turn_2, responses_final()),
    ]
    with ScriptedModel(turns) as model:
        yield model


def test_openai_responses(registry: ToolRegistry, responses_model: ScriptedModel) -> None:
    client = openai.OpenAI(api_key="sk-test", base_url=f"{responses_model.url}/v1", max_retries=0)
    items: list[Any] = [{"role": "user", "content": QUESTION}]
    tools = registry.export("openai-responses")
    response = client.responses.create(model="o4-mini", input=items, tools=tools)
    while results := registry.run_tool_calls(response):
        items += [*response.output, *results]
        response = client.responses.create(model="o4-mini", input=items, tools=tools)
    assert response.output_text == FINAL
    assert responses_model.problems == [] and len(responses_model.requests) == 2


async def test_openai_responses_async(
    registry: ToolRegistry, responses_model: ScriptedModel
) -> None:
    client = openai.AsyncOpenAI(
        api_key="sk-test", base_url=f"{responses_model.url}/v1", max_retries=0
    )
    items: list[Any] = [{"role": "user", "content": QUESTION}]
    tools = registry.export("openai-responses")
    response = await client.responses.create(model="o4-mini", input=items, tools=tools)
    while results := await registry.async_run_tool_calls(response):
        items += [*response.output, *results]
        response = await client.responses.create(model="o4-mini", input=items, tools=tools)
    assert response.output_text == FINAL
    assert responses_model.problems == []


# -- Anthropic Messages ----------------------------------------------------------------------


def anthropic_turn_2(body: dict[str, Any]) -> None:
    *_, assistant, results = body["messages"]
    assert assistant["role"] == "assistant"
    uses = [b for b in assistant["content"] if b["type"] == "tool_use"]
    assert [(b["id"], b["name"]) for b in uses] == [(c.id, c.name) for c in CALLS]
    assert results == {  # every result of the turn in one user message
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": i, "content": text, "is_error": error}
            for i, text, error in RESULTS
        ],
    }


def anthropic_final() -> dict[str, Any]:
    done = anthropic_message([])
    done["content"] = [{"type": "text", "text": FINAL}]
    return done


@pytest.fixture
def anthropic_model(registry: ToolRegistry) -> Iterator[ScriptedModel]:
    turns = [
        (offers_tools("tools", registry.export("anthropic")), anthropic_message(CALLS)),
        (anthropic_turn_2, anthropic_final()),
    ]
    with ScriptedModel(turns) as model:
        yield model


def test_anthropic_messages(registry: ToolRegistry, anthropic_model: ScriptedModel) -> None:
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=anthropic_model.url, max_retries=0)
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    tools = registry.export("anthropic")
    kwargs: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 1024, "tools": tools}
    message = client.messages.create(messages=messages, **kwargs)
    while results := registry.run_tool_calls(message):
        messages += [{"role": "assistant", "content": message.content}, *results]
        message = client.messages.create(messages=messages, **kwargs)
    assert message.content[0].text == FINAL  # type: ignore[union-attr]
    assert anthropic_model.problems == [] and len(anthropic_model.requests) == 2


async def test_anthropic_messages_async(
    registry: ToolRegistry, anthropic_model: ScriptedModel
) -> None:
    client = anthropic.AsyncAnthropic(
        api_key="sk-ant-test", base_url=anthropic_model.url, max_retries=0
    )
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    tools = registry.export("anthropic")
    kwargs: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 1024, "tools": tools}
    message = await client.messages.create(messages=messages, **kwargs)
    while results := await registry.async_run_tool_calls(message):
        messages += [{"role": "assistant", "content": message.content}, *results]
        message = await client.messages.create(messages=messages, **kwargs)
    assert message.content[0].text == FINAL  # type: ignore[union-attr]
    assert anthropic_model.problems == []


# -- Gemini ----------------------------------------------------------------------------------


def gemini_offers_tools(registry: ToolRegistry) -> Any:
    def check(body: dict[str, Any]) -> None:
        (tool,) = body["tools"]
        assert [d["name"] for d in tool["functionDeclarations"]] == ["get_weather", "divide"]

    return check


def gemini_turn_2(body: dict[str, Any]) -> None:
    *_, model_turn, results = body["contents"]
    assert model_turn["role"] == "model"
    calls = [p for p in model_turn["parts"] if "functionCall" in p]
    assert [(p["functionCall"]["id"], p["functionCall"]["name"]) for p in calls] == [
        (c.id, c.name) for c in CALLS
    ]
    assert "thoughtSignature" in calls[0]  # passed back untouched, as Gemini 3 requires
    assert results == {
        "role": "user",
        "parts": [
            {"functionResponse": {"id": "call_weather", "name": "get_weather",
                                  "response": {"output": WEATHER}}},
            {"functionResponse": {"id": "call_divide", "name": "divide",
                                  "response": {"error": "float division by zero"}}},
            {"functionResponse": {"id": "call_ghost", "name": "get_stock_price",
                                  "response": {"error": "Tool 'get_stock_price' not found"}}},
        ],
    }  # fmt: skip


def gemini_final() -> dict[str, Any]:
    done = gemini_response([])
    done["candidates"][0]["content"]["parts"] = [{"text": FINAL}]
    return done


@pytest.fixture
def gemini_model(registry: ToolRegistry) -> Iterator[ScriptedModel]:
    turns = [
        (gemini_offers_tools(registry), gemini_response(CALLS)),
        (gemini_turn_2, gemini_final()),
    ]
    with ScriptedModel(turns) as model:
        yield model


def gemini_client(model: ScriptedModel) -> genai.Client:
    return genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=model.url))


def test_gemini(registry: ToolRegistry, gemini_model: ScriptedModel) -> None:
    client = gemini_client(gemini_model)
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=registry.export("gemini"))]
    )
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=QUESTION)])]
    response = client.models.generate_content(
        model="gemini-2.5-flash", contents=contents, config=config
    )
    while results := registry.run_tool_calls(response):
        contents += [response.candidates[0].content, *results]  # type: ignore[index]
        response = client.models.generate_content(
            model="gemini-2.5-flash", contents=contents, config=config
        )
    assert response.text == FINAL
    assert gemini_model.problems == [] and len(gemini_model.requests) == 2
    assert gemini_model.requests[0][0].endswith("/models/gemini-2.5-flash:generateContent")


async def test_gemini_async(registry: ToolRegistry, gemini_model: ScriptedModel) -> None:
    client = gemini_client(gemini_model)
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=registry.export("gemini"))]
    )
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=QUESTION)])]
    response = await client.aio.models.generate_content(
        model="gemini-2.5-flash", contents=contents, config=config
    )
    while results := await registry.async_run_tool_calls(response):
        contents += [response.candidates[0].content, *results]  # type: ignore[index]
        response = await client.aio.models.generate_content(
            model="gemini-2.5-flash", contents=contents, config=config
        )
    assert response.text == FINAL
    assert gemini_model.problems == []


# -- the server really checks ----------------------------------------------------------------


def test_a_wrong_answer_is_refused_by_the_scripted_model(registry: ToolRegistry) -> None:
    turns = [(None, anthropic_message(CALLS)), (anthropic_turn_2, anthropic_final())]
    with ScriptedModel(turns) as model:
        client = anthropic.Anthropic(api_key="sk-ant-test", base_url=model.url, max_retries=0)
        messages: list[Any] = [{"role": "user", "content": QUESTION}]
        kwargs: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 1024}
        message = client.messages.create(messages=messages, **kwargs)
        # Results split over one message per call: what Anthropic advises against.
        split = [
            {"role": "user", "content": [block]}
            for block in registry.run_tool_calls(message)[0]["content"]
        ]
        messages += [{"role": "assistant", "content": message.content}, *split]
        with pytest.raises(anthropic.BadRequestError):
            client.messages.create(messages=messages, **kwargs)
    assert len(model.problems) == 1

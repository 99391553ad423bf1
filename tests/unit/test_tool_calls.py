"""Reading a model's tool calls and writing the answer, for every provider and level.

Replies are built from the JSON each provider documents, as the SDK's own response
objects and as wire dicts (`tool_call_replies`). Every answer is checked against the
SDK's request-side types — what the next request must carry — and must survive
``json.dumps``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import math
from typing import Any, Literal

import anthropic.types
import pytest
from google.genai import types as genai
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolMessageParam
from openai.types.responses import ResponseInputParam
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import BaseModel, TypeAdapter

from tool_call_replies import (
    FORMATS,
    Call,
    answered,
    anthropic_message,
    gemini_response,
    levels,
    openai_completion,
    responses_response,
    sdk_reply,
)
from tooldeck import ToolRegistry, _registry
from tooldeck._tool_calls import detect_format, read_tool_calls
from tooldeck.providers._shared import to_json_value

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def tools() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def get_weather(location: str, unit: Literal["c", "f"] = "c") -> dict[str, Any]:
        """Current weather for a place."""
        return {"location": location, "temperature": 22.5, "unit": unit}

    @registry.tool
    async def get_time(timezone: str) -> str:
        """The time in a timezone."""
        await asyncio.sleep(0)
        return f"12:00 in {timezone}"

    @registry.tool
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        return a / b

    @registry.tool(enabled=False)
    def retired() -> str:
        """No longer offered."""
        return "never"

    @registry.tool(timeout=0.05)
    async def stuck() -> str:
        """Never answers in time."""
        await asyncio.sleep(5)
        return "late"

    return registry


# Calls of one turn: a success, a failure of the tool, a tool the model made up.
MIXED = [
    Call("call_weather", "get_weather", {"location": "台北", "unit": "c"}),
    Call("call_divide", "divide", {"a": 1, "b": 0}),
    Call("call_ghost", "get_stock_price", {"ticker": "ACME"}),
]
EXPECTED_TEXT = [
    ("call_weather", '{"location": "台北", "temperature": 22.5, "unit": "c"}', False),
    ("call_divide", "Error: float division by zero", True),
    ("call_ghost", "Error: Tool 'get_stock_price' not found", True),
]
EXPECTED_GEMINI = [
    ("call_weather", {"output": {"location": "台北", "temperature": 22.5, "unit": "c"}}, False),
    ("call_divide", {"error": "float division by zero"}, True),
    ("call_ghost", {"error": "Tool 'get_stock_price' not found"}, True),
]

LEVELS = [(fmt, level) for fmt in FORMATS for level in levels(fmt, MIXED)]


# -- the SDKs' request-side types ---------------------------------------------------------


# Module-level: a TypeAdapter must outlive the lazy iterators its validation returns.
CHAT_TOOL_MESSAGE = TypeAdapter(ChatCompletionToolMessageParam)
CHAT_MESSAGES = TypeAdapter(list[ChatCompletionMessageParam])
FUNCTION_CALL_OUTPUT = TypeAdapter(FunctionCallOutput)
RESPONSES_INPUT = TypeAdapter(ResponseInputParam)
TOOL_RESULT_BLOCK = TypeAdapter(anthropic.types.ToolResultBlockParam)
ANTHROPIC_MESSAGE = TypeAdapter(anthropic.types.MessageParam)


def _keys_of(typed_dict: Any) -> frozenset[str]:
    return frozenset(typed_dict.__required_keys__ | typed_dict.__optional_keys__)


def check_request_types(fmt: str, answer: list[dict[str, Any]]) -> None:
    """``answer`` is what the provider's SDK takes as the next request's input."""
    assert json.loads(json.dumps(answer, ensure_ascii=False)) == answer  # plain JSON data
    if fmt == "openai":
        for message in answer:
            assert set(message) == {"role", "tool_call_id", "content"}
            assert set(message) <= _keys_of(ChatCompletionToolMessageParam)
            CHAT_TOOL_MESSAGE.validate_python(message, strict=True)
        CHAT_MESSAGES.validate_python(answer, strict=True)
    elif fmt == "openai-responses":
        for item in answer:
            assert set(item) == {"type", "call_id", "output"}
            assert set(item) <= _keys_of(FunctionCallOutput)
            FUNCTION_CALL_OUTPUT.validate_python(item, strict=True)
        RESPONSES_INPUT.validate_python(answer, strict=True)
    elif fmt == "anthropic":
        (message,) = answer  # every result of the turn in one user message
        assert set(message) == {"role", "content"} and message["role"] == "user"
        for block in message["content"]:
            assert set(block) == {"type", "tool_use_id", "content", "is_error"}
            assert set(block) <= _keys_of(anthropic.types.ToolResultBlockParam)
            TOOL_RESULT_BLOCK.validate_python(block, strict=True)
        validated = ANTHROPIC_MESSAGE.validate_python(message, strict=True)
        assert len(list(validated["content"])) == len(message["content"])
    else:
        (content,) = answer
        parsed = genai.Content.model_validate(content)  # extra="forbid": no stray keys
        assert parsed.role == "user"
        assert parsed.parts is not None and len(parsed.parts) == len(content["parts"])
        for part, raw in zip(parsed.parts, content["parts"], strict=True):
            assert part.function_response is not None
            assert part.function_response.name == raw["function_response"]["name"]
            assert part.function_response.response == raw["function_response"]["response"]


# -- every provider, every level, SDK objects and wire dicts --------------------------------


@pytest.mark.parametrize(("fmt", "level"), LEVELS, ids=[f"{f}: {lv}" for f, lv in LEVELS])
def test_every_level_of_every_reply_is_answered_in_its_format(
    tools: ToolRegistry, fmt: str, level: str
) -> None:
    reply = levels(fmt, MIXED)[level]
    answer = tools.run_tool_calls(reply)
    check_request_types(fmt, answer)
    assert answered(fmt, answer) == (EXPECTED_GEMINI if fmt == "gemini" else EXPECTED_TEXT)
    assert detect_format(reply) == fmt
    assert tools.run_tool_calls(reply, format=fmt) == answer


@pytest.mark.parametrize(("fmt", "level"), LEVELS, ids=[f"{f}: {lv}" for f, lv in LEVELS])
async def test_the_async_twin_answers_the_same(tools: ToolRegistry, fmt: str, level: str) -> None:
    reply = levels(fmt, MIXED)[level]
    assert await tools.async_run_tool_calls(reply) == tools.run_tool_calls(reply)


def test_the_answers_shapes_exactly(tools: ToolRegistry) -> None:
    calls = [Call("c1", "get_weather", {"location": "Paris"})]
    text = '{"location": "Paris", "temperature": 22.5, "unit": "c"}'
    assert tools.run_tool_calls(sdk_reply("openai", openai_completion(calls))) == [
        {"role": "tool", "tool_call_id": "c1", "content": text}
    ]
    assert tools.run_tool_calls(sdk_reply("openai-responses", responses_response(calls))) == [
        {"type": "function_call_output", "call_id": "c1", "output": text}
    ]
    assert tools.run_tool_calls(sdk_reply("anthropic", anthropic_message(calls))) == [
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "c1", "content": text,
                         "is_error": False}],
        }
    ]  # fmt: skip
    output = {"location": "Paris", "temperature": 22.5, "unit": "c"}
    assert tools.run_tool_calls(sdk_reply("gemini", gemini_response(calls))) == [
        {
            "role": "user",
            "parts": [{"function_response": {"id": "c1", "name": "get_weather",
                                             "response": {"output": output}}}],
        }
    ]  # fmt: skip


def test_a_gemini_call_without_an_id_is_answered_by_name(tools: ToolRegistry) -> None:
    calls = [Call(None, "get_time", {"timezone": "Asia/Taipei"}), Call(None, "divide", {})]
    answer = tools.run_tool_calls(sdk_reply("gemini", gemini_response(calls)))
    check_request_types("gemini", answer)
    assert answer[0]["parts"] == [
        {"function_response": {"name": "get_time",
                               "response": {"output": "12:00 in Asia/Taipei"}}},
        {"function_response": {"name": "divide", "response": {"error": (
            "Invalid arguments for tool 'divide':\n"
            "a: missing required argument\nb: missing required argument"
        )}}},
    ]  # fmt: skip


# -- each call's failure is its own --------------------------------------------------------


def test_every_kind_of_failure_is_that_calls_answer(tools: ToolRegistry) -> None:
    completion = openai_completion(
        [
            Call("ok", "get_time", '{"timezone": "UTC"}'),
            Call("unknown", "launch_rockets", "{}"),
            Call("disabled", "retired", "{}"),
            Call("bad_json", "get_weather", '{"location": "Paris"'),
            Call("invalid", "get_weather", '{"location": "Paris", "unit": "kelvin"}'),
            Call("not_object", "get_weather", "[1, 2]"),
            Call("raises", "divide", '{"a": 1, "b": 0}'),
            Call("timeout", "stuck", "{}"),
            Call("ok_again", "divide", '{"a": "3", "b": 2}'),
        ]
    )
    answer = tools.run_tool_calls(sdk_reply("openai", completion))
    check_request_types("openai", answer)
    texts = {m["tool_call_id"]: m["content"] for m in answer}
    assert [m["tool_call_id"] for m in answer] == [
        "ok", "unknown", "disabled", "bad_json", "invalid", "not_object", "raises", "timeout",
        "ok_again",
    ]  # fmt: skip
    assert texts["ok"] == "12:00 in UTC"
    assert texts["unknown"] == "Error: Tool 'launch_rockets' not found"
    assert texts["disabled"] == "Error: Tool 'retired' is disabled"
    assert texts["bad_json"].startswith("Error: Invalid arguments for tool 'get_weather':")
    assert "Invalid JSON" in texts["bad_json"]
    assert texts["invalid"] == (
        "Error: Invalid arguments for tool 'get_weather':\n"
        "unit: Input should be 'c' or 'f' (got 'kelvin')"
    )
    assert texts["not_object"] == (
        "Error: Invalid arguments for tool 'get_weather':\n"
        "arguments: expected a JSON object, got [1, 2]"
    )
    assert texts["raises"] == "Error: float division by zero"
    assert texts["timeout"] == "Error: Tool 'stuck' timed out after 0.05 seconds"
    assert texts["ok_again"] == "1.5"


def test_answers_match_execute_call_by_call(tools: ToolRegistry) -> None:
    calls = [
        Call("a", "get_weather", {"location": "Tokyo", "unit": "f"}),
        Call("b", "get_weather", {"location": 5}),
        Call("c", "divide", {"a": 10, "b": 4}),
    ]
    answer = tools.run_tool_calls(sdk_reply("anthropic", anthropic_message(calls)))
    expected = [tools.execute_sync(c.name, c.arguments) for c in calls]
    assert answered("anthropic", answer) == [
        (c.id, str(r), not r.success) for c, r in zip(calls, expected, strict=True)
    ]


def test_an_empty_arguments_string_is_what_execute_makes_of_it(tools: ToolRegistry) -> None:
    # OpenAI sends "" for a call without arguments now and then: the same pipeline as
    # execute decides what it means (no special case here).
    answer = tools.run_tool_calls(openai_completion([Call("e", "retired", "")]))
    assert answer[0]["content"] == str(tools.execute_sync("retired", ""))


# -- what a tool's value becomes ------------------------------------------------------------


class Forecast(BaseModel):
    city: str
    when: dt.date
    tags: set[str]


def test_values_become_text_or_json_data(tools: ToolRegistry) -> None:
    @tools.tool
    def forecast() -> Forecast:
        """A forecast."""
        return Forecast(city="台中", when=dt.date(2025, 5, 1), tags={"sunny"})

    calls = [Call("f", "forecast", {})]
    openai_answer = tools.run_tool_calls(openai_completion(calls))
    assert openai_answer[0]["content"] == (
        '{"city": "台中", "when": "2025-05-01", "tags": ["sunny"]}'
    )
    gemini_answer = tools.run_tool_calls(gemini_response(calls))
    check_request_types("gemini", gemini_answer)
    assert gemini_answer[0]["parts"][0]["function_response"]["response"] == {
        "output": {"city": "台中", "when": "2025-05-01", "tags": ["sunny"]}
    }


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("text", "text"),
        (None, None),
        (True, True),
        (3, 3),
        (2.5, 2.5),
        ([1, {"a": None}], [1, {"a": None}]),
        ({1, 2}, [1, 2]),
        (dt.datetime(2025, 1, 2, 3, 4, 5), "2025-01-02T03:04:05"),
        (b"bytes", "bytes"),
        (math.nan, "NaN"),  # no strict JSON form: its text
        (math.inf, "Infinity"),
        (10**5000, "<int of 16610 bits>"),
    ],
    ids=lambda v: type(v).__name__,
)
def test_gemini_output_is_strict_json_data(value: Any, expected: Any) -> None:
    converted = to_json_value(value)
    assert converted == expected
    json.dumps({"output": converted}, allow_nan=False)


def test_gemini_output_of_an_unserialisable_value_is_its_text() -> None:
    circular: list[Any] = []
    circular.append(circular)
    assert to_json_value(circular) == "[[...]]"

    class Opaque:
        def __str__(self) -> str:
            return "opaque thing"

    assert to_json_value(Opaque()) == "opaque thing"


# -- replies without calls, and calls that are not tooldeck's ------------------------------


NO_CALLS = {
    "openai": openai_completion([]),
    "openai message": {"role": "assistant", "content": "It is sunny in Paris."},
    "openai-responses": responses_response([]),
    "anthropic": anthropic_message([]),
    "gemini": gemini_response([]),
    "gemini blocked prompt": {
        "promptFeedback": {"blockReason": "SAFETY"},
        "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8},
    },
    "gemini candidate cut before any part": {
        "candidates": [{"finishReason": "MAX_TOKENS", "index": 0}]
    },
    "gemini no candidates": {"candidates": []},
    "gemini content cut before any part": {"role": "model"},  # a MAX_TOKENS candidate's
    "gemini parts without a call": [{"text": "hi", "thoughtSignature": "c2ln"}],
    "empty list": [],
    "empty tuple": (),
}


@pytest.mark.parametrize("reply", NO_CALLS.values(), ids=NO_CALLS)
async def test_a_reply_without_calls_gives_nothing(tools: ToolRegistry, reply: Any) -> None:
    assert tools.run_tool_calls(reply) == []
    assert await tools.async_run_tool_calls(reply) == []


@pytest.mark.parametrize("fmt", ["openai", "openai-responses", "anthropic", "gemini"])
def test_sdk_replies_without_calls_give_nothing(tools: ToolRegistry, fmt: str) -> None:
    wire = NO_CALLS[fmt]
    assert tools.run_tool_calls(sdk_reply(fmt, wire)) == []


def test_calls_of_other_kinds_are_left_to_the_caller(tools: ToolRegistry) -> None:
    completion = openai_completion([Call("f1", "get_time", '{"timezone": "UTC"}')])
    message = completion["choices"][0]["message"]
    message["tool_calls"].insert(
        0, {"id": "ct1", "type": "custom", "custom": {"name": "grammar", "input": "x = 1"}}
    )
    assert tools.run_tool_calls(sdk_reply("openai", completion)) == [
        {"role": "tool", "tool_call_id": "f1", "content": "12:00 in UTC"}
    ]

    message_json = anthropic_message([Call("t1", "get_time", {"timezone": "UTC"})])
    message_json["content"][1:1] = [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
         "input": {"query": "weather"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
    ]  # fmt: skip
    answer = tools.run_tool_calls(sdk_reply("anthropic", message_json))
    assert answered("anthropic", answer) == [("t1", "12:00 in UTC", False)]

    response = responses_response([Call("r1", "get_time", '{"timezone": "UTC"}')])
    response["output"].insert(
        1,
        {"type": "web_search_call", "id": "ws_1", "status": "completed",
         "action": {"type": "search", "query": "weather"}},
    )  # fmt: skip
    answer = tools.run_tool_calls(sdk_reply("openai-responses", response))
    assert answered("openai-responses", answer) == [("r1", "12:00 in UTC", False)]


# -- recognising the format, and refusing what is no reply ---------------------------------


def test_a_single_call_item_is_a_reply_of_one_call(tools: ToolRegistry) -> None:
    single = {
        "openai": {"id": "c", "type": "function",
                   "function": {"name": "get_time", "arguments": '{"timezone": "UTC"}'}},
        "openai-responses": {"type": "function_call", "call_id": "c", "name": "get_time",
                             "arguments": '{"timezone": "UTC"}'},
        "anthropic": {"type": "tool_use", "id": "c", "name": "get_time",
                      "input": {"timezone": "UTC"}},
        "gemini": {"functionCall": {"id": "c", "name": "get_time",
                                    "args": {"timezone": "UTC"}}},
    }  # fmt: skip
    for fmt, item in single.items():
        assert detect_format(item) == fmt
        answer = tools.run_tool_calls(item)
        check_request_types(fmt, answer)
        expected = {"output": "12:00 in UTC"} if fmt == "gemini" else "12:00 in UTC"
        assert answered(fmt, answer) == [("c", expected, False)]


def test_read_tool_calls_keeps_the_arguments_as_sent() -> None:
    wire = openai_completion([Call("a", "f", '{"x": 1}'), Call("b", "g", "")])
    assert read_tool_calls(wire) == (
        "openai",
        [("a", "f", '{"x": 1}'), ("b", "g", "")],
    )
    gemini = gemini_response([Call(None, "f", {"x": [1]})])
    assert read_tool_calls(gemini) == ("gemini", [(None, "f", {"x": [1]})])
    assert read_tool_calls([]) == (None, [])


NOT_REPLIES = {
    "int": 42,
    "str": "call get_weather",
    "None": None,
    "list of ints": [1, 2],
    "a conversation": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ]},
    ],
    "unknown dict": {"foo": 1},
    "list of unknown dicts": [{"foo": 1}],
    "list of calls of no provider's shape": [{"name": "f", "arguments": "{}"}],
    "a tool": None,  # replaced below by a Tool object
    "OpenAI call without an id": {"type": "function", "function": {"name": "f", "arguments": ""}},
    "Anthropic call with a numeric id": {"type": "tool_use", "id": 7, "name": "f", "input": {}},
    "Gemini call without a name": {"functionCall": {"args": {}}},
}  # fmt: skip


@pytest.mark.parametrize("name", NOT_REPLIES)
async def test_what_is_no_reply_is_a_type_error(tools: ToolRegistry, name: str) -> None:
    value = NOT_REPLIES[name] if name != "a tool" else tools.get("divide")
    with pytest.raises(TypeError):
        tools.run_tool_calls(value)
    with pytest.raises(TypeError):
        await tools.async_run_tool_calls(value)


def test_the_type_error_says_what_was_expected(tools: ToolRegistry) -> None:
    with pytest.raises(TypeError, match=r"expected a model's reply.*got int 42"):
        tools.run_tool_calls(42)
    with pytest.raises(TypeError, match=r"anthropic tool call's id must be a string, got 7"):
        tools.run_tool_calls({"type": "tool_use", "id": 7, "name": "f", "input": {}})


@pytest.mark.parametrize("fmt", FORMATS)
def test_forcing_a_format_refuses_another_providers_reply(tools: ToolRegistry, fmt: str) -> None:
    other = {"openai": "anthropic", "openai-responses": "gemini", "anthropic": "openai",
             "gemini": "openai-responses"}[fmt]  # fmt: skip
    reply = sdk_reply(other, {"openai": openai_completion, "anthropic": anthropic_message,
                              "gemini": gemini_response,
                              "openai-responses": responses_response}[other](MIXED))  # fmt: skip
    with pytest.raises(TypeError, match=r"expected an? "):
        tools.run_tool_calls(reply, format=fmt)


CALL_ITEMS = {
    "openai": {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}},
    "openai-responses": {"type": "function_call", "call_id": "c", "name": "f", "arguments": ""},
    "anthropic": {"type": "tool_use", "id": "c", "name": "f", "input": {}},
    "gemini": {"functionCall": {"name": "f", "args": {}}},
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("forced", FORMATS)
def test_forcing_a_format_refuses_another_providers_calls(
    tools: ToolRegistry, fmt: str, forced: str
) -> None:
    # Read as "other blocks" of the forced format, they were skipped: no call answered.
    items = [CALL_ITEMS[fmt]]
    if fmt == forced:
        assert len(tools.run_tool_calls(items, format=forced)) == 1
    else:
        with pytest.raises(TypeError, match=r"expected an? "):
            tools.run_tool_calls(items, format=forced)


def test_an_unknown_format_is_a_value_error(tools: ToolRegistry) -> None:
    with pytest.raises(ValueError, match="unknown format 'mistral'"):
        tools.run_tool_calls(openai_completion(MIXED), format="mistral")


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
async def test_max_concurrency_must_be_a_positive_int(tools: ToolRegistry, bad: Any) -> None:
    reply = openai_completion(MIXED)
    error = ValueError if isinstance(bad, int) and not isinstance(bad, bool) else TypeError
    with pytest.raises(error, match="max_concurrency must be a positive int or None"):
        tools.run_tool_calls(reply, max_concurrency=bad)
    with pytest.raises(error, match="max_concurrency must be a positive int or None"):
        await tools.async_run_tool_calls(reply, max_concurrency=bad)
    with pytest.raises(error):  # even for a reply without calls
        tools.run_tool_calls([], max_concurrency=bad)


def test_the_default_registry_answers_on_the_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_registry, "_default_registry", [None])

    @ToolRegistry.tool
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    reply = anthropic_message([Call("s", "shout", {"text": "hi"})])
    assert answered("anthropic", ToolRegistry.run_tool_calls(reply)) == [("s", "HI", False)]


# -- objects of any kind, and no SDK imported -------------------------------------------------


def test_replies_of_plain_objects_are_read_by_attribute(tools: ToolRegistry) -> None:
    from dataclasses import dataclass
    from types import SimpleNamespace

    @dataclass(frozen=True, slots=True)  # no __dict__: read attribute by attribute
    class Block:
        type: str
        id: str
        name: str
        input: dict[str, Any]

    message = SimpleNamespace(
        role="assistant",
        content=[
            SimpleNamespace(type="text", text="…"),
            Block("tool_use", "t1", "divide", {"a": 9, "b": 3}),
        ],
    )
    assert answered("anthropic", tools.run_tool_calls(message)) == [("t1", "3.0", False)]
    function = SimpleNamespace(name="divide", arguments='{"a": 1, "b": 2}')
    call = SimpleNamespace(id="c1", type="function", function=function)
    chat_message = SimpleNamespace(role="assistant", content=None, tool_calls=[call])
    completion = SimpleNamespace(choices=[SimpleNamespace(message=chat_message)])
    assert tools.run_tool_calls(completion) == [
        {"role": "tool", "tool_call_id": "c1", "content": "0.5"}
    ]


def test_no_provider_sdk_is_imported_to_run_tool_calls() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from tooldeck import ToolRegistry\n"
        "r = ToolRegistry()\n"
        "r.register(lambda a: a, name='same')\n"
        "wire = {'candidates': [{'content': {'parts': [{'functionCall': {'name': 'same', "
        "'args': {'a': 1}}}]}}]}\n"
        "assert r.run_tool_calls(wire)[0]['parts'][0]['function_response']['response'] == "
        "{'output': 1}\n"
        "assert r.run_tool_calls({'role': 'assistant', 'content': [{'type': 'tool_use', "
        "'id': 't', 'name': 'same', 'input': {'a': 2}}]})[0]['content'][0]['content'] == '2'\n"
        "print(','.join(m for m in ('openai', 'anthropic', 'google.genai', 'google') "
        "if m in sys.modules))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ""

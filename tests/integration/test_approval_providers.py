"""Approval in every provider's format: a five-call reply, decisions, one valid answer.

A reply asks for five calls at once: two of tools that need approval, one of a tool
that does not exist, one with invalid arguments, one plain. Decisions of every kind
(approve, approve with edited arguments, reject, reject with a message, answer, none)
are made on the two pending calls; ``run()`` must answer every call exactly once, in
the reply's order, with what each decision says, in messages the provider SDK's
request types accept. Then each real SDK client runs the loop against a scripted
model on 127.0.0.1, whose next request must answer every call id.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

import pytest

from tool_call_replies import FORMATS, WIRE, Call, answered, sdk_reply
from tooldeck import ToolCallBatch, ToolRegistry

pytestmark = pytest.mark.timeout(60)

CALLS = [
    Call("call_delete", "delete_branch", {"name": "main"}),
    Call("call_pay", "transfer", {"amount": 500}),
    Call("call_ghost", "get_stock_price", {"ticker": "ACME"}),
    Call("call_bad", "add", {"a": "x", "b": 1}),
    Call("call_add", "add", {"a": 1, "b": 2}),
]
IDS = [c.id for c in CALLS]
GHOST = (True, "Tool 'get_stock_price' not found")
PLAIN = (False, 3)
DECLINED = "The user declined to run tool '{}'"


def make_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(requires_approval=True)
    def delete_branch(name: str) -> str:
        """Delete a git branch."""
        return f"deleted {name}"

    @registry.tool(requires_approval=lambda arguments, context: arguments["amount"] > 100)
    async def transfer(amount: int) -> str:
        """Move money."""
        await asyncio.sleep(0)
        return f"sent {amount}"

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return registry


BAD_NAME = (
    "Invalid arguments for tool 'delete_branch':\n"
    'name: Input should be a valid string (got ["x"])'
)

# Each decision on (delete_branch, transfer) and what the model then reads for each.
Decide = Callable[[ToolCallBatch], None]
DECISIONS: dict[str, tuple[Decide, tuple[bool, Any], tuple[bool, Any]]] = {
    "approve, reject with a message": (
        lambda b: (b.approve("call_delete"), b.reject("call_pay", "over the limit")),
        (False, "deleted main"),
        (True, "over the limit"),
    ),
    "approve edited, answer": (
        lambda b: (
            b.approve("call_delete", {"name": "feature"}),
            b.answer("call_pay", "Sent by hand."),
        ),
        (False, "deleted feature"),
        (False, "Sent by hand."),
    ),
    "reject, leave pending": (
        lambda b: b.reject("call_delete"),
        (True, DECLINED.format("delete_branch")),
        (True, DECLINED.format("transfer")),
    ),
    "approve with invalid edits, approve": (
        lambda b: (b.approve("call_delete", {"name": ["x"]}), b.approve("call_pay")),
        (True, BAD_NAME),
        (False, "sent 500"),
    ),
}
INVALID = (True, "Invalid arguments for tool 'add':\na: Input should be a valid integer, "
           "unable to parse string as an integer (got 'x')")  # fmt: skip


def read(format: str, answer: list[dict[str, Any]]) -> list[tuple[str | None, bool, Any]]:
    """``(id, is_error, what the model reads)`` per answered call, Gemini's unwrapped."""
    out = []
    for call_id, said, error in answered(format, answer):
        if format == "gemini":
            said = said["error"] if error else said["output"]
        elif error:
            said = said.removeprefix("Error: ")
        out.append((call_id, error, said))
    return out


def expected(format: str, delete: tuple[bool, Any], pay: tuple[bool, Any]) -> list[Any]:
    rows = [delete, pay, GHOST, INVALID, PLAIN]
    return [
        (i, error, said if error or format == "gemini" else str(said))
        for i, (error, said) in zip(IDS, rows, strict=True)
    ]


@functools.cache
def sdk_type(format: str) -> Any:
    """The provider SDK's type for one message (or item) of a request."""
    import anthropic.types
    from google.genai import types as genai
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.responses import ResponseInputItemParam
    from pydantic import TypeAdapter

    if format == "gemini":
        return genai.Content.model_validate
    param = {
        "openai": ChatCompletionMessageParam,
        "openai-responses": ResponseInputItemParam,
        "anthropic": anthropic.types.MessageParam,
    }[format]
    return TypeAdapter(param).validate_python


def check_sdk(format: str, answer: list[dict[str, Any]]) -> None:
    """Every message of ``answer`` is accepted by the provider SDK's request type."""
    for message in answer:
        sdk_type(format)(message)


@pytest.mark.parametrize("decision", list(DECISIONS))
@pytest.mark.parametrize("source", ["sdk", "wire"])
@pytest.mark.parametrize("format", FORMATS)
def test_five_calls_decided_and_answered_once_in_order(
    format: str, source: str, decision: str
) -> None:
    registry = make_registry()
    wire = WIRE[format](CALLS)
    reply = sdk_reply(format, wire) if source == "sdk" else wire
    batch = registry.prepare_tool_calls(reply)
    assert [(c.id, c.name, c.status) for c in batch.calls] == [
        ("call_delete", "delete_branch", "pending"),
        ("call_pay", "transfer", "pending"),
        ("call_ghost", "get_stock_price", "failed"),
        ("call_bad", "add", "failed"),
        ("call_add", "add", "ready"),
    ]
    assert [c.id for c in batch.pending] == ["call_delete", "call_pay"]
    assert batch.calls[1].arguments == {"amount": 500}
    decide, delete, pay = DECISIONS[decision]
    decide(batch)
    answer = batch.run()
    assert read(format, answer) == expected(format, delete, pay)
    check_sdk(format, answer)


@pytest.mark.parametrize("format", FORMATS)
async def test_arun_and_run_tool_calls_approve_answer_alike(format: str) -> None:
    registry = make_registry()
    reply = WIRE[format](CALLS)
    batch = registry.prepare_tool_calls(reply)
    batch.approve("call_delete")
    batch.reject("call_pay", "over the limit")
    by_batch = await batch.arun()

    async def approve(call: Any) -> bool | str:  # an async approve on the async face
        return True if call.name == "delete_branch" else "over the limit"

    inline = await registry.async_run_tool_calls(reply, approve=approve)
    sync_inline = registry.run_tool_calls(
        reply, approve=lambda c: c.name == "delete_branch" or "over the limit"
    )
    want = expected(format, (False, "deleted main"), (True, "over the limit"))
    assert read(format, by_batch) == read(format, inline) == read(format, sync_inline) == want


@pytest.mark.parametrize("format", FORMATS)
def test_run_tool_calls_without_approve_never_runs_what_needs_it(format: str) -> None:
    registry = make_registry()
    ran: list[str] = []
    registry.add_middleware(lambda call, call_next: (ran.append(call.name), call_next(call))[1])
    answer = registry.run_tool_calls(WIRE[format](CALLS))
    need = "Tool '{}' needs approval"
    want = expected(format, (True, need.format("delete_branch")), (True, need.format("transfer")))
    assert read(format, answer) == want
    assert sorted(ran) == ["add", "add"]  # the two add calls, through the middleware


# -- the loop with each real SDK client against a scripted model ---------------------------


def answers_every_call(format: str) -> Callable[[dict[str, Any]], None]:
    """Turn 2's check: the conversation answers each call id of turn 1, once, in order."""

    def check(body: dict[str, Any]) -> None:
        if format == "openai":
            tools = [m for m in body["messages"] if m.get("role") == "tool"]
            assert [m["tool_call_id"] for m in tools] == IDS
        elif format == "openai-responses":
            outputs = [i for i in body["input"] if i.get("type") == "function_call_output"]
            assert [i["call_id"] for i in outputs] == IDS
        elif format == "anthropic":
            *_, results = body["messages"]
            assert [b["tool_use_id"] for b in results["content"]] == IDS
        else:
            *_, results = body["contents"]
            assert [p["functionResponse"]["id"] for p in results["parts"]] == IDS

    return check


def final(format: str) -> dict[str, Any]:
    done = WIRE[format]([])
    if format == "openai":
        done["choices"][0]["message"]["content"] = "Done."
    elif format == "openai-responses":
        done["output"] = [
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}
        ]  # fmt: skip
    elif format == "anthropic":
        done["content"] = [{"type": "text", "text": "Done."}]
    else:
        done["candidates"][0]["content"]["parts"] = [{"text": "Done."}]
    return done


def decide(batch: ToolCallBatch) -> None:
    batch.approve("call_delete", {"name": "feature"})
    batch.reject("call_pay", "over the limit")


async def chat_loop(registry: ToolRegistry, url: str) -> None:
    import openai

    client = openai.OpenAI(api_key="sk-test", base_url=f"{url}/v1", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Tidy up and pay."}]
    tools = registry.get_openai_tools()
    reply = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
    batch = registry.prepare_tool_calls(reply)
    decide(batch)
    messages += [reply.choices[0].message, *batch.run()]
    reply = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
    assert reply.choices[0].message.content == "Done."


async def responses_loop(registry: ToolRegistry, url: str) -> None:
    import openai

    client = openai.AsyncOpenAI(api_key="sk-test", base_url=f"{url}/v1", max_retries=0)
    items: list[Any] = [{"role": "user", "content": "Tidy up and pay."}]
    tools = registry.export("openai-responses")
    response = await client.responses.create(model="o4-mini", input=items, tools=tools)
    batch = registry.prepare_tool_calls(response)
    decide(batch)
    items += [*response.output, *await batch.arun()]
    response = await client.responses.create(model="o4-mini", input=items, tools=tools)
    assert response.output_text == "Done."


async def anthropic_loop(registry: ToolRegistry, url: str) -> None:
    import anthropic

    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=url, max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Tidy up and pay."}]
    kwargs: dict[str, Any] = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1024,
        "tools": registry.export("anthropic"),
    }
    message = client.messages.create(messages=messages, **kwargs)
    results = registry.run_tool_calls(  # decided inline this time
        message, approve=lambda call: call.name == "delete_branch" or "over the limit"
    )
    messages += [{"role": "assistant", "content": message.content}, *results]
    message = client.messages.create(messages=messages, **kwargs)
    assert message.content[0].text == "Done."  # type: ignore[union-attr]


async def gemini_loop(registry: ToolRegistry, url: str) -> None:
    from google import genai
    from google.genai import types

    client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=url))
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=registry.export("gemini"))]
    )
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text="Tidy up.")])]
    response = await client.aio.models.generate_content(
        model="gemini-2.5-flash", contents=contents, config=config
    )
    batch = registry.prepare_tool_calls(response)
    decide(batch)
    contents += [response.candidates[0].content, *await batch.arun()]  # type: ignore[index]
    response = await client.aio.models.generate_content(
        model="gemini-2.5-flash", contents=contents, config=config
    )
    assert response.text == "Done."


LOOPS = {
    "openai": chat_loop,
    "openai-responses": responses_loop,
    "anthropic": anthropic_loop,
    "gemini": gemini_loop,
}


async def test_the_loop_with_each_sdk_client(monkeypatch: pytest.MonkeyPatch) -> None:
    from scripted_model import ScriptedModel

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    registry = make_registry()
    turns: list[Any] = []
    for format in FORMATS:  # one server, the four conversations one after another
        turns += [(None, WIRE[format](CALLS)), (answers_every_call(format), final(format))]
    with ScriptedModel(turns) as model:
        for format in FORMATS:
            await LOOPS[format](registry, model.url)
        assert model.problems == [] and len(model.requests) == 8

"""Model replies asking for tool calls, as each provider documents them on the wire.

Each builder returns the JSON a provider's API sends back (a dict), holding the given
calls beside the text, reasoning or thought parts real replies carry; `sdk_reply`
turns it into the provider SDK's own response object, as the SDK itself would
(``model_validate_json`` of the body). `answered` reads an answer back into
``(id, text, is_error)`` triples, whatever the format. Shared by the unit, property
and integration tests.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from anthropic.types import Message
from google.genai import types as genai
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

FORMATS = ("openai", "openai-responses", "anthropic", "gemini")


class Call(NamedTuple):
    id: str | None
    name: str
    arguments: Any  # JSON text for OpenAI's formats, an object for Anthropic and Gemini


def as_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def openai_completion(calls: Sequence[Call]) -> dict[str, Any]:
    """A Chat Completions response (function-calling guide, parallel calls)."""
    tool_calls = [
        {"id": c.id, "type": "function",
         "function": {"name": c.name, "arguments": as_text(c.arguments)}}
        for c in calls
    ]  # fmt: skip
    message = {"role": "assistant", "content": None, "refusal": None, "annotations": [],
               "tool_calls": tool_calls or None}  # fmt: skip
    return {
        "id": "chatcmpl-BQHVkaC9P5ZXuD3SzXyLqPIsOJqmg",
        "object": "chat.completion",
        "created": 1745495316,
        "model": "gpt-4.1-2025-04-14",
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 82, "completion_tokens": 52, "total_tokens": 134,
                  "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                                "accepted_prediction_tokens": 0,
                                                "rejected_prediction_tokens": 0}},
        "service_tier": "default",
        "system_fingerprint": "fp_b38e740b47",
    }  # fmt: skip


def responses_response(calls: Sequence[Call]) -> dict[str, Any]:
    """A Responses API response: a reasoning item, then one function_call per call."""
    output: list[dict[str, Any]] = [
        {"type": "reasoning", "id": "rs_6808ba2a8ac48191b4c7c5b3e3b4d7a5", "summary": []}
    ]
    output += [
        {"type": "function_call", "id": f"fc_{c.id}", "call_id": c.id, "name": c.name,
         "arguments": as_text(c.arguments), "status": "completed"}
        for c in calls
    ]  # fmt: skip
    return {
        "id": "resp_6808ba29ea388191aae63f4fda5e8d9e0b9d41e8a74a5d1f",
        "object": "response",
        "created_at": 1745402409,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "model": "o4-mini-2025-04-16",
        "output": output,
        "parallel_tool_calls": True,
        "temperature": 1.0,
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "usage": {"input_tokens": 291, "output_tokens": 23, "total_tokens": 314,
                  "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    }  # fmt: skip


def anthropic_message(calls: Sequence[Call]) -> dict[str, Any]:
    """A Messages API response: a text block, then one tool_use block per call."""
    content: list[dict[str, Any]] = [
        {"type": "text", "text": "I'll look these up at the same time."}
    ]
    content += [
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in calls
    ]
    return {
        "id": "msg_01Aq9w938a90dw8q",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 472, "output_tokens": 91},
    }


def gemini_response(calls: Sequence[Call]) -> dict[str, Any]:
    """A generateContent response (REST camelCase): a thought part, then a functionCall
    part per call (the first one carrying the thought signature, as Gemini 3 sends)."""
    parts: list[dict[str, Any]] = [{"text": "Checking both.", "thought": True}]
    for i, c in enumerate(calls):
        function_call: dict[str, Any] = {"name": c.name, "args": c.arguments}
        if c.id is not None:
            function_call["id"] = c.id
        part: dict[str, Any] = {"functionCall": function_call}
        if i == 0:
            part["thoughtSignature"] = "CiQBcsjab3BhcXVlIHRob3VnaHQgc2lnbmF0dXJlIGJ5dGVz"
        parts.append(part)
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 24,
                          "totalTokenCount": 144},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "zE1vaMasJ7ry1dkP2bL4gQ8",
    }  # fmt: skip


WIRE = {
    "openai": openai_completion,
    "openai-responses": responses_response,
    "anthropic": anthropic_message,
    "gemini": gemini_response,
}
SDK_TYPES: dict[str, Any] = {
    "openai": ChatCompletion,
    "openai-responses": Response,
    "anthropic": Message,
    "gemini": genai.GenerateContentResponse,
}


def sdk_reply(format: str, wire: dict[str, Any]) -> Any:
    """The SDK's own response object for a wire body."""
    return SDK_TYPES[format].model_validate_json(json.dumps(wire))


def levels(format: str, calls: Sequence[Call]) -> dict[str, Any]:
    """The reply at every level a user may pass, as SDK objects and as wire dicts."""
    wire = WIRE[format](calls)
    reply = sdk_reply(format, wire)
    if format == "openai":
        message = reply.choices[0].message
        return {
            "sdk reply": reply,
            "sdk message": message,
            "sdk tool_calls": message.tool_calls or [],
            "wire reply": wire,
            "wire message": wire["choices"][0]["message"],
            "wire tool_calls": wire["choices"][0]["message"]["tool_calls"] or [],
        }
    if format == "openai-responses":
        return {
            "sdk reply": reply,
            "sdk output": reply.output,
            "sdk calls": [item for item in reply.output if item.type == "function_call"],
            "wire reply": wire,
            "wire output": wire["output"],
        }
    if format == "anthropic":
        return {
            "sdk reply": reply,
            "sdk content": reply.content,
            "sdk tool_use blocks": [b for b in reply.content if b.type == "tool_use"],
            "wire reply": wire,
            "wire content": wire["content"],
        }
    content = reply.candidates[0].content
    return {
        "sdk reply": reply,
        "sdk candidate": reply.candidates[0],
        "sdk content": content,
        "sdk parts": content.parts,
        "sdk function_calls": reply.function_calls or [],
        "wire reply (camelCase)": wire,
        "wire content (camelCase)": wire["candidates"][0]["content"],
        "snake_case dict": reply.model_dump(exclude_none=True),
        "snake_case parts": [p.model_dump(exclude_none=True) for p in content.parts],
    }


def answered(format: str, answer: list[dict[str, Any]]) -> list[tuple[str | None, Any, bool]]:
    """``(id, what the model reads, is_error)`` per answered call, in order.

    What the model reads: the text (OpenAI, Anthropic), or Gemini's ``response`` dict.
    """
    if format == "openai":
        return [
            (m["tool_call_id"], m["content"], m["content"].startswith("Error: ")) for m in answer
        ]
    if format == "openai-responses":
        return [(m["call_id"], m["output"], m["output"].startswith("Error: ")) for m in answer]
    if format == "anthropic":
        if not answer:
            return []
        (message,) = answer
        return [(b["tool_use_id"], b["content"], b["is_error"]) for b in message["content"]]
    if not answer:
        return []
    (content,) = answer
    return [
        (p["function_response"].get("id"), p["function_response"]["response"],
         "error" in p["function_response"]["response"])
        for p in content["parts"]
    ]  # fmt: skip

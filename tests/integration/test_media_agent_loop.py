"""Media through the agent loop: each provider's real SDK client against a scripted model.

Turn 1 asks for ``chart`` and ``report``; the tools return ``["caption", Image(png)]``
and ``[File(pdf), "done"]``. The loop appends ``run_tool_calls``' answer as it is and the
scripted server checks the request body the SDK sent in turn 2: the image's and the
PDF's bytes (base64) in the provider's place for them, in order.
"""

from __future__ import annotations

import base64
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import types
from scripted_model import ScriptedModel

from media_matrix import PDF, PNG
from tool_call_replies import (
    Call,
    anthropic_message,
    gemini_response,
    openai_completion,
    responses_response,
)
from tooldeck import File, Image, ToolRegistry

pytestmark = pytest.mark.timeout(60)

PNG64 = base64.b64encode(PNG).decode()
PDF64 = base64.b64encode(PDF).decode()
CALLS = [Call("call_chart", "chart", {"year": 2024}), Call("call_report", "report", {})]
CAPTION = "Sales by month, 2024:"
FINAL = "Sales rose in the spring."


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def chart(year: int) -> list[str | Image]:
        """Sales by month, as a chart."""
        return [f"Sales by month, {year}:", Image(PNG)]

    @registry.tool
    def report() -> list[File | str]:
        """The report."""
        return [File(PDF, name="report.pdf"), "done"]

    return registry


def scripted(first: dict[str, Any], check: Any, final: dict[str, Any]) -> ScriptedModel:
    return ScriptedModel([(None, first), (check, final)])


# -- OpenAI Chat Completions: the media in one user message after the tool messages ----------


def chat_turn_2(body: dict[str, Any]) -> None:
    *_, chart, report, user = body["messages"]
    assert chart == {
        "role": "tool",
        "tool_call_id": "call_chart",
        "content": f"{CAPTION}\n[image: image/png, {len(PNG)} bytes]",
    }
    assert report["content"] == f"[file: report.pdf, application/pdf, {len(PDF)} bytes]\ndone"
    assert user == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Media from tool call call_chart:"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG64}"}},
            {"type": "text", "text": "Media from tool call call_report:"},
            {"type": "file", "file": {"file_data": f"data:application/pdf;base64,{PDF64}",
                                      "filename": "report.pdf"}},
        ],
    }  # fmt: skip


def test_openai_chat_completions(registry: ToolRegistry) -> None:
    final = openai_completion([])
    final["choices"][0]["message"]["content"] = FINAL
    with scripted(openai_completion(CALLS), chat_turn_2, final) as model:
        client = openai.OpenAI(api_key="sk-test", base_url=f"{model.url}/v1", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Sales?"}]
        tools = registry.get_openai_tools()
        reply = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
        messages += [reply.choices[0].message, *registry.run_tool_calls(reply)]
        reply = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
        assert reply.choices[0].message.content == FINAL
        assert model.problems == []


# -- OpenAI Responses: input_image and input_file in the function_call_output ---------------


def responses_turn_2(body: dict[str, Any]) -> None:
    chart, report = body["input"][-2:]
    assert chart == {
        "type": "function_call_output",
        "call_id": "call_chart",
        "output": [
            {"type": "input_text", "text": CAPTION},
            {"type": "input_image", "image_url": f"data:image/png;base64,{PNG64}",
             "detail": "auto"},
        ],
    }  # fmt: skip
    assert report["output"] == [
        {"type": "input_file", "file_data": f"data:application/pdf;base64,{PDF64}",
         "filename": "report.pdf"},
        {"type": "input_text", "text": "done"},
    ]  # fmt: skip


async def test_openai_responses_async(registry: ToolRegistry) -> None:
    final = responses_response([])
    final["output"] = [
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": FINAL, "annotations": []}]}
    ]  # fmt: skip
    with scripted(responses_response(CALLS), responses_turn_2, final) as model:
        client = openai.AsyncOpenAI(api_key="sk-test", base_url=f"{model.url}/v1", max_retries=0)
        items: list[Any] = [{"role": "user", "content": "Sales?"}]
        tools = registry.export("openai-responses")
        response = await client.responses.create(model="o4-mini", input=items, tools=tools)
        items += [*response.output, *await registry.async_run_tool_calls(response)]
        response = await client.responses.create(model="o4-mini", input=items, tools=tools)
        assert response.output_text == FINAL
        assert model.problems == []


# -- Anthropic: image and document blocks in the tool_result --------------------------------


def anthropic_turn_2(body: dict[str, Any]) -> None:
    results = body["messages"][-1]
    assert results["role"] == "user"
    chart, report = results["content"]
    assert chart == {
        "type": "tool_result",
        "tool_use_id": "call_chart",
        "is_error": False,
        "content": [
            {"type": "text", "text": CAPTION},
            {"type": "image",
             "source": {"type": "base64", "media_type": "image/png", "data": PNG64}},
        ],
    }  # fmt: skip
    assert report["content"] == [
        {"type": "document", "title": "report.pdf",
         "source": {"type": "base64", "media_type": "application/pdf", "data": PDF64}},
        {"type": "text", "text": "done"},
    ]  # fmt: skip


def test_anthropic_messages(registry: ToolRegistry) -> None:
    final = anthropic_message([])
    final["content"] = [{"type": "text", "text": FINAL}]
    with scripted(anthropic_message(CALLS), anthropic_turn_2, final) as model:
        client = anthropic.Anthropic(api_key="sk-ant-test", base_url=model.url, max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Sales?"}]
        kwargs: dict[str, Any] = {
            "model": "claude-sonnet-4-6",
            "max_tokens": 1024,
            "tools": registry.export("anthropic"),
        }
        message = client.messages.create(messages=messages, **kwargs)
        messages += [{"role": "assistant", "content": message.content}]
        messages += registry.run_tool_calls(message)
        message = client.messages.create(messages=messages, **kwargs)
        assert message.content[0].text == FINAL  # type: ignore[union-attr]
        assert model.problems == []


# -- Gemini: the function_response's parts ------------------------------------------------


def blob(part: dict[str, Any]) -> tuple[str, bytes]:
    """An inline data part as the SDK sends it: its type and bytes. (google-genai writes
    bytes as URL-safe base64, and a function response's parts in snake_case; the API's
    JSON takes both spellings and both alphabets.)"""
    found = part.get("inlineData") or part["inline_data"]
    mime = found.get("mimeType") or found["mime_type"]
    return mime, base64.urlsafe_b64decode(found["data"])


def gemini_turn_2(body: dict[str, Any]) -> None:
    results = body["contents"][-1]
    assert results["role"] == "user"
    chart, report = (part["functionResponse"] for part in results["parts"])
    assert chart["id"] == "call_chart" and chart["name"] == "chart"
    assert chart["response"] == {"output": f"{CAPTION}\n[image: image/png, {len(PNG)} bytes]"}
    assert [blob(part) for part in chart["parts"]] == [("image/png", PNG)]
    assert [blob(part) for part in report["parts"]] == [("application/pdf", PDF)]


def test_gemini(registry: ToolRegistry) -> None:
    final = gemini_response([])
    final["candidates"][0]["content"]["parts"] = [{"text": FINAL}]
    with scripted(gemini_response(CALLS), gemini_turn_2, final) as model:
        client = genai.Client(
            api_key="test-key", http_options=types.HttpOptions(base_url=model.url)
        )
        config = types.GenerateContentConfig(
            tools=[types.Tool(function_declarations=registry.export("gemini"))]
        )
        contents: list[Any] = [types.Content(role="user", parts=[types.Part(text="Sales?")])]
        response = client.models.generate_content(
            model="gemini-3-flash", contents=contents, config=config
        )
        contents += [response.candidates[0].content, *registry.run_tool_calls(response)]  # type: ignore[index]
        response = client.models.generate_content(
            model="gemini-3-flash", contents=contents, config=config
        )
        assert response.text == FINAL
        assert model.problems == []


def test_gemini_audio_goes_after(registry: ToolRegistry) -> None:
    """Audio, which a function response does not take, reaches Gemini in a user turn
    after the results, through the SDK."""
    from media_matrix import WAV
    from tooldeck import Audio

    @registry.tool
    def listen() -> list[str | Audio]:
        """A recording."""
        return ["the recording:", Audio(WAV)]

    def check(body: dict[str, Any]) -> None:
        *_, results, after = body["contents"]
        assert results["parts"][0]["functionResponse"]["response"] == {
            "output": f"the recording:\n[audio: audio/wav, {len(WAV)} bytes]"
        }
        assert after["role"] == "user"
        intro, audio = after["parts"]
        assert intro == {"text": "Media from tool call call_listen:"}
        assert blob(audio) == ("audio/wav", WAV)

    final = gemini_response([])
    final["candidates"][0]["content"]["parts"] = [{"text": FINAL}]
    first = gemini_response([Call("call_listen", "listen", {})])
    with scripted(first, check, final) as model:
        client = genai.Client(
            api_key="test-key", http_options=types.HttpOptions(base_url=model.url)
        )
        response = client.models.generate_content(model="gemini-3-flash", contents="Listen")
        contents: list[Any] = ["Listen", response.candidates[0].content]  # type: ignore[index]
        contents += registry.run_tool_calls(response)
        response = client.models.generate_content(model="gemini-3-flash", contents=contents)
        assert response.text == FINAL
        assert model.problems == []

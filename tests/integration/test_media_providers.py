"""Media in `run_tool_calls`' answers: the conformance matrix (tests/media_matrix.py),
each answer accepted by the provider SDK's own request types, ``media="text"``, the
size limits, and docs/media.md's fallback table checked against the matrix."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import anthropic.types
import pytest
from google.genai import types as genai
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import ResponseInputItemParam
from pydantic import TypeAdapter

from media_matrix import KINDS, LABELS, PNG, TARGETS
from tooldeck import Audio, File, Image, ToolRegistry, ToolResult

FORMATS = ("openai", "openai-responses", "anthropic", "gemini")
CHAT = TypeAdapter(ChatCompletionMessageParam)
RESPONSES = TypeAdapter(ResponseInputItemParam)
ANTHROPIC = TypeAdapter(anthropic.types.MessageParam)


def reply(format: str, call_id: str = "call_1", name: str = "media") -> dict[str, Any]:
    """A model's reply asking for one call of ``name``, as a dict from the wire."""
    if format == "openai":
        call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    if format == "openai-responses":
        call = {"type": "function_call", "call_id": call_id, "name": name, "arguments": "{}"}
        return {"output": [call]}
    if format == "anthropic":
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        return {"role": "assistant", "content": [block]}
    part = {"function_call": {"id": call_id, "name": name, "args": {}}}
    return {"candidates": [{"content": {"role": "model", "parts": [part]}}]}


def returning(value: Any) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def media() -> Any:
        """Returns media."""
        return value

    return registry


def check_sdk(format: str, answer: list[dict[str, Any]]) -> None:
    """Each message of ``answer`` is accepted by the provider SDK's request type."""
    for message in answer:
        if format == "openai":
            CHAT.validate_python(message)
        elif format == "openai-responses":
            RESPONSES.validate_python(message)
        elif format == "anthropic":
            ANTHROPIC.validate_python(message)
        else:
            genai.Content.model_validate(message)


def strings(value: Any) -> str:
    """Every string in an answer, joined: what "reaches the answer" is looked for in."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\x00".join(strings(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return "\x00".join(strings(v) for v in value)
    return ""


def expected(kind: str, target: str, value: Any) -> Any:
    """The exact answer (or `to_dict()`) the matrix cell says, for ``["caption", value]``."""
    label = LABELS[(kind, target)]
    if target == "to_dict()":
        return {"success": True, "data": ["caption", value.to_mcp()], "error": None}
    sent = label != "placeholder"
    return BUILDERS[target](value, sent)


def _openai(value: Any, sent: bool) -> Any:
    if not sent:
        why = "Chat Completions takes files and audio as data only"
        return [
            {"role": "tool", "tool_call_id": "call_1", "content": f"caption\n{_not(value, why)}"}
        ]
    if value.kind == "image":
        part = {"type": "image_url", "image_url": {"url": value.url or value.data_url()}}
    elif value.kind == "file":
        part = {"type": "file", "file": {"file_data": value.data_url(), "filename": value.name}}
    else:
        part = {"type": "input_audio", "input_audio": {"data": value.base64, "format": "wav"}}
    intro = {"type": "text", "text": "Media from tool call call_1:"}
    return [
        {"role": "tool", "tool_call_id": "call_1", "content": f"caption\n{value.placeholder}"},
        {"role": "user", "content": [intro, part]},
    ]


def _responses(value: Any, sent: bool) -> Any:
    caption = {"type": "input_text", "text": "caption"}
    if not sent:  # audio
        text = f"caption\n{_not(value, 'the Responses API takes no audio')}"
        output: Any = [{"type": "input_text", "text": text}]
    elif value.kind == "image":
        item = {"type": "input_image", "image_url": value.url or value.data_url(), "detail": "auto"}
        output = [caption, item]
    elif value.url is not None:
        output = [caption, {"type": "input_file", "file_url": value.url}]
    else:
        file = {"type": "input_file", "file_data": value.data_url(), "filename": value.name}
        output = [caption, file]
    return [{"type": "function_call_output", "call_id": "call_1", "output": output}]


def _anthropic(value: Any, sent: bool) -> Any:
    caption = {"type": "text", "text": "caption"}
    if not sent:  # audio
        content: Any = [
            {"type": "text", "text": f"caption\n{_not(value, 'Anthropic takes no audio')}"}
        ]
    elif value.kind == "image":
        source = (
            {"type": "url", "url": value.url}
            if value.url
            else {"type": "base64", "media_type": value.mime_type, "data": value.base64}
        )
        content = [caption, {"type": "image", "source": source}]
    elif value.url is not None:
        doc = {"type": "document", "source": {"type": "url", "url": value.url}, "title": value.name}
        content = [caption, doc]
    elif value.mime_type == "application/pdf":
        source = {"type": "base64", "media_type": "application/pdf", "data": value.base64}
        content = [caption, {"type": "document", "source": source, "title": value.name}]
    else:
        source = {"type": "text", "media_type": "text/plain", "data": value.data.decode()}
        content = [caption, {"type": "document", "source": source, "title": value.name}]
    result = {"type": "tool_result", "tool_use_id": "call_1", "content": content, "is_error": False}
    return [{"role": "user", "content": [result]}]


def _gemini(value: Any, sent: bool) -> Any:
    response = {
        "id": "call_1",
        "name": "media",
        "response": {"output": f"caption\n{value.placeholder}"},
    }
    answer: list[Any] = [{"role": "user", "parts": [{"function_response": response}]}]
    if value.url is not None:
        after = {"file_data": {"file_uri": value.url, "mime_type": value.mime_type}}
    else:
        blob = {"inline_data": {"mime_type": value.mime_type, "data": value.base64}}
        if value.kind != "audio":
            response["parts"] = [blob]
            return answer
        after = blob
    answer.append({"role": "user", "parts": [{"text": "Media from tool call call_1:"}, after]})
    return answer


def _not(value: Any, why: str) -> str:
    return f"{value.placeholder[:-1]}: {why}, not sent]"


BUILDERS = {
    "openai": _openai,
    "openai-responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_matrix_cell(kind: str, target: str) -> None:
    """Each cell: the exact native shape or the documented fallback; the bytes (or the
    URL) reach the answer, or the placeholder names the value."""
    value = KINDS[kind]
    registry = returning(["caption", value])
    if target == "to_dict()":
        result = registry.execute_sync("media", {})
        assert result.to_dict() == expected(kind, target, value)
        return
    answer = registry.run_tool_calls(reply(target))
    assert answer == expected(kind, target, value)
    check_sdk(target, answer)
    wire = strings(answer)
    reached = value.url if value.url is not None else value.base64
    if LABELS[(kind, target)] == "placeholder":
        assert value.placeholder[:-1] in wire and "not sent" in wire
    elif value.mime_type.startswith("text/") and target == "anthropic":
        assert value.data.decode() in wire  # a text document's own text
    else:
        assert reached in wire


@pytest.mark.parametrize("format", FORMATS)
def test_media_text_sends_placeholders_only(format: str) -> None:
    """``media="text"``: no media anywhere in the answer, the placeholders instead —
    what `str(ToolResult)` says, for every kind."""
    values = list(KINDS.values())
    registry = returning(["caption", *values])
    answer = registry.run_tool_calls(reply(format), media="text")
    check_sdk(format, answer)
    wire = repr(answer)
    for value in values:
        assert (value.url or value.base64) not in wire or value.url in str(value.placeholder)
        assert value.placeholder in wire
    for key in ("image_url", "input_image", "input_file", "inline_data", "file_data", "source"):
        assert key not in wire
    text = str(ToolResult.ok(["caption", *values]))
    assert text.replace("\n", "\\n") in wire or text in wire


@pytest.mark.parametrize("format", FORMATS)
async def test_media_text_async(format: str) -> None:
    registry = returning(["caption", Image(PNG)])
    native = await registry.async_run_tool_calls(reply(format))
    text = await registry.async_run_tool_calls(reply(format), media="text")
    assert native == registry.run_tool_calls(reply(format))
    assert Image(PNG).base64 in repr(native) and Image(PNG).base64 not in repr(text)


@pytest.mark.parametrize("bad", ["Native", "", None, "placeholders", 1, b"text"])
async def test_media_refuses_other_values(bad: Any) -> None:
    registry = returning("plain")
    with pytest.raises(ValueError, match="media must be 'native' or 'text'"):
        registry.run_tool_calls(reply("openai"), media=bad)
    with pytest.raises(ValueError, match="media must be 'native' or 'text'"):
        await registry.async_run_tool_calls(reply("openai"), media=bad)


def test_media_takes_a_str_subclass() -> None:
    class Choice(str):
        def __eq__(self, other: object) -> bool:  # a hostile subclass: its characters count
            return True

        __hash__ = str.__hash__

    registry = returning(["caption", Image(PNG)])
    assert Image(PNG).base64 not in repr(
        registry.run_tool_calls(reply("openai"), media=Choice("text"))
    )
    with pytest.raises(ValueError, match="media must be"):
        registry.run_tool_calls(reply("openai"), media=Choice("png"))


@pytest.mark.parametrize("format", FORMATS)
def test_text_only_results_unchanged(format: str) -> None:
    """Results without media at the top are answered as before, ``media`` or not;
    media nested in a dict is its placeholder inside the JSON."""
    for value in ["plain", 7, {"a": [1, 2]}, [1, "x"], {"chart": Image(PNG)}]:
        registry = returning(value)
        assert registry.run_tool_calls(reply(format)) == registry.run_tool_calls(
            reply(format), media="text"
        )
    nested = repr(returning({"chart": Image(PNG)}).run_tool_calls(reply(format)))
    assert Image(PNG).placeholder in nested and Image(PNG).base64 not in nested


@pytest.mark.parametrize("format", FORMATS)
def test_failures_stay_text(format: str) -> None:
    registry = ToolRegistry()

    @registry.tool
    def media() -> Image:
        """Fails."""
        raise RuntimeError("no chart today")

    answer = registry.run_tool_calls(reply(format))
    assert "no chart today" in repr(answer)
    assert "image" not in repr(answer).replace("media", "")
    check_sdk(format, answer)


@pytest.mark.parametrize("format", FORMATS)
def test_parts_keep_their_order(format: str) -> None:
    """Several media values and texts in one result, and two calls: each value where
    its provider puts it, in the parts' order, each call's own."""
    first, second = Image(PNG), File(b"%PDF-1.4 second", name="b.pdf")
    registry = returning(["one", first, {"n": 2}, second, "three"])
    replies = reply(format)
    if format == "openai":
        replies["tool_calls"].append({**replies["tool_calls"][0], "id": "call_2"})
    elif format == "openai-responses":
        replies["output"].append({**replies["output"][0], "call_id": "call_2"})
    elif format == "anthropic":
        replies["content"].append({**replies["content"][0], "id": "call_2"})
    else:
        parts = replies["candidates"][0]["content"]["parts"]
        parts.append({"function_call": {**parts[0]["function_call"], "id": "call_2"}})
    answer = registry.run_tool_calls(replies)
    check_sdk(format, answer)
    wire = strings(answer)
    if format in ("openai", "gemini"):  # the text in the result, the media after it
        text = f'one\n{first.placeholder}\n{{"n": 2}}\n{second.placeholder}\nthree'
        assert wire.count(text) == 2
        marks = [wire.index(first.base64), wire.index(second.base64)]
    else:
        marks = [wire.index("one"), wire.index(first.base64), wire.index('"n": 2'),
                 wire.index(second.base64), wire.index("three")]  # fmt: skip
    assert marks == sorted(marks)
    assert wire.count(first.base64) == 2 and wire.count(second.base64) == 2
    if format == "openai":
        assert len(answer) == 3 and answer[2]["role"] == "user"
        intros = [p["text"] for p in answer[2]["content"] if p["type"] == "text"]
        assert intros == ["Media from tool call call_1:", "Media from tool call call_2:"]


BIG = 50 * 1024 * 1024


@pytest.mark.timeout(60)
@pytest.mark.parametrize("format", FORMATS)
def test_a_50_mb_image_answers_with_a_placeholder_over_limits(format: str) -> None:
    """A tool returning a 50 MB image: every provider answers, and where the image
    passes the provider's limit its placeholder says so instead of a refused request."""
    big = Image(PNG[:16] + bytes(BIG - 16))
    answer = returning(["caption", big]).run_tool_calls(reply(format))
    wire = repr(answer)
    if format == "gemini":  # 100 MB of inline data per request: it fits
        assert (
            answer[0]["parts"][0]["function_response"]["parts"][0]["inline_data"]["data"]
            == big.base64
        )
    else:
        limit = {"openai": "OpenAI's 50 MB image limit per request",
                 "openai-responses": "OpenAI's 50 MB image limit per request",
                 "anthropic": "Anthropic's 5 MB image limit"}[format]  # fmt: skip
        assert f"[image: image/png, {BIG} bytes: over {limit}, not sent]" in wire
        assert len(wire) < 10_000  # no base64 of it anywhere


@pytest.mark.timeout(60)
def test_limits_count_the_whole_answer() -> None:
    """Values each under a limit, together over a request's: the first ones sent, the
    rest named as not sent (Anthropic: 32 MB per request, 5 MB of base64 per image)."""
    image = Image(PNG[:16] + bytes(3 * 1024 * 1024))  # 4 MiB of base64: under 5 MB
    answer = returning([image] * 9).run_tool_calls(reply("anthropic"))
    content = answer[0]["content"][0]["content"]
    sent = [b for b in content if b["type"] == "image"]
    assert len(sent) == 7  # 7 x 4 MiB = 28 MiB <= 32 MB < 8 x 4 MiB
    assert content[-1]["text"].count("over Anthropic's 32 MB request limit, not sent") == 2
    gemini = returning([Image(PNG[:16] + bytes(40 * 1000 * 1000))] * 3).run_tool_calls(
        reply("gemini")
    )
    response = gemini[0]["parts"][0]["function_response"]
    assert len(response["parts"]) == 1  # 2 x 53 MB of base64 > 100 MB
    assert response["response"]["output"].count("over Gemini's 100 MB inline data limit") == 2


@pytest.mark.parametrize("format", FORMATS)
def test_types_a_provider_does_not_read_are_named(format: str) -> None:
    """An image type, audio format or file type the provider reads nowhere: named by its
    placeholder, never dropped."""
    values = [
        Image(b"<svg xmlns='http://www.w3.org/2000/svg'/>", mime_type="image/svg+xml"),
        Audio(b"OggS\x00\x02" + bytes(20)),
        File(b"PK\x03\x04zip", mime_type="application/zip", name="a.zip"),
        File(url="https://example.com/a.zip"),
    ]
    answer = returning(values).run_tool_calls(reply(format))
    check_sdk(format, answer)
    wire = strings(answer)
    for value in values:
        assert value.placeholder[:-1] in wire


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=20),
            st.integers(),
            st.sampled_from(list(KINDS.values())),
            st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(FORMATS),
)
def test_any_parts_are_accepted_and_nothing_is_lost(parts: list[Any], format: str) -> None:
    """Any list of parts: the answer is accepted by the SDK, and every media value in it
    reaches the answer (its bytes, URL or text) or is named by its placeholder."""
    answer = returning(parts).run_tool_calls(reply(format))
    check_sdk(format, answer)
    wire = strings(answer)
    for part in parts:
        if type(part) in (Image, Audio, File):
            reached = part.url or part.base64
            text = part.data.decode() if part.mime_type.startswith("text/") else reached
            assert reached in wire or text in wire or part.placeholder[:-1] in wire


def test_docs_fallback_table_matches_the_matrix() -> None:
    """docs/media.md's fallback table says what the matrix checks, cell by cell."""
    text = (Path(__file__).parents[2] / "docs" / "media.md").read_text(encoding="utf-8")
    header = (
        "| media | "
        + " | ".join(f"`{t}`" if t != "to_dict()" else "`to_dict()`" for t in TARGETS)
        + " |"
    )
    assert header in text
    rows = text.split(header, 1)[1].strip().splitlines()[1 : 1 + len(KINDS)]
    table = {}
    for row in rows:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]]
        table[cells[0]] = cells[1:]
    assert table == {kind: [LABELS[(kind, t)] for t in TARGETS] for kind in KINDS}


def test_base64_is_computed_once() -> None:
    value = Image(PNG)
    registry = returning(["caption", value])
    for format in FORMATS:
        registry.run_tool_calls(reply(format))
    assert value.base64 is value.base64 == base64.b64encode(PNG).decode()

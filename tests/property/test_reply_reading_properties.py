"""Properties of reading a reply, checked with hypothesis.

* DESIGN, fine print: "A reply's format is read from each reply's own shape; no earlier
  reply changes how a later one is read." Any sequence of replies of mixed shapes — SDK
  objects and wire dicts, every provider and level, the shapes that look like another
  provider's (an OpenAI message whose content is a list) — reads the same as each reply
  read alone with tooldeck's caches cleared.
* Anything that is no reply is refused with a ``TypeError`` naming what was given (its
  type), with or without ``format=``: never another exception.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion, ChatCompletionMessage

from tool_call_replies import FORMATS, Call, levels
from tooldeck import ToolRegistry, _reply_fields, _tool_calls
from tooldeck._tool_calls import read_tool_calls

pytestmark = pytest.mark.timeout(300)

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

registry = ToolRegistry()


@registry.tool
def add(a: int = 0, b: int = 0) -> int:
    """Add two integers."""
    return a + b


def clear_caches() -> None:
    """Forget every class tooldeck has met (as a fresh process has)."""
    _tool_calls.SDK_FORMATS.clear()
    for learned in (_reply_fields.PYDANTIC, _reply_fields._MAPPINGS, _reply_fields._OBJECTS):
        learned.clear()


PARTS = [{"type": "text", "text": "Let me add."}, {"type": "refusal", "refusal": "no"}]
OPENAI_CALL = {"id": "c9", "type": "function", "function": {"name": "add", "arguments": "{}"}}


def odd_shapes() -> list[Any]:
    """Valid replies whose shape looks like another provider's, or like no calls."""
    return [
        ChatCompletionMessage.model_construct(role="assistant", content=PARTS, tool_calls=None),
        ChatCompletionMessage.model_construct(
            role="assistant", content=PARTS, tool_calls=[OPENAI_CALL]
        ),
        ChatCompletion.model_construct(
            id="x",
            object="chat.completion",
            created=0,
            model="m",
            choices=[
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": ChatCompletionMessage.model_construct(
                        role="assistant", content=PARTS, tool_calls=None
                    ),
                }
            ],
        ),
        {"role": "assistant", "content": PARTS, "tool_calls": [OPENAI_CALL]},
        {"role": "assistant", "content": "just text"},
        {"role": "model"},
        {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    ]


@st.composite
def valid_replies(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(odd_shapes()))
    fmt = draw(st.sampled_from(FORMATS))
    n = draw(st.integers(0, 3))
    calls = [Call(f"c{i}", "add", "{}" if fmt.startswith("openai") else {}) for i in range(n)]
    found = levels(fmt, calls)
    return found[draw(st.sampled_from(sorted(found)))]


def outcome(reply: Any) -> Any:
    """What reading ``reply`` gives: its format, calls and answers, or the TypeError."""
    try:
        found, calls = read_tool_calls(reply)
    except TypeError as exc:
        return ("TypeError", str(exc))
    try:
        answers = registry.run_tool_calls(reply)
    except TypeError as exc:
        return ("TypeError from run_tool_calls", str(exc))
    return (found, json.dumps(calls, default=repr), answers)


@SETTINGS
@given(st.lists(valid_replies(), min_size=1, max_size=8))
def test_each_reply_reads_as_it_would_alone(replies: list[Any]) -> None:
    alone = []
    for reply in replies:
        clear_caches()
        alone.append(outcome(reply))
    clear_caches()
    assert [outcome(reply) for reply in replies] == alone
    for result in alone:
        assert result[0] in FORMATS or result[0] is None, result  # valid: all read


def test_an_openai_message_with_list_content_changes_nothing_after_it() -> None:
    """The review's case: a message whose content is a list, then ordinary ones."""
    clear_caches()
    listy, with_call = odd_shapes()[:2]
    plain = ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "tool_calls": [OPENAI_CALL]}
    )
    assert registry.run_tool_calls(listy) == []
    assert registry.run_tool_calls(with_call) == [
        {"role": "tool", "tool_call_id": "c9", "content": "0"}
    ]
    assert registry.run_tool_calls(plain) == [
        {"role": "tool", "tool_call_id": "c9", "content": "0"}
    ]


# -- anything that is no reply: a TypeError naming what was given ---------------------------

KEYS = [
    "choices", "message", "tool_calls", "function", "name", "arguments", "id", "type",
    "content", "output", "candidates", "parts", "role", "function_call", "functionCall",
    "args", "input", "call_id", "finish_reason", "prompt_feedback", "text",
]  # fmt: skip
TYPES = ["function", "function_call", "tool_use", "text", "custom", "message"]


class Hostile:
    """An SDK-like object whose every attribute raises (a proxy outside its context)."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} here")

    @property
    def __class__(self) -> Any:  # type: ignore[override]
        raise RuntimeError("no class here")


def sdk_like(fields: dict[str, Any]) -> Any:
    """A plain object with ``fields`` as attributes (as the SDKs' objects read)."""
    return type("SdkLike", (), dict(fields))()


leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=8),
    st.sampled_from(TYPES),
    st.binary(max_size=4),
    st.builds(Hostile),
)
anything = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(
            st.one_of(st.sampled_from(KEYS), st.text(max_size=4)), children, max_size=4
        ),
        st.dictionaries(st.sampled_from(KEYS), children, max_size=4).map(sdk_like),
        st.sets(st.integers(), max_size=2),
    ),
    max_leaves=15,
)


@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(anything, st.sampled_from([None, *FORMATS]))
def test_anything_reads_or_is_a_type_error_naming_it(reply: Any, format: str | None) -> None:
    for read in (
        lambda: read_tool_calls(reply, format),
        lambda: registry.run_tool_calls(reply, format=format),
    ):
        message = None
        try:
            read()
        except TypeError as exc:  # the only exception allowed
            message = str(exc)
        if message is not None:
            assert "got " in message, message  # what was given, by type and a prefix
            assert message.startswith("expected ") or "tool call's" in message, message


@pytest.mark.parametrize(
    ("reply", "format"),
    [
        ({"role": "assistant", "tool_calls": 5}, None),  # "'int' object is not iterable"
        ({"content": [Hostile()]}, None),  # RuntimeError from the object
        ([Hostile()], "anthropic"),
        (sdk_like({"output": [sdk_like({"type": "function_call", "call_id": Hostile()})]}), None),
        ({"candidates": 3}, "gemini"),
        ({"choices": [{"message": 7}]}, "openai"),
        (Hostile(), None),
    ],
    ids=[
        "not-iterable",
        "hostile-block",
        "hostile-list",
        "hostile-id",
        "candidates-int",
        "message-int",
        "hostile",
    ],
)
def test_known_non_replies_are_type_errors(reply: Any, format: str | None) -> None:
    with pytest.raises(TypeError, match="got "):
        read_tool_calls(reply, format)
    with pytest.raises(TypeError, match="got "):
        registry.run_tool_calls(reply, format=format)


class _Nameless(type):
    @property
    def __name__(cls) -> str:  # type: ignore[override]
        raise RuntimeError("no name here")


class _Moduleless(type):
    @property
    def __module__(cls) -> str:  # type: ignore[override]
        raise RuntimeError("no module here")


class _Unhashable(type):
    def __hash__(cls) -> int:
        raise RuntimeError("no hash here")


@pytest.mark.parametrize("meta", [_Nameless, _Moduleless, _Unhashable])
@pytest.mark.parametrize("format", [None, *FORMATS])
def test_a_reply_whose_class_is_hostile_is_a_type_error(meta: type, format: str | None) -> None:
    # The TypeError names the class: its name read safely ("unknown" if it raises).
    reply = meta("Reply", (), {})()
    for read in (
        lambda: registry.run_tool_calls(reply, format=format),
        lambda: asyncio.run(registry.async_run_tool_calls(reply, format=format)),
    ):
        with pytest.raises(TypeError, match="got "):
            read()


class _HashlessStr(str):
    def __hash__(self) -> int:
        raise RuntimeError("no hash here")


@pytest.mark.parametrize("format", [["openai"], {"openai": 1}, 5, _HashlessStr("openai")])
def test_a_format_that_is_no_str_is_a_value_error(format: Any) -> None:
    # (an unhashable format raised "unhashable type", a hostile str subclass its own)
    with pytest.raises(ValueError, match="unknown format"):
        registry.run_tool_calls({"role": "assistant", "tool_calls": []}, format=format)
    with pytest.raises(ValueError, match="unknown format"):
        asyncio.run(registry.async_run_tool_calls([], format=format))

"""A batch as text (``to_json`` / ``load_tool_calls``): what it holds, what signing buys.

Decisions recorded in the text count only when it is signed and loaded with the same
key; unsigned text loads with every call that needs approval pending again; text that is
no batch, or that was changed under a signature, is a ``ValueError``. The property test
changes the signed text anywhere: loading raises, or gives the very same batch.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry

KEY = b"a server-side secret"


def chat(*calls: tuple[str, str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ],
    }


REPLY = chat(
    ("c1", "delete_branch", {"name": "main"}),
    ("c2", "transfer", {"amount": 500}),
    ("c3", "transfer", {"amount": 5}),
    ("c4", "add", {"a": 1, "b": 2}),
    ("c5", "delete_branch", {"name": "old"}),
)


def make_registry(ran: list[Any] | None = None, *, with_delete: bool = True) -> ToolRegistry:
    ran = [] if ran is None else ran
    registry = ToolRegistry()
    if with_delete:

        @registry.tool(requires_approval=True)
        def delete_branch(name: str) -> str:
            ran.append(("delete", name))
            return f"deleted {name}"

    @registry.tool(requires_approval=lambda a, c: a["amount"] > c.get("limit", 0))
    def transfer(amount: int) -> str:
        ran.append(("transfer", amount))
        return f"sent {amount}"

    @registry.tool
    def add(a: int, b: int) -> int:
        return a + b

    return registry


def decided(registry: ToolRegistry, **load: Any) -> Any:
    batch = registry.prepare_tool_calls(REPLY, context={"limit": 100, "token": "s3cr3t"})
    batch.approve("c1", {"name": "feature"})
    batch.reject("c2", "over the limit")
    batch.answer("c5", "Kept it.")
    return batch


def contents(answer: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in answer]


IN_PLACE = [
    "deleted feature",
    "Error: over the limit",
    "sent 5",
    "3",
    "Kept it.",
]


def test_signed_text_keeps_the_decisions_and_no_context_value() -> None:
    registry = make_registry()
    text = decided(registry).to_json(key=KEY)
    assert "s3cr3t" not in text and '"token"' not in text and '"limit"' not in text
    loaded = registry.load_tool_calls(text, key=KEY, context={"limit": 100})
    assert [c.status for c in loaded.calls] == ["approved", "rejected", "ready", "ready",
                                                "answered"]  # fmt: skip
    assert loaded.calls[0].arguments == {"name": "feature"}
    assert contents(loaded.run()) == IN_PLACE == contents(decided(make_registry()).run())


def test_unsigned_text_waits_again_and_a_signature_needs_its_key() -> None:
    registry = make_registry()
    for text in (decided(registry).to_json(), decided(registry).to_json(key=KEY)):
        loaded = registry.load_tool_calls(text, context={"limit": 100})  # no key: no decisions
        assert [c.id for c in loaded.pending] == ["c1", "c2", "c5"]
    unsigned = decided(registry).to_json()
    with pytest.raises(ValueError, match="not signed"):
        registry.load_tool_calls(unsigned, key=KEY)
    with pytest.raises(ValueError, match="signature does not match"):
        registry.load_tool_calls(decided(registry).to_json(key=b"other"), key=KEY)
    with pytest.raises(TypeError, match="key must be bytes"):
        registry.load_tool_calls(unsigned, key="text")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        decided(registry).to_json(key=b"")


def forged(text: str, change: Any) -> str:
    data = json.loads(text)
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["calls"][3].update(status="approved"),  # a call never pending
        lambda d: d["calls"][1].update(status="approved"),  # a rejected one
        lambda d: d["calls"][0].update(call_id="c9", id="c9"),  # another call id
        lambda d: d["calls"][0].update(edited={"name": "main"}),  # other edits
        lambda d: d["calls"][3].update(arguments='{"a": 5, "b": 5}'),
        lambda d: d["calls"].pop(),
    ],
)
def test_signed_text_changed_is_refused(change: Any) -> None:
    ran: list[Any] = []
    registry = make_registry(ran)
    text = forged(decided(registry).to_json(key=KEY), change)
    with pytest.raises(ValueError, match="signature does not match"):
        registry.load_tool_calls(text, key=KEY)
    loaded = registry.load_tool_calls(text, context={"limit": 100})  # unsigned: pending again
    loaded.run()
    assert [r for r in ran if r[0] == "delete" or r[1] == 500] == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        "{}",
        "not json",
        '{"kind": "tooldeck.tool_call_batch", "version": 2, "format": null, "calls": []}',
        '{"kind": "tooldeck.tool_call_batch", "version": 1, "format": "x", "calls": []}',
        '{"kind": "tooldeck.tool_call_batch", "version": 1, "format": null, "calls": [], '
        '"format": "openai"}',
        '{"kind": "tooldeck.tool_call_batch", "version": 1, "format": "openai", "calls": '
        '[{"id": "c1", "call_id": "c1", "name": "add", "arguments": "{}", "status": "won"}]}',
        '{"kind": "tooldeck.tool_call_batch", "version": 1, "format": "openai", "calls": '
        '[{"id": "c1", "call_id": null, "name": "add", "arguments": "{}", "status": "ready"}]}',
        '{"kind": "tooldeck.tool_call_batch", "version": 1, "format": "openai", "calls": '
        '[{"id": "x", "call_id": "c1", "name": "add", "arguments": "{}", "status": "ready"}]}',
        b"\xff\xfe",
        "[" * 100_000,
    ],
)
def test_text_that_is_no_batch_is_a_value_error(text: Any) -> None:
    with pytest.raises(ValueError):
        make_registry().load_tool_calls(text)
    with pytest.raises(TypeError):
        make_registry().load_tool_calls({"calls": []})  # type: ignore[arg-type]


def test_a_tool_gone_or_changed_since_is_answered_as_read_now() -> None:
    text = decided(make_registry()).to_json(key=KEY)
    ran: list[Any] = []
    loaded = make_registry(ran, with_delete=False).load_tool_calls(
        text, key=KEY, context={"limit": 1}
    )  # no delete_branch any more; a lower limit
    assert [c.status for c in loaded.calls] == ["failed", "rejected", "pending", "ready",
                                                "answered"]  # fmt: skip
    assert contents(loaded.run()) == [
        "Error: Tool 'delete_branch' not found",
        "Error: over the limit",
        "Error: The user declined to run tool 'transfer'",
        "3",
        "Kept it.",
    ]
    assert ran == []


def test_a_run_batch_has_no_text() -> None:
    batch = decided(make_registry())
    batch.run()
    with pytest.raises(RuntimeError, match="has run"):
        batch.to_json(key=KEY)


def test_gemini_batch_ids_survive_the_text() -> None:
    parts = [{"function_call": {"name": "delete_branch", "args": {"name": "a"}}}]
    registry = make_registry()
    batch = registry.prepare_tool_calls({"role": "model", "parts": parts})
    batch.approve("call_1")
    loaded = registry.load_tool_calls(batch.to_json(key=KEY).encode(), key=KEY)
    (answer,) = loaded.run()
    assert answer["parts"] == [
        {"function_response": {"name": "delete_branch", "response": {"output": "deleted a"}}}
    ]


# -- whatever is changed in signed text, nothing runs that was not approved ----------------

SIGNED = decided(make_registry()).to_json(key=KEY)
STATE = [
    (c.id, c.name, c.status, c.arguments, c.message)
    for c in make_registry().load_tool_calls(SIGNED, key=KEY).calls
]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(SIGNED) - 1), st.characters(codec="utf-8")),
        min_size=1,
        max_size=3,
    )
)
def test_changing_signed_text_raises_or_changes_nothing(changes: list[tuple[int, str]]) -> None:
    text = list(SIGNED)
    for at, char in changes:
        text[at] = char
    ran: list[Any] = []
    registry = make_registry(ran)
    try:
        loaded = registry.load_tool_calls("".join(text), key=KEY)
    except ValueError:
        return
    state = [(c.id, c.name, c.status, c.arguments, c.message) for c in loaded.calls]
    assert state == STATE

"""Approval at its edges: a batch run with another context than its policy saw."""

from __future__ import annotations

from typing import Any

import pytest

from tooldeck import ToolRegistry

REPLY = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "restart", "arguments": '{"service": "db"}'}},
    ],
}  # fmt: skip


def make(ran: list[str], asked: list[Any]) -> ToolRegistry:
    registry = ToolRegistry()

    def guests_ask(arguments: dict[str, Any], context: Any) -> bool:
        asked.append(context.get("role"))
        return bool(context.get("role") != "admin")

    @registry.tool(requires_approval=guests_ask)
    def restart(service: str) -> str:
        """Restart a service."""
        ran.append(service)
        return f"restarted {service}"

    return registry


@pytest.mark.parametrize("face", ["run", "arun"])
async def test_run_with_another_context_asks_the_policy_again(face: str) -> None:
    """The policy let the call through for an admin; run for a guest, it ran unapproved."""
    ran: list[str] = []
    asked: list[Any] = []
    batch = make(ran, asked).prepare_tool_calls(REPLY, context={"role": "admin"})
    assert [c.status for c in batch.calls] == ["ready"]
    guest = {"role": "guest"}
    messages = batch.run(context=guest) if face == "run" else await batch.arun(context=guest)
    assert [m["content"] for m in messages] == ["Error: Tool 'restart' needs approval"]
    assert ran == []
    assert asked == ["admin", "guest"]


def test_run_with_the_same_context_does_not_ask_again() -> None:
    ran: list[str] = []
    asked: list[Any] = []
    context = {"role": "admin"}
    batch = make(ran, asked).prepare_tool_calls(REPLY, context=context)
    assert [m["content"] for m in batch.run()] == ["restarted db"]
    assert asked == ["admin"]  # asked when read, once
    batch = make(ran, asked).prepare_tool_calls(REPLY, context=context)
    assert [m["content"] for m in batch.run(context=context)] == ["restarted db"]
    assert ran == ["db", "db"]


def test_a_persons_approval_stands_whatever_the_run_context() -> None:
    ran: list[str] = []
    asked: list[Any] = []
    batch = make(ran, asked).prepare_tool_calls(REPLY, context={"role": "guest"})
    batch.approve("c1")
    assert [m["content"] for m in batch.run(context={"role": "other"})] == ["restarted db"]
    assert ran == ["db"]


def test_a_policy_failing_on_the_run_context_fails_the_call() -> None:
    ran: list[str] = []
    registry = ToolRegistry()

    @registry.tool(requires_approval=lambda arguments, context: context["role"] == "guest")
    def restart(service: str) -> str:
        """Restart a service."""
        ran.append(service)
        return "restarted"

    batch = registry.prepare_tool_calls(REPLY, context={"role": "admin"})
    [message] = batch.run(context={})
    assert message["content"].startswith("Error: Tool 'restart' was not run: its approval policy")
    assert ran == []


def test_loaded_text_run_with_another_context_asks_again() -> None:
    ran: list[str] = []
    asked: list[Any] = []
    registry = make(ran, asked)
    text = registry.prepare_tool_calls(REPLY, context={"role": "guest"}).to_json(key=b"k")
    batch = registry.load_tool_calls(text, key=b"k", context={"role": "admin"})
    assert [c.status for c in batch.calls] == ["ready"]
    assert [m["content"] for m in batch.run(context={"role": "guest"})] == [
        "Error: Tool 'restart' needs approval"
    ]
    assert ran == []

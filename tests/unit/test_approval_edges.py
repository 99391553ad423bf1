"""Approval at its edges: a batch run with another context than its policy saw, or
with the same one changed since: the policy is asked again at the run."""

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


def test_run_with_the_same_unchanged_context_runs_what_the_policy_let_through() -> None:
    ran: list[str] = []
    asked: list[Any] = []
    context = {"role": "admin"}
    batch = make(ran, asked).prepare_tool_calls(REPLY, context=context)
    assert [m["content"] for m in batch.run()] == ["restarted db"]
    assert asked == ["admin", "admin"]  # asked when read, and again at the run
    batch = make(ran, asked).prepare_tool_calls(REPLY, context=context)
    assert [m["content"] for m in batch.run(context=context)] == ["restarted db"]
    assert ran == ["db", "db"]


@pytest.mark.parametrize("face", ["run", "arun"])
async def test_the_same_context_changed_before_the_run_asks_the_policy_again(face: str) -> None:
    """The app downgrades the user in the very dict the batch was prepared with."""
    ran: list[str] = []
    asked: list[Any] = []
    context = {"role": "admin"}
    batch = make(ran, asked).prepare_tool_calls(REPLY, context=context)
    assert [c.status for c in batch.calls] == ["ready"]
    context["role"] = "guest"
    messages = batch.run() if face == "run" else await batch.arun()
    assert [m["content"] for m in messages] == ["Error: Tool 'restart' needs approval"]
    assert ran == []
    assert asked == ["admin", "guest"]


def test_a_change_deep_inside_the_context_is_seen_too() -> None:
    ran: list[str] = []
    registry = ToolRegistry()

    class User:
        role = "admin"

    @registry.tool(requires_approval=lambda a, context: context["user"].role != "admin")
    def restart(service: str) -> str:
        """Restart a service."""
        ran.append(service)
        return "restarted"

    user = User()
    batch = registry.prepare_tool_calls(REPLY, context={"user": user})
    user.role = "guest"
    assert [m["content"] for m in batch.run()] == ["Error: Tool 'restart' needs approval"]
    assert ran == []


def test_loaded_text_whose_context_changed_before_the_run_asks_again() -> None:
    ran: list[str] = []
    asked: list[Any] = []
    registry = make(ran, asked)
    text = registry.prepare_tool_calls(REPLY, context={"role": "admin"}).to_json(key=b"k")
    context = {"role": "admin"}
    batch = registry.load_tool_calls(text, key=b"k", context=context)
    assert [c.status for c in batch.calls] == ["ready"]
    context["role"] = "guest"
    assert [m["content"] for m in batch.run()] == ["Error: Tool 'restart' needs approval"]
    assert ran == []


@pytest.mark.parametrize("face", ["sync", "async"])
async def test_a_context_changed_while_approve_is_asked_is_seen_by_the_run(face: str) -> None:
    """``run_tool_calls(approve=...)``: the wait for a person is a gap as well."""
    ran: list[str] = []
    asked: list[Any] = []
    registry = make(ran, asked)

    @registry.tool(requires_approval=True)
    def delete(name: str) -> str:
        """Delete something."""
        ran.append(name)
        return "deleted"

    reply = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            *REPLY["tool_calls"],  # type: ignore[misc]
            {"id": "c2", "type": "function",
             "function": {"name": "delete", "arguments": '{"name": "x"}'}},
        ],
    }  # fmt: skip
    context = {"role": "admin"}

    def approve(call: Any) -> bool:
        context["role"] = "guest"  # meanwhile, the user was downgraded
        return True

    if face == "sync":
        messages = registry.run_tool_calls(reply, context=context, approve=approve)
    else:
        messages = await registry.async_run_tool_calls(reply, context=context, approve=approve)
    assert [m["content"] for m in messages] == [
        "Error: Tool 'restart' needs approval",
        "deleted",
    ]
    assert ran == ["x"]


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

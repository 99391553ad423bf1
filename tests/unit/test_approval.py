"""Approval before a call runs: the batch's rules, the policy, and what cannot be forged.

Every test here holds one rule of docs/approval.md: a call that needs approval never
runs without it (not through the model's own arguments, not through a policy's
mistake, not through an ``approve`` that fails), decisions are checked (an unknown or
decided id, a second run), and what the person or the model sees is what runs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from tooldeck import BaseTool, ToolCallBatch, ToolRegistry, ToolResult
from tooldeck.errors import ToolDefinitionError

pytestmark = pytest.mark.timeout(30)


def chat(*calls: tuple[str, str, Any]) -> dict[str, Any]:
    """An OpenAI Chat Completions message asking for ``(id, name, arguments)`` calls."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ],
    }


def contents(answer: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in answer]


@pytest.fixture
def ran() -> list[tuple[str, Any]]:
    return []


@pytest.fixture
def registry(ran: list[tuple[str, Any]]) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(requires_approval=True)
    def delete_branch(name: str) -> str:
        ran.append(("delete_branch", name))
        return f"deleted {name}"

    @registry.tool
    def add(a: int, b: int = 0) -> int:
        ran.append(("add", a))
        return a + b

    return registry


# -- defining ----------------------------------------------------------------------------


def test_requires_approval_is_a_bool_or_a_sync_callable() -> None:
    registry = ToolRegistry()
    with pytest.raises(ToolDefinitionError, match="requires_approval must be"):

        @registry.tool(requires_approval="yes")  # type: ignore[arg-type]
        def a() -> None: ...

    async def policy(arguments: Any, context: Any) -> bool:
        return True

    with pytest.raises(ToolDefinitionError, match="sync policy"):

        @registry.tool(requires_approval=policy)  # type: ignore[arg-type]
        def b() -> None: ...

    @registry.tool(requires_approval=True)
    def c() -> None: ...

    @registry.tool
    def d() -> None: ...

    assert registry.get("c").requires_approval is True  # type: ignore[union-attr]
    assert registry.get("d").requires_approval is False  # type: ignore[union-attr]
    with pytest.raises(ToolDefinitionError, match="requires_approval"):
        ToolRegistry().register(registry.get("d"), requires_approval=True)


# -- decisions -----------------------------------------------------------------------------


def test_deciding_an_unknown_a_decided_or_a_ready_id_raises(registry: ToolRegistry) -> None:
    batch = registry.prepare_tool_calls(
        chat(("c1", "delete_branch", {"name": "main"}), ("c2", "add", {"a": 1}))
    )
    with pytest.raises(ValueError, match="no call in this batch has the id 'nope'"):
        batch.approve("nope")
    with pytest.raises(ValueError, match="'c2' is ready, not pending"):
        batch.reject("c2")
    batch.reject("c1")
    for decide in (batch.approve, batch.reject, lambda i: batch.answer(i, "x")):
        with pytest.raises(ValueError, match="'c1' is rejected, not pending"):
            decide("c1")
    with pytest.raises(ValueError, match="no call"):
        batch.approve(["unhashable"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        batch.answer("c1", 3)  # type: ignore[arg-type]


def test_a_batch_runs_once_and_is_decided_before(
    registry: ToolRegistry, ran: list[tuple[str, Any]]
) -> None:
    batch = registry.prepare_tool_calls(
        chat(("c1", "delete_branch", {"name": "main"}), ("c2", "delete_branch", {"name": "x"}))
    )
    batch.approve("c1")
    assert contents(batch.run()) == ["deleted main", "Error: The user declined to run tool "
                                                      "'delete_branch'"]  # fmt: skip
    with pytest.raises(RuntimeError, match="run already"):
        batch.run()
    with pytest.raises(ValueError, match="has run"):
        batch.approve("c2")  # still pending, but answered as declined: too late
    assert ran == [("delete_branch", "main")]


def test_edited_arguments_are_validated_and_copied(
    registry: ToolRegistry, ran: list[tuple[str, Any]]
) -> None:
    batch = registry.prepare_tool_calls(
        chat(("c1", "delete_branch", {"name": "main"}), ("c2", "delete_branch", {"name": "x"}))
    )
    edits = {"name": "feature"}
    batch.approve("c1", edits)
    edits["name"] = "main"  # changed after the approval: not what was approved
    batch.approve("c2", {"name": "y", "force": True})  # not an argument of the tool
    assert [c.status for c in batch.calls] == ["approved", "failed"]
    assert batch.calls[0].arguments == {"name": "feature"}
    assert "force: unexpected argument" in (batch.calls[1].message or "")
    answer = contents(batch.run())
    assert answer[0] == "deleted feature"
    assert answer[1].startswith("Error: Invalid arguments for tool 'delete_branch'")
    assert ran == [("delete_branch", "feature")]


def test_answer_is_what_the_model_reads_and_nothing_runs(
    registry: ToolRegistry, ran: list[tuple[str, Any]]
) -> None:
    batch = registry.prepare_tool_calls(chat(("c1", "delete_branch", {"name": "main"})))
    batch.answer("c1", "Deleted it myself.")
    assert contents(batch.run()) == ["Deleted it myself."]
    assert ran == []


def test_a_record_cannot_be_changed_from_outside(registry: ToolRegistry) -> None:
    batch = registry.prepare_tool_calls(chat(("c1", "delete_branch", {"name": "main"})))
    (call,) = batch.calls
    with pytest.raises(AttributeError):
        call.status = "approved"  # type: ignore[misc]
    call.arguments["name"] = "other"  # a copy: what runs is unchanged
    assert call.arguments == {"name": "main"}
    assert batch.pending == [call]


def test_not_a_reply_and_a_reply_without_calls(registry: ToolRegistry) -> None:
    with pytest.raises(TypeError, match="expected a model's reply"):
        registry.prepare_tool_calls(42)
    empty = registry.prepare_tool_calls({"role": "assistant", "content": "Hi."})
    assert empty.calls == () and empty.format is None and empty.run() == []


# -- nothing the model sends approves a call -----------------------------------------------


@pytest.mark.parametrize("field", ["approved", "_approved", "approval", "status"])
def test_the_models_own_arguments_cannot_approve(
    registry: ToolRegistry, ran: list[tuple[str, Any]], field: str
) -> None:
    reply = chat(("c1", "delete_branch", {"name": "main", field: True}))
    assert registry.prepare_tool_calls(reply).calls[0].status == "failed"  # unexpected
    answer = contents(registry.run_tool_calls(reply))
    assert answer[0].startswith("Error: Invalid arguments")
    assert ran == []


class Open(BaseTool):
    """A JSON-Schema tool that takes any extra argument (approved: true included)."""

    def __init__(self, ran: list[tuple[str, Any]]) -> None:
        self.ran = ran

    name = "wipe"
    description = "Wipe a disk."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"disk": {"type": "string"}},
    }

    async def execute(self, **kwargs: Any) -> ToolResult:
        self.ran.append(("wipe", kwargs))
        return ToolResult.ok("wiped")


def test_an_extra_approved_argument_a_schema_allows_still_waits(
    ran: list[tuple[str, Any]],
) -> None:
    from tooldeck import Tool
    from tooldeck._schema_tools import from_base_tool

    base = from_base_tool(Open(ran))
    tool = Tool(base.func, spec=base.spec, requires_approval=True)
    registry = ToolRegistry()
    registry.register(tool)
    reply = chat(("c1", "wipe", {"disk": "sda", "approved": True, "_approved": True}))
    assert [c.status for c in registry.prepare_tool_calls(reply).calls] == ["pending"]
    assert contents(registry.run_tool_calls(reply)) == ["Error: Tool 'wipe' needs approval"]
    assert ran == []


# -- the policy ----------------------------------------------------------------------------


def test_the_policy_sees_validated_arguments_and_the_context() -> None:
    seen: list[tuple[Any, Any]] = []

    def over_limit(arguments: dict[str, Any], context: Mapping[str, Any]) -> bool:
        seen.append((arguments, dict(context)))
        return bool(arguments["amount"] > context["limit"])

    registry = ToolRegistry()

    @registry.tool(requires_approval=over_limit)
    def transfer(amount: int) -> str:
        return f"sent {amount}"

    reply = chat(("c1", "transfer", {"amount": "500"}), ("c2", "transfer", {"amount": 5}))
    batch = registry.prepare_tool_calls(reply, context={"limit": 100})
    assert [c.status for c in batch.calls] == ["pending", "ready"]
    assert seen == [({"amount": 500}, {"limit": 100}), ({"amount": 5}, {"limit": 100})]
    assert contents(batch.run()) == ["Error: The user declined to run tool 'transfer'", "sent 5"]


@pytest.mark.parametrize(
    ("policy", "why"),
    [
        (lambda a, c: 1 / 0, "raised division by zero"),
        (lambda a, c: None, "answered None, not True or False"),
        (lambda a, c: c.update(x=1), "raised"),  # the context is read-only
    ],
)
def test_a_failing_policy_fails_the_call_naming_it(policy: Any, why: str) -> None:
    ran: list[int] = []
    registry = ToolRegistry()

    @registry.tool(requires_approval=policy)
    def transfer(amount: int) -> str:
        ran.append(amount)
        return "sent"

    reply = chat(("c1", "transfer", {"amount": 5}))
    batch = registry.prepare_tool_calls(reply, context={"limit": 1})
    assert batch.calls[0].status == "failed" and batch.pending == []
    (text,) = contents(batch.run())
    assert text.startswith("Error: Tool 'transfer' was not run: its approval policy '")
    assert "<lambda>" in text and why in text
    assert contents(registry.run_tool_calls(reply, approve=lambda call: True)) == [text]
    assert ran == []


# -- approve= in run_tool_calls ------------------------------------------------------------


@pytest.mark.parametrize(
    ("approve", "said"),
    [
        (lambda call: 1 / 0, "approve raised division by zero"),
        (lambda call: None, "approve answered None, not True, False or a message"),
        (lambda call: "yes", None),  # a str declines, with that message
    ],
)
def test_an_approve_that_fails_or_declines_never_runs_the_call(
    registry: ToolRegistry, ran: list[tuple[str, Any]], approve: Any, said: str | None
) -> None:
    (text,) = contents(
        registry.run_tool_calls(chat(("c1", "delete_branch", {"name": "x"})), approve=approve)
    )
    if said is None:
        assert text == "Error: yes"
    else:
        assert text == f"Error: Tool 'delete_branch' was not run: {said}"
    assert ran == []


def test_approve_is_asked_once_per_pending_call_in_order(
    registry: ToolRegistry, ran: list[tuple[str, Any]]
) -> None:
    asked: list[tuple[str, str, Any, str]] = []

    async def approve(call: Any) -> bool:  # async, from the sync face
        asked.append((call.id, call.name, call.arguments, call.status))
        return call.id == "c3"

    reply = chat(
        ("c1", "delete_branch", {"name": "a"}),
        ("c2", "add", {"a": 1}),
        ("c3", "delete_branch", {"name": "b"}),
    )
    answer = contents(registry.run_tool_calls(reply, approve=approve))
    assert asked == [
        ("c1", "delete_branch", {"name": "a"}, "pending"),
        ("c3", "delete_branch", {"name": "b"}, "pending"),
    ]
    assert answer == ["Error: The user declined to run tool 'delete_branch'", "1", "deleted b"]
    assert sorted(ran) == [("add", 1), ("delete_branch", "b")]
    with pytest.raises(TypeError, match="approve must be a callable"):
        registry.run_tool_calls(reply, approve="yes")  # type: ignore[arg-type]


def test_a_turn_without_gated_calls_and_an_unregistered_gate(registry: ToolRegistry) -> None:
    assert contents(registry.run_tool_calls(chat(("c1", "add", {"a": 2})))) == ["2"]
    registry.unregister("delete_branch")

    @registry.tool
    def delete_branch(name: str) -> str:
        return "gone"

    assert contents(registry.run_tool_calls(chat(("c1", "delete_branch", {"name": "x"})))) == [
        "gone"
    ]


# -- the calls that run: middleware, context, ids ------------------------------------------


async def test_approved_calls_run_through_the_middleware_with_the_context() -> None:
    seen: list[tuple[Any, ...]] = []
    registry = ToolRegistry()

    @registry.middleware
    def audit(call: Any, call_next: Any) -> Any:
        seen.append((call.name, call.call_id, call.format, call.source, dict(call.arguments)))
        return call_next(call)

    from typing import Annotated

    from tooldeck import Injected

    @registry.tool(requires_approval=True)
    def delete_branch(name: str, user: Annotated[str, Injected]) -> str:
        return f"{user} deleted {name}"

    reply = chat(("c1", "delete_branch", {"name": "main"}))
    batch = registry.prepare_tool_calls(reply, context={"user": "ada"})
    batch.approve("c1", {"name": "dev"})
    assert contents(await batch.arun()) == ["ada deleted dev"]
    assert seen == [("delete_branch", "c1", "openai", "tool_calls", {"name": "dev"})]
    again = registry.prepare_tool_calls(reply, context={"user": "ada"})
    again.approve("c1")
    assert contents(again.run(context={"user": "bob"})) == ["bob deleted main"]


def test_gemini_calls_without_ids_get_batch_ids_their_answers_do_not_carry(
    registry: ToolRegistry,
) -> None:
    parts = [
        {"function_call": {"name": "delete_branch", "args": {"name": "a"}}},
        {"function_call": {"id": "call_1", "name": "add", "args": {"a": 1}}},
        {"function_call": {"id": "call_1", "name": "add", "args": {"a": 2}}},
    ]
    batch = registry.prepare_tool_calls({"role": "model", "parts": parts})
    assert [c.id for c in batch.calls] == ["call_1_", "call_1", "call_3"]
    batch.approve("call_1_")
    (answer,) = batch.run()
    responses = [p["function_response"] for p in answer["parts"]]
    assert responses == [
        {"name": "delete_branch", "response": {"output": "deleted a"}},
        {"id": "call_1", "name": "add", "response": {"output": 1}},
        {"id": "call_1", "name": "add", "response": {"output": 2}},
    ]


def test_the_batch_repr_and_public_type(registry: ToolRegistry) -> None:
    batch = registry.prepare_tool_calls(chat(("c1", "delete_branch", {"name": "main"})))
    assert isinstance(batch, ToolCallBatch)
    assert repr(batch) == "<ToolCallBatch 1 calls, 1 pending>"
    assert repr(batch.calls[0]) == "<BatchCall 'c1' 'delete_branch' pending>"
    assert batch.calls[0].tool is registry.get("delete_branch")

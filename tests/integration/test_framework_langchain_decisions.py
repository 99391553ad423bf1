"""LangChain: a person's decision on a paused call, in LangChain's own shapes.

The decisions are LangChain's (``langchain.agents.middleware.human_in_the_loop``,
langchain 1.5: ``ApproveDecision``, ``EditDecision``, ``RejectDecision``,
``RespondDecision``, and ``HITLResponse``'s ``{"decisions": [...]}``), typed here as
the plain dicts they are. LangGraph is imported inside the tests only.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from framework_tools import gated_registry

from tooldeck import Tool

pytestmark = pytest.mark.timeout(60)

_threads = itertools.count()


def _paused_app(tools: list[Any]) -> Any:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "tools")
    return graph.compile(checkpointer=InMemorySaver())


def _decide(app: Any, call: dict[str, Any], decision: Any, *, run: str = "sync") -> Any:
    """Pause on ``call``, resume with ``decision``: the call's ``ToolMessage``."""
    from langchain_core.messages import AIMessage
    from langgraph.types import Command

    config = {"configurable": {"thread_id": f"t{next(_threads)}"}}
    ask = {"messages": [AIMessage(content="", tool_calls=[call])]}
    if run == "sync":
        paused = app.invoke(ask, config=config)
        assert paused["__interrupt__"][0].value["tool"] == call["name"]
        done = app.invoke(Command(resume=decision), config=config)
    else:
        paused = asyncio.run(app.ainvoke(ask, config=config))
        assert paused["__interrupt__"][0].value["tool"] == call["name"]
        done = asyncio.run(app.ainvoke(Command(resume=decision), config=config))
    return done["messages"][-1]


DELETE = {"name": "delete", "args": {"name": "main"}, "id": "d"}


def _edit(args: Any, name: str = "delete") -> dict[str, Any]:
    return {"type": "edit", "edited_action": {"name": name, "args": args}}


@pytest.mark.parametrize("run", ["sync", "async"])
def test_an_edit_decision_runs_the_call_with_the_edited_arguments(run: str) -> None:
    registry = gated_registry()
    refused = registry.call_tool("delete", {"name": 3})
    ran: list[str] = []
    registry.add_middleware(lambda call, call_next: ran.append(call.name) or call_next(call))
    app = _paused_app(registry.to_langchain())

    edited = _decide(app, DELETE, _edit({"name": "dev"}), run=run)
    assert (edited.content, edited.status) == ("deleted dev", "success")
    # HITLResponse's shape, one decision: the same
    batched = _decide(app, DELETE, {"decisions": [_edit({"name": "old"})]}, run=run)
    assert (batched.content, batched.status) == ("deleted old", "success")
    # edited arguments are validated again: invalid ones are the call's failure
    invalid = _decide(app, DELETE, _edit({"name": 3}), run=run)
    assert invalid.status == "error"
    assert invalid.content == refused
    assert invalid.content.startswith("Error: Invalid arguments for tool 'delete'")
    # an edit cannot turn the call into another tool's
    other = _decide(app, DELETE, _edit({"amount": 1}, name="spend"), run=run)
    assert other.status == "error" and "spend" in other.content
    assert ran == ["delete"] * 3  # the other tool's edit never reached the registry


def test_approve_reject_and_respond_decisions() -> None:
    registry = gated_registry()
    app = _paused_app(registry.to_langchain())

    approved = _decide(app, DELETE, {"type": "approve"})
    assert (approved.content, approved.status) == ("deleted main", "success")
    rejected = _decide(app, DELETE, {"type": "reject", "message": "not on main"})
    assert (rejected.content, rejected.status) == ("Error: not on main", "error")
    plain = _decide(app, DELETE, {"type": "reject"})
    assert plain.content == "Error: The user declined to run tool 'delete'"
    answered = _decide(app, DELETE, {"type": "respond", "message": "deleted it by hand"})
    assert (answered.content, answered.status) == ("deleted it by hand", "success")
    # anything else is no approval: the call does not run
    for unknown in ({"type": "maybe"}, {"decisions": []}, _edit("name=dev"), False, 1):
        message = _decide(app, DELETE, unknown)
        assert message.content == "Error: The user declined to run tool 'delete'"
        assert message.status == "error"


def test_a_single_tools_bridge_takes_an_edit_too() -> None:
    delete = gated_registry().get("delete")
    assert isinstance(delete, Tool)
    app = _paused_app([delete.to_langchain()])
    edited = _decide(app, DELETE, _edit({"name": "dev"}), run="async")
    assert (edited.content, edited.status) == ("deleted dev", "success")

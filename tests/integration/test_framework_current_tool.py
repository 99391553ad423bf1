"""A registry's bridges ask the registry at call time: a tool replaced after conversion
with another ``requires_approval``, disabled or unregistered is that tool, in every
framework (LangChain, the OpenAI Agents SDK, Pydantic AI).

The frameworks are imported inside the tests only (every xdist worker imports this module).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tooldeck import ToolRegistry

pytestmark = pytest.mark.timeout(60)


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def grow(name: str) -> str:
        return f"grew {name}"

    @registry.tool(requires_approval=True)
    def shrink(name: str) -> str:
        return f"shrank {name}"

    @registry.tool
    def gone(name: str) -> str:
        return f"gone {name}"

    @registry.tool(requires_approval=True)
    def off(name: str) -> str:
        return f"off {name}"

    return registry


def _change(registry: ToolRegistry) -> None:
    """After conversion: ``grow`` now needs approval, ``shrink`` no longer does (and
    answers otherwise), ``gone`` is unregistered, ``off`` disabled."""

    def grow(name: str) -> str:
        return f"grew {name}"

    def shrink(name: str) -> str:
        return f"shrank {name}, new"

    registry.register(grow, requires_approval=lambda arguments, context: True, replace=True)
    registry.register(shrink, replace=True)
    registry.unregister("gone")
    registry.disable("off")


CHANGED = {
    "shrink": "shrank x, new",
    "gone": "Error: Tool 'gone' not found",
    "off": "Error: Tool 'off' is disabled",
}
# the model's calls of grow (approved), then CHANGED's tools, answered
ANSWERS = {"c0": "grew x"} | {f"c{i}": text for i, text in enumerate(CHANGED.values(), 1)}


@pytest.mark.parametrize("run", ["sync", "async"])
def test_langchain_tools_ask_the_registry_at_call_time(run: str) -> None:
    registry = _registry()
    tools = {t.name: t for t in registry.to_langchain()}
    _change(registry)

    def invoke(name: str) -> Any:
        call = {"type": "tool_call", "name": name, "args": {"name": "x"}, "id": "1"}
        if run == "sync":
            return tools[name].invoke(call)
        return asyncio.run(tools[name].ainvoke(call))

    # outside a graph nobody can approve: a tool that now needs approval does not run
    grown = invoke("grow")
    assert (grown.content, grown.status) == ("Error: Tool 'grow' needs approval", "error")
    assert {n: invoke(n).content for n in CHANGED} == CHANGED
    assert [invoke(n).status for n in CHANGED] == ["success", "error", "error"]


def test_langgraph_pauses_for_a_tool_that_needs_approval_since_conversion() -> None:
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode
    from langgraph.types import Command

    registry = _registry()
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(registry.to_langchain()))
    graph.add_edge(START, "tools")
    app = graph.compile(checkpointer=InMemorySaver())
    _change(registry)
    config = {"configurable": {"thread_id": "1"}}
    calls = [{"name": "grow", "args": {"name": "x"}, "id": "g"}]
    paused = app.invoke({"messages": [AIMessage(content="", tool_calls=calls)]}, config=config)
    assert paused["__interrupt__"][0].value == {"tool": "grow", "arguments": {"name": "x"}}
    done = app.invoke(Command(resume=True), config=config)
    assert done["messages"][-1].content == "grew x"


def test_agents_tools_ask_the_registry_at_call_time() -> None:
    from agents import Agent, RunConfig, Runner
    from test_framework_openai_agents import _model, _outputs

    registry = _registry()
    tools = registry.to_openai_agents()
    _change(registry)
    seen: list[Any] = []
    turn = [(name, {"name": "x"}) for name in ("grow", *CHANGED)]
    agent = Agent(name="a", tools=tools, model=_model([turn], seen))
    quiet = RunConfig(tracing_disabled=True)
    paused = Runner.run_sync(agent, "x", run_config=quiet)
    assert [i.name for i in paused.interruptions] == ["grow"]  # only the tool gated now
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    done = Runner.run_sync(agent, state, run_config=quiet)
    assert done.final_output == "done"
    assert _outputs(seen[-1][1]) == ANSWERS


@pytest.mark.parametrize("run", ["sync", "async"])
def test_pydantic_ai_tools_ask_the_registry_at_call_time(run: str) -> None:
    from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolApproved
    from test_framework_pydantic_ai import _model, _returns

    registry = _registry()
    toolset = registry.to_pydantic_ai()
    _change(registry)
    seen: list[Any] = []
    turn = [(name, {"name": "x"}) for name in ("grow", *CHANGED)]
    agent = Agent(_model(turn, seen), toolsets=[toolset], output_type=[str, DeferredToolRequests])
    paused = agent.run_sync("x") if run == "sync" else asyncio.run(agent.run("x"))
    assert isinstance(paused.output, DeferredToolRequests)
    assert [c.tool_name for c in paused.output.approvals] == ["grow"]
    # approved with edited arguments (Pydantic AI's own edit): they reach the tool
    decisions = DeferredToolResults(approvals={"c0": ToolApproved(override_args={"name": "y"})})
    done = agent.run_sync(message_history=paused.all_messages(), deferred_tool_results=decisions)
    assert done.output == "done"
    assert _returns(seen[-1][1]) == ANSWERS | {"c0": "grew y"}

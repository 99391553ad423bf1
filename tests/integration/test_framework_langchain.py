"""LangChain: tooldeck's tools inside a LangGraph run (``ToolNode`` in a graph, a
scripted ``GenericFakeChatModel``), and LangChain tools in a registry.

LangChain is imported inside the tests only (every xdist worker imports this module).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from framework_tools import INVALID, INVALID_LINES, PNG, gated_registry, make_registry, painted

from tooldeck import Tool, ToolDefinitionError, ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(60)


def _graph(tools: list[Any], replies: list[Any], seen: list[list[Any]]) -> Any:
    """model → tools → model, the model scripted; ``seen`` gets each request's messages."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    model = GenericFakeChatModel(messages=iter(replies))

    def call_model(state: Any) -> Any:
        seen.append(list(state["messages"]))
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    return graph.compile()


def _turn(name: str) -> list[Any]:
    from langchain_core.messages import AIMessage

    calls = [
        {"name": name, "args": {"box": {"w": 3}, "color": "red"}, "id": "ok"},
        {"name": name, "args": INVALID, "id": "bad"},
        {"name": "boom", "args": {"x": 1}, "id": "raise"},
    ]
    return [AIMessage(content="", tool_calls=calls), AIMessage(content="done")]


def test_offered_with_tooldecks_schema_the_injected_parameter_absent() -> None:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    registry = make_registry()
    tools = registry.to_langchain()
    assert [convert_to_openai_tool(t) for t in tools] == registry.export("openai")
    assert "user" not in tools[0].tool_call_schema["properties"]
    assert registry.to_langchain(tags="none") == []


@pytest.mark.parametrize("name", ["paint", "apaint"])
@pytest.mark.parametrize("run", ["sync", "async"])
def test_a_langgraph_run_calls_valid_invalid_and_raising(name: str, run: str) -> None:
    registry = make_registry()
    seen: list[list[Any]] = []
    app = _graph(registry.to_langchain(), _turn(name), seen)
    start = {"messages": [("user", "paint it")]}
    if run == "sync":  # the context from the RunnableConfig's configurable
        out = app.invoke(start, config={"configurable": {"user": "u-1"}})
    else:  # from the run's context (the ToolRuntime's)
        out = asyncio.run(app.ainvoke(start, context={"user": "u-1"}))
    assert out["messages"][-1].content == "done"
    ok, bad, raised = seen[1][-3:]  # the results reach the model's next request
    assert (ok.content, ok.status) == (painted("u-1"), "success")
    assert bad.status == "error"
    assert bad.content == registry.call_tool(name, INVALID)  # tooldeck's own message
    assert len(bad.content.splitlines()) == 1 + len(INVALID_LINES)  # one line per problem
    assert (raised.content, raised.status) == ("Error: kaput 1", "error")


def test_context_given_or_from_a_callable_of_the_runtime() -> None:
    registry = make_registry()
    got: list[Any] = []

    def context(runtime: Any) -> dict[str, str]:
        got.append(runtime)
        return {"user": "from-callable"}

    seen: list[list[Any]] = []
    registry.tag(["paint", "boom"], "painting")
    app = _graph(registry.to_langchain("painting", context=context), _turn("paint"), seen)
    asyncio.run(app.ainvoke({"messages": [("user", "x")]}, context={"user": "ignored"}))
    assert seen[1][-3].content == painted("from-callable")
    assert type(got[0]).__name__ == "ToolRuntime"
    one = registry.get("paint")
    assert isinstance(one, Tool)
    fixed = one.to_langchain(context={"user": "fixed"})
    args = {"box": {"w": 3}, "color": "red"}
    assert fixed.invoke(args) == painted("fixed")


def test_middleware_runs_and_media_become_content_blocks() -> None:
    names: list[str] = []

    def record(call: Any, call_next: Any) -> ToolResult:
        names.append(call.name)
        return call_next(call)  # type: ignore[no-any-return]

    registry = make_registry(middleware=[record])
    chart = next(t for t in registry.to_langchain() if t.name == "chart")
    call = {"type": "tool_call", "name": "chart", "args": {"year": 2025}, "id": "c1"}
    message = asyncio.run(chart.ainvoke(call))
    assert message.content[0] == {"type": "text", "text": "sales 2025"}
    assert message.content[1]["type"] == "image"
    assert message.content[1]["mime_type"] == "image/png"
    import base64

    assert base64.b64decode(message.content[1]["base64"]) == PNG
    assert chart.invoke(call).content == message.content  # the sync path too
    assert names == ["chart", "chart"]


def test_arguments_named_as_langchains_own_parameters_reach_the_tool() -> None:
    # LangChain fills a tool's `config` and `run_manager` parameters itself: a tooldeck
    # tool's arguments of those names (and `callbacks`) must still reach it
    registry = ToolRegistry()

    @registry.tool
    def f(config: str, run_manager: int = 1, callbacks: str = "c") -> str:
        return f"{config} {run_manager} {callbacks}"

    [bridged] = registry.to_langchain()
    args = {"config": "x", "run_manager": 5, "callbacks": "cb"}
    assert bridged.invoke(args) == "x 5 cb"
    assert asyncio.run(bridged.ainvoke(args)) == "x 5 cb"
    # our own parameter names are no way in for a model
    sneaky = bridged.invoke({"config": "x", "tooldeck_runtime__": {"user": "evil"}})
    assert sneaky.endswith("tooldeck_runtime__: unexpected argument")
    # and a tool that takes one of them is refused when converted, naming it
    clash = Tool(lambda tooldeck_config__: 1, name="clash")
    with pytest.raises(ToolDefinitionError, match="tooldeck_config__"):
        clash.to_langchain()


def test_a_call_that_needs_approval_pauses_the_graph_and_runs_once_approved() -> None:
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode
    from langgraph.types import Command

    registry = gated_registry()
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(registry.to_langchain()))
    graph.add_edge(START, "tools")
    app = graph.compile(checkpointer=InMemorySaver())
    calls = [
        {"name": "delete", "args": {"name": "main"}, "id": "d"},
        {"name": "spend", "args": {"amount": 5}, "id": "s"},  # under the policy's limit
    ]
    ask = {"messages": [AIMessage(content="", tool_calls=calls)]}
    config = {"configurable": {"thread_id": "1"}}
    paused = app.invoke(ask, config=config)
    [interrupt] = paused["__interrupt__"]  # the graph waits for a person
    assert interrupt.value == {"tool": "delete", "arguments": {"name": "main"}}
    done = app.invoke(Command(resume=True), config=config)
    assert sorted(m.content for m in done["messages"][1:]) == ["deleted main", "spent 5"]

    config = {"configurable": {"thread_id": "2"}}
    app.invoke(ask, config=config)
    declined = app.invoke(Command(resume="not on main"), config=config)
    assert declined["messages"][1].content == "Error: not on main"
    # where nobody can be asked (no graph run), the call does not run
    [delete, spend] = registry.to_langchain()
    assert delete.invoke({"name": "main"}) == "Error: Tool 'delete' needs approval"
    assert spend.invoke({"amount": 500}) == "Error: Tool 'spend' needs approval"
    assert spend.invoke({"amount": 500}, config={"configurable": {"limit": 1000}}) == "spent 500"


# -- the other way ---------------------------------------------------------------------------


def _langchain_tools() -> list[Any]:
    from langchain_core.tools import StructuredTool, tool

    @tool
    def double(x: int, note: str = "") -> int:
        """Double a number."""
        if x < 0:
            raise ValueError("negative")
        return x * 2

    def echo(**kwargs: Any) -> str:
        return repr(kwargs)

    raw = StructuredTool(  # a JSON Schema: LangChain validates nothing, coerces nothing
        name="echo",
        description="Echo the arguments.",
        args_schema={"type": "object", "properties": {"x": {"type": "integer"}}},
        func=echo,
    )
    return [double, raw]


def test_a_langchain_tool_in_a_registry_keeps_its_declaration_everywhere() -> None:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    double, raw = _langchain_tools()
    registry = ToolRegistry()
    registry.register(double)
    registry.register(raw, tags="raw")
    assert registry.list_tools() == ["double", "echo"]
    want = convert_to_openai_tool(double)["function"]
    for fmt in ("openai", "openai-responses", "anthropic", "gemini", "mcp"):
        assert registry.export(fmt)  # every provider format
    assert registry.export("openai")[0]["function"] == want
    assert registry.export("anthropic")[1]["input_schema"]["properties"] == {
        "x": {"type": "integer"}
    }

    # run with coercion only where LangChain coerces: its pydantic schema does, a
    # JSON Schema does not (the argument reaches the function as sent)
    assert registry.call_tool("double", {"x": "3"}) == 6
    assert registry.call_tool("echo", {"x": "3"}) == "{'x': '3'}"
    refused = registry.execute_sync("double", {"x": "abc"})
    assert not refused.success and "valid integer" in (refused.error or "")
    assert registry.call_tool("double", {"x": -1}) == "Error: negative"

    async def over_mcp() -> tuple[Any, Any]:
        from fastmcp import Client

        async with Client(registry.as_mcp_server()) as client:
            listed = {t.name: t for t in await client.list_tools()}
            result = await client.call_tool("double", {"x": 4})
            return listed, result

    listed, result = asyncio.run(over_mcp())
    assert listed["double"].description == "Double a number."
    assert listed["double"].input_schema["properties"] == want["parameters"]["properties"]
    assert result.content[0].text == "8"


def test_missing_langchain_is_an_import_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "langchain_core.tools", None)
    with pytest.raises(ImportError, match=r"tooldeck\[langchain\]"):
        make_registry().to_langchain()


def test_a_langchain_tool_in_a_registry_gets_the_calls_context() -> None:
    """The call's context is the run's: the config's ``configurable``, and the
    ``ToolRuntime`` LangGraph's ``ToolNode`` would give (its ``context``)."""
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import tool
    from langgraph.prebuilt import ToolRuntime

    def by_runtime(x: int, runtime: Any) -> str:
        """Who calls, from the runtime."""
        return f"{x} {runtime.context['user']}"

    def by_config(x: int, config: Any) -> str:
        """Who calls, from the config."""
        return f"{x} {config['configurable']['user']}"

    # (annotations as objects: this module's are strings, read where LangChain is not)
    by_runtime.__annotations__.update(x=int, runtime=ToolRuntime[dict[str, Any]])
    by_config.__annotations__.update(x=int, config=RunnableConfig)
    registry = ToolRegistry()
    registry.register(tool(by_runtime))
    registry.register(tool(by_config))
    assert "runtime" not in registry.get("by_runtime").parameters["properties"]  # type: ignore[union-attr]
    for name in ("by_runtime", "by_config"):
        assert registry.call_tool(name, {"x": 1}, context={"user": "u-1"}) == "1 u-1"
        # the model cannot set it: an argument of that name is the context's anyway
        forged = {"x": 2, "tooldeck_context__": {"user": "evil"}}
        assert registry.call_tool(name, forged, context={"user": "u-2"}) == "2 u-2"
    reply = {"role": "assistant", "tool_calls": [_call("by_runtime", {"x": 3})]}
    answer = registry.run_tool_calls(reply, context={"user": "u-3"})
    assert answer[0]["content"] == "3 u-3"


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    import json

    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"id": "c1", "type": "function", "function": function}

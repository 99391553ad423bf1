"""Pydantic AI: tooldeck's tools inside ``Agent`` runs (a scripted ``FunctionModel``),
and Pydantic AI tools in a registry.

Pydantic AI is imported inside the tests only (every xdist worker imports this module).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from framework_tools import INVALID, INVALID_LINES, PNG, gated_registry, make_registry, painted

from tooldeck import Tool, ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(60)


def _model(turn: list[tuple[str, dict[str, Any]]], seen: list[Any]) -> Any:
    """Calls ``turn``'s tools first, then answers "done"; ``seen`` gets each request's
    (tool definitions, messages)."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    def reply(messages: list[Any], info: Any) -> Any:
        seen.append((info.function_tools, list(messages)))
        if len(seen) == 1:
            parts = [
                ToolCallPart(name, args, tool_call_id=f"c{i}")
                for i, (name, args) in enumerate(turn)
            ]
            return ModelResponse(parts=parts)
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(reply)


def _returns(messages: list[Any]) -> dict[str, Any]:
    return {
        part.tool_call_id: part.content
        for message in messages
        for part in message.parts
        if part.part_kind == "tool-return"
    }


@pytest.mark.parametrize("name", ["paint", "apaint"])
@pytest.mark.parametrize("run", ["sync", "async"])
def test_an_agent_run_calls_valid_invalid_and_raising(name: str, run: str) -> None:
    from pydantic_ai import Agent

    registry = make_registry()
    seen: list[Any] = []
    turn = [(name, {"box": {"w": 3}, "color": "red"}), (name, INVALID), ("boom", {"x": 1})]
    agent = Agent(_model(turn, seen), toolsets=[registry.to_pydantic_ai()], deps_type=dict)
    deps = {"user": "u-1"}  # the run's deps, a mapping
    if run == "sync":
        result = agent.run_sync("paint it", deps=deps)
    else:
        result = asyncio.run(agent.run("paint it", deps=deps))
    assert result.output == "done"
    offered = {t.name: t.parameters_json_schema for t in seen[0][0]}
    assert offered == {
        e["function"]["name"]: e["function"]["parameters"] for e in registry.export("openai")
    }
    assert "user" not in offered[name]["properties"]
    returns = _returns(seen[1][1])  # the results reach the model's next request
    assert returns["c0"] == painted("u-1")
    assert returns["c1"] == registry.call_tool(name, INVALID)
    assert len(returns["c1"].splitlines()) == 1 + len(INVALID_LINES)
    assert returns["c2"] == "Error: kaput 1"


def test_context_from_a_callable_middleware_and_media() -> None:
    from pydantic_ai import Agent, BinaryContent

    names: list[str] = []

    def record(call: Any, call_next: Any) -> ToolResult:
        names.append(call.name)
        return call_next(call)  # type: ignore[no-any-return]

    registry = make_registry(middleware=[record])
    got: list[Any] = []

    def context(ctx: Any) -> dict[str, str]:
        got.append(ctx)
        return {"user": ctx.deps.upper()}

    seen: list[Any] = []
    turn = [("paint", {"box": {"w": 3}, "color": "red"}), ("chart", {"year": 2025})]
    agent = Agent(_model(turn, seen), toolsets=[registry.to_pydantic_ai(context=context)])
    agent.run_sync("x", deps="someone")
    assert type(got[0]).__name__ == "RunContext"
    returns = _returns(seen[1][1])
    assert returns["c0"] == painted("SOMEONE")
    sent = [  # the chart's parts: its text, and its image, in the request's parts
        p.content
        for m in seen[1][1]
        for p in m.parts
        if p.part_kind in ("tool-return", "user-prompt")
    ]
    assert any(
        (isinstance(c, list) and any(isinstance(x, BinaryContent) and x.data == PNG for x in c))
        or (isinstance(c, BinaryContent) and c.data == PNG)
        for c in sent
    )
    assert names == ["paint", "chart"]
    one = registry.get("paint")
    assert isinstance(one, Tool)
    assert one.to_pydantic_ai(context={"user": "z"}).name == "paint"


def test_the_tool_manager_hands_arguments_straight_to_tooldeck() -> None:
    """Pydantic AI's validator passes the arguments on; its ``function_schema.call`` is
    ours, handing them to the registry as they came: one validation (tooldeck's), no
    spreading into keyword arguments. Arguments that are no object (a JSON list) are a
    failure the model reads, not a ``TypeError`` out of the run. Fails loudly when a
    Pydantic AI release stops taking this path (the bridge then falls back to
    ``Tool.from_schema``'s own call)."""
    from pydantic_ai import Agent

    registry = make_registry()
    toolset = registry.to_pydantic_ai()
    kinds = {type(t.function_schema).__name__ for t in toolset.tools.values()}
    assert kinds == {"TooldeckFunctionSchema"}
    names: list[str] = []

    async def record(call: Any, call_next: Any) -> ToolResult:
        names.append(call.name)
        return await call_next(call)  # type: ignore[no-any-return]

    registry.add_middleware(record)  # after the conversion: still runs, per call
    seen: list[Any] = []
    good = '{"box": {"w": 3}, "color": "red"}'
    turn = [("apaint", "[1, 2]"), ("apaint", good), ("paint", "[1, 2]")]
    agent = Agent(_model(turn, seen), toolsets=[toolset], deps_type=dict)
    result = agent.run_sync("x", deps={"user": "u-1"})
    assert result.output == "done"
    returns = _returns(seen[1][1])
    refused = registry.call_tool("apaint", [1, 2])
    assert refused.startswith("Error: ") and returns["c0"] == refused
    assert returns["c1"] == painted("u-1")
    assert returns["c2"] == registry.call_tool("paint", [1, 2])
    assert names == ["apaint"]  # (arguments that are no object never reach a middleware)
    registry.unregister("apaint")  # gone since the conversion: the other bridges' words
    seen.clear()
    agent.run_sync("x", deps={})
    assert _returns(seen[1][1])["c1"] == "Error: Tool 'apaint' not found"


def test_an_argument_named_ctx_reaches_the_tool() -> None:
    from pydantic_ai import Agent

    registry = ToolRegistry()

    @registry.tool
    def where(ctx: str) -> str:
        return f"in {ctx}"

    seen: list[Any] = []
    agent = Agent(
        _model([("where", {"ctx": "Taipei"})], seen), toolsets=[registry.to_pydantic_ai()]
    )
    agent.run_sync("x")
    assert _returns(seen[1][1]) == {"c0": "in Taipei"}


def test_a_call_that_needs_approval_is_deferred_until_approved() -> None:
    from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults

    registry = gated_registry()
    seen: list[Any] = []
    turn = [("delete", {"name": "main"}), ("spend", {"amount": 500})]
    agent = Agent(
        _model(turn, seen),
        toolsets=[registry.to_pydantic_ai()],
        output_type=[str, DeferredToolRequests],
    )
    paused = agent.run_sync("x", deps={"limit": 100})
    assert isinstance(paused.output, DeferredToolRequests)
    assert sorted(c.tool_name for c in paused.output.approvals) == ["delete", "spend"]
    decisions = DeferredToolResults(approvals={"c0": True, "c1": False})
    done = agent.run_sync(
        message_history=paused.all_messages(), deferred_tool_results=decisions, deps={}
    )
    assert done.output == "done"
    returns = _returns(seen[-1][1])
    assert returns["c0"] == "deleted main"
    assert "spent" not in str(returns.get("c1"))  # declined: the tool never ran


# -- the other way ---------------------------------------------------------------------------


def test_a_pydantic_ai_tool_in_a_registry_keeps_its_declaration_everywhere() -> None:
    from pydantic_ai import ModelRetry, RunContext
    from pydantic_ai import Tool as PydanticTool

    def double(x: int) -> int:
        """Double a number.

        Args:
            x: the number
        """
        if x < 0:
            raise ModelRetry("x must be 0 or more")
        return x * 2

    foreign = PydanticTool(double)
    registry = ToolRegistry()
    registry.register(foreign)
    exported = registry.export("openai")[0]["function"]
    assert exported == {
        "name": "double",
        "description": foreign.description,
        "parameters": foreign.function_schema.json_schema,
    }
    for fmt in ("openai-responses", "anthropic", "gemini", "mcp"):
        assert registry.export(fmt)
    # Pydantic AI validates (lax: "3" → 3); its refusal is the call's failure
    assert registry.call_tool("double", {"x": "3"}) == 6
    refused = registry.execute_sync("double", {"x": "abc"})
    assert not refused.success and "valid integer" in (refused.error or "")
    assert registry.call_tool("double", {"x": -1}) == "Error: x must be 0 or more"

    def whoami(ctx: Any, x: int) -> str:
        """Say who calls."""
        return f"{ctx.deps} {ctx.tool_name} {x}"

    # (the annotation as an object: this module's annotations are strings, read in its
    # globals, where Pydantic AI is not imported)
    whoami.__annotations__["ctx"] = RunContext[None]

    registry.register(PydanticTool(whoami))  # a RunContext of its own, outside a run
    assert registry.call_tool("whoami", {"x": 2}) == "None whoami 2"
    # the call's context is its RunContext's deps, through every face
    assert registry.call_tool("whoami", {"x": 2}, context={"u": 1}) == "{'u': 1} whoami 2"
    reply = {"role": "assistant", "tool_calls": [_openai_call("whoami", {"x": 5})]}
    assert registry.run_tool_calls(reply, context={"u": 2})[0]["content"] == "{'u': 2} whoami 5"

    async def over_mcp() -> Any:
        from fastmcp import Client

        async with Client(registry.as_mcp_server()) as client:
            listed = await client.list_tools()
            return listed, await client.call_tool("double", {"x": 4})

    listed, result = asyncio.run(over_mcp())
    assert listed[0].input_schema["properties"] == exported["parameters"]["properties"]
    assert result.content[0].text == "8"


def _openai_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    import json

    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"id": "c1", "type": "function", "function": function}


def test_missing_pydantic_ai_is_an_import_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pydantic_ai", None)
    with pytest.raises(ImportError, match=r"tooldeck\[pydantic-ai\]"):
        make_registry().to_pydantic_ai()


def test_without_the_fast_path_the_public_path_answers_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where Pydantic AI's ``FunctionSchema`` cannot be extended, the tool calls through
    ``Tool.from_schema``'s function, with the same answers."""
    from pydantic_ai import RunContext
    from pydantic_ai.usage import RunUsage

    from tooldeck.frameworks import pydantic_ai as bridge

    monkeypatch.setattr(bridge, "_schema_class", lambda base: None)
    tool = make_registry().to_pydantic_ai().tools["apaint"]
    assert type(tool.function_schema).__name__ == "FunctionSchema"
    ctx = RunContext(deps={"user": "u-1"}, model=None, usage=RunUsage())  # type: ignore[arg-type]
    schema = tool.function_schema
    good = {"box": {"w": 3}, "color": "red"}
    assert asyncio.run(schema.call(good, ctx)) == painted("u-1")
    assert asyncio.run(schema.call(INVALID, ctx)).startswith("Error: Invalid arguments")

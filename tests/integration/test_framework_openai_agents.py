"""The OpenAI Agents SDK: tooldeck's tools inside ``Runner`` runs (a scripted ``Model``),
and ``FunctionTool``s in a registry.

The SDK is imported inside the tests only (every xdist worker imports this module).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from framework_tools import INVALID, INVALID_LINES, gated_registry, make_registry, painted

from tooldeck import Tool, ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(60)


def _model(turns: list[list[tuple[str, dict[str, Any]]]], seen: list[Any]) -> Any:
    """A ``Model`` answering each request with the next turn's function calls (or "done"
    when none are left); ``seen`` gets each request's tools and input."""
    from agents import Model, ModelResponse, Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class Scripted(Model):
        async def get_response(self, system_instructions: Any, input: Any, *a: Any, **k: Any):  # type: ignore[no-untyped-def]
            seen.append((k["tools"], input))
            if turns:
                calls = turns.pop(0)
                output: list[Any] = [
                    ResponseFunctionToolCall(
                        type="function_call",
                        call_id=f"c{i}",
                        name=name,
                        arguments=json.dumps(args),
                    )
                    for i, (name, args) in enumerate(calls)
                ]
            else:
                text = ResponseOutputText(type="output_text", text="done", annotations=[])
                output = [
                    ResponseOutputMessage(
                        id="m",
                        type="message",
                        role="assistant",
                        status="completed",
                        content=[text],
                    )
                ]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *a: Any, **k: Any) -> Any:
            raise NotImplementedError

    return Scripted()


def _outputs(items: Any) -> dict[str, Any]:
    return {
        i["call_id"]: i["output"]
        for i in items
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    }


def test_offered_with_tooldecks_schema_the_injected_parameter_absent() -> None:
    registry = make_registry()
    tools = registry.to_openai_agents()
    for exported, function_tool in zip(registry.export("openai"), tools, strict=True):
        assert function_tool.name == exported["function"]["name"]
        assert function_tool.description == exported["function"]["description"]
        assert function_tool.params_json_schema == exported["function"]["parameters"]
    assert "user" not in tools[0].params_json_schema["properties"]


@pytest.mark.parametrize("name", ["paint", "apaint"])
@pytest.mark.parametrize("run", ["sync", "async"])
def test_a_runner_run_calls_valid_invalid_and_raising(name: str, run: str) -> None:
    from agents import Agent, RunConfig, Runner

    registry = make_registry()
    seen: list[Any] = []
    turn = [(name, {"box": {"w": 3}, "color": "red"}), (name, INVALID), ("boom", {"x": 1})]
    agent = Agent(name="a", tools=registry.to_openai_agents(), model=_model([turn], seen))
    context = {"user": "u-1"}  # the run's context, a mapping
    quiet = RunConfig(tracing_disabled=True)
    if run == "sync":
        result = Runner.run_sync(agent, "paint it", context=context, run_config=quiet)
    else:
        result = asyncio.run(Runner.run(agent, "paint it", context=context, run_config=quiet))
    assert result.final_output == "done"
    offered = {t.name: t.params_json_schema for t in seen[0][0]}
    assert (
        offered[name]
        == registry.export("openai")[0 if name == "paint" else 1]["function"]["parameters"]
    )
    outputs = _outputs(seen[1][1])  # the results reach the model's next request
    assert outputs["c0"] == painted("u-1")
    assert outputs["c1"] == registry.call_tool(name, INVALID)
    assert len(outputs["c1"].splitlines()) == 1 + len(INVALID_LINES)
    assert outputs["c2"] == "Error: kaput 1"


def test_context_from_a_callable_and_middleware_and_media() -> None:
    from agents import Agent, RunConfig, Runner

    names: list[str] = []

    def record(call: Any, call_next: Any) -> ToolResult:
        names.append(call.name)
        return call_next(call)  # type: ignore[no-any-return]

    registry = make_registry(middleware=[record])
    got: list[Any] = []

    def context(ctx: Any) -> dict[str, str]:
        got.append(ctx.context)
        return {"user": ctx.context.name}

    class Deps:
        name = "from-deps"

    seen: list[Any] = []
    turn = [("paint", {"box": {"w": 3}, "color": "red"}), ("chart", {"year": 2025})]
    tools = registry.to_openai_agents(context=context)
    agent = Agent(name="a", tools=tools, model=_model([turn], seen))
    Runner.run_sync(agent, "x", context=Deps(), run_config=RunConfig(tracing_disabled=True))
    assert isinstance(got[0], Deps)
    outputs = _outputs(seen[1][1])
    assert outputs["c0"] == painted("from-deps")
    chart = outputs["c1"]  # text, then the image as a data URL
    assert chart[0] == {"type": "input_text", "text": "sales 2025"}
    assert chart[1]["type"] == "input_image"
    assert chart[1]["image_url"].startswith("data:image/png;base64,")
    assert names == ["paint", "chart"]
    one = registry.get("paint")
    assert isinstance(one, Tool)
    assert one.to_openai_agents().params_json_schema == one.parameters


def test_a_call_that_needs_approval_waits_for_the_sdks_approval() -> None:
    from agents import Agent, RunConfig, Runner

    registry = gated_registry()
    seen: list[Any] = []
    turn = [("delete", {"name": "main"}), ("spend", {"amount": 5})]
    agent = Agent(name="a", tools=registry.to_openai_agents(), model=_model([turn], seen))
    quiet = RunConfig(tracing_disabled=True)
    paused = Runner.run_sync(agent, "x", context={"limit": 100}, run_config=quiet)
    assert [i.name for i in paused.interruptions] == ["delete"]  # spend 5: under the limit
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    done = Runner.run_sync(agent, state, run_config=quiet)
    assert done.final_output == "done"
    assert _outputs(seen[-1][1]) == {"c0": "deleted main", "c1": "spent 5"}


# -- the other way ---------------------------------------------------------------------------


def test_a_function_tool_in_a_registry_keeps_its_declaration_everywhere() -> None:
    from agents import function_tool

    @function_tool
    def double(x: int) -> int:
        """Double a number.

        Args:
            x: the number
        """
        if x < 0:
            raise ValueError("negative")
        return x * 2

    registry = ToolRegistry()
    registry.register(double)
    exported = registry.export("openai")[0]["function"]
    assert exported == {
        "name": "double",
        "description": double.description,
        "parameters": double.params_json_schema,
    }
    for fmt in ("openai-responses", "anthropic", "gemini", "mcp"):
        assert registry.export(fmt)
    # the SDK validates (pydantic, lax: "3" → 3); its refusal is the call's failure
    assert registry.call_tool("double", {"x": "3"}) == 6
    refused = registry.execute_sync("double", {"x": "abc"})
    assert not refused.success and "Invalid JSON input for tool double" in (refused.error or "")
    assert registry.call_tool("double", {"x": -1}) == "Error: negative"

    async def echo(ctx: Any, text: str) -> str:
        return f"got {text}"

    from agents import FunctionTool

    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    registry.register(FunctionTool("echo", "Echo.", schema, echo, strict_json_schema=False))
    # a hand-made FunctionTool validates nothing: the arguments reach it as sent
    assert registry.call_tool("echo", {"x": "3"}) == 'got {"x": "3"}'
    assert registry.export("anthropic")[1]["input_schema"] == schema

    async def over_mcp() -> Any:
        from fastmcp import Client

        async with Client(registry.as_mcp_server()) as client:
            listed = await client.list_tools()
            return listed, await client.call_tool("double", {"x": 4})

    listed, result = asyncio.run(over_mcp())
    assert listed[0].input_schema["properties"] == double.params_json_schema["properties"]
    assert result.content[0].text == "8"


def test_missing_agents_sdk_is_an_import_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "agents", None)
    with pytest.raises(ImportError, match=r"tooldeck\[openai-agents\]"):
        make_registry().to_openai_agents()


def test_a_refusal_stays_a_failure_through_the_sdks_public_api() -> None:
    """The SDK's default failure function turns an exception into a success's text; the
    bridge reads the exception through ``RunConfig.tool_error_formatter`` (public), not
    the invoker's private ``_invoke_tool_impl``: so it holds for an invoker someone
    wrapped too. A tool's own failure function keeps its text; ``None`` raises."""
    import dataclasses
    import inspect

    from agents import function_tool

    from tooldeck.frameworks import openai_agents as bridge

    source = inspect.getsource(bridge)
    assert "_invoke_tool_impl" not in source
    assert "_use_default_failure_error_function" not in source

    def double(x: int) -> int:
        """Double a number."""
        if x < 0:
            raise ValueError("negative")
        return x * 2

    sdk = function_tool(double)
    invoke = sdk.on_invoke_tool

    async def logged(ctx: Any, text: str) -> Any:  # a user's wrapper around the SDK's
        return await invoke(ctx, text)

    wrapped = dataclasses.replace(sdk, on_invoke_tool=logged)
    own = function_tool(double, name_override="own", failure_error_function=lambda c, e: "own")
    raw = function_tool(double, name_override="raw", failure_error_function=None)
    registry = ToolRegistry()
    for tool in (wrapped, own, raw):
        registry.register(tool)
    for name in ("double", "raw"):
        refused = registry.execute_sync(name, {"x": "abc"})
        assert not refused.success and "Invalid JSON input" in (refused.error or "")
        assert registry.call_tool(name, {"x": -1}) == "Error: negative"
        assert registry.call_tool(name, {"x": 2}) == 4
    assert registry.execute_sync("own", {"x": -1}) == ToolResult.ok("own")


def test_a_function_tool_in_a_registry_gets_the_calls_context() -> None:
    """The call's context is the run's: ``RunContextWrapper.context`` (a ``ToolContext``
    is one), through every face and served over MCP."""
    from agents import RunContextWrapper, function_tool

    def whoami(ctx: Any, x: int) -> str:
        """Say who calls."""
        return f"{ctx.context['user']} {x}"

    # (annotations as objects: this module's are strings, read where agents is not)
    whoami.__annotations__.update(ctx=RunContextWrapper[Any], x=int)
    registry = ToolRegistry()
    registry.register(function_tool(whoami))
    assert list(registry.get("whoami").parameters["properties"]) == ["x"]  # type: ignore[union-attr]
    assert registry.call_tool("whoami", {"x": 1}, context={"user": "u-1"}) == "u-1 1"
    done = registry.execute_sync("whoami", {"x": 2}, context={"user": "u-2"})
    assert done == ToolResult.ok("u-2 2")

    async def over_mcp() -> Any:
        from fastmcp import Client

        server = registry.as_mcp_server(context={"user": "u-3"})
        async with Client(server) as client:
            return await client.call_tool("whoami", {"x": 3})

    assert asyncio.run(over_mcp()).content[0].text == "u-3 3"
    # it may read any key: never cached, whatever vary= names
    from tooldeck.middleware import Cache

    cached = ToolRegistry(middleware=[Cache(60, tools=["whoami"], vary=("*", "user"))])
    cached.register(function_tool(whoami))
    for user in ("a", "b"):
        assert cached.call_tool("whoami", {"x": 1}, context={"user": user}) == f"{user} 1"

"""The framework bridges under attack (a review of issue 27): what the first tests left
out, each break pinned by a test that failed before its fix.

The frameworks are imported inside the tests only (every xdist worker imports this
module).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from framework_tools import PNG

from tooldeck import Injected, ToolRegistry

pytestmark = pytest.mark.timeout(60)


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def who(x: int, user: Annotated[str, Injected] = "nobody") -> str:
        """Say who calls."""
        return f"{user} {x}"

    return registry


def _langchain(registry: ToolRegistry, context: Any) -> Any:
    return registry.to_langchain(context=context)[0].invoke({"x": 1})


def _agents(registry: ToolRegistry, context: Any) -> Any:
    from agents import Usage
    from agents.tool_context import ToolContext

    [tool] = registry.to_openai_agents(context=context)
    ctx = ToolContext(
        context=None, usage=Usage(), tool_name=tool.name, tool_call_id="c", tool_arguments="{}"
    )
    return asyncio.run(tool.on_invoke_tool(ctx, '{"x": 1}'))


def _pydantic_ai(registry: ToolRegistry, context: Any) -> Any:
    from pydantic_ai import RunContext
    from pydantic_ai.usage import RunUsage

    [tool] = registry.to_pydantic_ai(context=context).tools.values()
    ctx = RunContext(deps=None, model=None, usage=RunUsage())  # type: ignore[arg-type]
    return asyncio.run(tool.function_schema.call({"x": 1}, ctx))


_BRIDGES = [_langchain, _agents, _pydantic_ai]


def _raises(run_context: Any) -> Any:
    raise RuntimeError("no session")


@pytest.mark.parametrize("bridge", _BRIDGES, ids=lambda b: b.__name__.strip("_"))
def test_a_context_callable_that_fails_is_the_calls_failure(bridge: Any) -> None:
    """A ``context=`` callable that raises, or answers no mapping, fails that call with
    the words the MCP server uses for its own context callable: it never raises into
    the framework's run, and the tool does not run without its context."""
    registry = _registry()
    for given, why in [(_raises, "no session"), (lambda rc: ["u"], "not a mapping")]:
        answer = bridge(registry, given)
        assert answer.startswith("Error: Tool 'who' has no context for this call: "), answer
        assert why in answer
    assert bridge(registry, lambda rc: {"user": "u-1"}) == "u-1 1"
    with pytest.raises(TypeError, match="context"):
        bridge(registry, ["not", "a", "mapping"])  # the developer's mistake: at conversion


def _agent_returns(toolset: Any, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """A Pydantic AI run whose scripted model makes ``calls`` at once, then ends: what
    each call's tool-return part held (the model's next request)."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    seen: list[Any] = []

    def reply(messages: list[Any], info: Any) -> Any:
        seen.append(list(messages))
        if len(seen) == 1:
            parts = [ToolCallPart(n, a, tool_call_id=f"c{i}") for i, (n, a) in enumerate(calls)]
            return ModelResponse(parts=parts)
        return ModelResponse(parts=[TextPart("done")])

    assert Agent(FunctionModel(reply), toolsets=[toolset]).run_sync("x").output == "done"
    return {
        part.tool_call_id: part.content
        for message in seen[1]
        for part in message.parts
        if part.part_kind == "tool-return"
    }


def test_a_value_pydantic_ai_cannot_serialise_is_tooldecks_text() -> None:
    """Pydantic AI serialises a tool's value for its model and raises out of the run on
    what it cannot (an object, inside a dict too); a generator would sit in the message
    history unread. The bridge hands those as tooldeck's text, as the other bridges do;
    a value Pydantic AI takes (a model, a set) stays itself."""
    from pydantic import BaseModel

    class Point(BaseModel):
        x: int

    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    registry = ToolRegistry()
    values: dict[str, Any] = {
        "opaque": lambda: Opaque(),
        "nested": lambda: {"k": Opaque()},
        "gen": lambda: (i for i in range(3)),
        "point": lambda: Point(x=1),
    }
    for name, make in values.items():
        registry.tool(lambda make=make: make(), name=name)
    returns = _agent_returns(registry.to_pydantic_ai(), [(n, {}) for n in values])
    assert returns["c0"] == str(registry.execute_sync("opaque")) == "<opaque>"
    assert returns["c1"] == str(registry.execute_sync("nested"))
    assert returns["c2"] == "[0, 1, 2]"
    assert returns["c3"] == Point(x=1)


def test_a_proxy_in_pydantic_ai_answers_as_in_the_other_bridges() -> None:
    """An MCP proxy's Agently face answers as seed 001 §7.2 says (its first item; a
    remote failure as a success holding ``{"error": ...}``): the Pydantic AI bridge
    answers from its full result instead, as the other bridges do: every part, media as
    ``BinaryContent``, a failure as ``Error: ...``; through a registry and alone."""
    from fastmcp import FastMCP
    from fastmcp.utilities.types import Image as McpImage
    from pydantic_ai import BinaryContent

    server = FastMCP("remote")

    @server.tool
    def chart() -> list[Any]:
        """A chart."""
        return ["sales", McpImage(data=PNG, format="png")]

    @server.tool
    def broken(x: int) -> str:
        """Fails."""
        raise ValueError("remote nope")

    registry = ToolRegistry()
    registry.use_mcp(server)
    try:
        assert registry.call_tool("chart", {}) == "sales"  # (§7.2, the first item)
        calls = [("chart", {}), ("broken", {"x": 1})]
        for toolset in (registry.to_pydantic_ai(), _alone(registry)):
            returns = _agent_returns(toolset, calls)
            parts = returns["c0"]
            assert parts[0] == "sales"
            assert isinstance(parts[1], BinaryContent) and parts[1].data == PNG
            assert returns["c1"] == "Error: Error calling tool 'broken': remote nope"
    finally:
        registry.close()


def _alone(registry: ToolRegistry) -> Any:
    """The registry's tools each converted alone (`Tool.to_pydantic_ai`), as a toolset."""
    from pydantic_ai.toolsets import FunctionToolset

    return FunctionToolset([t.to_pydantic_ai() for t in registry])  # type: ignore[attr-defined]


def test_a_foreign_tool_that_needs_approval_in_its_framework_needs_it_here() -> None:
    """A Pydantic AI tool made with ``requires_approval=True``, or an Agents
    ``FunctionTool`` with ``needs_approval`` (``True`` or a policy of its own), never ran
    unasked in its framework: registered, it needs tooldeck's approval (a policy of the
    SDK's, which tooldeck cannot ask outside a run, asks a person every time)."""
    from agents import function_tool
    from pydantic_ai import Tool as PydanticTool

    ran: list[str] = []

    def drop(table: str) -> str:
        """Drop a table."""
        ran.append(table)
        return f"dropped {table}"

    async def policy(ctx: Any, params: Any, call_id: str) -> bool:
        return params["table"] != "scratch"

    registry = ToolRegistry()
    registry.register(PydanticTool(drop, name="p_drop", requires_approval=True))
    registry.register(function_tool(drop, name_override="a_drop", needs_approval=True))
    registry.register(function_tool(drop, name_override="a_maybe", needs_approval=policy))
    registry.register(PydanticTool(drop, name="p_free"))
    names = ["p_drop", "a_drop", "a_maybe", "p_free"]
    assert [registry.get(n).requires_approval for n in names] == [True, True, True, False]  # type: ignore[union-attr]
    calls = [
        {"id": n, "type": "function", "function": {"name": n, "arguments": '{"table": "t"}'}}
        for n in names
    ]
    answers = registry.run_tool_calls({"role": "assistant", "tool_calls": calls})
    assert [a["content"] for a in answers[:3]] == [
        f"Error: Tool '{n}' needs approval" for n in names[:3]
    ]
    assert answers[3]["content"] == "dropped t" and ran == ["t"]
    approved = registry.run_tool_calls(
        {"role": "assistant", "tool_calls": calls[:1]}, approve=lambda call: True
    )
    assert approved[0]["content"] == "dropped t" and ran == ["t", "t"]


def _coats(x: int, y: int = 2, tags: list[str] | None = None) -> str:
    """Paint coats."""
    return f"{x} {y} {tags}"


def test_a_foreign_tool_takes_the_lenient_rules_a_proxy_takes() -> None:
    """A strict export makes a defaulted parameter nullable (null → the default), and some
    clients send a nested value as JSON text: the lenient rules a proxy applies before
    its server validates. A foreign tool's framework validates, and refused both; the
    registry applies the same rules before handing the arguments on."""
    from agents import function_tool
    from langchain_core.tools import StructuredTool
    from pydantic_ai import Tool as PydanticTool

    _coats.__annotations__.update(x=int, y=int, tags=list[str] | None)  # (string annotations)
    registry = ToolRegistry()
    registry.register(StructuredTool.from_function(_coats, name="lc"))
    registry.register(function_tool(_coats, name_override="ag"))
    registry.register(PydanticTool(_coats, name="pa"))
    for exported in registry.export("openai", strict=True):
        y = exported["function"]["parameters"]["properties"]["y"]
        assert {"type": "null"} in y["anyOf"], exported  # what a model may then send
    for name in ("lc", "ag", "pa"):
        assert registry.call_tool(name, {"x": 1, "y": None}) == "1 2 None", name
        assert registry.call_tool(name, {"x": 1, "tags": '["a"]'}) == "1 2 ['a']", name
        assert registry.call_tool(name, {"x": 1, "y": "3"}) == "1 3 None", name  # its own


def test_a_pydantic_ai_tool_asking_for_approval_is_answered_as_needing_it() -> None:
    """A Pydantic AI tool may ask for approval itself (``raise ApprovalRequired`` unless
    ``ctx.tool_call_approved``): registered, the model reads tooldeck's words for a call
    that needs approval (not the exception's class name), and one made with
    ``requires_approval=True`` runs, once tooldeck's approval let it, as approved."""
    from pydantic_ai import RunContext
    from pydantic_ai import Tool as PydanticTool
    from pydantic_ai.exceptions import ApprovalRequired

    def wipe(ctx: Any, x: int) -> str:
        """Wipe, asking first when big."""
        if x > 5 and not ctx.tool_call_approved:
            raise ApprovalRequired()
        return f"wiped {x} approved={ctx.tool_call_approved}"

    wipe.__annotations__.update(ctx=RunContext[Any], x=int)  # (string annotations)
    registry = ToolRegistry()
    registry.register(PydanticTool(wipe))
    registry.register(PydanticTool(wipe, name="gated", requires_approval=True))
    assert registry.call_tool("wipe", {"x": 1}) == "wiped 1 approved=False"
    assert registry.call_tool("wipe", {"x": 9}) == "Error: Tool 'wipe' needs approval"
    call = {"id": "1", "type": "function", "function": {"name": "gated", "arguments": '{"x": 9}'}}
    reply = {"role": "assistant", "tool_calls": [call]}
    answer = registry.run_tool_calls(reply, approve=lambda c: True)
    assert answer[0]["content"] == "wiped 9 approved=True"


def test_a_langchain_tool_taking_its_call_id_runs_in_a_registry() -> None:
    """A LangChain tool taking ``InjectedToolCallId`` runs only when invoked with a whole
    tool call (LangChain refuses plain arguments): registered, it runs, given a call id,
    and its refusal or exception is still the call's failure."""
    from langchain_core.tools import InjectedToolCallId
    from langchain_core.tools import tool as langchain_tool

    def tagged(x: int, call_id: Any) -> str:
        """Answer with the call's id."""
        if x < 0:
            raise ValueError("negative")
        return f"{x} {bool(call_id)}"

    tagged.__annotations__.update(x=int, call_id=Annotated[str, InjectedToolCallId])
    registry = ToolRegistry()
    registry.register(langchain_tool(tagged))
    assert list(registry.get("tagged").parameters["properties"]) == ["x"]  # type: ignore[union-attr]
    assert registry.call_tool("tagged", {"x": "3"}) == "3 True"
    assert registry.call_tool("tagged", {"x": -1}) == "Error: negative"
    refused = registry.execute_sync("tagged", {"x": "abc"})
    assert not refused.success and "valid integer" in (refused.error or "")

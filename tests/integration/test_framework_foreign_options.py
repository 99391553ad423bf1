"""``registry.register(foreign, timeout=..., requires_approval=...)`` for a LangChain
``BaseTool``, an OpenAI Agents ``FunctionTool`` and a Pydantic AI ``Tool``: the timeout
bounds the framework's invocation, approval gates the calls as for any tool.

The frameworks are imported inside the tests only (every xdist worker imports this module).
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

from tooldeck import ToolDefinitionError, ToolRegistry

pytestmark = pytest.mark.timeout(30)


def _langchain(name: str, body: Any) -> Any:
    from langchain_core.tools import StructuredTool

    kind = "coroutine" if inspect.iscoroutinefunction(body) else "func"
    return StructuredTool.from_function(name=name, description=f"{name}.", **{kind: body})


def _agents(name: str, body: Any) -> Any:
    from agents import function_tool

    return function_tool(body, name_override=name)


def _pydantic_ai(name: str, body: Any) -> Any:
    from pydantic_ai import Tool

    return Tool(body, name=name)


FRAMEWORKS = [_langchain, _agents, _pydantic_ai]


@pytest.mark.parametrize("make", FRAMEWORKS)
def test_a_timeout_bounds_the_frameworks_invocation(make: Any) -> None:
    started: list[int] = []

    async def hang(x: int) -> str:
        """Never answers."""
        started.append(x)
        await asyncio.Event().wait()
        return "never"

    async def quick(x: int) -> str:
        """Answers at once."""
        return f"quick {x}"

    registry = ToolRegistry()
    registry.register(make("hang", hang), timeout=0.2)
    registry.register(make("quick", quick), timeout=5)
    assert registry.get("hang").timeout == 0.2  # type: ignore[union-attr]
    assert registry.call_tool("hang", {"x": 1}) == "Error: Tool 'hang' timed out after 0.2 seconds"
    assert asyncio.run(registry.execute("hang", {"x": 2})).error == (
        "Tool 'hang' timed out after 0.2 seconds"
    )
    assert started == [1, 2]  # it did run, and was stopped
    assert registry.call_tool("quick", {"x": 3}) == "quick 3"
    # a timeout of no sense is refused at registration, as for any tool
    with pytest.raises(ToolDefinitionError, match="timeout must be a positive number"):
        registry.register(make("bad", quick), timeout=0)


@pytest.mark.parametrize("make", FRAMEWORKS)
def test_requires_approval_gates_a_foreign_tool(make: Any) -> None:
    ran: list[int] = []

    def wipe(x: int) -> str:
        """Wipe."""
        ran.append(x)
        return f"wiped {x}"

    def big(arguments: dict[str, Any], context: Any) -> bool:
        return bool(arguments["x"] > context.get("limit", 10))

    registry = ToolRegistry()
    registry.register(make("always", wipe), requires_approval=True)
    registry.register(make("policy", wipe), requires_approval=big)
    assert registry.get("always").requires_approval is True  # type: ignore[union-attr]
    assert registry.get("policy").requires_approval is big  # type: ignore[union-attr]

    reply = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "a",
                "type": "function",
                "function": {"name": "always", "arguments": '{"x": 1}'},
            },
            {
                "id": "b",
                "type": "function",
                "function": {"name": "policy", "arguments": '{"x": 2}'},
            },
            {
                "id": "c",
                "type": "function",
                "function": {"name": "policy", "arguments": '{"x": 50}'},
            },
        ],
    }
    unasked = registry.run_tool_calls(reply)
    assert [m["content"] for m in unasked] == [
        "Error: Tool 'always' needs approval",
        "wiped 2",
        "Error: Tool 'policy' needs approval",
    ]
    assert ran == [2]
    asked: list[str] = []
    approved = registry.run_tool_calls(reply, approve=lambda call: asked.append(call.id) or True)
    assert [m["content"] for m in approved] == ["wiped 1", "wiped 2", "wiped 50"]
    assert asked == ["a", "c"] and sorted(ran) == [1, 2, 2, 50]
    # a batch holds the call for a person; an edited approval is validated again
    batch = registry.prepare_tool_calls(reply, context={"limit": 100})
    assert [c.id for c in batch.pending] == ["a"]
    batch.approve("a", arguments={"x": 7})
    assert [m["content"] for m in batch.run()] == ["wiped 7", "wiped 2", "wiped 50"]


def test_a_given_approval_replaces_the_frameworks_own() -> None:
    """An Agents tool's ``needs_approval`` policy reads a run tooldeck does not have (so
    a person is asked every time): a tooldeck policy given at registration replaces it,
    as ``requires_approval=False`` lifts it."""
    from agents import function_tool

    def wipe(x: int) -> str:
        return f"wiped {x}"

    async def sdk_policy(ctx: Any, params: Any, call_id: str) -> bool:
        return True

    registry = ToolRegistry()
    registry.register(function_tool(wipe, name_override="asks", needs_approval=sdk_policy))
    registry.register(
        function_tool(wipe, name_override="small", needs_approval=sdk_policy),
        requires_approval=lambda arguments, context: arguments["x"] > 10,
    )
    registry.register(
        function_tool(wipe, name_override="free", needs_approval=True), requires_approval=False
    )

    def ask(name: str, x: int) -> str:
        call = {"id": "1", "type": "function", "function": {"name": name, "arguments": {"x": x}}}
        [answer] = registry.run_tool_calls({"role": "assistant", "tool_calls": [call]})
        return str(answer["content"])

    assert ask("asks", 1) == "Error: Tool 'asks' needs approval"
    assert ask("small", 1) == "wiped 1"
    assert ask("small", 11) == "Error: Tool 'small' needs approval"
    assert ask("free", 1) == "wiped 1"


def test_a_pydantic_ai_tool_runs_as_approved_only_when_its_call_needed_approval() -> None:
    """``ctx.tool_call_approved`` is true when the call needed tooldeck's approval (so
    ran only once given it), whatever approval the tool was registered with."""
    from pydantic_ai import RunContext
    from pydantic_ai import Tool as PydanticTool

    def wipe(ctx: Any, x: int) -> str:
        return f"wiped {x} approved={ctx.tool_call_approved}"

    wipe.__annotations__.update(ctx=RunContext[Any], x=int)  # (string annotations)

    registry = ToolRegistry()
    registry.register(
        PydanticTool(wipe, name="small"),
        requires_approval=lambda args, ctx: args["x"] > 10,
    )
    registry.register(
        PydanticTool(wipe, name="free", requires_approval=True),
        requires_approval=False,
    )
    calls = [("small", 1), ("small", 11), ("free", 1)]
    reply = {
        "role": "assistant",
        "tool_calls": [
            {"id": str(i), "type": "function", "function": {"name": n, "arguments": {"x": x}}}
            for i, (n, x) in enumerate(calls)
        ],
    }
    answers = registry.run_tool_calls(reply, approve=lambda call: True)
    assert [m["content"] for m in answers] == [
        "wiped 1 approved=False",
        "wiped 11 approved=True",
        "wiped 1 approved=False",
    ]


# -- a tool its framework would hide --------------------------------------------------------


def test_an_agents_tool_disabled_in_its_sdk_is_registered_disabled() -> None:
    from agents import function_tool

    def wipe(x: int) -> str:
        return f"wiped {x}"

    registry = ToolRegistry()
    registry.register(function_tool(wipe, is_enabled=False))
    assert registry.get("wipe").enabled is False  # type: ignore[union-attr]
    assert registry.list_tools() == [] and registry.export("openai") == []
    assert registry.call_tool("wipe", {"x": 1}) == "Error: Tool 'wipe' is disabled"
    registry.enable("wipe")
    assert registry.call_tool("wipe", {"x": 1}) == "wiped 1"
    # and any framework's tool may be registered disabled, as any tool
    registry.register(function_tool(wipe, name_override="off"), enabled=False)
    assert registry.get("off").enabled is False  # type: ignore[union-attr]


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_agents_tools_is_enabled_callable_is_asked_at_call_time(kind: str) -> None:
    """A callable ``is_enabled`` reads the run (its context, the agent): it is asked at
    each call with the call's context (no agent: ``None``); a tool it disables, or
    whose callable raises, answers as a disabled tool. It is listed and exported
    (listing has no run to ask about)."""
    from agents import function_tool

    def pro_only(ctx: Any, agent: Any) -> bool:
        return bool(ctx.context["tier"] == "pro")

    async def apro_only(ctx: Any, agent: Any) -> bool:
        return pro_only(ctx, agent)

    def wipe(x: int) -> str:
        return f"wiped {x}"

    registry = ToolRegistry()
    registry.register(function_tool(wipe, is_enabled=pro_only if kind == "sync" else apro_only))
    assert registry.list_tools() == ["wipe"]
    assert registry.call_tool("wipe", {"x": 1}, context={"tier": "pro"}) == "wiped 1"
    refused = "Error: Tool 'wipe' is disabled"
    assert registry.call_tool("wipe", {"x": 1}, context={"tier": "free"}) == refused
    assert registry.call_tool("wipe", {"x": 1}) == refused  # no context: it raises


def test_a_pydantic_ai_tool_its_prepare_hides_answers_as_disabled() -> None:
    from pydantic_ai import RunContext
    from pydantic_ai import Tool as PydanticTool

    def wipe(x: int) -> str:
        return f"wiped {x}"

    async def admins(ctx: Any, tool_def: Any) -> Any:
        return tool_def if (ctx.deps or {}).get("admin") else None

    admins.__annotations__.update(ctx=RunContext[Any])  # (string annotations)
    registry = ToolRegistry()
    registry.register(PydanticTool(wipe, prepare=admins))
    assert registry.list_tools() == ["wipe"]
    assert registry.call_tool("wipe", {"x": 1}, context={"admin": True}) == "wiped 1"
    assert registry.call_tool("wipe", {"x": 1}, context={}) == "Error: Tool 'wipe' is disabled"
    assert registry.call_tool("wipe", {"x": 1}) == "Error: Tool 'wipe' is disabled"

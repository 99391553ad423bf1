"""The framework bridges under attack (a review of issue 27): what the first tests left
out, each break pinned by a test that failed before its fix.

The frameworks are imported inside the tests only (every xdist worker imports this
module).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest

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

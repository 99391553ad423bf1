"""A tooldeck tool inside each agent framework against the framework's own tool.

    python -m benchmarks.bench_frameworks            # 101 paired rounds
    python -m benchmarks.bench_frameworks --quick    # 5 rounds (CI: it runs end to end)

The same function, ``add(a: int, b: int) -> int``, as the framework's native tool and
as a tooldeck tool converted by the registry's bridge, called on the path the
framework's runner takes for a model's tool call:

* LangChain: ``tool.invoke(arguments)`` (what LangGraph's ``ToolNode`` calls), sync,
  and ``await tool.ainvoke(arguments)``;
* the OpenAI Agents SDK: ``await tool.on_invoke_tool(ctx, json_text)`` (what its
  ``Runner`` calls with the model's JSON);
* Pydantic AI: the tool's validator, then ``await function_schema.call(args, ctx)``
  (what its tool manager does), and a whole ``Agent.run`` whose scripted model calls
  the tool once (the call inside everything a run does around it), like for like: the
  tool given in ``tools=`` (the native ``Tool``, the registry's tool taken out of its
  toolset), and a toolset in ``toolsets=`` (the native tool in a ``FunctionToolset``,
  the registry's ``to_pydantic_ai()``). Pydantic AI's own cost of a toolset beside the
  agent's (about a tenth of such a run) is the same on both sides, so it is not
  counted against either.

Target: no slower than native (a ratio of at most 1.0 plus the rounds' noise, 1.05).
The native tool validates with the framework's own Pydantic model; the tooldeck tool
is validated by tooldeck (the framework validates nothing more) and runs through the
registry's ``execute`` faces, middleware chain included (empty here).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/bench_frameworks.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import functions as fn
from benchmarks.timing import Call, Settings, Timer

TARGET = 1.05  # tooldeck / native, medians of paired rounds: no slower than native
ARGS = fn.CALL_ARGS
TEXT = '{"a": 1, "b": 2}'


def _registry() -> Any:
    from tooldeck import ToolRegistry

    registry = ToolRegistry()
    registry.register(fn.add)
    registry.register(fn.aadd, tags="async")
    return registry


def _langchain(registry: Any) -> dict[str, tuple[Call, Call]]:
    from langchain_core.tools import StructuredTool

    native = StructuredTool.from_function(fn.add)
    anative = StructuredTool.from_function(coroutine=fn.aadd)
    ours = next(t for t in registry.to_langchain() if t.name == "add")
    aours = next(t for t in registry.to_langchain() if t.name == "aadd")
    return {
        "LangChain: invoke (sync tool)": (
            Call("t.invoke(args)", {"t": native, "args": ARGS}),
            Call("t.invoke(args)", {"t": ours, "args": ARGS}),
        ),
        "LangChain: await ainvoke (async tool)": (
            Call("t.ainvoke(args)", {"t": anative, "args": ARGS}, is_async=True),
            Call("t.ainvoke(args)", {"t": aours, "args": ARGS}, is_async=True),
        ),
    }


def _agents(registry: Any) -> dict[str, tuple[Call, Call]]:
    from agents import Usage, function_tool
    from agents.tool_context import ToolContext

    native = function_tool(fn.aadd)
    ours = next(t for t in registry.to_openai_agents() if t.name == "aadd")
    ctx = ToolContext(
        context=None, usage=Usage(), tool_name="aadd", tool_call_id="c", tool_arguments=TEXT
    )
    env = {"ctx": ctx, "text": TEXT}
    return {
        "OpenAI Agents: await on_invoke_tool (async tool)": (
            Call("t.on_invoke_tool(ctx, text)", {**env, "t": native}, is_async=True),
            Call("t.on_invoke_tool(ctx, text)", {**env, "t": ours}, is_async=True),
        ),
    }


def _pydantic_ai(registry: Any) -> dict[str, tuple[Call, Call]]:
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import RunUsage

    native = Tool(fn.aadd)
    ours = next(t for t in registry.to_pydantic_ai().tools.values() if t.name == "aadd")
    ctx = RunContext(deps=None, model=None, usage=RunUsage())  # type: ignore[arg-type]
    body = "s = t.function_schema\nout = await s.call(s.validator.validate_python(args), ctx)"
    run = "out = (await agent.run('add')).output"
    one = registry.to_pydantic_ai("async")  # aadd alone, as the native agent has it
    native_set = FunctionToolset([native])
    return {
        "Pydantic AI: validate + call (async tool)": (
            Call(None, {"t": native, "args": ARGS, "ctx": ctx}, is_async=True, code=body),
            Call(None, {"t": ours, "args": ARGS, "ctx": ctx}, is_async=True, code=body),
        ),
        "Pydantic AI: Agent.run, one tool call (tools=)": (
            Call(None, {"agent": _agent(tools=[native])}, is_async=True, code=run),
            Call(None, {"agent": _agent(tools=[ours])}, is_async=True, code=run),
        ),
        "Pydantic AI: Agent.run, one tool call (toolsets=)": (
            Call(None, {"agent": _agent(toolsets=[native_set])}, is_async=True, code=run),
            Call(None, {"agent": _agent(toolsets=[one])}, is_async=True, code=run),
        ),
    }


def _agent(**tools: Any) -> Any:
    """An agent whose scripted model calls ``aadd`` once, then answers its result."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    call = ModelResponse(parts=[ToolCallPart("aadd", ARGS)])

    def model(messages: list[Any], info: Any) -> ModelResponse:
        if len(messages) == 1:
            return call
        return ModelResponse(parts=[TextPart(str(messages[-1].parts[0].content))])

    return Agent(FunctionModel(model), **tools)


def run(timer: Timer) -> dict[str, dict[str, float]]:
    """Per case: µs per call of the native tool and of tooldeck's, and their ratio."""
    registry = _registry()
    cases = {**_langchain(registry), **_agents(registry), **_pydantic_ai(registry)}
    measured: dict[str, dict[str, float]] = {}
    for label, (native, ours) in cases.items():
        for call in (native, ours):
            assert str(timer.once(call)) == str(fn.CALL_RESULT), (label, timer.once(call))
        stats = timer.compare({"native": native, "tooldeck": ours})
        measured[label] = {
            "native_us": stats["native"].median * 1e6,
            "tooldeck_us": stats["tooldeck"].median * 1e6,
            "ratio": stats["tooldeck"].ratio_to(stats["native"]),
        }
    return measured


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Run the cases and print their table; the measurements by case."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds")
    opts = parser.parse_args(argv)
    timer = Timer(Settings.make(opts.quick))
    try:
        measured = run(timer)
    finally:
        timer.close()
    print("A tooldeck tool in each framework vs its native tool: µs per call (medians)")
    print("| case | native | tooldeck | tooldeck / native | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    for label, m in measured.items():
        verdict = "pass" if m["ratio"] <= TARGET else "FAIL"
        print(
            f"| {label} | {m['native_us']:.1f} | {m['tooldeck_us']:.1f} | "
            f"{m['ratio']:.2f} | <= {TARGET:g} {verdict} |"
        )
    return measured


if __name__ == "__main__":
    main()

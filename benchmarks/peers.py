"""The peers tooldeck is compared with, each called in its own idiom.

LangChain `tool.invoke`/`ainvoke`; OpenAI Agents `on_invoke_tool` with the JSON
arguments (its only call path, async); FastMCP `Tool.run` (async; sync tools run in a
worker thread) and, by name, `FastMCP.call_tool`; Pydantic AI its prebuilt validator
plus `FunctionSchema.call` (what its tool manager does per call); Agently `call_tool`
(no argument validation); toolregistry `ToolRegistry.invoke` by name and `Tool.run`.
A peer that raises on invalid arguments is measured inside the ``try``/``except`` its
caller would need (`catching`).
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks.subjects import (
    Args,
    Floor,
    Func,
    Subject,
    Tooldeck,
    catching,
    loads_call,
)
from benchmarks.timing import Call, call_of

# -- peers -------------------------------------------------------------------------------


class LangChain(Subject):
    name = "langchain-core"
    dist = "langchain-core"
    registers = "`@tool(parse_docstring=True)` + `tool_call_schema` JSON schema into a dict"
    scale_cap = 1_000  # about 5 ms a tool: 10,000 would take minutes

    def load(self) -> None:
        from langchain_core.tools import tool

        # parse_docstring: without it the parameters get no descriptions from the docstring;
        # error_on_invalid_docstring=False: a docstring without an Args section is valid.
        self._tool = lambda func: tool(func, parse_docstring=True, error_on_invalid_docstring=False)

    def define(self, func: Func) -> dict[str, Any]:
        return self._tool(func).tool_call_schema.model_json_schema()  # type: ignore[no-any-return]

    def prepare_sync(self, func: Func, args: Args) -> Call:
        return call_of(self._tool(func).invoke, args)

    def prepare_async(self, afunc: Func, args: Args) -> Call:
        return call_of(self._tool(afunc).ainvoke, args, is_async=True)

    def prepare_async_sync(self, func: Func, args: Args) -> Call:
        return call_of(self._tool(func).ainvoke, args, is_async=True)

    def prepare_json(self, func: Func, raw: str) -> Call:
        return loads_call(self._tool(func).invoke, raw)

    def prepare_async_json(self, afunc: Func, raw: str) -> Call:
        return loads_call(self._tool(afunc).ainvoke, raw, is_async=True)

    def prepare_error(self, func: Func, bad: Args) -> Call:
        return catching(call_of(self._tool(func).invoke, bad))

    def prepare_error_async(self, afunc: Func, bad: Args) -> Call:
        return catching(call_of(self._tool(afunc).ainvoke, bad, is_async=True))

    def new_registry(self) -> Any:
        return {}

    def register(self, registry: Any, func: Func, tags: list[str]) -> None:
        lc_tool = self._tool(func)
        lc_tool.tags = tags
        lc_tool.tool_call_schema.model_json_schema()
        registry[lc_tool.name] = lc_tool

    def prepare_call_by_name(self, registry: Any, name: str, args: Args) -> Call:
        env = {"tools": registry, "name": name, "args": args}
        return Call("tools[name].invoke(args)", env)


class OpenAIAgents(Subject):
    name = "openai-agents"
    dist = "openai-agents"
    registers = "`function_tool` (schema built at decoration) into a list"

    def load(self) -> None:
        import logging

        from agents import function_tool
        from agents.tool_context import ToolContext

        # Each failed call logs a tracing warning ("No active span"): not what is measured.
        logging.getLogger("openai.agents").setLevel(logging.CRITICAL)

        self._function_tool = function_tool
        self._ctx_cls = ToolContext

    def define(self, func: Func) -> dict[str, Any]:
        return self._function_tool(func).params_json_schema  # type: ignore[no-any-return]

    def _invoke(self, func: Func, raw: str) -> Call:
        # The Runner hands `on_invoke_tool` a context and the model's JSON arguments.
        ctx = self._ctx_cls(
            context=None, tool_name=func.__name__, tool_call_id="call_1", tool_arguments="{}"
        )
        return call_of(self._function_tool(func).on_invoke_tool, ctx, raw, is_async=True)

    def prepare_async(self, afunc: Func, args: Args) -> Call:
        # Its only call path takes JSON: the dict is serialised as the Runner would get it.
        return self._invoke(afunc, json.dumps(args))

    def prepare_async_sync(self, func: Func, args: Args) -> Call:
        return self._invoke(func, json.dumps(args))

    def prepare_async_json(self, afunc: Func, raw: str) -> Call:
        return self._invoke(afunc, raw)

    def prepare_error_async(self, afunc: Func, bad: Args) -> Call:
        # Invalid arguments come back as its failure_error_function's message.
        return self._invoke(afunc, json.dumps(bad))

    def new_registry(self) -> Any:
        return []

    def register(self, registry: Any, func: Func, tags: list[str]) -> None:
        registry.append(self._function_tool(func))


class FastMCP(Subject):
    name = "fastmcp"
    dist = "fastmcp"
    registers = "`FastMCP.tool(func, tags=...)` on a server"
    scale_cap = 1_000  # registration grows faster than linearly: 10,000 take minutes

    def load(self) -> None:
        from fastmcp import FastMCP as Server
        from fastmcp.tools import Tool

        self._tool_cls = Tool
        self._server_cls = Server

    def define(self, func: Func) -> dict[str, Any]:
        return self._tool_cls.from_function(func).parameters  # type: ignore[no-any-return]

    def _run(self, func: Func) -> Func:
        return self._tool_cls.from_function(func).run  # type: ignore[no-any-return]

    def prepare_async(self, afunc: Func, args: Args) -> Call:
        return call_of(self._run(afunc), args, is_async=True)

    def prepare_async_sync(self, func: Func, args: Args) -> Call:
        # fastmcp runs a sync tool in a worker thread by default (run_in_thread).
        return call_of(self._run(func), args, is_async=True)

    def prepare_async_json(self, afunc: Func, raw: str) -> Call:
        return loads_call(self._run(afunc), raw, is_async=True)

    def prepare_error_async(self, afunc: Func, bad: Args) -> Call:
        return catching(call_of(self._run(afunc), bad, is_async=True))

    def new_registry(self) -> Any:
        return self._server_cls("bench")

    def register(self, registry: Any, func: Func, tags: list[str]) -> None:
        registry.tool(func, tags=set(tags))

    def prepare_call_by_name(self, registry: Any, name: str, args: Args) -> Call:
        return call_of(registry.call_tool, name, args, is_async=True)


class PydanticAI(Subject):
    name = "pydantic-ai-slim"
    dist = "pydantic-ai-slim"
    registers = "`Tool(func)` into a `FunctionToolset`"

    def load(self) -> None:
        from pydantic_ai import RunContext, Tool
        from pydantic_ai.models.test import TestModel
        from pydantic_ai.toolsets import FunctionToolset
        from pydantic_ai.usage import RunUsage

        self._tool_cls = Tool
        self._toolset_cls = FunctionToolset
        self._ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())

    def define(self, func: Func) -> dict[str, Any]:
        return self._tool_cls(func).tool_def.parameters_json_schema  # type: ignore[no-any-return]

    def _call(self, func: Func, args: Any, *, raw: bool = False) -> Call:
        # What its ToolManager does per call: validate with the prebuilt validator, call.
        schema = self._tool_cls(func).function_schema
        validator = schema.validator
        validate = validator.validate_json if raw else validator.validate_python
        env = {"call": schema.call, "validate": validate, "args": args, "ctx": self._ctx}
        return Call("call(validate(args), ctx)", env, is_async=True)

    def prepare_async(self, afunc: Func, args: Args) -> Call:
        return self._call(afunc, args)

    def prepare_async_sync(self, func: Func, args: Args) -> Call:
        return self._call(func, args)

    def prepare_async_json(self, afunc: Func, raw: str) -> Call:
        return self._call(afunc, raw, raw=True)

    def prepare_error_async(self, afunc: Func, bad: Args) -> Call:
        return catching(self._call(afunc, bad))

    def new_registry(self) -> Any:
        return self._toolset_cls()

    def register(self, registry: Any, func: Func, tags: list[str]) -> None:
        registry.add_tool(self._tool_cls(func))


class Agently(Subject):
    name = "agently"
    dist = "agently"
    full_schema = False  # keeps `{param: (type, "description")}`, not a JSON schema
    registers = "Agently's `tool_func(func)` + `tag(...)` (no schema, no validator)"

    def load(self) -> None:
        import agently

        main = agently.Agently
        try:  # 4.1: the tool manager is part of `Action`
            from agently.core.operation.Action.Action import Action

            self._new = lambda: Action(main.plugin_manager, main.settings)
        except ImportError:  # 4.0
            from agently.core.Tool import Tool

            self._new = lambda: Tool(main.plugin_manager, main.settings)
        self._probe = self._new()

    def define(self, func: Func) -> dict[str, Any]:
        manager = self._probe
        manager.tool_func(func)
        return manager.get_tool_info()[func.__name__]  # type: ignore[no-any-return]

    def _by_name(
        self, face: str, func: Func, args: Any, is_async: bool = False, json_text: bool = False
    ) -> Call:
        manager = self._new()
        manager.tool_func(func)
        if json_text:  # it takes a dict: the model's JSON text is parsed first
            env = {"fn": getattr(manager, face), "name": func.__name__, "loads": json.loads}
            return Call("fn(name, loads(raw))", {**env, "raw": args}, is_async)
        return call_of(getattr(manager, face), func.__name__, args, is_async=is_async)

    def prepare_sync(self, func: Func, args: Args) -> Call:
        return self._by_name("call_tool", func, args)

    def prepare_async(self, afunc: Func, args: Args) -> Call:
        return self._by_name("async_call_tool", afunc, args, True)

    def prepare_async_sync(self, func: Func, args: Args) -> Call:
        return self._by_name("async_call_tool", func, args, True)

    def prepare_json(self, func: Func, raw: str) -> Call:
        return self._by_name("call_tool", func, raw, json_text=True)

    def prepare_async_json(self, afunc: Func, raw: str) -> Call:
        return self._by_name("async_call_tool", afunc, raw, True, json_text=True)

    def prepare_error(self, func: Func, bad: Args) -> Call:
        # No validation: the bad argument reaches the function and fails there.
        return self._by_name("call_tool", func, bad)

    def prepare_error_async(self, afunc: Func, bad: Args) -> Call:
        return self._by_name("async_call_tool", afunc, bad, True)

    def new_registry(self) -> Any:
        return self._new()

    def register(self, registry: Any, func: Func, tags: list[str]) -> None:
        registry.tool_func(func)
        registry.tag([func.__name__], tags)

    def prepare_call_by_name(self, registry: Any, name: str, args: Args) -> Call:
        return call_of(registry.call_tool, name, args)

    def prepare_tag_query(self, registry: Any, tag: str) -> Call:
        return call_of(registry.get_tool_list, tag)


class ToolRegistryPeer(Subject):
    name = "toolregistry"
    dist = "toolregistry"
    registers = "`ToolRegistry.register(func)`"

    def load(self) -> None:
        from toolregistry import Tool, ToolRegistry

        self._tool_cls = Tool
        self._registry_cls = ToolRegistry

    def define(self, func: Func) -> dict[str, Any]:
        return self._tool_cls.from_function(func).parameters  # type: ignore[no-any-return]

    def prepare_sync(self, func: Func, args: Args) -> dict[str, Call]:
        registry = self._registry_cls()
        registry.register(func)
        return {
            "registry.invoke": call_of(registry.invoke, func.__name__, args),
            "Tool.run": call_of(self._tool_cls.from_function(func).run, args),
        }

    def prepare_async(self, afunc: Func, args: Args) -> Call:
        return call_of(self._tool_cls.from_function(afunc).arun, args, is_async=True)

    def prepare_async_sync(self, func: Func, args: Args) -> Call:
        return call_of(self._tool_cls.from_function(func).arun, args, is_async=True)

    def prepare_json(self, func: Func, raw: str) -> Call:
        return loads_call(self._tool_cls.from_function(func).run, raw)

    def prepare_async_json(self, afunc: Func, raw: str) -> Call:
        return loads_call(self._tool_cls.from_function(afunc).arun, raw, is_async=True)

    def prepare_error(self, func: Func, bad: Args) -> Call:
        return catching(call_of(self._tool_cls.from_function(func).run, bad))

    def prepare_error_async(self, afunc: Func, bad: Args) -> Call:
        return catching(call_of(self._tool_cls.from_function(afunc).arun, bad, is_async=True))

    def new_registry(self) -> Any:
        return self._registry_cls()

    def register(self, registry: Any, func: Func, tags: list[str]) -> None:
        registry.register(func)

    def prepare_call_by_name(self, registry: Any, name: str, args: Args) -> Call:
        return call_of(registry.invoke, name, args)


ALL_SUBJECTS: tuple[type[Subject], ...] = (
    Floor,
    Tooldeck,
    LangChain,
    OpenAIAgents,
    FastMCP,
    PydanticAI,
    Agently,
    ToolRegistryPeer,
)

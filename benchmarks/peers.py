"""One adapter per framework under test, plus the floors they are measured against.

Every adapter answers the same questions in the framework's own idiom: how a function
becomes a tool with a finished JSON schema (`define`), and how a prepared tool is
called for each measured path (`prepare_*`, returning `(callable, args)` so the
timing loop adds the same `f(*args)` to every subject). A path a framework does not
offer raises `Unsupported` with the reason, which the report records. Importing a
framework happens in `load()`, so one that is missing or broken is skipped with its
error instead of stopping the run.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import json
import typing
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import TypeAdapter, ValidationError, create_model
from typing_extensions import TypedDict


class Unsupported(Exception):
    """The framework has no such path; `str()` says why."""


Prepared = tuple[Callable[..., Any], tuple[Any, ...]]
# A framework with more than one idiomatic way down a path names each one.
Variants = dict[str, Prepared]


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _catching(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a peer that raises on bad input, as a caller must, into an error string."""

    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as exc:
            return f"Error: {exc}"

    return call


def _acatching(fn: Callable[..., Any]) -> Callable[..., Any]:
    async def call(*args: Any) -> Any:
        try:
            return await fn(*args)
        except Exception as exc:
            return f"Error: {exc}"

    return call


class Subject:
    """A framework under test. Subclasses override the paths they offer."""

    name: ClassVar[str]
    dist: ClassVar[str | None] = None
    # Whether `define` yields a complete JSON Schema for the parameters (types,
    # defaults, descriptions). Targets compare tooldeck only with such peers.
    full_schema: ClassVar[bool] = True
    # How a registration of this framework reaches the same state as tooldeck's.
    registers: ClassVar[str] = ""
    # The most tools the full run registers (a peer that needs minutes for 10,000 is
    # measured at fewer and compared per tool).
    scale_cap: ClassVar[int | None] = None

    def load(self) -> None:
        """Import the framework; raise to have it skipped."""

    def label(self, variant: str | None = None) -> str:
        return f"{self.name} ({variant})" if variant else self.name

    @property
    def version(self) -> str:
        return _version(self.dist) if self.dist else ""

    def define(self, func: Callable[..., Any]) -> dict[str, Any]:
        raise Unsupported("no definition path")

    def prepare_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        raise Unsupported("no synchronous call")

    def prepare_async(self, afunc: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        raise Unsupported("no asynchronous call")

    def prepare_async_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        raise Unsupported("no asynchronous call of a sync tool")

    def prepare_json(self, func: Callable[..., Any], raw: str) -> Prepared:
        raise Unsupported("no call with a JSON string")

    def prepare_error(self, func: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        raise Unsupported("no synchronous call")

    def prepare_error_async(self, afunc: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        raise Unsupported("no asynchronous call")

    # -- scale: a registry of many tools ---------------------------------------------
    def new_registry(self) -> Any:
        raise Unsupported("no registry")

    def register(self, registry: Any, func: Callable[..., Any], tags: list[str]) -> None:
        raise Unsupported("no registry")

    def prepare_call_by_name(self, registry: Any, name: str, args: dict[str, Any]) -> Prepared:
        raise Unsupported("no call by name")

    def prepare_tag_query(self, registry: Any, tag: str) -> Prepared:
        raise Unsupported("no tag query")

    def prepare_export(self, registry: Any) -> Prepared:
        raise Unsupported("no export")


# -- floors -------------------------------------------------------------------------------


def _args_validator(func: Callable[..., Any]) -> Any:
    """A pydantic-core validator for `func`'s arguments, built once: a TypedDict that
    forbids unknown keys (as tooldeck must) and yields the kwargs dict directly."""
    hints = typing.get_type_hints(func, include_extras=True)
    hints.pop("return", None)
    typed = TypedDict(f"{func.__name__}_args", hints)  # type: ignore[operator]
    typed.__pydantic_config__ = {"extra": "forbid"}  # type: ignore[attr-defined]
    return TypeAdapter(typed).validator


def format_validation_error(exc: ValidationError) -> str:
    """What a floor does with a validation error: one line per problem, for a model."""
    lines = [
        f"{'.'.join(map(str, err['loc']))}: {err['msg']} (got {err['input']!r})"
        for err in exc.errors(include_url=False, include_context=False)
    ]
    return "Error: invalid arguments:\n" + "\n".join(lines)


class Floor(Subject):
    """The least a validated call can do: a prebuilt validator and the direct call."""

    name = "floor"
    dist = "pydantic-core"
    registers = "dict insert of a prebuilt validator"

    def define(self, func: Callable[..., Any]) -> dict[str, Any]:
        # Reference only: signature -> create_model -> JSON schema, no docstring parsing.
        sig = inspect.signature(func)
        hints = typing.get_type_hints(func, include_extras=True)
        fields = {
            p.name: (hints.get(p.name, Any), ... if p.default is p.empty else p.default)
            for p in sig.parameters.values()
        }
        return create_model(f"{func.__name__}_args", **fields).model_json_schema()  # type: ignore[call-overload,no-any-return]

    def prepare_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        validate = _args_validator(func).validate_python

        def call(arguments: dict[str, Any]) -> Any:
            return func(**validate(arguments))

        return call, (args,)

    def prepare_async(self, afunc: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        validate = _args_validator(afunc).validate_python

        async def call(arguments: dict[str, Any]) -> Any:
            return await afunc(**validate(arguments))

        return call, (args,)

    def prepare_async_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        validate = _args_validator(func).validate_python
        to_thread = asyncio.to_thread

        async def call(arguments: dict[str, Any]) -> Any:
            return await to_thread(func, **validate(arguments))

        return call, (args,)

    def prepare_json(self, func: Callable[..., Any], raw: str) -> Prepared:
        validate_json = _args_validator(func).validate_json

        def call(arguments: str) -> Any:
            return func(**validate_json(arguments))

        return call, (raw,)

    def prepare_error(self, func: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        validate = _args_validator(func).validate_python

        def call(arguments: dict[str, Any]) -> Any:
            try:
                return func(**validate(arguments))
            except ValidationError as exc:
                return format_validation_error(exc)

        return call, (bad,)

    def prepare_error_async(self, afunc: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        validate = _args_validator(afunc).validate_python

        async def call(arguments: dict[str, Any]) -> Any:
            try:
                return await afunc(**validate(arguments))
            except ValidationError as exc:
                return format_validation_error(exc)

        return call, (bad,)

    def new_registry(self) -> Any:
        return {}

    def register(self, registry: Any, func: Callable[..., Any], tags: list[str]) -> None:
        registry[func.__name__] = (func, _args_validator(func).validate_python)

    def prepare_call_by_name(self, registry: Any, name: str, args: dict[str, Any]) -> Prepared:
        def call(tool_name: str, arguments: dict[str, Any]) -> Any:
            func, validate = registry[tool_name]
            return func(**validate(arguments))

        return call, (name, args)


# -- tooldeck ----------------------------------------------------------------------------


class Tooldeck(Subject):
    name = "tooldeck"
    dist = "tooldeck"
    registers = "`ToolRegistry.register(func, tags=...)`"

    def load(self) -> None:
        from tooldeck import ToolRegistry, tool

        self._tool = tool
        self._registry_cls = ToolRegistry

    def define(self, func: Callable[..., Any]) -> dict[str, Any]:
        return self._tool(func).parameters  # type: ignore[no-any-return]

    def _registry_with(self, func: Callable[..., Any]) -> Any:
        registry = self._registry_cls()
        registry.register(func)
        return registry

    def prepare_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._registry_with(func).call_tool, (func.__name__, args)

    def prepare_async(self, afunc: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._registry_with(afunc).async_call_tool, (afunc.__name__, args)

    def prepare_async_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._registry_with(func).async_call_tool, (func.__name__, args)

    def prepare_json(self, func: Callable[..., Any], raw: str) -> Prepared:
        return self._registry_with(func).call_tool, (func.__name__, raw)

    def prepare_error(self, func: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        return self._registry_with(func).call_tool, (func.__name__, bad)

    def prepare_error_async(self, afunc: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        return self._registry_with(afunc).async_call_tool, (afunc.__name__, bad)

    def new_registry(self) -> Any:
        return self._registry_cls()

    def register(self, registry: Any, func: Callable[..., Any], tags: list[str]) -> None:
        registry.register(func, tags=tags)

    def prepare_call_by_name(self, registry: Any, name: str, args: dict[str, Any]) -> Prepared:
        return registry.call_tool, (name, args)

    def prepare_tag_query(self, registry: Any, tag: str) -> Prepared:
        return registry.list_tools, (tag,)

    def prepare_export(self, registry: Any) -> Prepared:
        return registry.get_openai_tools, ()


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

    def define(self, func: Callable[..., Any]) -> dict[str, Any]:
        return self._tool(func).tool_call_schema.model_json_schema()  # type: ignore[no-any-return]

    def prepare_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._tool(func).invoke, (args,)

    def prepare_async(self, afunc: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._tool(afunc).ainvoke, (args,)

    def prepare_async_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._tool(func).ainvoke, (args,)

    def prepare_json(self, func: Callable[..., Any], raw: str) -> Prepared:
        invoke = self._tool(func).invoke
        loads = json.loads

        def call(arguments: str) -> Any:
            return invoke(loads(arguments))

        return call, (raw,)

    def prepare_error(self, func: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        return _catching(self._tool(func).invoke), (bad,)

    def prepare_error_async(self, afunc: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        return _acatching(self._tool(afunc).ainvoke), (bad,)

    def new_registry(self) -> Any:
        return {}

    def register(self, registry: Any, func: Callable[..., Any], tags: list[str]) -> None:
        lc_tool = self._tool(func)
        lc_tool.tags = tags
        lc_tool.tool_call_schema.model_json_schema()
        registry[lc_tool.name] = lc_tool

    def prepare_call_by_name(self, registry: Any, name: str, args: dict[str, Any]) -> Prepared:
        def call(tool_name: str, arguments: dict[str, Any]) -> Any:
            return registry[tool_name].invoke(arguments)

        return call, (name, args)


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

    def define(self, func: Callable[..., Any]) -> dict[str, Any]:
        return self._function_tool(func).params_json_schema  # type: ignore[no-any-return]

    def _invoker(self, func: Callable[..., Any]) -> Callable[[str], Any]:
        # The Runner hands `on_invoke_tool` the model's JSON arguments and a context.
        invoke = self._function_tool(func).on_invoke_tool
        ctx = self._ctx_cls(
            context=None, tool_name=func.__name__, tool_call_id="call_1", tool_arguments="{}"
        )

        def call(arguments: str) -> Any:
            return invoke(ctx, arguments)

        return call

    def prepare_async(self, afunc: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        # Its only call path takes JSON: the dict is serialised as the Runner would get it.
        return self._invoker(afunc), (json.dumps(args),)

    def prepare_async_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._invoker(func), (json.dumps(args),)

    def prepare_error_async(self, afunc: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        # Invalid arguments come back as its failure_error_function's message.
        return self._invoker(afunc), (json.dumps(bad),)

    def new_registry(self) -> Any:
        return []

    def register(self, registry: Any, func: Callable[..., Any], tags: list[str]) -> None:
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

    def define(self, func: Callable[..., Any]) -> dict[str, Any]:
        return self._tool_cls.from_function(func).parameters  # type: ignore[no-any-return]

    def prepare_async(self, afunc: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._tool_cls.from_function(afunc).run, (args,)

    def prepare_async_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        # fastmcp runs a sync tool in a worker thread by default (run_in_thread).
        return self._tool_cls.from_function(func).run, (args,)

    def prepare_error_async(self, afunc: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        return _acatching(self._tool_cls.from_function(afunc).run), (bad,)

    def new_registry(self) -> Any:
        return self._server_cls("bench")

    def register(self, registry: Any, func: Callable[..., Any], tags: list[str]) -> None:
        registry.tool(func, tags=set(tags))

    def prepare_call_by_name(self, registry: Any, name: str, args: dict[str, Any]) -> Prepared:
        return registry.call_tool, (name, args)


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

    def define(self, func: Callable[..., Any]) -> dict[str, Any]:
        return self._tool_cls(func).tool_def.parameters_json_schema  # type: ignore[no-any-return]

    def _caller(self, func: Callable[..., Any], *, raw: bool = False) -> Callable[..., Any]:
        # What its ToolManager does per call: validate with the prebuilt validator, call.
        schema = self._tool_cls(func).function_schema
        validate = schema.validator.validate_json if raw else schema.validator.validate_python
        ctx = self._ctx

        async def call(arguments: Any) -> Any:
            return await schema.call(validate(arguments), ctx)

        return call

    def prepare_async(self, afunc: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._caller(afunc), (args,)

    def prepare_async_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._caller(func), (args,)

    def prepare_error_async(self, afunc: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        return _acatching(self._caller(afunc)), (bad,)

    def new_registry(self) -> Any:
        return self._toolset_cls()

    def register(self, registry: Any, func: Callable[..., Any], tags: list[str]) -> None:
        registry.add_tool(self._tool_cls(func))


class Agently(Subject):
    name = "agently"
    dist = "agently"
    full_schema = False  # keeps `{param: (type, "description")}`, not a JSON schema
    registers = "Agently's manual `register(name=, desc=, kwargs=, func=, tags=)` (no schema)"

    def load(self) -> None:
        import agently
        from agently.core.operation.Action.Action import Action

        main = agently.Agently
        self._new = lambda: Action(main.plugin_manager, main.settings)
        self._probe = self._new()

    def define(self, func: Callable[..., Any]) -> dict[str, Any]:
        manager = self._probe
        manager.tool_func(func)
        return manager.get_tool_info()[func.__name__]  # type: ignore[no-any-return]

    def _manager_with(self, func: Callable[..., Any]) -> Any:
        manager = self._new()
        manager.tool_func(func)
        return manager

    def prepare_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._manager_with(func).call_tool, (func.__name__, args)

    def prepare_async(self, afunc: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._manager_with(afunc).async_call_tool, (afunc.__name__, args)

    def prepare_async_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._manager_with(func).async_call_tool, (func.__name__, args)

    def prepare_error(self, func: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        # No validation: the bad argument reaches the function and fails there.
        return self._manager_with(func).call_tool, (func.__name__, bad)

    def prepare_error_async(self, afunc: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        return self._manager_with(afunc).async_call_tool, (afunc.__name__, bad)

    def new_registry(self) -> Any:
        return self._new()

    def register(self, registry: Any, func: Callable[..., Any], tags: list[str]) -> None:
        registry.register(
            name=func.__name__,
            desc=func.__doc__,
            kwargs={"a": (int, ""), "b": (int, "")},
            func=func,
            tags=tags,
        )

    def prepare_call_by_name(self, registry: Any, name: str, args: dict[str, Any]) -> Prepared:
        return registry.call_tool, (name, args)

    def prepare_tag_query(self, registry: Any, tag: str) -> Prepared:
        return registry.get_tool_list, (tag,)


class ToolRegistryPeer(Subject):
    name = "toolregistry"
    dist = "toolregistry"
    registers = "`ToolRegistry.register(func)`"

    def load(self) -> None:
        from toolregistry import Tool, ToolRegistry

        self._tool_cls = Tool
        self._registry_cls = ToolRegistry

    def define(self, func: Callable[..., Any]) -> dict[str, Any]:
        return self._tool_cls.from_function(func).parameters  # type: ignore[no-any-return]

    def prepare_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Variants:
        registry = self._registry_cls()
        registry.register(func)
        return {
            "registry.invoke": (registry.invoke, (func.__name__, args)),
            "Tool.run": (self._tool_cls.from_function(func).run, (args,)),
        }

    def prepare_async(self, afunc: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._tool_cls.from_function(afunc).arun, (args,)

    def prepare_async_sync(self, func: Callable[..., Any], args: dict[str, Any]) -> Prepared:
        return self._tool_cls.from_function(func).arun, (args,)

    def prepare_json(self, func: Callable[..., Any], raw: str) -> Prepared:
        run = self._tool_cls.from_function(func).run
        loads = json.loads

        def call(arguments: str) -> Any:
            return run(loads(arguments))

        return call, (raw,)

    def prepare_error(self, func: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        return _catching(self._tool_cls.from_function(func).run), (bad,)

    def prepare_error_async(self, afunc: Callable[..., Any], bad: dict[str, Any]) -> Prepared:
        return _acatching(self._tool_cls.from_function(afunc).arun), (bad,)

    def new_registry(self) -> Any:
        return self._registry_cls()

    def register(self, registry: Any, func: Callable[..., Any], tags: list[str]) -> None:
        registry.register(func)

    def prepare_call_by_name(self, registry: Any, name: str, args: dict[str, Any]) -> Prepared:
        return registry.invoke, (name, args)


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

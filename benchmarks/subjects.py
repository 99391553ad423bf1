"""What is measured: the `Subject` interface, the floors and tooldeck.

Every subject answers the same questions in its own idiom: how a function becomes a
tool with a finished JSON schema (`define`), and how a prepared tool is called on each
measured path (`prepare_*`, returning the `Call` a timing loop repeats, or a dict of
them for a subject with several idiomatic ways down one path). A path a subject does
not offer raises `Unsupported` with the reason, which the report records. Importing
a framework happens in `load()`, so one that is missing or broken is skipped with its
error instead of stopping the run. The peers are in `benchmarks.peers`.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import json
import typing
from collections.abc import Callable
from typing import Annotated, Any, ClassVar

from pydantic import TypeAdapter, ValidationError, create_model
from pydantic_core import SchemaValidator
from pydantic_core import core_schema as cs

from benchmarks.timing import Call
from tooldeck import Injected


class Unsupported(Exception):
    """The framework has no such path; `str()` says why."""


Func = Callable[..., Any]
Args = dict[str, Any]


def version_of(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def catching(call: Call) -> Call:
    """`call` inside the ``try``/``except`` a caller of a raising framework must write."""
    body = "\n".join("    " + line for line in call.body.splitlines())
    code = f'try:\n{body}\nexcept Exception as exc:\n    out = "Error: " + str(exc)'
    return Call(call.expr, call.env, call.is_async, code)


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
    # measured at fewer and compared per tool); None: the full count.
    scale_cap: ClassVar[int | None] = None

    def load(self) -> None:
        """Import the framework; raise to have it skipped."""

    def label(self, variant: str | None = None) -> str:
        return f"{self.name} ({variant})" if variant else self.name

    @property
    def version(self) -> str:
        return version_of(self.dist) if self.dist else ""

    def define(self, func: Func) -> dict[str, Any]:
        raise Unsupported("no definition path")

    def prepare_sync(self, func: Func, args: Args) -> Call | dict[str, Call]:
        raise Unsupported("no synchronous call")

    def prepare_async(self, afunc: Func, args: Args) -> Call:
        raise Unsupported("no asynchronous call")

    def prepare_async_sync(self, func: Func, args: Args) -> Call:
        raise Unsupported("no asynchronous call of a sync tool")

    def prepare_json(self, func: Func, raw: str) -> Call:
        raise Unsupported("no synchronous call with a JSON string")

    def prepare_async_json(self, afunc: Func, raw: str) -> Call:
        raise Unsupported("no asynchronous call with a JSON string")

    def prepare_error(self, func: Func, bad: Args) -> Call:
        raise Unsupported("no synchronous call")

    def prepare_error_async(self, afunc: Func, bad: Args) -> Call:
        raise Unsupported("no asynchronous call")

    # -- scale: a registry of many tools ---------------------------------------------
    def new_registry(self) -> Any:
        raise Unsupported("no registry")

    def register(self, registry: Any, func: Func, tags: list[str]) -> None:
        raise Unsupported("no registry")

    def prepare_call_by_name(self, registry: Any, name: str, args: Args) -> Call:
        raise Unsupported("no call by name")

    def prepare_tag_query(self, registry: Any, tag: str) -> Call:
        raise Unsupported("no tag query")

    def prepare_export(self, registry: Any) -> Call:
        raise Unsupported("no export")


# -- floors -------------------------------------------------------------------------------


def _is_injected(hint: Any) -> bool:
    metadata = getattr(hint, "__metadata__", ())
    return typing.get_origin(hint) is Annotated and any(
        m is Injected or isinstance(m, Injected) for m in metadata
    )


def args_validator(func: Func, *, fill_defaults: bool = True) -> SchemaValidator:
    """A pydantic-core validator for `func`'s arguments, built once from its signature.

    A typed-dict core schema: one field per parameter (injected ones left out), its
    type's core schema wrapped in `with_default_schema` where the parameter has a
    default, unknown keys forbidden (as tooldeck must) — so it yields the complete
    keyword arguments, defaults filled in, in one pydantic-core call. Without
    `fill_defaults`, a defaulted parameter is simply not required, and the call
    leaves its default to the function.
    """
    hints = typing.get_type_hints(func, include_extras=True)
    fields: dict[str, cs.TypedDictField] = {}
    for param in inspect.signature(func).parameters.values():
        hint = hints.get(param.name, Any)
        if _is_injected(hint):
            continue
        schema = TypeAdapter(hint).core_schema
        if param.default is param.empty:
            fields[param.name] = cs.typed_dict_field(schema, required=True)
        elif not fill_defaults:
            fields[param.name] = cs.typed_dict_field(schema, required=False)
        else:
            with_default = cs.with_default_schema(schema, default=param.default)
            fields[param.name] = cs.typed_dict_field(with_default, required=False)
    return SchemaValidator(cs.typed_dict_schema(fields, extra_behavior="forbid"))


def format_validation_error(exc: ValidationError) -> str:
    """What a floor does with a validation error: one line per problem, for a model."""
    lines = [
        f"{'.'.join(map(str, err['loc']))}: {err['msg']} (got {err['input']!r})"
        for err in exc.errors(include_url=False, include_context=False)
    ]
    return "Error: invalid arguments:\n" + "\n".join(lines)


_ERROR_FLOOR = """\
try:
    out = {await_}func(**validate(args))
except ValidationError as exc:
    out = describe(exc)"""


class Floor(Subject):
    """The least a validated call can do: a prebuilt validator and the direct call,
    written inline in the timing loop."""

    name = "floor"
    dist = "pydantic-core"
    registers = "dict insert of the function and its prebuilt validator"

    def define(self, func: Func) -> dict[str, Any]:
        # Reference only: signature -> create_model -> JSON schema, no docstring parsing.
        sig = inspect.signature(func)
        hints = typing.get_type_hints(func, include_extras=True)
        fields = {
            p.name: (hints.get(p.name, Any), ... if p.default is p.empty else p.default)
            for p in sig.parameters.values()
        }
        return create_model(f"{func.__name__}_args", **fields).model_json_schema()  # type: ignore[call-overload,no-any-return]

    @staticmethod
    def _env(func: Func, args: Any, json_text: bool = False) -> dict[str, Any]:
        validator = args_validator(func)
        if json_text:
            return {"func": func, "validate_json": validator.validate_json, "args": args}
        return {"func": func, "validate": validator.validate_python, "args": args}

    def prepare_sync(self, func: Func, args: Args) -> Call | dict[str, Call]:
        call = Call("func(**validate(args))", self._env(func, args))
        params = inspect.signature(func).parameters.values()
        if all(p.default is p.empty for p in params):
            return call
        # For reference, a lower floor: the validator leaves the defaults to Python.
        validate = args_validator(func, fill_defaults=False).validate_python
        lean = Call("func(**validate(args))", {"func": func, "validate": validate, "args": args})
        return {"": call, "defaults left to the function": lean}

    def prepare_async(self, afunc: Func, args: Args) -> Call:
        return Call("func(**validate(args))", self._env(afunc, args), is_async=True)

    def prepare_async_sync(self, func: Func, args: Args) -> Call:
        env = {**self._env(func, args), "to_thread": asyncio.to_thread}
        return Call("to_thread(func, **validate(args))", env, is_async=True)

    def prepare_json(self, func: Func, raw: str) -> Call:
        return Call("func(**validate_json(args))", self._env(func, raw, json_text=True))

    def prepare_async_json(self, afunc: Func, raw: str) -> Call:
        env = self._env(afunc, raw, json_text=True)
        return Call("func(**validate_json(args))", env, is_async=True)

    def _error(self, func: Func, bad: Args, is_async: bool) -> Call:
        env = {**self._env(func, bad), "ValidationError": ValidationError}
        env["describe"] = format_validation_error
        code = _ERROR_FLOOR.format(await_="await " if is_async else "")
        return Call(None, env, is_async, code)

    def prepare_error(self, func: Func, bad: Args) -> Call:
        return self._error(func, bad, False)

    def prepare_error_async(self, afunc: Func, bad: Args) -> Call:
        return self._error(afunc, bad, True)

    def new_registry(self) -> Any:
        return {}

    def register(self, registry: Any, func: Func, tags: list[str]) -> None:
        registry[func.__name__] = (func, args_validator(func).validate_python)

    def prepare_call_by_name(self, registry: Any, name: str, args: Args) -> Call:
        code = "func, validate = tools[name]\nout = func(**validate(args))"
        return Call(None, {"tools": registry, "name": name, "args": args}, code=code)


# -- tooldeck ----------------------------------------------------------------------------


class Tooldeck(Subject):
    name = "tooldeck"
    dist = "tooldeck"
    registers = "`ToolRegistry.register(func, tags=...)`"

    def load(self) -> None:
        from tooldeck import ToolRegistry, tool

        self._tool = tool
        self._registry_cls = ToolRegistry

    def define(self, func: Func) -> dict[str, Any]:
        return self._tool(func).parameters  # type: ignore[no-any-return]

    def registry_with(self, *funcs: Func) -> Any:
        registry = self._registry_cls()
        for func in funcs:
            registry.register(func)
        return registry

    def _by_name(self, face: str, func: Func, args: Any, is_async: bool = False) -> Call:
        env = {face: getattr(self.registry_with(func), face), "name": func.__name__, "args": args}
        return Call(f"{face}(name, args)", env, is_async)

    def prepare_sync(self, func: Func, args: Args) -> Call:
        return self._by_name("call_tool", func, args)

    def prepare_async(self, afunc: Func, args: Args) -> Call:
        return self._by_name("async_call_tool", afunc, args, True)

    def prepare_async_sync(self, func: Func, args: Args) -> Call:
        return self._by_name("async_call_tool", func, args, True)

    def prepare_json(self, func: Func, raw: str) -> Call:
        return self._by_name("call_tool", func, raw)

    def prepare_async_json(self, afunc: Func, raw: str) -> Call:
        return self._by_name("async_call_tool", afunc, raw, True)

    def prepare_error(self, func: Func, bad: Args) -> Call:
        return self._by_name("call_tool", func, bad)

    def prepare_error_async(self, afunc: Func, bad: Args) -> Call:
        return self._by_name("async_call_tool", afunc, bad, True)

    def new_registry(self) -> Any:
        return self._registry_cls()

    def register(self, registry: Any, func: Func, tags: list[str]) -> None:
        registry.register(func, tags=tags)

    def prepare_call_by_name(self, registry: Any, name: str, args: Args) -> Call:
        return Call(
            "call_tool(name, args)", {"call_tool": registry.call_tool, "name": name, "args": args}
        )

    def prepare_tag_query(self, registry: Any, tag: str) -> Call:
        return Call("list_tools(tag)", {"list_tools": registry.list_tools, "tag": tag})

    def prepare_export(self, registry: Any) -> Call:
        return Call("get_openai_tools()", {"get_openai_tools": registry.get_openai_tools})


def loads_call(fn: Func, raw: str, *extra: Any, is_async: bool = False) -> Call:
    """``fn(loads(raw), ...)``: a peer that takes a dict, given the model's JSON text."""
    names = [f"a{i}" for i in range(len(extra))]
    expr = "fn(" + ", ".join(["loads(raw)", *names]) + ")"
    env = {"fn": fn, "loads": json.loads, "raw": raw, **dict(zip(names, extra, strict=True))}
    return Call(expr, env, is_async)

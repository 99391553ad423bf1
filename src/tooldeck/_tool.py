"""``Tool``, ``BaseTool`` and the call pipeline.

Every call goes through one pipeline — validate (a dict or a JSON string) → run
(sync or async, with the tool's timeout) → shape the outcome — and only the last
step differs between the two faces:

* Agently's: the value, or ``"Error: <message>"`` (`Tool.call`, `Tool.acall`);
* seed 000's: a `ToolResult` (`Tool.run`, `Tool.run_sync`).

Nothing but ``Exception`` is caught, so ``KeyboardInterrupt``, ``SystemExit`` and
``asyncio.CancelledError`` propagate.
"""

from __future__ import annotations

import abc
import functools
import inspect
import json
import logging
import sys
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic_core import ValidationError
from typing_extensions import ParamSpec

from ._jsonschema import FrozenDict, copy_json, freeze
from ._result import (
    CallFailure,
    ToolResult,
    clip,
    failure_text,
    format_validation_error,
)
from ._schema import ToolSpec, build_spec
from ._shifting import (
    CallTimeout,
    call_in_thread,
    run_coroutine,
    to_thread,
    wait_in_thread,
    with_timeout,
)
from .errors import ToolDefinitionError

if TYPE_CHECKING:
    from ._registry import ToolRegistry

__all__ = ["Arguments", "BaseTool", "Tool", "normalise_tags"]

P = ParamSpec("P")
R = TypeVar("R")

logger = logging.getLogger("tooldeck")

Arguments = Mapping[str, Any] | str | bytes | None


class BaseTool(abc.ABC):
    """A tool written as a class (seed 000): name, description, JSON Schema, ``execute``.

    Register an instance with `ToolRegistry.register`; its arguments are
    validated against `parameters` with JSON Schema's own semantics before
    `execute` is awaited. Every `Tool` offers this interface too.
    """

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The tool name."""

    @property
    @abc.abstractmethod
    def description(self) -> str:
        """What the tool does, for a model."""

    @property
    @abc.abstractmethod
    def parameters(self) -> dict[str, Any]:
        """The arguments' JSON Schema."""

    @abc.abstractmethod
    async def execute(self, **kwargs: Any) -> ToolResult:
        """Run the tool."""


def normalise_tags(tags: str | Iterable[str] | None) -> tuple[str, ...]:
    """``None``, a ``str`` or an iterable of ``str`` → a de-duplicated tuple, in order."""
    if tags is None:
        return ()
    if isinstance(tags, str):
        tags = (tags,)
    out: dict[str, None] = {}
    for tag in tags:
        if not isinstance(tag, str) or not tag:
            raise ToolDefinitionError(f"tags must be non-empty strings, got {tag!r}")
        out[tag] = None
    return tuple(out)


class Tool(BaseTool, Generic[P, R]):
    """A function turned into a tool. Calling it calls the function directly.

    Build one with `tooldeck.tool` (or ``Tool(func, ...)``). The signature is
    read once, here; every call afterwards only validates and runs.

    Args:
        func: The function (sync or async).
        name: The tool name (default: the function's name).
        description: Overrides the docstring.
        tags: A tag or a list of tags.
        args_schema: A Pydantic v2 or v1 model that replaces signature introspection.
        timeout: Seconds a call may take before it fails.
        enabled: A disabled tool is left out of listings and exports, and calls fail.
        annotations: MCP tool annotations: ``title`` (a ``str``) and the hints
            ``readOnlyHint``, ``destructiveHint``, ``idempotentHint``,
            ``openWorldHint`` (``bool``s). Exported in the ``mcp`` format and served.

    Attributes:
        max_argument_bytes: The largest JSON text accepted as arguments, in bytes
            (default 1 MiB); longer text fails before it is parsed. Set it on a
            subclass or an instance; ``None`` lifts the limit.
    """

    max_argument_bytes: int | None = 1 << 20

    def __init__(
        self,
        func: Callable[P, R],
        *,
        name: str | None = None,
        description: str | None = None,
        tags: str | Iterable[str] | None = None,
        args_schema: type[Any] | None = None,
        timeout: float | None = None,
        enabled: bool = True,
        annotations: Mapping[str, Any] | None = None,
        spec: ToolSpec | None = None,
    ) -> None:
        if spec is None:
            spec = build_spec(func, name=name, description=description, args_schema=args_schema)
        self.func = func
        self._spec = spec
        self._annotations = check_annotations(annotations, spec.name)
        self._tags = normalise_tags(tags)
        self._enabled = bool(enabled)
        self._timeout = _check_timeout(timeout, spec.name)
        # Registries holding this tool, weakly (a WeakSet costs ~0.9 KB per tool).
        self._owners: tuple[weakref.ReferenceType[ToolRegistry], ...] = ()
        self._target: Callable[..., Any] = (
            _positional_adapter(func, spec.positional) if spec.positional else func
        )
        # Plain tools skip the runners: the hot path is validate + call (or await).
        plain = self._target if not (self._timeout or spec.returns_tool_result) else None
        self._validate_dict = spec.validate_python  # one lookup on the hot path
        self._direct: Callable[..., Any] | None = None if spec.is_async else plain
        self._adirect: Callable[..., Any] | None = plain if spec.is_async else None
        if inspect.isfunction(func) or inspect.ismethod(func):
            functools.update_wrapper(self, func)
        if spec.is_async:
            _mark_coroutine_function(self)

    def __getattr__(self, name: str) -> Any:
        # Built on first use: most registered tools are never called or exported, and a
        # registry of thousands should not pay for their runners and export caches.
        if name in ("_run_sync", "_run_async"):
            self._run_sync, self._run_async = self._runners()
            return self.__dict__[name]
        if name == "_exports":
            exports: dict[tuple[str, bool], FrozenDict] = {}
            self._exports = exports
            return exports
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- the function face --------------------------------------------------------------

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.func(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<Tool {self._spec.name!r}>"

    # -- what a model sees --------------------------------------------------------------

    @property
    def name(self) -> str:
        """The tool name."""
        return self._spec.name

    @property
    def description(self) -> str:
        """What the tool does, for a model."""
        return self._spec.description

    @property
    def parameters(self) -> dict[str, Any]:
        """The arguments' JSON Schema (a fresh copy)."""
        parameters: dict[str, Any] = copy_json(self._spec.parameters)
        return parameters

    @property
    def returns(self) -> dict[str, Any] | None:
        """The return value's JSON Schema (a fresh copy), or ``None`` when unknown."""
        returns = self._spec.returns
        return None if returns is None else copy_json(returns)

    @property
    def tags(self) -> tuple[str, ...]:
        """The tool's tags, in the order they were given."""
        return self._tags

    @property
    def annotations(self) -> dict[str, Any] | None:
        """The MCP tool annotations (a fresh copy), or ``None`` when none were given."""
        annotations = self._annotations
        return None if annotations is None else dict(annotations)

    @property
    def enabled(self) -> bool:
        """Whether the tool is listed, exported and callable."""
        return self._enabled

    @property
    def timeout(self) -> float | None:
        """Seconds a call may take, or ``None``."""
        return self._timeout

    @property
    def is_async(self) -> bool:
        """Whether the function is a coroutine function."""
        return self._spec.is_async

    @property
    def spec(self) -> ToolSpec:
        """The frozen result of the one introspection pass."""
        return self._spec

    def export(self, format: str = "openai", *, strict: bool = False) -> dict[str, Any]:
        """This tool in a provider's format (see `ToolRegistry.export`).

        Computed once per format and cached; the result is read-only (it is shared):
        ``copy.deepcopy`` it to change it.
        """
        key = (format, strict)
        exported = self._exports.get(key)
        if exported is None:
            exported = self._exports[key] = freeze(self._export(format, strict))
        return exported

    def export_text(self, format: str = "openai", *, strict: bool = False) -> str:
        """`export` as JSON text (UTF-8 characters kept as they are)."""
        return json.dumps(self.export(format, strict=strict), ensure_ascii=False)

    def _export(self, format: str, strict: bool) -> dict[str, Any]:
        if format == "agently":
            from ._interop import agently_info

            return agently_info(self, jsonable=True)
        from .exporters import export_tool

        spec = self._spec
        return export_tool(
            format,
            name=spec.name,
            description=spec.description,
            parameters=spec.parameters,
            returns=spec.returns,
            tags=self._tags,
            strict=strict,
            annotations=self.annotations,
        )

    # -- calling: the Agently face ------------------------------------------------------

    def call(self, arguments: Arguments = None, /, **kwargs: Any) -> Any:
        """Call with validated arguments: the value, or ``"Error: <message>"``.

        Args:
            arguments: A mapping or a JSON object string; keyword arguments are merged
                into it (they win).
        """
        direct = self._direct
        if direct is not None and not kwargs and self._enabled:
            # The hot path (a plain sync tool; a dict or JSON text from the model):
            # validate, call. Anything else takes `_validate` inside the same guard.
            try:
                kind = arguments.__class__
                if kind is dict:
                    args = self._validate_dict(arguments)
                elif kind is str and len(arguments) * 4 <= (self.max_argument_bytes or -1):  # type: ignore[arg-type]
                    args = self._spec.validate_json(arguments)  # surely under the size limit
                else:
                    args = self._validate(arguments)
            except Exception as exc:  # validators may raise anything: still a failed call
                return "Error: " + self._refusal(exc)
            try:
                value = direct(**args)
            except Exception as exc:
                return "Error: " + self._failure(exc)
        else:
            try:
                if kwargs:
                    arguments = _merge(arguments, kwargs, self.max_argument_bytes)
                args = self._validate(arguments)
                value = direct(**args) if direct is not None else self._run_sync(args)
            except Exception as exc:
                return "Error: " + self._failure(exc)
        if type(value) is ToolResult:
            return value.data if value.success else f"Error: {value.error}"
        return value

    async def acall(self, arguments: Arguments = None, /, **kwargs: Any) -> Any:
        """Async twin of `call`."""
        adirect = self._adirect
        if adirect is not None and arguments.__class__ is dict and not kwargs and self._enabled:
            # The hot path (a plain async tool, a dict from the model): validate, await.
            try:
                args = self._validate_dict(arguments)
            except Exception as exc:  # validators may raise anything: still a failed call
                return "Error: " + self._refusal(exc)
            try:
                value = await adirect(**args)
            except Exception as exc:
                return "Error: " + self._failure(exc)
        else:
            try:
                if kwargs:
                    arguments = _merge(arguments, kwargs, self.max_argument_bytes)
                value = await self._run_async(self._validate(arguments))
            except Exception as exc:
                return "Error: " + self._failure(exc)
        if type(value) is ToolResult:
            return value.data if value.success else f"Error: {value.error}"
        return value

    # -- calling: the ToolResult face ---------------------------------------------------

    async def run(self, arguments: Arguments = None, /, **kwargs: Any) -> ToolResult:
        """Call with validated arguments: always a `ToolResult`, never raises."""
        try:
            if kwargs:
                arguments = _merge(arguments, kwargs, self.max_argument_bytes)
            value = await self._run_async(self._validate(arguments))
        except Exception as exc:
            return ToolResult.fail(self._failure(exc), exception=_cause(exc))
        return value if type(value) is ToolResult else ToolResult.ok(value)

    def run_sync(self, arguments: Arguments = None, /, **kwargs: Any) -> ToolResult:
        """Sync twin of `run`."""
        try:
            if kwargs:
                arguments = _merge(arguments, kwargs, self.max_argument_bytes)
            value = self._run_sync(self._validate(arguments))
        except Exception as exc:
            return ToolResult.fail(self._failure(exc), exception=_cause(exc))
        return value if type(value) is ToolResult else ToolResult.ok(value)

    async def execute(self, **kwargs: Any) -> ToolResult:
        """The `BaseTool` interface: `run` with keyword arguments."""
        return await self.run(kwargs)

    # -- the pipeline -------------------------------------------------------------------

    def _validate(self, arguments: Arguments) -> dict[str, Any]:
        if not self._enabled:
            raise CallFailure(f"Tool '{clip(self._spec.name)}' is disabled")
        spec = self._spec
        try:
            kind = arguments.__class__
            if kind is dict:
                return spec.validate_python(arguments)
            if arguments is None:
                return spec.validate_python({})
            # `kind is str` first: cheaper than isinstance for the usual JSON text.
            if kind is str or isinstance(arguments, (str, bytes, bytearray)):
                limit = self.max_argument_bytes
                if limit is not None and len(arguments) * 4 > limit:  # may be over: measure
                    check_size(arguments, limit, spec.name)  # type: ignore[arg-type]
                return spec.validate_json(arguments)
            return spec.validate_python(arguments)
        except ValidationError as exc:
            raise CallFailure(format_validation_error(exc, spec.name)) from exc
        except RecursionError as exc:  # a Python value nested deeper than the stack
            raise CallFailure(_too_deep(spec.name)) from exc

    def _refusal(self, exc: Exception) -> str:
        """The text for arguments refused on a fast path (what `_validate` would raise)."""
        if isinstance(exc, ValidationError):
            return format_validation_error(exc, self._spec.name)
        if isinstance(exc, RecursionError):  # a Python value nested deeper than the stack
            return _too_deep(self._spec.name)
        # A CallFailure (args_schema and JSON-Schema tools word their own), or whatever
        # a user's validator raised.
        return self._failure(exc)

    def _failure(self, exc: Exception) -> str:
        if isinstance(exc, CallTimeout):
            return f"Tool '{clip(self._spec.name)}' timed out after {self._timeout:g} seconds"
        if not isinstance(exc, CallFailure):
            logger.debug("tool %r raised", self._spec.name, exc_info=exc)
        return failure_text(exc)

    def _runners(self) -> tuple[SyncRunner, AsyncRunner]:
        """Pick, once, how this tool runs from sync and from async code."""
        target, timeout = self._target, self._timeout
        if self._spec.is_async:
            runners = _async_runners(target, timeout)
        elif timeout is None:
            runners = _sync_runners(target)
        else:
            runners = _timed_sync_runners(target, timeout)
        if not self._spec.returns_tool_result:
            return runners
        return _checked(runners[0]), _checked_async(runners[1])

    # -- registry bookkeeping -----------------------------------------------------------

    def _owner_registries(self) -> list[ToolRegistry]:
        return [r for r in (ref() for ref in self._owners) if r is not None]

    def _add_owner(self, registry: ToolRegistry) -> None:
        if registry not in self._owner_registries():
            alive = tuple(ref for ref in self._owners if ref() is not None)
            self._owners = (*alive, weakref.ref(registry))

    def _drop_owner(self, registry: ToolRegistry) -> None:
        self._owners = tuple(ref for ref in self._owners if ref() not in (None, registry))

    def _set_tags(self, tags: tuple[str, ...]) -> None:
        self._tags = tags
        self._exports.clear()

    def _set_enabled(self, enabled: bool) -> None:
        self._enabled = enabled


SyncRunner = Callable[[dict[str, Any]], Any]
AsyncRunner = Callable[[dict[str, Any]], Awaitable[Any]]


def _async_runners(
    target: Callable[..., Any], timeout: float | None
) -> tuple[SyncRunner, AsyncRunner]:
    def run_sync(args: dict[str, Any]) -> Any:
        return run_coroutine(target(**args), timeout)

    async def run_async(args: dict[str, Any]) -> Any:
        if timeout is None:
            return await target(**args)
        return await with_timeout(target(**args), timeout)

    return run_sync, run_async


def _sync_runners(target: Callable[..., Any]) -> tuple[SyncRunner, AsyncRunner]:
    def run_sync(args: dict[str, Any]) -> Any:
        return target(**args)

    async def run_async(args: dict[str, Any]) -> Any:
        return await to_thread(target, **args)

    return run_sync, run_async


def _timed_sync_runners(
    target: Callable[..., Any], timeout: float
) -> tuple[SyncRunner, AsyncRunner]:
    def run_sync(args: dict[str, Any]) -> Any:
        return call_in_thread(target, (), args, timeout=timeout)

    async def run_async(args: dict[str, Any]) -> Any:
        return await wait_in_thread(target, (), args, timeout=timeout)

    return run_sync, run_async


def _too_deep(name: str) -> str:
    return f"Invalid arguments for tool '{clip(name)}':\narguments: nested too deeply"


def _cause(exc: Exception) -> BaseException:
    """What a failed result keeps for logs: the real error, not tooldeck's wrapper."""
    if isinstance(exc, CallFailure) and exc.__cause__ is not None:
        return exc.__cause__  # e.g. the pydantic ValidationError behind the message
    return exc


def _checked(run: SyncRunner) -> SyncRunner:
    def checked(args: dict[str, Any]) -> Any:
        return _require_result(run(args))

    return checked


def _checked_async(run: AsyncRunner) -> AsyncRunner:
    async def checked(args: dict[str, Any]) -> Any:
        return _require_result(await run(args))

    return checked


def _require_result(value: Any) -> ToolResult:
    """Seed 004: a tool annotated ``-> ToolResult`` must return one."""
    if not isinstance(value, ToolResult):
        raise TypeError(
            f"tool must return a ToolResult (it is annotated -> ToolResult), "
            f"got {type(value).__name__}"
        )
    return value


def check_size(text: str | bytes | bytearray, limit: int | None, name: str) -> None:
    """Refuse JSON text longer than ``limit`` bytes, before anything parses it."""
    size = _oversize(text, limit)
    if size:
        raise CallFailure(
            f"Invalid arguments for tool '{clip(name)}': the JSON text is {size:,} bytes, "
            f"over the limit of {limit:,} bytes"
        )


def _oversize(text: str | bytes | bytearray, limit: int | None) -> int:
    """The size of ``text`` in bytes if it is over ``limit``, else 0."""
    if limit is None:
        return 0
    size = len(text)
    if isinstance(text, str) and limit < size * 4 and size <= limit:
        size = len(text.encode("utf-8", "surrogatepass"))  # a character is up to 4 bytes
    return size if size > limit else 0


def _merge(arguments: Arguments, kwargs: dict[str, Any], limit: int | None) -> Arguments:
    if arguments is None:
        return kwargs
    if isinstance(arguments, (str, bytes, bytearray)):
        if _oversize(arguments, limit):
            return arguments  # validation reports the size, without parsing
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return arguments  # validation reports the bad JSON
    if not isinstance(arguments, Mapping):
        return arguments  # validation reports the non-object
    return {**arguments, **kwargs}


ANNOTATION_TYPES: dict[str, type] = {
    "title": str,
    "readOnlyHint": bool,
    "destructiveHint": bool,
    "idempotentHint": bool,
    "openWorldHint": bool,
}
"""MCP's tool annotations and the type each takes."""


def check_annotations(annotations: Mapping[str, Any] | None, name: str) -> dict[str, Any] | None:
    """MCP tool annotations, checked: known keys, each of its type (``None`` for none)."""
    if annotations is None:
        return None
    if not isinstance(annotations, Mapping):
        raise ToolDefinitionError(
            f"annotations must be a mapping, got {type(annotations).__name__}", tool=name
        )
    checked: dict[str, Any] = {}
    for key, value in annotations.items():
        kind = ANNOTATION_TYPES.get(key) if isinstance(key, str) else None
        if kind is None:
            known = ", ".join(ANNOTATION_TYPES)
            raise ToolDefinitionError(
                f"unknown MCP annotation {key!r}; the annotations are {known}", tool=name
            )
        if not isinstance(value, kind):
            raise ToolDefinitionError(
                f"annotation {key!r} must be a {kind.__name__}, got {value!r}", tool=name
            )
        checked[key] = value
    return checked


def _check_timeout(timeout: float | None, name: str) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ToolDefinitionError(
            f"timeout must be a positive number of seconds, got {timeout!r}", tool=name
        )
    return float(timeout)


def _positional_adapter(func: Callable[..., Any], names: tuple[str, ...]) -> Callable[..., Any]:
    def call(**kwargs: Any) -> Any:
        positional = [kwargs.pop(name) for name in names if name in kwargs]
        return func(*positional, **kwargs)

    return call


def _mark_coroutine_function(obj: Any) -> None:
    """Let ``inspect``/``asyncio.iscoroutinefunction`` see an async tool as what it wraps."""
    if sys.version_info >= (3, 12):
        inspect.markcoroutinefunction(obj)
    else:  # pragma: no cover - exercised on 3.10/3.11 only
        from asyncio import coroutines

        obj._is_coroutine = coroutines._is_coroutine  # type: ignore[attr-defined]

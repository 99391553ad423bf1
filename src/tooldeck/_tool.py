"""``Tool`` and ``BaseTool``: a function as a tool, what a model sees of it, its exports.

A `Tool` is built once from a function (or a ready spec): it keeps the frozen spec,
its tags, timeout, annotations and enabled state, and picks how it runs. How it is
called — its faces and the pipeline behind them — is `tooldeck._calling`.
"""

from __future__ import annotations

import abc
import contextlib
import copy
import functools
import inspect
import json
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Generic, Literal, SupportsIndex, TypeVar

from typing_extensions import ParamSpec

from ._agently import agently_info
from ._calling import CallFaces, Context
from ._frozen import FrozenDict, freeze
from ._jsonschema import copy_json
from ._lazy import lazy, set_attributes
from ._result import (
    ToolResult,
)
from ._running import (
    Arguments,
)
from ._schema import build_spec
from ._spec import ToolSpec, check_annotations
from .errors import ToolDefinitionError
from .exporters import export_tool
from .frameworks._faces import ToolBridges

__all__ = [
    "Approval",
    "Arguments",
    "BaseTool",
    "Context",
    "Strict",
    "Tool",
    "check_strict",
    "normalise_tags",
]

# `strict=` of every export: OpenAI's strict mode, or not, or strict for the tools that
# can be and not for the others (with a warning naming them).
Strict = bool | Literal["best-effort"]


# `requires_approval=`: a call needs a person's yes (True), or a policy decides per call
# from the validated arguments and the call's context.
Approval = bool | Callable[[dict[str, Any], Mapping[str, Any]], bool]


def check_strict(strict: Any) -> None:
    """Raise `ValueError` unless ``strict`` is one of `Strict`'s values."""
    if not (isinstance(strict, bool) or strict == "best-effort"):
        raise ValueError(f"strict must be True, False or 'best-effort', got {strict!r}")


P = ParamSpec("P")
R = TypeVar("R")


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


class Tool(CallFaces, ToolBridges, BaseTool, Generic[P, R]):
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
        requires_approval: ``True`` when a person must approve each call a model asks
            for, or a policy ``(arguments, context) -> bool`` deciding per call from
            the validated arguments (docs/approval.md).

    Attributes:
        max_argument_bytes: The largest JSON text accepted as arguments, in bytes
            (default 1 MiB); longer text fails before it is parsed. Set it on a
            subclass or an instance; ``None`` lifts the limit.
        max_abandoned_threads: How many of this tool's timed-out worker threads may
            still run (a thread cannot be killed) before its calls fail at once
            (default 32; a sync tool with a ``timeout`` only). ``None`` lifts the limit.
    """

    max_argument_bytes: int | None = 1 << 20
    max_abandoned_threads: int | None = 32
    # None (no approval), True, or the policy (`_check_approval`): read on the turn's path
    _approval: Any = None

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
        requires_approval: Approval = False,
    ) -> None:
        if spec is None:
            spec = build_spec(func, name=name, description=description, args_schema=args_schema)
        self.func: Callable[P, R] = func
        self._spec = spec
        self._annotations = check_annotations(annotations, spec.name)
        self._tags = normalise_tags(tags)
        self._enabled = bool(enabled)
        self._timeout = _check_timeout(timeout, spec.name)
        self._approval = _check_approval(requires_approval, spec.name)
        self._validate_dict = spec.validate_python  # one lookup on the hot path
        self._injected = spec.injected
        self._pick_paths()
        if inspect.isfunction(func) or inspect.ismethod(func):
            _wrap(self, func)
        if spec.is_async:
            _mark_coroutine_function(self)

    @lazy
    def _exports(self) -> dict[tuple[str, bool], FrozenDict]:
        # Made on first use: most registered tools are never exported one by one.
        return {}

    # -- the function face --------------------------------------------------------------

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.func(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<Tool {self._spec.name!r}>"

    # -- pickling: the function, the spec and the settings; the rest is rebuilt ----------

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        # A decorated module-level function's name is the tool: saved by reference.
        module = sys.modules.get(getattr(self, "__module__", None) or "")
        found: Any = module
        for part in str(getattr(self, "__qualname__", "<>")).split("."):
            found = getattr(found, part, None)
        if found is self:
            return self.__qualname__
        return super().__reduce_ex__(protocol)

    def __copy__(self) -> Tool[P, R]:
        copied: Tool[P, R] = type(self).__new__(type(self))
        copied.__setstate__(self.__getstate__())
        return copied

    def __deepcopy__(self, memo: dict[int, Any]) -> Tool[P, R]:
        copied: Tool[P, R] = type(self).__new__(type(self))
        memo[id(self)] = copied
        copied.__setstate__(copy.deepcopy(self.__getstate__(), memo))
        return copied

    def __getstate__(self) -> dict[str, Any]:
        # (Reading __dict__ costs this tool its fast attribute loads on 3.11: `_lazy`.
        # A copy — a new tool, set attribute by attribute — keeps them.)
        return {k: v for k, v in self.__dict__.items() if k not in _DERIVED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        set_attributes(self, state)
        self._validate_dict = self._spec.validate_python
        self._injected = self._spec.injected
        self._pick_paths()
        if self._spec.is_async:
            _mark_coroutine_function(self)

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
    def requires_approval(self) -> Approval:
        """``True``, ``False``, or the policy deciding per call (docs/approval.md)."""
        approval = self._approval
        return False if approval is None else approval

    @property
    def is_async(self) -> bool:
        """Whether the function is a coroutine function."""
        return self._spec.is_async

    @property
    def spec(self) -> ToolSpec:
        """The frozen result of the one introspection pass."""
        return self._spec

    def export(self, format: str = "openai", *, strict: Strict = False) -> dict[str, Any]:
        """This tool in a provider's format (see `ToolRegistry.export`).

        Computed once per format and cached; the result is read-only (it is shared):
        ``copy.deepcopy`` it to change it. ``strict="best-effort"``: strict when this
        tool can be, else not strict, with a warning saying why.
        """
        if strict == "best-effort":
            try:
                return self.export(format, strict=True)
            except ToolDefinitionError as exc:
                warnings.warn(f"exported without strict mode: {exc}", stacklevel=2)
                return self.export(format, strict=False)
        if not isinstance(strict, bool):
            check_strict(strict)  # raises: not one of Strict's values
        key = (format, bool(strict))
        exported = self._exports.get(key)
        if exported is None:
            exported = self._exports[key] = freeze(self._export(format, strict))
        return exported

    def export_text(self, format: str = "openai", *, strict: Strict = False) -> str:
        """`export` as JSON text (UTF-8 characters kept as they are)."""
        return json.dumps(self.export(format, strict=strict), ensure_ascii=False)

    def _export(self, format: str, strict: bool) -> dict[str, Any]:
        if format == "agently":
            return agently_info(self._spec, jsonable=True)
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

    # -- changed by the catalogs holding it (tooldeck._catalog) -------------------------

    def _set_tags(self, tags: tuple[str, ...]) -> None:
        self._tags = tags
        with contextlib.suppress(AttributeError):
            del self._exports  # made again on the next export

    def _set_enabled(self, enabled: bool) -> None:
        self._enabled = enabled
        self._pick_paths()

    # -- answers of its own, for the middleware chain (tooldeck.middleware._chain) -------
    # A tool whose faces answer from more than its ToolResult (an MCP proxy: the
    # server's result, which serving hands on as it came) says so here. Through a
    # registry's middleware its result and that raw answer travel together, and a face
    # answers from the raw one when the result comes back out of the chain unchanged.
    _raw_answers: ClassVar[bool] = False

    def _answer_sync(self, arguments: Any, context: Context) -> tuple[ToolResult, Any]:
        """The call's `ToolResult` and the raw answer it was made from."""
        return self.run_sync(arguments, context=context), None

    async def _answer(self, arguments: Any, context: Context) -> tuple[ToolResult, Any]:
        """Async twin of `_answer_sync`."""
        return await self.run(arguments, context=context), None

    def _answer_value(self, raw: Any) -> Any:
        """What ``call_tool`` answers for a raw answer."""
        return raw


# What a tool computes from its function, spec and settings (and caches): never pickled.
_DERIVED = frozenset(
    {
        "_validate_dict",
        "_injected",
        "_plain",
        "_direct",
        "_adirect",
        "_ione",
        "_aione",
        "_imany",
        "_aimany",
        "_exports",
        "_runners",
        "_run_sync",
        "_run_async",
        "_is_coroutine",
        "_is_coroutine_marker",
    }
)


def _check_timeout(timeout: float | None, name: str) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ToolDefinitionError(
            f"timeout must be a positive number of seconds, got {timeout!r}", tool=name
        )
    return float(timeout)


def _check_approval(value: Any, name: str) -> Any:
    """``requires_approval=``: ``None`` (no approval), ``True``, or a sync policy."""
    if isinstance(value, bool):
        return True if value else None
    if not callable(value):
        raise ToolDefinitionError(
            "requires_approval must be True, False or a callable (arguments, context) -> bool, "
            f"got {value!r}",
            tool=name,
        )
    if inspect.iscoroutinefunction(value) or inspect.iscoroutinefunction(
        getattr(value, "__call__", None)  # noqa: B004 - an async __call__ is what is refused
    ):
        raise ToolDefinitionError(
            "requires_approval takes a sync policy (arguments, context) -> bool, not an "
            "async one: it is asked when the calls are read, before anything runs",
            tool=name,
        )
    return value


def _wrap(tool: Tool[Any, Any], func: Callable[..., Any]) -> None:
    """`functools.update_wrapper`, without reading the tool's ``__dict__`` (`_lazy`):
    the function's attributes are set one by one, then the rest as it does it."""
    set_attributes(tool, getattr(func, "__dict__", {}))
    functools.update_wrapper(tool, func, updated=())  # sets __wrapped__ last


def _mark_coroutine_function(obj: Any) -> None:
    """Let ``inspect``/``asyncio.iscoroutinefunction`` see an async tool as what it wraps."""
    if sys.version_info >= (3, 12):
        inspect.markcoroutinefunction(obj)
    else:  # pragma: no cover - exercised on 3.10/3.11 only
        from asyncio import coroutines

        obj._is_coroutine = coroutines._is_coroutine  # type: ignore[attr-defined]

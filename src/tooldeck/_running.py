"""How a tool runs once its arguments are valid: the runners, picked once per tool.

A `Tool` asks `runners` once (on first use) for two functions, validated keyword
arguments in, the value out: one for sync callers and one for async callers. They
differ by what the tool is (sync or async, with or without a timeout, annotated
``-> ToolResult`` or not); the call faces never need to ask again.

Also here: what the faces share around a run — merging keyword arguments into the
arguments, the JSON size limit, and adapting positional-only parameters.
"""

from __future__ import annotations

import inspect
import json
import types
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, get_origin

from pydantic_core import ValidationError

from ._result import (
    CallFailure,
    ToolResult,
    clip,
    light_validation_error,
    type_name,
    without_locals,
)
from ._shifting import run_coroutine, with_timeout
from ._threads import ThreadLot, call_in_thread, to_thread, wait_in_thread

__all__ = [
    "Arguments",
    "AsyncRunner",
    "SyncRunner",
    "cause",
    "check_size",
    "may_return_awaitable",
    "merge",
    "oversize",
    "positional_adapter",
    "runners",
    "too_deep",
]

Arguments = Mapping[str, Any] | str | bytes | None

SyncRunner = Callable[[dict[str, Any]], Any]
AsyncRunner = Callable[[dict[str, Any]], Awaitable[Any]]


def runners(
    target: Callable[..., Any],
    *,
    is_async: bool,
    timeout: float | None,
    checked: bool,
    awaits: bool = False,
    lot: ThreadLot | None = None,
) -> tuple[SyncRunner, AsyncRunner]:
    """How ``target`` runs from sync and from async code, picked once.

    Args:
        target: The function, taking the validated arguments as keywords.
        is_async: Whether calling it returns an awaitable.
        timeout: Seconds a call may take, or ``None``.
        checked: Whether it must return a `ToolResult` (it is annotated so).
        awaits: Whether a sync ``target`` may return an awaitable (it says nothing of
            its return type): if it does, the awaitable is awaited, not returned.
        lot: Bounds the abandoned threads of a sync ``target`` with a ``timeout``.
    """
    if is_async:
        picked = _async_runners(target, timeout)
    elif timeout is None:
        picked = _sync_runners(target)
    else:
        picked = _timed_sync_runners(target, timeout, lot)
    if awaits and not is_async:
        picked = _awaiting(picked[0], timeout), _awaiting_async(picked[1], timeout)
    if not checked:
        return picked
    return _checked(picked[0]), _checked_async(picked[1])


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
        value = target(**args)
        return run_coroutine(value) if value.__class__ is COROUTINE else value

    async def run_async(args: dict[str, Any]) -> Any:
        value = await to_thread(target, **args)
        return (await value) if value.__class__ is COROUTINE else value

    return run_sync, run_async


def _timed_sync_runners(
    target: Callable[..., Any], timeout: float, lot: ThreadLot | None
) -> tuple[SyncRunner, AsyncRunner]:
    def run_sync(args: dict[str, Any]) -> Any:
        value = call_in_thread(target, (), args, timeout=timeout, lot=lot)
        return run_coroutine(value, timeout) if value.__class__ is COROUTINE else value

    async def run_async(args: dict[str, Any]) -> Any:
        value = await wait_in_thread(target, (), args, timeout=timeout, lot=lot)
        if value.__class__ is COROUTINE:
            return await with_timeout(value, timeout)
        return value

    return run_sync, run_async


def may_return_awaitable(annotation: Any) -> bool:
    """Whether a sync function so annotated may return an awaitable: it says nothing
    of its return (no annotation, ``Any``, ``object``, a type variable) or says so."""
    if annotation is inspect.Parameter.empty or annotation in (Any, object):
        return True
    if isinstance(annotation, TypeVar):
        return True
    origin = get_origin(annotation) or annotation
    return isinstance(origin, type) and issubclass(origin, Awaitable)


# A sync function that returns a coroutine (say, a wrapper around an async one) has it
# awaited, however it is annotated: the check is an identity test, nothing on the hot path.
# One that says nothing of its return type may return any awaitable (a future): that is
# checked in full, on the runners' path (`_awaiting`).
COROUTINE = types.CoroutineType


def _is_awaitable(value: Any) -> bool:
    if value.__class__ is COROUTINE:
        return True
    try:
        return inspect.isawaitable(value)
    except Exception:  # isinstance reads ``__class__``: a lazy proxy's may raise
        return False


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _awaiting(run: SyncRunner, timeout: float | None) -> SyncRunner:
    """A sync function that returned an awaitable (``lambda q: fetch(q)``): await it."""

    def run_sync(args: dict[str, Any]) -> Any:
        value = run(args)
        return run_coroutine(_await(value), timeout) if _is_awaitable(value) else value

    return run_sync


def _awaiting_async(run: AsyncRunner, timeout: float | None) -> AsyncRunner:
    async def run_async(args: dict[str, Any]) -> Any:
        value = await run(args)
        if not _is_awaitable(value):
            return value
        return await (value if timeout is None else with_timeout(_await(value), timeout))

    return run_async


def too_deep(name: str) -> str:
    return f"Invalid arguments for tool '{clip(name)}':\narguments: nested too deeply"


def cause(exc: BaseException) -> BaseException:
    """What a failed result keeps for logs: the real error, not tooldeck's wrapper; and
    light, pinning none of the arguments refused (a failed call's result may be kept
    long: a turn keeps all of its results until it ends)."""
    if issubclass(type(exc), CallFailure):  # (isinstance reads __class__, which may raise)
        inner = exc.__cause__  # e.g. the ValidationError behind the message (light already)
        if inner is None:
            without_locals(exc.__traceback__)  # its frames held the parsed arguments
            return exc
        without_locals(inner.__traceback__)
        return inner
    if type(exc) is ValidationError:
        return light_validation_error(exc)
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
            f"tool must return a ToolResult (it is annotated -> ToolResult), got {type_name(value)}"
        )
    return value


def check_size(text: str | bytes | bytearray, limit: int | None, name: str) -> None:
    """Refuse JSON text longer than ``limit`` bytes, before anything parses it."""
    size = oversize(text, limit)
    if size:
        raise CallFailure(
            f"Invalid arguments for tool '{clip(name)}': the JSON text is {size:,} bytes, "
            f"over the limit of {limit:,} bytes"
        )


def oversize(text: str | bytes | bytearray, limit: int | None) -> int:
    """The size of ``text`` in bytes if it is over ``limit``, else 0."""
    if limit is None:
        return 0
    size = len(text)
    if isinstance(text, str) and limit < size * 4 and size <= limit:
        size = len(text.encode("utf-8", "surrogatepass"))  # a character is up to 4 bytes
    return size if size > limit else 0


def merge(arguments: Arguments, kwargs: dict[str, Any], limit: int | None) -> Arguments:
    if arguments is None:
        return kwargs
    if isinstance(arguments, (str, bytes, bytearray)):
        if not arguments.strip():  # no arguments, as in Tool._validate
            return kwargs
        if oversize(arguments, limit):
            return arguments  # validation reports the size, without parsing
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return arguments  # validation reports the bad JSON
    if not isinstance(arguments, Mapping):
        return arguments  # validation reports the non-object
    return {**arguments, **kwargs}


def positional_adapter(func: Callable[..., Any], names: tuple[str, ...]) -> Callable[..., Any]:
    def call(**kwargs: Any) -> Any:
        positional = [kwargs.pop(name) for name in names if name in kwargs]
        return func(*positional, **kwargs)

    return call

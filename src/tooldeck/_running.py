"""How a tool runs once its arguments are valid: the runners, picked once per tool.

A `Tool` asks `runners` once (on first use) for two functions, validated keyword
arguments in, the value out: one for sync callers and one for async callers. They
differ by what the tool is (sync or async, with or without a timeout, annotated
``-> ToolResult`` or not); the call faces never need to ask again.

Also here: what the faces share around a run — merging keyword arguments into the
arguments, the JSON size limit, and adapting positional-only parameters.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ._result import CallFailure, ToolResult, clip
from ._shifting import call_in_thread, run_coroutine, to_thread, wait_in_thread, with_timeout

__all__ = [
    "Arguments",
    "AsyncRunner",
    "SyncRunner",
    "cause",
    "check_size",
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
    target: Callable[..., Any], *, is_async: bool, timeout: float | None, checked: bool
) -> tuple[SyncRunner, AsyncRunner]:
    """How ``target`` runs from sync and from async code, picked once.

    Args:
        target: The function, taking the validated arguments as keywords.
        is_async: Whether calling it returns an awaitable.
        timeout: Seconds a call may take, or ``None``.
        checked: Whether it must return a `ToolResult` (it is annotated so).
    """
    if is_async:
        picked = _async_runners(target, timeout)
    elif timeout is None:
        picked = _sync_runners(target)
    else:
        picked = _timed_sync_runners(target, timeout)
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


def too_deep(name: str) -> str:
    return f"Invalid arguments for tool '{clip(name)}':\narguments: nested too deeply"


def cause(exc: Exception) -> BaseException:
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

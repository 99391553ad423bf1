"""The middleware chain: composed once, run by every face of a registry that has one.

A middleware is a callable ``(call, call_next) -> ToolResult``, sync or async. The
chain is composed when middleware is added, not per call, into two entries: one for the
sync faces (`Chain.run_sync`) and one for the async faces (`Chain.run_async`), each a
step per middleware, the first listed outermost, ending in the tool's own pipeline
(validation, context, timeout, running). How each kind runs where:

* a sync middleware on a sync face, an async one on an async face: inline;
* an async middleware on a sync face: on tooldeck's background loop, as an async tool
  is (`tooldeck._shifting.run_coroutine`); its ``call_next`` is the async rest;
* a sync middleware on an async face: in a worker thread, as a sync tool is, so its
  blocking ``call_next`` never blocks the event loop; the rest of the chain runs from
  that thread as on a sync face (async parts on the background loop). One thread per
  call however many sync middleware follow, and never a wait for another worker of the
  same pool, so a burst of calls cannot deadlock it.

Every step turns what its middleware raised into a failed `ToolResult` (what the
middleware outside it receives from ``call_next``), and what is not a `ToolResult`
into a failure naming the middleware; ``KeyboardInterrupt``, ``SystemExit`` and the
caller's cancellation propagate, as for tools.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from pydantic_core import from_json

from tooldeck._calling import SYNC_FAILURES, Context
from tooldeck._result import ToolResult, clip, failure_text, outside_text, type_name
from tooldeck._running import check_size, merge
from tooldeck._shifting import is_async_callable, run_coroutine
from tooldeck._threads import to_thread
from tooldeck._tool import Tool

from ._call import Call, Source

__all__ = ["Chain", "Middleware", "check_middleware", "start"]

Middleware = Callable[[Call, Callable[[Call], Any]], Any]
SyncStep = Callable[[Call], ToolResult]
AsyncStep = Callable[[Call], Awaitable[ToolResult]]

_TEXT = (str, bytes, bytearray)


class Chain:
    """A registry's middleware, composed (immutable: adding one makes a new chain)."""

    __slots__ = ("middleware", "run_async", "run_sync")

    def __init__(self, middleware: Iterable[Middleware]) -> None:
        self.middleware: tuple[Middleware, ...] = tuple(check_middleware(m) for m in middleware)
        sync_step: SyncStep = _last_sync
        async_step: AsyncStep = _last_async
        for mw in reversed(self.middleware):
            label = _label(mw)
            if is_async_callable(mw):
                async_step = _async_step(mw, label, async_step)
                sync_step = _sync_of_async(async_step)
            else:
                sync_step = _sync_step(mw, label, sync_step)
                async_step = _async_of_sync(sync_step)
        self.run_sync = sync_step
        self.run_async = async_step

    # -- the faces (tooldeck._named_calls hands its calls here when there is a chain) ---

    def value(self, tool: Tool[..., Any], arguments: Any, context: Context) -> Any:
        """``call_tool``: the value, or ``"Error: ..."`` (a proxy: what its faces say)."""
        call = start(tool, arguments, context)
        if call is None:
            return tool.call(arguments, context=context)
        return _value(call, self.run_sync(call))

    async def avalue(self, tool: Tool[..., Any], arguments: Any, context: Context) -> Any:
        """``async_call_tool``."""
        call = start(tool, arguments, context)
        if call is None:
            return await tool.acall(arguments, context=context)
        return _value(call, await self.run_async(call))

    def result(
        self,
        tool: Tool[..., Any],
        arguments: Any,
        context: Context,
        call_id: str | None = None,
        format: str | None = None,
        source: Source = "call",
    ) -> ToolResult:
        """``execute_sync`` (and ``call``, a call of ``run_tool_calls``)."""
        call = start(tool, arguments, context, call_id, format, source)
        if call is None:
            return tool.run_sync(arguments, context=context)
        return self.run_sync(call)

    async def aresult(
        self,
        tool: Tool[..., Any],
        arguments: Any,
        context: Context,
        call_id: str | None = None,
        format: str | None = None,
        source: Source = "call",
    ) -> ToolResult:
        """``execute`` (and a call of ``async_run_tool_calls``)."""
        call = start(tool, arguments, context, call_id, format, source)
        if call is None:
            return await tool.run(arguments, context=context)
        return await self.run_async(call)

    async def answer(
        self, tool: Tool[..., Any], arguments: Any, context: Context, source: Source
    ) -> tuple[ToolResult, Any]:
        """The result and, when it is the tool's own unchanged, its raw answer (or None):
        what serving over MCP hands on."""
        call = start(tool, arguments, context, source=source, raw=True)
        if call is None:
            return await tool._answer(arguments, context)
        result = await self.run_async(call)
        return result, _raw(call, result)


# -- a call's start: the Call, or None when the tool's own face answers ----------------


def start(
    tool: Tool[..., Any],
    arguments: Any,
    context: Context,
    call_id: str | None = None,
    format: str | None = None,
    source: Source = "call",
    *,
    raw: bool = False,
    kwargs: dict[str, Any] | None = None,
) -> Call | None:
    """The `Call` for the chain, or None when no middleware should see this call.

    A disabled tool, and arguments that cannot be read as a JSON object (text that is
    not one, over the size limit, a list), fail before the chain: the tool's own face
    answers them, word for word as without middleware. ``raw``: keep the tool's raw
    answers (serving); a tool that has them keeps them anyway (``call_tool`` of a proxy).
    """
    if not tool._enabled:
        return None
    if kwargs:  # `registry.call(name, **kwargs)`: merged as the tool's face merges them
        arguments = merge(arguments, kwargs, tool.max_argument_bytes)
    sent = None
    if arguments.__class__ is not dict:
        parsed = _read(tool, arguments)
        if parsed is None:
            return None
        sent, arguments = (arguments, parsed), parsed
    answers: list[Any] | None = [] if (raw or tool._raw_answers) else None
    return Call(
        tool,
        arguments,
        context,
        call_id=call_id,
        format=format,
        source=source,
        _sent=sent,
        _answers=answers,
    )


def _read(tool: Tool[..., Any], arguments: Any) -> dict[str, Any] | None:
    """What was sent, as a dict (None: it is none, and validation says why)."""
    if arguments is None:
        return {}
    if isinstance(arguments, _TEXT):
        if not arguments.strip():
            return {}  # no arguments, as validation reads it
        try:
            check_size(arguments, tool.max_argument_bytes, tool.name)
            parsed = from_json(arguments)
        except Exception:  # over the limit, not JSON, nested too deep
            return None
        return parsed if type(parsed) is dict else None
    if isinstance(arguments, Mapping):
        try:
            return dict(arguments)
        except Exception:
            return None
    return None


# -- the last step: the tool's pipeline --------------------------------------------------


def _sent(call: Call) -> Any:
    """The arguments to validate: what was sent while they are unchanged, else theirs."""
    sent = call._sent
    arguments = call._arguments
    if sent is not None and sent[1] is arguments:
        return sent[0]
    return arguments


def _last_sync(call: Call) -> ToolResult:
    answers = call._answers
    if answers is None:
        return call._tool.run_sync(_sent(call), context=call._context)
    result, raw = call._tool._answer_sync(_sent(call), call._context)
    answers.append((result, raw))
    return result


def _last_async(call: Call) -> Awaitable[ToolResult]:
    # A plain function returning the tool's coroutine: one frame less per async call.
    if call._answers is None:
        return call._tool.run(_sent(call), context=call._context)
    return _answered(call)


async def _answered(call: Call) -> ToolResult:
    result, raw = await call._tool._answer(_sent(call), call._context)
    call._answers.append((result, raw))  # type: ignore[union-attr]
    return result


def _raw(call: Call, result: ToolResult) -> Any:
    """The raw answer behind ``result`` when the chain handed the tool's own back."""
    for made, raw in call._answers or ():
        if made is result:
            return raw
    return None


def _value(call: Call, result: ToolResult) -> Any:
    """``call_tool``'s answer for the chain's result."""
    if call._answers is not None:
        raw = _raw(call, result)
        if raw is not None:
            return call._tool._answer_value(raw)
    return result.data if result.success else str(result)


# -- the steps ---------------------------------------------------------------------------


def _sync_step(mw: Middleware, label: str, rest: SyncStep) -> SyncStep:
    def step(call: Call) -> ToolResult:
        try:
            result = mw(call, rest)
        except SYNC_FAILURES as exc:
            return _raised(exc)
        if type(result) is ToolResult:
            return result
        return _not_a_result(label, result)

    return step


def _async_step(mw: Middleware, label: str, rest: AsyncStep) -> AsyncStep:
    async def step(call: Call) -> ToolResult:
        try:
            result = await mw(call, rest)
        except Exception as exc:
            return _raised(exc)
        if type(result) is ToolResult:
            return result
        return _not_a_result(label, result)

    return step


def _sync_of_async(step: AsyncStep) -> SyncStep:
    """An async middleware on a sync face: on tooldeck's background loop."""

    def sync_step(call: Call) -> ToolResult:
        try:
            return run_coroutine(step(call))  # type: ignore[arg-type]
        except SYNC_FAILURES as exc:  # (the step answers its own failures)
            return _raised(exc)

    return sync_step


def _async_of_sync(step: SyncStep) -> AsyncStep:
    """A sync middleware on an async face: in a worker thread, the rest from there."""

    def async_step(call: Call) -> Awaitable[ToolResult]:
        return to_thread(step, call)

    return async_step


def _raised(exc: BaseException) -> ToolResult:
    return ToolResult.fail(outside_text(failure_text(exc)), exception=exc)


def _not_a_result(label: str, value: Any) -> ToolResult:
    hint = ""
    if inspect.isawaitable(value):
        hint = ": make it an `async def` (or give it an `async def __call__`)"
        if inspect.iscoroutine(value):
            value.close()  # never awaited: no "was never awaited" warning
    return ToolResult.fail(
        f"Middleware {label} returned {type_name(value)}, not a ToolResult{hint}"
    )


# -- adding one ------------------------------------------------------------------------------


def check_middleware(mw: Any) -> Middleware:
    """``mw`` if it is a callable taking ``(call, call_next)``.

    Raises:
        TypeError: it is not callable, or cannot be called with two arguments.
    """
    if not callable(mw):
        raise TypeError(f"middleware must be a callable (call, call_next), not {type_name(mw)}")
    try:
        signature = inspect.signature(mw)
    except (TypeError, ValueError):  # a builtin without a signature: trust it
        return mw  # type: ignore[no-any-return]
    try:
        signature.bind(None, None)
    except TypeError:
        raise TypeError(
            f"middleware {_label(mw)} must take two arguments (call, call_next); "
            f"its signature is {signature}"
        ) from None
    return mw  # type: ignore[no-any-return]


def _label(mw: Any) -> str:
    """How a message names a middleware: its function's or its class's name, quoted."""
    name = mw.__name__ if inspect.isfunction(mw) or inspect.isclass(mw) else None
    if not isinstance(name, str):
        name = getattr(mw, "__name__", None)  # a builtin, a method
    if not isinstance(name, str):
        name = type(mw).__name__  # an instance: its class (a built-in middleware)
    return f"'{clip(name)}'"

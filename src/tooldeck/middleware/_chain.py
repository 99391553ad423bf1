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
  same pool, so a burst of calls cannot deadlock it;
* a `DualMiddleware` (the built-ins) has a form for each: its sync form on the sync
  faces, its async form on the async faces, both inline.

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
from tooldeck._result import (
    ToolResult,
    as_result,
    clip,
    failure_text,
    ok,
    outside_text,
    type_name,
)
from tooldeck._running import COROUTINE, check_size, merge
from tooldeck._shifting import is_async_callable, run_coroutine
from tooldeck._threads import to_thread
from tooldeck._tool import Tool

from ._call import BY_NAME, Call, Source, new_call
from ._dual import is_dual

__all__ = ["Chain", "Middleware", "check_middleware", "start"]

Middleware = Callable[[Call, Callable[[Call], Any]], Any]
SyncStep = Callable[[Call], ToolResult]
AsyncStep = Callable[[Call], Awaitable[ToolResult]]

_TEXT = (str, bytes, bytearray)

Origin = tuple[str | None, str | None, Source]  # (call_id, format, source)


class Chain:
    """A registry's middleware, composed (immutable: adding one makes a new chain)."""

    __slots__ = ("_first", "_first_async", "middleware", "run_async", "run_sync")

    def __init__(self, middleware: Iterable[Middleware]) -> None:
        self.middleware: tuple[Middleware, ...] = tuple(check_middleware(m) for m in middleware)
        sync_step: SyncStep = _last_sync
        async_step: AsyncStep = _last_async
        # The outermost middleware, which the faces call themselves (a frame less per
        # call): (it, the rest, its name) when sync, for the sync faces; when async, for
        # the async faces. None otherwise.
        first: tuple[Any, Any, str] | None = None
        first_async: tuple[Any, Any, str] | None = None
        for mw in reversed(self.middleware):
            label = _label(mw)
            if is_dual(mw):  # each face runs its own form, inline (bound once: no lookup per call)
                sync_form, async_form = mw.__call__, mw.acall
                first, first_async = (sync_form, sync_step, label), (async_form, async_step, label)
                sync_step = _sync_step(sync_form, label, sync_step)
                async_step = _async_step(async_form, label, async_step)
            elif is_async_callable(mw):
                first, first_async = None, (mw, async_step, label)
                async_step = _async_step(mw, label, async_step)
                sync_step = _sync_of_async(async_step)
            else:
                first, first_async = (mw, sync_step, label), None
                sync_step = _sync_step(mw, label, sync_step)
                async_step = _async_of_sync(sync_step)
        self.run_sync = sync_step
        self.run_async = async_step
        self._first = first
        self._first_async = first_async

    def _sync(self, call: Call) -> ToolResult:
        """The chain from a sync face."""
        first = self._first
        if first is None:
            return self.run_sync(call)
        mw, rest, label = first  # `_sync_step`, inline
        try:
            result = mw(call, rest)
        except SYNC_FAILURES as exc:
            return _raised(exc)
        if type(result) is ToolResult:
            return result
        return _not_a_result(label, result)

    async def _async(self, call: Call) -> ToolResult:
        """The chain from an async face."""
        first = self._first_async
        if first is None:
            return await self.run_async(call)
        mw, rest, label = first  # `_async_step`, inline
        try:
            result = await mw(call, rest)
        except Exception as exc:
            return _raised(exc)
        if type(result) is ToolResult:
            return result
        return _not_a_result(label, result)

    # -- the faces (tooldeck._named_calls hands its calls here when there is a chain) ---

    def value(self, tool: Tool[..., Any], arguments: Any, context: Context) -> Any:
        """``call_tool``: the value, or ``"Error: ..."`` (a proxy: what its faces say)."""
        first = self._first
        # The usual call: a plain sync tool (so enabled, and no proxy), a dict, an
        # outermost sync middleware: `start` and `_sync`, inline.
        if arguments.__class__ is dict and tool._direct is not None and first is not None:
            call = new_call(tool, arguments, context)
            mw, rest, label = first
            try:
                result = mw(call, rest)
            except SYNC_FAILURES as exc:
                return str(_raised(exc))
            if type(result) is not ToolResult:
                result = _not_a_result(label, result)
            return result.data if result.success else str(result)
        started = start(tool, arguments, context)
        if started is None:
            return tool.call(arguments, context=context)
        return _value(started, self._sync(started))

    async def avalue(self, tool: Tool[..., Any], arguments: Any, context: Context) -> Any:
        """``async_call_tool``."""
        if arguments.__class__ is dict and tool._adirect is not None:  # (as in `value`)
            result = await self._async(new_call(tool, arguments, context))
            return result.data if result.success else str(result)
        call = start(tool, arguments, context)
        if call is None:
            return await tool.acall(arguments, context=context)
        return _value(call, await self._async(call))

    def result(
        self,
        tool: Tool[..., Any],
        arguments: Any,
        context: Context,
        origin: Origin = BY_NAME,
    ) -> ToolResult:
        """``execute_sync`` (and ``call``, a call of ``run_tool_calls``)."""
        call = start(tool, arguments, context, origin)
        if call is None:
            return tool.run_sync(arguments, context=context)
        return self._sync(call)

    async def aresult(
        self,
        tool: Tool[..., Any],
        arguments: Any,
        context: Context,
        origin: Origin = BY_NAME,
    ) -> ToolResult:
        """``execute`` (and a call of ``async_run_tool_calls``)."""
        call = start(tool, arguments, context, origin)
        if call is None:
            return await tool.run(arguments, context=context)
        return await self._async(call)

    async def answer(
        self, tool: Tool[..., Any], arguments: Any, context: Context, origin: Origin
    ) -> tuple[ToolResult, Any]:
        """The result and, when it is the tool's own unchanged, its raw answer (or None):
        what serving over MCP hands on."""
        call = start(tool, arguments, context, origin, raw=True)
        if call is None:
            return await tool._answer(arguments, context)
        result = await self._async(call)
        return result, _raw(call, result)


# -- a call's start: the Call, or None when the tool's own face answers ----------------


def start(
    tool: Tool[..., Any],
    arguments: Any,
    context: Context,
    origin: Origin = BY_NAME,
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
    extra = None if sent is None and answers is None else (sent, answers)
    return new_call(tool, arguments, context, origin, extra)


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


def _last_sync(call: Call) -> ToolResult:
    tool = call._tool
    direct = tool._direct
    if direct is not None and call._extra is None:  # the plain path, inline (Tool.run_sync)
        try:
            value = direct(**tool._validate_dict(call._arguments))
            if value.__class__ is COROUTINE:
                value = run_coroutine(value)
            return ok(value) if value.__class__ is not ToolResult else as_result(value)
        except SYNC_FAILURES as exc:
            return tool._failed(exc)
    if call._extra is None:
        return tool.run_sync(call._arguments, context=call._context)
    sent, answers = call._extra
    arguments = call._arguments
    if sent is not None and sent[1] is arguments:  # unchanged: validated as sent
        arguments = sent[0]
    if answers is None:
        return tool.run_sync(arguments, context=call._context)
    result, raw = tool._answer_sync(arguments, call._context)
    answers.append((result, raw))
    return result


def _last_async(call: Call) -> Awaitable[ToolResult]:
    # A plain function returning a coroutine: one frame less per async call.
    tool = call._tool
    if call._extra is None:
        adirect = tool._adirect
        if adirect is not None:
            return _plain_async(tool, adirect, call._arguments)
        return tool.run(call._arguments, context=call._context)
    return _last_async_extra(call)


async def _plain_async(
    tool: Tool[..., Any], adirect: Callable[..., Any], arguments: dict[str, Any]
) -> ToolResult:
    """The plain path of an async tool, inline (as in `Tool.run`)."""
    try:
        value = await adirect(**tool._validate_dict(arguments))
        return ok(value) if value.__class__ is not ToolResult else as_result(value)
    except Exception as exc:
        return tool._failed(exc)


async def _last_async_extra(call: Call) -> ToolResult:
    sent, answers = call._extra  # type: ignore[misc]
    arguments = call._arguments
    if sent is not None and sent[1] is arguments:
        arguments = sent[0]
    if answers is None:
        return await call._tool.run(arguments, context=call._context)
    result, raw = await call._tool._answer(arguments, call._context)
    answers.append((result, raw))
    return result


def _raw(call: Call, result: ToolResult) -> Any:
    """The raw answer behind ``result`` when the chain handed the tool's own back."""
    extra = call._extra
    for made, raw in (extra and extra[1]) or ():
        if made is result:
            return raw
    return None


def _value(call: Call, result: ToolResult) -> Any:
    """``call_tool``'s answer for the chain's result."""
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
    what = "None" if value is None else type_name(value)
    return ToolResult.fail(f"Middleware {label} returned {what}, not a ToolResult{hint}")


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

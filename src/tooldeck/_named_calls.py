"""Calling a registry's tools by name: its five call faces and the agent loop's two.

`NamedCalls` is a mixin of `tooldeck._base_registry.BaseRegistry`, which sets
``_tools``. Each face looks the tool up and hands the call to the tool's own face
(`tooldeck._calling.CallFaces`), except on the plain path — an enabled tool without a
timeout, a ``ToolResult`` check or more than one injected parameter — which the faces
below run inline: validate, call. That is the path nearly every call of an agent loop takes, and
inlining it saves a frame and a keyword-argument dict per call (about a fifth of
`call_tool`'s cost; docs/performance.md). What it runs is the tool's own plain function
and validator, and its failures are worded by the tool, so both routes answer alike.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from ._calling import SYNC_FAILURES, Context
from ._result import ToolResult, as_result, clip, failure_text, ok, outside_text
from ._running import COROUTINE, Arguments
from ._shifting import run_coroutine
from ._threads import CallTimeout
from ._tool import Tool
from ._tool_calls import read_tool_calls
from ._tool_calls_run import check_max_concurrency, run_calls, run_calls_sync
from .middleware._chain import Chain, start
from .providers import PROVIDERS

__all__ = ["NamedCalls"]


class NamedCalls:
    """The call-by-name faces of a `tooldeck.ToolRegistry`."""

    _tools: dict[str, Tool[..., Any]]
    # The registry's middleware, composed (None: no middleware, and the faces below take
    # their paths as if there were no such thing: one attribute check).
    _chain: Chain | None = None

    def _find(self, name: str) -> Tool[..., Any] | None:
        try:
            return self._tools.get(name)
        except Exception:  # an unhashable "name", or one whose __hash__/__eq__ raises
            return None

    # The plain paths are inlined on purpose (see the module's docstring): more branches
    # than a face would have otherwise.
    def call_tool(  # noqa: C901
        self, name: str, kwargs: Arguments = None, *, context: Context = None
    ) -> Any:
        """Agently's face: the value, ``"Can not find tool named '<name>'"`` or ``"Error: ..."``.

        ``context`` gives the tool's injected parameters (`tooldeck.Injected`) their
        values. Never raises (but for ``KeyboardInterrupt``, ``SystemExit`` and
        cancellation).
        """
        try:
            found = self._tools.get(name)
        except Exception:  # an unhashable "name", or one whose __hash__/__eq__ raises
            found = None
        if found is None:
            return f"Can not find tool named '{clip(name)}'"
        chain = self._chain
        if chain is not None:
            return chain.value(found, kwargs, context)
        direct = found._direct
        if direct is None:
            one = found._ione
            if one is not None and type(context) is dict:
                direct, param, key = one
                try:  # the plain path with one injected parameter, inline (as in `Tool.call`)
                    args = (
                        found._validate_dict(kwargs)
                        if kwargs.__class__ is dict
                        else found._args_of(kwargs)
                    )
                    try:
                        args[param] = context[key]
                    except KeyError:  # a key the context lacks: a default, or the call fails
                        args.update(found._from_context(context))
                except Exception as exc:
                    return "Error: " + found._refusal(exc)
            elif found._imany is not None and type(context) is dict:
                direct, pairs = found._imany
                try:  # with more injected parameters
                    args = found._args_with(kwargs, context, pairs)
                except Exception as exc:
                    return "Error: " + found._refusal(exc)
            else:
                return found.call(kwargs, context=context)
        else:
            try:  # the plain path, inline (as in `Tool.call`)
                args = (
                    found._validate_dict(kwargs)
                    if kwargs.__class__ is dict
                    else found._args_of(kwargs)
                )
            except Exception as exc:
                return "Error: " + found._refusal(exc)
        try:
            value = direct(**args)
            if value.__class__ is COROUTINE:
                value = run_coroutine(value)
            if value.__class__ is ToolResult:  # (inside: a proxy's __class__ may raise)
                value = as_result(value)  # a proxy's success may be no bool: refused
                return value.data if value.success else str(value)  # "Error: ..."
        except SYNC_FAILURES as exc:
            return "Error: " + found._failure(exc)
        return value

    async def async_call_tool(  # noqa: C901
        self, name: str, kwargs: Arguments = None, *, context: Context = None
    ) -> Any:
        """Async twin of `call_tool`; sync tools run in a worker thread."""
        try:
            found = self._tools.get(name)
        except Exception:
            found = None
        if found is None:
            return f"Can not find tool named '{clip(name)}'"
        chain = self._chain
        if chain is not None:
            return await chain.avalue(found, kwargs, context)
        adirect = found._adirect
        if adirect is not None:  # the plain path, inline (as in `Tool.acall`)
            try:  # (calling an async function only makes its coroutine)
                running = adirect(
                    **(
                        found._validate_dict(kwargs)
                        if kwargs.__class__ is dict
                        else found._args_of(kwargs)
                    )
                )
            except Exception as exc:
                return "Error: " + found._refusal(exc)
        else:
            one = found._aione
            if one is not None and type(context) is dict:
                adirect, param, key = one
                try:  # the plain path with one injected parameter, inline (as in `Tool.acall`)
                    args = (
                        found._validate_dict(kwargs)
                        if kwargs.__class__ is dict
                        else found._args_of(kwargs)
                    )
                    try:
                        args[param] = context[key]
                    except KeyError:  # a key the context lacks: a default, or the call fails
                        args.update(found._from_context(context))
                    running = adirect(**args)
                    del args  # not held while the tool runs
                except Exception as exc:
                    return "Error: " + found._refusal(exc)
            elif found._aimany is not None and type(context) is dict:
                adirect, pairs = found._aimany
                try:  # with more injected parameters
                    running = adirect(**found._args_with(kwargs, context, pairs))
                except Exception as exc:
                    return "Error: " + found._refusal(exc)
            else:
                return await found.acall(kwargs, context=context)
        try:
            value = await running
            if value.__class__ is ToolResult:  # (inside: a proxy's __class__ may raise)
                value = as_result(value)  # a proxy's success may be no bool: refused
                return value.data if value.success else str(value)  # "Error: ..."
        except Exception as exc:
            return "Error: " + found._failure(exc)
        return value

    async def execute(
        self, name: str, arguments: Arguments = None, *, context: Context = None
    ) -> ToolResult:
        """Seed 000's face: always a `ToolResult`; ``fail("Tool '<name>' not found")``."""
        try:
            found = self._tools.get(name)
        except Exception:
            found = None
        if found is None:
            return ToolResult.fail(f"Tool '{clip(name)}' not found")
        chain = self._chain
        if chain is not None:
            return await chain.aresult(found, arguments, context)
        adirect = found._adirect
        try:  # the plain paths, inline (as in `Tool.run`)
            if adirect is not None:
                args = (
                    found._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else found._args_of(arguments)
                )
            elif found._aione is not None and type(context) is dict:
                adirect, param, key = found._aione
                args = (
                    found._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else found._args_of(arguments)
                )
                try:
                    args[param] = context[key]
                except KeyError:  # a key the context lacks: a default, or the call fails
                    args.update(found._from_context(context))
            elif found._aimany is not None and type(context) is dict:
                adirect, pairs = found._aimany  # with more injected parameters
                args = found._args_with(arguments, context, pairs)
            else:
                return await found.run(arguments, context=context)
            running = adirect(**args)
            del args
            value = await running
            return ok(value) if value.__class__ is not ToolResult else as_result(value)
        except Exception as exc:
            return found._failed(exc)

    def execute_sync(
        self, name: str, arguments: Arguments = None, *, context: Context = None
    ) -> ToolResult:
        """Sync twin of `execute`."""
        try:
            found = self._tools.get(name)
        except Exception:
            found = None
        if found is None:
            return ToolResult.fail(f"Tool '{clip(name)}' not found")
        chain = self._chain
        if chain is not None:
            return chain.result(found, arguments, context)
        direct = found._direct
        try:  # the plain paths, inline (as in `Tool.run_sync`)
            if direct is not None:
                args = (
                    found._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else found._args_of(arguments)
                )
            elif found._ione is not None and type(context) is dict:
                direct, param, key = found._ione
                args = (
                    found._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else found._args_of(arguments)
                )
                try:
                    args[param] = context[key]
                except KeyError:  # a key the context lacks: a default, or the call fails
                    args.update(found._from_context(context))
            elif found._imany is not None and type(context) is dict:
                direct, pairs = found._imany  # with more injected parameters
                args = found._args_with(arguments, context, pairs)
            else:
                return found.run_sync(arguments, context=context)
            value = direct(**args)
            if value.__class__ is COROUTINE:
                value = run_coroutine(value)
            return ok(value) if value.__class__ is not ToolResult else as_result(value)
        except SYNC_FAILURES as exc:
            return found._failed(exc)

    def _unanswered(self, name: str, started: bool) -> ToolResult:
        """A call of a sync turn that a blocked loop did not let finish (`run_calls_sync`)."""
        found = self._find(name)
        if started and found is not None and found._timeout is not None:
            return ToolResult.fail(found._failure(CallTimeout()))  # "timed out after ..."
        if started:
            why = "did not finish: tooldeck's event loop was blocked by another call"
        else:
            why = "was not called: tooldeck's event loop was blocked by another call"
        return ToolResult.fail(f"Tool '{clip(name)}' {why}")

    async def _execute_for_sync(
        self,
        name: str,
        arguments: Arguments,
        call_id: str | None = None,
        *,
        context: Context,
        format: str | None = None,
    ) -> ToolResult:
        """`_execute_turn` for a sync caller: a ``CancelledError`` the tool raised is its
        failure, as `execute_sync` reports it (a sync caller has no task to cancel)."""
        try:
            return await self._execute_turn(
                name, arguments, call_id, context=context, format=format
            )
        except asyncio.CancelledError as exc:
            # The turn itself cancelled (its sync caller interrupted) cancels this task:
            # that propagates. (Python 3.10 cannot tell; run_calls' own wait still stops.)
            cancelling = getattr(asyncio.current_task(), "cancelling", None)
            if cancelling is not None and cancelling():
                raise
            return ToolResult.fail(outside_text(failure_text(exc)), exception=exc)

    async def _execute_turn(
        self,
        name: str,
        arguments: Arguments,
        call_id: str | None = None,
        *,
        context: Context,
        format: str | None = None,
    ) -> ToolResult:
        """One call of a model's reply: `execute`, the middleware seeing its id and format."""
        chain = self._chain
        if chain is None:
            return await self.execute(name, arguments, context=context)
        found = self._find(name)
        if found is None:
            return ToolResult.fail(f"Tool '{clip(name)}' not found")
        return await chain.aresult(found, arguments, context, (call_id, format, "tool_calls"))

    def call(
        self, name: str, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> str:
        """RunGPT's face: keyword arguments in, the result's text out.

        ``registry.call("search", query="x")`` → ``str(ToolResult)``: the data (JSON
        unless it is a ``str``) or ``"Error: <message>"``.
        """
        if not kwargs:  # "Error: Tool '<name>' not found" too
            return str(self.execute_sync(name, arguments, context=context))
        found = self._find(name)
        if found is None:
            return f"Error: Tool '{clip(name)}' not found"
        chain = self._chain
        if chain is not None:
            call = start(found, arguments, context, kwargs=kwargs)
            if call is not None:
                return str(chain.run_sync(call))
        return str(found.run_sync(arguments, context=context, **kwargs))

    # -- the agent loop: read (tooldeck._tool_calls), run (._tool_calls_run), write -------

    def run_tool_calls(
        self,
        reply: Any,
        /,
        *,
        context: Context = None,
        max_concurrency: int | None = None,
        format: str | None = None,
        media: str = "native",
    ) -> list[dict[str, Any]]:
        """Run the tool calls of a model's reply; the messages to append, in its format.

        ``reply``: an OpenAI Chat Completions or Responses reply, an Anthropic message or
        a Gemini response, at any level (the whole reply, a message, its calls), as the
        SDK's objects or as dicts from the wire. The format is recognised from the shape
        (``format`` forces ``"openai"``, ``"openai-responses"``, ``"anthropic"`` or
        ``"gemini"``). The calls run concurrently (at most ``max_concurrency`` at once),
        each through `execute`: a failure is that call's error message, never an
        exception. A reply without calls gives ``[]``.

        ``context`` gives every call's injected parameters their values.

        ``media``: ``"native"`` hands the media a tool returns (`Image`, `Audio`,
        `File`) to the provider in its own shapes (docs/media.md); ``"text"`` sends
        placeholders only, for back-ends that take no media.

        Raises:
            TypeError: ``reply`` is none of those shapes (or ``max_concurrency`` no int).
            ValueError: an unknown ``format`` or ``media``, or ``max_concurrency`` below 1.
        """
        native = _native(media)
        if max_concurrency is not None:
            check_max_concurrency(max_concurrency)
        found, calls = read_tool_calls(reply, format)
        if found is None or not calls:
            return []
        if len(calls) == 1:  # the usual turn: run it here, straight through `execute_sync`
            call_id, name, arguments = calls[0]
            found_tool = self._find(name) if self._chain is not None else None
            if found_tool is None:
                results = [self.execute_sync(name, arguments, context=context)]
            else:  # through the middleware, which sees the call's id and format
                results = [
                    self._chain.result(  # type: ignore[union-attr]
                        found_tool, arguments, context, (call_id, found, "tool_calls")
                    )
                ]
        else:  # concurrently, on tooldeck's background loop
            execute = functools.partial(self._execute_for_sync, context=context, format=found)
            timeouts = [getattr(self._find(name), "_timeout", None) for _, name, _ in calls]
            results = run_calls_sync(calls, execute, max_concurrency, timeouts, self._unanswered)
        return PROVIDERS[found].write(calls, results, native)

    async def async_run_tool_calls(
        self,
        reply: Any,
        /,
        *,
        context: Context = None,
        max_concurrency: int | None = None,
        format: str | None = None,
        media: str = "native",
    ) -> list[dict[str, Any]]:
        """Async twin of `run_tool_calls`; cancelling it cancels the calls in flight."""
        native = _native(media)
        if max_concurrency is not None:
            check_max_concurrency(max_concurrency)
        found, calls = read_tool_calls(reply, format)
        if found is None or not calls:
            return []
        if len(calls) == 1:  # the usual turn: spare the runner
            call_id, name, arguments = calls[0]
            results = [
                await self._execute_turn(name, arguments, call_id, context=context, format=found)
            ]
        else:
            execute = functools.partial(self._execute_turn, context=context, format=found)
            results = await run_calls(calls, execute, max_concurrency)
        return PROVIDERS[found].write(calls, results, native)


def _native(media: object) -> bool:
    """``media=``: ``"native"`` → True, ``"text"`` → False; anything else is refused."""
    if isinstance(media, str):  # a str subclass: its characters, none of its methods
        text = media if type(media) is str else str.__getitem__(media, slice(None))
        if text in ("native", "text"):
            return text == "native"
    shown = repr(media) if type(media) is str else clip(media)
    raise ValueError(f"media must be 'native' or 'text', not {shown}")

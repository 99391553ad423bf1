"""Calling a registry's tools by name: its five call faces (the agent loop's: `._turns`).

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

from typing import Any

from ._calling import SYNC_FAILURES, Context
from ._result import ToolResult, as_result, clip, ok
from ._running import COROUTINE, Arguments
from ._shifting import run_coroutine
from ._tool import Tool
from .middleware._chain import Chain, start

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

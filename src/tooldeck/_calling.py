"""Calling a tool: its faces and the one pipeline behind them.

Every call goes through one pipeline (`tooldeck._pipeline`) — validate (a dict or a
JSON string) → add the injected values (`tooldeck.Injected`) → run (sync or async, with
the tool's timeout) → shape the outcome — and only the last step differs between the
two faces:

* Agently's: the value, or ``"Error: <message>"`` (`call`, `acall`);
* seed 000's: a `ToolResult` (`run`, `run_sync`).

The plain case — a tool without a timeout or a ``ToolResult`` check, called with a dict
or JSON text (and a dict context) — is inlined: validate, add the injected values, call.
Nothing but ``Exception`` is caught on the async faces, so ``KeyboardInterrupt``,
``SystemExit`` and ``asyncio.CancelledError`` propagate; the sync faces also report a
``CancelledError`` the tool raised (a sync caller has no task to cancel).

`CallFaces` is a mixin of `tooldeck.Tool`, which sets the attributes it declares.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._pipeline import SYNC_FAILURES, Context, Pipeline
from ._result import ToolResult, as_result, ok
from ._running import COROUTINE, Arguments, positional_adapter
from ._shifting import run_coroutine

__all__ = ["SYNC_FAILURES", "CallFaces", "Context", "Injecting", "InjectingMany"]

# A plain tool with one injected parameter: its function, the parameter, the context key.
# Unpacking one pair costs half what a loop over one pair does (~0.05 µs of a 0.55 µs
# call), which keeps one injected parameter under a fifth of a call.
Injecting = tuple[Callable[..., Any], str, str]
# One with more: its function and the (parameter, context key) pairs.
InjectingMany = tuple[Callable[..., Any], tuple[tuple[str, str], ...]]

_FACES = ("call", "acall", "run", "run_sync")


class CallFaces(Pipeline):
    """The call faces of a `tooldeck.Tool` (the pipeline behind them: `Pipeline`)."""

    _validate_dict: Callable[[Any], dict[str, Any]]
    # How the tool runs, picked once (`_pick_paths`): the plain paths (`_direct` for a
    # sync function, `_adirect` for an async one; `_ione`/`_aione` — the function, the
    # parameter and its context key — for one with one injected parameter, and
    # `_imany`/`_aimany` for one with more; None when disabled), the plain function
    # however it is called (`_plain`), or — None — the runners.
    _direct: Callable[..., Any] | None
    _adirect: Callable[..., Any] | None
    _ione: Injecting | None
    _aione: Injecting | None
    _imany: InjectingMany | None
    _aimany: InjectingMany | None
    _plain: Callable[..., Any] | None

    # -- calling: the Agently face ------------------------------------------------------

    # The plain paths are inlined (no frame between the face and the function): more
    # branches than a face would have otherwise.
    def call(  # noqa: C901
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> Any:
        """Call with validated arguments: the value, or ``"Error: <message>"``.

        Args:
            arguments: A mapping or a JSON object string; keyword arguments are merged
                into it (they win).
            context: Values for the tool's injected parameters (`tooldeck.Injected`),
                by key; keys it does not take are ignored.
        """
        direct = self._direct
        if direct is None or kwargs:
            one = self._ione
            if one is not None and not kwargs and type(context) is dict:
                direct, name, key = one
                try:  # a plain tool with one injected parameter, a dict context
                    args = (
                        self._validate_dict(arguments)
                        if arguments.__class__ is dict
                        else self._args_of(arguments)
                    )
                    try:
                        args[name] = context[key]
                    except KeyError:  # a key the context lacks: a default, or the call fails
                        args.update(self._from_context(context))
                except Exception as exc:
                    return "Error: " + self._refusal(exc)
            elif self._imany is not None and not kwargs and type(context) is dict:
                direct, pairs = self._imany
                try:  # with more injected parameters
                    args = self._args_with(arguments, context, pairs)
                except Exception as exc:
                    return "Error: " + self._refusal(exc)
            else:
                return self._call_other(arguments, kwargs, context)
        else:  # the hot path: a plain sync tool, a dict or JSON text from the model
            try:
                args = (
                    self._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else self._args_of(arguments)
                )
            except Exception as exc:  # validators may raise anything: still a failed call
                return "Error: " + self._refusal(exc)
        try:
            value = direct(**args)
            if value.__class__ is COROUTINE:  # a wrapper returning a coroutine
                value = run_coroutine(value)
            if value.__class__ is ToolResult:  # (inside: a proxy's __class__ may raise)
                value = as_result(value)  # a proxy's success may be no bool: refused
                return value.data if value.success else str(value)  # "Error: ..."
        except SYNC_FAILURES as exc:
            return "Error: " + self._failure(exc)
        return value

    def _call_other(self, arguments: Arguments, kwargs: dict[str, Any], context: Context) -> Any:
        """`call` off the plain paths: keyword arguments, another context, the runners."""
        try:
            args = self._prepare(arguments, kwargs, context)
        except Exception as exc:
            return "Error: " + self._refusal(exc)
        try:
            value = self._invoke_sync(args)
            if value.__class__ is ToolResult:  # (inside: a proxy's __class__ may raise)
                value = as_result(value)  # a proxy's success may be no bool: refused
                return value.data if value.success else str(value)  # "Error: ..."
        except SYNC_FAILURES as exc:
            return "Error: " + self._failure(exc)
        return value

    async def acall(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> Any:
        """Async twin of `call`."""
        adirect = self._adirect
        if adirect is None or kwargs:
            one = self._aione
            if one is not None and not kwargs and type(context) is dict:
                adirect, name, key = one
                try:  # a plain tool with one injected parameter, a dict context
                    args = (
                        self._validate_dict(arguments)
                        if arguments.__class__ is dict
                        else self._args_of(arguments)
                    )
                    try:
                        args[name] = context[key]
                    except KeyError:  # a key the context lacks: a default, or the call fails
                        args.update(self._from_context(context))
                except Exception as exc:
                    return "Error: " + self._refusal(exc)
            elif self._aimany is not None and not kwargs and type(context) is dict:
                adirect, pairs = self._aimany
                try:  # with more injected parameters
                    args = self._args_with(arguments, context, pairs)
                except Exception as exc:
                    return "Error: " + self._refusal(exc)
            else:
                return await self._acall_other(arguments, kwargs, context)
        else:  # the hot path: a plain async tool, a dict or JSON text from the model
            try:
                args = (
                    self._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else self._args_of(arguments)
                )
            except Exception as exc:  # validators may raise anything: still a failed call
                return "Error: " + self._refusal(exc)
        try:
            running = adirect(**args)
            del args  # not held while the tool runs: 10,000 calls in flight are less garbage
            value = await running
            if value.__class__ is ToolResult:  # (inside: a proxy's __class__ may raise)
                value = as_result(value)  # a proxy's success may be no bool: refused
                return value.data if value.success else str(value)  # "Error: ..."
        except Exception as exc:
            return "Error: " + self._failure(exc)
        return value

    async def _acall_other(
        self, arguments: Arguments, kwargs: dict[str, Any], context: Context
    ) -> Any:
        """`acall` off the plain paths."""
        try:
            args = self._prepare(arguments, kwargs, context)
        except Exception as exc:
            return "Error: " + self._refusal(exc)
        try:
            value = await self._invoke_async(args)
            if value.__class__ is ToolResult:  # (inside: a proxy's __class__ may raise)
                value = as_result(value)  # a proxy's success may be no bool: refused
                return value.data if value.success else str(value)  # "Error: ..."
        except Exception as exc:
            return "Error: " + self._failure(exc)
        return value

    # -- calling: the ToolResult face ---------------------------------------------------

    async def run(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> ToolResult:
        """Call with validated arguments: always a `ToolResult`, never raises."""
        adirect = self._adirect
        try:
            if adirect is not None and not kwargs:  # a plain async tool: validate, await
                args = (
                    self._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else self._args_of(arguments)
                )
            elif self._aione is not None and not kwargs and type(context) is dict:
                adirect, name, key = self._aione
                args = (
                    self._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else self._args_of(arguments)
                )
                try:
                    args[name] = context[key]
                except KeyError:  # a key the context lacks: a default, or the call fails
                    args.update(self._from_context(context))
            elif self._aimany is not None and not kwargs and type(context) is dict:
                adirect, pairs = self._aimany  # with more injected parameters
                args = self._args_with(arguments, context, pairs)
            else:
                return await self._run_other(arguments, kwargs, context)
            running = adirect(**args)
            del args
            value = await running
            return ok(value) if value.__class__ is not ToolResult else as_result(value)
        except Exception as exc:
            return self._failed(exc)

    async def _run_other(
        self, arguments: Arguments, kwargs: dict[str, Any], context: Context
    ) -> ToolResult:
        """`run` off the plain paths."""
        try:
            args = self._prepare(arguments, kwargs, context)
            value = await self._invoke_async(args)
            return ok(value) if value.__class__ is not ToolResult else as_result(value)
        except Exception as exc:
            return self._failed(exc)

    def run_sync(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> ToolResult:
        """Sync twin of `run`."""
        direct = self._direct
        try:
            if direct is not None and not kwargs:  # a plain sync tool: validate, call
                args = (
                    self._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else self._args_of(arguments)
                )
            elif self._ione is not None and not kwargs and type(context) is dict:
                direct, name, key = self._ione
                args = (
                    self._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else self._args_of(arguments)
                )
                try:
                    args[name] = context[key]
                except KeyError:  # a key the context lacks: a default, or the call fails
                    args.update(self._from_context(context))
            elif self._imany is not None and not kwargs and type(context) is dict:
                direct, pairs = self._imany  # with more injected parameters
                args = self._args_with(arguments, context, pairs)
            else:
                return self._run_sync_other(arguments, kwargs, context)
            value = direct(**args)
            if value.__class__ is COROUTINE:
                value = run_coroutine(value)
            return ok(value) if value.__class__ is not ToolResult else as_result(value)
        except SYNC_FAILURES as exc:
            return self._failed(exc)

    def _run_sync_other(
        self, arguments: Arguments, kwargs: dict[str, Any], context: Context
    ) -> ToolResult:
        """`run_sync` off the plain paths."""
        try:
            args = self._prepare(arguments, kwargs, context)
            value = self._invoke_sync(args)
            return ok(value) if value.__class__ is not ToolResult else as_result(value)
        except SYNC_FAILURES as exc:
            return self._failed(exc)

    async def execute(self, **kwargs: Any) -> ToolResult:
        """The `BaseTool` interface: `run` with keyword arguments."""
        return await self.run(kwargs)

    # -- how the tool runs, picked once ---------------------------------------------------

    def _pick_paths(self) -> None:
        """Which path a call takes, decided once (and again when enabled or disabled).

        A plain tool — no timeout, no ``-> ToolResult`` check, a function that says what
        it returns — is called straight after validation: `_direct` (sync) or
        `_adirect` (async) for a tool without injected parameters, so their hot path
        checks nothing else; `_ione`/`_aione` for one with one injected parameter and
        `_imany`/`_aimany` for one with more. All are None for a disabled tool, whose
        calls take `_validate` to be refused, and for a subclass with faces of its own.
        Anything else takes the runners.
        """
        spec = self._spec
        routed = self._timeout or spec.returns_tool_result or self._awaits()
        plain = None if routed else self.func
        if spec.positional and plain is not None:
            plain = positional_adapter(plain, spec.positional)
        self._plain = plain
        # A subclass that words its own faces (an MCP proxy does) is called through them:
        # no plain paths, which the registry's faces would otherwise take around them.
        cls = type(self)
        own_faces = all(getattr(cls, face) is getattr(CallFaces, face) for face in _FACES)
        direct = plain if self._enabled and own_faces else None
        sync, injected = not spec.is_async, bool(spec.injected)
        self._direct = direct if sync and not injected else None
        self._adirect = direct if not sync and not injected else None
        one: Injecting | None = None
        many: InjectingMany | None = None
        if any(i.wrap is not None for i in spec.injected):
            direct = None  # a value made from the context's (a reporter): `_prepare` makes it
        if direct is not None and len(spec.injected) == 1:
            one = (direct, spec.injected[0].name, spec.injected[0].key)
        elif direct is not None and spec.injected:
            many = (direct, tuple((i.name, i.key) for i in spec.injected))
        self._ione, self._imany = (one, many) if sync else (None, None)
        self._aione, self._aimany = (None, None) if sync else (one, many)

    def _args_with(
        self, arguments: Arguments, context: dict[str, Any], pairs: tuple[tuple[str, str], ...]
    ) -> dict[str, Any]:
        """Validated arguments and the injected ones, for a tool with several."""
        args = (
            self._validate_dict(arguments)
            if arguments.__class__ is dict
            else self._args_of(arguments)
        )
        try:
            for name, key in pairs:
                args[name] = context[key]
        except KeyError:  # a key the context lacks: a default, or the call fails
            args.update(self._from_context(context))
        return args

"""Calling a tool: its faces and the one pipeline behind them.

Every call goes through one pipeline (`tooldeck._pipeline`) — validate (a dict or a
JSON string) → add the injected values (`tooldeck.Injected`) → run (sync or async, with
the tool's timeout) → shape the outcome — and only the last step differs between the
two faces:

* Agently's: the value, or ``"Error: <message>"`` (`call`, `acall`);
* seed 000's: a `ToolResult` (`run`, `run_sync`).

The plain case — a tool without a timeout, injected parameters or a ``ToolResult`` check,
called with a dict or JSON text — is inlined: validate, call. Nothing but ``Exception``
is caught on the async faces, so ``KeyboardInterrupt``, ``SystemExit`` and
``asyncio.CancelledError`` propagate; the sync faces also report a ``CancelledError``
the tool raised (a sync caller has no task to cancel).

`CallFaces` is a mixin of `tooldeck.Tool`, which sets the attributes it declares.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._pipeline import SYNC_FAILURES, Context, Pipeline
from ._result import ToolResult, ok
from ._running import COROUTINE, Arguments, cause, positional_adapter
from ._shifting import run_coroutine

__all__ = ["SYNC_FAILURES", "CallFaces", "Context"]

_FACES = ("call", "acall", "run", "run_sync")


class CallFaces(Pipeline):
    """The call faces of a `tooldeck.Tool` (the pipeline behind them: `Pipeline`)."""

    _validate_dict: Callable[[Any], dict[str, Any]]
    # How the tool runs, picked once (`_pick_paths`): the plain paths (`_direct` for a
    # sync function, `_adirect` for an async one, `_idirect`/`_aidirect` and the
    # (parameter, context key) pairs `_inject` for one with injected parameters; None
    # when disabled), the plain function however it is called (`_plain`), or — None —
    # the runners.
    _direct: Callable[..., Any] | None
    _adirect: Callable[..., Any] | None
    _idirect: Callable[..., Any] | None
    _aidirect: Callable[..., Any] | None
    _inject: tuple[tuple[str, str], ...]
    _plain: Callable[..., Any] | None

    # -- calling: the Agently face ------------------------------------------------------

    def call(
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
            direct = self._idirect
            if direct is None or kwargs or type(context) is not dict:
                return self._call_other(arguments, kwargs, context)
            try:  # a plain tool with injected parameters, a dict context
                args = (
                    self._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else self._args_of(arguments)
                )
                try:
                    for name, key in self._inject:
                        args[name] = context[key]
                except KeyError:  # a key the context lacks: a default, or the call fails
                    args.update(self._from_context(context))
            except Exception as exc:
                return "Error: " + self._refusal(exc)
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
        except SYNC_FAILURES as exc:
            return "Error: " + self._failure(exc)
        if value.__class__ is ToolResult:
            return value.data if value.success else str(value)  # "Error: ..."
        return value

    def _call_other(self, arguments: Arguments, kwargs: dict[str, Any], context: Context) -> Any:
        """`call` off the plain paths: keyword arguments, another context, the runners."""
        try:
            args = self._prepare(arguments, kwargs, context)
        except Exception as exc:
            return "Error: " + self._refusal(exc)
        plain = self._plain
        try:
            if plain is None or self._spec.is_async:
                value = self._run_sync(args)
            else:  # a plain sync tool called with keyword arguments
                value = plain(**args)
                if value.__class__ is COROUTINE:
                    value = run_coroutine(value)
        except SYNC_FAILURES as exc:
            return "Error: " + self._failure(exc)
        if value.__class__ is ToolResult:
            return value.data if value.success else str(value)  # "Error: ..."
        return value

    async def acall(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> Any:
        """Async twin of `call`."""
        adirect = self._adirect
        if adirect is None or kwargs:
            adirect = self._aidirect
            if adirect is None or kwargs or type(context) is not dict:
                return await self._acall_other(arguments, kwargs, context)
            try:  # a plain tool with injected parameters, a dict context
                args = (
                    self._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else self._args_of(arguments)
                )
                try:
                    for name, key in self._inject:
                        args[name] = context[key]
                except KeyError:  # a key the context lacks: a default, or the call fails
                    args.update(self._from_context(context))
            except Exception as exc:
                return "Error: " + self._refusal(exc)
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
        except Exception as exc:
            return "Error: " + self._failure(exc)
        if value.__class__ is ToolResult:
            return value.data if value.success else str(value)  # "Error: ..."
        return value

    async def _acall_other(
        self, arguments: Arguments, kwargs: dict[str, Any], context: Context
    ) -> Any:
        """`acall` off the plain paths."""
        try:
            args = self._prepare(arguments, kwargs, context)
        except Exception as exc:
            return "Error: " + self._refusal(exc)
        plain = self._plain
        try:
            if plain is None or not self._spec.is_async:
                value = await self._run_async(args)
            else:  # a plain async tool called with keyword arguments
                value = await plain(**args)
        except Exception as exc:
            return "Error: " + self._failure(exc)
        if value.__class__ is ToolResult:
            return value.data if value.success else str(value)  # "Error: ..."
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
            elif self._aidirect is not None and not kwargs and type(context) is dict:
                adirect = self._aidirect
                args = (
                    self._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else self._args_of(arguments)
                )
                try:
                    for name, key in self._inject:
                        args[name] = context[key]
                except KeyError:  # a key the context lacks: a default, or the call fails
                    args.update(self._from_context(context))
            else:
                return await self._run_other(arguments, kwargs, context)
            running = adirect(**args)
            del args
            value = await running
        except Exception as exc:
            return ToolResult.fail(self._refusal(exc), exception=cause(exc))
        return value if value.__class__ is ToolResult else ok(value)

    async def _run_other(
        self, arguments: Arguments, kwargs: dict[str, Any], context: Context
    ) -> ToolResult:
        """`run` off the plain paths."""
        try:
            args = self._prepare(arguments, kwargs, context)
            plain = self._plain
            if plain is None or not self._spec.is_async:
                value = await self._run_async(args)
            else:  # a plain async tool called with keyword arguments
                value = await plain(**args)
        except Exception as exc:
            return ToolResult.fail(self._refusal(exc), exception=cause(exc))
        return value if value.__class__ is ToolResult else ok(value)

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
            elif self._idirect is not None and not kwargs and type(context) is dict:
                direct = self._idirect
                args = (
                    self._validate_dict(arguments)
                    if arguments.__class__ is dict
                    else self._args_of(arguments)
                )
                try:
                    for name, key in self._inject:
                        args[name] = context[key]
                except KeyError:  # a key the context lacks: a default, or the call fails
                    args.update(self._from_context(context))
            else:
                return self._run_sync_other(arguments, kwargs, context)
            value = direct(**args)
            if value.__class__ is COROUTINE:
                value = run_coroutine(value)
        except SYNC_FAILURES as exc:
            return ToolResult.fail(self._refusal(exc), exception=cause(exc))
        return value if value.__class__ is ToolResult else ok(value)

    def _run_sync_other(
        self, arguments: Arguments, kwargs: dict[str, Any], context: Context
    ) -> ToolResult:
        """`run_sync` off the plain paths."""
        try:
            args = self._prepare(arguments, kwargs, context)
            plain = self._plain
            if plain is None or self._spec.is_async:
                value = self._run_sync(args)
            else:  # a plain sync tool called with keyword arguments
                value = plain(**args)
                if value.__class__ is COROUTINE:
                    value = run_coroutine(value)
        except SYNC_FAILURES as exc:
            return ToolResult.fail(self._refusal(exc), exception=cause(exc))
        return value if value.__class__ is ToolResult else ok(value)

    async def execute(self, **kwargs: Any) -> ToolResult:
        """The `BaseTool` interface: `run` with keyword arguments."""
        return await self.run(kwargs)

    # -- how the tool runs, picked once ---------------------------------------------------

    def _pick_paths(self) -> None:
        """Which path a call takes, decided once (and again when enabled or disabled).

        A plain tool — no timeout, no ``-> ToolResult`` check, a function that says what
        it returns — is called straight after validation: `_direct` (sync) or
        `_adirect` (async) for a tool without injected parameters, so their hot path
        checks nothing else, and `_idirect`/`_aidirect` for one with them. All four are
        None for a disabled tool, whose calls take `_validate` to be refused, and for a
        subclass with faces of its own. Anything else takes the runners.
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
        self._idirect = direct if sync and injected else None
        self._aidirect = direct if not sync and injected else None
        self._inject = tuple((i.name, i.key) for i in spec.injected)

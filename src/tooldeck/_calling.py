"""Calling a tool: its faces and the one pipeline behind them.

Every call goes through one pipeline — validate (a dict or a JSON string) → add the
injected values (`tooldeck.Injected`) → run (sync or async, with the tool's timeout) →
shape the outcome — and only the last step differs between the two faces:

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

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

from pydantic_core import ValidationError

from ._injected import Injection, MissingContext, context_values
from ._result import (
    CallFailure,
    ToolResult,
    clip,
    failure_text,
    format_validation_error,
    outside_text,
)
from ._running import (
    COROUTINE,
    Arguments,
    AsyncRunner,
    SyncRunner,
    cause,
    check_size,
    merge,
    too_deep,
)
from ._shifting import run_coroutine
from ._spec import EMPTY, ToolSpec
from ._threads import CallTimeout, TooManyAbandoned

__all__ = ["SYNC_FAILURES", "CallFaces", "Context"]

logger = logging.getLogger("tooldeck")

# What a sync face reports as the call's failure. A CancelledError a tool raises is not
# the caller's cancellation (a sync caller has no task to cancel): it is reported too.
# The async faces catch Exception only, so cancellation propagates there.
SYNC_FAILURES = (Exception, asyncio.CancelledError)

Context = Mapping[str, Any] | None


class CallFaces:
    """The call faces of a `tooldeck.Tool` and the pipeline behind them."""

    max_argument_bytes: int | None
    _spec: ToolSpec
    _enabled: bool
    _timeout: float | None
    _injected: tuple[Injection, ...]
    _validate_dict: Callable[[Any], dict[str, Any]]
    # How the tool runs, picked once: the plain paths (`_direct` for a sync function,
    # `_adirect` for an async one), the same for a tool with injected parameters
    # (`_idirect`, `_aidirect`), or — all of those None — the runners.
    _direct: Callable[..., Any] | None
    _adirect: Callable[..., Any] | None
    _idirect: Callable[..., Any] | None
    _aidirect: Callable[..., Any] | None
    _run_sync: SyncRunner
    _run_async: AsyncRunner

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
        if direct is None or kwargs or not self._enabled:
            return self._call_other(arguments, kwargs, context)
        # The hot path (a plain sync tool; a dict or JSON text from the model): validate,
        # call. Anything else takes `_validate` inside the same guard.
        try:
            kind = arguments.__class__
            if kind is dict:
                args = self._validate_dict(arguments)
            elif (
                kind is str
                and arguments.strip()  # type: ignore[union-attr]
                and len(arguments) * 4 <= (self.max_argument_bytes or -1)  # type: ignore[arg-type]
            ):
                args = self._spec.validate_json(arguments)  # surely under the size limit
            else:
                args = self._validate(arguments)
        except Exception as exc:  # validators may raise anything: still a failed call
            return "Error: " + self._refusal(exc)
        try:
            value = direct(**args)
            if value.__class__ is COROUTINE:  # a wrapper returning a coroutine
                value = run_coroutine(value)
        except SYNC_FAILURES as exc:
            return "Error: " + self._failure(exc)
        if type(value) is ToolResult:
            return value.data if value.success else f"Error: {value.error}"
        return value

    def _call_other(self, arguments: Arguments, kwargs: dict[str, Any], context: Context) -> Any:
        """`call` for every case but the hot path."""
        idirect = self._idirect
        try:
            args = self._prepare(arguments, kwargs, context)
        except Exception as exc:
            return "Error: " + self._refusal(exc)
        try:
            if idirect is None:
                value = self._run_sync(args)
            else:  # a plain tool with injected parameters
                value = idirect(**args)
                if value.__class__ is COROUTINE:
                    value = run_coroutine(value)
        except SYNC_FAILURES as exc:
            return "Error: " + self._failure(exc)
        if type(value) is ToolResult:
            return value.data if value.success else f"Error: {value.error}"
        return value

    async def acall(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> Any:
        """Async twin of `call`."""
        adirect = self._adirect
        if adirect is not None and type(arguments) is dict and not kwargs and self._enabled:
            # The hot path (a plain async tool, a dict from the model): validate, await.
            # (type(), not .__class__, which an object may make a property that raises.)
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
                args = self._prepare(arguments, kwargs, context)
            except Exception as exc:
                return "Error: " + self._refusal(exc)
            aidirect = self._aidirect
            try:
                if aidirect is None:
                    value = await self._run_async(args)
                else:  # a plain async tool with injected parameters
                    value = await aidirect(**args)
            except Exception as exc:
                return "Error: " + self._failure(exc)
        if type(value) is ToolResult:
            return value.data if value.success else f"Error: {value.error}"
        return value

    # -- calling: the ToolResult face ---------------------------------------------------

    async def run(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> ToolResult:
        """Call with validated arguments: always a `ToolResult`, never raises."""
        try:
            value = await self._run_async(self._prepare(arguments, kwargs, context))
        except Exception as exc:
            return ToolResult.fail(self._failure(exc), exception=cause(exc))
        return value if type(value) is ToolResult else ToolResult.ok(value)

    def run_sync(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> ToolResult:
        """Sync twin of `run`."""
        try:
            value = self._run_sync(self._prepare(arguments, kwargs, context))
        except SYNC_FAILURES as exc:
            return ToolResult.fail(self._failure(exc), exception=cause(exc))
        return value if type(value) is ToolResult else ToolResult.ok(value)

    async def execute(self, **kwargs: Any) -> ToolResult:
        """The `BaseTool` interface: `run` with keyword arguments."""
        return await self.run(kwargs)

    # -- the pipeline -------------------------------------------------------------------

    def _prepare(
        self, arguments: Arguments, kwargs: dict[str, Any], context: Context
    ) -> dict[str, Any]:
        """Merge keyword arguments in, validate, add the injected values: the call's kwargs."""
        if kwargs:
            arguments = merge(arguments, kwargs, self.max_argument_bytes)
        args = self._validate(arguments)
        if self._injected:
            args.update(self._from_context(context))
        return args

    def _from_context(self, context: Context) -> dict[str, Any]:
        try:
            return context_values(self._injected, context, EMPTY)
        except MissingContext as missing:
            name, key = clip(self._spec.name), clip(missing.key)
            raise CallFailure(f"Tool '{name}' needs context value '{key}'") from None

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
                if not arguments.strip():  # type: ignore[union-attr]
                    # "" for no arguments: some models send it for a parameterless tool,
                    # and the OpenAI Agents SDK, Pydantic AI and LangChain all read it so.
                    return spec.validate_python({})
                limit = self.max_argument_bytes
                if limit is not None and len(arguments) * 4 > limit:  # may be over: measure
                    check_size(arguments, limit, spec.name)  # type: ignore[arg-type]
                return spec.validate_json(arguments)
            return spec.validate_python(arguments)
        except ValidationError as exc:
            raise CallFailure(format_validation_error(exc, spec.name)) from exc
        except RecursionError as exc:  # a Python value nested deeper than the stack
            raise CallFailure(too_deep(spec.name)) from exc

    def _refusal(self, exc: BaseException) -> str:
        """The text for arguments refused on a fast path (what `_validate` would raise)."""
        if isinstance(exc, ValidationError):
            return format_validation_error(exc, self._spec.name)
        if isinstance(exc, RecursionError):  # a Python value nested deeper than the stack
            return too_deep(self._spec.name)
        # A CallFailure (args_schema and JSON-Schema tools word their own), or whatever
        # a user's validator raised.
        return self._failure(exc)

    def _failure(self, exc: BaseException) -> str:
        if isinstance(exc, CallFailure):  # tooldeck's own words, already bounded
            return failure_text(exc)
        if isinstance(exc, CallTimeout):
            return f"Tool '{clip(self._spec.name)}' timed out after {self._timeout:g} seconds"
        if isinstance(exc, TooManyAbandoned):
            return f"Tool '{clip(self._spec.name)}' is not called now: {exc}"
        logger.debug("tool %r raised", self._spec.name, exc_info=exc)
        return outside_text(failure_text(exc))

"""The pipeline behind a tool's call faces: validate, add the context, run, word failures.

`Pipeline` is the base of `tooldeck._calling.CallFaces` (itself a mixin of
`tooldeck.Tool`, which sets the attributes declared here). It holds what every face
shares off its plain path: the arguments validated from whatever was sent (a dict,
JSON text, bytes, nothing), the injected values from the call's ``context``, the
runners for a tool with a timeout, a ``-> ToolResult`` check or an awaitable to await
(built on first use), running the call off the plain paths (`_invoke_sync`,
`_invoke_async`: its progress reporters finish when it answers, so a sync tool's thread
abandoned on a timeout or a cancellation never reports to the caller afterwards), and
the words a model reads for each kind of failure.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from pydantic_core import ValidationError

from ._injected import Injection, MissingContext, context_values
from ._lazy import lazy
from ._progress import end_reports, finish_reports, finish_reports_async
from ._result import (
    CallFailure,
    ToolResult,
    clip,
    failure_text,
    format_validation_error,
    outside_text,
    validation_failure,
)
from ._running import (
    COROUTINE,
    Arguments,
    AsyncRunner,
    SyncRunner,
    cause,
    check_size,
    may_return_awaitable,
    merge,
    positional_adapter,
    runners,
    too_deep,
)
from ._shifting import run_coroutine
from ._spec import EMPTY, ToolSpec
from ._threads import CallTimeout, ThreadLot, TooManyAbandoned

__all__ = ["SYNC_FAILURES", "Context", "Pipeline"]

logger = logging.getLogger("tooldeck")

# What a sync face reports as the call's failure. A CancelledError a tool raises is not
# the caller's cancellation (a sync caller has no task to cancel): it is reported too.
# The async faces catch Exception only, so cancellation propagates there.
SYNC_FAILURES = (Exception, asyncio.CancelledError)

_RUNNERS_BUILT = threading.Lock()  # held while a tool builds its runners (once)

Context = Mapping[str, Any] | None


class Pipeline:
    """Validation, context, runners and failure text for a tool's call faces."""

    max_argument_bytes: int | None
    max_abandoned_threads: int | None
    func: Callable[..., Any]
    _spec: ToolSpec
    _enabled: bool
    _timeout: float | None
    _injected: tuple[Injection, ...]

    def _awaits(self) -> bool:
        """A sync function that says nothing of what it returns may return an awaitable
        (`lambda q: fetch(q)`), which is awaited: it takes the runners' path."""
        spec = self._spec
        return not spec.is_async and may_return_awaitable(spec.return_annotation)

    # Built on first use: most tools are never called off the plain paths, and a registry
    # of thousands should not pay for runners it does not use. Built once, under a lock:
    # the sync and the async runner of a tool with a timeout share one ThreadLot.
    _runners: tuple[SyncRunner, AsyncRunner] | None = None

    def _runner_pair(self) -> tuple[SyncRunner, AsyncRunner]:
        """How this tool runs from sync and from async code, when not on a plain path."""
        with _RUNNERS_BUILT:
            pair = self._runners
            if pair is None:
                spec = self._spec
                target = self.func
                if spec.positional:
                    target = positional_adapter(target, spec.positional)
                lot = ThreadLot(lambda: self.max_abandoned_threads) if self._timeout else None
                pair = self._runners = runners(
                    target,
                    is_async=spec.is_async,
                    timeout=self._timeout,
                    checked=spec.returns_tool_result,
                    awaits=self._awaits(),
                    lot=lot,
                )
        return pair

    @lazy
    def _run_sync(self) -> SyncRunner:
        return self._runner_pair()[0]

    @lazy
    def _run_async(self) -> AsyncRunner:
        return self._runner_pair()[1]

    # -- running off the plain paths ----------------------------------------------------

    _plain: Callable[..., Any] | None

    def _invoke_sync(self, args: dict[str, Any]) -> Any:
        """The call's value from sync code (the runners', or the plain function's).

        The call's progress reporters finish before it answers, however it ends: what
        they were given is delivered, and nothing later (a worker thread abandoned on a
        timeout reports into nothing).
        """
        try:
            plain = self._plain
            if plain is None or self._spec.is_async:
                return self._run_sync(args)
            value = plain(**args)  # a plain sync tool called with keyword arguments
            if value.__class__ is COROUTINE:
                value = run_coroutine(value)
            return value
        finally:
            if self._injected:
                finish_reports(args)

    async def _invoke_async(self, args: dict[str, Any]) -> Any:
        """Async twin of `_invoke_sync` (cancelled: the reporters end at once)."""
        try:
            plain = self._plain
            if plain is None or not self._spec.is_async:
                value = await self._run_async(args)
            else:  # a plain async tool called with keyword arguments
                value = await plain(**args)
        except BaseException as exc:
            if self._injected:
                if isinstance(exc, Exception):
                    await finish_reports_async(args)
                else:  # cancelled (or the process is ending): nothing more is awaited
                    end_reports(args)
            raise
        if self._injected:
            await finish_reports_async(args)
        return value

    # -- the pipeline -------------------------------------------------------------------

    def _args_of(self, arguments: Arguments) -> dict[str, Any]:
        """Validated keyword arguments for anything but a dict (what the hot paths hand on).

        JSON text under the size limit goes straight to the validator; the rest —
        bytes, other mappings, ``None``, blank or long text — takes `_validate`.
        """
        if (
            arguments.__class__ is str
            and arguments.strip()
            and len(arguments) * 4 <= (self.max_argument_bytes or -1)
        ):
            return self._spec.validate_json(arguments)  # surely under the size limit
        return self._validate(arguments)

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
            text, light = validation_failure(exc, spec.name)
            raise CallFailure(text) from light  # not the whole error: it holds the input
        except RecursionError as exc:  # a Python value nested deeper than the stack
            raise CallFailure(too_deep(spec.name)) from exc

    def _refusal(self, exc: BaseException) -> str:
        """The text for a failure on a fast path, arguments refused included (what
        `_validate` would have raised for them)."""
        # Never isinstance: it reads ``__class__``, which an exception may make raise.
        kind = type(exc)
        if issubclass(kind, ValidationError):
            return format_validation_error(exc, self._spec.name)  # type: ignore[arg-type]
        if issubclass(kind, RecursionError):  # a Python value nested deeper than the stack
            return too_deep(self._spec.name)
        # A CallFailure (args_schema and JSON-Schema tools word their own), or whatever
        # a user's validator raised.
        return self._failure(exc)

    def _failed(self, exc: BaseException) -> ToolResult:
        """A failed call as a `ToolResult`: the text, and the exception kept (`cause`)."""
        if type(exc) is ValidationError:  # arguments refused on a fast path: read once
            text, light = validation_failure(exc, self._spec.name)
            return ToolResult.fail(text, exception=light)
        return ToolResult.fail(self._refusal(exc), exception=cause(exc))

    def _failure(self, exc: BaseException) -> str:
        kind = type(exc)  # (not isinstance: it reads ``__class__``, which may raise)
        if issubclass(kind, CallFailure):  # tooldeck's own words, already bounded
            return failure_text(exc)
        if issubclass(kind, CallTimeout):
            return f"Tool '{clip(self._spec.name)}' timed out after {self._timeout:g} seconds"
        if issubclass(kind, TooManyAbandoned):
            return f"Tool '{clip(self._spec.name)}' is not called now: {exc}"
        logger.debug("tool %r raised", self._spec.name, exc_info=exc)
        return outside_text(failure_text(exc))

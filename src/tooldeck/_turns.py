"""A model's turn: the tool calls of one reply read, run and answered in its format.

`Turns` adds the agent loop's faces to a registry's call-by-name faces
(`tooldeck._named_calls`): `run_tool_calls` and its async twin read a reply
(`tooldeck._tool_calls`), run its calls concurrently (`tooldeck._tool_calls_run`), each
through `execute` and the registry's middleware, and write the answers (each provider's
``write``). A turn calling a tool that needs approval takes `tooldeck.approval`'s path:
its calls are read into a batch, decided, then run the same way; `prepare_tool_calls`
and `load_tool_calls` give that batch to the program, to decide when it can.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ._calling import Context
from ._named_calls import NamedCalls
from ._reply_fields import ToolCall
from ._result import ToolResult, clip, failure_text, outside_text
from ._running import Arguments
from ._threads import CallTimeout
from ._tool_calls import read_tool_calls
from ._tool_calls_run import check_max_concurrency, native_media, run_calls, run_calls_sync
from .approval import ToolCallBatch
from .approval._inline import arun_approved, run_approved
from .approval._once import Claims
from .providers import PROVIDERS

__all__ = ["Approve", "Turns", "calls_any", "check_turn"]

# `run_tool_calls(approve=...)`: a call that needs approval (a `tooldeck.approval.BatchCall`)
# → True to run it, False or a message to decline it; sync or async.
Approve = Callable[[Any], "bool | str | Awaitable[bool | str]"]


class Turns(NamedCalls):
    """The agent loop's faces of a `tooldeck.ToolRegistry`: a model's turn, end to end."""

    _gated: set[str] | frozenset[str] = frozenset()  # the names of tools needing approval

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

    def run_tool_calls(
        self,
        reply: Any,
        /,
        *,
        context: Context = None,
        max_concurrency: int | None = None,
        format: str | None = None,
        media: str = "native",
        approve: Approve | None = None,
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

        ``approve``: asked, one call at a time in the reply's order before any runs, for
        each call that needs approval (``requires_approval``): ``(call) -> bool | str``,
        sync or async (a ``str`` declines with that message). Without it such a call is
        answered ``"Error: Tool '<name>' needs approval"`` and does not run
        (docs/approval.md).

        Raises:
            TypeError: ``reply`` is none of those shapes (or ``max_concurrency`` no int,
                or ``approve`` not callable).
            ValueError: an unknown ``format`` or ``media``, or ``max_concurrency`` below 1.
        """
        native = native_media(media)
        check_turn(max_concurrency, approve)
        found, calls = read_tool_calls(reply, format)
        if found is None or not calls:
            return []
        if self._gated and calls_any(calls, self._gated):
            return run_approved(self, found, calls, context, max_concurrency, native, approve)
        results = self._turn_results_sync(found, calls, context, max_concurrency)
        return PROVIDERS[found].write(calls, results, native)

    def _turn_results_sync(
        self,
        format: str,
        calls: Sequence[ToolCall],
        context: Context,
        max_concurrency: int | None,
    ) -> list[ToolResult]:
        """The results of a turn's ``calls``, in order (`run_tool_calls`, a batch's run)."""
        if len(calls) == 1:  # the usual turn: run it here, straight through `execute_sync`
            call_id, name, arguments = calls[0]
            found_tool = self._find(name) if self._chain is not None else None
            if found_tool is None:
                return [self.execute_sync(name, arguments, context=context)]
            # through the middleware, which sees the call's id and format
            return [
                self._chain.result(  # type: ignore[union-attr]
                    found_tool, arguments, context, (call_id, format, "tool_calls")
                )
            ]
        # concurrently, on tooldeck's background loop
        execute = functools.partial(self._execute_for_sync, context=context, format=format)
        timeouts = [getattr(self._find(name), "_timeout", None) for _, name, _ in calls]
        return run_calls_sync(calls, execute, max_concurrency, timeouts, self._unanswered)

    async def async_run_tool_calls(
        self,
        reply: Any,
        /,
        *,
        context: Context = None,
        max_concurrency: int | None = None,
        format: str | None = None,
        media: str = "native",
        approve: Approve | None = None,
    ) -> list[dict[str, Any]]:
        """Async twin of `run_tool_calls`; cancelling it cancels the calls in flight."""
        native = native_media(media)
        check_turn(max_concurrency, approve)
        found, calls = read_tool_calls(reply, format)
        if found is None or not calls:
            return []
        if self._gated and calls_any(calls, self._gated):
            return await arun_approved(
                self, found, calls, context, max_concurrency, native, approve
            )
        results = await self._turn_results(found, calls, context, max_concurrency)
        return PROVIDERS[found].write(calls, results, native)

    async def _turn_results(
        self,
        format: str,
        calls: Sequence[ToolCall],
        context: Context,
        max_concurrency: int | None,
    ) -> list[ToolResult]:
        """Async twin of `_turn_results_sync`."""
        if len(calls) == 1:  # the usual turn: spare the runner
            call_id, name, arguments = calls[0]
            return [
                await self._execute_turn(name, arguments, call_id, context=context, format=format)
            ]
        execute = functools.partial(self._execute_turn, context=context, format=format)
        return await run_calls(calls, execute, max_concurrency)

    # -- a turn decided first (tooldeck.approval) -------------------------------------------

    def prepare_tool_calls(
        self, reply: Any, /, *, context: Context = None, format: str | None = None
    ) -> ToolCallBatch:
        """Read a model's reply into a `ToolCallBatch`: every call validated, nothing run.

        The calls whose tool needs approval (``requires_approval``) wait in
        ``batch.pending`` for a decision; ``batch.run()`` then answers every call, as
        `run_tool_calls` does (docs/approval.md). ``reply`` and ``format`` as for
        `run_tool_calls`; ``context`` is what a policy sees, and what the calls get
        when they run.

        Raises:
            TypeError: ``reply`` is no model's reply.
            ValueError: an unknown ``format``.
        """
        found, calls = read_tool_calls(reply, format)
        if not calls:  # a reply without calls: a batch without a format, answering []
            return ToolCallBatch._read(self, None, [], context)
        return ToolCallBatch._read(self, found, calls, context)

    def load_tool_calls(
        self,
        text: str | bytes,
        /,
        *,
        key: bytes | None = None,
        context: Context = None,
        once: Claims | None = None,
    ) -> ToolCallBatch:
        """A batch from ``batch.to_json()``'s text, read again against this registry.

        The calls are validated again, and which need approval decided again (a policy
        sees ``context``); a call of a tool this registry no longer has is answered as a
        failure. With ``key``, the text must carry a matching signature, and the
        decisions it records stand; without, every call that needs approval is pending
        again. ``context`` is what the calls get when they run (the text holds none).
        ``once``: a `tooldeck.approval.UsedBatches` (or any store with an atomic
        ``claim(id, expires) -> bool``): the batch's run claims its id there first, and
        a batch of that id that has run already answers each call it would run that
        it ran already, running none.

        Raises:
            ValueError: not a batch's text, its expiry passed, or (with ``key``) its
                signature does not match.
            TypeError: ``text`` is not a str or bytes, ``key`` not bytes, or ``once``
                no store.
        """
        return ToolCallBatch._load(self, text, key, context, once)


def check_turn(max_concurrency: object, approve: object) -> None:
    if max_concurrency is not None:
        check_max_concurrency(max_concurrency)
    if approve is not None and not callable(approve):
        raise TypeError(f"approve must be a callable (call) -> bool | str, not {clip(approve)}")


def calls_any(calls: Sequence[ToolCall], names: set[str] | frozenset[str]) -> bool:
    """Whether one of ``calls`` names one of ``names`` (the tools that need approval)."""
    for _, name, _ in calls:
        try:
            if name in names:
                return True
        except Exception:  # a name whose __hash__ or __eq__ raises: no tool has it
            continue
    return False

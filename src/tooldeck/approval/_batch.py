"""`ToolCallBatch`: a reply's calls read and validated, decided, then run once.

``registry.prepare_tool_calls(reply)`` reads a reply as `run_tool_calls` would and runs
nothing: each call becomes a `BatchCall`, ready, pending (its tool needs approval) or
failed. A person decides the pending ones (`approve`, with edited arguments validated
again; `reject`; `answer`), then `run` runs the ready and approved calls through the
registry's own turn (`tooldeck._turns`: concurrently, through its middleware) and writes
every call's answer in the provider's format, in the reply's order.

The batch knows the registry only as a `Turn`: the two methods of a turn it runs
through, and the lookup of a tool by name.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, final

from tooldeck._calling import Context
from tooldeck._reply_fields import ToolCall
from tooldeck._result import ToolResult, clip
from tooldeck._tool import Tool
from tooldeck._tool_calls_run import check_max_concurrency, native_media
from tooldeck.providers import PROVIDERS

from ._once import aclaim, check_once, claim
from ._policy import edited, read_call
from ._record import BatchCall, declined, needs_approval
from ._text import Decision, dump, expiry, new_id, parse

__all__ = ["ToolCallBatch", "Turn"]


class Turn(Protocol):
    """What a batch needs of its registry (`tooldeck._turns.Turns` has it)."""

    def _find(self, name: str) -> Tool[..., Any] | None: ...

    def _turn_results_sync(
        self,
        format: str,
        calls: Sequence[ToolCall],
        context: Context,
        max_concurrency: int | None,
    ) -> list[ToolResult]: ...

    async def _turn_results(
        self,
        format: str,
        calls: Sequence[ToolCall],
        context: Context,
        max_concurrency: int | None,
    ) -> list[ToolResult]: ...


@final
class ToolCallBatch:
    """The tool calls of one model reply, read and validated, waiting for decisions.

    Made by ``registry.prepare_tool_calls(reply)`` (or ``registry.load_tool_calls(text)``
    from `to_json`'s text); nothing has run. Decide each call of `pending`, then `run` (or
    `arun`) once: the messages to append, every call answered in the reply's order.
    """

    __slots__ = (
        "_by_id",
        "_calls",
        "_context",
        "_expires",
        "_format",
        "_id",
        "_lock",
        "_once",
        "_ran",
        "_registry",
    )

    def __init__(
        self, registry: Turn, format: str | None, calls: list[BatchCall], context: Context
    ) -> None:
        self._registry = registry
        self._format = format
        self._calls = tuple(calls)
        self._by_id = {call.id: call for call in calls}
        self._context = context
        self._lock = threading.Lock()
        self._ran = False
        self._id = new_id()
        self._expires: float | None = None  # as the text it was loaded from says
        self._once: Any = None  # the store its run claims its id in (load_tool_calls)

    @classmethod
    def _read(
        cls,
        registry: Turn,
        format: str | None,
        calls: Sequence[ToolCall],
        context: Context,
    ) -> ToolCallBatch:
        """The batch of a reply's ``calls`` (read in ``format``), nothing run."""
        records = [
            read_call(call, id, registry._find(call[1]), context)
            for call, id in zip(calls, batch_ids(calls), strict=True)
        ]
        return cls(registry, format, records, context)

    @classmethod
    def _load(
        cls,
        registry: Turn,
        text: str | bytes,
        key: bytes | None,
        context: Context,
        once: Any = None,
    ) -> ToolCallBatch:
        """`to_json`'s text read again against ``registry`` (see ``load_tool_calls``)."""
        check_once(once)
        parsed = parse(text, key)
        batch = cls._read(registry, parsed.format, parsed.calls, context)
        batch._id, batch._expires, batch._once = parsed.id, parsed.expires, once
        if [call.id for call in batch._calls] != parsed.ids:
            raise ValueError("not a tool-call batch: its call ids are not the ones it makes")
        for call, decision in zip(batch._calls, parsed.decisions or (), strict=False):
            batch._redo(call, decision)
        return batch

    def _redo(self, call: BatchCall, decision: Decision) -> None:
        """A decision the signed text records, made again on the call as read now.

        A decline or an answer stands whatever the call is now (nothing runs); an
        approval stands for a call that can run (edits validated again); a failure or a
        wait is what reading the call now says.
        """
        status = decision.status
        if status in ("rejected", "answered"):
            call._settle(status, decision.message)  # type: ignore[arg-type]
        elif status == "approved" and call.status in ("pending", "ready"):
            call._settle("pending")
            self._approve(call, decision.edited if decision.has_edits else None)

    # -- what it holds ------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The batch's own id: random, unguessable, the same in its text and in every
        batch loaded from it (to record in a store of yours that it has run)."""
        return self._id

    @property
    def calls(self) -> tuple[BatchCall, ...]:
        """Every call of the reply, in its order."""
        return self._calls

    @property
    def pending(self) -> list[BatchCall]:
        """The calls waiting for a decision, in the reply's order."""
        return [call for call in self._calls if call.status == "pending"]

    @property
    def format(self) -> str | None:
        """The reply's provider format (``None`` for a reply without calls)."""
        return self._format

    def __repr__(self) -> str:
        return f"<ToolCallBatch {len(self._calls)} calls, {len(self.pending)} pending>"

    # -- decisions ----------------------------------------------------------------------

    def approve(self, id: str, arguments: Any = None) -> None:
        """Run the pending call ``id``, with ``arguments`` (a mapping or JSON text) instead
        of the model's when given: they are validated again, and invalid ones become that
        call's failure (its `BatchCall.message` says why).

        Raises:
            ValueError: no call has that id, or it is not pending.
        """
        with self._lock:
            self._approve(self._pending(id), arguments)

    def _approve(self, call: BatchCall, arguments: Any) -> None:
        if arguments is None:
            call._settle("approved")
            return
        tool = call.tool
        problem = edited(tool, arguments) if tool is not None else "no tool"
        if problem is not None:
            call._settle("failed", problem)
            return
        if isinstance(arguments, Mapping):  # a copy: changing it later changes nothing
            arguments = copy.deepcopy(dict(arguments))
        call._arguments = arguments
        call._settle("approved")

    def reject(self, id: str, message: str | None = None) -> None:
        """Do not run the pending call ``id``: the model reads ``"Error: <message>"``
        (by default, that the user declined the call).

        Raises:
            ValueError: no call has that id, or it is not pending.
            TypeError: ``message`` is not a string.
        """
        if message is not None and not isinstance(message, str):
            raise TypeError(f"message must be a string, not {clip(message)}")
        with self._lock:
            call = self._pending(id)
            call._settle("rejected", declined(call.name) if message is None else message)

    def answer(self, id: str, text: str) -> None:
        """Answer the pending call ``id`` with ``text`` without running it (a success).

        Raises:
            ValueError: no call has that id, or it is not pending.
            TypeError: ``text`` is not a string.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, not {clip(text)}")
        with self._lock:
            self._pending(id)._settle("answered", text)

    def _pending(self, id: str) -> BatchCall:
        if self._ran:
            raise ValueError(f"this batch has run: call {_id(id)} can no longer be decided")
        try:
            call = self._by_id.get(id)
        except TypeError:  # an unhashable "id"
            call = None
        if call is None:
            raise ValueError(f"no call in this batch has the id {_id(id)}")
        if call.status != "pending":
            raise ValueError(f"call {_id(id)} is {call.status}, not pending: it cannot be decided")
        return call

    def _fail(self, id: str, message: str) -> None:
        """The pending call ``id`` cannot run (an ``approve`` callable that failed)."""
        with self._lock:
            self._pending(id)._settle("failed", message)

    # -- as text ------------------------------------------------------------------------

    def to_json(self, key: bytes | None = None, *, expires_in: float | None = None) -> str:
        """The batch as JSON text, for ``registry.load_tool_calls`` in another process or
        request: its id, the calls and the decisions so far, never a context value.

        Decisions in the text count only when it is signed: with ``key`` (bytes kept
        secret on the server), the text carries an HMAC that loading with the same key
        checks. Unsigned text loads with every call that needs approval pending again.

        ``expires_in``: seconds (wall time) after which the text no longer loads; by
        default the expiry of the text the batch was loaded from, if any.

        Raises:
            RuntimeError: the batch has run (its text would run its calls again).
            TypeError: ``key`` is not bytes, or ``expires_in`` not a number.
            ValueError: ``key`` is empty, ``expires_in`` not positive, or the reply's
                arguments are not JSON.
        """
        expires = self._expires if expires_in is None else expiry(expires_in)
        with self._lock:
            if self._ran:
                raise RuntimeError("this batch has run: its text would run its calls again")
            return dump(self._format, self._calls, key, self._id, expires)

    # -- running ------------------------------------------------------------------------

    def run(
        self,
        *,
        context: Context = None,
        max_concurrency: int | None = None,
        media: str = "native",
    ) -> list[dict[str, Any]]:
        """Run the ready and approved calls (concurrently, at most ``max_concurrency`` at
        once) and answer every call in the reply's order, in its provider's format, as
        `run_tool_calls` does; a call still pending is answered as declined.

        ``context``: for the calls' injected parameters (default: the one the batch was
        prepared or loaded with); each policy is asked again with it about the calls it
        let through (the context may have changed since). ``media`` as for
        `run_tool_calls`. Loaded with ``once=``, a batch that has run already (its id
        claimed) runs none of its calls, answering each that it ran already.

        Raises:
            RuntimeError: the batch has run already (a second run would run its calls
                again).
        """
        return self._run_sync(context, _checked(max_concurrency), native_media(media), False)

    async def arun(
        self,
        *,
        context: Context = None,
        max_concurrency: int | None = None,
        media: str = "native",
    ) -> list[dict[str, Any]]:
        """Async twin of `run`; cancelling it cancels the calls in flight."""
        return await self._run(context, _checked(max_concurrency), native_media(media), False)

    def _run_sync(
        self, context: Context, max_concurrency: int | None, native: bool, nobody_asked: bool
    ) -> list[dict[str, Any]]:
        context = self._context if context is None else context
        runs = self._start(context)
        format = self._format
        if format is None:  # a reply without calls
            return []
        once = self._once
        refused = claim(once, self._id, self._expires) if runs and once is not None else None
        if refused is not None:
            results = _not_run(runs, refused)
        elif runs:
            results = self._registry._turn_results_sync(format, runs, context, max_concurrency)
        else:
            results = []
        return self._write(format, results, native, nobody_asked)

    async def _run(
        self, context: Context, max_concurrency: int | None, native: bool, nobody_asked: bool
    ) -> list[dict[str, Any]]:
        context = self._context if context is None else context
        runs = self._start(context)
        format = self._format
        if format is None:
            return []
        once = self._once
        refused = await aclaim(once, self._id, self._expires) if runs and once is not None else None
        if refused is not None:
            results = _not_run(runs, refused)
        elif runs:
            results = await self._registry._turn_results(format, runs, context, max_concurrency)
        else:
            results = []
        return self._write(format, results, native, nobody_asked)

    def _start(self, context: Context) -> list[ToolCall]:
        """Mark the batch as run (once only); the calls that run.

        A call a policy let through is asked about again, with the run's context: what
        the policy let pass for one user must not run for another without approval, and
        the context may be another object, or the same one changed since (a role
        downgraded, at any depth). No snapshot could tell every such change (a value
        that cannot be copied, an object changed inside), so the policy is asked again,
        which costs one call of it per such call."""
        with self._lock:
            if self._ran:
                raise RuntimeError("this batch has run already; it runs once")
            self._ran = True
        for call in self._calls:
            if call.status == "ready" and call._gated:
                _ask_again(call, context)
        return [(c._call[0], c.name, c._arguments) for c in self._calls if c._runs()]

    def _write(
        self, format: str, results: list[ToolResult], native: bool, nobody_asked: bool
    ) -> list[dict[str, Any]]:
        """Every call's result in order (those run, and the others' outcomes), written.

        ``nobody_asked``: a call still pending needs approval (`run_tool_calls` without
        ``approve``), rather than declined."""
        ran = iter(results)
        merged = [
            next(ran) if call._runs() else call._outcome(nobody_asked) for call in self._calls
        ]
        return PROVIDERS[format].write([c._call for c in self._calls], merged, native)


def _ask_again(call: BatchCall, context: Context) -> None:
    """A call its policy let through, read again with ``context``: it runs only if the
    policy lets it through again (else it needs approval, or fails as the policy did)."""
    again = read_call(call._call, call.id, call.tool, context)
    if again.status == "pending":
        call._settle("failed", needs_approval(call.name))
    elif again.status != "ready":
        call._settle("failed", again.message)


def _not_run(runs: list[ToolCall], why: str) -> list[ToolResult]:
    """The answers of calls that do not run after all (their batch ran already...)."""
    return [ToolResult.fail(f"Tool '{clip(name)}' was not run: {why}") for _, name, _ in runs]


def _id(id: object) -> str:
    """An id as an error message shows it: quoted when it is a string."""
    return f"'{clip(id)}'" if isinstance(id, str) else clip(id)


def _checked(max_concurrency: int | None) -> int | None:
    if max_concurrency is not None:
        check_max_concurrency(max_concurrency)
    return max_concurrency


def batch_ids(calls: Sequence[ToolCall]) -> list[str]:
    """Each call's id in a batch: the provider's, else (none, or one an earlier call of
    the reply has) ``call_<n>`` made unique, ``n`` its place in the reply from 1."""
    taken = {call[0] for call in calls if isinstance(call[0], str)}
    ids: list[str] = []
    seen: set[str] = set()
    for n, (call_id, _, _) in enumerate(calls, 1):
        if isinstance(call_id, str) and call_id not in seen:
            new = call_id
        else:
            new = f"call_{n}"
            while new in taken or new in seen:
                new += "_"
        seen.add(new)
        ids.append(new)
    return ids

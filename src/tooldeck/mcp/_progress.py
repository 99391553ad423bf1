"""What a served call tells its client while it runs: progress, and a gateway's logs.

`served_reporter` gives a served call a `tooldeck.Progress` whose reports go to the
client as ``notifications/progress`` (fastmcp's ``Context.report_progress``), when the
client asked for progress (its request carries a ``progressToken``). `served_logs`
gives a served proxy call somewhere to pass its remote server's log messages on to:
the gateway's client, as ``notifications/message``, unchanged (level, logger, data),
above the level that client set (``logging/setLevel``).

Both go through an `Outbox`: from any thread (a sync tool runs in a worker thread; a
proxy's remote notifications arrive on tooldeck's MCP loop) into one sender at a time
on the server's loop, within the request's context variables (where fastmcp finds the
request). A tool may report far faster than a client takes notifications (100,000
times in a loop): progress is coalesced — at most `_PROGRESS_BACKLOG` reports wait
while one is being sent, a newer one pushing out the oldest, and reports go out at
most every `_PROGRESS_SPACING` seconds (each notification costs the server's loop far
more than a report costs the tool: sent back to back, they took the CPU the tool
needed), so the client gets reports in order, a few dozen a second, and always the
last of a burst. What goes out is what a client may receive: reports whose progress is
no finite number or no more than the last one sent are dropped (the spec wants it to
increase; JSON has no NaN), and messages are cut to `_MESSAGE_LIMIT`. Logs are
each sent, in order (at most `_LOG_BACKLOG` waiting; past that the oldest are
dropped). `Outbox.flush`, awaited when
the call ends, sends what is still waiting before the result goes out; after it,
anything more (a sync tool's abandoned thread reporting on) is dropped. A report costs
the tool a tuple and a deque's append (a lock too, when no sender runs).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import math
import threading
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Generic, TypeVar

from tooldeck._progress import PROGRESS_KEY, Progress
from tooldeck._tool import Tool

from ._extra import logger
from ._proxy import ProxyTool
from ._session import LOG_SINK

__all__ = ["Outbox", "ServedProgress", "notes_to_client", "served_logs", "served_reporter"]

T = TypeVar("T")

_FLUSH_BOUND = 5.0  # seconds the result waits, at most, for what is still waiting to go out
_LOG_BACKLOG = 1000  # log messages waiting to be sent, at most
# Progress reports waiting, at most: a tool's few steps all arrive even when the client
# is slow for a moment; a flood keeps only its newest (the last always among them).
_PROGRESS_BACKLOG = 16
_PROGRESS_SPACING = 0.01  # seconds between two progress notifications, at least
_MESSAGE_LIMIT = 1000  # characters of a progress message sent, at most


class Outbox(Generic[T]):
    """Items sent to a served request's client in order, from any thread (see above).

    Args:
        send: Sends one item (on the server's loop, in the request's context).
        backlog: How many items may wait; past that the oldest are dropped.
    """

    def __init__(
        self, send: Callable[[T], Awaitable[bool | None]], *, backlog: int, spacing: float = 0.0
    ) -> None:
        self._send_one = send
        self._spacing = spacing
        self._hurry = asyncio.Event()  # set by `flush`: what waits goes out now
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        # fastmcp finds the request in context variables: an item put from another
        # thread is sent within them.
        self._request = contextvars.copy_context()
        self._lock = threading.Lock()
        self._waiting: collections.deque[T] = collections.deque(maxlen=backlog)
        self._sending = False  # a sender is scheduled or running
        self._ended = False
        self._sender: asyncio.Task[None] | None = None

    def put(self, item: T) -> None:
        """Queue ``item`` (dropping the oldest waiting when the backlog is full)."""
        # No lock while a sender runs (a flood's usual case): a deque's append is atomic,
        # and a sender that finds the deque empty looks again after it stops (`_send`).
        if self._ended:
            return
        self._waiting.append(item)
        if not self._sending:
            self._wake()

    def _wake(self) -> None:
        """Start a sender, unless one runs (or the call has ended)."""
        with self._lock:
            if self._sending or self._ended:
                return
            self._sending = True
        if threading.get_ident() == self._thread:
            self._start()
        else:
            self._loop.call_soon_threadsafe(self._start, context=self._request)

    def _start(self) -> None:
        self._sender = self._loop.create_task(self._send())

    async def _send(self) -> None:
        waiting = self._waiting
        while not self._ended:
            try:
                item = waiting.popleft()
            except IndexError:
                with self._lock:
                    self._sending = False
                # An item put between the pop that failed and the line above saw a
                # sender running and left it to us: take it, unless a new sender has.
                if not waiting:
                    return
                with self._lock:
                    if self._sending or self._ended:
                        return
                    self._sending = True
                continue
            try:
                if await self._send_one(item) is False:
                    continue  # not sent (see `ServedProgress`): nothing to space
            except Exception:  # a client gone, a value that is no number: not the call's
                logger.debug("sending a notification to an MCP client failed", exc_info=True)
            if self._spacing and not self._hurry.is_set():
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._hurry.wait(), self._spacing)

    async def flush(self) -> None:
        """Send what is still waiting, then drop anything later (the call has ended)."""
        deadline = self._loop.time() + _FLUSH_BOUND
        self._hurry.set()
        try:
            while self._loop.time() < deadline:
                with self._lock:
                    if not self._sending:
                        break
                sender = self._sender
                if sender is not None and not sender.done():
                    await asyncio.wait([sender], timeout=deadline - self._loop.time())
                else:
                    await asyncio.sleep(0)  # scheduled from another thread: let it start
        finally:
            # Also when the flush itself is cancelled: a cancelled request's scope (anyio)
            # cancels every await in it, so a cancelled call's flush never got here, and
            # a sync tool's abandoned thread went on sending its client notifications —
            # unspaced, `_hurry` being set — for a request that was over.
            self.end()

    def end(self) -> None:
        """Drop anything put from now on, and stop the sender (the call has ended)."""
        with self._lock:
            self._ended = True


class ServedProgress(Outbox[tuple[Any, Any, Any]]):
    """A served call's progress reports, to its client (coalesced)."""

    def __init__(self, context: Any) -> None:
        last = -math.inf

        async def send(report: tuple[Any, Any, Any]) -> bool:
            nonlocal last
            done, total = float(report[0]), report[1]
            # The MCP spec: "the progress value MUST increase with each notification";
            # and JSON has no NaN or infinity (sent, they became `null`, which clients
            # refuse as an invalid notification). Such a report is dropped, as is a total
            # that is no finite number (the report goes without one).
            if not (math.isfinite(done) and done > last):
                return False
            if total is not None and not math.isfinite(total := float(total)):
                total = None
            last = done
            await context.report_progress(done, total, _text(report[2]))
            return True

        super().__init__(send, backlog=_PROGRESS_BACKLOG, spacing=_PROGRESS_SPACING)
        self.reporter = Progress(self._report)

    def _report(self, done: Any, total: Any, message: Any) -> None:
        # `put` inline: a tool may report 100,000 times.
        if self._ended:
            return
        self._waiting.append((done, total, message))
        if not self._sending:
            self._wake()


def _text(message: Any) -> str | None:
    """A report's message as sent: text, at most `_MESSAGE_LIMIT` characters (a tool
    passing a whole log as its message would send it dozens of times a second)."""
    if message is None:
        return None
    text = str(message)
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 1] + "…"


def served_reporter(tool: Tool[..., Any]) -> ServedProgress | None:
    """A reporter for a served call of ``tool`` (in the request's fastmcp context), or
    ``None`` when the tool reports nothing (no `Progress` parameter, not a proxy) or
    the client asked for no progress."""
    if not (isinstance(tool, ProxyTool) or any(i.key == PROGRESS_KEY for i in tool.spec.injected)):
        return None
    from fastmcp.server.dependencies import get_context

    context = get_context()
    request = context.request_context
    meta = request.meta if request is not None else None
    if not isinstance(meta, dict) or meta.get("progressToken") is None:
        return None
    return ServedProgress(context)


def served_logs() -> Outbox[Any]:
    """Where a served proxy call's remote log messages go: its client (see above)."""
    from fastmcp.server.dependencies import get_context

    context = get_context()

    async def send(params: Any) -> None:
        if not _wanted(context, params.level):
            return
        from mcp.shared.exceptions import MCPDeprecationWarning

        with warnings.catch_warnings():
            # The MCP SDK deprecates logging as of 2026-07-28 (SEP-2577), yet sends it and
            # fastmcp's own `Context.log` uses it: a gateway passes on what it was sent.
            # (Warned when called: no await inside this block.)
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            sending = context.session.send_log_message(
                level=params.level,
                data=params.data,
                logger=params.logger,
                related_request_id=context.request_id,  # on the call's own stream (HTTP)
            )
        await sending

    return Outbox(send, backlog=_LOG_BACKLOG)


def _wanted(context: Any, level: str) -> bool:
    """Whether the client wants messages at ``level``: at or above the level it set
    (``logging/setLevel``), else the server's default."""
    from fastmcp.server import context as fastmcp_context

    floor = context.fastmcp.client_log_level
    # fastmcp keeps a client's level in the connection's state; it offers no public
    # reader (its own `Context.log` uses this one).
    with_client = getattr(fastmcp_context, "_get_client_log_level", None)
    if with_client is not None:
        floor = with_client(context.session) or floor
    severity = getattr(fastmcp_context, "_MCP_LEVEL_SEVERITY", {})
    return floor is None or severity.get(level, 0) >= severity.get(floor, 0)


@contextlib.asynccontextmanager
async def notes_to_client(tool: Tool[..., Any]) -> AsyncIterator[ServedProgress | None]:
    """Around a served call of ``tool``: its progress reporter (``None`` when it reports
    nothing, or the client asked for none), a proxy's remote logs passed on, and, when
    the call ends, what is still waiting sent before the result."""
    progress = served_reporter(tool)
    if progress is None and not isinstance(tool, ProxyTool):
        yield None  # the usual case: nothing to tell
        return
    logs = served_logs() if isinstance(tool, ProxyTool) else None
    token = LOG_SINK.set(None if logs is None else logs.put)
    try:
        yield progress
    finally:
        LOG_SINK.reset(token)
        outboxes = [outbox for outbox in (progress, logs) if outbox is not None]
        try:
            for outbox in outboxes:
                await outbox.flush()
        finally:  # cancelled during the first flush: the others end too
            for outbox in outboxes:
                outbox.end()

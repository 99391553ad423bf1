"""Progress across the MCP edge: a served call's reports to its client, coalesced.

`served_reporter` gives a served call a `tooldeck.Progress` whose reports go to the
client as ``notifications/progress`` (fastmcp's ``Context.report_progress``), when the
client asked for progress (its request carries a ``progressToken``).

A tool may report far faster than a client takes notifications (100,000 times in a
loop): reports are coalesced. One sender at a time runs on the server's loop; a report
made while it sends replaces the one waiting, so the client gets every report it can
take, in order, and always the last of a burst. `ServedProgress.flush`, awaited when
the call ends, sends the one still waiting before the result goes out: the final
report always arrives, before the result. A report costs the tool a lock and a tuple,
from any thread (a sync tool runs in a worker thread; a proxy's remote progress
arrives on tooldeck's MCP loop); after the call ended (a sync tool's abandoned thread
reporting on), reports are dropped.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

from tooldeck._progress import PROGRESS_KEY, Progress
from tooldeck._tool import Tool

from ._extra import logger
from ._proxy import ProxyTool

__all__ = ["ServedProgress", "served_reporter"]

_FLUSH_BOUND = 5.0  # seconds the result waits, at most, for the last report to go out

Report = tuple[float, "float | None", "str | None"]


class ServedProgress:
    """Sends reports to a client through a fastmcp ``Context``, coalesced (see above).

    Args:
        context: The request's ``fastmcp.Context``.
    """

    def __init__(self, context: Any) -> None:
        self._context = context
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        # fastmcp finds the request (its progress token) in context variables: a report
        # from another thread (a proxy's, on tooldeck's MCP loop) is sent within them.
        self._request = contextvars.copy_context()
        self._lock = threading.Lock()
        self._waiting: Report | None = None
        self._sending = False  # a sender is scheduled or running
        self._ended = False
        self._sender: asyncio.Task[None] | None = None
        self.reporter = Progress(self.report)

    def report(self, done: float, total: float | None, message: str | None) -> None:
        """Queue a report (replacing one still waiting); from any thread."""
        with self._lock:
            if self._ended:
                return
            self._waiting = (done, total, message)
            if self._sending:
                return
            self._sending = True
        if threading.get_ident() == self._thread:
            self._start()
        else:
            self._loop.call_soon_threadsafe(self._start, context=self._request)

    def _start(self) -> None:
        self._sender = self._loop.create_task(self._send())

    async def _send(self) -> None:
        while True:
            with self._lock:
                report, self._waiting = self._waiting, None
                if report is None:
                    self._sending = False
                    return
            done, total, message = report
            try:
                await self._context.report_progress(
                    done, total, None if message is None else str(message)
                )
            except Exception:  # a client gone, a value that is no number: not the call's
                logger.debug("sending a progress notification failed", exc_info=True)

    async def flush(self) -> None:
        """Send the report still waiting, then drop any later one (the call has ended)."""
        deadline = self._loop.time() + _FLUSH_BOUND
        while self._loop.time() < deadline:
            with self._lock:
                if not self._sending:
                    break
            sender = self._sender
            if sender is not None and not sender.done():
                await asyncio.wait([sender], timeout=deadline - self._loop.time())
            else:
                await asyncio.sleep(0)  # scheduled from another thread: let it start
        with self._lock:
            self._ended = True


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

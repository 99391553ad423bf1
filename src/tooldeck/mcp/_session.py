"""One MCP server's client session, living on the MCP loop (`tooldeck.mcp._loop`).

* Opened on first use by one shared task, itself bounded by the timeout; concurrent
  callers wait for it, each within its own deadline, and share the session after.
* Every request is bounded: listing the tools (opening included) and every call take
  at most ``timeout`` seconds, whatever the server does (never answers, freezes, dies,
  drips half a message). A bound that fires abandons the request: the caller gets its
  failure at once, and any cleanup (for stdio: stopping the server process) runs on
  in the background.
* A failed call keeps the session when the server still answers a ping; otherwise the
  session is dropped and closed in the background, and the next call opens a new one
  (for stdio, starting the server again).
* Closing stops what opening started: the MCP SDK closes a stdio server's stdin, then
  terminates its process group, then kills it; beside it, `tooldeck.mcp._processes`
  does not wait on a server that cannot act on that (a frozen one). Dropping a session
  that failed, or one whose import failed, gives the server `HURRY` seconds (not the
  SDK's 2 s) at each step, and the failed call or import waits (within its bound)
  until the server is gone.
* A session opened before a ``fork()`` belongs to the parent: the child opens its own.
* Each call carries its caller's trace (the current span's W3C ``traceparent``) in
  its request's ``_meta`` (`trace_meta`), so the server's spans join the caller's trace.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck._shifting import with_timeout
from tooldeck._threads import CallTimeout

from . import _loop, _processes
from ._extra import logger
from ._failures import HTTP_STATUSES, RemoteFailure, RemoteTimeout, failure_kind

if TYPE_CHECKING:
    import fastmcp
    import mcp_types

    from tooldeck._progress import Progress

    from ._transports import Refusals

__all__ = [
    "HURRY",
    "PING_GRACE",
    "LogSink",
    "RemoteFailure",
    "RemoteTimeout",
    "Session",
    "log_sink",
    "trace_meta",
]

T = TypeVar("T")

PING_GRACE = 0.5  # seconds a server may take to answer a ping after a call timed out
_PING_LIMIT = 5.0  # ... after a call that failed early
# Seconds a server that failed gets to exit after its stdin closes, then after SIGTERM.
HURRY = 0.25
_GRACE = 2.0  # ... a server whose session is closed (the MCP SDK's own timings)
_DROP_WAIT = 0.3  # seconds a failed call waits, at most, for its dropped server to stop

LogSink = Callable[[Any], None]  # takes a server's LoggingMessageNotificationParams

# Where the served call running here passes remote log messages on (its client): set by
# `tooldeck.mcp._provider` for a served proxy call, read by the proxy on the caller's side.
LOG_SINK: contextvars.ContextVar[LogSink | None] = contextvars.ContextVar(
    "tooldeck_mcp_log_sink", default=None
)


def log_sink() -> LogSink | None:
    """The log sink of the served call running here, if any."""
    return LOG_SINK.get()


class _Call:
    """A call in flight (or over: ``ended``), its session and its log sink."""

    __slots__ = ("ended", "session", "sink")

    def __init__(self, session: Session, sink: LogSink | None) -> None:
        self.session, self.sink, self.ended = session, sink, False


# The call a server's message was sent for, when the transport says so (see `on_log`):
# set around each call, read where the MCP SDK runs the notification's handler.
_CALL: contextvars.ContextVar[_Call | None] = contextvars.ContextVar(
    "tooldeck_mcp_call", default=None
)


class Session:
    """One server's session: opened lazily, shared, reopened when found dead.

    Args:
        transport: What ``use_mcp`` was given.
        timeout: Seconds each request may take (``None``: no bound).
    """

    def __init__(self, transport: Any, timeout: float | None) -> None:
        from ._transports import Refusals, describe, redactor

        self.transport = transport
        self.server = describe(transport)
        self.redact = redactor(transport)
        self.timeout = timeout
        self.refusals: Refusals = Refusals()
        self._client: fastmcp.Client[Any] | None = None
        self._mark = ""  # what the server `_client` started carries (`_processes`)
        self._opening: asyncio.Future[fastmcp.Client[Any]] | None = None
        self._pid = os.getpid()
        self._closing: set[asyncio.Task[None]] = set()
        # One entry per call in flight: its log sink, or None (see `on_log`).
        self._calls: list[_Call] = []

    def on_log(self, message: Any) -> None:
        """A log message of the server's, after the ``tooldeck.mcp`` logger has it: on to
        the client of the served call it belongs to.

        An MCP log notification names no request. The MCP SDK's client runs its handler
        in the context of the task that read it, which for a message on a call's own
        stream (streamable HTTP: the call's POST response; in process: the server's
        handler of the call) is the context the call was sent from: `_CALL` there says
        whose it is, however many calls are in flight. A message the transport does not
        place (stdio; HTTP's GET stream) is passed on only when one call is in flight
        (it can be no other's), never to a client it may not be for.
        """
        call = _CALL.get()
        if call is None or call.session is not self:  # not placed: one call, or none
            call = self._calls[0] if len(self._calls) == 1 else None
        if call is not None and not call.ended and call.sink is not None:
            call.sink(message)  # (a call over: its client has had its answer)

    # -- requests (each runs on the MCP loop) ---------------------------------------------

    async def list_tools(self) -> tuple[list[mcp_types.Tool], list[tuple[str, str]]]:
        """The server's tools, and ``(name, reason)`` of those it listed unreadably."""
        return await self._bounded(self._list_tools(), "list its tools")

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        progress: Progress | None = None,
        *,
        as_task: bool = False,
        logs: LogSink | None = None,
    ) -> mcp_types.CallToolResult:
        """Call a tool; its result as the server sent it. The server's progress reports
        go to ``progress`` (and to the ``tooldeck.mcp`` logger, as always); ``as_task``:
        run it as an MCP task (`tooldeck.mcp._tasks`), within the same bound; its log
        messages go on to ``logs`` too (see `on_log`).

        Raises:
            RemoteFailure: The server did not answer (in time).
        """
        work = self._call(name, arguments, progress, as_task, logs)
        return await self._bounded(work, f"answer a call of {name!r}")

    async def aclose(self, *, hurry: bool = False) -> None:
        """Close the session and wait until what it started has stopped.

        Args:
            hurry: The server failed us (a failed import): it gets `HURRY` seconds to
                exit at each step of its stop, not the SDK's 2 s.
        """
        opening, self._opening = self._opening, None
        if opening is not None and not opening.done():
            opening.cancel()
        client, self._client = self._client, None
        if client is not None:
            self._close_later(client, self._mark, HURRY if hurry else _GRACE)
        if opening is not None:
            await asyncio.wait([opening])  # its own cleanup is started in `_open`
        if self._closing:
            await asyncio.wait(list(self._closing))

    # -- opening ----------------------------------------------------------------------------

    async def _connected(self) -> fastmcp.Client[Any]:
        if self._pid != os.getpid():
            # Forked: the parent's session lives on a loop this process does not run.
            self._client, self._opening, self._closing = None, None, set()
            self._calls = []
            self._pid = os.getpid()
        client = self._client
        if client is not None:
            return client
        opening = self._opening
        if opening is None or opening.done():
            opening = self._opening = asyncio.ensure_future(self._open())
        # Shielded: one caller giving up does not stop the opening others wait for.
        return await asyncio.shield(opening)

    async def _open(self) -> fastmcp.Client[Any]:
        from ._transports import Refusals, new_client, starts_processes

        self.refusals = Refusals()  # what this opening's HTTP answers say, afresh
        mark = _processes.new_mark()
        client = new_client(self.transport, self.server, self.refusals, mark, self.on_log)
        mark = mark if starts_processes(client) else ""  # nothing to look for otherwise
        statuses: list[int] = []
        HTTP_STATUSES.set(statuses)  # (this task's own context: the opening's answers)
        try:
            await self._bounded(client.__aenter__(), "open a session")  # type: ignore[no-untyped-call]
        except BaseException as exc:
            self._close_later(client, mark, HURRY)  # stops a server process it may have started
            if isinstance(exc, Exception) and not isinstance(exc, RemoteFailure):
                raise self._failure("open a session", exc, statuses) from exc
            raise
        self._client, self._mark = client, mark
        return client

    # -- the requests ---------------------------------------------------------------------

    async def _list_tools(self) -> tuple[list[mcp_types.Tool], list[tuple[str, str]]]:
        client = await self._connected()
        try:
            tools = await client.list_tools()
        except Exception as exc:
            await self._after_failure(client, _PING_LIMIT)
            raise self._failure("list its tools", exc, []) from exc
        rejected = list(getattr(client.session, "rejected", []))
        return tools, rejected

    async def _call(
        self,
        name: str,
        arguments: dict[str, Any],
        progress: Progress | None,
        as_task: bool,
        logs: LogSink | None,
    ) -> mcp_types.CallToolResult:
        from ._tasks import call_as_task
        from ._transports import GatewaySession, progress_handler

        client = await self._connected()
        refusals = self.refusals
        before = refusals.count
        # None: the client's own handler (it logs); else one that logs and passes on.
        handler = None if progress is None else progress_handler(self.server, progress)
        call = _Call(self, logs)
        self._calls.append(call)
        marked = _CALL.set(call)  # after `_connected`: the session's own tasks carry none
        statuses: list[int] = []
        counted = HTTP_STATUSES.set(statuses)  # this call's HTTP answers (its POSTs' context)
        try:
            session = client.session
            if as_task and isinstance(session, GatewaySession):  # (it always is: `new_client`)
                return await call_as_task(session, name, arguments, self.timeout)
            return await client.call_tool_mcp(
                name, arguments, progress_handler=handler, meta=trace_meta()
            )
        except Exception as exc:
            await self._after_failure(client, _PING_LIMIT)
            if refusals.count > before:  # a token expired or rotated since the import
                raise RemoteFailure(
                    f"failed to answer a call of {name!r}: {refusals.describe()}",
                    server=self.server,
                ) from exc
            raise self._failure(f"answer a call of {name!r}", exc, statuses) from exc
        finally:
            HTTP_STATUSES.reset(counted)
            _CALL.reset(marked)
            call.ended = True
            self._calls.remove(call)

    async def _bounded(self, work: Awaitable[T], what: str) -> T:
        if self.timeout is None:
            return await work
        client = self._client
        try:
            return await with_timeout(work, self.timeout)
        except CallTimeout:
            if client is not None:
                await self._after_failure(client, PING_GRACE)
            raise RemoteTimeout(
                f"did not {what} within {self.timeout:g} seconds", server=self.server
            ) from None

    def _failure(self, what: str, exc: BaseException, statuses: list[int]) -> RemoteFailure:
        """The failure ``exc`` makes: a `RemoteUnreachable` or a `RemoteTimeout` when the
        transport failed (`failure_kind`), so `Retry` can match it."""
        text = self.redact(str(exc).strip())  # a library's words may quote a secret
        reason = text.splitlines()[0] if text else type(exc).__name__
        kind = failure_kind(exc, statuses)
        if kind is RemoteTimeout:
            return RemoteTimeout(f"failed to {what}: {reason}", server=self.server)
        return kind(f"failed to {what}: {reason}", server=self.server)

    # -- failures and closing ---------------------------------------------------------------

    async def _after_failure(self, client: fastmcp.Client[Any], budget: float) -> None:
        """Keep the session if its server still answers a ping, else drop it.

        A failed call may be the server's fault (a result it cannot build) on a healthy
        session that other calls share: only a session that cannot answer is dropped,
        and its server stopped in a hurry: the failure waits `_DROP_WAIT` seconds at
        most for that (a frozen server is killed at once), the rest goes on after.
        """
        if self._client is not client or await _answers(client, budget):
            return
        logger.debug("MCP server %s stopped answering: its session is dropped", self.server)
        self._client, self._opening = None, None
        stopping = self._close_later(client, self._mark, HURRY)
        await asyncio.wait([stopping], timeout=_DROP_WAIT)

    def _close_later(
        self, client: fastmcp.Client[Any], mark: str, grace: float
    ) -> asyncio.Task[None]:
        task = asyncio.ensure_future(_stop(client, mark, grace))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)
        _loop.track(task)  # waited for at exit too
        return task


async def _answers(client: fastmcp.Client[Any], budget: float) -> bool:
    """Whether the server at the other end of ``client`` still answers."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    try:
        await with_timeout(client.ping(), budget)
    except MCPError as exc:
        # An error *answer* is a sign of life: servers of the stateless 2026 protocol
        # era answer `ping` with "method not found".
        return exc.code != CONNECTION_CLOSED
    except Exception:
        return False
    return True


async def _stop(client: fastmcp.Client[Any], mark: str, grace: float) -> None:
    """Close a client and stop the server processes it started (``mark`` on them),
    giving each ``grace`` seconds to exit after its stdin closes, then after SIGTERM
    (none to one that is frozen: see `tooldeck.mcp._processes`)."""
    closing = asyncio.ensure_future(_quietly_close(client))
    try:
        await _processes.stop(mark, closing, grace)
    except Exception:
        logger.debug("stopping an MCP server process failed", exc_info=True)
    await asyncio.wait([closing])


async def _quietly_close(client: fastmcp.Client[Any]) -> None:
    """Close a client and its transport; what fails here is not news.

    Closing a session whose server is gone fails too (an HTTP client sends a final
    DELETE). The transport is closed even then: for stdio that stops the server process
    (fastmcp keeps it alive between sessions otherwise).
    """
    try:
        await client.close()  # type: ignore[no-untyped-call]
    except Exception:
        logger.debug("closing an MCP session failed", exc_info=True)
    try:
        await client.transport.close()
    except Exception:
        logger.debug("closing an MCP transport failed", exc_info=True)


def trace_meta() -> dict[str, Any] | None:
    """The current span's W3C trace context (``traceparent``, ``tracestate``) for a
    request's ``_meta``, so the server's spans join the caller's trace; None without one.

    (The MCP SDK 2.x adds the same today, as fastmcp's client does unless its telemetry
    is off; a gateway's trace does not depend on either.)
    """
    global _w3c
    if _w3c is None:
        try:
            from opentelemetry.trace.propagation.tracecontext import (
                TraceContextTextMapPropagator,
            )
        except ImportError:  # (the MCP SDK requires it; never fail a call over tracing)
            return None
        _w3c = TraceContextTextMapPropagator()
    carrier: dict[str, Any] = {}
    _w3c.inject(carrier)  # (W3C, whatever propagators the application set for HTTP)
    return carrier or None


_w3c: Any = None  # the W3C propagator, made on the first call

"""A served call stops when its HTTP client goes away.

A client that cancels a request sends ``notifications/cancelled``, and the MCP SDK
cancels the request's handler: an async tool sees ``CancelledError`` (a sync tool's
thread is abandoned, as on a timeout). A client that drops its HTTP connection sends
nothing. Served statelessly, the request's handler dies with the connection; served
with sessions, the MCP SDK (``StreamableHTTPServerTransport``) only closes the
request's event stream and lets the handler run on to a result nobody will read —
with no event store (tooldeck configures none) the client can never resume that
stream, so the call is wasted work, and a tool that runs for minutes holds its
resources for minutes.

`WatchDisconnect` (ASGI middleware) notes an ``http.disconnect`` of each HTTP request
in its scope; `until_disconnected` runs a served call and cancels it when the request
that carried it is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["SCOPE_KEY", "WatchDisconnect", "until_disconnected"]

T = TypeVar("T")

SCOPE_KEY = "tooldeck.disconnected"  # the scope's event, set when the client is gone


class WatchDisconnect:
    """ASGI middleware: ``scope[SCOPE_KEY]`` is an event set on ``http.disconnect``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        gone = scope[SCOPE_KEY] = asyncio.Event()

        async def watched() -> Message:
            message = await receive()
            if message.get("type") == "http.disconnect":
                gone.set()
            return message

        await self.app(scope, watched, send)


def _disconnected() -> asyncio.Event | None:
    """The event of the HTTP request the current served call came in, if any."""
    from fastmcp.server.dependencies import get_context

    try:
        request = get_context().request_context
    except Exception:  # no request (called outside a server): nothing to watch
        return None
    http = getattr(request, "request", None) if request is not None else None
    scope = getattr(http, "scope", None)
    event = scope.get(SCOPE_KEY) if isinstance(scope, dict) else None
    return event if isinstance(event, asyncio.Event) else None


async def until_disconnected(work: Coroutine[Any, Any, T], gone_answer: T) -> T:
    """Await ``work``; when the HTTP request it serves is dropped first, cancel it and
    return ``gone_answer`` (which nobody reads: the client has gone)."""
    gone = _disconnected()
    if gone is None:
        return await work
    call = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(gone.wait())
    try:
        await asyncio.wait([call, watch], return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not call.done():  # the client went away, or this request was cancelled
            call.cancel()
            with contextlib.suppress(BaseException):
                await call
        watch.cancel()
    if call.cancelled():
        return gone_answer
    return call.result()

"""Why an MCP server did not answer, as an exception `Retry` can match.

A request that never reached its server, or whose answer never came back, is a
*transport* failure: worth another attempt. It is a `RemoteUnreachable`, a
``ConnectionError`` (the connection refused, reset or closed; an HTTP 502 or 503 from
the server or a proxy in front of it; any transport error of httpx), or a
`RemoteTimeout`, a ``TimeoutError`` (the ``timeout`` of ``use_mcp`` fired, an httpx
timeout, an HTTP 504). Anything else the server said (a JSON-RPC error answer, a 4xx
status, a result that breaks the output schema) is a plain `RemoteFailure`: the same
request would fail the same. A tool's own error answer (``isError``) is no failure here
at all: the server answered.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Iterable

__all__ = [
    "HTTP_STATUSES",
    "RemoteFailure",
    "RemoteTimeout",
    "RemoteUnreachable",
    "failure_kind",
]

# The HTTP statuses of the answers to the request in flight in this context (set around
# each call and each opening by `tooldeck.mcp._session`, appended to by the HTTP clients'
# response hook): the MCP SDK turns any 5xx into one "Server returned an error response".
HTTP_STATUSES: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "tooldeck_mcp_http_statuses", default=None
)

_UNAVAILABLE = frozenset({502, 503})  # a gateway or server down for a moment
_GATEWAY_TIMEOUT = 504
_CHAIN_DEPTH = 16  # causes followed at most (a chain may be long, or loop)


class RemoteFailure(Exception):
    """A request its server did not answer: a transport or protocol failure, a timeout.

    ``str()`` names the server and says what happened.

    Attributes:
        server: The server, as `describe` names it (``None``: the failure is local):
            never a command line, a secret or a local path.
        reason: What happened (``"did not answer ... within 3 seconds"``).
        timed_out: Whether the timeout fired.
    """

    def __init__(self, reason: str, *, server: str | None = None, timed_out: bool = False) -> None:
        super().__init__(reason if server is None else f"MCP server {server} {reason}")
        self.server = server
        self.reason = reason
        self.timed_out = timed_out

    def __str__(self) -> str:  # (OSError, a base of the two below, formats its args)
        return str(self.args[0])


class RemoteUnreachable(RemoteFailure, ConnectionError):
    """The request did not reach its server, or its answer did not come back."""


class RemoteTimeout(RemoteFailure, TimeoutError):
    """The server did not answer in time."""

    def __init__(self, reason: str, *, server: str | None = None) -> None:
        super().__init__(reason, server=server, timed_out=True)


def failure_kind(exc: BaseException, statuses: Iterable[int] = ()) -> type[RemoteFailure]:
    """The class of the failure ``exc`` (what the MCP client raised) makes, given the HTTP
    ``statuses`` the request was answered with.

    The first exception in its chain (``__cause__``, else ``__context__``) that says
    what happened decides: a JSON-RPC error the server answered with is the server
    speaking (a plain `RemoteFailure`), unless it is the SDK's word for a lost
    connection.
    """
    for status in statuses:
        if status in _UNAVAILABLE:
            return RemoteUnreachable
        if status == _GATEWAY_TIMEOUT:
            return RemoteTimeout
    seen: BaseException | None = exc
    for _ in range(_CHAIN_DEPTH):
        if seen is None:
            break
        kind = _kind_of(seen)
        if kind is not None:
            return kind
        seen = seen.__cause__ or seen.__context__
    return RemoteFailure


def _kind_of(exc: BaseException) -> type[RemoteFailure] | None:
    """What ``exc`` alone says: a timeout, a lost connection, the server speaking
    (`RemoteFailure`), or nothing (None: its cause may say)."""
    if isinstance(exc, RemoteFailure):
        return type(exc)
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):  # (two classes before 3.11)
        return RemoteTimeout
    if isinstance(exc, ConnectionError):
        return RemoteUnreachable
    for kind in type(exc).__mro__:  # httpx's and httpx2's errors, by name: no import
        module, name = kind.__module__.partition(".")[0], kind.__name__
        if module in ("httpx", "httpx2", "httpcore", "httpcore2"):
            if name in ("TimeoutException", "TimeoutError"):
                return RemoteTimeout
            if name in ("TransportError", "NetworkError", "ProtocolError"):
                return RemoteUnreachable
        elif module == "anyio" and name in (
            "BrokenResourceError",
            "ClosedResourceError",
            "EndOfStream",
        ):
            return RemoteUnreachable
        elif module == "mcp" and name == "MCPError":
            code = getattr(exc, "code", None)
            return RemoteUnreachable if code == _CONNECTION_CLOSED else RemoteFailure
    return None


_CONNECTION_CLOSED = -32000  # mcp_types.CONNECTION_CLOSED (not imported: it is heavy)

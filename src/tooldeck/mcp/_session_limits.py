"""How many stateful HTTP sessions each client may hold, and for how long idle.

The MCP SDK's session manager holds at most 10,000 sessions for the whole server and
answers ``503`` to any request that would open one more; an idle session lives 30
minutes. So one client with a valid token could open 10,000 sessions in a minute and
shut every other client out for half an hour. `SessionLimits` (ASGI middleware, after
the token check) caps each client's sessions instead:

* a client is who its bearer token says (``client_id``, from tooldeck's tokens or an
  auth provider), else the address the request came from;
* a request that would open a session beyond the client's cap gets ``429`` and a
  JSON-RPC error body naming the limit, with ``Retry-After``; other clients, and the
  client's open sessions, are not affected;
* a session is counted from the answer that opened it (its ``mcp-session-id``) until it
  is deleted (``DELETE``), answered ``404`` (gone), or idle — no request in flight —
  for ``session_idle_timeout`` seconds, the same timeout the session manager reaps it
  after.

``stateless=True`` keeps no sessions at all, so none of this applies there.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._auth import send_error

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_MAX_SESSIONS_PER_CLIENT",
    "SessionLimits",
    "check_limits",
]

DEFAULT_MAX_SESSIONS_PER_CLIENT = 100
DEFAULT_IDLE_TIMEOUT = 30 * 60.0  # the MCP SDK's own default
_SESSION_HEADER = b"mcp-session-id"


def check_limits(max_sessions_per_client: Any, session_idle_timeout: Any) -> tuple[int, float]:
    """The limits to use: defaults for ``None``, the values checked otherwise.

    Raises:
        ValueError: A cap that is not a positive integer, or a timeout that is not a
            positive, finite number of seconds.
    """
    cap = DEFAULT_MAX_SESSIONS_PER_CLIENT if max_sessions_per_client is None else None
    if cap is None:
        cap = max_sessions_per_client
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise ValueError(f"max_sessions_per_client must be a positive integer, got {cap!r}")
    idle = DEFAULT_IDLE_TIMEOUT if session_idle_timeout is None else session_idle_timeout
    if (
        isinstance(idle, bool)
        or not isinstance(idle, (int, float))
        or not math.isfinite(idle)
        or idle <= 0
    ):
        raise ValueError(f"session_idle_timeout must be a positive number of seconds, got {idle!r}")
    return cap, float(idle)


@dataclass
class _Session:
    in_flight: int = 0
    idle_since: float = field(default_factory=time.monotonic)


@dataclass
class _Client:
    sessions: dict[bytes, _Session] = field(default_factory=dict)
    opening: int = 0  # requests that may open a session, answer not yet sent


class SessionLimits:
    """ASGI middleware: at most ``cap`` open sessions per client (module docstring)."""

    def __init__(self, app: ASGIApp, cap: int, idle_timeout: float) -> None:
        self.app = app
        self.cap = cap
        self.idle_timeout = idle_timeout
        self.clients: dict[str, _Client] = {}
        self._next_sweep = time.monotonic() + idle_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self._sweep()
        who = _client_key(scope)
        client = self.clients.setdefault(who, _Client())
        self._expire(client)
        session_id = _header(scope, _SESSION_HEADER)
        if session_id is None and not _opens_no_session(scope):
            await self._open(who, client, scope, receive, send)
        elif session_id is None:
            await self.app(scope, receive, send)
        else:
            await self._use(who, client, session_id, scope, receive, send)

    async def _open(
        self, who: str, client: _Client, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """A request without a session id: it opens one if it succeeds."""
        if len(client.sessions) + client.opening >= self.cap:
            await _too_many(send, self.cap, self._retry_after(client))
            self._forget_if_empty(who, client)
            return
        client.opening += 1  # reserved now: concurrent opening requests count too
        reserved = True
        opened: bytes | None = None

        async def watch(message: Message) -> None:
            nonlocal reserved, opened
            if message["type"] == "http.response.start" and reserved:
                reserved = False
                client.opening -= 1
                new_id = _response_header(message, _SESSION_HEADER)
                if message["status"] < 400 and new_id is not None:
                    client.sessions[new_id] = _Session(in_flight=1)
                    opened = new_id
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if reserved:  # no answer was sent: nothing was opened
                client.opening -= 1
            if opened is not None:
                self._finished(client, opened)
            self._forget_if_empty(who, client)

    async def _use(
        self,
        who: str,
        client: _Client,
        session_id: bytes,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        """A request in a session: the session is busy until it is answered."""
        session = client.sessions.get(session_id)
        if session is not None:
            session.in_flight += 1
        status: list[int] = []

        async def watch(message: Message) -> None:
            nonlocal client, session
            if message["type"] == "http.response.start":
                status.append(message["status"])
                if session is None and message["status"] < 400:
                    # Expired here a moment before the manager reaped it, and used again
                    # in time: it lives on, so it counts again (under the client's entry,
                    # put back if another request found it empty and dropped it).
                    client = self.clients.setdefault(who, client)
                    session = client.sessions.setdefault(session_id, _Session())
                    session.in_flight += 1
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if session is not None:
                self._finished(client, session_id)
            answered = status[0] if status else None
            deleted = scope.get("method") == "DELETE" and answered is not None and answered < 400
            if answered == 404 or deleted:
                client.sessions.pop(session_id, None)
            self._forget_if_empty(who, client)

    def _finished(self, client: _Client, session_id: bytes) -> None:
        session = client.sessions.get(session_id)
        if session is not None:
            session.in_flight -= 1
            if session.in_flight <= 0:
                session.in_flight = 0
                session.idle_since = time.monotonic()

    def _expire(self, client: _Client) -> None:
        """Forget the client's sessions idle past the timeout (the manager reaps them)."""
        cutoff = time.monotonic() - self.idle_timeout
        for session_id, session in list(client.sessions.items()):
            if session.in_flight == 0 and session.idle_since <= cutoff:
                del client.sessions[session_id]

    def _sweep(self) -> None:
        """Now and then, forget every client's expired sessions (clients that never
        come back would otherwise be remembered for good)."""
        now = time.monotonic()
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.idle_timeout
        for who, client in list(self.clients.items()):
            self._expire(client)
            self._forget_if_empty(who, client)

    def _retry_after(self, client: _Client) -> int:
        """Seconds until the client's first idle session expires (else the timeout)."""
        idle = [s.idle_since for s in client.sessions.values() if s.in_flight == 0]
        wait = min(idle) + self.idle_timeout - time.monotonic() if idle else self.idle_timeout
        return max(1, math.ceil(wait))

    def _forget_if_empty(self, who: str, client: _Client) -> None:
        if not client.sessions and not client.opening and self.clients.get(who) is client:
            del self.clients[who]


def _client_key(scope: Scope) -> str:
    """Who is asking: the token's client id, else the peer address."""
    access = getattr(scope.get("user"), "access_token", None)
    client_id = getattr(access, "client_id", None)
    if isinstance(client_id, str):
        return f"client {client_id}"
    peer = scope.get("client")
    return f"address {peer[0]}" if peer else "address unknown"


def _opens_no_session(scope: Scope) -> bool:
    """A request of the protocol's sessionless era (a ``MCP-Protocol-Version`` that has
    no initialize handshake): the session manager serves it without a session, so it
    neither counts nor is refused."""
    version = _header(scope, b"mcp-protocol-version")
    if version is None:
        return False
    try:
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
    except ImportError:  # an SDK without the sessionless era: every request may open one
        return False
    return version.decode("latin-1") not in HANDSHAKE_PROTOCOL_VERSIONS


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value)
    return None


def _response_header(message: Message, name: bytes) -> bytes | None:
    for key, value in message.get("headers", []):
        if bytes(key).lower() == name:
            return bytes(value)
    return None


async def _too_many(send: Send, cap: int, retry_after: int) -> None:
    message = (
        f"Too many open sessions: this client already holds {cap}, the most one client "
        f"may (max_sessions_per_client={cap}). End one (HTTP DELETE with its "
        "mcp-session-id) or wait for an idle one to expire."
    )
    await send_error(send, 429, -32000, message, (b"retry-after", str(retry_after).encode()))

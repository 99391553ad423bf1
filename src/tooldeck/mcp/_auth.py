"""Who may call: bearer tokens, and the Host/Origin check against DNS rebinding.

* `tokens` reads ``token=`` (a token, or a mapping from token to client id) or the
  ``TOOLDECK_MCP_TOKEN`` environment variable; an empty token is a usage error, never
  "no token".
* `BearerTokens` is the ASGI middleware that enforces them. A request without a valid
  ``Authorization: Bearer <token>`` gets ``401`` with a JSON-RPC error body saying a
  bearer token is required (MCP clients show that text), ``WWW-Authenticate: Bearer
  realm="tooldeck"``, and nothing that sends an MCP client into an OAuth flow: no
  ``resource_metadata``, no OAuth ``error`` code, no ``/.well-known/oauth-*`` document
  (what MCP clients look for before they start one). An accepted request carries the
  token's client id where fastmcp looks for it (`client_id`).
* `guard_options` turns on fastmcp's Host/Origin guard (what the MCP specification
  requires of HTTP servers): loopback names and the address a request arrived on are
  allowed, other ``Host`` names only when listed, and a request whose ``Origin`` is
  neither the server itself nor one of those names is refused (421 for a Host, 403 for
  an Origin).
* `SingleHeaders` refuses (``400``, a JSON-RPC error body) a request that sends twice
  a header whose copies could be read differently along the way: ``Authorization``
  (two credentials: a proxy may have appended one, and whichever one a server or proxy
  reads is a guess), ``Host``, ``Origin``, ``Content-Type``, ``Mcp-Session-Id``,
  ``Mcp-Protocol-Version``, ``Last-Event-ID``. It runs before the token check, so such a
  request never reaches a tool. One ``Authorization`` header carrying two credentials
  joined by a comma (``Bearer a, Bearer b``: what a proxy that merges repeated headers
  sends) is refused alike by `BearerTokens`.
"""

from __future__ import annotations

import hmac
import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import fastmcp
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "TOKEN_ENV",
    "BearerTokens",
    "SingleHeaders",
    "check_auth",
    "client_id",
    "guard_options",
    "send_error",
    "tokens",
]

TOKEN_ENV = "TOOLDECK_MCP_TOKEN"
DEFAULT_CLIENT = "tooldeck"  # the client id of a single token
_MISSING = (
    "this MCP server requires a bearer token: send the header 'Authorization: Bearer <token>'"
)
_WRONG = "the bearer token sent is not valid for this MCP server"
_TWO_CREDENTIALS = (
    "two credentials were sent ({how}); which one counts is ambiguous, so neither does: "
    "send exactly one header 'Authorization: Bearer <token>'"
)
# Headers whose repeats could be read differently by this server and whatever stands
# before it (a proxy, a balancer): the first copy here, the last there.
_SINGLE = {
    name.lower().encode(): name
    for name in (
        "Authorization",
        "Host",
        "Origin",
        "Content-Type",
        "Mcp-Session-Id",
        "MCP-Protocol-Version",
        "Last-Event-ID",
    )
}
# A second credential after a comma: ", <scheme> <credentials>" (how repeated headers
# are merged into one). A token of tooldeck's is never read so when it matches whole.
_SECOND_CREDENTIAL = re.compile(r",[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+[ \t]+\S")


def tokens(token: str | Mapping[str, str] | None) -> dict[str, str]:
    """``{token: client id}`` for ``token=`` (or the environment); ``{}`` for none.

    Raises:
        ValueError: An empty token or client id, a mapping of no tokens, or a token no
            HTTP client can send (outside printable ASCII, or spaces at its ends).
    """
    if token is None:
        token = os.environ.get(TOKEN_ENV)
        if token is None:
            return {}
        if not token:
            raise ValueError(f"{TOKEN_ENV} is set but empty: an empty token is not 'no token'")
        _check_sendable(token, TOKEN_ENV)
    if isinstance(token, str):
        if not token:
            raise ValueError("token is empty: an empty token is not 'no token'; give a real one")
        _check_sendable(token, "token")
        return {token: DEFAULT_CLIENT}
    if not isinstance(token, Mapping) or not token:
        raise ValueError("token must be a str or a non-empty mapping of token to client id")
    for key, client in token.items():
        if not isinstance(client, str) or not client:
            raise ValueError(f"every client id must be a non-empty str, got {client!r}")
        if not isinstance(key, str) or not key:
            raise ValueError("every token must be a non-empty str")
        _check_sendable(key, f"the token of client {client!r}")
    return dict(token)


def check_auth(auth: Any, token: Any) -> Any:
    """``auth=`` as given: ``None``, or a fastmcp auth provider (JWT verification against
    a JWKS, token introspection...), which fastmcp's own middleware enforces.

    Raises:
        TypeError: ``auth`` is not a fastmcp ``AuthProvider``.
        ValueError: Both ``auth`` and ``token`` were given.
    """
    if auth is None:
        return None
    from fastmcp.server.auth import AuthProvider

    if not isinstance(auth, AuthProvider):
        raise TypeError(
            "auth must be a fastmcp auth provider (such as fastmcp.server.auth.providers."
            f"jwt.JWTVerifier), not {type(auth).__name__}; for a static bearer token use token="
        )
    if token is not None:
        raise ValueError(
            "give token= (static bearer tokens) or auth= (a fastmcp auth provider), not both"
        )
    return auth


def _check_sendable(token: str, what: str) -> None:
    """Refuse a token no HTTP client can send as it is.

    A header value is bytes: HTTP clients send only ASCII (httpx refuses anything else;
    others send UTF-8, which the server reads as Latin-1), and they trim whitespace at
    its ends. Such a token would be accepted here and never match.

    Raises:
        ValueError: Naming ``what`` (never the token itself: it is a secret).
    """
    if any(not " " <= char <= "~" for char in token):
        raise ValueError(
            f"{what} has a character outside printable ASCII, which no HTTP client can "
            "send in an Authorization header: use letters, digits and punctuation "
            "(such as the output of 'openssl rand -hex 32')"
        )
    if token != token.strip():
        raise ValueError(
            f"{what} starts or ends with a space, which HTTP clients trim from the "
            "Authorization header: it could never match"
        )


def client_id(context: fastmcp.Context) -> str | None:
    """The client id the request's bearer token maps to (``token=``), or ``None``.

    ``None`` when the request carried no token (stdio, in process, no ``token=``).
    """
    request_context = context.request_context
    request = request_context.request if request_context is not None else None
    user = request.scope.get("user") if request is not None else None
    access = getattr(user, "access_token", None)
    found: object = getattr(access, "client_id", None)
    return found if isinstance(found, str) else None


class BearerTokens:
    """ASGI middleware: let requests with one of the tokens through, answer others 401."""

    def __init__(self, app: ASGIApp, tokens: Mapping[str, str]) -> None:
        from fastmcp.server.auth import AccessToken
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from starlette.authentication import AuthCredentials

        self.app = app
        self.tokens = [(key.encode(), client) for key, client in tokens.items()]
        # How fastmcp's own auth marks a request (what `get_access_token` reads).
        self._access, self._user, self._credentials = (
            AccessToken,
            AuthenticatedUser,
            AuthCredentials,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        credential = _bearer(scope)
        client = self._client_for(credential) if credential is not None else None
        if client is None:
            if credential is not None and _SECOND_CREDENTIAL.search(credential):
                how = "joined by a comma in one 'Authorization' header"
                await _bad_request(send, _TWO_CREDENTIALS.format(how=how))
                return
            await _unauthorized(send, _MISSING if credential is None else _WRONG)
            return
        access = self._access(token=credential or "", client_id=client, scopes=[])
        scope["user"] = self._user(access)
        scope["auth"] = self._credentials([])
        await self.app(scope, receive, send)

    def _client_for(self, credential: str) -> str | None:
        given = credential.encode()
        found = None
        for key, client in self.tokens:  # every token compared: no early exit to time
            if hmac.compare_digest(given, key):
                found = client
        return found


class SingleHeaders:
    """ASGI middleware: answer 400 to a request that repeats a header of `_SINGLE`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            repeated = _repeated(scope)
            if repeated is not None:
                await _bad_request(send, _repeated_text(repeated))
                return
        await self.app(scope, receive, send)


def _repeated(scope: Scope) -> str | None:
    """The name of the first header of `_SINGLE` the request sends more than once."""
    seen: set[bytes] = set()
    for name, _ in scope.get("headers", []):
        key = bytes(name).lower()
        if key in _SINGLE:
            if key in seen:
                return _SINGLE[key]
            seen.add(key)
    return None


def _repeated_text(name: str) -> str:
    if name == "Authorization":
        return _TWO_CREDENTIALS.format(how="two 'Authorization' headers")
    return (
        f"the header '{name}' was sent more than once; copies may be read differently "
        "along the way, so the request is refused: send it once"
    )


async def _bad_request(send: Send, message: str) -> None:
    await send_error(send, 400, -32600, f"Bad Request: {message}")


def _bearer(scope: Scope) -> str | None:
    """The ``Authorization: Bearer <token>`` credential, or ``None``."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            text: str = value.decode("latin-1")
            scheme, _, credential = text.partition(" ")
            if scheme.lower() == "bearer" and credential.strip():
                return credential.strip()
    return None


async def _unauthorized(send: Send, message: str) -> None:
    challenge = (b"www-authenticate", b'Bearer realm="tooldeck"')
    await send_error(send, 401, -32001, f"Unauthorized: {message}", challenge)


async def send_error(
    send: Send, status: int, code: int, message: str, *headers: tuple[bytes, bytes]
) -> None:
    """An HTTP answer whose body is a JSON-RPC error, the way MCP clients read one."""
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    body = json.dumps(error).encode()
    length = (b"content-length", str(len(body)).encode())
    start = [(b"content-type", b"application/json"), length, *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body})


def guard_options(allowed_hosts: Iterable[str] | None) -> dict[str, Any]:
    """fastmcp ``http_app`` options for the Host/Origin guard (see the module docstring).

    Raises:
        ValueError: A host that is not a non-empty str.
    """
    hosts = []
    for host in allowed_hosts or ():
        if not isinstance(host, str) or not host.strip():
            raise ValueError(f"allowed hosts must be non-empty host names, got {host!r}")
        hosts.append(host.strip())
    # A page served from a listed name is the same site: its Origin is allowed too. Not
    # from "*" (any host, for a balancer that checks Host itself): any site is no site.
    origins = [
        f"{scheme}://{_name(host)}:*"
        for host in hosts
        if not set(_name(host)) <= set("*?")
        for scheme in ("http", "https")
    ]
    return {
        "host_origin_protection": True,
        "allowed_hosts": hosts,
        "allowed_origins": origins,
    }


def _name(host: str) -> str:
    """A host pattern without its port, for an origin pattern (fnmatch's syntax)."""
    if host.startswith("["):  # an IPv6 literal: its brackets are literal characters
        return "[[]" + host[1:].partition("]")[0] + "[]]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host

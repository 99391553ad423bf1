"""Serving a registry: ``as_mcp_server``, ``serve`` (stdio or HTTP) and ``http_app``.

Over HTTP the server checks ``Host`` and ``Origin`` (DNS-rebinding protection) and,
given tokens, a bearer token (`tooldeck.mcp._auth`). ``stateless=True`` keeps no
per-client session, so any number of processes can serve one registry behind a load
balancer; ``http_app`` is the same server as an ASGI app, to mount in Starlette or
FastAPI (pass its ``lifespan`` to the parent app) or to run under any ASGI server.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from ._extra import require_fastmcp

if TYPE_CHECKING:
    import fastmcp
    from fastmcp.server.auth import AuthProvider
    from starlette.applications import Starlette

    from tooldeck._base_registry import BaseRegistry as ToolRegistry

__all__ = ["as_mcp_server", "http_app", "serve"]

HTTP_PATH = "/mcp"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
Tags = str | Iterable[str] | None
Match = Literal["any", "all"]
# Values for injected parameters: a mapping, or a callable of the request's context.
ServedContext = Mapping[str, Any] | Callable[[Any], Any] | None
Token = str | Mapping[str, str] | None
# Tools served behind search_tools: True (all), a tag, or names (tooldeck.search._defer).
Defer = bool | str | Iterable[str] | None


def as_mcp_server(
    registry: ToolRegistry,
    *,
    name: str = "tooldeck",
    tags: Tags = None,
    match: Match = "any",
    context: ServedContext = None,
    defer: Defer = None,
) -> fastmcp.FastMCP[Any]:
    """A ``fastmcp.FastMCP`` serving the registry's enabled tools (a live view).

    Each tool is listed with exactly its ``export("mcp")`` entry (input and output
    schemas, description, annotations, tags under ``_meta``) and called through
    tooldeck's pipeline: a failure becomes an MCP error result carrying the message; a
    proxy hands on its server's result unchanged.

    ``context`` gives the tools' injected parameters (`tooldeck.Injected`) their values:
    a mapping, or a callable that receives the request's ``fastmcp.Context`` (its
    headers, the authenticated client: `client_id`) and returns the mapping — called
    per request, so a multi-tenant server derives who is calling.

    ``defer`` (``True``, a tag, or a list of names) leaves those tools out of
    ``tools/list`` and lists a ``search_tools(query)`` tool that finds them; a client
    calls a found tool by its name. A served tool of the registry's own named
    ``search_tools`` is then refused (``ValueError``), as ``export(..., defer=)`` refuses it.
    """
    require_fastmcp()
    from ._provider import new_server

    if match not in ("any", "all"):
        raise ValueError(f"match must be 'any' or 'all', not {match!r}")
    if context is not None and not (isinstance(context, Mapping) or callable(context)):
        raise TypeError(f"context must be a mapping or a callable, not {context!r}")
    if defer is not None and defer is not False:
        from ._search_serving import new_deferring_server

        return new_deferring_server(registry, name, tags, match, context, defer)
    return new_server(registry, name, tags, match, context)


def http_app(
    registry: ToolRegistry,
    *,
    path: str = HTTP_PATH,
    token: Token = None,
    stateless: bool = False,
    allowed_hosts: Iterable[str] | None = None,
    name: str = "tooldeck",
    tags: Tags = None,
    match: Match = "any",
    context: ServedContext = None,
    max_sessions_per_client: int | None = None,
    session_idle_timeout: float | None = None,
    auth: AuthProvider | None = None,
    defer: Defer = None,
) -> Starlette:
    """The registry's MCP server (streamable HTTP at ``path``) as an ASGI app.

    Mount it in a Starlette or FastAPI app with its lifespan
    (``Starlette(routes=[Mount("/tools", app)], lifespan=app.lifespan)``), or run it
    under any ASGI server (``uvicorn module:app --workers 4`` with ``stateless=True``).

    Args:
        registry: The tools to serve (its enabled ones, looked up on every request).
        path: Where the MCP endpoint is, inside the app.
        token: A bearer token clients must send, or a mapping from token to client id
            (default: the ``TOOLDECK_MCP_TOKEN`` environment variable, if set).
        stateless: Keep no per-client session (for several processes behind a load
            balancer).
        allowed_hosts: ``Host`` names to accept besides loopback ones (patterns such as
            ``*.example.com`` work; ``"*"`` turns the check off).
        name: The server name clients see.
        tags: Serve only tools carrying any of these tags.
        match: ``"all"``: only tools carrying all of ``tags``.
        context: Values for injected parameters: a mapping, or a callable of the
            request's ``fastmcp.Context`` returning one (see `as_mcp_server`).
        max_sessions_per_client: The most sessions one client (a token's client id,
            else an address) may hold open at once; one more is refused with HTTP 429
            naming the limit (default: 100). Stateful serving only.
        session_idle_timeout: Seconds after which a session with no request in flight
            is closed (default: 1800). Stateful serving only.
        auth: A fastmcp auth provider instead of ``token``: say,
            ``fastmcp.server.auth.providers.jwt.JWTVerifier(jwks_uri=..., issuer=...,
            audience=...)`` (an OAuth resource server, as the MCP authorization spec
            expects). A request it refuses gets 401; the context callable reads the
            verified token with ``fastmcp.server.dependencies.get_access_token()``.
        defer: Tools to leave out of ``tools/list``, found by ``search_tools`` (see
            `as_mcp_server`).

    Raises:
        ValueError: An empty token, an allowed host that is not a name, a session limit
            that is not a positive number, or one given with ``stateless=True``; both
            ``token`` and ``auth``.
        TypeError: ``auth`` is not a fastmcp auth provider.
    """
    require_fastmcp()
    options = _http_options(
        token, stateless, allowed_hosts, max_sessions_per_client, session_idle_timeout, auth
    )
    server = as_mcp_server(
        registry, name=name, tags=tags, match=match, context=context, defer=defer
    )
    server.auth = auth
    return server.http_app(path=path, **options)


def serve(
    registry: ToolRegistry,
    *,
    transport: str = "stdio",
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    token: Token = None,
    name: str = "tooldeck",
    tags: Tags = None,
    match: Match = "any",
    stateless: bool = False,
    allowed_hosts: Iterable[str] | None = None,
    context: ServedContext = None,
    max_sessions_per_client: int | None = None,
    session_idle_timeout: float | None = None,
    auth: AuthProvider | None = None,
    defer: Defer = None,
) -> None:
    """Serve the registry over MCP until interrupted.

    Args:
        registry: The tools to serve (its enabled ones, looked up on every request).
        transport: ``"stdio"`` or ``"http"`` (streamable HTTP at ``/mcp``).
        host: The HTTP interface; loopback unless told otherwise.
        port: The HTTP port.
        token: HTTP only: a bearer token, or a mapping from token to client id
            (default: the ``TOOLDECK_MCP_TOKEN`` environment variable, if set).
        name: The server name clients see.
        tags: Serve only tools carrying any of these tags.
        match: ``"all"``: only tools carrying all of ``tags``.
        stateless: HTTP only: keep no per-client session (see `http_app`).
        allowed_hosts: HTTP only: ``Host`` names to accept besides loopback ones.
        context: Values for injected parameters (see `as_mcp_server`).
        max_sessions_per_client: HTTP only: the most sessions one client may hold open
            (default: 100; see `http_app`).
        session_idle_timeout: HTTP only: seconds before an idle session is closed
            (default: 1800).
        auth: HTTP only: a fastmcp auth provider instead of ``token`` (see `http_app`).
        defer: Tools to leave out of ``tools/list``, found by ``search_tools`` (see
            `as_mcp_server`).

    Raises:
        ValueError: A usage mistake (unknown transport, a port out of range, an empty
            token, a session limit with ``stateless=True``, an HTTP-only option with
            stdio).
        OSError: The port cannot be listened on (say, it is in use).
    """
    if transport not in ("stdio", "http"):
        raise ValueError(f"unknown MCP transport {transport!r}; use 'stdio' or 'http'")
    if transport == "stdio":
        _serve_stdio(
            registry,
            name=name,
            tags=tags,
            match=match,
            context=context,
            defer=defer,
            # A host or port other than the defaults was asked for: HTTP-only too.
            host=None if host == DEFAULT_HOST else host,
            port=None if port == DEFAULT_PORT else port,
            token=token,
            stateless=stateless,
            allowed_hosts=allowed_hosts,
            max_sessions_per_client=max_sessions_per_client,
            session_idle_timeout=session_idle_timeout,
            auth=auth,
        )
        return
    _check_port(port)
    hosts = [*(allowed_hosts or ()), *_named(host)]
    options = _http_options(
        token, stateless, hosts, max_sessions_per_client, session_idle_timeout, auth
    )
    if auth is None and not _checks_tokens(options) and not _is_loopback(host):
        _warn(f"serving MCP on {host} without a token: anyone who can reach it may call")
    server = as_mcp_server(
        registry, name=name, tags=tags, match=match, context=context, defer=defer
    )
    server.auth = auth
    listener = _listen(host, port)
    _run_uvicorn(server.http_app(path=HTTP_PATH, **options), listener)


def _run_uvicorn(app: Starlette, listener: socket.socket) -> None:
    """What ``FastMCP.run(transport="http")`` does, for an app built here: its
    ``run_http_async`` has no ``session_idle_timeout`` to hand on to ``http_app``."""
    import fastmcp
    import uvicorn

    level = str(fastmcp.settings.log_level).lower()
    # The plain asyncio loop, as FastMCP.run has (uvicorn would pick uvloop if installed).
    config = uvicorn.Config(
        app, loop="asyncio", lifespan="on", timeout_graceful_shutdown=2, log_level=level
    )
    uvicorn.Server(config).run(sockets=[listener])


def _serve_stdio(
    registry: ToolRegistry,
    *,
    name: str,
    tags: Tags,
    match: Match,
    context: ServedContext,
    defer: Defer,
    **http_only: Any,
) -> None:
    given = [key for key, value in http_only.items() if value is not None and value is not False]
    if given:
        options = "an HTTP-only option" if len(given) == 1 else "HTTP-only options"
        raise ValueError(
            f"{', '.join(given)}: {options}; stdio serves the one client that started the "
            "process (use transport='http')"
        )
    server = as_mcp_server(
        registry, name=name, tags=tags, match=match, context=context, defer=defer
    )
    server.run(transport="stdio", show_banner=False)


def _http_options(
    token: Token,
    stateless: bool,
    allowed_hosts: Iterable[str] | None,
    max_sessions_per_client: int | None,
    session_idle_timeout: float | None,
    auth: Any = None,
) -> dict[str, Any]:
    from starlette.middleware import Middleware

    from ._auth import BearerTokens, SingleHeaders, check_auth, guard_options, tokens
    from ._cancel import WatchDisconnect
    from ._session_limits import SessionLimits, check_limits

    # A provider checks credentials itself (the environment's token is not read then).
    accepted = tokens(token) if check_auth(auth, token) is None else {}
    cap, idle = check_limits(max_sessions_per_client, session_idle_timeout)
    # Repeated headers first: a request with two credentials is refused as such.
    middleware = [Middleware(SingleHeaders)]
    if accepted:
        middleware.append(Middleware(BearerTokens, tokens=accepted))
    middleware.append(Middleware(WatchDisconnect))  # a dropped client cancels its calls
    options: dict[str, Any] = {"stateless_http": bool(stateless)}
    if stateless:
        limits = [
            ("max_sessions_per_client", max_sessions_per_client),
            ("session_idle_timeout", session_idle_timeout),
        ]
        given = [key for key, value in limits if value is not None]
        if given:
            raise ValueError(f"{', '.join(given)}: stateless serving keeps no sessions to limit")
    else:
        # After the token check, so the cap is per client id; the session manager reaps
        # idle sessions after the same timeout as the cap forgets them.
        middleware.append(Middleware(SessionLimits, cap=cap, idle_timeout=idle))
        options["session_idle_timeout"] = idle
    return {"middleware": middleware, **options, **guard_options(allowed_hosts)}


def _warn(message: str) -> None:
    """A ``UserWarning`` pointing at the caller's line, outside tooldeck's own code."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame, level = sys._getframe(1), 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, UserWarning, stacklevel=level)


def _checks_tokens(options: Mapping[str, Any]) -> bool:
    from ._auth import BearerTokens

    return any(entry.cls is BearerTokens for entry in options["middleware"])


def _check_port(port: Any) -> None:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an integer from 0 to 65535, got {port!r}")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _named(host: str) -> list[str]:
    """The bound host, when it is a name clients may use (not ``0.0.0.0`` or ``::``)."""
    try:
        return [] if ipaddress.ip_address(host).is_unspecified else [host]
    except ValueError:
        return [host]


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (bound here, so a port in use is a clear error).

    Raises:
        OSError: The address cannot be bound.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        listener = socket.socket(family, kind, proto)
    except OSError as exc:
        raise OSError(f"cannot serve MCP on {host}:{port}: {exc.strerror or exc}") from exc
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
    except OSError as exc:
        listener.close()
        raise OSError(f"cannot serve MCP on {host}:{port}: {exc.strerror or exc}") from exc
    return listener

"""Reaching a server: a ``fastmcp.Client`` for whatever ``use_mcp`` was given.

* ``describe`` names a server the way messages show it (its URL without credentials
  or query, its command's base name...), and ``redactor`` takes the rest of what
  could be secret (a command line, a token) out of an exception's text.
* ``new_client`` builds the client: the server's notifications (logs, progress) go to
  the ``tooldeck.mcp`` logger; HTTP answers 401 and 403 are recorded, so a refused
  credential can be named instead of surfacing as "Server returned an error response";
  and the session is a `GatewaySession`.
* `GatewaySession` is the MCP SDK's ``ClientSession`` with two changes a gateway
  needs: one tool with a schema the SDK refuses does not fail the whole listing (the
  others are kept, the refused ones noted in ``rejected``); and results are not
  checked against the output schema here (the proxy checks them, and reports a
  mismatch as its own failure rather than an exception in the client).

This module imports fastmcp at the top: `tooldeck.mcp._session` imports it lazily.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import logging
import re
import urllib.parse
from collections.abc import Callable, Mapping
from pathlib import PurePath
from typing import Any

import httpx2
import mcp_types as types
from fastmcp import Client, FastMCP
from fastmcp.client.logging import create_log_callback, default_log_handler
from fastmcp.client.progress import ProgressHandler
from fastmcp.client.transports import (
    ClientTransport,
    FastMCPTransport,
    SSETransport,
    StdioTransport,
    StreamableHttpTransport,
)
from fastmcp.client.transports.base import TransportOptions
from fastmcp.client.transports.config import MCPConfigTransport
from fastmcp.client.transports.inference import infer_transport
from mcp import ClientSession
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.dispatcher import CallOptions
from mcp_types import methods
from pydantic import ValidationError

from ._extra import logger
from ._failures import HTTP_STATUSES
from ._processes import mark_env

__all__ = [
    "GatewaySession",
    "Refusals",
    "describe",
    "new_client",
    "progress_handler",
    "redactor",
    "safe_url",
    "starts_processes",
]

# MCP logging levels (RFC 5424's) → Python's.
_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}


def describe(transport: Any) -> str:
    """How messages name a server: never a command line, a secret or a local path.

    Its URL without credentials, query or fragment; its command's base name (and its
    script's, ``python server.py``); its in-process or configured MCP name. What a
    message shows reaches models and every client of a gateway.
    """
    if isinstance(transport, Client):
        return describe(transport.transport)
    if isinstance(transport, str) and "://" in transport:
        return safe_url(transport)
    if isinstance(transport, (str, PurePath)):
        return PurePath(transport).name or "a local script"
    if isinstance(transport, (StreamableHttpTransport, SSETransport)):
        return safe_url(transport.url)
    if isinstance(transport, StdioTransport):
        script = next((a for a in transport.args if a.endswith(_SCRIPT_SUFFIXES)), None)
        return " ".join(PurePath(part).name for part in (transport.command, script) if part)
    if isinstance(transport, FastMCP):
        return f"in-process server {transport.name!r}"
    if isinstance(transport, FastMCPTransport):
        return f"in-process server {transport.server.name!r}"
    if isinstance(transport, Mapping):
        servers = transport.get("mcpServers")
        names = ", ".join(map(str, servers)) if isinstance(servers, Mapping) else "?"
        return f"MCP config ({names})"
    return f"over {type(transport).__name__}"  # its repr may hold anything


_SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".rb", ".jar")
# Anything that looks like a URL inside some other text (an exception's message).
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")


def _command_secrets(command: str, args: Any, env: Any, cwd: Any) -> list[tuple[Any, str]]:
    """A command line's parts (and the local directory it runs in), each with what a
    message shows instead."""
    hidden: list[tuple[Any, str]] = [(command, PurePath(command).name)]
    if isinstance(cwd, (str, PurePath)):  # an OS error quotes a directory it cannot enter
        hidden.append((str(cwd), "…"))
    hidden += [(arg, "…") for arg in (args if isinstance(args, list) else ())]
    hidden += [(value, "…") for value in (env.values() if isinstance(env, Mapping) else ())]
    return hidden


def safe_url(url: str) -> str:
    """``url`` without its credentials, query string and fragment."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        return "(a URL that does not parse)"
    host = parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def redactor(transport: Any) -> Callable[[str], str]:
    """A function that takes what could be secret about ``transport`` out of a text
    (an exception's message): URLs lose credentials and query, a command line and its
    arguments, its working directory, headers and environment values are cut out."""
    hidden: list[tuple[str, str]] = []
    inner = transport.transport if isinstance(transport, Client) else transport
    if isinstance(inner, (str, PurePath)) and "://" not in str(inner):
        hidden.append((str(inner), describe(inner)))
    if isinstance(inner, StdioTransport):
        hidden += _command_secrets(inner.command, inner.args, inner.env, inner.cwd)
    if isinstance(inner, (StreamableHttpTransport, SSETransport)):
        hidden += [(value, "…") for value in (inner.headers or {}).values()]
    servers = inner.get("mcpServers") if isinstance(inner, Mapping) else None
    for entry in servers.values() if isinstance(servers, Mapping) else ():
        if isinstance(entry, Mapping):  # an MCP config: each server's command and headers
            command, args = entry.get("command"), entry.get("args")
            if isinstance(command, str):
                hidden += _command_secrets(command, args, entry.get("env"), entry.get("cwd"))
            headers = entry.get("headers")
            hidden += [(v, "…") for v in (headers.values() if isinstance(headers, Mapping) else ())]
    # Longest first, so a part of a longer secret never leaves the rest behind; very
    # short ones ("-y", "1") would only mangle the text.
    pairs = sorted(
        ((s, r) for s, r in hidden if isinstance(s, str) and len(s) >= 4 and s != r),
        key=lambda pair: -len(pair[0]),
    )

    def redact(text: str) -> str:
        for secret, shown in pairs:
            text = text.replace(secret, shown)
        return _URL.sub(lambda found: safe_url(found.group()), text)

    return redact


class Refusals:
    """The last HTTP 401 or 403 a session's server answered (an httpx response hook)."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.url = ""
        self.detail = ""
        self.sent_credentials = False
        self.count = 0  # refusals so far: a request can tell whether one came meanwhile

    def describe(self) -> str:
        """``it answered HTTP 401 Unauthorized: <whose fault>`` (once one was recorded)."""
        what = "Unauthorized" if self.status == 401 else "Forbidden"
        sent = (
            "the credentials sent were refused"
            if self.sent_credentials
            else "it wants credentials (a bearer token) and none were sent"
        )
        return f"it answered HTTP {self.status} {what}: {sent}"

    async def record(self, response: httpx2.Response) -> None:
        status = response.status_code
        if status >= 500:  # told to the request in flight here (`tooldeck.mcp._failures`)
            statuses = HTTP_STATUSES.get()
            if statuses is not None and len(statuses) < 8:  # (a stream's: a few do)
                statuses.append(status)
            return
        if status not in (401, 403):
            return
        self.count += 1
        self.status = response.status_code
        self.url = safe_url(str(response.url))
        self.sent_credentials = "authorization" in response.request.headers
        self.detail = response.headers.get("www-authenticate", "")

    def wrap(self, inner: Callable[..., httpx2.AsyncClient] | None) -> Callable[..., Any]:
        """An httpx client factory that makes ``inner``'s clients report to us."""

        def factory(**kwargs: Any) -> httpx2.AsyncClient:
            if inner is None:
                # The MCP SDK's own factory takes no `follow_redirects` (its transports
                # follow same-origin redirects themselves).
                kwargs.pop("follow_redirects", None)
                client = create_mcp_http_client(**kwargs)
            else:
                client = inner(**kwargs)
            client.event_hooks.setdefault("response", []).append(self.record)
            return client

        return factory


def new_client(
    transport: Any,
    server: str,
    refusals: Refusals,
    mark: str,
    on_log: Callable[[types.LoggingMessageNotificationParams], None] | None = None,
) -> Client[Any]:
    """A ``fastmcp.Client`` of our own for ``transport`` (see the module docstring).

    A ``fastmcp.Client`` given as the transport keeps its configuration (timeout,
    handlers, auth): tooldeck opens a session of its own with it. Each server it starts
    over stdio carries ``mark`` in its environment (`tooldeck.mcp._processes`). The
    server's log messages go to the ``tooldeck.mcp`` logger, then to ``on_log`` (unless
    the given client has a log handler of its own).
    """
    if isinstance(transport, Client):
        client: Client[Any] = transport.new()
        client.transport = _marked(_recording(client.transport, refusals), mark)
        if _logs_by_default(client):  # fastmcp's handler prints: ours logs on tooldeck.mcp
            client._session_kwargs = {
                **client._session_kwargs,
                "logging_callback": create_log_callback(_log_handler(server, on_log)),
            }
    else:
        inferred = _marked(
            _recording(infer_transport(_marked_config(transport, mark)), refusals), mark
        )
        client = Client(
            inferred,
            log_handler=_log_handler(server, on_log),
            progress_handler=progress_handler(server),
        )
    # How fastmcp's own proxy client picks its session class.
    options = client._transport_options or TransportOptions()
    client._transport_options = dataclasses.replace(options, session_class=GatewaySession)
    return client


def _logs_by_default(client: Client[Any]) -> bool:
    """Whether ``client`` hands server logs to fastmcp's default handler (no handler of
    its owner's): its logging callback closes over `default_log_handler`."""
    callback = client._session_kwargs.get("logging_callback")
    cells = getattr(callback, "__closure__", None) or ()
    return any(cell.cell_contents is default_log_handler for cell in cells)


def _recording(transport: ClientTransport, refusals: Refusals) -> ClientTransport:
    """An HTTP transport whose HTTP clients report 401s and 403s (a copy: the caller's
    transport object is left as it was)."""
    if not isinstance(transport, (StreamableHttpTransport, SSETransport)):
        return transport
    recording = copy.copy(transport)
    inner = transport.httpx_client_factory
    if inner is None and transport.verify is not None:
        inner = transport._make_verify_factory()  # what the transport would have used
    recording.httpx_client_factory = refusals.wrap(inner)
    return recording


def starts_processes(client: Client[Any]) -> bool:
    """Whether ``client`` starts server processes (stdio, or an MCP config's)."""
    return isinstance(client.transport, (StdioTransport, MCPConfigTransport))


def _marked(transport: ClientTransport, mark: str) -> ClientTransport:
    """A stdio transport whose server carries ``mark`` in its environment: a new one,
    with a connection of its own (the caller's transport object is left as it was).

    Built from the public attributes every fastmcp 4 ``StdioTransport`` (and subclass:
    Python, Node, uvx...) runs its server from, so no connection state is shared and no
    private attribute is relied on (fastmcp 4.1, the newest for Python 3.10, has no
    ``_reset``).
    """
    if not isinstance(transport, StdioTransport):
        return transport
    return StdioTransport(
        command=transport.command,
        args=list(transport.args),
        env=mark_env(transport.env, mark),
        cwd=transport.cwd,
        keep_alive=transport.keep_alive,
        log_file=transport.log_file,
    )


def _marked_config(transport: Any, mark: str) -> Any:
    """An MCP config whose stdio servers carry ``mark`` (a copy); anything else as is."""
    servers = transport.get("mcpServers") if isinstance(transport, Mapping) else None
    if not isinstance(servers, Mapping):
        return transport
    marked = {}
    for name, entry in servers.items():
        if isinstance(entry, Mapping) and isinstance(entry.get("command"), str):
            env = entry.get("env")
            entry = {**entry, "env": mark_env(env if isinstance(env, Mapping) else None, mark)}
        marked[name] = entry
    return {**transport, "mcpServers": marked}


def _log_handler(
    server: str, on_log: Callable[[types.LoggingMessageNotificationParams], None] | None
) -> Callable[[types.LoggingMessageNotificationParams], Any]:
    async def log(message: types.LoggingMessageNotificationParams) -> None:
        level = _LEVELS.get(str(message.level).lower(), logging.INFO)
        source = f"{server} ({message.logger})" if message.logger else server
        logger.log(level, "MCP server %s: %s", source, message.data)
        if on_log is not None:
            on_log(message)  # on to a gateway's client (`Session.on_log`)

    return log


def progress_handler(
    server: str, reporter: Callable[[float, float | None, str | None], Any] | None = None
) -> ProgressHandler:
    """A client's progress handler: reports go to the ``tooldeck.mcp`` logger and, for
    a call whose caller takes them, on to ``reporter`` (a `tooldeck.Progress`)."""

    async def report(progress: float, total: float | None, message: str | None) -> None:
        if logger.isEnabledFor(logging.DEBUG):
            of = f"/{total:g}" if total is not None else ""
            note = f" ({message})" if message else ""
            logger.debug("MCP server %s: progress %g%s%s", server, progress, of, note)
        if reporter is not None:
            reporter(progress, total, message)

    return report


class GatewaySession(ClientSession):
    """The MCP SDK's client session, as a gateway needs it (see the module docstring).

    Attributes:
        rejected: ``(name, reason)`` of each tool the last listing could not read.
    """

    rejected: list[tuple[str, str]]

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        """Leave results unchecked here: `tooldeck.mcp._proxy` checks them itself."""
        return None

    async def list_tools(
        self, *, params: types.PaginatedRequestParams | None = None
    ) -> types.ListToolsResult:
        """``tools/list``; a tool the SDK refuses is noted in ``rejected`` and left out."""
        first_page = params is None or params.cursor is None
        if first_page:
            self.rejected = []
        try:
            return await super().list_tools(params=params)
        except ValidationError:
            # The SDK validates the listing as a whole: one tool with a broken schema
            # would hide every other. Ask again and read the tools one by one.
            pass
        raw = await self._raw_listing(params)
        tools = []
        for item in raw.get("tools") or []:
            try:
                tools.append(self._read_tool(raw, item))
            except (ValidationError, ValueError) as exc:
                self.rejected.append((_name_of(item), _first_problem(exc)))
        cursor = raw.get("nextCursor")
        result = types.ListToolsResult(tools=tools, next_cursor=cursor)
        # What the SDK's own list_tools does with a listing (per-tool state it keeps).
        return self._absorb_tool_listing(result, complete=first_page and cursor is None)

    async def _raw_listing(self, params: types.PaginatedRequestParams | None) -> dict[str, Any]:
        return await self.raw_request(types.ListToolsRequest(params=params))

    async def raw_request(self, request: types.Request[Any, Any]) -> dict[str, Any]:
        """``ClientSession.send_request`` without its validation of the result: its JSON.

        (A task-augmented ``tools/call`` answers a ``CreateTaskResult``, which the SDK
        would refuse as no ``CallToolResult``: `tooldeck.mcp._tasks` reads it.)
        """
        data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        opts: CallOptions = {}
        self._stamp(data, opts)
        if self._session_read_timeout_seconds is not None:
            opts["timeout"] = self._session_read_timeout_seconds
        raw: dict[str, Any] = await self._dispatcher.send_raw_request(
            data["method"], data.get("params"), opts
        )
        return raw

    def _read_tool(self, raw: Mapping[str, Any], item: Any) -> types.Tool:
        version = self.protocol_version or "2025-11-25"
        with contextlib.suppress(KeyError):  # a version without a listing shape of its own
            methods.validate_server_result("tools/list", version, {**raw, "tools": [item]})
        return types.Tool.model_validate(item, by_name=False)


def _name_of(item: Any) -> str:
    name = item.get("name") if isinstance(item, Mapping) else None
    return name if isinstance(name, str) else repr(name)


def _first_problem(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        loc = list(error["loc"])
        if loc[:1] == ["tools"]:
            loc = loc[2:]  # past ("tools", <index>)
        where = ".".join(str(part) for part in loc)
        return f"{where or 'the tool'}: {error['msg']}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__

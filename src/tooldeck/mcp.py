"""MCP both ways, over ``fastmcp`` (the ``mcp`` extra).

* Importing: `use_mcp` lists a server's tools once and registers a proxy
  `Tool` per tool, with the server's input and output schemas and
  tags. A proxy call answers as seed 001 §7.2 says (`to_value`).
* Connections: one session per server, opened on first use on tooldeck's background
  loop (`tooldeck._shifting.background_loop`) and shared by every call, from
  any thread or loop. A session found dead is dropped; the next call opens a new one.
* Serving: `as_mcp_server` is a ``fastmcp.FastMCP`` whose tools are a live view
  of the registry's enabled tools, with exactly their ``export("mcp")`` schemas and
  tags, called through tooldeck's pipeline; `serve` runs it over stdio or
  streamable HTTP.

This is the only module that imports ``fastmcp`` or the MCP SDK, and only inside
functions: ``import tooldeck`` stays light. Without ``fastmcp`` every entry point
raises `ImportError` naming the extra; nothing prompts or installs (Agently's
interactive ``pip install?`` prompt breaks under pytest and in servers).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import re
import threading
import weakref
from collections.abc import Callable, Coroutine, Iterable, Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ._schema_tools import schema_tool
from ._shifting import background_loop
from ._tool import Tool, normalise_tags
from .errors import DuplicateToolError

if TYPE_CHECKING:
    import fastmcp
    import mcp_types
    from fastmcp.server.providers import Provider

    from ._base_registry import BaseRegistry as ToolRegistry

__all__ = [
    "aclose",
    "as_mcp_server",
    "async_use_mcp",
    "close",
    "sanitise_name",
    "serve",
    "to_value",
    "use_mcp",
]

T = TypeVar("T")
Tags = str | Iterable[str] | None

logger = logging.getLogger("tooldeck.mcp")

INSTALL_HINT = "MCP support needs fastmcp: pip install 'tooldeck[mcp]'"
TOKEN_ENV = "TOOLDECK_MCP_TOKEN"
HTTP_PATH = "/mcp"
_BAD_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_PING_TIMEOUT = 5.0  # seconds a liveness probe may take after a failed call
_OPEN_TIMEOUT = 60.0  # seconds opening a session may take (fastmcp waits forever by default)
CALL_TIMEOUT = 60.0  # default seconds a proxied call may take before it gives §7.2's None


def _fastmcp() -> Any:
    """``import fastmcp``, or the install hint (never a prompt, never an install)."""
    try:
        import fastmcp
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return fastmcp


# -- sessions: one per server, living on the background loop ------------------------------


async def _on_background(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the background loop, from whichever loop we are on.

    A session belongs to the loop that opened it (its reader is a task there), so
    every session is opened and used on the background loop only.
    """
    loop = background_loop()
    if asyncio.get_running_loop() is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


class _Session:
    """One MCP server's client session: opened lazily, shared, reopened when dead."""

    def __init__(self, transport: Any, timeout: float | None = CALL_TIMEOUT) -> None:
        self.transport = transport
        # A fastmcp.Client handed in with its own request timeout keeps it.
        own = getattr(transport, "_session_kwargs", {}).get("read_timeout_seconds")
        self.timeout = None if own else timeout
        self._client: fastmcp.Client[Any] | None = None
        self._lock: asyncio.Lock | None = None  # made on the background loop

    async def list_tools(self) -> list[mcp_types.Tool]:
        return await _on_background(self._list_tools())

    async def call(self, name: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        return await _on_background(self._call(name, arguments))

    async def aclose(self) -> None:
        await _on_background(self._close())

    async def _connected(self) -> fastmcp.Client[Any]:
        client = self._client
        if client is not None:
            return client
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._client is None:
                client = _new_client(self.transport)
                await client.__aenter__()  # type: ignore[no-untyped-call]
                self._client = client
            return self._client

    async def _list_tools(self) -> list[mcp_types.Tool]:
        client = await self._connected()
        try:
            return await client.list_tools()
        except Exception:
            await self._drop_if_dead(client)
            raise

    async def _call(self, name: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        client = await self._connected()
        try:
            return await client.call_tool_mcp(name, arguments, timeout=self.timeout)
        except Exception:
            await self._drop_if_dead(client)
            raise

    async def _drop_if_dead(self, client: fastmcp.Client[Any]) -> None:
        # A failed call may be the server's fault (say, a result that breaks its own
        # output schema) on a healthy session that other calls share: only a session
        # that cannot answer a ping is dropped.
        if await _answers(client):
            return
        if self._client is client:
            self._client = None
        await _quietly_close(client)

    async def _close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await _quietly_close(client)


def _new_client(transport: Any) -> fastmcp.Client[Any]:
    _fastmcp()
    from fastmcp import Client

    if isinstance(transport, Client):
        return transport.new()  # same configuration, a session of our own
    return Client(transport, init_timeout=_OPEN_TIMEOUT)


async def _answers(client: fastmcp.Client[Any]) -> bool:
    """Whether the server at the other end of ``client`` still answers."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    try:
        await asyncio.wait_for(client.ping(), _PING_TIMEOUT)
    except MCPError as exc:
        # An error *answer* is a sign of life: servers of the stateless 2026 protocol
        # era answer `ping` with "method not found".
        return exc.code != CONNECTION_CLOSED
    except Exception:
        return False
    return True


async def _quietly_close(client: fastmcp.Client[Any]) -> None:
    # Closing a session whose server is gone fails too (an HTTP client sends a final
    # DELETE): there is nothing left to release, so that failure is not news.
    try:
        await client.close()  # type: ignore[no-untyped-call]
    except Exception:
        logger.debug("closing an MCP session failed", exc_info=True)


# -- importing: proxies ---------------------------------------------------------------------


class _State:
    """What tooldeck.mcp keeps per registry (in ``registry._mcp_state``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sessions: dict[Any, _Session] = {}
        self.imported: dict[Any, dict[str, Tool[..., Any]]] = {}  # server key → its proxies


def _state(registry: ToolRegistry) -> _State:
    state = registry._mcp_state
    if state is None:
        with registry._lock:
            if registry._mcp_state is None:
                registry._mcp_state = _State()
                # A registry dropped without close() still ends its sessions (and
                # the stdio servers they started).
                weakref.finalize(registry, _close_soon, registry._mcp_state)
            state = registry._mcp_state
    return cast(_State, state)


def _close_soon(state: _State) -> None:
    asyncio.run_coroutine_threadsafe(_close_all(state), background_loop())


def _server_key(transport: Any) -> Any:
    """What makes two ``use_mcp`` calls "the same server"."""
    if isinstance(transport, (str, PurePath)):
        return ("address", str(transport))
    if isinstance(transport, Mapping):
        return ("config", json.dumps(transport, sort_keys=True, default=str))
    return ("object", id(transport))


def sanitise_name(remote: str) -> str:
    """A remote tool name made to fit ``^[A-Za-z0-9_-]{1,64}$``: others → ``_``, cut to 64."""
    return _BAD_NAME_CHARS.sub("_", remote)[:64] or "_"


def use_mcp(
    registry: ToolRegistry,
    transport: Any,
    *,
    tags: Tags = None,
    replace: bool = False,
    timeout: float | None = CALL_TIMEOUT,
) -> list[Tool[..., Any]]:
    """Register a proxy for each tool of an MCP server; return the proxies.

    Args:
        registry: Where the proxies go.
        transport: Anything ``fastmcp.Client`` accepts: a URL, a script path, an MCP
            config dict, a ``FastMCP`` server (in process), a transport, a ``Client``.
        tags: Tags added to the server's own.
        replace: Replace local tools whose names clash instead of raising.
        timeout: Seconds a proxied call may take; past it the call gives seed 001
            §7.2's failure value, ``None`` (``None`` waits forever).

    Raises:
        DuplicateToolError: A remote name is taken by a tool that is not one of this
            server's earlier proxies (nothing is registered).
        ImportError: ``fastmcp`` is not installed.
    """
    _fastmcp()
    return _run_sync(
        async_use_mcp(registry, transport, tags=tags, replace=replace, timeout=timeout)
    )


async def async_use_mcp(
    registry: ToolRegistry,
    transport: Any,
    *,
    tags: Tags = None,
    replace: bool = False,
    timeout: float | None = CALL_TIMEOUT,
) -> list[Tool[..., Any]]:
    """Async twin of `use_mcp`."""
    _fastmcp()
    extra = normalise_tags(tags)
    state, key = _state(registry), _server_key(transport)
    with state.lock:
        session = state.sessions.get(key)
        created = session is None
        if session is None:  # stored now, so concurrent imports share it
            session = state.sessions[key] = _Session(transport, timeout)
    try:
        remote = await session.list_tools()
    except BaseException:
        if created:
            with state.lock:
                if state.sessions.get(key) is session and key not in state.imported:
                    del state.sessions[key]
            await session.aclose()
        raise
    proxies = [_proxy(session, tool, extra) for tool in remote]
    with registry._lock, state.lock:
        previous = state.imported.get(key, {})
        _check_clashes(registry, proxies, previous, replace=replace)
        registry.register_many(proxies, replace=True)
        mine = {p.name: p for p in proxies}
        for name, old in previous.items():
            if name not in mine and registry.get(name) is old:
                registry.unregister(name)
        state.sessions[key] = session
        state.imported[key] = mine
    return proxies


def _check_clashes(
    registry: ToolRegistry,
    proxies: list[Tool[..., Any]],
    previous: Mapping[str, Tool[..., Any]],
    *,
    replace: bool,
) -> None:
    seen: set[str] = set()
    for proxy in proxies:
        name = proxy.name
        if name in seen:  # two remote names that sanitise alike
            raise DuplicateToolError(name)
        seen.add(name)
        existing = registry.get(name)
        if existing is not None and not replace and existing is not previous.get(name):
            raise DuplicateToolError(name)


def _proxy(session: _Session, remote: mcp_types.Tool, extra: tuple[str, ...]) -> Tool[..., Any]:
    output = remote.output_schema
    wrapped = bool(output and output.get("x-fastmcp-wrap-result"))
    remote_name = remote.name

    async def call_remote(**arguments: Any) -> Any:
        try:
            result = await session.call(remote_name, arguments)
        except Exception:  # seed 001 §7.2: a failure in the client is None
            logger.debug("MCP call of %r failed", remote_name, exc_info=True)
            return None
        return to_value(result, wrapped=wrapped)

    return schema_tool(
        sanitise_name(remote_name),
        remote.description or remote_name,
        remote.input_schema,
        call_remote,
        returns=_unwrapped(output) if output and wrapped else output,
        tags=(*_server_tags(remote.meta), *extra),
    )


def _server_tags(meta: Mapping[str, Any] | None) -> list[str]:
    """Tags where each fastmcp major puts them: 4.x ``fastmcp``, 2.x ``_fastmcp``."""
    for key in ("fastmcp", "_fastmcp"):
        section = (meta or {}).get(key)
        if isinstance(section, Mapping):
            tags = section.get("tags")
            if isinstance(tags, list):
                return [t for t in tags if isinstance(t, str) and t]
    return []


def _unwrapped(output: Mapping[str, Any]) -> dict[str, Any] | Mapping[str, Any]:
    """The schema of ``x`` in fastmcp's ``{"result": x}``: what the proxy returns."""
    inner = output.get("properties", {}).get("result")
    if not isinstance(inner, Mapping):
        return output
    defs = output.get("$defs")
    return {**inner, "$defs": defs} if defs else dict(inner)


def to_value(result: mcp_types.CallToolResult, *, wrapped: bool = False) -> Any:
    """A tool call's answer as seed 001 §7.2 defines it.

    ``is_error`` → ``{"error": <text>}``; structured content → it (fastmcp's
    ``{"result": x}`` → ``x`` when the tool's output schema or the result's meta marks
    it wrapped); else the first content item: text → ``json.loads`` of it or the text
    itself; anything else (image, audio, resource) → its dict, in MCP's wire shape.
    """
    if result.is_error:
        return {"error": _error_text(result)}
    structured = result.structured_content
    if structured is not None:
        if (wrapped or _marked_wrapped(result.meta)) and "result" in structured:
            return structured["result"]
        return structured
    if not result.content:
        return None
    first = result.content[0]
    if first.type == "text":
        try:
            return json.loads(first.text)
        except ValueError:
            return first.text
    return first.model_dump(mode="json", by_alias=True, exclude_none=True)


def _marked_wrapped(meta: Mapping[str, Any] | None) -> bool:
    section = (meta or {}).get("fastmcp")
    return isinstance(section, Mapping) and bool(section.get("wrap_result"))


def _error_text(result: mcp_types.CallToolResult) -> str:
    texts = [item.text for item in result.content if item.type == "text"]
    return "\n".join(texts) if texts else "the tool failed without saying why"


async def aclose(registry: ToolRegistry) -> None:
    """Close the sessions opened for this registry's proxies (they reopen on use)."""
    state = registry._mcp_state
    if isinstance(state, _State):
        await _close_all(state)


def close(registry: ToolRegistry) -> None:
    """Sync twin of `aclose`."""
    _run_sync(aclose(registry))


async def _close_all(state: _State) -> None:
    with state.lock:
        sessions = list(state.sessions.values())
    for session in sessions:
        await session.aclose()


def _run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the background loop and wait for it, from synchronous code."""
    from . import _shifting

    if threading.current_thread() is _shifting._loop_thread:
        coro.close()
        raise RuntimeError("a sync MCP call would block tooldeck's event loop; await its twin")
    future = asyncio.run_coroutine_threadsafe(coro, background_loop())
    try:
        return future.result()
    except BaseException:
        future.cancel()  # interrupted while waiting: stop the coroutine too
        raise


# -- serving --------------------------------------------------------------------------------


def as_mcp_server(
    registry: ToolRegistry, *, name: str = "tooldeck", tags: Tags = None
) -> fastmcp.FastMCP[Any]:
    """A ``fastmcp.FastMCP`` serving the registry's enabled tools (a live view).

    Each tool is listed with exactly its ``export("mcp")`` entry (input and output
    schemas, description, tags under ``_meta``) and called through tooldeck's
    pipeline: a failure becomes an MCP error result carrying the message.
    """
    _fastmcp()
    from fastmcp import FastMCP

    provider = _provider_type()(registry, tags)
    # dereference_schemas=False: serve the schemas as exported, `$defs` and all.
    return FastMCP(name, providers=[provider], dereference_schemas=False)


def serve(
    registry: ToolRegistry,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    name: str = "tooldeck",
    tags: Tags = None,
) -> None:
    """Serve the registry over MCP until interrupted.

    Args:
        registry: The tools to serve (its enabled ones, looked up on every request).
        transport: ``"stdio"`` or ``"http"`` (streamable HTTP at ``/mcp``).
        host: The HTTP interface; loopback unless told otherwise.
        port: The HTTP port.
        token: A bearer token HTTP clients must send (default: the
            ``TOOLDECK_MCP_TOKEN`` environment variable); fastmcp enforces it.
        name: The server name clients see.
        tags: Serve only tools carrying any of these tags.
    """
    if transport not in ("stdio", "http"):
        raise ValueError(f"unknown MCP transport {transport!r}; use 'stdio' or 'http'")
    if transport == "stdio" and token:
        raise ValueError("a token protects the HTTP transport; stdio has no clients to check")
    server = as_mcp_server(registry, name=name, tags=tags)
    if transport == "stdio":
        server.run(transport="stdio", show_banner=False)
        return
    token = token or os.environ.get(TOKEN_ENV) or None
    if token is not None:
        server.auth = _token_verifier(token)
    elif host not in ("127.0.0.1", "localhost", "::1"):
        logger.warning("serving MCP on %s without a token: anyone who can reach it may call", host)
    server.run(transport="http", host=host, port=port, path=HTTP_PATH, show_banner=False)


def _token_verifier(token: str) -> Any:
    from fastmcp.server.auth.providers.jwt import StaticTokenVerifier

    return StaticTokenVerifier(tokens={token: {"client_id": "tooldeck", "scopes": []}})


@functools.cache
def _served_tool_type() -> Any:
    """fastmcp's ``Tool`` for a registry tool, defined on first use (fastmcp is optional)."""
    from fastmcp.tools import Tool as FastMCPTool
    from fastmcp.tools.base import ToolResult as FastMCPResult
    from mcp_types import TextContent
    from pydantic import PrivateAttr

    class ServedTool(FastMCPTool):
        """A registry tool as fastmcp sees it: its ``export("mcp")``, run by tooldeck."""

        _tool: Tool[..., Any] = PrivateAttr()
        _export_meta: dict[str, Any] = PrivateAttr()

        def get_meta(self) -> dict[str, Any]:
            # The exported `_meta` as is (tags where both fastmcp majors look), not
            # fastmcp's own, which would drop 2.x's `_fastmcp`.
            meta: dict[str, Any] = json.loads(json.dumps(self._export_meta))
            return meta

        async def run(self, arguments: dict[str, Any]) -> FastMCPResult:
            outcome = await self._tool.run(arguments)
            if not outcome.success:
                text = TextContent(type="text", text=outcome.error or "")
                return FastMCPResult(content=[text], is_error=True)
            return self.convert_result(outcome.data)

    return ServedTool


def _served(tool: Tool[..., Any], exported: Mapping[str, Any]) -> Any:
    served = _served_tool_type()(
        name=exported["name"],
        description=exported["description"],
        parameters=exported["inputSchema"],
        output_schema=exported.get("outputSchema"),
        tags=set(tool.tags),
    )
    served._tool = tool
    served._export_meta = exported["_meta"]
    return served


@functools.cache
def _provider_type() -> Callable[[ToolRegistry, Tags], Provider]:
    """A fastmcp ``Provider`` over a registry, defined on first use."""
    from fastmcp.server.providers import Provider

    class RegistryProvider(Provider):
        """The registry's enabled tools (those with ``tags``), read afresh each time."""

        def __init__(self, registry: ToolRegistry, tags: Tags) -> None:
            super().__init__()
            self._registry = registry
            self._tags = tags

        async def _list_tools(self) -> list[Any]:
            registry, served = self._registry, []
            for exported in registry.export("mcp", tags=self._tags):
                tool = registry.get(exported["name"])
                if tool is not None:
                    served.append(_served(tool, exported))
            return served

        async def _get_tool(self, name: str, version: Any = None) -> Any:
            tool = self._registry.get(name)
            if tool is None or name not in self._registry.list_tools(tags=self._tags):
                return None
            return _served(tool, tool.export("mcp"))

    return RegistryProvider

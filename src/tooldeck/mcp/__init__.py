"""MCP both ways, over ``fastmcp`` (the ``mcp`` extra).

The client half imports a server's tools:

* `use_mcp` / `async_use_mcp` list a server's tools once and register a proxy
  (`tooldeck.mcp._proxy.ProxyTool`) for each, with the server's schemas, tags,
  annotations and title; the server owns validation, and a proxy call answers as seed
  001 §7.2 says (`to_value`);
* one session per server (`tooldeck.mcp._session`), on an event loop of its own
  (`tooldeck.mcp._loop`), shared by every call from any thread or loop, bounded by
  the import's ``timeout``; `close` / `aclose` end them and stop the server processes
  they started.

The server half serves a registry:

* `as_mcp_server`: a ``fastmcp.FastMCP`` whose tools are a live view of the registry,
  each exactly its ``export("mcp")``, a proxy handing on its server's results as they
  came (`tooldeck.mcp._provider`);
* `serve` (stdio or streamable HTTP) and `http_app` (the ASGI app), with bearer tokens
  and a Host/Origin check (`tooldeck.mcp._auth`); `client_id` reads who is calling.

Only this package imports ``fastmcp`` or the MCP SDK, and only when first used:
``import tooldeck`` (and ``import tooldeck.mcp``) stays light.
"""

from __future__ import annotations

from tooldeck.errors import MCPAuthError, MCPConnectionError, MCPTimeoutError

from ._auth import client_id
from ._importing import aclose, async_use_mcp, close, use_mcp
from ._proxy import sanitise_name
from ._results import to_value
from ._serving import as_mcp_server, http_app, serve

__all__ = [
    "MCPAuthError",
    "MCPConnectionError",
    "MCPTimeoutError",
    "aclose",
    "as_mcp_server",
    "async_use_mcp",
    "client_id",
    "close",
    "http_app",
    "sanitise_name",
    "serve",
    "to_value",
    "use_mcp",
]

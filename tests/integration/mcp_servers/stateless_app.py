"""A registry's MCP server as an ASGI app, stateless, for ``uvicorn --workers N``.

``uvicorn stateless_app:app --workers 2`` (from this folder) runs it in two processes;
any of them answers any request, since the server keeps no per-client session.
"""

from __future__ import annotations

import os

from tooldeck import ToolRegistry

TOKEN = "s3cret-stateless"

registry = ToolRegistry()


@registry.tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@registry.tool
def pid() -> int:
    """The process that answered."""
    return os.getpid()


app = registry.http_app(stateless=True, token=TOKEN)

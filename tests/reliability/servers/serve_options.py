"""``registry.serve("http", **OPTIONS)`` for the serving tests.

Usage: ``python serve_options.py '{"port": 8000, "token": {...}, ...}'``: the JSON
object is passed to ``serve`` as keyword arguments. ``whoami`` answers the client id
the request's bearer token maps to, read from the request's ``fastmcp.Context``.
"""

from __future__ import annotations

import json
import sys

from fastmcp.server.dependencies import get_context

from tooldeck import ToolRegistry
from tooldeck.mcp import client_id

registry = ToolRegistry()


@registry.tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@registry.tool
async def whoami() -> str | None:
    """The authenticated client's id."""
    return client_id(get_context())


if __name__ == "__main__":
    registry.serve("http", **json.loads(sys.argv[1]))

"""A tooldeck registry served over MCP, for the subprocess tests and the benchmark.

Usage: ``python serve_registry.py stdio`` or ``python serve_registry.py http PORT [TOKEN]``.
Run as a script (not through the CLI), so these tests depend on ``tooldeck.mcp`` only.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Annotated

from tooldeck import ToolRegistry

registry = ToolRegistry()


@registry.tool(tags=["math"])
def add(a: Annotated[int, "first addend"], b: int = 0) -> int:
    """Add two integers."""
    return a + b


@registry.tool(tags=["text"])
async def shout(text: str, times: int = 1) -> dict[str, str]:
    """Upper-case a text, repeated."""
    await asyncio.sleep(0.01)  # concurrent calls overlap on the server
    return {"text": (text.upper() + " ") * times}


@registry.tool
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@registry.tool
def refuse(reason: str) -> str:
    """Always fails with the reason."""
    raise ValueError(reason)


def main(argv: list[str]) -> None:
    transport = argv[0] if argv else "stdio"
    if transport == "stdio":
        registry.serve("stdio")
    else:
        port = int(argv[1])
        token = argv[2] if len(argv) > 2 else None
        registry.serve("http", host="127.0.0.1", port=port, token=token)


if __name__ == "__main__":
    main(sys.argv[1:])

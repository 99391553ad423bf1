"""A registry over stdio whose tools break their declared return types, for MCP clients
that check ``structuredContent`` against ``outputSchema`` (they throw on a mismatch);
and one that reports its progress (`tooldeck.Progress`).

Usage: ``python strict_outputs.py``.
"""

from __future__ import annotations

import time

from pydantic import BaseModel

from tooldeck import Progress, ToolRegistry


class Point(BaseModel):
    x: int
    y: int


registry = ToolRegistry()


@registry.tool(annotations={"readOnlyHint": True, "title": "A liar"})
def liar() -> int:
    """Declares an int, returns text."""
    return "x"  # type: ignore[return-value]


@registry.tool
def bent() -> Point:
    """Declares a Point, returns a dict that is not one."""
    return {"x": "left"}  # type: ignore[return-value]


@registry.tool
def add(a: int, b: int = 0) -> int:
    """Keeps its word."""
    return a + b


@registry.tool
def steps(progress: Progress) -> int:
    """Five steps, each reported."""
    for i in range(1, 6):
        time.sleep(0.005)
        progress(i, 5, f"step {i}")
    return 5


if __name__ == "__main__":
    registry.serve("stdio")

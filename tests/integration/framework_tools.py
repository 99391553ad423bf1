"""The tools every framework bridge test runs: defaults, an enum, a nested model, an
injected parameter, sync and async, one that raises, one that returns media.

No framework is imported here (a helper module, imported by the test modules).
"""

from __future__ import annotations

import enum
from typing import Annotated, Any

from pydantic import BaseModel

from tooldeck import Image, Injected, ToolRegistry

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
    b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Box(BaseModel):
    w: int
    h: int = 1


def make_registry(**options: Any) -> ToolRegistry:
    registry = ToolRegistry(**options)

    @registry.tool
    def paint(box: Box, color: Color, times: int = 2, user: Annotated[str, Injected] = "") -> str:
        """Paint a box.

        Args:
            box: the box
            color: which paint
            times: coats
        """
        return f"{user} painted {box.w}x{box.h} {color.value} x{times}"

    @registry.tool
    async def apaint(
        box: Box, color: Color, times: int = 2, user: Annotated[str, Injected] = ""
    ) -> str:
        """Paint a box, asynchronously."""
        return f"{user} painted {box.w}x{box.h} {color.value} x{times}"

    @registry.tool
    def boom(x: int) -> int:
        """Always fails."""
        raise RuntimeError(f"kaput {x}")

    @registry.tool
    def chart(year: int) -> list[Any]:
        """A chart."""
        return [f"sales {year}", Image(PNG)]

    return registry


INVALID = {"box": {"w": "x"}, "color": "green", "user": "evil"}
# the problems in INVALID: tooldeck's message has a line for each, after its header
INVALID_LINES = ["box.w", "color", "user"]


def painted(user: str) -> str:
    return f"{user} painted 3x1 red x2"


def gated_registry() -> ToolRegistry:
    """``delete`` always needs approval; ``spend`` when over 100 (a policy on the
    validated arguments and the context)."""
    registry = ToolRegistry()

    @registry.tool(requires_approval=True)
    def delete(name: str) -> str:
        return f"deleted {name}"

    def over(arguments: dict[str, Any], context: Any) -> bool:
        return bool(arguments["amount"] > context.get("limit", 100))

    @registry.tool(requires_approval=over)
    def spend(amount: int) -> str:
        return f"spent {amount}"

    return registry

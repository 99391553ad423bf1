"""Tools for the CLI tests, imported by `tooldeck --tools cli_tools[:attr]`.

It prints at import on purpose: the CLI must keep its own stdout clean.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from tooldeck import ToolRegistry, ToolResult, tool

print("cli_tools imported (this line must not reach the CLI's stdout)")


@tool(tags=["math"])
def add(a: int, b: Annotated[int, "second addend"] = 0) -> int:
    """Add two integers.

    A second line the table leaves out.
    """
    return a + b


@tool(tags=["text"])
def echo(text: str, times: int = 1) -> str:
    """Repeat a text."""
    return text * times


@tool(tags=["text", "async"])
async def shout(text: str, mood: Literal["calm", "loud"] = "loud") -> str:
    """Upper-case a text, asynchronously."""
    await asyncio.sleep(0)
    return text.upper() + ("!" if mood == "loud" else "")


@tool(tags=["place"])
def where(city: str = "台北", tags: list[str] | None = None) -> dict[str, object]:
    """Describe a city (answers in structured data)."""
    return {"city": city, "tags": tags or [], "country": "台灣"}


@tool
def explode(message: str = "boom") -> None:
    """Always fails."""
    raise RuntimeError(message)


@tool
def refuse() -> ToolResult:
    """Answers with ToolResult.fail."""
    return ToolResult.fail("not today")


@tool(enabled=False)
def hidden() -> str:
    """A disabled tool."""
    return "you found me"


#: A registry of its own: `--tools cli_tools:registry`.
registry = ToolRegistry()


@registry.tool(tags=["only"])
def ping() -> str:
    """Answer pong."""
    return "pong"


#: A list of tools: `--tools cli_tools:PAIR`.
PAIR = [add, echo]


@tool(tags=["loose"])
def tune(values: dict[str, float]) -> int:
    """Take free-form settings (strict mode cannot express them)."""
    return len(values)


def plain(x: int) -> int:
    """A plain function, not decorated: `--tools cli_tools:plain` makes it a tool."""
    return x * 2
